"""Behaviours in traffic (ABI 1.1) end to end.

Host services: the test behaviour probe_map (tests/plugins) logs, at every
step k, what map_location, lane_point, lane_link and actor_attr answer
about every actor; each answer must be the previous step's: the stored
map_location rows of step k - 1, and closed-form lane geometry (a straight
road along +X, a circle road) computed here from the stored positions.
"""
import math
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TEST_PLUGINS, TempDirCase, query, run  # noqa: E402

W = 3.5           # m, lane width
R_CIRCLE = 50.0   # m, the circle road's reference radius
CY = 200.0        # m, its centre's y
R_LANE = R_CIRCLE + W / 2  # m, centre of its lane -1 (outside, CCW)

PROBE = """\
vsweep: 1
name: probe
step: 0.05
duration: 1
map:
  roads:
    - id: main
      line: [[0, 0, 0], [300, 0, 0]]
      lanes: {left: 1, right: 2, width: 3.5}
    - id: ring
      circle: {center: [0, 200], radius: 50}
      lanes: {right: 1, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9, points: {attach_tow: [0, -2.4, 0.5]}}
  trailer: {length: 3.0, width: 1.8, height: 1.4, axles: [-0.5],
            track: 1.5, wheel_radius: 0.3, points: {hitch: [0, 2.0, 0.5]}}
actors:
  - id: 1
    name: prober
    asset: sedan
    start: {position: [20, -1.45, 0], yaw: -1.5707963267948966}
    speed: 10
    behaviour: {plugin: probe_map}
  - id: 2
    name: oncoming
    asset: sedan
    start: {position: [250, 1.95, 0], yaw: 1.5707963267948966}
    speed: 8
  - id: 3
    name: ringer
    asset: sedan
    start: {position: [%r, 200, 0], yaw: 0}
    speed: 5
  - id: 4
    name: towed
    asset: trailer
    attach: {parent: 2, type: trailer, child_point: hitch,
             parent_point: attach_tow, offset: [0, 0, 0],
             heading: 0, slope: 0}
""" % R_LANE

FIELD = re.compile(r"(\w+)=(\S+)")


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


class HostServicesTest(TempDirCase):
    def test_probe_sees_the_previous_step(self):
        db = self.path("p.db")
        rc, _, err = run("run", self.write("p.yaml", PROBE), "-o", db,
                         "--plugin-path", TEST_PLUGINS, "--plugin-log",
                         "info")
        self.assertEqual(rc, 0, err)
        lanes = {(road, lane): (lid, length, width) for lid, road, lane,
                 length, width in query(
                     db, "SELECT lane_id, road, lane, length, width "
                         "FROM lane_info")}
        uuid = {k: v[0] for k, v in lanes.items()}
        loc = {(a, k): (lid, on, p, ang) for a, k, lid, on, p, ang in query(
            db, "SELECT actor_id, step, lane_id, is_on_lane, position, "
                "angle FROM map_location")}
        pos = {(a, k): (x, y) for a, k, x, y in query(
            db, "SELECT actor_id, step, x, y FROM actor_state")}
        logs = query(db, "SELECT t, message FROM log WHERE message LIKE "
                         "'probe %' ORDER BY rowid")
        self.assertEqual(len(logs), 20 * 4)  # steps 1..20, 4 actors
        more = {}
        for kind in ("centre", "links"):
            rows = query(db, "SELECT message FROM log WHERE message LIKE "
                             "'%s %%' ORDER BY rowid" % kind)
            self.assertEqual(len(rows), len(logs))
            more[kind] = [dict(FIELD.findall(m)) for (m,) in rows]
        for j, (t, msg) in enumerate(logs):
            f = dict(FIELD.findall(msg))
            f.update(more["centre"][j])
            f.update(more["links"][j])
            a, k = int(f["id"]), round(t / 0.05) - 1  # the previous step
            lid, on, p, ang = loc[(a, k)]
            x, y = pos[(a, k)]
            self.assertEqual(f["lane"], lid)
            self.assertEqual(int(f["on"]), on)
            self.assertAlmostEqual(float(f["p"]), p, delta=1e-11)
            self.assertAlmostEqual(float(f["ang"]), ang, delta=1e-11)
            self.assertAlmostEqual(float(f["w"]), W, delta=1e-9)
            self.assertAlmostEqual(float(f["cw"]), W, delta=1e-9)
            road, lane = next(key for key, v in uuid.items() if v == lid)
            length = lanes[(road, lane)][1]
            s = float(f["s"])
            self.assertAlmostEqual(float(f["len"]), length, delta=1e-9)
            self.assertAlmostEqual(s, p * length, delta=1e-9)
            # closed-form centre line, lateral offset and links
            if road == "main" and lane == -1:
                cx, cy, ch, lat = s, -W / 2, 0.0, y + W / 2
                links = (None, uuid[("main", -2)], None)
            elif road == "main" and lane == 1:
                cx, cy, ch, lat = 300 - s, W / 2, math.pi, W / 2 - y
                links = (None, None, None)
            else:
                self.assertEqual((road, lane), ("ring", -1))
                th = s / R_LANE
                cx, cy = R_LANE * math.cos(th), CY + R_LANE * math.sin(th)
                ch = th + math.pi / 2
                lat = R_LANE - math.hypot(x, y - CY)
                links = (None, None, lid)  # a ring is its own successor
            self.assertAlmostEqual(float(f["cx"]), cx, delta=1e-6)
            self.assertAlmostEqual(float(f["cy"]), cy, delta=1e-6)
            self.assertAlmostEqual(wrap(float(f["ch"]) - ch), 0, delta=1e-9)
            self.assertAlmostEqual(float(f["lat"]), lat, delta=1e-6)
            got = tuple(None if f[n] == "none" else f[n]
                        for n in ("left", "right", "succ"))
            self.assertEqual(got, links)
        attrs = query(db, "SELECT message FROM log WHERE message LIKE "
                          "'attr %' ORDER BY rowid")
        self.assertEqual(len(attrs), 20 * 4)
        for (msg,) in attrs:
            # actor attributes, against the scenario
            f = dict(FIELD.findall(msg))
            a = int(f["id"])
            dims = (3.0, 1.8, 1.4) if a == 4 else (4.8, 1.9, 1.5)
            self.assertEqual((float(f["L"]), float(f["W"]), float(f["H"])),
                             dims)
            self.assertEqual(f["kind"], "vehicle")
            self.assertEqual(int(f["parent"]), 2 if a == 4 else 0)
            self.assertEqual((int(f["children"]), int(f["child0"])),
                             (1, 4) if a == 2 else (0, 0))



