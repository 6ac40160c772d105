"""`vsweep plot` on extreme input (issue 13): positions of 1e17 m (where a
grid step is below the values' precision) and 1e308 m end quickly with
bounded output, and bytes of a path that are not UTF-8 are escaped in the
SVG instead of written raw."""
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import VSWEEP, TempDirCase, run, scenario  # noqa: E402


class PlotExtremeTest(TempDirCase):
    def setUp(self):
        super().setUp()
        self.db = self.path("r.db")
        rc, _, err = run("run", scenario("circle.yaml"), "-o", self.db)
        self.assertEqual(rc, 0, err)

    def moved(self, name, sql):
        db = self.path(name)
        shutil.copy(self.db, db)
        with sqlite3.connect(db) as c:
            c.execute(sql)
        return db

    def plot(self, db, *args):
        out = self.path("p.svg")
        t0 = time.time()
        # Today: no end (a grid loop that never moves on; 17 GB at 1e308).
        p = subprocess.run([VSWEEP, "plot", db, *args, "-o", out],
                           capture_output=True, timeout=60)
        return p.returncode, time.time() - t0, out

    def test_far_away_positions_end_quickly(self):
        for name, sql in [
                ("far.db", "UPDATE state SET x = x + 1e17, y = y + 1e17"),
                ("huge.db", "UPDATE state SET x = x * 1e306, "
                            "y = y * 1e306"),
                ("edge.db", "UPDATE state SET x = 1e308, y = -1e308 "
                            "WHERE step % 2 = 0")]:
            db = self.moved(name, sql)
            for kind in ([], ["--kind", "speed"]):
                rc, secs, out = self.plot(db, *kind)
                self.assertIn(rc, (0, 2), name)
                self.assertLess(secs, 30, name)
                if rc == 0:
                    size = os.path.getsize(out)
                    self.assertLess(size, 2 << 20, name)
                    with open(out, "rb") as f:
                        f.read().decode("utf-8")

    def test_non_utf8_path_is_escaped(self):
        raw = os.path.join(os.fsencode(self.tmp), b"r\xff\xfe.db")
        shutil.copy(self.db, raw)
        rc, _, out = self.plot(os.fsdecode(raw))
        self.assertEqual(rc, 0)
        with open(out, "rb") as f:
            svg = f.read()
        text = svg.decode("utf-8")  # strict: raw bytes would fail here
        self.assertIn("r\\xFF\\xFE.db", text)


if __name__ == "__main__":
    unittest.main()
