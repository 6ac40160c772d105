"""--record summary: a night of KPIs only. Every stored summary, actor and
event equals a full run's (same scenario and sweep), and no per-step row is
stored at all."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

SAME = [
    "SELECT * FROM variant_summary ORDER BY variant_id",
    "SELECT variant_id, status, error, params FROM variant_info "
    "ORDER BY variant_id",
    "SELECT * FROM actor_info ORDER BY variant_id, actor_id",
    "SELECT * FROM event ORDER BY variant_id, t, actor_id, kind",
]


class SummaryOnly(TempDirCase):
    def check(self, scen, sweep):
        full, summ = self.path("full.db"), self.path("summary.db")
        args = [scenario(scen), "--sweep", scenario(sweep)]
        rc, _, err = run("run", *args, "-o", full)
        self.assertEqual(rc, 0, err)
        rc, out, err = run("run", *args, "-o", summ, "--record", "summary")
        self.assertEqual(rc, 0, err)
        # the run's rate counts the actor-steps simulated, stored or not
        # (it said 0 actor-steps/s when no row was stored)
        rate = re.search(r"([0-9.e+]+) actor-steps/s", out)
        self.assertTrue(rate, out)
        self.assertGreater(float(rate.group(1)), 0, out)
        for sql in SAME:
            with self.subTest(scen=scen, sql=sql):
                want = query(full, sql)
                self.assertTrue(want)
                self.assertEqual(query(summ, sql), want)
        for table in ("state", "wheel", "signal_row"):
            self.assertEqual(query(summ, "SELECT count(*) FROM %s" % table),
                             [(0,)], table)
        self.assertEqual(query(summ, "SELECT value FROM meta WHERE "
                               "key = 'record'"), [("summary",)])

    def test_circle_with_map(self):
        # Lane KPIs (time on lane, lane changes) need the map even though
        # no map location is stored.
        self.check("circle.yaml", "circle_speed.yaml")

    def test_crossing_with_events(self):
        self.check("crossing.yaml", "crossing_speed.yaml")

    def test_summary_is_alone(self):
        rc, _, err = run("run", scenario("circle.yaml"), "-o",
                         self.path("x.db"), "--record", "summary,map")
        self.assertEqual(rc, 2)
        self.assertIn("--record", err)


if __name__ == "__main__":
    unittest.main()
