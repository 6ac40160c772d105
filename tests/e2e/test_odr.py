"""OpenDRIVE end to end: a sweep of a car following waypoints given in lane
coordinates on
tests/data/xodr/junction.xodr from road 1 through the junction's straight
connecting road 100 (which overlaps the left turn 101) and over road 2's
5 m hill. Stored z and the nose-up angle follow the hill's closed form
(z = 0.0015 s^2 - 0.00001 s^3, then back down), the lane sequence read
in SQL is 1 -> 100 -> 2, and lane_info carries section and type."""
import math
import os
import re
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

XODR = os.path.join(SRC, "tests", "data", "xodr", "junction.xodr")

SCENARIO = """\
vsweep: 1
name: junction and hill
step: 0.05
duration: 18
map: {opendrive: %s}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    waypoints: [{road: "1", lane: -1, s: 10},   # (-90, -1.75)
                {road: "2", lane: -1, s: 195}]  # (215, -1.75)
    speed: 16
    behaviour: {plugin: waypoints}
""" % XODR

SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 16}]
      - [{actor: 1, speed: 16.5}]
"""


def hill(s):
    """Road 2's elevation (m) and slope at s (m from its start, x = 20)."""
    if s < 100:
        return 0.0015 * s * s - 0.00001 * s ** 3, 0.003 * s - 0.00003 * s * s
    d = s - 100
    return (5 - 0.0015 * d * d + 0.00001 * d ** 3,
            -0.003 * d + 0.00003 * d * d)


def on_an_edge(x, y):
    """Distance (m) from (x, y) to the nearest lane edge of junction.xodr,
    from its geometry: roads 1, 100 and 2 along y = 0 (edges at 0, +-3.5),
    road 3 along x = 10 (edges 10, 13.5) from y = 10, the turn 101 round
    (0, 10) (radii 10, 13.5)."""
    d = [abs(y - e) for e in (0, 3.5, -3.5) if -100 <= x <= 220]
    if y >= 10:
        d += [abs(x - e) for e in (10, 13.5)]
    if x >= -1e-6 and y <= 10 + 1e-6:
        d += [abs(math.hypot(x, y - 10) - r) for r in (10, 13.5)]
    return min(d)


PARKED = """\
vsweep: 1
name: parked on the hill
step: 0.1
duration: 0.2
map: {opendrive: %s}
assets:
  box: {length: 4, width: 2, height: 1.5}
actors:
  - id: 1
    asset: box
    start: {position: {road: "2", lane: -1, s: 20}}
""" % XODR

PARKED_SWEEP = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, start.s: {from: 20, to: 180, step: 40}}
      - {actor: 1, start.offset: {values: [0, 0.5]}}