SEDAN = """\
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
"""
EAST = -math.pi / 2   # yaw facing +X

LANE_FOLLOW = """\
vsweep: 1
name: lane follow
step: 0.01
duration: 20
map:
  roads:
    - id: main
      line: [[0, 0, 0], [2000, 0, 0]]
      lanes: {right: 3, width: 3.5}
    - id: ring
      circle: {center: [0, 1000], radius: 57.3}
      lanes: {right: 2, width: 3.5}
%sactors:
  - id: 1
    asset: sedan
    start: {position: [10, -0.95, 0], yaw: %r}
    speed: 20
    behaviour: {plugin: lane_follow}
  - id: 2
    asset: sedan
    start: {position: [100, -1.75, 0], yaw: %r}
    speed: 20
    behaviour: {plugin: lane_follow, params: {change_time: 5,
                change_side: -1, change_duration: 3}}
  - id: 3
    asset: sedan
    start: {position: [59.05, 1000, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: lane_follow}
""" % (SEDAN, EAST + 0.05, EAST)


class LaneFollowTest(TempDirCase):
    def test_keeps_the_centre_and_changes_lanes(self):
        db = self.path("lf.db")
        rc, _, err = run("run", self.write("lf.yaml", LANE_FOLLOW), "-o", db)
        self.assertEqual(rc, 0, err)
        lane = {(road, n): lid for lid, road, n in
                query(db, "SELECT lane_id, road, lane FROM lane_info")}
        # straight, started 0.8 m off and 2.9 deg askew: steady state on
        # the centre line y = -1.75
        worst = query(db, "SELECT max(abs(y + 1.75)) FROM actor_state "
                          "WHERE actor_id = 1 AND t >= 10")[0][0]
        self.assertLess(worst, 0.05)
        # circle: the lane's centre is 57.3 + 1.75 m from the centre
        worst = query(db, "SELECT max(abs(sqrt(x * x + (y - 1000) * "
                          "(y - 1000)) - 59.05)) FROM actor_state "
                          "WHERE actor_id = 3 AND t >= 10")[0][0]
        self.assertLess(worst, 0.05)
        # the lane change (right, at 5 s, 3 s long) ends in lane -2 by
        # 5 + 3 + 1 s, on its centre y = -5.25, and stays there
        lanes = query(db, "SELECT DISTINCT lane_id FROM map_location "
                          "WHERE actor_id = 2 AND step >= 900")
        self.assertEqual(lanes, [(lane[("main", -2)],)])
        worst = query(db, "SELECT max(abs(y + 5.25)) FROM actor_state "
                          "WHERE actor_id = 2 AND t >= 9")[0][0]
        self.assertLess(worst, 0.15)  # pure pursuit's last few cm of lag
        worst = query(db, "SELECT max(abs(y + 5.25)) FROM actor_state "
                          "WHERE actor_id = 2 AND t >= 12")[0][0]
        self.assertLess(worst, 0.05)
        # and before it began it kept lane -1
        lanes = query(db, "SELECT DISTINCT lane_id FROM map_location "
                          "WHERE actor_id = 2 AND step <= 500")
        self.assertEqual(lanes, [(lane[("main", -1)],)])


def quintic(t, t0, T):
    """The documented lane change's progress 10 u^3 - 15 u^4 + 6 u^5."""
    u = min(max((t - t0) / T, 0.0), 1.0)
    return u ** 3 * (10 - 15 * u + 6 * u * u)


LANE_CHANGE = """\
vsweep: 1
name: lane change
step: 0.01
duration: %%g
map:
  roads:
    - id: main
      line: [[0, 0, 0], [3000, 0, 0]]
      lanes: {right: 3, width: 3.5}
    - id: ring
      circle: {center: [0, 1000], radius: 57.3}
      lanes: {left: 3, right: 3, width: 3.5}
%sactors:
  - id: 1
    asset: sedan
    start: {position: [0, -1.75, 0], yaw: %r}
    speed: 10
    behaviour: {plugin: lane_follow, params: {change_time: 3,
                change_side: -1, change_duration: 4}}
  - id: 2
    asset: sedan
    start: {position: [59.05, 1000, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: lane_follow, params: {change_time: 20,
                change_side: -1, change_duration: 4}}
""" % (SEDAN, EAST)


