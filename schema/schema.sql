-- vsweep results schema, version 4 (meta format 'vsweep results 4').
--
-- Base tables are laid out for write speed and size; users query the views,
-- whose names and columns are a contract (docs/results.md).
--
-- `state` is clustered by its key (variant_id, actor_id, step): WITHOUT
-- ROWID, the key is the table, so one b-tree holds each row once, in the
-- order the analyst's filters and groups want it. One variant, one actor
-- of it, or one step of that actor is a key range or a single probe;
-- SQLite never needs (and never builds) an automatic index for them. The
-- writer stores variants in ascending order and each variant's rows in key
-- order, so inserts land at the b-tree's right edge (a long variant
-- stored in chunks puts each actor's later steps just after its earlier
-- ones, inside the variant's range; docs/results.md, "Query speed" and
-- "Write speed", has the measured costs).

CREATE TABLE meta (              -- the sweep's own record
  key   TEXT PRIMARY KEY,
  value
) WITHOUT ROWID;

CREATE TABLE plugin (            -- plugins the sweep used
  name    TEXT PRIMARY KEY,
  kind    TEXT NOT NULL,         -- 'vehicle_model' | 'behaviour'
  version TEXT NOT NULL,
  path    TEXT NOT NULL,
  digest  TEXT NOT NULL          -- FNV-1a 64 of the shared object's bytes
) WITHOUT ROWID;

-- Every parameter of each actor's plugins as the seed scenario sets it,
-- with the plugin's unit, so that a swept params member (actorN.ROLE.NAME)
-- has one. The same in every variant (a variant's own value is in its
-- params). A file written before the table has none until resumed.
CREATE TABLE actor_param (
  actor_id INTEGER NOT NULL,
  role     TEXT NOT NULL,        -- 'vehicle_model' or 'behaviour'
  name     TEXT NOT NULL,        -- as params and the plugin spell it
  plugin   TEXT NOT NULL,        -- plugin.name (fmu:FILE.fmu for an FMU)
  unit     TEXT NOT NULL,        -- the plugin's; '' dimensionless or none
  value    REAL NOT NULL,        -- the seed's: set there, else the default
  min      REAL,                 -- the plugin's range, NULL unbounded
  max      REAL,
  doc      TEXT NOT NULL,
  PRIMARY KEY (actor_id, role, name)
) WITHOUT ROWID;

CREATE TABLE variant (
  variant_id   INTEGER PRIMARY KEY,
  status       INTEGER NOT NULL, -- 1 done, 2 failed
  error        TEXT,
  params       TEXT NOT NULL,    -- JSON
  wall_seconds REAL NOT NULL,    -- s
  label        TEXT              -- a list entry's label, or NULL
);

CREATE TABLE actor (
  variant_id    INTEGER NOT NULL,
  actor_id      INTEGER NOT NULL,
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL,   -- 'vehicle' | 'character' | 'object'
  parent_id     INTEGER NOT NULL,-- 0: the world actor
  attach_type   TEXT,            -- NULL | 'trailer' | 'fixed'
  length        REAL NOT NULL,   -- m
  width         REAL NOT NULL,   -- m
  height        REAL NOT NULL,   -- m
  wheel_count   INTEGER NOT NULL,
  vehicle_model TEXT,
  behaviour     TEXT,
  PRIMARY KEY (variant_id, actor_id)
) WITHOUT ROWID;

