"""Character actors (assets of kind: character) and the pedestrian
behaviour, end to end: the real binary, results read back in SQL.

Expected values are closed forms worked here: a point mass walking
straight legs at the route's speeds (constant speed: distance / speed;
speed changing between waypoints at constant acceleration: a leg of
length L from va to vb takes 2 L / (va + vb)), footprints as boxes, a car
at constant speed, and the scenario's hand-counted lines and columns for
the refused inputs.
"""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TempDirCase, differences, query, run,  # noqa: E402
                        scenario)

DT = 0.01  # s, every scenario's step here
MM = 1e-3  # m

# Line 9 is the ped asset; actors start at line 10.
HEAD = """\
vsweep: 1
step: 0.01
duration: %(duration)s
%(map)s
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
  pram: {length: 0.9, width: 0.6, height: 1.0}
  ped: {kind: character, length: 0.5, width: 0.5, height: 1.8}
actors:
"""

ROAD = """\
map:
  roads:
    - id: main
      line: [[0, 0, 0], [200, 0, 0]]
      lanes: {left: 1, right: 1, width: 3.5}"""


def head(duration, road=False):
    return HEAD % {"duration": duration, "map": ROAD if road else "map:"}


def walker(waypoints, speed, params=""):
    return ("  - id: 2\n    name: walker\n    asset: ped\n"
            "    waypoints: %s\n    speed: %s\n"
            "    behaviour: {plugin: pedestrian, params: {%s}}\n"
            % (waypoints, speed, params))


def car(x0, v):
    """A car facing +X in lane -1 (y = -1.75), no behaviour: it holds its
    start speed and goes straight, x = x0 + v t."""
    return ("  - id: 1\n    name: car\n    asset: sedan\n"
            "    start: {position: [%r, -1.75, 0], yaw: %r}\n"
            "    speed: %r\n" % (x0, -math.pi / 2, v))


class Legs:
    """The pedestrian's closed form: legs from p to q, speed va at p and vb
    at q, constant acceleration between; a start delay and a wait at each
    inner waypoint."""

    def __init__(self, points, speeds, delay=0.0, wait=0.0):
        self.legs = []
        t = delay
        self.start = points[0]
        for i in range(len(points) - 1):
            p, q = points[i], points[i + 1]
            length = math.dist(p, q)
            va, vb = speeds[i], speeds[i + 1]
            dur = 2 * length / (va + vb)
            self.legs.append((t, dur, p, q, length, va,
                              (vb * vb - va * va) / (2 * length)))
            t += dur + (wait if i + 2 < len(points) else 0.0)

    def at(self, t):
        """(x, y, speed, heading from +X) at time t."""
        first = self.legs[0]
        if t < first[0]:
            p, q = first[2], first[3]
            return p[0], p[1], 0.0, math.atan2(q[1] - p[1], q[0] - p[0])
        for t0, dur, p, q, length, va, acc in reversed(self.legs):
            if t >= t0:
                break
        tau = t - t0
        h = math.atan2(q[1] - p[1], q[0] - p[0])
        if tau >= dur:
            return q[0], q[1], 0.0, h
        s = va * tau + 0.5 * acc * tau * tau
        return (p[0] + s * math.cos(h), p[1] + s * math.sin(h),
                va + acc * tau, h)


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