class LaneChangeTest(TempDirCase):
    """Lane changes to the right neighbour at 10 m/s over T = 4 s.

    The origin's offset is documented to follow the quintic in time. On a
    straight road the kinematic bicycle (no slip, steering at once) can
    follow any path whose curvature it can reach, and the follower aims at
    the arc the rear axle must drive, so the only error left is of second
    order in one step: the tolerance, 5 mm, is a third of the 16 mm the
    origin moves sideways in one 0.01 s step at the quintic's peak
    lateral speed (1.875 D / T = 1.64 m/s), so being a step early or late
    fails it. On a curve the lane's own bending couples into the move;
    2 cm there, against the 3.5 m moved.
    """

    def run_it(self, duration):
        db = self.path("lc.db")
        rc, _, err = run("run", self.write("lc.yaml",
                                           LANE_CHANGE % duration), "-o", db)
        self.assertEqual(rc, 0, err)
        return db

    def test_straight_follows_the_quintic(self):
        db = self.run_it(12)
        t0, T = 3.0, 4.0
        rows = query(db, "SELECT t, y FROM actor_state WHERE actor_id = 1 "
                         "ORDER BY step")
        for t, y in rows:
            want = -1.75 - 3.5 * quintic(t, t0, T)
            self.assertAlmostEqual(y, want, delta=0.005, msg="t = %g" % t)
        # centred within 2 cm from t0 + T + 1 s, overshoot at most 5 cm
        self.assertLess(max(abs(y + 5.25) for t, y in rows
                            if t >= t0 + T + 1), 0.02)
        self.assertGreater(min(y for t, y in rows), -5.25 - 0.05)

    def test_ring_changes_across_the_road(self):
        # lane -1 of the ring has its centre at 57.3 + 1.75 m from the
        # centre, lane -2 at 57.3 + 5.25 m; the change at 20 s, 200 m on,
        # moves straight out between them (the two lanes are 22 m apart
        # in length there: the same s on each is 11 m apart)
        db = self.run_it(27)
        t0, T = 20.0, 4.0
        rows = query(db, "SELECT t, sqrt(x * x + (y - 1000) * (y - 1000)) "
                         "FROM actor_state WHERE actor_id = 2 AND t >= %g "
                         "ORDER BY step" % (t0 - 1))
        lanes = query(db, "SELECT DISTINCT l.road, l.lane FROM map_location "
                          "m JOIN lane_info l USING (lane_id) WHERE "
                          "m.actor_id = 2 ORDER BY l.lane")
        self.assertEqual(lanes, [("ring", -2), ("ring", -1)])
        radii = [r for t, r in rows]
        # outwards only (to rounding): never back towards the old lane
        self.assertGreater(min(b - a for a, b in zip(radii, radii[1:])),
                           -1e-4)
        for t, r in rows:
            want = 59.05 + 3.5 * quintic(t, t0, T)
            self.assertAlmostEqual(r, want, delta=0.02, msg="t = %g" % t)


V0, T_H, S0, A_MAX, B_C, DELTA = 30.0, 1.5, 2.0, 1.0, 1.5, 4.0
IDM_PARAMS = "{v0: 30, T: 1.5, s0: 2, a: 1, b: 1.5, delta: 4}"


def idm_free_speed(t_end, v=0.0, h=1e-3):
    """v(t_end) of dv/dt = a (1 - (v/v0)^delta) from v, by RK4."""
    f = lambda u: A_MAX * (1 - (u / V0) ** DELTA)  # noqa: E731
    for _ in range(int(round(t_end / h))):
        k1 = f(v)
        k2 = f(v + h / 2 * k1)
        k3 = f(v + h / 2 * k2)
        k4 = f(v + h * k3)
        v += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return v


IDM_ROAD = """\
vsweep: 1
name: idm
step: 0.01
duration: %g
map:
  roads:
    - id: main
      line: [[0, 0, 0], [6000, 0, 0]]
      lanes: {right: 2, width: 3.5}
""" + SEDAN


class IdmTest(TempDirCase):
    def test_equilibrium_gap_and_free_road(self):
        v = 20.0
        scn = IDM_ROAD % 120 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [50, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: %s}}
  - {id: 2, asset: sedan, start: {position: [100, -1.75, 0], yaw: %r},
     speed: 20}
  - {id: 3, asset: sedan, start: {position: [0, -5.25, 0], yaw: %r},
     speed: 0, behaviour: {plugin: idm, params: %s}}
""" % (EAST, IDM_PARAMS, EAST, EAST, IDM_PARAMS)
        db = self.path("idm.db")
        rc, _, err = run("run", self.write("idm.yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        x1, x2 = query(db, "SELECT a.x, b.x FROM actor_state a JOIN "
                           "actor_state b ON a.step = b.step AND "
                           "b.actor_id = 2 WHERE a.actor_id = 1 "
                           "ORDER BY a.step DESC LIMIT 1")[0]
        gap = x2 - x1 - 4.8
        s_e = (S0 + v * T_H) / math.sqrt(1 - (v / V0) ** DELTA)
        self.assertLess(abs(gap / s_e - 1), 0.01, (gap, s_e))
        # free road from rest against the ODE, integrated here
        for t, vx, vy in query(db, "SELECT t, vx, vy FROM actor_state "
                                   "WHERE actor_id = 3 AND step % 500 = 0 "
                                   "AND t <= 40"):
            self.assertAlmostEqual(math.hypot(vx, vy), idm_free_speed(t),
                                   delta=0.02, msg="t = %g" % t)

    def ccrs(self, speeds, model_params):
        scn = IDM_ROAD.replace("name: idm", "name: ccrs\n"
                               "stop_at_collision: true") % 25 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: %s},
     vehicle_model: {plugin: kinematic_bicycle, params: %s}}
  - {id: 2, asset: sedan, start: {position: [44.8, -1.75, 0], yaw: %r},
     speed: 0}
""" % (EAST, IDM_PARAMS, model_params, EAST)
        sweep = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, speed: {values: %s}}
