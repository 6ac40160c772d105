"""Waypoints changes in lane coordinates (sweep.md, "Properties"): a
sweep's `waypoints` (a list change, grid values, random choices) may give
points as {road, lane, s, offset} on the scenario's map, OpenDRIVE or
hand-written. Such a sweep stores the same rows as the same sweep written
with the world points worked out by hand: on a straight road along +X
(tests/data/xodr/straight.xodr, or a hand-written `line`; lanes 1 and -1
3.5 m wide, so lane -1's centre is y = -1.75) the point (s, offset) of
lane -1 is (s, -1.75 + offset, 0); on a full circle of radius R = 50 m
(an OpenDRIVE arc written here, or a hand-written `circle`; the
reference line starts at (R, 0) heading +Y, the left lanes inside) lane
-1's centre at s is at radius R + 1.75 and angle s / R. Unknown roads and
lanes and an s off the road are refused at FILE:LINE:COL; a start in
lane coordinates on a hand-written road faces the lane's travel
direction."""
import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

STRAIGHT = os.path.join(SRC, "tests", "data", "xodr", "straight.xodr")
R = 50.0
RING = """<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="6" name="ring.xodr"/>
  <road id="ring" length="%(len).17g" junction="-1">
    <planView>
      <geometry s="0" x="%(r).17g" y="0" hdg="%(hdg).17g" length="%(len).17g">
        <arc curvature="%(k).17g"/></geometry>
    </planView>
    <lanes><laneSection s="0">
      <left><lane id="1" type="driving" level="false">
        <width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></left>
      <center><lane id="0" type="none" level="false"/></center>
      <right><lane id="-1" type="driving" level="false">
        <width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right>
    </laneSection></lanes>
  </road>
</OpenDRIVE>
""" % {"len": 2 * math.pi * R, "r": R, "hdg": math.pi / 2, "k": 1 / R}

# the same roads written by hand
HAND_LINE = """
  roads:
    - id: "1"
      line: [[0, 0, 0], [100, 0, 0]]
      lanes: {left: 1, right: 1, width: 3.5}"""
HAND_RING = """
  roads:
    - id: ring
      circle: {center: [0, 0], radius: 50}
      lanes: {left: 1, right: 1, width: 3.5}"""

# one box at a start position, for step 0 only: (map, position)
ONE_BOX = """vsweep: 1
step: 0.1
duration: 0.1
map: %s
assets:
  box: {length: 4, width: 2, height: 1.5}
actors:
  - id: 1
    asset: box
    start: {position: %s}
"""

SCENARIO = """vsweep: 1
step: 0.05
duration: 3
map: %s
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    waypoints: [%s, %s]
    speed: 10
"""


def straight_point(s, off=0.0, lane=-1):
    return [s, 1.75 * (1 if lane > 0 else -1) + off, 0.0]


def ring_point(s, off=0.0):
    r, a = R + 1.75 - off, s / R   # lane -1: t = -1.75 + off, radius R - t
    return [r * math.cos(a), r * math.sin(a), 0.0]


def lane(road, s, off=None, n=-1):
    return "{road: \"%s\", lane: %d, s: %r%s}" % (
        road, n, s, "" if off is None else ", offset: %r" % off)


def world(p):
    return "[%s]" % ", ".join("%.17g" % v for v in p)


def sweep(route_a, route_b, route_c):
    """A list change, a grid axis of two routes, a random choice of one."""
    return """vsweep: 1
seed: 2
blocks:
  - list:
      - [{actor: 1, speed: 9, waypoints: [%s]}]
  - grid:
      - {actor: 1, speed: 10, waypoints: {values: [[%s], [%s]]}}
  - random:
      count: 2
      axes:
        - {actor: 1, speed: 11, waypoints: {choice: {values: [[%s]]}}}
""" % (", ".join(route_a), ", ".join(route_b), ", ".join(route_c),
       ", ".join(route_a))


