"""Impossible bodies are refused (DESIGN.md, "Variations"): a random
draw of the sedan's length (4.8 m, wheelbase 3 m, overhangs 0.9 m; a
length change keeps the axles and moves the rear bumper) fails its
variant when the length is not longer than the wheelbase, or when the
rear axle falls outside the body (rear overhang 0.9 + length - 4.8 < 0),
and runs otherwise."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

SWEEP = """vsweep: 1
seed: 11
blocks:
  - random:
      count: 30
      axes:
        - {actor: 2, dimension.length: {uniform: [2, 6]}}
"""


class BodiesTest(TempDirCase):
    def test_random_lengths(self):
        db = self.path("r.db")
        rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep",
                         self.write("w.yaml", SWEEP), "-o", db)
        self.assertIn(rc, (0, 1), err)
        rows = query(db, "SELECT status, error, params FROM variant_info")
        self.assertEqual(len(rows), 30)
        kinds = set()
        for status, error, params in rows:
            if status == "done":
                (change,) = json.loads(params).values()  # keyed by name
                self.assertGreaterEqual(change["dimension"]["length"], 3.9)
                kinds.add("ok")
                continue
            # a variant that cannot be built stores no params: its
            # reason names the drawn length
            m = re.search(r"actor 2: length \(([0-9.]+) m\) must be longer "
                          r"than the wheelbase \(3 m\)", error)
            if m:
                self.assertLessEqual(float(m.group(1)), 3.0)
                kinds.add("wheelbase")
                continue
            m = re.search(r"actor 2: axle 2 \(y = (-[0-9.]+) m\) lies "
                          r"outside the body \(length ([0-9.]+) m\): an "
                          r"axle must be inside the body", error)
            self.assertTrue(m, error)
            length = float(m.group(2))
            self.assertTrue(3.0 < length < 3.9, error)
            # the rear axle stays 3.9 m behind the front bumper
            self.assertAlmostEqual(float(m.group(1)), length / 2 - 3.9,
                                   delta=1e-4)
            kinds.add("axle")
        self.assertEqual(kinds, {"wheelbase", "axle", "ok"})


if __name__ == "__main__":
    unittest.main()