""" % speeds
        db = self.path("ccrs.db")
        rc, _, err = run("run", self.write("c.yaml", scn), "--sweep",
                         self.write("c_sweep.yaml", sweep), "-o", db)
        self.assertEqual(rc, 0, err)
        return db

    def test_ccrs_no_collision_when_braking_suffices(self):
        # Euro NCAP CCRs: a stationary target 40 m ahead, 10..70 km/h
        db = self.ccrs([2.78, 5.56, 8.33, 11.11, 13.89, 16.67, 19.44], "{}")
        n = query(db, "SELECT count(*) FROM variant_info "
                      "WHERE status = 'done'")[0][0]
        self.assertEqual(n, 7)
        self.assertEqual(query(db, "SELECT count(*) FROM event "
                                   "WHERE kind = 'collision'")[0][0], 0)

    def test_ccrs_collision_time_when_braking_is_limited(self):
        # 30 m/s, 40 m, the car can brake 3 m/s^2: IDM asks for more from
        # the first step, so the car decelerates at 3 m/s^2 throughout and
        # the bumpers meet when 30 t - 1.5 t^2 = 40
        db = self.ccrs([30.0], "{max_decel: 3}")
        t = query(db, "SELECT min(t) FROM event WHERE kind = 'collision'")
        expected = (30 - math.sqrt(30 ** 2 - 2 * 3 * 40)) / 3
        # the behaviour acts from step 1; contact is found at the first
        # step with overlap
        self.assertAlmostEqual(t[0][0], expected, delta=0.02)
        # the KPIs name the ego: it braked at 3 m/s^2, reached from 0 in
        # one step of 0.01 s (jerk 300 m/s^3)
        row = query(db, "SELECT max_deceleration, max_deceleration_actor_id,"
                        " max_jerk, max_jerk_actor_id FROM variant_summary")
        dec, dec_id, jerk, jerk_id = row[0]
        self.assertAlmostEqual(dec, 3.0, delta=1e-6)
        self.assertAlmostEqual(jerk, 300.0, delta=1e-3)
        self.assertEqual((dec_id, jerk_id), (1, 1))


class LeadTest(TempDirCase):
    def test_a_car_off_the_road_is_no_lead_one_reaching_in_is(self):
        # The road spans y from -7 to 0; a car parked facing +X with
        # its origin left of the road is located in lane -1 (the nearest)
        # with is_on_lane 0. At y = 15 (16.75 m from the lane's centre)
        # it is not in the way: the follower keeps its 20 m/s. At
        # y = 0.6 its 1.9 m wide body reaches 0.35 m into lane -1: a lead,
        # the follower stops behind it at IDM's jam gap s0 = 2 m.
        scn = IDM_ROAD % 20 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [100, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: {v0: 20}}}
  - {id: 2, asset: sedan, start: {position: [200, 15, 0], yaw: %r},
     speed: 0}
""" % (EAST, EAST)
        sweep = """\
vsweep: 1
blocks:
  - list:
      - {label: off the road, changes: []}
      - {label: reaching in, changes: [{actor: 2, start.y: 0.6}]}
"""
        db = self.path("lead.db")
        rc, _, err = run("run", self.write("lead.yaml", scn), "--sweep",
                         self.write("lead_sweep.yaml", sweep), "-o", db)
        self.assertEqual(rc, 0, err)
        lane = dict(query(db, "SELECT lane, lane_id FROM lane_info"))
        self.assertEqual(query(db, "SELECT DISTINCT is_on_lane, lane_id "
                                   "FROM map_location WHERE actor_id = 2"),
                         [(0, lane[-1])])
        v = dict(query(db, "SELECT variant_id, min(sqrt(vx * vx + vy * vy))"
                           " FROM actor_state WHERE actor_id = 1 "
                           "GROUP BY variant_id"))
        self.assertAlmostEqual(v[0], 20.0, delta=1e-9)
        self.assertLess(v[1], 0.05)
        gap, = query(db, "SELECT b.x - a.x - 4.8 FROM actor_state a JOIN "
                         "actor_state b USING (variant_id, step) WHERE "
                         "variant_id = 1 AND a.actor_id = 1 AND "
                         "b.actor_id = 2 ORDER BY step DESC LIMIT 1")[0]
        self.assertAlmostEqual(gap, S0, delta=0.3)
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE "
                                   "kind = 'collision'"), [(0,)])

    def test_a_car_stopped_across_the_lane_is_a_lead(self):
        # A sedan stopped across lane -1 (turned 90 deg, its 1.9 m width
        # along the lane) at x = 200: the follower stops with s0 between
        # its front bumper and the car's near side, x = 200 - 0.95; at
        # 90 deg (and beyond) it was no lead and was driven into.
        scn = IDM_ROAD % 30 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [100, -1.75, 0], yaw: %r},
     speed: 15, behaviour: {plugin: idm, params: {v0: 15}}}
  - {id: 2, asset: sedan, start: {position: [200, -1.75, 0], yaw: 0},
     speed: 0}
