"""Plugin ABI 1.1 end to end: outputs stored as signals, plugin messages
visible, and a plugin built from the frozen ABI 1.0 header still running.

- bicycle_linear under a constant steer reaches its steady state; its
  actor_signal values are checked against the closed forms of the linear
  two-wheel model (Abe): r = V delta / ((1 + A V^2) l),
  beta = (1 - m lf V^2 / (2 l lr Kr)) / (1 + A V^2) * lr / l * delta,
  Yf = m V r lr / l, Yr = m V r lf / l (force and moment balance),
  alpha = -Y / (2 K), ay = V r.
- bicycle_steady reports A = -m/(2 l^2)(lf Kf - lr Kr)/(Kf Kr) and the
  radius (1 + A V^2) l / delta.
- each signal's unit is the one its plugin's descriptor declares.
- `--record signals=NAME` stores only that signal; no --record signals,
  none.
- abi10_straight (ABI 1.0) drives straight: x = x0 + v t.
- warnings reach stderr (a few per variant) and the `log` view (all).
- a message (or, contained, a printed line) is kept whole up to 4096
  bytes; a longer one is cut on a character boundary and says how many
  bytes it lost, alike contained or not, whatever -j.
"""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run  # noqa: E402

M, L, LF, KF, KR, IZ = 2000.0, 3.0, 1.4, 30e3, 30e3, 3000.0
V = 15.0                                  # m/s
DELTA = math.radians(30) / 15             # rad: 30 deg at the wheel / 15
LR = L - LF
A = -M / (2 * L * L) * (LF * KF - LR * KR) / (KF * KR)

SCENARIO = """vsweep: 1
name: signals
step: 0.01
duration: %(duration)s
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [0, 0, 0], yaw: 0}
    speed: %(v)s
    vehicle_model:
      %(model)s
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
"""

LINEAR = ("{plugin: bicycle_linear, params: {m: 2000, lf: 1.4, Kf: 30e3, "
          "Kr: 30e3, Iz: 3000, steering_ratio: 15}}")
STEADY = ("{plugin: bicycle_steady, params: {m: 2000, lf: 1.4, Kf: 30e3, "
          "Kr: 30e3, steering_ratio: 15}}")