"""


class OpenDriveTest(TempDirCase):
    def test_start_s_and_offset_axes(self):
        db = self.path("p.db")
        rc, _, err = run("run", self.write("p.yaml", PARKED), "--sweep",
                         self.write("pw.yaml", PARKED_SWEEP), "-o", db)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT v.variant_id, json_extract(v.params, "
                     "'$.actor1.start.s'), json_extract(v.params, "
                     "'$.actor1.start.offset'), s.x, s.y, s.z, s.yaw "
                     "FROM variant_info v JOIN actor_state s USING "
                     "(variant_id) WHERE s.step = 0 ORDER BY v.variant_id")
        self.assertEqual(len(rows), 10)
        for k, (v, s, off, x, y, z, yaw) in enumerate(rows):
            self.assertEqual((s, off), (20 + 40 * (k // 2), 0.5 * (k % 2)))
            self.assertAlmostEqual(x, 20 + s, delta=1e-9)
            self.assertAlmostEqual(y, -1.75 + off, delta=1e-9)
            self.assertAlmostEqual(z, hill(s)[0], delta=1e-6)
            self.assertAlmostEqual(yaw, -math.pi / 2, delta=1e-12)
        # off the road's end, and on an actor started in x y z: those
        # variants fail, saying why
        for scn, sweep, why in [
                (PARKED, PARKED_SWEEP.replace("to: 180", "to: 220"),
                 "bad.yaml:4:20: actor 1: start.s: s = 220 m is off road "
                 "'2' (0 to 200 m)"),
                (PARKED.replace('{road: "2", lane: -1, s: 20}',
                                "[40, -1.75, 0]"), PARKED_SWEEP,
                 "bad.yaml:4:20: actor 1: start.s needs a start position "
                 "in lane coordinates ({road, lane, s, offset})")]:
            bad = self.path("bad.db")
            if os.path.exists(bad):
                os.remove(bad)
            rc, _, err = run("run", self.write("bad_s.yaml", scn), "--sweep",
                             self.write("bad.yaml", sweep), "-o", bad)
            self.assertEqual(rc, 1, err)
            errors = {e for (e,) in query(bad, "SELECT error FROM "
                                          "variant_info WHERE status = "
                                          "'failed'")}
            self.assertEqual(errors, {self.path(why)})

    def test_junction_and_hill(self):
        db = self.path("o.db")
        rc, _, err = run("run", self.write("o.yaml", SCENARIO), "--sweep",
                         self.write("w.yaml", SWEEP), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(
            query(db, "SELECT road, section, lane, type FROM lane_info "
                  "ORDER BY road, lane"),
            [("1", 0, -1, "driving"), ("1", 0, 1, "driving"),
             ("100", 0, -1, "driving"), ("101", 0, -1, "driving"),
             ("2", 0, -1, "driving"), ("2", 0, 1, "driving"),
             ("3", 0, -1, "driving")])
        for v in (0, 1):
            rows = query(db, "SELECT s.x, s.y, s.z, s.roll, s.pitch, "
                         "l.road, l.lane, m.is_on_lane FROM actor_state s "
                         "JOIN map_location m USING (variant_id, actor_id, "
                         "step) JOIN lane_info l USING (lane_id) WHERE "
                         "variant_id = ? ORDER BY s.step", v)
            seq, checked = [], 0
            for x, y, z, roll, pitch, road, lane, on in rows:
                self.assertEqual(on, 1, (x, y))
                self.assertEqual(lane, -1)
                if not seq or seq[-1] != road:
                    seq.append(road)
                if x > 20.5:  # on road 2: the hill under the origin
                    want, slope = hill(x - 20)
                    self.assertAlmostEqual(z, want, delta=1e-3)
                    # R = Rz(yaw) Rx(pitch) Ry(roll): pitch lifts the
                    # nose by the slope ahead, nothing across
                    self.assertAlmostEqual(pitch, math.atan(slope),
                                           delta=1e-4)
                    self.assertAlmostEqual(roll, 0, delta=1e-9)
                    checked += 1
                elif x < -0.5:
                    self.assertEqual((z, roll, pitch), (0, 0, 0))
            self.assertEqual(seq, ["1", "100", "2"])
            self.assertGreater(checked, 100)
            # the pose's forward axis (its second column) rises at the
            # hill's slope: z component slope / sqrt(1 + slope^2)
            for x, m32 in query(db, "SELECT s.x, p.m32 FROM actor_state s "
                                "JOIN actor_pose p USING (variant_id, "
                                "actor_id, step) WHERE variant_id = ? AND "
                                "s.x > 20.5", v):
                _, slope = hill(x - 20)
                self.assertAlmostEqual(m32, slope / math.hypot(1, slope),
                                       delta=1e-4)
            # over the top of the hill
            self.assertGreater(max(r[2] for r in rows), 4.99)

        # vsweep plot draws the lanes: two edges each, on the true edges
        out = self.path("o.svg")
        rc, _, err = run("plot", db, "-o", out)
        self.assertEqual(rc, 0, err)
        svg = "{http://www.w3.org/2000/svg}"
        edges = [p for p in ET.parse(out).getroot().iter(svg + "path")
                 if p.get("class") == "lane-boundary"]
        self.assertEqual(len(edges), 14)
        for p in edges:
            v = [float(t) for t in re.findall(r"[-+0-9.eE]+", p.get("d"))]
            for x, y in zip(v[0::2], v[1::2]):
                self.assertLess(on_an_edge(x, y), 2e-3, (x, y))


if __name__ == "__main__":
    unittest.main()
