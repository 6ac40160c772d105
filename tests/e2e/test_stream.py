"""Long variants stream (issue 13): a variant's rows go to the results file
in chunks while it runs, so memory does not grow with its length; they
are still committed with its variant row, as one whole.

The scenario: two actors without behaviours, each holding its start speed
straight ahead along +y (yaw 0), at a 1 ms step. A variant of D seconds stores
2 x (1000 D + 1) state rows (steps 0 .. 1000 D, both actors), each about
184 bytes while in memory (vs_state_row): 300 s are 600 002 rows, 110 MB
held whole."""
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, VSWEEP, TempDirCase,  # noqa: E402
                        differences, gated_run, query, start_gated,
                        wait_for)

# Sanitizer builds (tests/e2e/meson.build sets it): RLIMIT_DATA would count
# ASan's shadow memory, so the memory limit becomes a peak-RSS bound there.
SANITIZED = os.environ.get("VSWEEP_SANITIZE", "none") != "none"
MB = 1024 * 1024

SCENARIO = """\
vsweep: 1
name: long variant
step: 0.001
duration: DURATION
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 10
    BEHAVIOUR
  - id: 2
    name: other
    asset: car
    start: {position: [0, 50, 0], yaw: 0}
    speed: 5
"""


def stored(db):
    """Variants committed so far, read without disturbing the writer."""
    try:
        with sqlite3.connect(db, timeout=0.1) as c:
            return c.execute("SELECT count(*) FROM variant").fetchone()[0]
    except sqlite3.Error:
        return 0


def rows_of(duration):
    """State rows of one variant: both actors at steps 0 .. 1000 D."""
    return 2 * (1000 * duration + 1)


