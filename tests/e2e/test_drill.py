"""Drill-down: `--variants LIST` and `--variants-from FILE --where SQL`
re-simulate only the chosen variants, fully recorded, into a new file;
every view's rows of those variants equal the full run's bit for bit
(same variant_id), and nothing else is stored."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

VIEWS = {
    "actor_state": "variant_id, actor_id, step",
    "actor_pose": "variant_id, actor_id, step",
    "wheel_pose": "variant_id, actor_id, step, wheel",
    "map_location": "variant_id, actor_id, step",
    "actor_info": "variant_id, actor_id",
    "event": "variant_id, t, actor_id, kind",
    "variant_summary": "variant_id",
    "actor_pair": "variant_id, step, actor_id, other_actor_id",
}


class DrillDown(TempDirCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._dir = tempfile.TemporaryDirectory()
        cls.args = [scenario("crossing.yaml"), "--sweep",
                    scenario("crossing_speed.yaml")]
        cls.full = os.path.join(cls._dir.name, "full.db")
        rc, _, err = run("run", *cls.args, "-o", cls.full)
        assert rc == 0, err

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def same_as_full(self, db, ids):
        self.assertEqual([r[0] for r in query(db, "SELECT variant_id FROM "
                                              "variant ORDER BY 1")], ids)
        inlist = ",".join(str(i) for i in ids)
        for view, order in VIEWS.items():
            sql = "SELECT * FROM %s WHERE variant_id IN (%s) ORDER BY %s" % (
                view, inlist, order)
            with self.subTest(view=view):
                want = query(self.full, sql)
                if view != "event":
                    self.assertTrue(want)
                self.assertEqual(query(db, sql), want)

    def test_list(self):
        n = query(self.full, "SELECT count(*) FROM variant")[0][0]
        self.assertGreaterEqual(n, 4)
        db = self.path("d.db")
        rc, _, err = run("run", *self.args, "-o", db, "--variants",
                         "%d,1-2" % (n - 1))
        self.assertEqual(rc, 0, err)
        self.same_as_full(db, [1, 2, n - 1])

    def test_merge_names_a_drill_down_file(self):
        """merge takes shards; a drill-down's file (shard record
        'variants') was refused as "not a vsweep results file": it is
        one, and the message now says what it is and what merge takes."""
        db = self.path("d.db")
        rc, _, err = run("run", *self.args, "-o", db, "--variants", "1")
        self.assertEqual(rc, 0, err)
        out = self.path("m.db")
        rc, _, err = run("merge", out, db)
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: a drill-down's file (run with --variants or "
                      "--variants-from)" % db, err)
        self.assertFalse(os.path.exists(out))

    def test_from_where(self):
        where = "max_yaw_rate >= 0 AND variant_id % 20 = 3"
        ids = [r[0] for r in query(self.full, "SELECT variant_id FROM "
                                   "variant_summary WHERE " + where +
                                   " ORDER BY 1")]
        self.assertTrue(ids)
        db = self.path("w.db")
        rc, _, err = run("run", *self.args, "-o", db, "--variants-from",
                         self.full, "--where", where)
        self.assertEqual(rc, 0, err)
        self.same_as_full(db, ids)

    def test_bad_input(self):
        for extra in (["--variants", "1,x"], ["--variants", "5-2"],
                      ["--variants", "100000"],
                      ["--variants-from", self.full, "--where", "no_col > 1"],
                      ["--where", "1"]):
            with self.subTest(extra=extra):
                rc, _, err = run("run", *self.args, "-o", self.path("b.db"),
                                 *extra)
                self.assertEqual(rc, 2, err)
                self.assertTrue(err.startswith("vsweep: "), err)
                self.assertFalse(os.path.exists(self.path("b.db")))

    def test_where_is_one_condition_of_this_sweeps_file(self):
        """Found in review: SQL after the condition was dropped silently,
        a gigabyte blob was built, and any file with a variant_summary
        table was taken for a run of this sweep."""
        import sqlite3
        fake = self.path("fake.db")
        c = sqlite3.connect(fake)
        c.execute("CREATE TABLE variant_summary (variant_id)")
        c.executemany("INSERT INTO variant_summary VALUES (?)", [(3,), (5,)])
        c.commit()
        c.close()
        other = self.path("other.db")
        rc, _, err = run("run", scenario("circle.yaml"), "-o", other)
        self.assertEqual(rc, 0, err)
        for extra, want in [
            (["--variants-from", self.full, "--where",
              "1 = 1 ) ; DELETE FROM meta ; SELECT (1"],
             "full.db: --where: not one condition (the ')' at character "
             "7 closes a '(' it did not open)"),
            # found in review: SQLite said `near ")": syntax error`
            (["--variants-from", self.full, "--where", ""],
             "full.db: --where: no condition (it is empty, or only blanks "
             "and comments)"),
            (["--variants-from", self.full, "--where", "  /* x */ -- y"],
             "full.db: --where: no condition"),
            (["--variants-from", self.full, "--where",
              "randomblob(1000000000) IS NOT NULL"],
             "full.db: --where: string or blob too big"),
            (["--variants-from", fake],
             "fake.db: --variants-from: not a vsweep results file"),
            (["--variants-from", other],
             "other.db: --variants-from: not a run of this scenario and "
             "sweep (%s differs" % scenario("crossing.yaml")),
        ]:
            with self.subTest(extra=extra):
                rc, _, err = run("run", *self.args, "-o", self.path("b.db"),
                                 *extra)
                self.assertEqual(rc, 2, err)
                self.assertIn(want, err)
                self.assertFalse(os.path.exists(self.path("b.db")))

    def ids_where(self, where):
        """The ids SQLite itself selects with the condition, on its own
        line (as a comment after it needs)."""
        return [r[0] for r in query(self.full, "SELECT variant_id FROM "
                                    "variant_summary WHERE\n" + where +
                                    "\nORDER BY 1")]

    def test_where_is_one_expression(self):
        """Found in review: the condition was pasted into "WHERE (%s)",
        so "X) UNION SELECT 7 --" simulated variant 7, which does not
        match X, and a condition with a trailing comment was refused as
        "incomplete input"."""
        dists = sorted(r[0] for r in query(self.full, "SELECT min_distance "
                                           "FROM variant_summary"))
        cut = dists[len(dists) // 2]
        for where in ["min_distance < %r -- close calls" % cut,
                      "min_distance < %r /* ) ; */ AND label IS NOT ')'"
                      % cut,
                      "(min_distance < %r) OR [collisions] > 0" % cut,
                      "variant_id IN (SELECT variant_id FROM "
                      "variant_summary WHERE \"min_distance\" < %r)" % cut]:
            with self.subTest(where=where):
                ids = self.ids_where(where)
                self.assertTrue(ids and len(ids) < len(dists), ids)
                db = self.path("w.db")
                rc, _, err = run("run", *self.args, "-o", db,
                                 "--variants-from", self.full, "--where",
                                 where)
                self.assertEqual(rc, 0, err)
                self.assertEqual([r[0] for r in query(
                    db, "SELECT variant_id FROM variant ORDER BY 1")], ids)
                os.remove(db)
        low = dists[0] - 1  # no variant is this close
        self.assertEqual(self.ids_where("min_distance < %r" % low), [])
        for where, want in [
            ("min_distance < %r) UNION SELECT 7 --" % low,
             "not one condition (the ')' at character %d closes a '(' it "
             "did not open)" % (len("min_distance < %r" % low) + 1)),
            ("min_distance < %r; SELECT 7" % low,
             "not one condition (the ';' at character %d ends the "
             "statement)" % (len("min_distance < %r" % low) + 1)),
            ("$a(') ) UNION SELECT 7 -- ')",
             "the parameter at character 1 ($) cannot be given a value"),
            ("label = 'x", "a ' opened at character 9 is never closed"),
            ("1 /* x", "a /* comment at character 3 is never closed"),
            ("(1", "1 '(' is never closed"),
        ]:
            with self.subTest(where=where):
                db = self.path("b.db")
                rc, _, err = run("run", *self.args, "-o", db,
                                 "--variants-from", self.full, "--where",
                                 where)
                self.assertEqual(rc, 2, err)
                self.assertIn("%s: --where: %s" % (self.full, want), err)
                self.assertFalse(os.path.exists(db))

    def test_not_a_results_file(self):
        """A scenario file given as --variants-from was "not a run of
        this scenario and sweep (... differs ...)"."""
        missing = self.path("missing.db")
        for src, want in [
            (self.args[0], "%s: --variants-from: not a vsweep results file"
             % self.args[0]),
            (missing, "%s: --variants-from: cannot open results file: No "
             "such file or directory" % missing),
            (self.tmp, "%s: --variants-from: cannot open results file: Is "
             "a directory" % self.tmp),
        ]:
            with self.subTest(src=src):
                db = self.path("b.db")
                rc, _, err = run("run", *self.args, "-o", db,
                                 "--variants-from", src)
                self.assertEqual(rc, 2, err)
                self.assertIn(want, err)
                self.assertNotIn("differs", err)
                self.assertFalse(os.path.exists(db))
                self.assertFalse(os.path.exists(missing))

    def test_output_is_not_the_source(self):
        """Found in review: -o night.db --overwrite with --variants-from
        night.db replaced the file it selected from by the drill-down."""
        import shutil
        night = self.path("night.db")
        shutil.copyfile(self.full, night)
        n = query(night, "SELECT count(*) FROM variant")[0][0]
        os.symlink(night, self.path("link.db"))
        os.link(night, self.path("hard.db"))
        for out in [night, os.path.join(self.tmp, ".", "night.db"),
                    self.path("link.db"), self.path("hard.db")]:
            with self.subTest(out=out):
                rc, _, err = run("run", *self.args, "--variants-from", night,
                                 "--where", "variant_id < 2", "-o", out,
                                 "--overwrite")
                self.assertEqual(rc, 2, err)
                self.assertIn("%s: -o is the --variants-from file %s"
                              % (out, night), err)
                self.assertEqual(query(night, "SELECT count(*) FROM "
                                       "variant")[0][0], n)


if __name__ == "__main__":
    unittest.main()
