"""A sweep killed at any moment resumes without losing or duplicating a
variant, and ends bit-identical to an uninterrupted run."""
import calendar
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, VSWEEP, TempDirCase,  # noqa
                        STOPPING, differences, gated_run, query, run,
                        scenario, stop_held, wait_for)

CRASH = os.path.join(TEST_PLUGINS, "crash")

# two_cars.yaml with the ego driven by the crash test behaviour instead of
# constant_steer (it drives straight at its speed): a variant whose trigger
# is 1 stalls at step 5 while the file CRASH_STALL_GATE names exists, and
# not at all without it (stall_seconds 0). Its control never depends on
# trigger, so a gated run stores the rows an ungated one does; it only
# cannot finish while the test holds the gate. Killing or stopping a run
# the writer may already have finished raced on loaded CI machines.
STEER = "{plugin: constant_steer, params: {steering_wheel_deg: 45}}"
STALLING = ("{plugin: crash_segv, params: {armed: -1, stall: 1, "
            "stall_seconds: 0}}")


def scenario_text():
    with open(scenario("two_cars.yaml"), encoding="utf-8") as f:
        text = f.read()
    if text.count(STEER) != 1:
        raise AssertionError("two_cars.yaml: no ego behaviour to replace")
    return text.replace(STEER, STALLING)


def sweep_text(n, gated):
    """n variants of the two cars' speeds; variant gated stalls on the
    gate."""
    lines = ["vsweep: 1", "blocks:", "  - list:"]
    for i in range(n):
        gate = (", {actor: 1, param: behaviour.trigger, value: 1}"
                if i == gated else "")
        lines.append("      - [{actor: 1, speed: %d.%d}, {actor: 2, speed: "
                     "[%d, %d]}%s]" % (5 + i % 20, i % 10, 8 + i % 7,
                                       12 + i % 5, gate))
    return "\n".join(lines) + "\n"


