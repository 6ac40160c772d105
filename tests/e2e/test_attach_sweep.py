"""Attachments vary (docs/sweep.md): attach.heading,
attach.offset and attach.slope are sweep axes, with the scenario's rules.
A fixed crate hangs by its Front point from the car's Origin plus the
offset, turned by the heading h (degrees): on a car facing +Y at (0, y),
the crate's origin is (ox + sin(h) L/2, y + oy - cos(h) L/2, oz) and its
yaw h."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run  # noqa: E402

SCN = """vsweep: 1
step: 0.1
duration: 1
assets:
  car: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0}
  crate: {length: 2.0, width: 1.0, height: 1.0}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
  - id: 2
    asset: crate
    attach: {parent: 1, type: fixed, offset: [0, 0, 1.5], heading: 0,
             slope: 0, child_point: Front, parent_point: Origin}
"""

SWEEP = """vsweep: 1
blocks:
  - grid:
      - {actor: 2, attach.heading: {values: [0, 90, -45, 180]}}
      - {actor: 2, attach.offset: {values: [[0, 0, 1.5], [0.5, -1, 2]]}}
  - list:
      - [{actor: 2, attach.slope: 10}]
"""


class AttachSweepTest(TempDirCase):
    def test_heading_grid_places_the_child(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.write("s.yaml", SCN), "--sweep",
                         self.write("w.yaml", SWEEP), "-o", db)
        self.assertEqual(rc, 0, err)
        offsets = [(0, 0, 1.5), (0.5, -1, 2)]
        for v, (h, o) in enumerate((h, o) for h in (0, 90, -45, 180)
                                   for o in offsets):
            rows = query(db, "SELECT c.x, c.y, c.z, c.yaw, p.y FROM "
                         "actor_state c JOIN actor_state p USING "
                         "(variant_id, step) WHERE c.variant_id = ? AND "
                         "c.actor_id = 2 AND p.actor_id = 1", v)
            self.assertEqual(len(rows), 11)
            r = math.radians(h)
            for x, y, z, yaw, py in rows:
                self.assertAlmostEqual(x, o[0] + math.sin(r), places=9)
                self.assertAlmostEqual(y, py + o[1] - math.cos(r), places=9)
                self.assertAlmostEqual(z, o[2], places=9)
                self.assertAlmostEqual(math.remainder(yaw - r, 2 * math.pi),
                                       0, places=9)
        # slope 10 deg: the crate's forward axis rises at 10 deg
        m32 = query(db, "SELECT m32 FROM actor_pose WHERE variant_id = 8 "
                    "AND actor_id = 2")
        self.assertEqual(len(m32), 11)
        for (m,) in m32:
            self.assertAlmostEqual(m, math.sin(math.radians(10)), places=12)

    def test_rules(self):
        scn = self.write("s.yaml", SCN)
        for change, says in (
                ("{actor: 2, attach.heading: 200}", "in [-180, 180]"),
                ("{actor: 1, attach.heading: 10}", "is not attached")):
            sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                            "      - [%s]\n" % change)
            rc, _, err = run("check", scn, "--sweep", sw)
            self.assertEqual(rc, 2, err)
            self.assertIn(says, err)


if __name__ == "__main__":
    unittest.main()