class SignalsTest(TempDirCase):
    def scenario(self, model, duration=20, v=V, name="s.yaml"):
        return self.write(name, SCENARIO % dict(model=model,
                                                 duration=duration, v=v))

    def signals(self, db, step=None):
        sql = "SELECT name, value FROM actor_signal WHERE actor_id = 1"
        if step is not None:
            sql += " AND step = %d" % step
        return dict(query(db, sql))

    def test_linear_steady_state(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.scenario(LINEAR), "-o", db,
                         "--record", "signals")
        self.assertEqual(rc, 0, err)
        got = self.signals(db, 2000)
        r = V * DELTA / ((1 + A * V * V) * L)
        beta = ((1 - M * LF * V * V / (2 * L * LR * KR)) / (1 + A * V * V)
                * LR / L * DELTA)
        yf, yr = M * V * r * LR / L, M * V * r * LF / L
        want = {"bicycle_linear.beta": beta,
                "bicycle_linear.yaw_rate": r,
                "bicycle_linear.ay": V * r,
                "bicycle_linear.Fyf": yf,
                "bicycle_linear.Fyr": yr,
                "bicycle_linear.alpha_f": -yf / (2 * KF),
                "bicycle_linear.alpha_r": -yr / (2 * KR)}
        self.assertEqual(set(got), set(want))
        for k, w in want.items():
            self.assertAlmostEqual(got[k], w, delta=1e-9 * max(1, abs(w)),
                                   msg=k)
        # one value per output per step, t from the step
        n = query(db, "SELECT count(*), max(t) FROM actor_signal")[0]
        self.assertEqual(n[0], 7 * 2001)
        self.assertAlmostEqual(n[1], 20.0)
        # the yaw rate signal is the stored state's wz
        wz = query(db, "SELECT wz FROM actor_state WHERE step = 2000")[0][0]
        self.assertAlmostEqual(got["bicycle_linear.yaw_rate"], wz,
                               delta=1e-12)

    def test_units_stored(self):
        """Each signal is stored with the unit bicycle_linear's descriptor
        declares for it (plugins/linear_track.h, LT_OUTPUTS), in
        signal_name and in actor_signal; run in contained children (the
        default, the names crossing a socket) and in this process."""
        want = {"bicycle_linear.beta": "rad",
                "bicycle_linear.yaw_rate": "rad/s",
                "bicycle_linear.ay": "m/s^2",
                "bicycle_linear.alpha_f": "rad",
                "bicycle_linear.alpha_r": "rad",
                "bicycle_linear.Fyf": "N",
                "bicycle_linear.Fyr": "N"}
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            db = self.path("u%d.db" % len(env))
            rc, _, err = run("run", self.scenario(LINEAR, duration=0.5), "-o",
                             db, "--record", "signals", env=env)
            self.assertEqual(rc, 0, err)
            self.assertEqual(dict(query(db, "SELECT name, unit FROM "
                                        "signal_name")), want, env)
            self.assertEqual(set(query(db, "SELECT DISTINCT name, unit FROM "
                                       "actor_signal")), set(want.items()))

    def test_steady_outputs(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.scenario(STEADY, duration=1), "-o", db,
                         "--record", "signals")
        self.assertEqual(rc, 0, err)
        got = self.signals(db, 50)
        self.assertAlmostEqual(got["bicycle_steady.A"], A, delta=1e-15)
        self.assertAlmostEqual(got["bicycle_steady.radius"],
                               (1 + A * V * V) * L / DELTA, delta=1e-9)

    def test_choose_signals(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.scenario(LINEAR, duration=1), "-o", db,
                         "--record",
                         "state,signals=bicycle_linear.Fyr,"
                         "bicycle_linear.beta")
        self.assertEqual(rc, 0, err)
        names = [n for (n,) in query(db, "SELECT DISTINCT name FROM "
                                     "actor_signal ORDER BY name")]
        self.assertEqual(names, ["bicycle_linear.Fyr", "bicycle_linear.beta"])
        rec = query(db, "SELECT value FROM meta WHERE key = 'record'")[0][0]
        self.assertEqual(rec, "state,signals=bicycle_linear.Fyr,"
                              "bicycle_linear.beta")

    def test_no_signals_by_default(self):
        db = self.path("r.db")
        rc, _, err = run("run", self.scenario(LINEAR, duration=1), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_signal"),
                         [(0,)])

    def test_bad_signal_list(self):
        for bad in ("signals=beta", "signals=a.b.c", "state,x.y",
                    "signals,signals=a.b", "", ",", "pairs=50,pairs=60",
                    "state,pairs,pairs"):
            rc, _, err = run("run", self.scenario(LINEAR), "-o",
                             self.path("x.db"), "--record", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("--record", err)
        # well-formed names of nothing: refused before anything runs (they
        # were taken, and no signal stored)
        for cmd in ("run", "check"):
            for bad, want in (
                    ("state,signals=nosuch.Fyr",
                     "--record signals=nosuch.Fyr: no plugin 'nosuch'"),
                    ("state,signals=bicycle_linear.nope",
                     "plugin 'bicycle_linear' has no output 'nope'")):
                rc, _, err = run(cmd, self.scenario(LINEAR), "-o",
                                 self.path("x.db"), "--record", bad)
                self.assertEqual(rc, 2, (cmd, bad, err))
                self.assertIn(want, err)
                self.assertFalse(os.path.exists(self.path("x.db")))

    def test_abi10_plugin_runs(self):
        db = self.path("r.db")
        env = {"VSWEEP_PLUGIN_PATH": os.environ["VSWEEP_TEST_PLUGINDIR"]}
        rc, _, err = run("run", self.scenario(
            "{plugin: abi10_straight}", duration=2, v=10), "-o", db,
            "--record", "signals", env=env)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT step, x, y FROM actor_state ORDER BY step")
        self.assertEqual(len(rows), 201)
        for k, x, y in rows:  # yaw 0 faces +Y
            self.assertAlmostEqual(x, 0.0, delta=1e-12)
            self.assertAlmostEqual(y, 10.0 * 0.01 * k, delta=1e-9)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_signal"),
                         [(0,)])
        rc, out, _ = run("plugins", env=env)
        self.assertIn("abi10_straight", out)

    def test_plugin_messages(self):
        env = {"VSWEEP_PLUGIN_PATH": os.environ["VSWEEP_TEST_PLUGINDIR"]}
        model = "{plugin: abi10_straight, params: {warn_every: 10}}"
        path = self.scenario(model, duration=1, v=5)
        db = self.path("r.db")
        rc, _, err = run("run", path, "-o", db, env=env)
        self.assertEqual(rc, 0, err)
        # steps 10, 20, ..., 100: ten warnings; five on stderr, then one
        # line saying the rest are in the log view
        lines = [ln for ln in err.splitlines() if "abi10_straight" in ln]
        self.assertEqual(len(lines), 5, err)
        self.assertIn("vsweep: variant 0: actor 1: abi10_straight: "
                      "warning: step 10", err)
        self.assertIn("further plugin messages not shown", err)
        rows = query(db, "SELECT variant_id, actor_id, t, level, plugin, "
                     "message FROM log ORDER BY t")
        self.assertEqual(len(rows), 10)
        self.assertEqual(rows[0][:5], (0, 1, 0.1, "warning",
                                       "abi10_straight"))
        self.assertEqual(rows[-1][5], "step 100")
        # info shows with --plugin-log info; none hides everything
        db2 = self.path("r2.db")
        rc, _, err = run("run", path, "-o", db2, "--plugin-log", "info",
                         env=env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db2, "SELECT level, message FROM log "
                               "ORDER BY rowid LIMIT 1"),
                         [("info", "created")])
        db3 = self.path("r3.db")
        rc, _, err = run("run", path, "-o", db3, "--plugin-log", "none",
                         env=env)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("abi10_straight", err)
        self.assertEqual(query(db3, "SELECT count(*) FROM log"), [(0,)])
        rc, _, err = run("run", path, "-o", self.path("r4.db"),
                         "--plugin-log", "loud", env=env)
        self.assertEqual(rc, 2)
        self.assertIn("--plugin-log", err)


