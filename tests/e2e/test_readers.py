"""The commands that read a finished results file (vsweep plot, report,
status, and a drill-down's --variants-from) leave nothing beside it and
do not change it: no FILE-wal or FILE-shm afterwards, the file byte for
byte as the run left it, with its mtime (store/reader.h). plot and report
opened it as a plain read-only SQLite connection, which makes an empty
-wal and a -shm it cannot remove; status then took that -wal's mtime for
the run's last write ("1.5 variants/s ... 4 s to the last write" for a
0.1 s run). status leaves out a WAL without frames, as such a reader
leaves it; a killed run's WAL with frames is test_resume's."""
import calendar
import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, run, scenario  # noqa: E402

ARGS = [scenario("circle.yaml"), "--sweep", scenario("circle_speed.yaml")]


class ReadersTest(TempDirCase):
    def setUp(self):
        super().setUp()
        self.db = self.path("r.db")
        rc, _, err = run("run", *ARGS, "-o", self.db)
        self.assertEqual(rc, 0, err)
        self.beside = [self.db + "-wal", self.db + "-shm"]
        self.assertEqual(self.left(), [])
        with open(self.db, "rb") as f:
            self.bytes = f.read()
        self.mtime = os.stat(self.db).st_mtime_ns
        # the readers run in a later second than the run's last write,
        # so that a side file's mtime would be seen
        while time.time() < self.mtime / 1e9 + 1.1:
            time.sleep(0.05)

    def left(self):
        return [f for f in self.beside if os.path.exists(f)]

    def unchanged(self, what):
        self.assertEqual(self.left(), [], what + " left files behind")
        with open(self.db, "rb") as f:
            self.assertTrue(f.read() == self.bytes, what + " changed it")
        self.assertEqual(os.stat(self.db).st_mtime_ns, self.mtime, what)

    def status(self):
        rc, out, err = run("status", self.db)
        self.assertEqual(rc, 0, err)
        self.unchanged("status")
        return out

    def last_write(self, out):
        """The status line's seconds to the last write, and what they
        are: the file's mtime less its start (both whole seconds)."""
        m = re.search(r", started (\S+)Z, (\d+) s to the last write\n", out)
        self.assertIsNotNone(m, out)
        start = calendar.timegm(time.strptime(m.group(1)[:19],
                                              "%Y-%m-%dT%H:%M:%S"))
        return int(m.group(2)), self.mtime // 10**9 - start

    def test_plot_report_drill_leave_nothing(self):
        before = self.status()
        said, want = self.last_write(before)
        self.assertEqual(said, want, before)
        for args in (["report", self.db, "-o", self.path("r.html")],
                     ["plot", self.db, "-o", self.path("t.svg")],
                     ["plot", self.db, "--kind", "speed", "-o",
                      self.path("s.svg")],
                     ["run", *ARGS, "-o", self.path("d.db"),
                      "--variants-from", self.db, "--where",
                      "variant_id < 2"]):
            rc, _, err = run(*args)
            self.assertEqual(rc, 0, err)
            self.unchanged(args[0])
        # the same rate and last write as before the readers
        self.assertEqual(self.status(), before)

    def test_status_leaves_out_an_empty_wal(self):
        """An empty -wal and a -shm 100 s newer than the file, as a
        plain read-only reader (an earlier build's report, the sqlite3
        shell) leaves them: status says what it said without them, and
        report still reads the file."""
        before = self.status()
        later = time.time() + 100
        for f in self.beside:
            with open(f, "wb"):
                pass
            os.utime(f, (later, later))
        rc, out, err = run("status", self.db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, before)
        rc, out, err = run("report", self.db, "-o", self.path("r.html"))
        self.assertEqual(rc, 0, err)
        self.assertIn("report of 6 variants", out + err)


if __name__ == "__main__":
    unittest.main()