""" % EAST
        db = self.path("across.db")
        rc, _, err = run("run", self.write("across.yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE "
                                   "kind = 'collision'"), [(0,)])
        x, v = query(db, "SELECT x, sqrt(vx * vx + vy * vy) FROM "
                         "actor_state WHERE actor_id = 1 ORDER BY step "
                         "DESC LIMIT 1")[0]
        self.assertLess(v, 0.05)
        self.assertAlmostEqual((200 - 0.95) - (x + 2.4), S0, delta=0.3)


TRUCK = """\
  tractor: {length: 6.2, width: 2.5, height: 3.8, axles: [2.1, -1.6, -2.9],
            track: 2.05, wheel_radius: 0.52,
            points: {attach_fifth_wheel: [0, -1.95, 1.2]}}
  semi: {length: 13.6, width: 2.55, height: 4.0, axles: [-0.79, -2.1, -3.41],
         track: 2.04, wheel_radius: 0.45, points: {hitch: [0, 5.6, 1.2]}}
"""


class LeadSearchTest(TempDirCase):
    """IDM's lead search (docs/plugins.md, idm): "A lead is the actor
    ahead in the way with the least gap ... one whose footprint (the width
    x length rectangle turned by its yaw) overlaps a lane searched,
    whatever its heading"."""

    def run_one(self, name, scn):
        db = self.path(name + ".db")
        rc, _, err = run("run", self.write(name + ".yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE "
                                   "kind = 'collision'"), [(0,)])
        return db

    def last(self, db, actor, cols="x, sqrt(vx * vx + vy * vy)"):
        return query(db, "SELECT %s FROM actor_state WHERE actor_id = %d "
                         "ORDER BY step DESC LIMIT 1" % (cols, actor))[0]

    def truck(self, speed, duration):
        # plugins.md: "A trailer is not a lead, but its tractor is, and
        # the gap runs to the rear of the whole combination".
        # A tractor (6.2 m) with a 13.6 m semi-trailer: its kingpin 5.6 m
        # ahead of the trailer's centre sits on the fifth wheel 1.95 m
        # behind the tractor's, so the trailer's rear bumper is
        # 1.95 + 5.6 + 6.8 = 14.35 m behind the tractor's origin
        beh = "behaviour: {plugin: lane_follow}" if speed else ""
        return (IDM_ROAD % duration).replace("assets:\n", "assets:\n" +
                                             TRUCK) + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: {v0: 30}}}
  - {id: 2, asset: tractor, start: {position: [100, -1.75, 0], yaw: %r},
     speed: %g, %s}
  - {id: 3, asset: semi, attach: {parent: 2, type: trailer,
     child_point: hitch, parent_point: attach_fifth_wheel}}
""" % (EAST, EAST, speed, beh)

    def test_a_stopped_truck_is_followed_to_its_trailers_rear(self):
        # it stops at s0 behind the trailer's rear bumper (it hit the
        # trailer at 7.35 s when the gap ran to the tractor's rear)
        db = self.run_one("truck_stopped", self.truck(0, 30))
        x, v = self.last(db, 1)
        xt, = self.last(db, 2, "x")
        self.assertLess(v, 0.05)
        self.assertAlmostEqual((xt - 14.35) - (x + 2.4), S0, delta=0.3)

    def test_a_moving_truck_is_followed_at_the_idm_gap(self):
        # behind a 10 m/s truck at IDM's equilibrium gap to the trailer's
        # rear, s* = (s0 + v T) / sqrt(1 - (v / v0)^delta) = 17.11 m (it
        # followed 5.86 m behind it)
        db = self.run_one("truck_follow", self.truck(10, 90))
        x, v = self.last(db, 1)
        xr, = self.last(db, 3, "x - 6.8")
        s_e = (S0 + 10 * T_H) / math.sqrt(1 - (10 / V0) ** DELTA)
        self.assertAlmostEqual(v, 10.0, delta=0.01)
        self.assertLess(abs((xr - (x + 2.4)) / s_e - 1), 0.01)

    def test_a_car_across_the_lane_on_another_road_is_a_lead(self):
        # plugins.md: "a car stopped across the lane at a crossroads,
        # located in the crossing road's lane (the one it is most aligned
        # with), is in the way". Its body spans lane -1 of the road east
        # from x = 1.75 - 0.95 = 0.8: the ego stops s0 before that. It
        # was no lead (its map location another road's) and was hit at
        # 5.85 s.
        scn = """\
vsweep: 1
step: 0.05
duration: 15
map:
  roads:
    - id: east
      line: [[-100, 0, 0], [100, 0, 0]]
      lanes: {left: 1, right: 1, width: 3.5}
    - id: north
      line: [[0, -100, 0], [0, 100, 0]]
      lanes: {left: 1, right: 1, width: 3.5}
""" + SEDAN + """\
actors:
  - {id: 1, asset: sedan, start: {position: [-60, -1.75, 0], yaw: %r},
     speed: 10, behaviour: {plugin: idm, params: {v0: 10}}}
  - {id: 2, asset: sedan, start: {position: [1.75, 0, 0], yaw: 0},
     speed: 0}
