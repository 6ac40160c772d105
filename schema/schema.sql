-- vsweep results schema, version 1.
--
-- Base tables are laid out for write speed and size; users query the views,
-- whose names and columns are a contract (DESIGN.md, "Storage").
--
-- A variant's state rows are one contiguous rowid range [row_lo, row_hi] of
-- `state`, written in variant order by the single writer. The views join on
-- that range (CROSS JOIN fixes the loop order: variants outside, rows
-- inside), so per-variant queries need no index and inserts maintain none.

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

CREATE TABLE variant (
  variant_id   INTEGER PRIMARY KEY,
  status       INTEGER NOT NULL, -- 1 done, 2 failed
  error        TEXT,
  params       TEXT NOT NULL,    -- JSON
  wall_seconds REAL NOT NULL,    -- s
  row_lo       INTEGER,          -- first state rowid, NULL if none
  row_hi       INTEGER           -- last state rowid
);

CREATE TABLE actor (
  variant_id    INTEGER NOT NULL,
  actor_id      INTEGER NOT NULL,
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL,   -- 'vehicle' | 'object'
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

-- One row per actor per recorded step. cy..sr are cos/sin of yaw, pitch and
-- roll, stored so that actor_pose needs no SQL math functions (not every
-- client has them); an integral REAL such as 0 or 1 costs no payload bytes.
CREATE TABLE state (
  actor_id INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  x REAL, y REAL, z REAL,            -- m, actor origin, world
  roll REAL, pitch REAL, yaw REAL,   -- rad
  vx REAL, vy REAL, vz REAL,         -- m/s, world
  wx REAL, wy REAL, wz REAL,         -- rad/s, world
  cy REAL, sy REAL, cp REAL, sp REAL, cr REAL, sr REAL
);

CREATE VIEW variant_info AS
  SELECT variant_id,
         CASE status WHEN 1 THEN 'done' ELSE 'failed' END AS status,
         error, params, wall_seconds
  FROM variant;

CREATE VIEW actor_info AS
  SELECT variant_id, actor_id, name, kind, parent_id, attach_type,
         length, width, height, wheel_count, vehicle_model, behaviour
  FROM actor;

CREATE VIEW actor_state AS
  SELECT v.variant_id AS variant_id, s.actor_id AS actor_id, s.step AS step,
         s.step * (SELECT value FROM meta WHERE key = 'step') AS t,
         s.x AS x, s.y AS y, s.z AS z,
         s.roll AS roll, s.pitch AS pitch, s.yaw AS yaw,
         s.vx AS vx, s.vy AS vy, s.vz AS vz,
         s.wx AS wx, s.wy AS wy, s.wz AS wz
  FROM variant v CROSS JOIN state s
    ON s.rowid BETWEEN v.row_lo AND v.row_hi;

-- Pose = [R t; 0 0 0 1], R = Rz(yaw) Ry(pitch) Rx(roll), row-major.
CREATE VIEW actor_pose AS
  SELECT v.variant_id AS variant_id, s.actor_id AS actor_id, s.step AS step,
         s.step * (SELECT value FROM meta WHERE key = 'step') AS t,
         s.cy * s.cp AS m11,
         s.cy * s.sp * s.sr - s.sy * s.cr AS m12,
         s.cy * s.sp * s.cr + s.sy * s.sr AS m13,
         s.x AS m14,
         s.sy * s.cp AS m21,
         s.sy * s.sp * s.sr + s.cy * s.cr AS m22,
         s.sy * s.sp * s.cr - s.cy * s.sr AS m23,
         s.y AS m24,
         0.0 - s.sp AS m31,
         s.cp * s.sr AS m32,
         s.cp * s.cr AS m33,
         s.z AS m34,
         0.0 AS m41, 0.0 AS m42, 0.0 AS m43, 1.0 AS m44
  FROM variant v CROSS JOIN state s
    ON s.rowid BETWEEN v.row_lo AND v.row_hi;
