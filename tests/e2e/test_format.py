"""Results format 4 (format 2: pose R = Rz(yaw) Rx(pitch) Ry(roll); 3:
labels, pair rows, OpenDRIVE slope in pitch; 4: state rows kept by their
key, without rowids): the file says so, and a format-1 file, whose pitch
and roll mean the other axes, a format-2 file, without labels and pair
rows, or a format-3 file, whose state rows are numbered by rowid, is
neither resumed nor merged."""
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

SCN = scenario("two_cars.yaml")
SWEEP = """vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 9}]
      - [{actor: 1, speed: 11}]
"""


class FormatTest(TempDirCase):
    def shard(self, k):
        db = self.path("s%d.db" % k)
        rc, _, err = run("run", SCN, "--sweep", self.sweep, "-o", db,
                         "--shard", "%d/2" % k)
        self.assertEqual(rc, 0, err)
        return db

    def setUp(self):
        super().setUp()
        self.sweep = self.write("sweep.yaml", SWEEP)

    def make_v1(self, db, version=1):
        with sqlite3.connect(db) as c:
            c.execute("UPDATE meta SET value = 'vsweep results %d' "
                      "WHERE key = 'format'" % version)

    def test_written_format_is_4(self):
        db = self.shard(0)
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = "
                               "'format'"), [("vsweep results 4",)])

    def assert_refused(self, version, why):
        """A shard rewritten as format `version`: resume and merge refuse
        it, naming the file and why; no merged file is left."""
        s0, s1 = self.shard(0), self.shard(1)
        self.make_v1(s1, version)
        rc, _, err = run("run", SCN, "--sweep", self.sweep, "-o", s1,
                         "--shard", "1/2", "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: results format %d" % (s1, version), err)
        self.assertIn(why, err)
        rc, _, err = run("merge", self.path("m.db"), s0, s1)
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: results format %d" % (s1, version), err)
        self.assertFalse(os.path.exists(self.path("m.db")))

    def test_format_3_refused(self):
        self.assert_refused(3, "numbered by rowid")

    def test_format_2_refused(self):
        self.assert_refused(2, "labels and pair rows")

    def test_resume_refuses_format_1(self):
        db = self.shard(0)
        self.make_v1(db)
        rc, _, err = run("run", SCN, "--sweep", self.sweep, "-o", db,
                         "--shard", "0/2", "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn("results format 1", err)
        self.assertIn("pose axes changed", err)

    def test_merge_refuses_format_1(self):
        s0, s1 = self.shard(0), self.shard(1)
        rc, _, err = run("merge", self.path("ok.db"), s0, s1)
        self.assertEqual(rc, 0, err)
        self.make_v1(s1)
        rc, _, err = run("merge", self.path("m.db"), s0, s1)
        self.assertEqual(rc, 2, err)
        self.assertIn(s1 + ": results format 1", err)
        self.assertIn("pose axes changed", err)


if __name__ == "__main__":
    unittest.main()