class WalkTest(TempDirCase):
    def run_ok(self, text, *args):
        db = self.path("r.db")
        rc, _, err = run("run", self.write("s.yaml", text), "-o", db, *args)
        self.assertEqual(rc, 0, err)
        return db

    def states(self, db, actor=2):
        return query(db, "SELECT step, t, x, y, yaw, vx, vy FROM actor_state "
                         "WHERE actor_id = ? ORDER BY step", actor)

    def check_walk(self, db, legs, every=1):
        rows = self.states(db)
        self.assertEqual(len(rows), 1 + int(round(self.duration / DT)))
        for step, t, x, y, yaw, vx, vy in rows[::every]:
            ex, ey, ev, eh = legs.at(step * DT)
            self.assertLess(math.hypot(x - ex, y - ey), MM,
                            "step %d: (%r, %r), want (%r, %r)"
                            % (step, x, y, ex, ey))
            self.assertAlmostEqual(math.hypot(vx, vy), ev, delta=1e-9,
                                   msg="speed at step %d" % step)
            # heading along the leg: RoadRunner yaw = heading - pi/2
            self.assertAlmostEqual(wrap(yaw - (eh - math.pi / 2)), 0.0,
                                   delta=1e-9, msg="yaw at step %d" % step)

    def test_l_route_at_constant_speed(self):
        # 14 m east then 7 m north at 1.4 m/s: waypoint 1 at t = 10 s,
        # waypoint 2 at t = 15 s, then standing there facing north.
        self.duration = 17
        db = self.run_ok(head(17) + walker("[[0, 0, 0], [14, 0, 0], "
                                           "[14, 7, 0]]", "1.4"))
        legs = Legs([(0, 0), (14, 0), (14, 7)], [1.4, 1.4, 1.4])
        self.check_walk(db, legs)
        at = {r[0]: r for r in self.states(db)}
        self.assertLess(math.hypot(at[1000][2] - 14, at[1000][3]), MM)
        self.assertLess(math.hypot(at[1500][2] - 14, at[1500][3] - 7), MM)
        self.assertAlmostEqual(at[500][4], -math.pi / 2, delta=1e-12)
        self.assertAlmostEqual(at[1200][4], 0.0, delta=1e-12)
        self.assertEqual(at[1700][5:], (0.0, 0.0))
        # a character: no axles, no wheels, no vehicle model
        self.assertEqual(query(db, "SELECT kind, wheel_count, vehicle_model, "
                                   "behaviour FROM actor_info WHERE "
                                   "actor_id = 2"),
                         [("character", 0, None, "pedestrian")])
        self.assertEqual(query(db, "SELECT count(*) FROM wheel_pose WHERE "
                                   "actor_id = 2"), [(0,)])

    def test_delay_and_wait(self):
        # stands 2 s, walks 10 s, waits 1 s at the corner, walks 5 s
        self.duration = 19
        db = self.run_ok(head(19) + walker(
            "[[0, 0, 0], [14, 0, 0], [14, 7, 0]]", "1.4",
            "start_delay: 2, wait: 1"))
        legs = Legs([(0, 0), (14, 0), (14, 7)], [1.4, 1.4, 1.4], 2.0, 1.0)
        self.check_walk(db, legs)
        at = {r[0]: r for r in self.states(db)}
        self.assertEqual(at[150][2:4], (0.0, 0.0))      # still waiting
        self.assertEqual(at[1250][5:], (0.0, 0.0))      # at the corner
        self.assertLess(math.hypot(at[1250][2] - 14, at[1250][3]), MM)
        self.assertLess(math.hypot(at[1800][2] - 14, at[1800][3] - 7), MM)
        # a point mass starting and stopping at once has no deceleration
        # or jerk KPI (it would be 1.4 / 0.01 = 140 m/s^2)
        self.assertEqual(query(db, "SELECT max_deceleration, max_jerk FROM "
                                   "variant_summary"), [(None, None)])

    def test_speeds_per_waypoint(self):
        # 1.0 -> 2.0 m/s over 14 m: 2 * 14 / 3 = 9.333 s; 2.0 -> 0.5 m/s
        # over 7 m: 2 * 7 / 2.5 = 5.6 s; at rest at the end (t = 14.93 s)
        self.duration = 16
        db = self.run_ok(head(16) + walker(
            "[[0, 0, 0], [14, 0, 0], [14, 7, 0]]", "[1.0, 2.0, 0.5]"))
        legs = Legs([(0, 0), (14, 0), (14, 7)], [1.0, 2.0, 0.5])
        self.check_walk(db, legs)
        at = {r[0]: r for r in self.states(db)}
        # 4.5 s in: s = 4.5 + (3 / 28) 4.5^2 / 2 (m), speed 1 + (3/28) 4.5
        s = 4.5 + 3 / 28 * 4.5 ** 2 / 2
        self.assertLess(math.hypot(at[450][2] - s, at[450][3]), MM)
        self.assertAlmostEqual(at[450][5], 1 + 3 / 28 * 4.5, delta=1e-9)

    def test_a_ramp(self):
        # a 3-D route (docs/sweep.md): 10 m along +X rising 1 m at 1 m/s
        # (horizontal): z = 0.1 t, pitch atan(0.1), as for any route
        self.duration = 8
        db = self.run_ok(head(8) + walker("[[0, 0, 0], [10, 0, 1]]", "1"))
        for step, x, z, pitch in query(db, "SELECT step, x, z, pitch FROM "
                                           "actor_state WHERE actor_id = 2 "
                                           "AND step % 100 = 0"):
            self.assertAlmostEqual(x, step * DT, delta=1e-9)
            self.assertAlmostEqual(z, 0.1 * step * DT, delta=1e-9)
            self.assertAlmostEqual(pitch, math.atan(0.1), delta=1e-12)

    def test_a_parent_of_a_fixed_child(self):
        # a pram pushed ahead: its Rear at the walker's Front, so its
        # origin is 0.25 + 0.45 = 0.7 m ahead along the walking direction
        self.duration = 15
        db = self.run_ok(head(15) + walker(
            "[[0, 0, 0], [14, 0, 0], [14, 7, 0]]", "1.4") +
            "  - id: 3\n    asset: pram\n    attach: {parent: 2, type: fixed,"
            " parent_point: Front, child_point: Rear}\n")
        rows = query(db, "SELECT p.step, p.x, p.y, p.yaw, c.x, c.y, c.yaw "
                         "FROM actor_state p JOIN actor_state c USING "
                         "(variant_id, step) WHERE p.actor_id = 2 AND "
                         "c.actor_id = 3 ORDER BY p.step")
        self.assertEqual(len(rows), 1501)
        for step, px, py, pyaw, cx, cy, cyaw in rows:
            h = pyaw + math.pi / 2
            self.assertLess(math.hypot(cx - (px + 0.7 * math.cos(h)),
                                       cy - (py + 0.7 * math.sin(h))), 1e-9)
            self.assertAlmostEqual(wrap(cyaw - pyaw), 0.0, delta=1e-12)
        self.assertEqual(query(db, "SELECT parent_id, attach_type FROM "
                                   "actor_info WHERE actor_id = 3"),
                         [(2, "fixed")])
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE kind = "
                                   "'collision'"), [(0,)])