class ResumeTest(TempDirCase):
    N = 240  # variants: about 1e6 actor-steps, a second or more to run
    # the variant that stalls while the gate exists: the last, so that a
    # gated run never stores every variant, and what comes before it is
    # free for the test's random kill points
    GATED = N - 1

    def setUp(self):
        super().setUp()
        self.scn = self.write("two_cars.yaml", scenario_text())
        self.sweep = self.write("sweep.yaml", sweep_text(self.N, self.GATED))
        self.gate = self.path("gate")
        self.mark = self.path("stall.mark")  # a line: the gated one waits
        self.ref = self.path("ref.db")
        rc, _, err = self.run_to_end(self.ref, "-j", "2")
        self.assertEqual(rc, 0, err)

    def tearDown(self):
        if os.path.exists(self.gate):
            os.unlink(self.gate)  # lets any gated variant still alive go
        super().tearDown()

    def run_to_end(self, db, *extra):
        """A run nothing holds (its environment has no CRASH_STALL_GATE)."""
        return run("run", self.scn, "--sweep", self.sweep, "-o", db,
                   "--plugin-path", CRASH, *extra)

    def start(self, db, *extra):
        """A run that cannot store its last variant while the gate file
        exists."""
        env = dict(os.environ, CRASH_STALL_GATE=self.gate,
                   CRASH_STALL_MARK=self.mark)
        env.pop("VSWEEP_PLUGIN_PATH", None)
        return subprocess.Popen(
            [VSWEEP, "run", self.scn, "--sweep", self.sweep, "-o", db,
             "-j", "2", "--plugin-path", CRASH, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL, env=env)

    def stored(self, db):
        return query(db, "SELECT count(*) FROM variant")[0][0]

    def test_sigkill_at_random_points_then_resume(self):
        """Killed three times at random moments, then resumed to the end:
        each kill leaves whole variants, a prefix; the end is identical to
        the reference. The gate holds each run's last variant, so the kill
        lands before the run's end wherever the random delay falls and
        however starved the machine; each run is killed after a commit of
        its own, so the kill points move along the sweep. Polling for the
        first commit alone raced a fast writer: a late poller found the
        run finished (no kill), or killed it after its last commit (all
        stored)."""
        db = self.path("killed.db")
        rnd = random.Random(20261202)
        open(self.gate, "w").close()
        extra, n = (), 0
        for _ in range(3):
            if os.path.exists(self.mark):
                os.unlink(self.mark)
            p = self.start(db, *extra)
            # Wait until the run stored variants of its own (or is held at
            # the last, which it may reach first), then a random moment.
            t0 = time.time()
            while time.time() - t0 < 60 and p.poll() is None:
                if os.path.exists(self.mark) or (
                        os.path.exists(db) and self.stored_safely(db) > n):
                    break
                time.sleep(0.02)
            time.sleep(rnd.uniform(0.0, 0.4))
            if p.poll() is not None:
                self.fail("finished before the kill: %s" % (p.communicate(),))
            p.send_signal(signal.SIGKILL)
            p.communicate()
            self.assertEqual(p.returncode, -signal.SIGKILL)
            extra = ("--resume",)
            n = self.stored(db)
            self.assertLess(n, self.N)
            # Whatever is stored is a prefix, each variant whole.
            ids = [v for (v,) in query(db, "SELECT variant_id FROM "
                                       "variant ORDER BY 1")]
            self.assertEqual(ids, list(range(n)))
        os.unlink(self.gate)
        rc, out, err = self.run_to_end(db, "-j", "2", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("already stored", out)
        self.assertEqual(self.stored(db), self.N)
        self.assertEqual(differences(db, self.ref), [])

    def test_disk_full_then_resume(self):
        """A file-size limit (RLIMIT_FSIZE, ulimit -f, which batch systems
        pass on) with SIGXFSZ at its default action, as a job starts: the
        writes past 8 MiB fail with EFBIG and the run takes the documented
        I/O-error path (docs/cli.md): status 3, the cause, the resume
        command; the resume (limit lifted) ends identical to the
        reference. vsweep used to die of SIGXFSZ (status 153, silent)."""
        import resource

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))

        db = self.path("full.db")
        p = subprocess.run(
            [VSWEEP, "run", self.scn, "--sweep", self.sweep, "-o", db, "-j",
             "2", "--plugin-path", CRASH], preexec_fn=limit,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=300)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("Resume with:", p.stderr)
        self.assertIn("-o %s" % db, p.stderr)
        self.assertIn("--resume", p.stderr)
        # the WAL is left for want of room, not for a reader
        self.assertIn("the file-size limit (ulimit -f) is reached",
                      p.stderr)
        self.assertNotIn("reading it", p.stderr)
        n = self.stored(db)
        self.assertGreater(n, 0)
        self.assertLess(n, self.N)
        ids = [v for (v,) in query(db, "SELECT variant_id FROM variant "
                                   "ORDER BY 1")]
        self.assertEqual(ids, list(range(n)))
        rc, _, err = self.run_to_end(db, "-j", "2", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, self.ref), [])

    def test_full_disk_says_so_then_resume(self):
        """A full file system (an 8 MiB tmpfs; SQLITE_FULL): status 3, the
        resume command, and the WAL left behind blamed on the full disk,
        not on 'another program reading it'. Then, copied where there is
        room, the resume ends identical to the reference."""
        mnt = self.path("small")
        os.mkdir(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m",
                           "tmpfs", mnt], capture_output=True).returncode:
            self.skipTest("cannot mount a tmpfs here (not root?)")
        try:
            db = os.path.join(mnt, "o.db")
            rc, _, err = run("run", self.scn, "--sweep", self.sweep, "-o",
                             db, "-j", "2", "--plugin-path", CRASH)
            self.assertEqual(rc, 3, err)
            self.assertIn("Resume with:", err)
            self.assertIn("the WAL could not be folded back", err)
            self.assertIn("the disk is full", err)
            self.assertNotIn("reading it", err)
            moved = self.path("moved.db")
            for ext in ("", "-wal"):
                if os.path.exists(db + ext):
                    with open(db + ext, "rb") as f, \
                            open(moved + ext, "wb") as g:
                        g.write(f.read())
        finally:
            subprocess.run(["umount", mnt])
        n = self.stored(moved)
        self.assertGreater(n, 0)
        self.assertLess(n, self.N)
        rc, _, err = self.run_to_end(moved, "-j", "2", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(moved, self.ref), [])

    def stored_safely(self, db):
        try:
            return self.stored(db)
        except Exception:  # the schema may not be committed yet
            return 0

    def test_sigint_stops_cleanly_and_says_how_to_resume(self):
        """SIGINT or SIGTERM once some variants are stored: status 130, a
        hint to resume, and the resume completes the file. The gate holds
        the last variant until after the signal: one that came after the
        writer had stored every variant ended a run that was, rightly, not
        interrupted (status 0), which polling alone allowed."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            db = self.path("int%d.db" % sig)
            open(self.gate, "w").close()
            p = self.start(db)
            t0 = time.time()
            while time.time() - t0 < 60 and p.poll() is None and not (
                    os.path.exists(db) and self.stored_safely(db) > 0):
                time.sleep(0.02)
            if p.poll() is not None:
                self.fail("finished before the signal: %s"
                          % (p.communicate(),))
            t1 = time.time()
            # Without containment (sanitizer builds) the held variant runs
            # in vsweep's own process: it sees the stop once let go.
            _, err = stop_held(p, sig, self.gate, timeout=30)
            self.assertLess(time.time() - t1, 5, "stop took too long")
            self.assertIn(STOPPING, err)
            self.assertEqual(p.returncode, 130, err)
            self.assertIn("--resume", err)
            self.assertLess(self.stored(db), self.N)
            rc, _, err = self.run_to_end(db, "-j", "1", "--resume")
            self.assertEqual(rc, 0, err)
            self.assertEqual(differences(db, self.ref), [])

    def test_extension_stopped_holds_no_stale_statistics(self):
        """A finished file's planner statistics describe it as it was: a
        run extending it drops them with its first commit (a stopped one
        leaves none, which SQLite plans around as before), and its end
        writes them for the whole file."""
        half = self.N // 2
        lines = sweep_text(self.N, self.GATED).splitlines()
        first = "\n".join(lines[:3 + half]) + "\n"
        both = first + "  - list:\n" + "\n".join(lines[3 + half:]) + "\n"
        db = self.path("ext.db")
        with open(self.sweep, "w") as f:
            f.write(first)
        rc, _, err = self.run_to_end(db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT stat FROM sqlite_stat1 WHERE "
                               "tbl = 'state'"),
                         [("%d 4002 2001 1" % (half * 4002),)])
        with open(self.sweep, "w") as f:
            f.write(both)
        open(self.gate, "w").close()
        p = self.start(db, "--resume")
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None and \
                self.stored_safely(db) <= half:
            time.sleep(0.02)
        if p.poll() is not None:
            self.fail("finished before the signal: %s" % (p.communicate(),))
        _, err = stop_held(p, signal.SIGINT, self.gate, timeout=30)
        self.assertEqual(p.returncode, 130, err)
        self.assertGreater(self.stored(db), half)
        self.assertEqual(query(db, "SELECT count(*) FROM sqlite_stat1"),
                         [(0,)])
        rc, _, err = self.run_to_end(db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT stat FROM sqlite_stat1 WHERE "
                               "tbl = 'state'"),
                         [("%d 4002 2001 1" % (self.N * 4002),)])

    def test_stopped_run_refuses_a_shorter_sweep(self):
        """Stopped part way, then resumed with a sweep of fewer variants
        that still holds every stored one (its list cut short after
        them): another sweep, not an extension, refused with the counts
        and the file left as it was; it was accepted and finished as the
        shorter sweep's file."""
        db = self.path("cut.db")
        open(self.gate, "w").close()
        p = self.start(db)
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None and not (
                os.path.exists(db) and self.stored_safely(db) > 0):
            time.sleep(0.02)
        if p.poll() is not None:
            self.fail("finished before the signal: %s" % (p.communicate(),))
        _, err = stop_held(p, signal.SIGINT, self.gate, timeout=30)
        self.assertEqual(p.returncode, 130, err)
        n = self.stored(db)
        self.assertLess(n, self.N)
        before = (query(db, "SELECT variant_id, params FROM variant "
                        "ORDER BY 1"),
                  query(db, "SELECT key, value FROM meta ORDER BY key"))
        # The first N - 1 entries: the stored n (at most N - 1, the gated
        # last one never stored) are all in it.
        cut = self.write("cut.yaml", sweep_text(self.N - 1, self.GATED))
        rc, _, err = run("run", self.scn, "--sweep", cut, "-o", db,
                         "--plugin-path", CRASH, "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn("(the new sweep has %d variants, the file's %d)"
                      % (self.N - 1, self.N), err)
        self.assertEqual((query(db, "SELECT variant_id, params FROM variant "
                                "ORDER BY 1"),
                          query(db, "SELECT key, value FROM meta ORDER BY "
                                "key")), before)
        rc, _, err = self.run_to_end(db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, self.ref), [])


