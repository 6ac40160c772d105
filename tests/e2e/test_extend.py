"""Extending a finished sweep: `--resume` with a sweep file that appends a
block and raises a random block's count runs just the new variants, and
the file then equals a single run of the extended sweep, view by view, its
sweep record (text, count, file name) the new sweep's; a sweep that
changes a stored variant, its label included, or has fewer variants than
the file's sweep is refused, the file left as it was."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

BASE = """\
vsweep: 1
seed: 3
blocks:
  - list:
      - [{actor: 1, speed: 8}]
      - [{actor: 1, speed: 12}]
  - random:
      count: %d
      axes:
        - {actor: 2, speed: {uniform: [5, 25]}}
"""
MORE = """\
  - list:
      - [{actor: 1, speed: 9}]
"""
VIEWS = {
    "actor_state": "variant_id, actor_id, step",
    "wheel_pose": "variant_id, actor_id, step, wheel",
    "actor_info": "variant_id, actor_id",
    "event": "variant_id, t, actor_id, kind",
    "variant_summary": "variant_id",
    "variant_info": "variant_id",
}


class Extend(TempDirCase):
    def go(self, sweep, db, *extra):
        return run("run", scenario("two_cars.yaml"), "--sweep", sweep, "-o",
                   db, "--record-every", "20", *extra)

    def test_extended_equals_single_run(self):
        small = self.write("small.yaml", BASE % 3)
        big = self.write("big.yaml", BASE % 5 + MORE)
        ext, one = self.path("ext.db"), self.path("one.db")
        rc, _, err = self.go(small, ext)
        self.assertEqual(rc, 0, err)
        rc, out, err = self.go(big, ext, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("3 done", out)
        self.assertIn("5 already stored", out)
        rc, _, err = self.go(big, one)
        self.assertEqual(rc, 0, err)
        for view, order in VIEWS.items():
            cols = "*" if view != "variant_info" else \
                "variant_id, status, error, params"
            sql = "SELECT %s FROM %s ORDER BY %s" % (cols, view, order)
            with self.subTest(view=view):
                want = query(one, sql)
                self.assertTrue(want or view == "event")
                self.assertEqual(query(ext, sql), want)
        # the sweep's record, its file's name included, is the new one's
        meta = "SELECT key, value FROM meta WHERE key IN ('sweep_text', " \
               "'variant_count', 'sweep_path') ORDER BY key"
        self.assertEqual(query(ext, meta), query(one, meta))
        self.assertIn(("sweep_path", big), query(ext, meta))

    def test_changed_variant_refused(self):
        small = self.write("small.yaml", BASE % 3)
        other = self.write("other.yaml",
                           (BASE % 3).replace("speed: 12", "speed: 13"))
        db = self.path("r.db")
        rc, _, err = self.go(small, db)
        self.assertEqual(rc, 0, err)
        before = query(db, "SELECT variant_id, params FROM variant")
        rc, _, err = self.go(other, db, "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("cannot resume: its sweep_text differs", err)
        self.assertIn("variant 1", err)
        self.assertEqual(query(db, "SELECT variant_id, params FROM variant"),
                         before)
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = "
                               "'sweep_text'"), [(BASE % 3,)])

    def unchanged(self, db):
        """The file as its own sweep left it: variants, labels, record."""
        return (query(db, "SELECT variant_id, params, label FROM variant "
                      "ORDER BY 1"),
                query(db, "SELECT key, value FROM meta WHERE key IN "
                      "('sweep_text', 'variant_count', 'sweep_path') "
                      "ORDER BY key"))

    def test_relabelled_entry_refused(self):
        # Same params, another label: a single run of the new sweep
        # stores the new label, so the stored one is not that variant
        # (it was accepted, and kept the old label).
        text = """\
vsweep: 1
blocks:
  - list:
      - {label: fast, changes: [{actor: 1, speed: 12}]}
      - {label: slow, changes: [{actor: 1, speed: 8}]}
      - [{actor: 1, speed: 10}]