""" % EAST
        db = self.run_one("cross", scn)
        x, v = self.last(db, 1)
        self.assertLess(v, 0.05)
        self.assertAlmostEqual(0.8 - (x + 2.4), S0, delta=0.3)

    def test_an_oncoming_car_over_the_centre_line_is_no_lead(self):
        # plugins.md: "One travelling the other way ... with its origin in
        # a lane beside this one ... is not, however far its body reaches
        # over: it passes by". An oncoming car at y = 0.7 reaches 0.25 m
        # into lane -1: the ego keeps v0 = 20 m/s, exactly (free road at
        # v0 asks for 0).
        scn = IDM_ROAD.replace("right: 2", "left: 1, right: 1") % 10 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: {v0: 20}}}
  - {id: 2, asset: sedan, start: {position: [300, 0.7, 0], yaw: %r},
     speed: 10}
""" % (EAST, -EAST)
        db = self.path("oncoming.db")
        rc, _, err = run("run", self.write("oncoming.yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        v, = query(db, "SELECT min(vx) FROM actor_state WHERE actor_id = 1")[0]
        self.assertEqual(v, 20.0)

    def test_the_old_lead_is_kept_until_the_lane_is_left(self):
        # plugins.md: "During its own lane change the lead is the nearer
        # of the leads in the old lane and in the new one, until its body
        # has left the old lane". A car 8.2 m behind a 10 m/s lead starts
        # a 6 s change left at 0.5 s with a = 4 m/s^2: dropping the lead
        # at the start it hit it at 3.28 s. Its body (1.9 m wide) leaves
        # lane -3 when the offset 3.5 q(u) reaches 1.75 + 0.95 m: before
        # that it stays behind the lead's rear bumper, after it it is free
        # to overtake.
        scn = """\
vsweep: 1
step: 0.02
duration: 12
map:
  roads:
    - id: highway
      line: [[0, 0, 0], [3000, 0, 0]]
      lanes: {right: 3, width: 3.5}
""" + SEDAN + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -8.75, 0], yaw: %r},
     speed: 10, behaviour: {plugin: idm, params: {v0: 30, a: 4,
     change_time: 0.5, change_side: 1, change_duration: 6}}}
  - {id: 2, asset: sedan, start: {position: [13, -8.75, 0], yaw: %r},
     speed: 10, behaviour: {plugin: lane_follow}}
""" % (EAST, EAST)
        db = self.run_one("lc", scn)
        u = 0.5
        for _ in range(60):  # 3.5 q(u) = 2.7 by Newton
            q = u ** 3 * (10 - 15 * u + 6 * u * u)
            u -= (3.5 * q - 2.7) / (3.5 * 30 * (u * (1 - u)) ** 2)
        t_left = 0.5 + 6 * u
        rows = query(db, "SELECT a.t, b.x - a.x - 4.8, b.y - a.y FROM "
                         "actor_state a JOIN actor_state b USING (step) "
                         "WHERE a.actor_id = 1 AND b.actor_id = 2")
        behind = [g for t, g, dy in rows if abs(dy) < 1.9]
        self.assertGreater(min(behind), 0.5)
        # overtaking once clear of the lead's lane (it never was before)
        self.assertTrue(any(g < 0 for t, g, dy in rows))
        self.assertFalse(any(g < 0 for t, g, dy in rows if t < t_left))

    def test_a_car_off_the_end_of_the_road_is_no_lead(self):
        # plugins.md: "a car that drove off the end of a road is not in
        # the way however straight ahead it is". On a 100 m road the
        # lead, 55.2 m ahead at the same 20 m/s, drives
        # straight off its end: once its rear bumper is past x = 100 its
        # body is beyond the lane's s range, no longer in the way. IDM
        # brakes hardest at the start, a (s*/s)^2 with s* = s0 + v T =
        # 32 m, s = 55.2 m, then accelerates back (it braked at
        # 10 m/s^2 for a car 60 to 80 m beyond the end)
        scn = """\
vsweep: 1
step: 0.05
duration: 12
map:
  roads:
    - id: main
      line: [[0, 0, 0], [100, 0, 0]]
      lanes: {right: 1, width: 3.5}
""" + SEDAN + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 20, behaviour: {plugin: idm, params: {v0: 20}}}
  - {id: 2, asset: sedan, start: {position: [60, -1.75, 0], yaw: %r},
     speed: 20}
""" % (EAST, EAST)
        db = self.run_one("offend", scn)
        dec, = query(db, "SELECT max_deceleration FROM variant_summary")[0]
        self.assertLess(dec, (32 / 55.2) ** 2 + 1e-3)
        # rear bumper past the end at (100 - 57.6) / 20 = 2.12 s: from
        # the step after, the ego accelerates
        v = query(db, "SELECT sqrt(vx * vx + vy * vy) FROM actor_state "
                      "WHERE actor_id = 1 AND t >= 2.2 ORDER BY step")
        self.assertTrue(all(b[0] >= a[0] for a, b in zip(v, v[1:])))
        self.assertGreater(v[-1][0], v[0][0])

    def test_a_stopped_car_two_lanes_ahead_is_seen(self):
        # plugins.md: the successors are searched on "while they begin
        # less than max(200 m, 2·(s0 + v·T + v²/(2√(a·b)))) ahead along
        # the lanes", here 2 (2 + 37.5 + 625 / (2 sqrt 1.5)) = 589 m at
        # 25 m/s. Road 1 (100 m) leads through
        # a 20 m junction connector into road 2; a car stopped 8 m into
        # road 2 (x = 28) is 108 m ahead of the ego at 25 m/s: it stops
        # at s0 behind its rear bumper (x = 25.6); it saw the car only
        # once on the connector and hit it at 4.42 s.
        xodr = os.path.join(SRC, "tests", "data", "xodr", "junction.xodr")
        scn = """\
vsweep: 1
step: 0.02
duration: 20
map: {opendrive: %s}
""" % xodr + SEDAN + """\
actors:
  - {id: 1, asset: sedan, start: {position: {road: "1", lane: -1, s: 20}},
     speed: 25, behaviour: {plugin: idm, params: {v0: 25}}}
  - {id: 2, asset: sedan, start: {position: {road: "2", lane: -1, s: 8}},
     speed: 0}
"""
        db = self.run_one("junc", scn)
        x, v = self.last(db, 1)
        self.assertLess(v, 0.05)
        self.assertAlmostEqual(25.6 - (x + 2.4), S0, delta=0.3)


