"""A route is 3-D (docs/sweep.md): an actor following waypoints
has the z of its path, linear in horizontal distance between waypoints,
and the pitch of the path's slope (about its X axis, nose up positive),
so its pose's forward axis climbs the ramp."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run  # noqa: E402

SCN = """vsweep: 1
step: 0.01
duration: 30
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0}
actors:
  - id: 1
    asset: sedan
    waypoints: [[0, 0, 0], [100, 0, 5], [200, 0, 5], [260, 0, 2]]
    speed: 10
    behaviour: {plugin: waypoints}
"""


class Route3dTest(TempDirCase):
    def test_z_and_pitch_follow_the_ramp(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.write("s.yaml", SCN), "-o", db)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT s.x, s.y, s.z, s.pitch, s.roll, p.m32, "
                     "p.m22 FROM actor_state s JOIN actor_pose p USING "
                     "(variant_id, actor_id, step)")
        legs = [(0, 100, 0, 5), (100, 200, 5, 5), (200, 260, 5, 2)]
        seen = [0, 0, 0]
        for x, y, z, pitch, roll, m32, m22 in rows:
            for n, (x0, x1, z0, z1) in enumerate(legs):
                if x0 + 0.5 < x < x1 - 0.5:
                    slope = (z1 - z0) / (x1 - x0)
                    self.assertAlmostEqual(y, 0, delta=1e-6)
                    self.assertAlmostEqual(
                        z, z0 + slope * (x - x0), delta=1e-3)
                    self.assertAlmostEqual(pitch, math.atan(slope),
                                           places=12)
                    self.assertEqual(roll, 0)
                    # forward axis (0, 1, 0) of the pose: rises at slope
                    self.assertAlmostEqual(m32, math.sin(math.atan(slope)),
                                           places=12)
                    seen[n] += 1
        self.assertTrue(all(c > 100 for c in seen), seen)
        last = query(db, "SELECT x, z FROM actor_state ORDER BY step DESC "
                     "LIMIT 1")[0]
        self.assertAlmostEqual(last[0], 260, delta=0.05)
        self.assertAlmostEqual(last[1], 2, delta=1e-3)


if __name__ == "__main__":
    unittest.main()
