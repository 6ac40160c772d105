"""Waypoints changes in lane coordinates (sweep.md, "Properties"): a
sweep's `waypoints` (a list change, grid values, random choices) may give
points as {road, lane, s, offset} on the scenario's OpenDRIVE map. Such a
sweep stores the same rows as the same sweep written with the world points
worked out by hand: on tests/data/xodr/straight.xodr (road "1" along +X,
lanes 1 and -1 3.5 m wide, so lane -1's centre is y = -1.75) the point
(s, offset) of lane -1 is (s, -1.75 + offset, 0); on a full circle of
radius R = 50 m (written here; the reference line starts at (R, 0)
heading +Y, the left lanes inside) lane -1's centre at s is at radius
R + 1.75 and angle s / R. Unknown roads and lanes and an s off the road
are refused at FILE:LINE:COL."""
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

SCENARIO = """vsweep: 1
step: 0.05
duration: 3
map: {opendrive: %s}
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

    def same_rows(self, xodr, routes_lane, routes_world, where):
        scn = self.write("s.yaml", SCENARIO % (
            xodr, world(where[0]), world(where[1])))
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

    def test_straight_road(self):
        pts = [(5, None, -1), (40, 0.5, -1), (90, -0.25, -1), (60, 0, 1)]
        lane_pts = [lane("1", s, o, n) for s, o, n in pts]
        world_pts = [world(straight_point(s, o or 0.0, n)) for s, o, n in pts]
        routes = ([0, 1, 2], [0, 2], [1, 2])
        self.same_rows(STRAIGHT,
                       [[lane_pts[i] for i in r] for r in routes],
                       [[world_pts[i] for i in r] for r in routes],
                       [straight_point(0), straight_point(100)])

    def test_circle_road(self):
        xodr = self.write("ring.xodr", RING)
        ss = [(10, None), (25, 0.5), (45, -0.3)]
        lane_pts = [lane("ring", s, o) for s, o in ss]
        world_pts = [world(ring_point(s, o or 0.0)) for s, o in ss]
        routes = ([0, 1, 2], [0, 2], [1, 2])
        self.same_rows(xodr,
                       [[lane_pts[i] for i in r] for r in routes],
                       [[world_pts[i] for i in r] for r in routes],
                       [ring_point(0), ring_point(30)])

    def test_errors(self):
        scn = self.write("s.yaml", SCENARIO % (
            STRAIGHT, world([0, -1.75, 0]), world([100, -1.75, 0])))
        head = "vsweep: 1\nblocks:\n"
        change = "  - list:\n      - [{actor: 1, speed: 9, waypoints: [%s]}]\n"
        axis = ("  - grid:\n      - {actor: 1, speed: 9, waypoints: "
                "{values: [[[0, -1.75, 0], [9, -1.75, 0]], [%s]]}}\n")
        good = lane("1", 5)
        cases = [
            (change % (good + ", " + lane("9", 50)),
             "w.yaml:4:72: waypoints: road '9' is not in %s" % STRAIGHT),
            (change % (good + ", " + lane("1", 50, n=-3)),
             "w.yaml:4:72: waypoints: road '1' has no lane -3 at s = 50 m"),
            (change % (good + ", " + lane("1", 150)),
             "w.yaml:4:72: waypoints: s = 150 m is off road '1' (0 to "
             "100 m)"),
            (change % (good + ", {road: \"1\", s: 50}"),
             "w.yaml:4:72: waypoints: missing required key 'lane'"),
            (change % (good + ", {road: \"1\", lane: -1, s: -2}"),
             "w.yaml:4:97: waypoints: s must be >= 0, got -2"),
            (change % (good + ", " + good),
             "w.yaml:4:72: waypoints: point 2 equals the one before"),
            (change % good,
             "w.yaml:4:42: waypoints: needs at least 2 points, got 1"),
            (axis % (good + ", " + lane("1", 130)),
             "w.yaml:4:113: waypoints: s = 130 m is off road '1' (0 to "
             "100 m)"),
        ]
        for body, msg in cases:
            with self.subTest(body=body):
                rc, _, err = run("check", scn, "--sweep",
                                 self.write("w.yaml", head + body))
                self.assertEqual(rc, 2, err)
                self.assertIn(self.path(msg) if msg.startswith("w.yaml")
                              else msg, err)
        # without an OpenDRIVE map there are no lane coordinates
        plain = self.write("p.yaml", (SCENARIO % (
            STRAIGHT, world([0, -1.75, 0]), world([100, -1.75, 0])))
            .replace("map: {opendrive: %s}\n" % STRAIGHT, ""))
        rc, _, err = run("check", plain, "--sweep",
                         self.write("w.yaml", head + change % (
                             good + ", " + lane("1", 50))))
        self.assertEqual(rc, 2, err)
        self.assertIn("w.yaml:4:43: waypoints: lane coordinates need an "
                      "OpenDRIVE map (map: {opendrive: FILE})", err)


if __name__ == "__main__":
    unittest.main()
