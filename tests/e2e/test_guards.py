"""Guards found in review: results files are never clobbered or changed by
mistake, oversized variants and meaningless changes are refused as input
errors, objects without axles stand still, I/O failures exit 3."""
import hashlib
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

CIRCLE = scenario("circle.yaml")

OBJECT = """\
vsweep: 1
step: 0.1
duration: 3
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
  box: {length: 1, width: 1, height: 1}
actors:
  - id: 1
    asset: car
    start: {position: [0, -20, 0], yaw: 0}
    speed: 10
  - id: 2
    asset: box
    start: {position: [0, 0, 0], yaw: 0}
"""


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class GuardTest(TempDirCase):
    def test_resume_leaves_a_foreign_sqlite_file_as_it_was(self):
        db = self.path("user.db")
        c = sqlite3.connect(db)
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
        before = digest(db)
        rc, _, err = run("run", CIRCLE, "-o", db, "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("not a vsweep results file", err)
        self.assertEqual(digest(db), before)
        self.assertFalse(os.path.exists(db + "-wal"))

    def test_output_in_a_missing_directory_is_an_io_failure(self):
        rc, _, err = run("run", CIRCLE, "-o", self.path("no/dir/r.db"))
        self.assertEqual(rc, 3)
        self.assertIn("cannot create", err)

    def test_variant_too_long_to_hold_is_run(self):
        """10^6 s: held whole, its rows would not fit in memory, and such
        a variant used to be refused. Its rows now go to the file while it
        runs (test_stream.py): it runs, here until --variant-timeout ends
        it, and keeps the rows it made, as a variant failed that way
        does."""
        with open(CIRCLE, encoding="utf-8") as f:
            text = f.read()
        big = self.write("long.yaml", text.replace("duration: 30 ",
                                                   "duration: 1000000 "))
        db = self.path("r.db")
        rc, _, err = run("run", big, "-o", db, "-j", "1",
                         "--variant-timeout", "1")
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM variant")
        self.assertEqual(status, 2)
        self.assertIn("exceeded the wall-clock limit of 1 s", error)
        n = query(db, "SELECT count(*) FROM state")[0][0]
        self.assertGreater(n, 0)
        self.assertEqual(query(db, "SELECT min(step), max(step), count(*) "
                               "FROM state"), [(0, n - 1, n)])

    def test_plot_never_replaces_a_results_file(self):
        a, b = self.path("a.db"), self.path("b.db")
        for db in (a, b):
            rc, _, err = run("run", CIRCLE, "-o", db)
            self.assertEqual(rc, 0, err)
        before = digest(b)
        for out in (a, b):
            rc, _, err = run("plot", a, "-o", out)
            self.assertEqual(rc, 2, err)
        self.assertEqual(digest(b), before)
        self.assertEqual(query(a, "SELECT count(*) FROM variant"), [(1,)])

    def test_outputs_never_replace_inputs_or_results(self):
        """-o naming an input, a results file or a directory: refused,
        and nothing changed (a run with --overwrite deleted its own
        scenario, export wrote YAML over a results file)."""
        scen = self.write("seed.yaml", open(CIRCLE, encoding="utf-8").read())
        sweep = self.write("s.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                           "      - [{actor: 1, speed: 7}]\n")
        db = self.path("r.db")
        rc, _, err = run("run", scen, "--sweep", sweep, "-o", db)
        self.assertEqual(rc, 0, err)
        os.mkdir(self.path("dir"))
        kept = {p: digest(p) for p in (scen, sweep, db)}
        cases = [
            (("run", scen, "-o", scen, "--overwrite"),
             "seed.yaml: is not a results file (not an SQLite file, or one "
             "without vsweep's meta table); --overwrite replaces only "
             "results files"),
            (("run", scen, "-o", sweep, "--overwrite"), "is not a results"),
            (("run", scen, "-o", self.path("dir")),
             "dir: is a directory; -o names the results file"),
            (("run", scen, "-o", self.path("dir"), "--overwrite"),
             "is a directory"),
            (("run", scen, "-o", self.path("dir"), "--resume"),
             "is a directory"),
            (("export", scen, "--sweep", sweep, "--variant", "0", "-o", db),
             "r.db: is an SQLite file; it is not replaced"),
            (("export", scen, "--sweep", sweep, "--variant", "0", "-o", scen),
             "seed.yaml: is the scenario being read"),
            (("export", scen, "--sweep", sweep, "--variant", "0", "-o",
              sweep), "s.yaml: is the sweep file being read"),
            (("export", scen, "--sweep", sweep, "--variant", "0", "-o",
              self.path("dir")), "dir: is a directory"),
        ]
        for args, want in cases:
            with self.subTest(args=args):
                rc, _, err = run(*args)
                self.assertEqual(rc, 2, err)
                self.assertIn(want, err)
                self.assertNotIn("Resume with", err)
        self.assertEqual({p: digest(p) for p in kept}, kept)

    def test_overwrite_keeps_what_is_not_a_results_file(self):
        """Found in review: --overwrite took any SQLite file for results
        (another program's database was deleted) and did not look at what
        a path is (a device node was unlinked: as root, -o /dev/null
        --overwrite would delete /dev/null; opening a FIFO waited for a
        writer forever, and a stop then left a results file in its
        place). Each is refused, status 2, and left as it was; a results
        file and an SQLite file with no table yet (a run killed in its
        first milliseconds) are still replaced."""
        mine = self.path("mine.db")
        c = sqlite3.connect(mine)
        c.execute("CREATE TABLE notes (x)")
        c.execute("INSERT INTO notes VALUES ('keep me')")
        c.commit()
        c.close()
        before = digest(mine)
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        targets = [(mine, "is not a results file"),
                   (fifo, "is not a regular file (a device, FIFO or "
                          "socket)")]
        if os.geteuid() == 0:  # CI runs as root: a device node of our own
            dev = self.path("null")
            os.mknod(dev, 0o666 | __import__("stat").S_IFCHR,
                     os.makedev(1, 3))
            targets.append((dev, "is not a regular file"))
        for path, said in targets:
            for mode in ("--overwrite", "--resume"):
                with self.subTest(path=path, mode=mode):
                    rc, _, err = run("run", CIRCLE, "-o", path, mode,
                                     timeout=60)
                    self.assertEqual(rc, 2, err)
                    if path != mine or mode == "--overwrite":
                        self.assertIn(said, err)
                    self.assertTrue(os.path.lexists(path))
        self.assertEqual(digest(mine), before)
        self.assertTrue(__import__("stat").S_ISFIFO(os.stat(fifo).st_mode))
        # readers refuse a FIFO at once rather than wait on it
        for args in (("status", fifo), ("report", fifo, "-o",
                                        self.path("r.html")),
                     ("plot", fifo, "-o", self.path("p.svg")),
                     ("merge", self.path("m.db"), fifo),
                     ("run", CIRCLE, "--variants-from", fifo, "--where",
                      "1", "-o", self.path("d.db"))):
            with self.subTest(args=args):
                rc, _, err = run(*args, timeout=60)
                self.assertEqual(rc, 2, err)
                self.assertIn("not a regular file", err)
        # what may be replaced still is
        res = self.path("r.db")
        empty = self.path("empty.db")
        sqlite3.connect(empty).close()  # SQLite makes a 0-byte file
        c = sqlite3.connect(self.path("blank.db"))
        c.execute("PRAGMA user_version = 3")  # a header, no table
        c.close()
        for path in (res, res, empty, self.path("blank.db")):
            rc, _, err = run("run", CIRCLE, "-o", path, "--overwrite")
            self.assertEqual(rc, 0, err)
            self.assertEqual(query(path, "SELECT count(*) FROM variant"),
                             [(1,)])

    def test_a_lock_held_at_resume_is_an_io_stop(self):
        """Found in review: another program's lock held past
        --lock-timeout while --resume opened the file gave status 2 (an
        input error) without the command that resumes, and a second
        complaint that "another program is reading it" from folding a
        WAL the failed open never wrote. It is a stop like one in a run:
        status 3, the resume command, the limit said as given."""
        db = self.path("r.db")
        rc, _, err = run("run", CIRCLE, "-o", db)
        self.assertEqual(rc, 0, err)
        c = sqlite3.connect(db, isolation_level=None)
        c.execute("BEGIN EXCLUSIVE")
        try:
            rc, _, err = run("run", CIRCLE, "-o", db, "--resume",
                             "--lock-timeout", "1.5", timeout=60)
        finally:
            c.execute("ROLLBACK")
            c.close()
        self.assertEqual(rc, 3, err)
        self.assertIn("(up to 1.5 s, --lock-timeout)", err)
        self.assertIn("Resume with", err)
        self.assertNotIn("could not be folded", err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant"), [(1,)])

    def test_changes_to_attached_actors_are_refused(self):
        sw = self.write("s.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                        "      - [{actor: 2, speed: 10}]\n")
        rc, _, err = run("check", scenario("semi_trailer.yaml"), "--sweep",
                         sw)
        self.assertEqual(rc, 2)
        self.assertRegex(err, r"s\.yaml:4:21: actor 2: is attached to actor "
                              r"1, which moves it")

    def test_object_without_axles_stands_still(self):
        db = self.path("o.db")
        rc, _, err = run("run", self.write("o.yaml", OBJECT), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT kind, wheel_count, vehicle_model "
                               "FROM actor_info WHERE actor_id = 2"),
                         [("object", 0, None)])
        self.assertEqual(query(db, "SELECT DISTINCT x, y, vx, vy FROM "
                               "actor_state WHERE actor_id = 2"),
                         [(0.0, 0.0, 0.0, 0.0)])
        # The car's front (2.25 m ahead) meets the box's back (0.5 m
        # behind its centre) after 17.25 m at 10 m/s: first step past it.
        self.assertEqual(query(db, "SELECT t, actor_id, other_actor_id FROM "
                               "event WHERE kind = 'collision'"),
                         [(1.8, 1, 2)])
        moving = self.write("m.yaml", OBJECT + "    waypoints: [[0, 0, 0], "
                            "[10, 0, 0]]\n    speed: 1\n")
        rc, _, err = run("check", moving)
        self.assertEqual(rc, 2)
        self.assertIn("has no axles, so nothing moves it", err)


if __name__ == "__main__":
    unittest.main()
