"""Exact time: t of step k is the double nearest the decimal k * step, so
`WHERE t = 0.57` finds step 57 of a 0.01 s sweep (the product of two
doubles, 57 * 0.01, is 0.5700000000000001)."""
import os
import shutil
import sqlite3
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

with open(scenario("two_cars.yaml"), encoding="utf-8") as f:
    TWO_CARS = f.read()


class TimeTest(TempDirCase):
    def results(self, step, duration):
        text = TWO_CARS.replace("step: 0.01", "step: %s" % step).replace(
            "duration: 20", "duration: %s" % duration)
        scn = self.write("s.yaml", text)
        db = self.path("r%s.db" % step)
        rc, _, err = run("run", scn, "-o", db)
        self.assertEqual(rc, 0, err)
        return db

    def test_t_equals_the_decimal(self):
        db = self.results("0.01", 1)
        self.assertNotEqual(57 * 0.01, 0.57)  # why the naive product fails
        for view in ("actor_state", "actor_pose"):
            rows = query(db, "SELECT actor_id, step FROM %s WHERE t = 0.57 "
                         "ORDER BY actor_id" % view)
            self.assertEqual(rows, [(1, 57), (2, 57)], view)

    def test_every_k_up_to_1e7(self):
        # Steps rewritten to a spread of k in [0, 10^7]; every t must be
        # the correctly rounded k * step (Python's Fraction -> float).
        for step, duration in (("0.01", 1), ("0.003", 0.3), ("0.1", 10),
                               ("0.025", 2.5)):
            db = self.results(step, duration)
            with sqlite3.connect(db) as c:
                # Two passes: the key (variant, actor, step) stays unique
                # at every row (negative steps first, then the spread; the
                # map is one-to-one, 7368787 being prime to 10000001).
                c.execute("UPDATE state SET step = -1 - step")
                c.execute("UPDATE state SET step = (((-1 - step) * 4 + "
                          "actor_id) * 7368787 + 13) % 10000001")
            rows = query(db, "SELECT step, t FROM actor_state")
            self.assertGreater(len(rows), 190)
            exact = Fraction(step)
            bad = [(k, t) for k, t in rows if t != float(k * exact)]
            self.assertEqual(bad[:5], [], "step %s" % step)
            self.assertEqual(len(bad), 0)


if __name__ == "__main__":
    unittest.main()