SLOW_SCENARIO = """\
vsweep: 1
name: slow variant
step: 0.01
duration: 2
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: crash_segv, params: {armed: -1, stall: 3, stall_seconds: 0}}
  - id: 2
    name: other
    asset: car
    start: {position: [0, 50, 0], yaw: 0}
    speed: 5
"""


def committed(db):
    """The variants another connection sees, as `vsweep status` does; []
    while the file has none (or no schema yet)."""
    try:
        return [v for (v,) in query(db, "SELECT variant_id FROM variant "
                                    "ORDER BY 1")]
    except Exception:
        return []


class SlowVariantTest(TempDirCase):
    def test_finished_variants_committed_while_the_next_hangs(self):
        """Variant 3 of 11 waits at step 5 (0.05 s) for as long as the
        test holds a gate file, as a plugin hanging there under a long
        --variant-timeout would, at -j 1; variants 0 to 2 took a fraction
        of a second. They are committed within a few seconds (the writer
        commits at least every second, runner.c), while 3 still waits:
        `vsweep status` counts them, and a SIGKILL keeps them. Once the
        writer kept them in its open transaction until 3 came: status
        said 0 done, and the kill threw them away. --resume then
        completes the file an uninterrupted run writes."""
        scn = self.write("s.yaml", SLOW_SCENARIO)
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: behaviour.trigger, "
                        "value: {from: 0, to: 10, step: 1}}\n")
        db, ref = self.path("r.db"), self.path("ref.db")
        gate, mark = self.path("gate"), self.path("stall")
        args = ["run", scn, "--sweep", sw, "-j", "1", "--plugin-path",
                CRASH, "--variant-timeout", "60"]
        with gated_run([*args, "-o", db], mark, gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark), 60),
                            "variant 3 never waited")
            t0 = time.monotonic()
            self.assertTrue(wait_for(lambda: committed(db) == [0, 1, 2],
                                     10),
                            "after %.1f s" % (time.monotonic() - t0))
            rc, out, err = run("status", db)
            self.assertEqual(rc, 0, err)
            self.assertIn("3/11 variants (3 done, 0 failed)", out)
            self.assertIsNone(p.poll(), "finished before the kill")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=30)
        self.assertEqual(committed(db), [0, 1, 2])
        self.assertEqual(query(db, "SELECT count(*) FROM state")[0][0],
                         3 * 2 * 201)
        rc, out, err = run(*args, "-o", db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("3 already stored", out)
        rc, _, err = run(*args, "-o", ref)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, ref), [])

    def test_status_running_is_the_writer_lock(self):
        """`vsweep status` says running while a run holds the file's
        writer lock, and stopped once it does not, whatever the age of
        the last write. Found in review: it went by the -wal's mtime (30 s):
        a live run whose variant took longer was "stopped", and after an
        interrupted run status's own read-only open left a fresh -wal and
        -shm behind, so the next statuses said "running ... ETA". Here the
        held run's files are made 120 s old (os.utime) instead of waiting;
        then it is interrupted, and two statuses find it stopped and
        leave no file beside it."""
        scn = self.write("s.yaml", SLOW_SCENARIO)
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: behaviour.trigger, "
                        "value: {from: 0, to: 10, step: 1}}\n")
        db = self.path("r.db")
        gate, mark = self.path("gate"), self.path("stall")
        args = ["run", scn, "--sweep", sw, "-j", "1", "--plugin-path",
                CRASH, "--variant-timeout", "60", "-o", db]
        with gated_run(args, mark, gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark), 60),
                            "variant 3 never waited")
            # (status, not an SQL connection: one left open until Python
            # collects it keeps the -wal and -shm after the run)
            self.assertTrue(wait_for(lambda: "3/11 variants" in
                                     run("status", db)[1], 10))
            old = time.time() - 120
            for f in (db, db + "-wal"):
                os.utime(f, (old, old))
            rc, out, err = run("status", db)
            self.assertEqual(rc, 0, err)
            self.assertIn(": running (pid %d): 3/11 variants (3 done, "
                          "0 failed)" % p.pid, out)
            self.assertIsNone(p.poll(), "finished before the signal")
            _, err = stop_held(p, signal.SIGINT, gate)
            self.assertEqual(p.returncode, 130, err)
        beside = [db + "-wal", db + "-shm"]
        self.assertEqual([f for f in beside if os.path.exists(f)], [])
        for _ in range(2):
            rc, out, err = run("status", db)
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r": stopped \(continue it with vsweep run "
                             r"\.\.\. --resume\): [34]/11 variants")
            self.assertEqual([f for f in beside if os.path.exists(f)], [],
                             "status left files behind")

    def test_status_rate_of_a_resumed_run_is_its_own(self):
        """Found in review: status gave a resumed run's rate from the
        first run's start (created_utc), pause included: after a stop,
        40 s and a resume it said 1.11 variants/s, ETA 0:00:26, where the
        run's progress line said 4.17 variants/s, ETA 0:00:07. Here the
        first run stored variants 0 to 2 an hour ago (its created_utc set
        back); the resume, an extension by variants 3 to 10, stores 3 to
        5 and holds 6 (gated). Status: 3 variants since the resume
        began, which is after the test started it and before status
        returned; the rate at least 3 over the time between, the ETA the
        5 left at that rate."""
        scn = self.write("s.yaml", SLOW_SCENARIO.replace("stall: 3",
                                                         "stall: 6"))
        first = "vsweep: 1\nblocks:\n  - grid:\n      - {actor: 1, " \
                "param: behaviour.trigger, value: {from: 0, to: 2, " \
                "step: 1}}\n"
        sw = self.write("w.yaml", first)
        more = self.write("w2.yaml", first + first.split("blocks:\n")[1]
                          .replace("from: 0, to: 2", "from: 3, to: 10"))
        db = self.path("r.db")
        args = ["run", scn, "-j", "1", "--plugin-path", CRASH,
                "--variant-timeout", "60", "-o", db]
        rc, _, err = run(*args, "--sweep", sw)
        self.assertEqual(rc, 0, err)
        c = sqlite3.connect(db)
        c.execute("UPDATE meta SET value = strftime('%Y-%m-%dT%H:%M:%SZ', "
                  "'now', '-1 hour') WHERE key = 'created_utc'")
        c.commit()
        c.close()
        gate, mark = self.path("gate"), self.path("stall")
        t_start = time.time()
        with gated_run([*args, "--sweep", more, "--resume"], mark,
                       gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark), 60),
                            "variant 6 never waited")
            self.assertTrue(wait_for(lambda: committed(db) ==
                                     list(range(6)), 10), committed(db))
            rc, out, err = run("status", db)
            t_end = time.time()
            self.assertEqual(rc, 0, err)
            self.assertIsNone(p.poll(), "finished before the status")
        m = re.search(r": running \(pid \d+\): 6/11 variants \(6 done, "
                      r"0 failed\), ([0-9.e+]+) variants/s, ETA "
                      r"(\d+):(\d\d):(\d\d), started \S+, resumed "
                      r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z", out)
        self.assertIsNotNone(m, out)
        rate = float(m.group(1))
        resumed = calendar.timegm(time.strptime(m.group(5)[:19],
                                                "%Y-%m-%dT%H:%M:%S")) + \
            float(m.group(5)[19:])
        self.assertGreaterEqual(resumed, t_start - 0.001, out)
        self.assertLessEqual(resumed, t_end, out)
        # printed to 3 digits
        self.assertGreaterEqual(rate * 1.005, 3 / (t_end - t_start), out)
        eta = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + \
            int(m.group(4))
        self.assertLessEqual(abs(eta - 5 / rate), 1 + 0.01 * 5 / rate, out)


if __name__ == "__main__":
    unittest.main()