class CollisionTest(TempDirCase):
    """A car at 10 m/s along y = -1.75 (body x in [10t - 2.4, 10t + 2.4],
    y in [-2.7, -0.8]); a pedestrian 0.5 m square walking north at 1.4 m/s
    from (30, -6) after a delay d (body x in [29.75, 30.25], y in
    [y_p - 0.25, y_p + 0.25], y_p = -6 + 1.4 (t - d))."""

    def collide(self, delay, road=False):
        db = self.path("c.db")
        text = (head(6, road) + car(0.0, 10.0) +
                walker("[[30, -6, 0], [30, 6, 0]]", "1.4",
                       "start_delay: %r" % delay))
        rc, _, err = run("run", self.write("c.yaml", text), "-o", db)
        self.assertEqual(rc, 0, err)
        return db

    def events(self, db):
        return query(db, "SELECT round(t / 0.01), actor_id, other_actor_id "
                         "FROM event WHERE kind = 'collision'")

    def test_car_front_hits_the_pedestrian(self):
        # d = 0: the pedestrian is in the car's band from t = 3.05 / 1.4 =
        # 2.179 s; the car's front reaches x = 29.75 at t = 2.735 s: the
        # first step after it, 274
        db = self.collide(0.0)
        self.assertEqual(self.events(db), [(274, 1, 2)])
        self.assertEqual(query(db, "SELECT collisions, min_distance FROM "
                                   "variant_summary"), [(1, 0.0)])

    def test_pedestrian_walks_into_the_cars_side(self):
        # d = 1: the pedestrian's front reaches y = -2.7 at t = 1 + 3.05 /
        # 1.4 = 3.1786 s, while the car's rear (10t - 2.4 <= 30.25 until
        # t = 3.265 s) is still level: step 318
        db = self.collide(1.0)
        self.assertEqual(self.events(db), [(318, 1, 2)])

    def test_pedestrian_too_late(self):
        # d = 1.2: the band is reached at t = 3.379 s, after the car's rear
        # has passed x = 30.25 (t = 3.265 s): no contact, and the closest
        # approach is that of the two boxes over the steps, worked here
        db = self.collide(1.2)
        self.assertEqual(self.events(db), [])
        best = math.inf
        for k in range(0, 601):
            t = k * DT
            yp = -6 + 1.4 * max(0.0, t - 1.2)
            cx = 10 * t
            dx = max(0.0, (cx - 2.4) - 30.25, 29.75 - (cx + 2.4))
            dy = max(0.0, (yp - 0.25) - (-0.8), -2.7 - (yp + 0.25))
            best = min(best, math.hypot(dx, dy))
        (got,), = query(db, "SELECT min_distance FROM variant_summary")
        self.assertAlmostEqual(got, best, delta=1e-6)

    def test_ttc_to_a_crossing_pedestrian(self):
        # on a road along +X, the pedestrian from (60, -6) at 1.4 m/s is on
        # the car's lane -1 (y in [-3.5, 0]) for t in [1.786, 4.286] s; the
        # car is its follower with TTC = gap / v, gap = 60 - 10 t - (4.8 +
        # 0.5) / 2, smallest at the last step on the lane, 428: 1.455 s
        db = self.path("t.db")
        text = (head(6, True) + car(0.0, 10.0) +
                walker("[[60, -6, 0], [60, 6, 0]]", "1.4"))
        rc, _, err = run("run", self.write("t.yaml", text), "-o", db)
        self.assertEqual(rc, 0, err)
        (ttc, who), = query(db, "SELECT min_ttc, min_ttc_actor_id FROM "
                                "variant_summary")
        self.assertEqual(who, 1)
        self.assertAlmostEqual(ttc, (60 - 10 * 4.28 - 2.65) / 10, delta=1e-9)