class Stream(TempDirCase):
    def scenario(self, duration, behaviour=""):
        return self.write("s%d.yaml" % duration, SCENARIO.replace(
            "DURATION", str(duration)).replace("BEHAVIOUR", behaviour))

    def run_measured(self, args, data_limit=None, env=None):
        """Runs vsweep; returns (exit status, stderr, peak RSS in KiB of
        vsweep and its children, from wait4)."""
        e = dict(os.environ)
        e.pop("VSWEEP_PLUGIN_PATH", None)
        # Under ASan, freed blocks wait in a quarantine that would read as
        # growth: turn it off (other builds ignore the variable).
        e["ASAN_OPTIONS"] = ":".join(filter(None, [
            e.get("ASAN_OPTIONS"), "quarantine_size_mb=0",
            "thread_local_quarantine_size_kb=0"]))
        e.update(env or {})

        def limit():
            if data_limit:
                resource.setrlimit(resource.RLIMIT_DATA,
                                   (data_limit, data_limit))
        p = subprocess.Popen([VSWEEP, *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             env=e, preexec_fn=limit)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, err, usage.ru_maxrss

    def assert_whole(self, db, duration):
        n = rows_of(duration)
        self.assertEqual(query(db, "SELECT status FROM variant"), [(1,)])
        self.assertEqual(query(db, "SELECT count(*) FROM state")[0][0], n)
        # The last rows are the last step's: ego has gone 10 m/s x D.
        y = query(db, "SELECT y FROM state WHERE actor_id = 1 AND step = ?",
                  1000 * duration)[0][0]
        self.assertAlmostEqual(y, 10.0 * duration, delta=1e-6)

    def test_long_variant_under_a_memory_limit(self):
        """300 s at 1 kHz under a 160 MB data limit: held whole, its
        110 MB of rows (plus SQLite's 64 MiB page cache) did not fit, and
        the variant was stored failed ("crashed", out of memory) with no
        rows. Streamed, every row is stored."""
        scn = self.scenario(300)
        db = self.path("r.db")
        if SANITIZED:
            rc, err, small = self.run_measured(
                ["run", self.scenario(10), "-o", self.path("small.db"),
                 "-j", "1"])
            self.assertEqual(rc, 0, err)
            rc, err, big = self.run_measured(["run", scn, "-o", db, "-j",
                                              "1"])
            # SQLite's page cache grows to 64 MiB with the file; the rows,
            # 110 MB held whole, must not come on top.
            self.assertLess(big, small + 100 * 1024, (small, big))
        else:
            rc, err, _ = self.run_measured(["run", scn, "-o", db, "-j", "1"],
                                           data_limit=160 * MB)
        self.assertEqual(rc, 0, err)
        self.assert_whole(db, 300)

    def test_peak_memory_does_not_grow_with_length(self):
        """300 s and 600 s (both past the size at which SQLite's page cache
        stops growing): held whole, the longer one needs 110 MB more.
        Streamed, what may differ is how full the chunks waiting for the
        writer are (at most 16 MiB per thread, runner.c)."""
        peaks = []
        for duration in (300, 600):
            db = self.path("r%d.db" % duration)
            rc, err, peak = self.run_measured(
                ["run", self.scenario(duration), "-o", db, "-j", "1"])
            self.assertEqual(rc, 0, err)
            self.assert_whole(db, duration)
            peaks.append(peak)
        self.assertLess(peaks[1], peaks[0] + 40 * 1024, peaks)

    def test_failed_variant_keeps_its_streamed_rows(self):
        """A plugin error at step 20 000 of a 30 s variant fails it and
        keeps the rows recorded before, as for a short one: steps 0 ..
        19 999 of both actors, though most went to the file in chunks
        before the failure."""
        scn = self.scenario(30, "behaviour: {plugin: fail_at, params: "
                                "{fail_step: 20000}}")
        db = self.path("r.db")
        rc, err, _ = self.run_measured(["run", scn, "-o", db, "-j", "1",
                                        "--plugin-path", TEST_PLUGINS])
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM variant")
        self.assertEqual(status, 2)
        self.assertIn("fail_at: failing at step 20000 as asked", error)
        self.assertEqual(query(db, "SELECT max(step), count(*) FROM state"),
                         [(19999, 40000)])

    def test_kill_in_a_streamed_variant_then_resume(self):
        """Variant 1 of 3 waits at step 20 000 of 30 000 (held by a gate
        file for as long as the test needs, however slow the machine), its
        first rows already handed to the writer; vsweep is killed with
        SIGKILL then.
        The file holds variant 0 alone, whole; --resume simulates 1 again
        and the file is the one an uninterrupted run writes (at another
        -j, too)."""
        scn = self.scenario(30, "behaviour: {plugin: crash_segv, params: "
                                "{stall: 1, fault_step: 20000, "
                                "stall_seconds: 0}}")
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: behaviour.trigger, "
                        "value: {from: 0, to: 2, step: 1}}\n")
        db, ref = self.path("r.db"), self.path("ref.db")
        mark, gate = self.path("stall"), self.path("gate")
        args = ["run", scn, "--sweep", sw, "--plugin-path",
                os.path.join(TEST_PLUGINS, "crash")]
        p = start_gated([*args, "-o", db, "-j", "2"], mark, gate)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and not (
                os.path.exists(mark) and stored(db) > 0):
            time.sleep(0.01)
        time.sleep(0.5)  # the writer stores the chunks before the stall
        self.assertIsNone(p.poll(), "finished before the kill")
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        p.stderr.close()
        os.unlink(gate)
        with open(mark) as f:
            self.assertEqual(f.read(), "1\n")
        self.assertEqual(query(db, "SELECT variant_id FROM variant"), [(0,)])
        self.assertEqual(query(db, "SELECT count(*) FROM state")[0][0],
                         rows_of(30))
        rc, err, _ = self.run_measured([*args, "-o", db, "-j", "2",
                                        "--resume"])
        self.assertEqual(rc, 0, err)
        rc, err, _ = self.run_measured([*args, "-o", ref, "-j", "1"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM state")[0][0],
                         3 * rows_of(30))
        self.assertEqual(differences(db, ref), [])

    def test_variants_before_a_streamed_one_are_committed(self):
        """Variants 0 and 1 end early (a collision, stop_at_collision:
        some hundred steps, stored whole); variant 2 (the other car in
        the next lane) streams its rows and
        waits at step 20 000 of 30 000 for as long as the test holds a
        gate file, its first rows in the writer's transaction (a
        savepoint: committed only with its variant row). 0 and 1 are
        committed within a few seconds, while 2 still waits; once the
        stream held them in its transaction until its end. A SIGKILL
        keeps them, and none of 2's rows; --resume completes the file an
        uninterrupted run writes."""
        scn = self.write("s.yaml", SCENARIO.replace(
            "DURATION", "30\nstop_at_collision: true").replace(
            "BEHAVIOUR", "behaviour: {plugin: crash_segv, params: "
                         "{stall: 1, fault_step: 20000, stall_seconds: 0}}"))
        near = ("[{actor: 1, param: behaviour.trigger, value: 0}, "
                "{actor: 2, start.y: 8}]")  # 10 m/s closing on 5 m/s
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                        "      - %s\n      - %s\n"
                        "      - [{actor: 1, param: behaviour.trigger, "
                        "value: 1}, {actor: 2, start.x: 10}]\n"
                        % (near, near.replace(
                            "start.y: 8", "start.y: 9")))
        db, ref = self.path("r.db"), self.path("ref.db")
        mark, gate = self.path("stall"), self.path("gate")
        args = ["run", scn, "--sweep", sw, "--plugin-path",
                os.path.join(TEST_PLUGINS, "crash")]
        with gated_run([*args, "-o", db, "-j", "1"], mark, gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark), 60),
                            "variant 2 never waited")
            t0 = time.monotonic()
            wait_for(lambda: stored(db) >= 2, 10)
            self.assertEqual(stored(db), 2, "after %.1f s"
                             % (time.monotonic() - t0))
            self.assertIsNone(p.poll(), "finished before the kill")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=30)
        self.assertEqual(query(db, "SELECT variant_id, status FROM variant "
                               "ORDER BY 1"), [(0, 1), (1, 1)])
        for v in (0, 1):
            (n, last), = query(db, "SELECT count(*), max(step) FROM state "
                               "WHERE variant_id = ?", v)
            self.assertEqual(n, 2 * (last + 1))
            self.assertLess(last, 2000)  # ended at the collision
        self.assertEqual(query(db, "SELECT count(*) FROM state WHERE "
                               "variant_id = 2"), [(0,)])
        rc, err, _ = self.run_measured([*args, "-o", db, "-j", "1",
                                        "--resume"])
        self.assertEqual(rc, 0, err)
        rc, err, _ = self.run_measured([*args, "-o", ref, "-j", "1"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT variant_id, count(*) FROM state "
                               "WHERE variant_id = 2"),
                         [(2, rows_of(30))])
        self.assertEqual(differences(db, ref), [])


if __name__ == "__main__":
    unittest.main()
