"""`vsweep check` estimates the results file's size (and the run's time)
for the chosen recording from calibration runs (none, then more variants
until two runs differ measurably); the size is within 25 % of the file a
real run then writes, for three scenarios, two recordings and a
summary-only sweep of 3000 variants, the time within a factor of 3. It holds the estimate against the free
space where the file would go (os.statvfs here), and a night that cannot
fit is an error before it starts."""
import os
import re
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import VSWEEP, TempDirCase, run, scenario  # noqa: E402

CASES = [
    ("circle.yaml", "circle_speed.yaml", []),
    ("two_cars.yaml", "two_cars_sweep.yaml", ["--record-every", "5"]),
    ("crossing.yaml", "crossing_speed.yaml", ["--record", "state,map"]),
]


UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
DISK = re.compile(r"disk: ([0-9.e+]+) (\w+) free in (.+); (.+) needs about "
                  r"([0-9.e+]+) (\w+) more, and up to ([0-9.e+]+) (\w+) "
                  r"beside it")
# a billion variants of the circle: 3001 actor-steps each
BILLION = """vsweep: 1
seed: 1
blocks:
  - random:
      count: 1000000000
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
"""


def disk_line(out):
    m = DISK.search(out)
    if not m:
        return None
    g = m.groups()
    return {"free": float(g[0]) * UNITS[g[1]], "dir": g[2], "file": g[3],
            "need": float(g[4]) * UNITS[g[5]],
            "wal": float(g[6]) * UNITS[g[7]]}


def free_bytes(d):
    fs = os.statvfs(d)
    return fs.f_bavail * fs.f_frsize


# 3000 variants of the two cars, for a summary-only night
SUMMARY_3K = """vsweep: 1
seed: 3
blocks:
  - random:
      count: 3000
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
"""
ESTIMATE = re.compile(r"estimate \(--record ([^,]+(?:,[a-z]+)*), "
                      r"--record-every (\d+)\): ([0-9.e+]+) MB, "
                      r"[0-9.]+ bytes per actor-step; "
                      r"([0-9.e+-]+) s on (\d+) threads")