class LaneWaypointsTest(TempDirCase):
    def rows(self, scn, sw):
        db = self.path("r%d.db" % len(os.listdir(self.tmp)))
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db)
        self.assertEqual(rc, 0, err)
        return (query(db, "SELECT variant_id, actor_id, step, x, y, z, yaw, "
                      "vx, vy FROM actor_state ORDER BY 1, 2, 3"),
                query(db, "SELECT variant_id, json_extract(params, "
                      "'$.actor1.waypoints') FROM variant_info ORDER BY 1"))

    def same_rows(self, the_map, routes_lane, routes_world, where):
        scn = self.write("s.yaml", SCENARIO % (
            the_map, world(where[0]), world(where[1])))
        a, pa = self.rows(scn, self.write("a.yaml", sweep(*routes_lane)))
        b, pb = self.rows(scn, self.write("b.yaml", sweep(*routes_world)))
        self.assertEqual(len(a), 5 * 61)
        self.assertEqual(len(a), len(b))
        for ra, rb in zip(a, b):
            self.assertEqual(ra[:3], rb[:3])
            for u, v in zip(ra[3:], rb[3:]):
                self.assertAlmostEqual(u, v, delta=1e-6, msg=(ra, rb))
        # the stored routes: the hand-worked points, to rounding
        for (va, ja), (vb, jb) in zip(pa, pb):
            self.assertEqual(va, vb)
            for p, q in zip(json.loads(ja), json.loads(jb)):
                for u, v in zip(p, q):
                    self.assertAlmostEqual(u, v, delta=1e-9)

    def straight(self, the_map):
        pts = [(5, None, -1), (40, 0.5, -1), (90, -0.25, -1), (60, 0, 1)]
        lane_pts = [lane("1", s, o, n) for s, o, n in pts]
        world_pts = [world(straight_point(s, o or 0.0, n)) for s, o, n in pts]
        routes = ([0, 1, 2], [0, 2], [1, 2])
        self.same_rows(the_map,
                       [[lane_pts[i] for i in r] for r in routes],
                       [[world_pts[i] for i in r] for r in routes],
                       [straight_point(0), straight_point(100)])

    def circle(self, the_map):
        ss = [(10, None), (25, 0.5), (45, -0.3)]
        lane_pts = [lane("ring", s, o) for s, o in ss]
        world_pts = [world(ring_point(s, o or 0.0)) for s, o in ss]
        routes = ([0, 1, 2], [0, 2], [1, 2])
        self.same_rows(the_map,
                       [[lane_pts[i] for i in r] for r in routes],
                       [[world_pts[i] for i in r] for r in routes],
                       [ring_point(0), ring_point(30)])

    def test_straight_opendrive(self):
        self.straight("{opendrive: %s}" % STRAIGHT)

    def test_straight_hand_written(self):
        self.straight(HAND_LINE)

    def test_circle_opendrive(self):
        self.circle("{opendrive: %s}" % self.write("ring.xodr", RING))

    def test_circle_hand_written(self):
        self.circle(HAND_RING)

    def test_start_on_hand_written_road(self):
        """start: {position: {road, lane, s}} on a hand-written circle:
        the lane's point, facing its travel direction (lane -1 runs
        counter-clockwise: heading s/R + pi/2 from +X, RoadRunner yaw
        s/R); start.s moves it along the road, keeping the seed's yaw
        (sweep.md)."""
        scn = self.write("st.yaml", ONE_BOX % (HAND_RING,
                                               lane("ring", 20, 0.25)))
        sw = self.write("sw.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, start.s: {values: [20, 70]}}\n")
        db = self.path("st.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db)
        self.assertEqual(rc, 0, err)
        got = query(db, "SELECT x, y, z, yaw FROM actor_state WHERE step = 0 "
                    "ORDER BY variant_id")
        for (x, y, z, yaw), s in zip(got, [20, 70]):
            want = ring_point(s, 0.25)
            self.assertAlmostEqual(x, want[0], delta=1e-9)
            self.assertAlmostEqual(y, want[1], delta=1e-9)
            self.assertEqual(z, 0)
            self.assertAlmostEqual(yaw, 20 / R, delta=1e-12)

    def test_polyline_bend(self):
        """On a polyline the lateral line through s turns from one
        vertex's mitre line to the next's, as the lane edges do. Road
        [[0,0],[100,0],[100,100]]: lane -1's centre (t = -1.75) meets
        itself at (101.75, -1.75), so the mitre at the bend is x = 100 -
        y on the first segment (ke = -1) and, in the second's frame
        (along +Y, left = -X), along = +lateral (ks = 1); at s = 150
        (halfway, f = 0.5) along = ks t + f (100 + (0 - ks) t) = -1.75 +
        0.5 * 101.75 = 49.125, so the point is (101.75, 49.125); at s = 50
        on the first segment (ks = 0, ke = -1, f = 0.5) along = 0.5 (100
        + (-1 - 0)(-1.75)) = 50.875: (50.875, -1.75)."""
        scn = self.write("pl.yaml", ONE_BOX % ("""
  roads:
    - id: bend
      polyline: [[0, 0, 0], [100, 0, 0], [100, 100, 2]]
      lanes: {right: 1, width: 3.5}""", lane("bend", 150)))
        sw = self.write("sw.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, start.s: {values: [150, 50]}}\n")
        db = self.path("pl.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db)
        self.assertEqual(rc, 0, err)
        got = query(db, "SELECT x, y, z FROM actor_state WHERE step = 0 "
                    "ORDER BY variant_id")
        # z rises 2 m along the second segment: 1 m halfway
        for (x, y, z), want in zip(got, [(101.75, 49.125, 1.0),
                                         (50.875, -1.75, 0.0)]):
            for u, v in zip((x, y, z), want):
                self.assertAlmostEqual(u, v, delta=1e-9)

    def errors(self, the_map, cases):
        scn = self.write("s.yaml", SCENARIO % (
            the_map, world([0, -1.75, 0]), world([100, -1.75, 0])))
        for body, msg in cases:
            with self.subTest(body=body):
                rc, _, err = run("check", scn, "--sweep",
                                 self.write("w.yaml", HEAD + body))
                self.assertEqual(rc, 2, err)
                self.assertIn(self.path(msg), err)

    def test_errors_opendrive(self):
        self.errors("{opendrive: %s}" % STRAIGHT, [
            (CHANGE % (GOOD + ", " + lane("9", 50)),
             "w.yaml:4:72: waypoints: road '9' is not in %s" % STRAIGHT),
            (CHANGE % (GOOD + ", " + lane("1", 50, n=-3)),
             "w.yaml:4:72: waypoints: road '1' has no lane -3 at s = 50 m"),
            (CHANGE % (GOOD + ", " + lane("1", 150)),
             "w.yaml:4:72: waypoints: s = 150 m is off road '1' (0 to "
             "100 m)"),
            (CHANGE % (GOOD + ", {road: \"1\", s: 50}"),
             "w.yaml:4:72: waypoints: missing required key 'lane'"),
            (CHANGE % (GOOD + ", {road: \"1\", lane: -1, s: -2}"),
             "w.yaml:4:97: waypoints: s must be >= 0, got -2"),
            (CHANGE % (GOOD + ", " + GOOD),
             "w.yaml:4:72: waypoints: point 2 equals the one before"),
            (CHANGE % GOOD,
             "w.yaml:4:42: waypoints: needs at least 2 points, got 1"),
            (AXIS % (GOOD + ", " + lane("1", 130)),
             "w.yaml:4:113: waypoints: s = 130 m is off road '1' (0 to "
             "100 m)"),
        ])

    def test_errors_hand_written(self):
        self.errors(HAND_LINE, [
            (CHANGE % (GOOD + ", " + lane("9", 50)),
             "w.yaml:4:72: waypoints: road '9' is not on the map (its "
             "roads: '1')"),
            (CHANGE % (GOOD + ", " + lane("1", 50, n=2)),
             "w.yaml:4:72: waypoints: road '1' has no lane 2 (lanes -1 to "
             "1)"),
            (CHANGE % (GOOD + ", " + lane("1", 100.5)),
             "w.yaml:4:72: waypoints: s = 100.5 m is off road '1' (0 to "
             "100 m)"),
            (AXIS % (GOOD + ", " + lane("1", 130)),
             "w.yaml:4:113: waypoints: s = 130 m is off road '1' (0 to "
             "100 m)"),
        ])
        # a circle's s runs once round, and no lane crosses its centre
        self.errors(HAND_RING, [
            (CHANGE % (lane("ring", 5) + ", " + lane("ring", 315)),
             "w.yaml:4:75: waypoints: s = 315 m is off road 'ring' (0 to "
             "314.159 m)"),
            (CHANGE % (lane("ring", 5) + ", " + lane("ring", 5, 52)),
             "w.yaml:4:75: waypoints: offset 52 m puts the point past the "
             "centre of road 'ring'"),
        ])

    def test_errors_without_map(self):
        self.errors("null", [
            (CHANGE % (GOOD + ", " + lane("1", 50)),
             "w.yaml:4:43: waypoints: lane coordinates need a map with "
             "roads (map: {roads: [...]} or {opendrive: FILE})")])


HEAD = "vsweep: 1\nblocks:\n"
CHANGE = "  - list:\n      - [{actor: 1, speed: 9, waypoints: [%s]}]\n"
AXIS = ("  - grid:\n      - {actor: 1, speed: 9, waypoints: "
        "{values: [[[0, -1.75, 0], [9, -1.75, 0]], [%s]]}}\n")
GOOD = lane("1", 5)


if __name__ == "__main__":
    unittest.main()
