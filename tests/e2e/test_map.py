"""MapLocation end to end: an actor crossing the lanes of a straight road
and one driving round the article's 57.3 m course; the article's own car,
which straddles the ring's reference line, and the shipped article
scenario. Lanes, s and angle are checked against plane geometry computed
here from the stored positions."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

W = 3.5  # m, lane width

STRAIGHT = """\
vsweep: 1
name: lane crossing
step: 0.05
duration: 30
map:
  roads:
    - id: main
      line: [[0, 0, 0], [300, 0, 0]]
      lanes: {left: 2, right: 2, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    waypoints: [[10, -5.25, 0], [100, -5.25, 0], [160, 1.75, 0],
                [290, 1.75, 0]]
    speed: 10
    behaviour: {plugin: waypoints}
"""

L_CAR = 3.0
R_LANE = 57.3 + W / 2                      # m, centre of lane -1
R_REAR = math.sqrt(R_LANE ** 2 - 1.5 ** 2)  # rear axle 1.5 m behind origin
STEER_DEG = math.degrees(math.atan(L_CAR / R_REAR)) * 15

RING = """\
vsweep: 1
name: ring
step: 0.02
duration: 45
map:
  roads:
    - id: ring
      circle: {center: [0, 0], radius: 57.3}
      lanes: {left: 4, right: 4, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [%r, 1.5, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: %r}}
""" % (R_REAR, STEER_DEG)


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


HW, HL = 1.9 / 2, 4.8 / 2  # m, the sedan's half width and half length
BANDS = {1: (0, W), 2: (W, 2 * W), -1: (-W, 0), -2: (-2 * W, -W)}
ROWS = [1, 2, -1, -2]      # lane_info order: left lanes, then right


def straddled_lane(y, yaw, travel):
    """The lane MapLocation reports on STRAIGHT for an origin at y with
    RoadRunner yaw and travel direction (rad): among the lanes holding the
    origin or overlapped by the footprint (a rectangle whose y extent is
    y +- (|sin yaw| HW + |cos yaw| HL)), the smallest |angle|, then the
    origin's lane, then lane_info order. None when the origin or an edge
    of the footprint is within 1e-6 m of a boundary."""
    reach = abs(math.sin(yaw)) * HW + abs(math.cos(yaw)) * HL
    lo, hi = y - reach, y + reach
    for b in (-2 * W, -W, 0, W, 2 * W):
        if min(abs(lo - b), abs(hi - b), abs(y - b)) < 1e-6:
            return None
    origin = next(k for k, (a, b) in BANDS.items() if a < y < b)
    cands = [k for k, (a, b) in BANDS.items() if a < hi and lo < b]

    def key(k):
        tangent = 0.0 if k < 0 else math.pi
        return (round(abs(wrap(travel - tangent)), 9), k != origin,
                ROWS.index(k))
    return min(cands, key=key)


class MapTest(TempDirCase):
    def lanes(self, db):
        return {(road, lane): lid for lid, road, lane in
                query(db, "SELECT lane_id, road, lane FROM lane_info")}

    def test_crossing_a_straight_road(self):
        db = self.path("s.db")
        rc, _, err = run("run", self.write("s.yaml", STRAIGHT), "-o", db)
        self.assertEqual(rc, 0, err)
        ids = self.lanes(db)
        self.assertEqual(len(ids), 4)
        for lid in ids.values():
            self.assertRegex(lid, r"^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
                                  r"[0-9a-f]{4}-[0-9a-f]{12}\}$")
        self.assertEqual(query(db, "SELECT DISTINCT length, width FROM "
                               "lane_info"), [(300.0, 3.5)])
        rows = query(db, "SELECT s.x, s.y, s.vx, s.vy, s.yaw, m.is_on_lane, "
                     "m.lane_id, m.position, m.angle FROM actor_state s "
                     "JOIN map_location m USING (variant_id, actor_id, step) "
                     "ORDER BY s.step")
        self.assertEqual(len(rows), 601)
        seq, steps = [], []
        for step, (x, y, vx, vy, yaw, on, lid, pos, ang) in enumerate(rows):
            travel = math.atan2(vy, vx) if math.hypot(vx, vy) >= 0.1 \
                else yaw + math.pi / 2
            lane = straddled_lane(y, yaw, travel)
            if lane is None:
                continue  # an edge on a boundary: either lane is right
            self.assertEqual(on, 1)
            self.assertEqual(lid, ids[("main", lane)], (x, y))
            s = x / 300 if lane < 0 else (300 - x) / 300
            self.assertAlmostEqual(pos, s, places=9)
            tangent = 0.0 if lane < 0 else math.pi
            self.assertAlmostEqual(wrap(ang - wrap(travel - tangent)),
                                   0, places=9)
            if not seq or seq[-1] != lane:
                seq.append(lane)
                steps.append(step)
        self.assertEqual(seq, [-2, -1, 1])
        changes = query(db, "SELECT detail FROM event WHERE kind = "
                        "'lane_change' ORDER BY t")
        self.assertEqual([d for (d,) in changes],
                         ["%s -> %s" % (ids[("main", a)], ids[("main", b)])
                          for a, b in [(-2, -1), (-1, 1)]])
        self.assertEqual(query(db, "SELECT time_on_lane_pct, lane_changes "
                               "FROM variant_summary"), [(100.0, 2)])
        # Lanes -2 and -1 run the same way: equally aligned, the origin's
        # lane wins, so the first change is stamped at the first step whose
        # origin is past y = -3.5. Lane 1 runs against the car: the second
        # comes at the first step whose footprint has left lane -1 (its
        # right edge past y = 0), well after the origin crossed y = 0.
        times = [t for (t,) in query(db, "SELECT t FROM event WHERE kind "
                                     "= 'lane_change' ORDER BY t")]
        self.assertEqual(len(times), 2)
        for t_ev, step in zip(times, steps[1:]):
            self.assertAlmostEqual(t_ev, step * 0.05, places=9)
        self.assertEqual(steps[1], next(k for k, r in enumerate(rows)
                                        if r[1] > -W))
        first_left = next(k for k, r in enumerate(rows) if r[1] > 0)
        self.assertLess(first_left, steps[2])

    def test_round_the_articles_course(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.write("r.yaml", RING), "-o", db)
        self.assertEqual(rc, 0, err)
        ids = self.lanes(db)
        self.assertEqual(len(ids), 8)
        # Lane -1 runs counter-clockwise round 57.3 .. 60.8 m: its
        # centre-line length is 2 pi 59.05.
        (length,), = query(db, "SELECT length FROM lane_info WHERE lane = "
                           "-1")
        self.assertAlmostEqual(length, 2 * math.pi * R_LANE, places=6)
        rows = query(db, "SELECT s.x, s.y, s.vx, s.vy, m.is_on_lane, "
                     "m.lane_id, m.position, m.angle FROM actor_state s "
                     "JOIN map_location m USING (variant_id, actor_id, step) "
                     "ORDER BY s.step")
        wraps = 0
        last = None
        for x, y, vx, vy, on, lid, pos, ang in rows:
            r = math.hypot(x, y)
            self.assertTrue(57.3 < r < 60.8, r)
            self.assertEqual((on, lid), (1, ids[("ring", -1)]))
            theta = math.atan2(y, x) % (2 * math.pi)
            self.assertAlmostEqual(min(abs(pos - theta / (2 * math.pi)),
                                       1 - abs(pos - theta / (2 * math.pi))),
                                   0, places=9)
            travel = math.atan2(vy, vx)
            self.assertAlmostEqual(wrap(ang - (travel - theta - math.pi / 2)),
                                   0, places=9)
            if last is not None and pos < last - 0.5:
                wraps += 1
            last = pos
        # 45 s at 10 m/s on a 371 m lap: once past s = 1 back to 0.
        self.assertEqual(wraps, 1)
        self.assertEqual(query(db, "SELECT count(*) FROM event"), [(0,)])

    def article_rows(self, path):
        db = self.path("a.db")
        rc, _, err = run("run", path, "-o", db)
        self.assertEqual(rc, 0, err)
        ids = self.lanes(db)
        rows = query(db, "SELECT s.x, s.y, s.vx, s.vy, m.is_on_lane, "
                     "m.lane_id, m.position, m.angle FROM actor_state s "
                     "JOIN map_location m USING (variant_id, actor_id, step) "
                     "ORDER BY s.step")
        self.assertEqual(len(rows), 3001)
        return ids, rows

    def test_article_car_straddles_the_reference_line(self):
        # The article's neutral-steer car circles on l / delta = 57.2958 m,
        # 4 mm inside a 57.3 m reference line: its origin is in lane 1
        # (clockwise), its footprint (1.9 m wide) reaches into lane -1,
        # which runs counter-clockwise as the car does.
        with open(scenario("article.yaml")) as f:
            text = f.read()
        text = text.replace("radius: 55.55}", "radius: 57.3}")
        self.assertIn("radius: 57.3}", text)
        ids, rows = self.article_rows(self.write("a.yaml", text))
        rho = 3.0 / math.radians(3)
        for x, y, vx, vy, on, lid, pos, ang in rows:
            self.assertAlmostEqual(math.hypot(x - (57.3 - rho), y), rho,
                                   places=6)
            self.assertEqual((on, lid), (1, ids[("ring", -1)]))
            self.assertLess(abs(ang), 1e-3)  # the circles' centres 4 mm apart

    def test_shipped_article_drives_in_lane_minus_1(self):
        ids, rows = self.article_rows(scenario("article.yaml"))
        for x, y, vx, vy, on, lid, pos, ang in rows:
            r = math.hypot(x, y)
            # the footprint (0.95 m each side) inside lane -1's
            # 55.55 .. 59.05 m
            self.assertTrue(55.55 + 0.95 < r < 59.05 - 0.95, r)
            self.assertEqual((on, lid), (1, ids[("ring", -1)]))
            self.assertLess(abs(ang), 1e-3)
            theta = math.atan2(y, x) % (2 * math.pi)
            self.assertLess(min(abs(pos - theta / (2 * math.pi)),
                                1 - abs(pos - theta / (2 * math.pi))), 1e-9)


if __name__ == "__main__":
    unittest.main()
