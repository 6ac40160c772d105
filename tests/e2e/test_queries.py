"""The analyst's documented idioms (tools/bench/queries.sql, README
"Analysing results") are planned on the schema's own key: no EXPLAIN QUERY
PLAN of theirs builds an AUTOMATIC index (which SQLite would rebuild per
variant, the trap of issue 14), and each returns what the scenario
implies."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run, scenario  # noqa: E402


def idioms():
    """(title, SQL) of every query of tools/bench/queries.sql."""
    sys.path.insert(0, os.path.join(SRC, "tools", "bench"))
    import queries
    return queries.queries()


class QueryPlans(TempDirCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._dir = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls._dir.name, "r.db")
        rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep",
                         scenario("two_cars_sweep.yaml"), "-o", cls.db,
                         "--record-every", "10", "--record", "state,map")
        assert rc == 0, err

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_no_automatic_index(self):
        qs = idioms()
        self.assertGreaterEqual(len(qs), 9)
        for title, sql in qs:
            plan = " | ".join(r[3] for r in
                              query(self.db, "EXPLAIN QUERY PLAN " + sql))
            with self.subTest(title):
                self.assertNotIn("AUTOMATIC", plan, plan)

    def test_grouped_idioms_read_in_key_order(self):
        # state is kept in (variant_id, actor_id, step) order: grouping by
        # variant, joining variant_info on it, or windows over one actor's
        # steps read the rows as stored, with no sort (no TEMP B-TREE, as
        # format 3's params join needed); the params join reads only the
        # one actor's key range of each variant.
        plans = {title: " | ".join(r[3] for r in query(
            self.db, "EXPLAIN QUERY PLAN " + sql)) for title, sql in idioms()}
        for title in ("per-variant aggregate",
                      "per-variant aggregate, one actor",
                      "params join, one actor", "params join, all actors",
                      "lane changes from map_location"):
            with self.subTest(title):
                self.assertNotIn("TEMP B-TREE", plans[title])
        self.assertIn("SEARCH s USING PRIMARY KEY (variant_id=? AND "
                      "actor_id=?)", plans["params join, one actor"])
        self.assertIn("SEARCH s USING PRIMARY KEY (variant_id=? AND "
                      "actor_id=? AND step=?)",
                      plans["ego-lead gap: self-join on (variant_id, step)"])

    def test_actor_filter_counts(self):
        # 20 s at 0.01 s recorded every 10th step: steps 0, 10, .. 2000,
        # 201 per actor and variant.
        n = query(self.db, "SELECT count(*) FROM variant")[0][0]
        rows = query(self.db, "SELECT variant_id, count(*) FROM actor_state "
                     "WHERE actor_id = 1 GROUP BY variant_id")
        self.assertEqual(len(rows), n)
        self.assertTrue(all(c == 201 for _, c in rows), rows[:3])

    def test_gap_self_join(self):
        # The ego starts at (57.3, 0), the lead at (0, -100): gap at t = 0.
        gap = query(self.db, "SELECT sqrt((a.x - b.x) * (a.x - b.x) + "
                    "(a.y - b.y) * (a.y - b.y)) FROM actor_state a JOIN "
                    "actor_state b ON b.variant_id = a.variant_id AND "
                    "b.step = a.step WHERE a.actor_id = 1 AND b.actor_id = 2 "
                    "AND a.step = 0 AND a.variant_id = 0")[0][0]
        self.assertAlmostEqual(gap, (57.3 ** 2 + 100 ** 2) ** 0.5, places=6)


if __name__ == "__main__":
    unittest.main()
