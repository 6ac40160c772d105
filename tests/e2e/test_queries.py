"""The analyst's documented idioms (tools/bench/queries.sql, README
"Analysing results") are planned on the schema's own key: no EXPLAIN QUERY
PLAN of theirs builds an AUTOMATIC index (which SQLite would rebuild per
variant, the trap of issue 14), and each returns what the scenario
implies."""
import os
import shutil
import sqlite3
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

    def test_planner_reads_only_what_an_equality_picks(self):
        # With the file's statistics SQLite skips from variant to variant
        # along the key: one actor's rows, or one row per actor for a
        # step, instead of reading every row (a full SCAN without them).
        plans = {title: " | ".join(r[3] for r in query(
            self.db, "EXPLAIN QUERY PLAN " + sql)) for title, sql in idioms()}
        self.assertIn("SEARCH s USING PRIMARY KEY (ANY(variant_id) AND "
                      "ANY(actor_id) AND step=?)",
                      plans["one step across all variants"])
        for title in ("per-variant aggregate, one actor",
                      "ego-lead gap: self-join on (variant_id, step)"):
            with self.subTest(title):
                self.assertIn("SEARCH s USING PRIMARY KEY (ANY(variant_id) "
                              "AND actor_id=?)", plans[title])

    def test_events_and_logs_by_variant(self):
        # event_row and log_row are rowid tables with an index on
        # variant_id, signal_row is keyed by it: one variant's rows, or a
        # join with variant_info, is a key range per variant, never a
        # scan of every variant's rows.
        for view, index in (("event", "INDEX event_row_variant"),
                            ("log", "INDEX log_row_variant"),
                            ("actor_signal", "PRIMARY KEY")):
            for sql in ("SELECT * FROM %s WHERE variant_id = 3" % view,
                        "SELECT i.params, count(*) FROM variant_info i "
                        "JOIN %s e ON e.variant_id = i.variant_id GROUP BY "
                        "i.variant_id" % view):
                plan = " | ".join(r[3] for r in query(
                    self.db, "EXPLAIN QUERY PLAN " + sql))
                with self.subTest(sql):
                    self.assertRegex(plan, r"USING (COVERING )?%s "
                                     r"\(variant_id=\?\)" % index)
                    self.assertNotIn("AUTOMATIC", plan)

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


def stats(db):
    return sorted(query(db, "SELECT tbl, idx, stat FROM sqlite_stat1"),
                  key=lambda r: (r[0], r[1] or ""))


class Statistics(TempDirCase):
    """A finished file holds the statistics SQLite's own ANALYZE would
    write for its tables (the per-step pair, signal and log rows left
    out), worked out without reading every state row."""

    def analysed(self, db):
        copy = self.path("analysed.db")
        shutil.copyfile(db, copy)
        with sqlite3.connect(copy) as c:
            c.execute("DELETE FROM sqlite_stat1")
            c.execute("ANALYZE")
        return [r for r in stats(copy)
                if r[0] not in ("pair_row", "signal_row", "log_row")]

    def check(self, name, sweep, *extra):
        db = self.path(name + ".db")
        rc, _, err = run("run", scenario(name + ".yaml"), "--sweep",
                         scenario(sweep), "-o", db, *extra)
        self.assertEqual(rc, 0, err)
        mine = stats(db)
        self.assertIn("state", [r[0] for r in mine])
        self.assertEqual(mine, self.analysed(db))
        return mine

    def test_two_cars_every_10th_step(self):
        # 8 variants x 2 actors x 201 recorded steps.
        self.assertIn(("state", "state", "3216 402 201 1"),
                      self.check("two_cars", "two_cars_sweep.yaml",
                                 "--record-every", "10"))

    def test_tractor_and_trailer(self):
        self.check("semi_trailer", "semi_trailer_sweep.yaml",
                   "--record-every", "5")

    def test_pedestrian_and_car(self):
        self.check("pedestrian_crossing", "pedestrian_crossing_sweep.yaml",
                   "--record-every", "5")

    def test_rewritten_by_an_extending_resume(self):
        db = self.path("r.db")
        sweep = self.write("s.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                           "    - [{actor: 1, speed: 10}]\n")
        rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep", sweep,
                         "-o", db, "--record-every", "100")
        self.assertEqual(rc, 0, err)
        self.assertIn(("state", "state", "42 42 21 1"), stats(db))
        # As a file begun by the previous build, without these indexes.
        with sqlite3.connect(db) as c:
            c.execute("DROP INDEX event_row_variant")
            c.execute("DROP INDEX log_row_variant")
        with open(sweep, "a") as f:
            f.write("  - list:\n    - [{actor: 1, speed: 12}]\n")
        rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep", sweep,
                         "-o", db, "--record-every", "100", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn(("state", "state", "84 42 21 1"), stats(db))
        self.assertEqual(stats(db), self.analysed(db))
        self.assertEqual(query(db, "SELECT name FROM sqlite_schema WHERE "
                               "type = 'index' AND sql IS NOT NULL ORDER "
                               "BY name"),
                         [("event_row_variant",), ("log_row_variant",)])


if __name__ == "__main__":
    unittest.main()