"""
        small = self.write("small.yaml", text)
        db = self.path("r.db")
        rc, _, err = self.go(small, db)
        self.assertEqual(rc, 0, err)
        before = self.unchanged(db)
        for name, new in [("renamed", text.replace("slow", "gentle")),
                          ("named", text.replace(
                              "[{actor: 1, speed: 10}]",
                              "{label: mid, changes: [{actor: 1, "
                              "speed: 10}]}")),
                          ("unnamed", text.replace(
                              "{label: fast, changes: [{actor: 1, speed: "
                              "12}]}", "[{actor: 1, speed: 12}]"))]:
            with self.subTest(name):
                other = self.write(name + ".yaml", new + MORE)
                rc, _, err = self.go(other, db, "--resume")
                self.assertEqual(rc, 2, err)
                self.assertIn("cannot resume: its sweep_text differs", err)
                want = {"renamed": "variant 1 is not the same: its label "
                                   "is 'gentle', the file's 'slow'",
                        "named": "variant 2 is not the same: its label is "
                                 "'mid', the file's none",
                        "unnamed": "variant 0 is not the same: its label "
                                   "is none, the file's 'fast'"}[name]
                self.assertIn(want, err)
                self.assertEqual(self.unchanged(db), before)
        # The same labels, a block appended: extended, labels kept.
        rc, out, err = self.go(self.write("more.yaml", text + MORE), db,
                               "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("1 done", out)
        self.assertEqual(query(db, "SELECT label FROM variant ORDER BY "
                               "variant_id"),
                         [("fast",), ("slow",), (None,), (None,)])

    def test_fewer_variants_refused(self):
        # A random block's count lowered: every variant of the shorter
        # sweep is the file's, but the file's sweep had more; it said
        # "variant 3 is not the same", of a sweep without a variant 3.
        small = self.write("small.yaml", BASE % 3)
        db = self.path("r.db")
        rc, _, err = self.go(small, db)
        self.assertEqual(rc, 0, err)
        before = self.unchanged(db)
        for count in (1, 2):
            fewer = self.write("fewer%d.yaml" % count, BASE % count)
            rc, _, err = self.go(fewer, db, "--resume")
            self.assertEqual(rc, 2, err)
            self.assertIn("cannot resume: its sweep_text differs from this "
                          "run's and does not extend it (the new sweep has "
                          "%d variants, the file's 5)" % (2 + count), err)
            self.assertNotIn("is not the same", err)
            self.assertEqual(self.unchanged(db), before)

    def test_check_refuses_what_run_refuses(self):
        # docs/cli.md: check refuses with --resume what run would refuse.
        # It took every sweep that changed the sweep_text: one whose
        # random bounds changed, one that labels a stored variant, one
        # that raises the count of a random block with a block after it
        # (the index of every variant after it moves), each refused by
        # run with "variant N is not the same".
        big = BASE % 5 + MORE  # variants 0-1 list, 2-6 random, 7 list
        db = self.path("r.db")
        rc, _, err = self.go(self.write("small.yaml", BASE % 3), db)
        self.assertEqual(rc, 0, err)
        rc, _, err = self.go(self.write("big.yaml", big), db, "--resume")
        self.assertEqual(rc, 0, err)
        before = self.unchanged(db)
        cases = [
            ("bounds", big.replace("[5, 25]", "[5, 26]"), "variant 2 is not "
             "the same)"),
            ("label", big.replace("- [{actor: 1, speed: 8}]",
                                  "- {label: slow, changes: [{actor: 1, "
                                  "speed: 8}]}"),
             "variant 0 is not the same: its label is 'slow', the file's "
             "none)"),
            ("count", BASE % 6 + MORE, "variant 7 is not the same)"),
        ]
        for name, text, want in cases:
            with self.subTest(name):
                sweep = self.write(name + ".yaml", text)
                rc, _, cerr = run("check", scenario("two_cars.yaml"),
                                  "--sweep", sweep, "-o", db,
                                  "--record-every", "20", "--resume")
                self.assertEqual(rc, 2, cerr)
                self.assertIn("%s: cannot resume: its sweep_text differs "
                              "from this run's and does not extend it (%s"
                              % (db, want), cerr)
                self.assertEqual(self.unchanged(db), before)
                rc, _, rerr = self.go(sweep, db, "--resume")
                self.assertEqual(rc, 2, rerr)
                self.assertEqual(cerr.strip().splitlines()[-1],
                                 rerr.strip().splitlines()[-1])
                self.assertEqual(self.unchanged(db), before)
        # a sweep that only adds variants: taken, as run takes it
        more = self.write("more.yaml", big + MORE)
        rc, out, err = run("check", scenario("two_cars.yaml"), "--sweep",
                           more, "-o", db, "--record-every", "20",
                           "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("variants: 9", out)
        self.assertEqual(self.unchanged(db), before)

    def test_invalid_draws_keep_their_params_and_extend(self):
        # two_cars' sedan has its rear axle 0.9 + 3.0 = 3.9 m behind the
        # front bumper: a body shorter than that fails the variant. The
        # failed variants store what they drew (they stored {}), and a
        # file holding them can still be extended (it was refused: the
        # check rebuilt each stored variant and took a failed one for a
        # changed one).
        text = """\
vsweep: 1
seed: 11
blocks:
  - random:
      count: %d
      axes:
        - {actor: 1, dimension.length: {uniform: [3.0, 5.0]}}
"""
        small = self.write("small.yaml", text % 8)
        big = self.write("big.yaml", text % 12)
        ext, one = self.path("ext.db"), self.path("one.db")
        rc, _, err = self.go(small, ext)
        self.assertEqual(rc, 1, err)  # some variants failed
        rows = query(ext, "SELECT status, error, json_extract(params, "
                     "'$.actor1.dimension.length') FROM variant_info")
        self.assertEqual(len(rows), 8)
        failed = [r for r in rows if r[0] == "failed"]
        self.assertTrue(failed and len(failed) < 8, rows)
        for status, error, length in rows:
            self.assertIsNotNone(length, rows)
            self.assertEqual(status == "failed", length < 3.9, rows)
            if status == "failed":
                self.assertIn("outside the body", error)
        rc, out, err = self.go(big, ext, "--resume")
        self.assertIn("8 already stored", out, err)
        rc1, _, err = self.go(big, one)
        self.assertEqual(rc, rc1, err)
        # errors name the sweep file each variant was made from
        sql = "SELECT variant_id, status, replace(error, '%s', 'S'), " \
              "params FROM variant_info ORDER BY variant_id"
        got = [r for r in query(ext, sql % small) if r[0] < 8] + \
            [r for r in query(ext, sql % big) if r[0] >= 8]
        self.assertEqual(got, query(one, sql % big))


if __name__ == "__main__":
    unittest.main()