class Estimate(TempDirCase):
    def test_invalid_variants_make_check_fail(self):
        """Found in review: check said nothing and exited 0 for a sweep
        whose variants a run then stores as failed. two_cars' sedan has
        its rear axle 3.9 m behind the front bumper (0.9 + 3.0): drawn
        bodies shorter than that are invalid; and a plugin that fails in
        the calibration run fails in the run too."""
        sw = self.write("w.yaml", "vsweep: 1\nseed: 11\nblocks:\n"
                        "  - random:\n      count: 20\n      axes:\n"
                        "        - {actor: 1, dimension.length: "
                        "{uniform: [3.0, 5.0]}}\n")
        rc, out, err = run("check", scenario("two_cars.yaml"), "--sweep", sw,
                           "-o", self.path("r.db"))
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"variant \d+: .*w\.yaml:7:22: actor 1: axle "
                              r"2 .* lies outside the body")
        bad = re.search(r"(\d+) of 20 variants are invalid", err)
        self.assertTrue(bad, err)
        # the same count a run stores as failed
        db = self.path("run.db")
        rc, _, _ = run("run", scenario("two_cars.yaml"), "--sweep", sw, "-o",
                       db, "--record", "summary")
        self.assertEqual(rc, 1)
        import sqlite3
        c = sqlite3.connect(db)
        failed = c.execute("SELECT count(*) FROM variant_info WHERE "
                           "status = 'failed'").fetchone()[0]
        c.close()
        self.assertEqual(int(bad.group(1)), failed)
        # valid variants, a plugin failing at step 3 of the seed
        from vsweep_e2e import TEST_PLUGINS
        fail = self.write("f.yaml", open(scenario("two_cars.yaml"),
                          encoding="utf-8").read().replace(
            "behaviour: {plugin: constant_steer, params: "
            "{steering_wheel_deg: 45}}",
            "behaviour: {plugin: fail_at, params: {fail_step: 3}}"))
        rc, _, err = run("check", fail, "-o", self.path("r2.db"),
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        self.assertIn("1 of the 1 variants run to calibrate failed", err)
        self.assertIn("fail_at: failing at step 3", err)

    def test_within_25_percent(self):
        for scen, sweep, rec in CASES:
            with self.subTest(scen=scen):
                args = [scenario(scen), "--sweep", scenario(sweep), *rec]
                rc, out, err = run("check", *args)
                self.assertEqual(rc, 0, err)
                m = ESTIMATE.search(out)
                self.assertIsNotNone(m, out)
                est = float(m.group(3)) * 1e6
                self.assertGreater(float(m.group(4)), 0)
                db = self.path(scen + ".db")
                rc, _, err = run("run", *args, "-o", db)
                self.assertEqual(rc, 0, err)
                real = os.path.getsize(db)
                self.assertLess(abs(est - real) / real, 0.25, (est, real))

    def test_summary_only_size_and_time(self):
        """Found in review: with --record summary the size was the empty
        file's whatever the count (a variant's 300-odd bytes of rows were
        measured as the file's growth after 2 variants, 0 whole pages), so
        a summary night never failed to fit; and the time was the
        calibration's whole wall time over its 2 variants (start-up,
        schema, the WAL's fold) times the count: 615 s for a run of 14 s.
        Size within 25 %; time, on a shared machine, within a factor of 3
        either way."""
        sw = self.write("s3k.yaml", SUMMARY_3K)
        db = self.path("s3k.db")
        args = [scenario("two_cars.yaml"), "--sweep", sw, "--record",
                "summary", "-j", "2", "-o", db]
        rc, out, err = run("check", *args)
        self.assertEqual(rc, 0, err)
        m = ESTIMATE.search(out)
        self.assertIsNotNone(m, out)
        self.assertEqual(m.group(5), "2")
        est, secs = float(m.group(3)) * 1e6, float(m.group(4))
        t0 = time.monotonic()
        rc, _, err = run("run", *args)
        real_secs = time.monotonic() - t0
        self.assertEqual(rc, 0, err)
        real = os.path.getsize(db)
        self.assertLess(abs(est - real) / real, 0.25, (est, real))
        self.assertGreater(secs, real_secs / 3, (secs, real_secs))
        self.assertLess(secs, real_secs * 3, (secs, real_secs))

    def test_free_space_where_the_file_goes(self):
        db = self.path("r.db")
        args = [scenario("circle.yaml"), "--sweep",
                scenario("circle_speed.yaml")]
        rc, out, err = run("check", *args, "-o", db)
        self.assertEqual(rc, 0, err)
        d = disk_line(out)
        self.assertIsNotNone(d, out)
        self.assertEqual(d["dir"], os.path.dirname(db))
        self.assertEqual(d["file"], db)
        # printed to 3 digits; the disk may change a little meanwhile
        self.assertLess(abs(d["free"] - free_bytes(self.tmp)),
                        0.01 * free_bytes(self.tmp) + 50e6, (d, out))
        # 6 variants x 3001 steps x 1 actor, 50-300 bytes each
        self.assertGreater(d["need"], 6 * 3001 * 50)
        self.assertLess(d["need"], 6 * 3001 * 300)
        # the WAL never holds more than the run writes and one commit
        self.assertLess(d["wal"], d["need"] + 50000 * 300 + 3001 * 300)
        # resumed: what the file holds is on the disk already
        rc, _, err = run("run", *args, "-o", db)
        self.assertEqual(rc, 0, err)
        rc, out, err = run("check", *args, "-o", db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertLess(disk_line(out)["need"],
                        0.3 * os.path.getsize(db), out)

    def test_a_shard_is_sized_alone(self):
        """Found in review: check --shard K/N sized the whole sweep (and
        its WAL), so it refused a disk the shard fits on, and with
        --resume held that against what the file had, whatever the shard
        still lacked. Shard 0/4 of 16 variants holds 0, 4, 8, 12: its
        need is within 25 % of the file a run of it writes, and its WAL
        holds no more than the run writes and one commit, itself no more
        than the run. Resumed from a shard of an 8-variant sweep (0, 4
        stored) the 16-variant sweep's shard lacks 8 and 12: its need is
        within 25 % of what the resumed run adds."""
        sw = self.write("w16.yaml", BILLION.replace("1000000000", "16"))
        args = [scenario("circle.yaml"), "--sweep", sw, "--shard", "0/4"]
        db = self.path("s0.db")
        rc, out, err = run("check", *args, "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertIn("shard 0/4: 4 of the 16 variants, 0 of them stored, "
                      "4 to run", out)
        d = disk_line(out)
        self.assertIsNotNone(d, out)
        self.assertLessEqual(d["wal"], 2 * d["need"] * 1.01, out)
        rc, _, err = run("run", *args, "-o", db)
        self.assertEqual(rc, 0, err)
        real = os.path.getsize(db)
        self.assertLess(abs(d["need"] - real) / real, 0.25, (d, real))
        # resumed: a file holding the shard's first two variants
        part = self.path("p0.db")
        sw8 = self.write("w8.yaml", BILLION.replace("1000000000", "8"))
        rc, _, err = run("run", scenario("circle.yaml"), "--sweep", sw8,
                         "--shard", "0/4", "-o", part)
        self.assertEqual(rc, 0, err)
        rc, out, err = run("check", *args, "-o", part, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("shard 0/4: 4 of the 16 variants, 2 of them stored, "
                      "2 to run", out)
        d = disk_line(out)
        before = os.path.getsize(part)
        rc, _, err = run("run", *args, "-o", part, "--resume")
        self.assertEqual(rc, 0, err)
        grown = os.path.getsize(part) - before
        self.assertGreater(grown, 2 * 3001 * 50)
        self.assertLess(abs(d["need"] - grown) / grown, 0.25, (d, grown))

    def test_a_drill_down_is_sized_alone(self):
        """check took --variants and --variants-from but sized the whole
        sweep: 64 variants where the drill-down runs 3. With --variants
        it sizes the chosen variants, within 25 % of the file the same
        drill-down writes; with --variants-from and --where, those the
        SQL picks (as many as the results file says), likewise."""
        sw = self.write("w64.yaml", BILLION.replace("1000000000", "64"))
        base = [scenario("circle.yaml"), "--sweep", sw]
        rc, out, err = run("check", *base, "--variants", "3,40-41",
                           "-o", self.path("d.db"))
        self.assertEqual(rc, 0, err)
        self.assertIn("variants chosen: 3 of the 64", out)
        d = disk_line(out)
        self.assertIsNotNone(d, out)
        rc, _, err = run("run", *base, "--variants", "3,40-41",
                         "-o", self.path("d.db"))
        self.assertEqual(rc, 0, err)
        real = os.path.getsize(self.path("d.db"))
        self.assertLess(abs(d["need"] - real) / real, 0.25, (d, real))
        # the SQL's pick, from a summary-only night
        night = self.path("night.db")
        rc, _, err = run("run", *base, "--record", "summary", "-o", night)
        self.assertEqual(rc, 0, err)
        import sqlite3
        with sqlite3.connect(night) as c:
            (n,) = c.execute("SELECT count(*) FROM variant_summary "
                             "JOIN variant_info USING (variant_id) "
                             "WHERE variant_id % 16 = 5").fetchone()
        self.assertEqual(n, 4)
        pick = ["--variants-from", night, "--where", "variant_id % 16 = 5"]
        rc, out, err = run("check", *base, *pick, "-o", self.path("w.db"))
        self.assertEqual(rc, 0, err)
        self.assertIn("variants chosen: 4 of the 64", out)
        d = disk_line(out)
        rc, _, err = run("run", *base, *pick, "-o", self.path("w.db"))
        self.assertEqual(rc, 0, err)
        real = os.path.getsize(self.path("w.db"))
        self.assertLess(abs(d["need"] - real) / real, 0.25, (d, real))
        # what run refuses, check refuses
        rc, _, err = run("check", *base, "--variants", "70")
        self.assertEqual(rc, 2)
        self.assertIn("variant 70 is past the sweep's 64 variants", err)

    def test_a_failing_variant_does_not_end_the_calibration(self):
        """Found in review: calibration stopped at its first failed
        variant and sized the file from the rows run until then. In
        article_speed_lf (24 variants) variant 23 fails at t = 0.01 s
        (40 m/s is past that set-up's critical speed): check said
        5.91 MB, "calibrated on 2 variants", for a file of 11.1 MB. The
        size within 25 % of the real file, calibrated on more than two
        variants, the failure still said and exit 1 as before."""
        args = [scenario("article.yaml"), "--sweep",
                scenario("article_speed_lf.yaml")]
        rc, out, err = run("check", *args, "-o", self.path("c.db"))
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"\d+ of the \d+ variants run to calibrate "
                              r"failed")
        m = ESTIMATE.search(out)
        self.assertIsNotNone(m, out)
        n = re.search(r"calibrated on (\d+) variants", out)
        self.assertGreater(int(n.group(1)), 2, out)
        est = float(m.group(3)) * 1e6
        db = self.path("a.db")
        rc, _, err = run("run", *args, "-o", db)
        self.assertEqual(rc, 1, err)  # the failed variant
        real = os.path.getsize(db)
        self.assertLess(abs(est - real) / real, 0.25, (est, real))

    def test_a_drill_down_that_chooses_nothing(self):
        """Found in review: with --where choosing no variant, check said
        "variants chosen: 0 of the 8" and then sized (and calibrated on)
        the whole sweep, reading past the empty list of chosen ones. It
        now says the run has nothing to run, and exits 0 as run does."""
        night = self.path("n.db")
        base = [scenario("two_cars.yaml"), "--sweep",
                scenario("two_cars_sweep.yaml")]
        rc, _, err = run("run", *base, "--record", "summary", "-o", night)
        self.assertEqual(rc, 0, err)
        pick = ["--variants-from", night, "--where", "variant_id < 0"]
        rc, out, err = run("check", *base, *pick, "-o", self.path("b.db"))
        self.assertEqual(rc, 0, err)
        self.assertIn("variants chosen: 0 of the 8", out)
        self.assertIn("no variant to run", out)
        self.assertNotIn("calibrated on", out)
        self.assertFalse(os.path.exists(self.path("b.db")))

    def test_check_refuses_the_outputs_run_refuses(self):
        """Found in review: check said nothing (exit 0) of an -o that run
        refuses: a directory, a file in a directory that is not there, a
        scenario given to --overwrite, an empty path, a FIFO. Each now
        gets run's message and status 2, and nothing is changed."""
        scn = scenario("two_cars.yaml")
        text = self.write("keep.yaml", open(scn, encoding="utf-8").read())
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        cases = [
            (["-o", self.tmp], "is a directory"),
            (["-o", self.path("no/such/dir/r.db")],
             "cannot create: No such file or directory"),
            (["-o", text, "--overwrite"], "is not a results file"),
            (["-o", ""], "-o names no file"),
            (["-o", fifo, "--overwrite"], "is not a regular file"),
        ]
        for extra, said in cases:
            with self.subTest(extra=extra):
                rc, _, err = run("check", scn, *extra, timeout=60)
                self.assertEqual(rc, 2, err)
                self.assertIn(said, err)
                # run refuses it with the same words
                rc, _, err2 = run("run", scn, *extra, timeout=60)
                self.assertNotEqual(rc, 0, err2)
                self.assertIn(said, err2)
        self.assertEqual(open(text, encoding="utf-8").read(),
                         open(scn, encoding="utf-8").read())
        self.assertTrue(os.path.exists(fifo))

    def test_a_plugin_that_hangs_ends_the_calibration(self):
        """A review: without --variant-timeout, check on a plugin that
        hangs never returned (its calibration waited as a run would).
        Its variants are now bounded (120 s; 1 s here, through the test
        build's VSWEEP_TEST_CALIBRATE_LIMIT): check stops at the first
        round, says the run would wait for ever, estimates nothing and
        exits 1. crash_hang loops for ever at step 5 of its armed
        variant (tests/plugins/crash)."""
        from vsweep_e2e import TEST_PLUGINS
        scn = self.write("h.yaml", """\
vsweep: 1
step: 0.1
duration: 2
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: crash_hang, params: {armed: 0}}
""")
        import time
        # A call that never returns is ended only in a contained child,
        # which sanitizer builds switch off for the other tests
        # (tests/e2e/meson.build): on again here, as test_crash.py does.
        saved = os.environ.pop("VSWEEP_NO_CONTAINMENT", None)
        self.addCleanup(lambda: saved is None or os.environ.__setitem__(
            "VSWEEP_NO_CONTAINMENT", saved))
        t0 = time.monotonic()
        rc, out, err = run("check", scn, "-o", self.path("h.db"),
                           "--plugin-path", os.path.join(TEST_PLUGINS,
                                                         "crash"),
                           env={"VSWEEP_TEST_CALIBRATE_LIMIT": "1"},
                           timeout=120)
        self.assertLess(time.monotonic() - t0, 60)
        self.assertEqual(rc, 1, err)
        self.assertIn("variants run to calibrate took over 1 s", err)
        self.assertIn("without --variant-timeout a run waits", err)
        self.assertIsNone(ESTIMATE.search(out), out)
        # with a limit of the user's, the run's own: no such word
        rc, out, err = run("check", scn, "-o", self.path("h2.db"),
                           "--plugin-path", os.path.join(TEST_PLUGINS,
                                                         "crash"),
                           "--variant-timeout", "1", timeout=120)
        self.assertEqual(rc, 1, err)
        self.assertNotIn("took over", err)
        self.assertIn("run to calibrate failed", err)

    def test_a_night_that_cannot_fit(self):
        """10^9 variants of 3001 actor-steps at 50 bytes or more each
        are at least 150 TB: no test machine holds that."""
        sw = self.write("billion.yaml", BILLION)
        db = self.path("night.db")
        rc, out, err = run("check", scenario("circle.yaml"), "--sweep", sw,
                           "-o", db)
        self.assertEqual(rc, 2, (out, err))
        self.assertIn("vsweep: check: %s does not fit: it needs about "
                      % db, err)
        self.assertIn("where %s has" % self.tmp, err)
        self.assertIn("write elsewhere (-o)", err)
        d = disk_line(out)
        self.assertGreater(d["need"], 1e9 * 3001 * 50)
        self.assertLess(d["need"], 1e9 * 3001 * 300)
        self.assertFalse(os.path.exists(db))

    def test_a_run_that_will_not_fit_says_so(self):
        """The run itself projects the disk it needs from the variants
        it has stored (its mean bytes per variant times those left) and
        warns once, within seconds, then goes on."""
        sw = self.write("billion.yaml", BILLION)
        db = self.path("night.db")
        p = subprocess.Popen([VSWEEP, "run", scenario("circle.yaml"),
                              "--sweep", sw, "-o", db],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        line = ""
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120:
            line = p.stderr.readline()
            if "warning" in line or not line:
                break
        self.assertIsNone(p.poll(), "the run went on: " + line)
        p.send_signal(signal.SIGINT)
        rest = p.communicate(timeout=120)[1]
        self.assertEqual(p.returncode, 130, rest)
        m = re.search(r"vsweep: warning: (.+): at this rate \(([0-9.]+) "
                      r"(\w+) per variant over the (\d+) stored so far\) "
                      r"the (\d+) variants left need about ([0-9.]+) "
                      r"(\w+) more; (.+) has ([0-9.]+) (\w+) free", line)
        self.assertIsNotNone(m, line + rest)
        g = m.groups()
        self.assertEqual(g[0], db)
        per = float(g[1]) * UNITS[g[2]]
        self.assertGreater(per, 3001 * 50)  # 3001 actor-steps a variant
        self.assertLess(per, 3001 * 300)
        self.assertEqual(int(g[3]) + int(g[4]), 10 ** 9)
        need = float(g[5]) * UNITS[g[6]]
        self.assertLess(abs(need - per * int(g[4])) / need, 0.02)
        self.assertEqual(g[7], self.tmp)
        self.assertLess(abs(float(g[8]) * UNITS[g[9]] -
                            free_bytes(self.tmp)),
                        0.01 * free_bytes(self.tmp) + 200e6)
        self.assertEqual(rest.count("warning"), 0, rest)  # once


if __name__ == "__main__":
    unittest.main()