class CutInTest(TempDirCase):
    def test_cut_in_at_the_gap_and_idm_follows(self):
        # ego (IDM, 25 m/s) in lane -1 closes on a car in lane -2 at
        # 20 m/s 55.2 m ahead (bumper to bumper): the gap reaches 10 m at
        # (55.2 - 10) / 5 = 9.04 s; the car then changes left in 2 s
        scn = IDM_ROAD % 30 + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 25, behaviour: {plugin: idm, params: {v0: 25}}}
  - {id: 2, asset: sedan, start: {position: [60, -5.25, 0], yaw: %r},
     speed: 20, behaviour: {plugin: cut_in, params: {ego: 1, gap: 10,
     change_side: 1, change_duration: 2}}}
""" % (EAST, EAST)
        db = self.path("cut.db")
        rc, _, err = run("run", self.write("cut.yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        # on its lane's centre up to the trigger, moving off soon after
        # (the quintic starts flat: pure pursuit shows it 0.2 s later)
        y = dict(query(db, "SELECT step, y FROM actor_state "
                           "WHERE actor_id = 2"))
        # the behaviour of step k sees step k - 1: the gap is 10 m at
        # step 904, the change starts (offset still whole) at step 905
        # and the path moves from step 906 on
        moved = min(k for k in y if abs(y[k] + 5.25) > 1e-12)
        self.assertIn(moved, (906, 907))
        self.assertGreater(y[960] + 5.25, 0.005)
        lane = dict(query(db, "SELECT lane, lane_id FROM lane_info"))
        self.assertEqual(query(db, "SELECT DISTINCT lane_id FROM "
                                   "map_location WHERE actor_id = 2 AND "
                                   "t >= 12.1" if False else
                                   "SELECT DISTINCT m.lane_id FROM "
                                   "map_location m WHERE actor_id = 2 AND "
                                   "step >= 1210"), [(lane[-1],)])
        # the ego picked it up: no collision, and it slowed to its speed
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE "
                                   "kind = 'collision'")[0][0], 0)
        vmin, = query(db, "SELECT min(vx) FROM actor_state "
                          "WHERE actor_id = 1")[0]
        self.assertLess(vmin, 20.0)  # it braked below the lead's speed
        gap, = query(db, "SELECT b.x - a.x - 4.8 FROM actor_state a JOIN "
                         "actor_state b ON a.step = b.step AND "
                         "b.actor_id = 2 WHERE a.actor_id = 1 "
                         "ORDER BY a.step DESC LIMIT 1")[0]
        self.assertGreater(gap, 2.0)  # and fell back beyond s0


# A lane behaviour's actor, as the scenario's second: flow style or block
# style, so that the column of the plugin's name is tested in both.
NO_MAP = """\
vsweep: 1
name: no map
step: 0.1
duration: 5
%s""" + SEDAN + """\
actors:
  - id: 1
    name: ego
    asset: sedan
    start: {position: [0, -1.75, 0], yaw: %r}
    speed: 20
  - id: 2
    name: %s
    asset: sedan
    start: {position: [%s, 0], yaw: %r}
    speed: 15
"""
ROAD_MAP = """\
map:
  roads:
    - id: main
      line: [[0, 0, 0], [3000, 0, 0]]
      lanes: {right: 2, width: 3.5}