LONG_SCENARIO = """vsweep: 1
name: long messages
step: 0.1
duration: 0.3
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7,
        front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: long_log, params: {PARAMS}}
"""

# long_log's message of n bytes (n even): "a", (n - 2) / 2 two-byte 'e'
# acute, "z".
def text_of(n):
    return "a" + "\u00e9" * ((n - 2) // 2) + "z"


# What the log view keeps of that message (docs/plugins.md): whole up to
# 4096 bytes; past them, the whole characters within the first 4096 (an
# 'e' acute spans bytes 4095 and 4096 of an even n, so 4095 bytes: "a"
# and 2047 of them), then "\u2026 [N more bytes]", N = n - 4095.
def kept_of(n):
    if n <= 4096:
        return text_of(n)
    return "a" + "\u00e9" * 2047 + "\u2026 [%d more bytes]" % (n - 4095)


class LongMessageTest(TempDirCase):
    """Messages were cut at 239 bytes, unmarked (a log row's message was a
    240-byte array)."""

    SIZES = (10000, 4096, 4098)

    def sweep(self, params, swept, env, jobs):
        """Runs long_log with params over a list sweep of its param swept
        through SIZES, contained unless env says not; (rc, out, err,
        db)."""
        scn = self.write("s.yaml", LONG_SCENARIO.replace("PARAMS", params))
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n" + "".join(
            "      - [{actor: 1, param: behaviour.%s, value: %d}]\n"
            % (swept, n) for n in self.SIZES))
        db = self.path("r%d.db" % len(os.listdir(self.tmp)))
        saved = os.environ.pop("VSWEEP_NO_CONTAINMENT", None)  # sanitizers
        try:
            rc, out, err = run("run", scn, "--sweep", sw, "-o", db, "-j",
                               str(jobs), "--plugin-path",
                               os.environ["VSWEEP_TEST_PLUGINDIR"], env=env)
        finally:
            if saved is not None:
                os.environ["VSWEEP_NO_CONTAINMENT"] = saved
        return rc, out, err, db

    def test_long_messages_are_cut_and_marked(self):
        """300 bytes, then 10000, 4096 or 4098 at step 1: the same rows
        contained at -j 2 and in vsweep's own process at -j 1 and 2, and
        the same lines on stderr."""
        self.assertEqual(len(kept_of(300).encode()), 300)
        self.assertEqual(len(kept_of(4096).encode()), 4096)
        want = []
        for v, n in enumerate(self.SIZES):
            want += [(v, 1, "warning", "long_log", kept_of(300)),
                     (v, 1, "warning", "long_log", kept_of(n))]
        for env, jobs in (({}, 2), ({"VSWEEP_NO_CONTAINMENT": "1"}, 1),
                          ({"VSWEEP_NO_CONTAINMENT": "1"}, 2)):
            with self.subTest(env=env, jobs=jobs):
                rc, _, err, db = self.sweep("log_step: 1", "long_bytes",
                                            env, jobs)
                self.assertEqual(rc, 0, err)
                self.assertEqual(query(db, "SELECT variant_id, actor_id, "
                                       "level, plugin, message FROM log "
                                       "ORDER BY variant_id, rowid"), want)
                for v, n in enumerate(self.SIZES):
                    self.assertIn("vsweep: variant %d: actor 1: long_log: "
                                  "warning: %s\n" % (v, kept_of(n)), err)

    def test_long_printed_lines_are_cut_and_marked(self):
        """A contained plugin's printed line (level 'output') likewise;
        vsweep's stdout is its summary line alone."""
        rc, out, err, db = self.sweep("log_step: 1", "print_bytes", {}, 2)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.count("\n"), 1, out[:200])
        self.assertEqual(query(db, "SELECT variant_id, level, message FROM "
                               "log WHERE level = 'output' ORDER BY "
                               "variant_id, rowid"),
                         [(v, "output", kept_of(n))
                          for v, n in enumerate(self.SIZES)])

if __name__ == "__main__":
    unittest.main()