-- One wheel of one actor of one variant: fixed geometry, actor frame.
CREATE TABLE wheel (
  variant_id INTEGER NOT NULL,
  actor_id   INTEGER NOT NULL,
  wheel      INTEGER NOT NULL,   -- 0.., front axle first, left to right
  x REAL NOT NULL, y REAL NOT NULL, -- m, wheel centre
  radius     REAL NOT NULL,      -- m (the centre's z)
  steered    INTEGER NOT NULL,   -- 1: Ackermann-steered front wheel
  wheelbase  REAL NOT NULL,      -- m
  PRIMARY KEY (variant_id, actor_id, wheel)
) WITHOUT ROWID;

-- What happened, detected at every simulated step.
CREATE TABLE event_row (
  variant_id     INTEGER NOT NULL,
  step           INTEGER NOT NULL,
  actor_id       INTEGER NOT NULL,
  kind           TEXT NOT NULL,  -- collision | lane_change | off_road |
                                 -- back_on_road | near_miss
  other_actor_id INTEGER,        -- the other actor of a collision or
                                 -- near miss
  detail         TEXT
);
-- Rowid tables written variant by variant (rowids ascend with variant_id):
-- an index on variant_id makes one variant's rows a key range, for the
-- analyst's `WHERE variant_id = ?` and joins on it (without one SQLite
-- reads the whole table, or builds an AUTOMATIC index per query) and for
-- `vsweep merge`, which copies the rows variant by variant.
CREATE INDEX event_row_variant ON event_row (variant_id);

-- One row per variant: KPIs over every simulated step.
CREATE TABLE summary (
  variant_id   INTEGER PRIMARY KEY,
  max_lat_acc  REAL,             -- m/s^2, max |V r|
  max_yaw_rate REAL,             -- rad/s, max |wz|
  min_distance REAL,             -- m, closest footprints of two actors
  on_lane_pct  REAL,             -- %, actor-steps on a lane
  collisions   INTEGER NOT NULL,
  lane_changes INTEGER NOT NULL,
  min_ttc      REAL,             -- s, to the lead in the same lane
  min_ttc_actor   INTEGER,       -- the follower it is of
  min_thw      REAL,             -- s, time headway to the lead
  min_thw_actor   INTEGER,
  max_decel    REAL,             -- m/s^2, largest -dv/dt
  max_decel_actor INTEGER,
  max_jerk     REAL,             -- m/s^3, largest |d^2v/dt^2|
  max_jerk_actor  INTEGER,
  max_lat_acc_actor  INTEGER,    -- the actor of max_lat_acc
  max_yaw_rate_actor INTEGER,
  min_distance_actor INTEGER,    -- the pair of min_distance, lower ID
  min_distance_other INTEGER     -- first
);

-- One row per actor per recorded step. An integral REAL such as 0 costs no
-- payload bytes, so planar motion pays nothing for z, roll and pitch.
CREATE TABLE state (
  variant_id INTEGER NOT NULL,
  actor_id INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  x REAL, y REAL, z REAL,            -- m, actor origin, world
  roll REAL, pitch REAL, yaw REAL,   -- rad
  vx REAL, vy REAL, vz REAL,         -- m/s, world
  wx REAL, wy REAL, wz REAL,         -- rad/s, world
  steer  REAL,                       -- rad, bicycle road-wheel angle
  dist   REAL,                       -- m, origin's forward travel
  turn   REAL,                       -- rad, yaw change, unwrapped
  roll_l REAL, roll_r REAL,          -- m, rolled by the steered wheels
  lane     INTEGER,                  -- lane.lane; NULL: no map location
  on_lane  INTEGER,                  -- IsOnLane, 0/1
  position REAL,                     -- normalised s in [0, 1]
  angle    REAL,                     -- rad, lane tangent to travel
  PRIMARY KEY (variant_id, actor_id, step)
) WITHOUT ROWID;

-- The map's lanes, the same in every variant.
CREATE TABLE lane (
  lane       INTEGER PRIMARY KEY,  -- 1..
  lane_id    TEXT NOT NULL UNIQUE, -- {8-4-4-4-12} UUID
  road       TEXT NOT NULL,        -- the road's id
  lane_index INTEGER NOT NULL,     -- 1.. left, -1.. right
  length     REAL NOT NULL,        -- m
  width      REAL NOT NULL,        -- m (OpenDRIVE: mean over the lane)
  section    INTEGER NOT NULL DEFAULT 0,      -- OpenDRIVE lane section, 0..
  type       TEXT NOT NULL DEFAULT 'driving'  -- OpenDRIVE lane type
);