"""


class NoMapTest(TempDirCase):
    """lane_follow, idm and cut_in need a map (vs_plugin.needs): without
    one they would run every variant to `done` and do nothing they say
    (drive straight, never cut in). Both check and run refuse such a
    scenario, exit status 2, before any variant runs, at the plugin's
    name."""

    CASES = [
        ("lane_follow", "follower",
         "    behaviour:\n      plugin: lane_follow\n"
         "      params: {change_time: 1, change_side: 1}\n"),
        ("idm", "follower", "    behaviour: {plugin: idm, params: {v0: 30}}\n"),
        ("cut_in", "cutter",
         "    behaviour: {plugin: cut_in, params: {ego: 1, gap: 10,\n"
         "                                        change_side: 1}}\n"),
    ]

    def text(self, roads, name, behaviour, at="40, -5.25"):
        return NO_MAP % (roads, EAST, name, at, EAST) + behaviour

    def test_refused_without_a_map(self):
        for plugin, name, behaviour in self.CASES:
            for roads in ("", "map:\n", "map: {roads: []}\n"):
                with self.subTest(plugin=plugin, map=roads):
                    text = self.text(roads, name, behaviour)
                    # where the plugin's name is, counted in this text
                    lines = text.split("\n")
                    row = next(i for i, ln in enumerate(lines)
                               if "plugin: " + plugin in ln)
                    col = lines[row].index(plugin) + 1
                    p = self.write("nomap.yaml", text)
                    want = ("vsweep: %s:%d:%d: actor 2 (%s): behaviour %s "
                            "needs a map: the scenario has no map:"
                            % (p, row + 1, col, name, plugin))
                    rc, _, err = run("check", p)
                    self.assertEqual(rc, 2, err)
                    self.assertIn(want, err.splitlines())
                    db = self.path("nomap.db")
                    rc, _, err = run("run", p, "-o", db)
                    self.assertEqual(rc, 2, err)
                    self.assertIn(want, err.splitlines())
                    self.assertFalse(os.path.exists(db))

    def test_refused_with_a_map_without_lanes(self):
        # an OpenDRIVE file without roads makes a map with no lanes
        self.write("empty.xodr", '<?xml version="1.0"?>\n<OpenDRIVE>\n'
                   '  <header revMajor="1" revMinor="4" name="e"/>\n'
                   '</OpenDRIVE>\n')
        plugin, name, behaviour = self.CASES[1]
        p = self.write("nolanes.yaml", self.text(
            "map: {opendrive: empty.xodr}\n", name, behaviour))
        # line 20 (5 of the head with map:, 3 of SEDAN, 12 of actors),
        # column 25 at "idm" after "    behaviour: {plugin: "
        want = ("vsweep: %s:20:25: actor 2 (follower): behaviour idm needs "
                "a map: the scenario's map: has no lanes" % p)
        for cmd in (["check", p], ["run", p, "-o", self.path("n.db")]):
            rc, _, err = run(*cmd)
            self.assertEqual(rc, 2, err)
            self.assertIn(want, err.splitlines())
        self.assertFalse(os.path.exists(self.path("n.db")))

    def test_with_a_map_nothing_is_refused(self):
        # on its lane, and 500 m off every lane (it drives on until it
        # meets one): both run to the end
        for plugin, name, behaviour in self.CASES:
            for at in ("40, -5.25", "40, 500"):
                with self.subTest(plugin=plugin, at=at):
                    p = self.write("map.yaml", self.text(ROAD_MAP, name,
                                                         behaviour, at))
                    rc, _, err = run("check", p)
                    self.assertEqual(rc, 0, err)
                    db = self.path("map_%s.db" % plugin)
                    if os.path.exists(db):
                        os.unlink(db)
                    rc, _, err = run("run", p, "-o", db)
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(query(db, "SELECT status FROM "
                                               "variant_summary"),
                                     [("done",)])


    def test_plugins_says_which_need_a_map(self):
        rc, out, err = run("plugins")
        self.assertEqual(rc, 0, err)
        for plugin in ("lane_follow", "idm", "cut_in"):
            self.assertIn("\n%s 1.0.0 (behaviour, needs a map) — " % plugin,
                          out)
        self.assertIn("\nwaypoints 1.0.0 (behaviour) — ", out)


class SafetyKpiTest(TempDirCase):
    def test_ttc_headway_and_near_miss(self):
        # follower at 20 m/s, lead at 10 m/s, 95.2 m bumper to bumper:
        # gap(t) = 95.2 - 10 t, TTC = gap / 10, headway = gap / 20; after
        # 5 s: TTC 4.52 s, headway 2.26 s; TTC < 6 s from t > 3.52 s
        scn = (IDM_ROAD % 5).replace("name: idm", "name: kpi\n"
                                     "near_miss_ttc: 6") + """\
actors:
  - {id: 1, asset: sedan, start: {position: [0, -1.75, 0], yaw: %r},
     speed: 20}
  - {id: 2, asset: sedan, start: {position: [100, -1.75, 0], yaw: %r},
     speed: 10}
""" % (EAST, EAST)
        db = self.path("kpi.db")
        rc, _, err = run("run", self.write("kpi.yaml", scn), "-o", db)
        self.assertEqual(rc, 0, err)
        ttc, ttc_id, thw, thw_id, dec = query(
            db, "SELECT min_ttc, min_ttc_actor_id, min_time_headway, "
                "min_time_headway_actor_id, max_deceleration "
                "FROM variant_summary")[0]
        self.assertAlmostEqual(ttc, 4.52, delta=1e-9)
        self.assertAlmostEqual(thw, 2.26, delta=1e-9)
        self.assertEqual((ttc_id, thw_id), (1, 1))
        self.assertAlmostEqual(dec, 0.0, delta=1e-9)
        ev = query(db, "SELECT t, actor_id, other_actor_id FROM event "
                       "WHERE kind = 'near_miss'")
        self.assertEqual(len(ev), 1)
        self.assertEqual(ev[0][1:], (1, 2))
        # the first step past 3.52 s: 3.53 s (3.52 itself gives TTC 6.0
        # up to rounding)
        self.assertAlmostEqual(ev[0][0], 3.53, delta=0.011)
        # no threshold, no event
        rc, _, err = run("run", self.write("k2.yaml", scn.replace(
            "near_miss_ttc: 6", "near_miss_ttc: 0")), "-o",
            self.path("k2.db"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(self.path("k2.db"), "SELECT count(*) FROM "
                               "event WHERE kind = 'near_miss'"), [(0,)])


if __name__ == "__main__":
    unittest.main()
