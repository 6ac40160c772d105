"""`vsweep check` estimates the results file's size (and the run's time)
for the chosen recording from a calibration run of two variants; the
estimate is within 25 % of the file a real run then writes, for three
scenarios and two recordings."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, run, scenario  # noqa: E402

CASES = [
    ("circle.yaml", "circle_speed.yaml", []),
    ("two_cars.yaml", "two_cars_sweep.yaml", ["--record-every", "5"]),
    ("crossing.yaml", "crossing_speed.yaml", ["--record", "state,map"]),
]


class Estimate(TempDirCase):
    def test_within_25_percent(self):
        for scen, sweep, rec in CASES:
            with self.subTest(scen=scen):
                args = [scenario(scen), "--sweep", scenario(sweep), *rec]
                rc, out, err = run("check", *args)
                self.assertEqual(rc, 0, err)
                m = re.search(r"estimate \(--record ([^,]+(?:,[a-z]+)*), "
                              r"--record-every (\d+)\): ([0-9.e+]+) MB, "
                              r"[0-9.]+ bytes per actor-step; "
                              r"([0-9.e+-]+) s", out)
                self.assertIsNotNone(m, out)
                est = float(m.group(3)) * 1e6
                self.assertGreater(float(m.group(4)), 0)
                db = self.path(scen + ".db")
                rc, _, err = run("run", *args, "-o", db)
                self.assertEqual(rc, 0, err)
                real = os.path.getsize(db)
                self.assertLess(abs(est - real) / real, 0.25, (est, real))


if __name__ == "__main__":
    unittest.main()
