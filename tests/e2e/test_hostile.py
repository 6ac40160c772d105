"""The results file and the process under pressure (issue 13): foreign
libraries on the plugin path, signals, a second writer, another program's
lock, the WAL, kills in the first milliseconds."""
import glob
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (VSWEEP, TempDirCase, differences, query, run,  # noqa
                        scenario)

CIRCLE = scenario("circle.yaml")
TWO_CARS = scenario("two_cars.yaml")


def sweep_text(n):
    lines = ["vsweep: 1", "blocks:", "  - list:"]
    for i in range(n):
        lines.append("      - [{actor: 1, speed: %d.%d}]" % (5 + i % 20,
                                                            i % 10))
    return "\n".join(lines) + "\n"


def stored(db):
    """Variants stored so far, read without disturbing the writer."""
    try:
        with sqlite3.connect(db, timeout=0.1) as c:
            return c.execute("SELECT count(*) FROM variant").fetchone()[0]
    except sqlite3.Error:
        return 0


class Busy(TempDirCase):
    """A sweep long enough to be caught in the middle."""
    N = 200

    def start(self, db, *extra):
        sweep = self.write("sweep.yaml", sweep_text(self.N))
        return subprocess.Popen(
            [VSWEEP, "run", TWO_CARS, "--sweep", sweep, "-o", db, "-j", "1",
             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, stdin=subprocess.DEVNULL)

    def wait_stored(self, p, db):
        t0 = time.time()
        while time.time() - t0 < 30 and p.poll() is None:
            if os.path.exists(db) and stored(db) > 0:
                return
            time.sleep(0.01)
        self.fail("the run stored nothing in 30 s")


class LockTest(Busy):
    def test_another_programs_lock_is_waited_out(self):
        db = self.path("r.db")
        p = self.start(db)
        self.wait_stored(p, db)
        # As DB Browser or a long CREATE INDEX would: the write lock,
        # for longer than SQLite's usual 5 s timeouts.
        c = sqlite3.connect(db, timeout=10, isolation_level=None)
        c.execute("BEGIN EXCLUSIVE")
        time.sleep(8)
        c.execute("COMMIT")
        c.close()
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("waiting for a lock held by another program on "
                      + db, err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant")[0][0],
                         self.N)

# A library that is no plugin: its constructor leaves a marker file.
FOREIGN_C = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void touch(void)
{
	FILE *f = fopen(getenv("MARKER"), "w");
	if (f)
		fclose(f);
}
"""


class PluginPathTest(TempDirCase):
    def foreign(self, folder):
        os.makedirs(folder, exist_ok=True)
        src = self.write("foreign.c", FOREIGN_C)
        cc = shutil.which("cc") or "gcc"
        subprocess.run([cc, "-shared", "-fPIC", "-o",
                        os.path.join(folder, "libforeign.so"), src],
                       check=True)

    def test_foreign_library_is_not_run(self):
        folder = self.path("plugins")
        self.foreign(folder)
        marker = self.path("marker")
        env = {"MARKER": marker}
        for args in (["check", CIRCLE], ["run", CIRCLE, "-o",
                                         self.path("r.db")]):
            rc, _, err = run(*args, "--plugin-path", folder, env=env)
            self.assertEqual(rc, 0, err)
            self.assertFalse(os.path.exists(marker), args)
        # `plugins` lists by loading, and says so.
        rc, out, err = run("plugins", "--plugin-path", folder, env=env)
        self.assertIn("their code runs", out)
        self.assertTrue(os.path.exists(marker))

    def test_world_writable_folder_refused(self):
        folder = self.path("open")
        os.mkdir(folder)
        # A bad constant_steer that would win over the shipped one.
        shutil.copy(os.path.join(os.environ["VSWEEP_TEST_PLUGINDIR"],
                                 "fail_at.so"),
                    os.path.join(folder, "constant_steer.so"))
        os.chmod(folder, 0o777)
        rc, _, err = run("run", CIRCLE, "-o", self.path("r.db"),
                         "--plugin-path", folder)
        self.assertEqual(rc, 0, err)
        self.assertIn("writable by every user: refused", err)
        self.assertIn(folder, err)

    def test_shadowing_is_said(self):
        folder = self.path("mine")
        os.mkdir(folder)
        shipped = os.path.join(os.environ["VSWEEP_BUILD_ROOT"], "plugins",
                               "constant_steer.so")
        shutil.copy(shipped, os.path.join(folder, "constant_steer.so"))
        rc, _, err = run("run", CIRCLE, "-o", self.path("r.db"),
                         "--plugin-path", folder)
        self.assertEqual(rc, 0, err)
        self.assertIn("plugin 'constant_steer': %s/constant_steer.so "
                      "shadows %s" % (folder, shipped), err)
        used = query(self.path("r.db"), "SELECT name FROM plugin")
        self.assertIn(("constant_steer",), used)

    def test_same_folder_twice_shadows_nothing(self):
        # The shipped folder named again, through a relative path: one
        # folder, so no file shadows itself.
        shipped = os.path.join(os.environ["VSWEEP_BUILD_ROOT"], "plugins")
        rc, _, err = run("run", CIRCLE, "-o", self.path("r.db"),
                         "--plugin-path", os.path.relpath(shipped))
        self.assertEqual(rc, 0, err)
        self.assertNotIn("shadows", err)


class WalTest(Busy):
    def hold_reader(self, p, db):
        """A reader's open transaction from the first stored variant on,
        as a notebook left open would hold."""
        self.wait_stored(p, db)
        c = sqlite3.connect(db, isolation_level=None)
        c.execute("BEGIN")
        c.execute("SELECT count(*) FROM state").fetchone()
        return c

    def test_db_alone_after_a_long_reader(self):
        db = self.path("r.db")
        p = self.start(db)
        reader = self.hold_reader(p, db)
        # Released once every variant is in (the run is closing).
        t0 = time.time()
        while stored(db) < self.N and time.time() - t0 < 60:
            time.sleep(0.01)
        time.sleep(0.3)
        reader.execute("COMMIT")
        reader.close()
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        self.assertNotIn("could not be folded", err)
        self.assertFalse(os.path.exists(db + "-wal") and
                         os.path.getsize(db + "-wal") > 0)
        alone = self.path("alone.db")
        shutil.copy(db, alone)
        self.assertEqual(query(alone, "PRAGMA integrity_check"), [("ok",)])
        self.assertEqual(query(alone, "SELECT count(*) FROM variant")[0][0],
                         self.N)

    def test_reader_past_the_end_is_said(self):
        db = self.path("r.db")
        p = self.start(db)
        reader = self.hold_reader(p, db)
        out, err = p.communicate(timeout=120)
        reader.execute("COMMIT")
        reader.close()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("%s: the WAL could not be folded back" % db, err)
        self.assertIn("copy %s-wal with it" % db, err)


class SignalTest(Busy):
    def stop_with(self, sig):
        db = self.path("r.db")
        p = self.start(db)
        self.wait_stored(p, db)
        p.send_signal(sig)
        out, err = p.communicate(timeout=120)
        # Today: a silent death (129, 141) in the middle of a variant.
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("the results file is consistent", err)
        self.assertIn("--resume", err)
        self.assertLess(stored(db), self.N)
        p = self.start(db, "--resume")
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(query(db, "PRAGMA integrity_check"), [("ok",)])
        self.assertEqual(query(db, "SELECT count(DISTINCT variant_id) "
                               "FROM variant")[0][0], self.N)

    def test_sighup_stops_like_sigterm(self):
        self.stop_with(signal.SIGHUP)

    def test_sigpipe_stops_like_sigterm(self):
        self.stop_with(signal.SIGPIPE)

    def test_second_writer_is_told_who_writes(self):
        db = self.path("r.db")
        p = self.start(db)
        self.wait_stored(p, db)
        sweep = self.path("sweep.yaml")
        for mode in ("--resume", "--overwrite"):
            rc, _, err = run("run", TWO_CARS, "--sweep", sweep, "-o", db,
                             mode)
            self.assertEqual(rc, 2, err)
            self.assertIn("%s: another vsweep (pid %d) is writing this "
                          "file" % (db, p.pid), err)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant")[0][0],
                         self.N)
        self.assertFalse(os.path.exists(db + "-writer"))
        # Once it is gone, the file is free again.
        rc, _, err = run("run", TWO_CARS, "--sweep", sweep, "-o", db,
                         "--resume")
        self.assertEqual(rc, 0, err)

    def test_killed_merge_leaves_no_temporary_file(self):
        sweep = self.write("sweep.yaml", sweep_text(self.N))
        shards = []
        for k in range(2):
            shards.append(self.path("s%d.db" % k))
            rc, _, err = run("run", TWO_CARS, "--sweep", sweep, "-o",
                             shards[-1], "--shard", "%d/2" % k)
            self.assertEqual(rc, 0, err)
        killed = 0
        for i, sig in enumerate([signal.SIGTERM, signal.SIGINT,
                                 signal.SIGHUP] * 3):
            out = self.path("m%d.db" % i)
            p = subprocess.Popen([VSWEEP, "merge", out, *shards],
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            # Until the temporary file is there, then a little more.
            t0 = time.time()
            while (not glob.glob(out + ".partial-*") and p.poll() is None
                   and time.time() - t0 < 10):
                time.sleep(0.001)
            time.sleep(0.01 * (i % 3))
            p.send_signal(sig)
            p.wait(timeout=60)
            killed += p.returncode == -sig
            self.assertEqual(glob.glob(out + ".partial-*"), [], sig)
            if p.returncode == -sig:
                self.assertFalse(os.path.exists(out))
        self.assertGreater(killed, 0)


class EarlyKillTest(Busy):
    N = 4

    def test_killed_in_first_milliseconds_resumes(self):
        sweep = self.write("sweep.yaml", sweep_text(self.N))
        ref = self.path("ref.db")
        rc, _, err = run("run", TWO_CARS, "--sweep", sweep, "-o", ref)
        self.assertEqual(rc, 0, err)
        rnd = random.Random(13)
        db = self.path("r.db")
        for i in range(20):
            for f in glob.glob(db + "*"):
                os.remove(f)
            p = self.start(db)
            time.sleep(rnd.uniform(0, 0.1))
            p.kill()
            p.communicate()
            # Today a kill in the first ~50 ms could leave a 0-byte or
            # schema-less file that --resume refused forever.
            rc, _, err = run("run", TWO_CARS, "--sweep", sweep, "-o", db,
                             "--resume")
            self.assertEqual(rc, 0, "kill %d: %s" % (i, err))
            self.assertEqual(differences(db, ref), [], i)

    def test_other_files_are_still_refused(self):
        db = self.write("notes.db", "not a database at all\n")
        rc, _, err = run("run", CIRCLE, "-o", db, "--resume")
        self.assertEqual(rc, 2, err)
        with open(db) as f:
            self.assertEqual(f.read(), "not a database at all\n")


if __name__ == "__main__":
    unittest.main()