class IdmTest(TempDirCase):
    """idm (and lane_follow's lane keeping) on the road along +X: a
    pedestrian standing in the car's lane is its lead (IDM stops behind it
    at the jam gap s0, where the IDM acceleration a (1 - (s0 / s)^2) is 0
    at rest); one standing at the kerb, off the lane, is not."""

    def drive(self, stand_y):
        db = self.path("i.db")
        text = (head(40, True) +
                "  - id: 1\n    asset: sedan\n"
                "    start: {position: [0, -1.75, 0], yaw: %r}\n"
                "    speed: 10\n"
                "    behaviour: {plugin: idm, params: {v0: 10, s0: 2}}\n"
                % (-math.pi / 2) +
                walker("[[50, -6, 0], [50, %r, 0]]" % stand_y, "1.4"))
        rc, _, err = run("run", self.write("i.yaml", text), "-o", db)
        self.assertEqual(rc, 0, err)
        return db

    def test_stops_behind_a_pedestrian_in_its_lane(self):
        db = self.drive(-1.75)
        (x, vx, vy), = query(db, "SELECT x, vx, vy FROM actor_state "
                                 "WHERE actor_id = 1 AND step = 4000")
        v = math.hypot(vx, vy)
        self.assertLess(v, 0.01)
        # bumper to bumper: 50 - x - (4.8 + 0.5) / 2
        self.assertAlmostEqual(50 - x - 2.65, 2.0, delta=0.05)
        self.assertEqual(query(db, "SELECT collisions FROM variant_summary"),
                         [(0,)])

    def test_ignores_a_pedestrian_at_the_kerb(self):
        db = self.drive(-4.0)  # the lane ends at y = -3.5
        rows = query(db, "SELECT step, x FROM actor_state WHERE actor_id = 1 "
                         "AND step % 250 = 0")
        for step, x in rows:
            self.assertAlmostEqual(x, 10 * step * DT, delta=1e-6)


