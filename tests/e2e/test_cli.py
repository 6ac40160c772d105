"""The command line: subcommands, options, exit statuses, messages."""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

CIRCLE = scenario("circle.yaml")
SPEEDS = scenario("circle_speed.yaml")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class CliTest(TempDirCase):
    def test_version_and_help(self):
        rc, out, _ = run("--version")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^vsweep \d+\.\d+\.\d+ \(plugin ABI 1\.1\)")
        rc, out, _ = run("--help")
        self.assertEqual(rc, 0)
        self.assertIn("vsweep run SCENARIO.yaml", out)

    def test_usage_errors_exit_2(self):
        for args, msg in [
            ((), "missing command"),
            (("frobnicate", CIRCLE), "unknown command"),
            (("run",), "missing SCENARIO.yaml"),
            (("run", CIRCLE, "-j", "0"), "-j needs an integer N from 1 "
             "to 4096, got '0'"),
            (("run", CIRCLE, "-j", "two"), "-j needs an integer N from 1 "
             "to 4096"),
            # found in review: the limit was not said
            (("run", CIRCLE, "-j", "5000"), "-j needs an integer N from 1 "
             "to 4096, got '5000'"),
            (("check", CIRCLE, "-j", "5000"), "-j needs an integer N from "
             "1 to 4096, got '5000'"),
            (("run", CIRCLE, "--shard", "2/2"), "0 <= K < N"),
            (("run", CIRCLE, "--shard", "1"), "0 <= K < N"),
            (("run", CIRCLE, "--record-every", "0"), "--record-every"),
            # found in review: the upper bound was not said ('N >= 1'
            # for 10^12); docs/cli.md gives each option's range
            (("run", CIRCLE, "--record-every", "1000000000000"),
             "--record-every needs an integer N from 1 to 1000000000, got "
             "'1000000000000'"),
            (("run", CIRCLE, "--variant-memory", "2000000000"),
             "--variant-memory needs MB from 0 to 1073741824 (0: no "
             "limit), got '2000000000'"),
            (("run", CIRCLE, "--lock-timeout", "2e9"),
             "--lock-timeout needs seconds > 0 and at most 1000000000, got "
             "'2e9'"),
            (("run", CIRCLE, "--variant-timeout", "2e9"),
             "--variant-timeout needs seconds > 0 and at most 1000000000, "
             "got '2e9'"),
            (("run", CIRCLE, "--variants", "0-10000000"),
             "--variants: the range 0-10000000 holds more than 10000000 "
             "indices, the most one range may"),
            (("run", CIRCLE, "--variants", "5-2"),
             "--variants: the range 5-2 runs down (a range A-B needs "
             "A <= B)"),
            (("run", CIRCLE, "--variants", "3,18446744073709551616"),
             "--variants: an index in '3,18446744073709551616' is beyond "
             "18446744073709551615"),
            (("run", CIRCLE, "--resume", "--overwrite"), "exclude"),
            (("run", CIRCLE, "--bogus"), "unknown or incomplete option"),
        ]:
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn(msg, err, args)

    def test_an_option_given_twice_is_refused(self):
        """A later value silently winning is how a wrapper script's
        default overrides what its user typed: an option with a value
        given twice (under either of its names) is a usage error naming
        both values; --plugin-path adds up."""
        for args, msg in [
            (("--record", "summary", "--record", "state"),
             "--record given twice ('summary', then 'state')"),
            (("-o", "a.db", "--output", "b.db"),
             "--output given twice ('a.db', then 'b.db')"),
            (("-j", "2", "--jobs", "1"), "--jobs given twice ('2', then '1')"),
            (("--variants", "1", "--variants", "2"),
             "--variants given twice ('1', then '2')"),
        ]:
            for cmd in ("run", "check"):
                rc, _, err = run(cmd, CIRCLE, *args)
                self.assertEqual(rc, 2, (cmd, args, err))
                self.assertIn(msg, err, (cmd, args))
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = run("check", CIRCLE, "--plugin-path", d,
                               "--plugin-path", d)
            self.assertEqual(rc, 0, err)
            # export, plot and report alike, before any file is read
            db = os.path.join(d, "r.db")
            for args, msg in [
                (("export", CIRCLE, "--sweep", SPEEDS, "--variant", "0",
                  "--variant", "1", "-o", os.path.join(d, "e.yaml")),
                 "--variant given twice"),
                (("export", CIRCLE, "--sweep", SPEEDS, "--variant", "0",
                  "-o", os.path.join(d, "e1.yaml"), "-o",
                  os.path.join(d, "e2.yaml")), "-o given twice"),
                (("plot", db, "-o", "p1.svg", "--output", "p2.svg"),
                 "--output given twice"),
                (("plot", db, "--kind", "speed", "--kind", "trajectory",
                  "-o", "p.svg"), "--kind given twice"),
                (("report", db, "-o", "a.html", "--by", "min_ttc", "--by",
                  "min_distance"), "--by given twice"),
            ]:
                rc, _, err = run(*args)
                self.assertEqual(rc, 2, (args, err))
                self.assertIn(msg, err, args)
            self.assertEqual(sorted(os.listdir(d)), [])

    def assert_given_twice(self, args, msg, cwd=None):
        """args is a usage error (status 2: docs/cli.md's bad input or
        usage) saying msg, and leaves nothing in cwd."""
        rc, out, err = run(*args, cwd=cwd)
        self.assertEqual(rc, 2, (args, err))
        self.assertIn(msg + ": give it once", err, args)
        self.assertIn("usage", err, args)
        self.assertEqual(out, "", args)
        if cwd:
            self.assertEqual(os.listdir(cwd), [], args)

    def test_plugins_fmu_given_twice_is_refused(self):
        """Two FMUs, each listable alone: the later one was listed and
        the one typed first silently dropped. --plugin-path adds up."""
        fmus = os.environ["VSWEEP_TEST_FMU_DIR"]
        first, later = (os.path.join(fmus, n + ".fmu")
                        for n in ("st3_start", "st3_accel"))
        for fmu in (first, later):
            rc, _, err = run("plugins", "--fmu", fmu)
            self.assertEqual(rc, 0, err)
        self.assert_given_twice(("plugins", "--fmu", first, "--fmu", later),
                                "vsweep: --fmu given twice")
        rc, _, err = run("plugins", "--plugin-path", self.tmp,
                         "--plugin-path", self.tmp, "--fmu", first)
        self.assertEqual(rc, 0, err)

    def test_variants_option_given_twice_is_refused(self):
        """--sweep and --format, each valid alone: the later one won."""
        one = self.write("one.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                         "      - [{actor: 1, speed: 5}]\n")
        for args, msg in [
            (("--sweep", SPEEDS, "--sweep", one), "--sweep given twice"),
            (("--sweep", SPEEDS, "--format", "csv", "--format", "json"),
             "--format given twice"),
        ]:
            self.assert_given_twice(("variants", CIRCLE) + args,
                                    "vsweep: " + msg)

    def test_new_plugin_option_given_twice_is_refused(self):
        """--kind and -o/--output (one option): the later one was made;
        now nothing is."""
        d = self.path("here")
        os.mkdir(d)
        for args, msg in [
            (("--kind", "behaviour", "--kind", "vehicle_model"),
             "--kind given twice"),
            (("--kind", "behaviour", "-o", "a", "--output", "b"),
             "--output given twice"),
            (("--kind", "behaviour", "-o", "a", "-o", "b"),
             "-o given twice"),
        ]:
            self.assert_given_twice(("new-plugin", "lane_keeper") + args,
                                    "vsweep: new-plugin: " + msg, cwd=d)

    def test_missing_input_file_is_named(self):
        missing = self.path("nope.yaml")
        rc, _, err = run("run", missing, "-o", self.path("r.db"))
        self.assertEqual(rc, 2)
        self.assertIn("nope.yaml", err)
        self.assertTrue(err.startswith("vsweep: "))
        self.assertFalse(os.path.exists(self.path("r.db")))
        rc, _, err = run("check", CIRCLE, "--sweep", missing)
        self.assertEqual(rc, 2)
        self.assertIn("nope.yaml", err)

    def test_input_error_has_file_line_col(self):
        text = read(CIRCLE).replace("\nduration:", "\nstpe: 0.01\nduration:")
        bad = self.write("bad.yaml", text)
        rc, _, err = run("check", bad)
        self.assertEqual(rc, 2)
        line = text.splitlines().index("stpe: 0.01") + 1
        self.assertRegex(err, r"^vsweep: %s:%d:1: .*stpe" % (re.escape(bad),
                                                           line))

    def test_check_counts_variants(self):
        rc, out, err = run("check", CIRCLE, "--sweep", SPEEDS)
        self.assertEqual(rc, 0, err)
        self.assertIn("variants: 6", out)
        rc, out, _ = run("check", CIRCLE)
        self.assertEqual(rc, 0)
        self.assertIn("variants: 1", out)

    def test_check_counts_per_block(self):
        sweep = self.write("s.yaml", """\
vsweep: 1
seed: 42
blocks:
  - list:
      - [{actor: 1, speed: 10}]
  - grid:
      - {actor: 1, speed: {from: 5, to: 30, step: 5}}
      - {actor: 1, param: vehicle_model.steering_ratio, values: [14, 15, 16]}
  - random:
      count: 1000
      axes:
        - {actor: 2, speed: {uniform: [5, 25]}}
""")
        rc, out, err = run("check", scenario("two_cars.yaml"), "--sweep",
                           sweep)
        self.assertEqual(rc, 0, err)
        self.assertIn("block 1 (list): 1 variants", out)
        self.assertIn("block 2 (grid): 18 variants", out)  # 6 x 3
        self.assertIn("block 3 (random): 1000 variants", out)
        self.assertIn("variants: 1019", out)

    def test_plugins_lists_shipped_with_params(self):
        rc, out, err = run("plugins")
        self.assertEqual(rc, 0, err)
        for name in ("kinematic_bicycle", "constant_steer", "waypoints"):
            self.assertIn(name, out)
        self.assertIn("steering_wheel_deg", out)
        self.assertIn("steering_ratio", out)

    def test_existing_results_file_is_refused_then_resumed(self):
        db = self.path("r.db")
        args = ("run", CIRCLE, "--sweep", SPEEDS, "-o", db, "-j", "2")
        rc, out, err = run(*args)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("\r", err)  # no progress line into a pipe
        size = os.path.getsize(db)
        rc, _, err = run(*args)
        self.assertEqual(rc, 2)
        self.assertIn("exists", err)
        self.assertEqual(os.path.getsize(db), size)
        rc, out, err = run(*args, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("6 already stored", out)
        self.assertEqual(query(db, "SELECT count(*) FROM variant")[0][0], 6)
        rc, out, err = run(*args, "--overwrite")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant")[0][0], 6)

    def test_resume_refuses_another_sweep(self):
        db = self.path("r.db")
        rc, _, err = run("run", CIRCLE, "-o", db)
        self.assertEqual(rc, 0, err)
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "-o", db,
                         "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("sweep_text differs", err)

    def test_record_every(self):
        db = self.path("r.db")
        rc, _, err = run("run", CIRCLE, "-o", db, "--record-every", "10")
        self.assertEqual(rc, 0, err)
        steps = [s for (s,) in query(db, "SELECT step FROM actor_state "
                                     "ORDER BY step")]
        self.assertEqual(steps, list(range(0, 3001, 10)))

    def test_record_choice_keeps_views_valid(self):
        db = self.path("r.db")
        rc, _, err = run("run", CIRCLE, "-o", db, "--record", "state")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_state")[0][0],
                         3001)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_pose")[0][0],
                         3001)
        self.assertEqual(query(db, "SELECT count(*) FROM wheel_pose")[0][0],
                         0)
        meta = dict(query(db, "SELECT key, value FROM meta"))
        self.assertEqual(meta["record"], "state")
        rc, _, err = run("run", CIRCLE, "-o", db, "--record", "wheels",
                         "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("record differs", err)
        rc, _, err = run("run", CIRCLE, "-o", db, "--record", "speed")
        self.assertEqual(rc, 2)
        self.assertIn("--record takes", err)

    def test_progress_line_on_a_terminal(self):
        import pty
        import subprocess
        db = self.path("r.db")
        master, slave = pty.openpty()
        p = subprocess.Popen([os.environ["VSWEEP"], "run", CIRCLE, "--sweep",
                              SPEEDS, "-o", db], stdout=subprocess.DEVNULL,
                             stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        p.wait(timeout=60)
        out = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        text = out.decode()
        self.assertEqual(p.returncode, 0, text)
        self.assertIn("\r", text)
        self.assertRegex(text, r"6/6 variants, 0 failed, [0-9.e+]+ "
                               r"actor-steps/s, ETA \d+:\d\d:\d\d")

    def test_sweep_record_is_stored(self):
        db = self.path("r.db")
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "-o", db)
        self.assertEqual(rc, 0, err)
        meta = dict(query(db, "SELECT key, value FROM meta"))
        self.assertEqual(meta["scenario_text"], read(CIRCLE))
        self.assertEqual(meta["sweep_text"], read(SPEEDS))
        self.assertRegex(meta["vsweep_version"], r"^\d+\.\d+\.\d+$")
        plugins = query(db, "SELECT name, kind, version FROM plugin "
                        "ORDER BY name")
        self.assertEqual([p[:2] for p in plugins],
                         [("constant_steer", "behaviour"),
                          ("kinematic_bicycle", "vehicle_model")])
        info = query(db, "SELECT actor_id, name, kind, parent_id, "
                     "attach_type, length, width, height, wheel_count, "
                     "vehicle_model, behaviour FROM actor_info WHERE "
                     "variant_id = 0")
        self.assertEqual(info, [(1, "ego", "vehicle", 0, None, 4.8, 1.9, 1.5,
                                 4, "kinematic_bicycle", "constant_steer")])


# A sweep slow enough to watch: 1200 variants of 100 * duration steps each
# (at duration 6, under a second with --record state -j 1, and less as the
# writer gets faster). Each test gives the duration it needs: a run that
# outlasts what it watches on a loaded machine or under ASan.
SLOW_SCENARIO = """\
vsweep: 1
name: slow enough to watch
step: 0.01
duration: %d
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0, track: 1.6,
          wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [0, 0, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 45}}
"""
SLOW_SWEEP = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, speed: {from: 1, to: 40, step: 1}}
      - {actor: 1, param: behaviour.steering_wheel_deg, value: {from: 1, to: 30, step: 1}}