CREATE VIEW lane_info AS
  SELECT lane_id, road, lane_index AS lane, length, width, section, type
  FROM lane;

CREATE VIEW map_location AS
  SELECT s.variant_id AS variant_id, s.actor_id AS actor_id, s.step AS step,
         s.on_lane AS is_on_lane, l.lane_id AS lane_id,
         s.position AS position, s.angle AS angle
  FROM state s CROSS JOIN lane l ON l.lane = s.lane;

CREATE VIEW variant_info AS
  SELECT variant_id,
         CASE status WHEN 1 THEN 'done' ELSE 'failed' END AS status,
         label, error, params, wall_seconds
  FROM variant;

CREATE VIEW event AS
  SELECT e.variant_id AS variant_id,
         CAST(e.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
         e.actor_id AS actor_id, e.kind AS kind,
         e.other_actor_id AS other_actor_id, e.detail AS detail
  FROM event_row e;

-- The questions always asked of a sweep, one row per variant.
CREATE VIEW variant_summary AS
  SELECT v.variant_id AS variant_id,
         CASE v.status WHEN 1 THEN 'done' ELSE 'failed' END AS status,
         v.label AS label,
         v.params AS params,
         s.max_lat_acc AS max_lateral_acceleration,
         s.max_lat_acc_actor AS max_lateral_acceleration_actor_id,
         s.max_yaw_rate AS max_yaw_rate,
         s.max_yaw_rate_actor AS max_yaw_rate_actor_id,
         s.min_distance AS min_distance,
         s.min_distance_actor AS min_distance_actor_id,
         s.min_distance_other AS min_distance_other_actor_id,
         s.on_lane_pct AS time_on_lane_pct,
         s.collisions AS collisions,
         s.lane_changes AS lane_changes,
         s.min_ttc AS min_ttc,
         s.min_ttc_actor AS min_ttc_actor_id,
         s.min_thw AS min_time_headway,
         s.min_thw_actor AS min_time_headway_actor_id,
         s.max_decel AS max_deceleration,
         s.max_decel_actor AS max_deceleration_actor_id,
         s.max_jerk AS max_jerk,
         s.max_jerk_actor AS max_jerk_actor_id
  FROM variant v LEFT JOIN summary s USING (variant_id);

-- Exact time: t of step k is the double nearest the decimal k * step (so
-- `WHERE t = 0.57` finds step 57 of a 0.01 s sweep), not the product of
-- two doubles (0.5700000000000001). The step is written as the shortest
-- decimal num / den (den a power of ten up to 10^12) whose double it is;
-- k * num is an exact integer below 2^53 for k up to 10^7 and num below
-- 10^8, and IEEE division rounds the quotient to the nearest double. A
-- step no such decimal names (1/3 s) gets num = step and den = 1: t is
-- then k * step.
CREATE VIEW step_decimal AS
  WITH pow10(den) AS (VALUES (1), (10), (100), (1000), (10000), (100000),
                             (1000000), (10000000), (100000000),
                             (1000000000), (10000000000), (100000000000),
                             (1000000000000)),
       d AS (SELECT m.value AS step,
                    (SELECT den FROM pow10
                     WHERE round(m.value * den) / den = m.value
                     ORDER BY den LIMIT 1) AS den
             FROM meta m WHERE m.key = 'step')
  SELECT step,
         CASE WHEN den IS NULL THEN step
              ELSE CAST(round(step * den) AS INTEGER) END AS num,
         coalesce(den, 1) AS den
  FROM d;

CREATE VIEW actor_info AS
  SELECT variant_id, actor_id, name, kind, parent_id, attach_type,
         length, width, height, wheel_count, vehicle_model, behaviour
  FROM actor;

CREATE VIEW actor_state AS
  SELECT s.variant_id AS variant_id, s.actor_id AS actor_id, s.step AS step,
         CAST(s.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
         s.x AS x, s.y AS y, s.z AS z,
         s.roll AS roll, s.pitch AS pitch, s.yaw AS yaw,
         s.vx AS vx, s.vy AS vy, s.vz AS vz,
         s.wx AS wx, s.wy AS wy, s.wz AS wz
  FROM state s;

-- Pose = [R t; 0 0 0 1], R = Rz(yaw) Rx(pitch) Ry(roll), row-major:
-- heading, then pitch about the actor's X (right) axis, nose up positive,
-- then roll about its Y (forward) axis (results version 2; version 1
-- turned Ry(pitch) Rx(roll), backwards for a frame whose Y points forward).
-- The poses use SQL math functions (SQLite 3.35+, built in by default).
CREATE VIEW actor_pose AS
  SELECT variant_id, actor_id, step, t,
         cy * cr - sy * sp * sr AS m11, 0.0 - sy * cp AS m12,
         cy * sr + sy * sp * cr AS m13, x AS m14,
         sy * cr + cy * sp * sr AS m21, cy * cp AS m22,
         sy * sr - cy * sp * cr AS m23, y AS m24,
         0.0 - cp * sr AS m31, sp AS m32, cp * cr AS m33, z AS m34,
         0.0 AS m41, 0.0 AS m42, 0.0 AS m43, 1.0 AS m44
  FROM (SELECT s.variant_id AS variant_id, s.actor_id AS actor_id,
               s.step AS step,
               CAST(s.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
               s.x AS x, s.y AS y, s.z AS z,
               cos(s.yaw) AS cy, sin(s.yaw) AS sy,
               cos(s.pitch) AS cp, sin(s.pitch) AS sp,
               cos(s.roll) AS cr, sin(s.roll) AS sr
        FROM state s);

-- WheelPoses: one 4x4 per wheel in the actor frame, Rz(steer) Rx(spin),
-- translation the wheel centre with z = radius. A steered wheel at lateral
-- x stands at atan2(l tan d, l + x tan d) (Ackermann); a wheel rolls
-- dist + x * turn (unsteered) or its own integral (steered), and spins
-- -distance / radius about the actor's +X axis (right-hand rule: rolling
-- forward is a negative rotation).
CREATE VIEW wheel_pose AS
  SELECT variant_id, actor_id, step, wheel,
         cos(a) AS m11, 0.0 - sin(a) * cos(p) AS m12, sin(a) * sin(p) AS m13,
         x AS m14,
         sin(a) AS m21, cos(a) * cos(p) AS m22, 0.0 - cos(a) * sin(p) AS m23,
         y AS m24,
         0.0 AS m31, sin(p) AS m32, cos(p) AS m33, z AS m34,
         0.0 AS m41, 0.0 AS m42, 0.0 AS m43, 1.0 AS m44
  FROM (SELECT s.variant_id AS variant_id, s.actor_id AS actor_id,
               s.step AS step, w.wheel AS wheel, w.x AS x, w.y AS y,
               w.radius AS z,
               CASE WHEN w.steered THEN
                 atan2(w.wheelbase * tan(s.steer),
                       w.wheelbase + w.x * tan(s.steer))
               ELSE 0.0 END AS a,
               (CASE WHEN NOT w.steered THEN s.dist + w.x * s.turn
                     WHEN w.x < 0 THEN s.roll_l ELSE s.roll_r END)
                 / (0.0 - w.radius) AS p
        FROM state s CROSS JOIN wheel w
          ON w.variant_id = s.variant_id AND w.actor_id = s.actor_id);

-- Plugin outputs (ABI 1.1, `--record signals`): each name once, with the
-- unit its plugin declares for it, values one row per variant, actor,
-- recorded step and output. Files written before `unit` lack it; a
-- resume adds it (NULL for the names stored before, until the resumed run
-- stores them again) and the actor_signal view below.
CREATE TABLE signal_name (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,     -- 'plugin.output', e.g. 'fmu.beta'
  unit TEXT NOT NULL DEFAULT ''  -- the output's, e.g. 'rad'; '': none
);

-- Keyed in the order the rows are written (variants ascending, then
-- steps; a step's actors and outputs in the order the plugins name them):
-- one variant's signals, or one step of it, are a key range, and inserts
-- land at the b-tree's right edge. An actor's output names are unique
-- (plugin.output; one vehicle model and one behaviour, each output named
-- once). Files written before this key hold a rowid table, which vsweep
-- still resumes and merges.
CREATE TABLE signal_row (
  variant_id INTEGER NOT NULL,
  actor_id   INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  name_id    INTEGER NOT NULL,   -- signal_name.id
  value      REAL,               -- the output's unit; NULL: no value
  PRIMARY KEY (variant_id, step, actor_id, name_id)
) WITHOUT ROWID;

CREATE VIEW actor_signal AS
  SELECT s.variant_id AS variant_id, s.actor_id AS actor_id,
         s.step AS step,
         CAST(s.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
         n.name AS name, s.value AS value, n.unit AS unit
  FROM signal_row s JOIN signal_name n ON n.id = s.name_id;

-- What plugins logged at or above --plugin-log's level (default warning),
-- and, level 4 'output', the lines a contained variant's process printed
-- on stdout/stderr (actor_id 0, t 0, plugin '': a pipe does not say who
-- or when; at most 100 lines); at most 1000 rows per variant.
CREATE TABLE log_row (
  variant_id INTEGER NOT NULL,
  actor_id   INTEGER NOT NULL,
  t          REAL NOT NULL,      -- s, simulated time of the call
  level      INTEGER NOT NULL,   -- 0 debug, 1 info, 2 warning, 3 error,
                                 -- 4 output
  plugin     TEXT NOT NULL,
  message    TEXT NOT NULL
);
CREATE INDEX log_row_variant ON log_row (variant_id); -- as event_row's

CREATE VIEW log AS
  SELECT variant_id, actor_id, t,
         CASE level WHEN 0 THEN 'debug' WHEN 1 THEN 'info'
                    WHEN 2 THEN 'warning' WHEN 3 THEN 'error'
                    ELSE 'output' END AS level,
         plugin, message
  FROM log_row;

-- Two actors at one recorded step (--record pairs, on by default): every
-- pair not of one combination (a tractor and its trailers at any depth)
-- whose footprints are within the
-- recorded reach (50 m unless pairs=R says otherwise), stored once, the
-- lower actor ID first. Written in key order (variants ascending, then
-- steps), so inserts land at the right edge; WITHOUT ROWID: the key is
-- the table, no second b-tree. One variant's pairs, or one step of it,
-- are a key range.
CREATE TABLE pair_row (
  variant_id     INTEGER NOT NULL,
  step           INTEGER NOT NULL,
  actor_id       INTEGER NOT NULL,   -- the lower ID
  other_actor_id INTEGER NOT NULL,
  distance       REAL NOT NULL,      -- m, footprints in plan, 0 touching
  gap            REAL NOT NULL,      -- m, origins in plan
  closing        REAL,               -- m/s, -d(gap)/dt; NULL: gap 0
  PRIMARY KEY (variant_id, step, actor_id, other_actor_id)
) WITHOUT ROWID;

-- Each stored pair both ways round: side 0 as stored, side 1 with the
-- two actors swapped (every measure is symmetric). A join with two
-- constant rows rather than a UNION ALL, so that the view flattens into
-- the analyst's joins (a UNION ALL view joined to variant_info is
-- materialised whole first). TTC as min_ttc's: the footprints' distance
-- over the closing speed, while closing.
CREATE VIEW actor_pair AS
  SELECT p.variant_id AS variant_id, p.step AS step,
         CAST(p.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
         CASE o.side WHEN 0 THEN p.actor_id ELSE p.other_actor_id END
           AS actor_id,
         CASE o.side WHEN 0 THEN p.other_actor_id ELSE p.actor_id END
           AS other_actor_id,
         p.distance AS distance, p.gap AS centre_gap,
         p.closing AS closing_speed,
         CASE WHEN p.closing > 0 THEN p.distance / p.closing END AS ttc
  FROM pair_row p
  CROSS JOIN (SELECT 0 AS side UNION ALL SELECT 1 AS side) o;