class RefusedTest(TempDirCase):
    def refused(self, text):
        p = self.write("bad.yaml", text)
        rc, _, err = run("check", p)
        self.assertEqual(rc, 2, err)
        return err.strip().replace(p, "FILE")

    def test_axles_on_a_character(self):
        text = head(5).replace(
            "ped: {kind: character,",
            "ped: {kind: character, axles: [0.1],") + walker(
                "[[0, 0, 0], [5, 0, 0]]", "1.4")
        self.assertEqual(self.refused(text),
                         "vsweep: FILE:9:33: asset 'ped': axles: a character "
                         "(kind: character) has no axles or wheels; remove "
                         "it, or make the asset a vehicle")

    def test_vehicle_behaviour_on_a_character(self):
        text = head(5, True) + walker("[[0, 0, 0], [5, 0, 0]]", "1.4")
        text = text.replace("{plugin: pedestrian, params: {}}",
                            "{plugin: lane_follow}")
        self.assertEqual(self.refused(text),
                         "vsweep: FILE:20:25: actor 2 (walker): behaviour "
                         "'lane_follow' drives vehicles only, and asset "
                         "'ped' is a character (kind: character); name a "
                         "behaviour that drives characters, such as "
                         "pedestrian")

    def test_vehicle_model_on_a_character(self):
        text = head(5) + walker("[[0, 0, 0], [5, 0, 0]]", "1.4") + \
            "    vehicle_model: {plugin: kinematic_bicycle}\n"
        self.assertEqual(self.refused(text),
                         "vsweep: FILE:17:29: actor 2 (walker): "
                         "vehicle_model: asset 'ped' is a character (kind: "
                         "character), which its behaviour moves as a point "
                         "mass; remove vehicle_model")


class ListedTest(unittest.TestCase):
    def test_plugins_says_what_pedestrian_drives(self):
        rc, out, err = run("plugins")
        self.assertEqual(rc, 0, err)
        self.assertIn("\npedestrian 1.0.0 (behaviour, drives characters) — ",
                      out)
        self.assertIn("\nwaypoints 1.0.0 (behaviour) — ", out)


class ShippedScenarioTest(TempDirCase):
    def test_crossing_sweep(self):
        # 4 car speeds x 9 start delays; the car at v reaches the crossing
        # (front at x = 49.75, rear past x = 50.25) during [47.35 / v,
        # 52.65 / v]; the pedestrian is in the car's band (y_p in [-2.95,
        # -0.55]) during [d + 2.179, d + 3.893]: they meet where the two
        # intervals overlap (no variant sits within a step of the edge)
        db = self.path("x.db")
        rc, _, err = run("run", scenario("pedestrian_crossing.yaml"),
                         "--sweep", scenario("pedestrian_crossing_sweep.yaml"),
                         "-o", db)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT json_extract(params, '$.actor1.speed'), "
                         "json_extract(params, "
                         "'$.actor2.behaviour.start_delay'), collisions "
                         "FROM variant_summary ORDER BY variant_id")
        self.assertEqual(len(rows), 36)
        for v, d, collisions in rows:
            car_in = (47.35 / v, 52.65 / v)
            ped_in = (d + 3.05 / 1.4, d + 5.45 / 1.4)
            meet = car_in[0] <= ped_in[1] and ped_in[0] <= car_in[1]
            self.assertEqual(collisions, int(meet), (v, d))

    def test_same_rows_on_one_thread(self):
        # the same stored rows whatever the thread count
        dbs = []
        for j in ("1", "2"):
            dbs.append(self.path("j%s.db" % j))
            rc, _, err = run("run", scenario("pedestrian_crossing.yaml"),
                             "--sweep",
                             scenario("pedestrian_crossing_sweep.yaml"),
                             "-o", dbs[-1], "-j", j)
            self.assertEqual(rc, 0, err)
        self.assertEqual(differences(*dbs), [])


if __name__ == "__main__":
    unittest.main()