"""
STARTING = re.compile(r"^vsweep: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z: "
                      r"starting$")
STAMP = re.compile(r"^vsweep: (\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d\.\d{3})Z: "
                   r"(\d+)/1200 variants \((\d+) done, (\d+) failed\)"
                   r"(, [0-9.e+]+ variants/s)?(, ETA \d+:\d\d:\d\d)?$")


class CommandLineGuessTest(TempDirCase):
    """Every command answers --help; misspellings get a suggestion."""

    def test_every_command_answers_help(self):
        for cmd in ["run", "check", "merge", "status", "plugins", "plot",
                    "report", "new-plugin", "variants", "export"]:
            for flag in ["--help", "-h"]:
                rc, out, err = run(cmd, flag)
                self.assertEqual(rc, 0, (cmd, err))
                self.assertIn("usage: vsweep " + cmd, out)
                self.assertEqual(err, "")
        # --help anywhere after the command, even after other words
        rc, out, _ = run("run", CIRCLE, "--help")
        self.assertEqual(rc, 0)
        self.assertIn("--progress-interval", out)

    def test_did_you_mean(self):
        for args, want in [
            (("rnu", CIRCLE), "unknown command 'rnu'; did you mean 'run'?"),
            (("reprot", "x.db"), "did you mean 'report'?"),
            (("run", CIRCLE, "--progres"), "did you mean '--progress'?"),
            (("run", CIRCLE, "--overwirte"), "did you mean '--overwrite'?"),
            (("check", CIRCLE, "--sweeep", SPEEDS), "did you mean '--sweep'?"),
            (("report", "x.db", "-o", "r.html", "--wrost", "3"),
             "did you mean '--worst'?"),
        ]:
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn(want, err)
        # nothing near: no suggestion
        rc, _, err = run("run", CIRCLE, "--zzzzzzzz")
        self.assertEqual(rc, 2)
        self.assertNotIn("did you mean", err)
        # a --plugin-path that is no directory: noted (a typo showed only
        # as a plugin not found, or not at all)
        for d, want in ((self.path("none"), "no such directory"),
                        (CIRCLE, "not a directory")):
            rc, _, err = run("check", CIRCLE, "--plugin-path", d)
            self.assertEqual(rc, 0, err)
            self.assertIn("vsweep: note: --plugin-path %s: %s; not "
                          "searched" % (d, want), err)
            # found in review: `plugins` then listed it as searched
            rc, out, err = run("plugins", "--plugin-path", d)
            self.assertEqual(rc, 0, err)
            self.assertIn("not searched", err)
            searched = [l for l in out.splitlines()
                        if l.startswith("searched:")]
            self.assertEqual(len(searched), 1, out)
            self.assertNotIn(d, searched[0].split())
        # an option that needs a value, last: said so (it was "unknown
        # option '-o'; did you mean '-o'?")
        for o, want in [("-o", "-o needs a file name"),
                        ("--output", "--output needs a file name"),
                        ("--sweep", "--sweep needs a sweep file"),
                        ("--plugin-path", "--plugin-path needs a directory")]:
            for cmd in ("run", "check"):
                rc, _, err = run(cmd, CIRCLE, o)
                self.assertEqual(rc, 2, (cmd, o))
                self.assertIn("vsweep: " + want, err)
                self.assertNotIn("did you mean", err)


class NightLogTest(TempDirCase):
    """Progress for a log file: full lines at the set interval, and
    `vsweep status` from another process."""

    def seconds(self, m):
        h, mi, s = int(m.group(4)), int(m.group(5)), float(m.group(6))
        return h * 3600 + mi * 60 + s

    def test_progress_lines_at_the_interval(self):
        """Lines every 0.25 s of a run of about 5 s (twice that under ASan):
        enough lines for their spacing to say something. At duration 6
        the run took under a second, 4 lines, fewer as the writer got
        faster, and the test needs 3."""
        import subprocess
        scn = self.write("s.yaml", SLOW_SCENARIO % 30)
        sw = self.write("w.yaml", SLOW_SWEEP)
        db = self.path("r.db")
        p = subprocess.run([os.environ["VSWEEP"], "run", scn, "--sweep", sw,
                            "-o", db, "-j", "1", "--record", "state",
                            "--progress", "--progress-interval", "0.25"],
                           capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("\r", p.stderr)
        # (a sanitizer build may add its own reports; they are not ours)
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("vsweep")]
        # a line due before the file can be read says "starting" (a slow
        # start on a loaded machine, under a sanitizer); only before the
        # first count
        while lines and STARTING.match(lines[0]):
            lines.pop(0)
        stamps = [STAMP.match(ln) for ln in lines]
        self.assertTrue(all(stamps), lines)
        self.assertGreaterEqual(len(lines), 3, lines)
        t = [self.seconds(m) for m in stamps]
        # the lines but the last (written when the run ends) fall on the
        # grid t0 + k * 0.25 s: the typical gap is the interval, and a line
        # the scheduler woke late does not shift the ones after it
        body = t[:-1]
        gaps = sorted(b - a for a, b in zip(body, body[1:]))
        self.assertAlmostEqual(gaps[len(gaps) // 2], 0.25, delta=0.03)
        for ti in body:
            k = round((ti - body[0]) / 0.25)
            self.assertLess(abs(ti - body[0] - 0.25 * k), 0.2, lines)
        # and never more than one line an interval
        self.assertLessEqual(len(body) - 1,
                             round((body[-1] - body[0]) / 0.25), lines)
        self.assertLessEqual(t[-1] - t[-2], 0.25 + 0.2, lines)
        # counts never go down; the last line is the whole sweep
        done = [int(m.group(8)) for m in stamps]
        self.assertEqual(done, sorted(done))
        self.assertEqual(done[-1], 1200)
        self.assertRegex(lines[1], r"variants/s")

    def test_first_progress_line_has_a_rate(self):
        """Found in review: the first progress line took its own count
        as the run's start, so a line written once variants were stored
        said "13/400 variants (13 done, 0 failed), 0 variants/s". The
        count at the run's start is the file's (0 here), so every line
        with variants stored has a rate above 0."""
        import subprocess
        sw = self.write("w.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                        "  - random:\n      count: 300\n      axes:\n"
                        "        - {actor: 1, speed: {uniform: [5, 25]}}\n")
        p = subprocess.run([os.environ["VSWEEP"], "run",
                            scenario("two_cars.yaml"), "--sweep", sw, "-o",
                            self.path("r.db"), "-j", "1", "--progress",
                            "--progress-interval", "0.5"],
                           capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        line = re.compile(r"^vsweep: \S+Z: (\d+)/300 variants ")
        counted = [ln for ln in p.stderr.splitlines()
                   if line.match(ln) and int(line.match(ln).group(1))]
        self.assertTrue(counted, p.stderr)
        for ln in counted:
            m = re.search(r"([0-9.e+]+) variants/s", ln)
            self.assertTrue(m, ln)
            self.assertGreater(float(m.group(1)), 0, ln)

    def test_status_of_a_running_stopped_and_finished_file(self):
        """status while the run runs (then SIGTERM), once it stopped, and
        of a finished file. The run would take minutes; it is stopped as
        soon as status shows it under way, so no starved poller finds it
        finished, or sees it end between status and the signal: a run of
        a second did both on loaded CI machines."""
        import signal
        import subprocess
        import time
        scn = self.write("s.yaml", SLOW_SCENARIO % 600)
        sw = self.write("w.yaml", SLOW_SWEEP)
        db = self.path("r.db")
        p = subprocess.Popen([os.environ["VSWEEP"], "run", scn, "--sweep",
                              sw, "-o", db, "-j", "1", "--record", "state"],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        seen = None
        try:
            deadline = time.monotonic() + 120
            while p.poll() is None and time.monotonic() < deadline:
                rc, out, err = run("status", db)
                m = re.search(r": running \(pid \d+\): (\d+)/1200 "
                              r"variants \((\d+) done, "
                              r"0 failed\), [0-9.e+]+ variants/s, ETA "
                              r"\d+:\d\d:\d\d, started \d{4}-", out)
                if rc == 0 and m and 0 < int(m.group(1)) < 1200:
                    seen = out
                    p.send_signal(signal.SIGTERM)  # a clean stop
                    break
                time.sleep(0.1)
        finally:
            p.wait(timeout=300)
        self.assertTrue(seen, "never saw the run in progress")
        self.assertEqual(p.returncode, 130)
        # status first: an SQL connection left open would hold the WAL
        # file, which is how status tells a running sweep
        rc, out, _ = run("status", db)
        self.assertEqual(rc, 0)
        n = query(db, "SELECT count(*) FROM variant_info")[0][0]
        self.assertLess(n, 1200)
        self.assertIn(": stopped (continue it with vsweep run ... --resume): "
                      "%d/1200 variants (%d done, 0 failed)" % (n, n), out)
        # a finished file
        small = self.path("small.db")
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "-o", small)
        self.assertEqual(rc, 0, err)
        rc, out, _ = run("status", small)
        self.assertEqual(rc, 0)
        self.assertIn(": finished: 6/6 variants (6 done, 0 failed)", out)
        for bad in [(self.path("missing.db"),), (scn,), ()]:
            rc, _, err = run("status", *bad)
            self.assertEqual(rc, 2, bad)

    def test_status_of_files_resume_does_not_take(self):
        """Found in review: a drill-down's file and a partial merge were
        "stopped (continue it with vsweep run ... --resume)", which run
        then refused; status says what can be done instead."""
        dd = self.path("dd.db")
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "--variants",
                         "1,3", "-o", dd)
        self.assertEqual(rc, 0, err)
        rc, out, _ = run("status", dd)
        self.assertEqual(rc, 0)
        self.assertIn(": drill-down (its variants are the selection it was "
                      "run for; --resume does not take it: if it was "
                      "interrupted, run the drill-down again with "
                      "--overwrite): 2 variants (2 done, 0 failed)", out)
        # shard 1 of 2 of 6 variants (1, 3, 5) merged alone
        part, merged = self.path("s1.db"), self.path("m.db")
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "--shard", "1/2",
                         "-o", part)
        self.assertEqual(rc, 0, err)
        rc, _, err = run("merge", merged, part, "--allow-partial")
        self.assertEqual(rc, 0, err)
        rc, out, _ = run("status", merged)
        self.assertEqual(rc, 0)
        self.assertIn(": incomplete (its variants are not the first ones "
                      "of its sweep, as a merge of some of the shards "
                      "leaves it, so --resume does not take it: merge "
                      "again with the missing shards): 3/6 variants", out)
        rc, _, err = run("run", CIRCLE, "--sweep", SPEEDS, "-o", merged,
                         "--resume")
        self.assertEqual(rc, 2, err)  # as status said

    def test_check_refuses_what_run_refuses_about_o(self):
        """Found in review: check passed (exit 0, "needs about ...") an
        -o that run then refused: an existing file without --resume or
        --overwrite, and a --resume with another --record."""
        db = self.path("r.db")
        args = [CIRCLE, "--sweep", SPEEDS, "-o", db]
        rc, _, err = run("run", *args, "--record", "state")
        self.assertEqual(rc, 0, err)
        for extra, want in [
                (("--record", "state"),
                 "vsweep: %s: exists; use --resume to continue it or "
                 "--overwrite to replace it" % db),
                (("--resume", "--record", "summary"),
                 "vsweep: %s: cannot resume: its record differs" % db)]:
            for cmd in ("run", "check"):
                with self.subTest(cmd=cmd, extra=extra):
                    rc, out, err = run(cmd, *args, *extra)
                    self.assertEqual(rc, 2, (out, err))
                    self.assertIn(want, err)
                    self.assertNotIn("needs about", out)
        # what run takes, check takes
        for extra in (("--resume",), ("--overwrite",)):
            rc, out, err = run("check", *args, "--record", "state", *extra)
            self.assertEqual(rc, 0, err)
            self.assertIn("needs about", out)
        # without -o the default results.db of an earlier run is a note:
        # check is mostly asked about the scenario
        rc, out, err = run("run", CIRCLE, "--sweep", SPEEDS, cwd=self.tmp)
        self.assertEqual(rc, 0, err)
        rc, out, err = run("check", CIRCLE, "--sweep", SPEEDS, cwd=self.tmp)
        self.assertEqual(rc, 0, err)
        self.assertIn("note: results.db exists: a run with these options "
                      "would refuse it", err)
        self.assertIn("needs about", out)

if __name__ == "__main__":
    unittest.main()
