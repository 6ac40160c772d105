"""A variant whose plugin fails, or whose state goes non-finite, is stored
as failed with its reason; the other variants complete; exit status 1."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TEST_PLUGINS, TempDirCase, query, run  # noqa: E402

SCENARIO = """\
vsweep: 1
name: failures
step: 0.1
duration: 5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: fail_at, params: {fail_step: -1}}
  - id: 2
    asset: car
    start: {position: [10, 0, 0], yaw: 0}
    speed: 5
    vehicle_model: {plugin: nan_model, params: {nan_step: -1}}
"""

SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 6}]
      - [{actor: 1, param: behaviour.fail_step, value: 20}]
      - [{actor: 1, speed: 7}]
      - [{actor: 2, param: vehicle_model.nan_step, value: 30}]
      - [{actor: 1, speed: 8}]
"""


class FailureTest(TempDirCase):
    def test_failed_variants_are_isolated(self):
        scn = self.write("s.yaml", SCENARIO)
        sw = self.write("w.yaml", SWEEP)
        db = self.path("r.db")
        rc, out, err = run("run", scn, "--sweep", sw, "-o", db, "-j", "2",
                           "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        rows = query(db, "SELECT variant_id, status, error FROM variant_info"
                     " ORDER BY variant_id")
        self.assertEqual([r[1] for r in rows],
                         ["done", "failed", "done", "failed", "done"])
        self.assertIsNone(rows[0][2])
        self.assertIn("actor 1", rows[1][2])
        self.assertIn("fail_at", rows[1][2])
        self.assertIn("actor 2", rows[3][2])
        self.assertIn("non-finite", rows[3][2])
        # Done variants hold every step; failed ones only finite steps
        # before the failure, and never a NaN.
        for v, n in query(db, "SELECT variant_id, count(*) FROM actor_state "
                          "GROUP BY variant_id"):
            if v in (0, 2, 4):
                self.assertEqual(n, 2 * 51)
            else:
                self.assertLess(n, 2 * 51)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_state WHERE "
                               "x IS NULL OR x != x")[0][0], 0)
        self.assertIn("2 failed", out)
        # Each failed variant is said on stderr with its stored reason
        # (the plugin's own error message comes before, as it logs it).
        self.assertEqual([ln for ln in err.splitlines()
                          if ": failed: " in ln],
                         ["vsweep: variant %d: failed: %s" % (v, rows[v][2])
                          for v in (1, 3)])

    def test_wall_clock_limit_fails_only_the_slow_variant(self):
        scn = self.write("s.yaml", SCENARIO)
        sw = self.write("w.yaml", """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 6}]
      - [{actor: 1, param: behaviour.sleep_ms, value: 20}]
      - [{actor: 1, speed: 7}]
""")
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db, "-j", "2",
                         "--variant-timeout", "0.3", "--plugin-path",
                         TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        rows = query(db, "SELECT status, error FROM variant_info ORDER BY "
                     "variant_id")
        self.assertEqual([r[0] for r in rows], ["done", "failed", "done"])
        self.assertIn("exceeded the wall-clock limit of 0.3 s", rows[1][1])
        self.assertIn("vsweep: variant 1: failed: " + rows[1][1], err)

    def test_slow_steps_are_stopped_between_steps(self):
        """A review: a plugin taking 0.3 s a step with --variant-timeout 1
        was killed by the containment a second past the limit ("inside a
        plugin call", no rows): the limit was read every 16 steps, 4.8 s
        of such steps. Once steps are slow it is read at every step: the
        variant stops between steps just past 1 s (step 4, at 0.3 s a
        step, or 5 on a loaded machine) with the rows of the steps
        before it, as a quick variant's limit does."""
        scn = self.write("s.yaml", SCENARIO)
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                        "      - [{actor: 1, param: behaviour.sleep_ms, "
                        "value: 300}]\n")
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--variant-timeout", "1", "--plugin-path",
                         TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM "
                                     "variant_info")
        self.assertEqual(status, "failed")
        m = re.search(r"exceeded the wall-clock limit of 1 s at step (\d+)",
                      error)
        self.assertTrue(m, error)
        self.assertNotIn("inside a plugin call", error)
        k = int(m.group(1))
        self.assertGreaterEqual(k, 4)  # 3 steps take 0.9 s
        self.assertLessEqual(k, 7)     # the kill came at step 7
        (n,) = query(db, "SELECT count(DISTINCT step) FROM state")[0]
        self.assertEqual(n, k)  # steps 0 .. k - 1

    def test_plugin_text_reaches_nobody_raw(self):
        """A plugin's message with ESC, BEL and bytes that are not UTF-8:
        escaped on stderr and in the stored reason (it went to the
        terminal byte for byte)."""
        scn = self.write("s.yaml", SCENARIO.replace(
            "fail_step: -1}", "fail_step: 3, raw_bytes: 1}"))
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        want = "as asked \\x1b[31m\\x07\\xff\\xfe"
        self.assertIn(want, err)
        self.assertNotIn("\x1b", err)
        (error,), = query(db, "SELECT error FROM variant_info")
        self.assertIn(want, error)
        (msg,), = query(db, "SELECT message FROM log WHERE level = 'error'")
        self.assertIn(want, msg)

    def test_long_reason_is_whole_utf8(self):
        """A reason cut to its buffer ended inside a character (an actor
        named with 600 'é'): the stored text was not UTF-8."""
        scn = self.write("s.yaml", SCENARIO.replace(
            "fail_step: -1}", "fail_step: 3}").replace(
            "  - id: 1\n", "  - id: 1\n    name: x%s\n" % ("\u00e9" * 600),
            1))
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        # read as text: sqlite3 refuses a column that is not UTF-8
        (error,), = query(db, "SELECT error FROM variant_info")
        self.assertTrue(error.startswith("actor 1 (x\u00e9"), error[:40])
        self.assertGreater(len(error.encode()), 1000)

    def test_a_night_of_failures_is_capped_on_stderr(self):
        """150 variants, each failing with a plugin error: stderr shows
        the first 100 failure lines and the first 100 plugin lines, then
        says once of each where the rest are; the file holds all 150
        (a night of 10^5 failures printed 2 x 10^5 lines). Contained and
        in vsweep's own process alike."""
        scn = self.write("s.yaml", SCENARIO.replace(
            "fail_step: -1}", "fail_step: 2}").replace(
            "duration: 5", "duration: 0.5"))
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, speed: {from: 1, to: 150, "
                        "step: 1}}\n")
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            db = self.path("r%d.db" % len(env))
            rc, _, err = run("run", scn, "--sweep", sw, "-o", db, "-j", "2",
                             "--plugin-path", TEST_PLUGINS, env=env)
            self.assertEqual(rc, 1, err)
            lines = err.splitlines()
            failed = [ln for ln in lines if ": failed: " in ln]
            said = [ln for ln in lines if ": fail_at: error: " in ln]
            self.assertEqual(len(failed), 100, env)
            self.assertEqual(len(said), 100, env)
            # the first hundred in order: stored (and said) in order
            self.assertEqual([int(ln.split()[2].rstrip(":"))
                              for ln in failed], list(range(100)))
            self.assertEqual(sum("further failed variants are not "
                                 "printed" in ln for ln in lines), 1)
            self.assertEqual(sum("further plugin messages are not "
                                 "printed" in ln for ln in lines), 1)
            self.assertEqual(query(db, "SELECT count(*) FROM variant_info "
                                   "WHERE status = 'failed' AND error LIKE "
                                   "'%fail_at%'")[0][0], 150)
            self.assertEqual(query(db, "SELECT count(*) FROM log WHERE "
                                   "level = 'error'")[0][0], 150)


class ContractTest(TempDirCase):
    """What a plugin hands back outside the plugin contract (plugin.h):
    a status that is no vs_status, a message at a level that is no
    vs_log_level, a create that reports success without an instance.
    Each is judged alike whether the plugin runs contained or in
    vsweep's own process."""

    def variants(self, params, entries, env=None):
        """Runs SCENARIO with fail_at's params and a list sweep of
        entries (one fail_at param each); (rc, err, db)."""
        scn = self.write("s.yaml", SCENARIO.replace(
            "fail_step: -1}", params + "}").replace(
            "  - id: 1\n", "  - id: 1\n    name: ego\n", 1))
        sw = self.write("w.yaml", "vsweep: 1\nblocks:\n  - list:\n" + "".join(
            "      - [{actor: 1, param: behaviour.%s, value: %s}]\n" % e
            for e in entries))
        db = self.path("r%d.db" % len(env or {}))
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db,
                         "--plugin-path", TEST_PLUGINS, env=env)
        return rc, err, db

    def reasons(self, db):
        return query(db, "SELECT variant_id, status, error FROM "
                     "variant_info ORDER BY 1")

    def test_unknown_status_fails_its_variant(self):
        """-1 and 7 at step 4 are no status: the variant fails there,
        the reason naming the plugin, the actor, the step and the number
        (-1 counted as success, 7 outranked VS_FATAL and hid the
        failures after it). WARNING (1) is no failure."""
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            rc, err, db = self.variants(
                "fail_step: 4, log_level: 0",
                [("status", -1), ("status", 7), ("status", 1)], env)
            self.assertEqual(rc, 1, err)
            self.assertEqual(self.reasons(db), [
                (0, "failed", "actor 1 (ego): fail_at: returned status "
                 "-1, which is not a vs_status, at step 4 (t = 0.4 s)"),
                (1, "failed", "actor 1 (ego): fail_at: returned status "
                 "7, which is not a vs_status, at step 4 (t = 0.4 s)"),
                (2, "done", None)], env)

    def test_unknown_log_level_is_kept_as_an_error(self):
        """Messages at levels 4 and -1 (contained, 4 failed the variant
        as a malformed result; in-process, it was stored as 'output',
        and -1 was dropped): stored at level error, saying the level."""
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            rc, err, db = self.variants(
                "fail_step: 4, status: 0",
                [("log_level", 4), ("log_level", -1)], env)
            self.assertEqual(rc, 0, err)
            self.assertEqual([r[1] for r in self.reasons(db)],
                             ["done", "done"], env)
            self.assertEqual(query(db, "SELECT variant_id, actor_id, "
                                   "level, plugin, message FROM log "
                                   "ORDER BY 1"), [
                (v, 1, "error", "fail_at", "logged at unknown level %d: "
                 "fail_at: failing at step 4 as asked" % n)
                for v, n in ((0, 4), (1, -1))], env)

    def test_create_without_instance(self):
        """A create that returns OK or WARNING but no instance failed as
        "create failed (OK)"."""
        rc, err, db = self.variants(
            "fail_step: -1", [("create_status", 0), ("create_status", 1),
                              ("create_status", 7)])
        self.assertEqual(rc, 1, err)
        self.assertEqual(self.reasons(db), [
            (0, "failed", "actor 1 (ego): fail_at: create returned OK but "
             "no instance"),
            (1, "failed", "actor 1 (ego): fail_at: create returned WARNING "
             "but no instance"),
            (2, "failed", "actor 1 (ego): fail_at: create returned status "
             "7, which is not a vs_status")])


NO_CTX = """\
vsweep: 1
name: no host_ctx
step: 0.1
duration: 1
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
  - id: 7
    name: probe
    asset: car
    start: {position: [10, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: no_ctx, params: {warn_step: 2, fail_step: 4, \
thread: THREAD}}
"""


class NoHostCtxTest(TempDirCase):
    """A plugin that calls the host's services with a NULL host_ctx (the
    template's model did): the host takes the message for the instance
    it is calling on that thread (docs/plugins.md, Host services), so
    the ERROR is the failed variant's reason and both messages are in
    the log view at their actor and time; actor_ids and previous_state
    answer for that instance. The reason was "actor 7 (probe): no_ctx:
    ERROR at step 4 (t = 0.4 s)" and the log view empty."""

    def test_null_ctx_is_the_called_instance(self):
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            scn = self.write("s.yaml", NO_CTX.replace("THREAD", "0"))
            db = self.path("r%d.db" % len(env))
            rc, _, err = run("run", scn, "-o", db, "--plugin-path",
                             os.path.join(TEST_PLUGINS, "no_ctx"), env=env)
            self.assertEqual(rc, 1, err)
            self.assertEqual(query(db, "SELECT status, error FROM "
                                   "variant_info"), [
                ("failed", "actor 7 (probe): no_ctx: no_ctx: failing at "
                 "step 4")], env)
            self.assertEqual(query(db, "SELECT variant_id, actor_id, t, "
                                   "level, plugin, message FROM log "
                                   "ORDER BY t"), [
                (0, 7, 0.2, "warning", "no_ctx",
                 "no_ctx: 2 actors, own state found"),
                (0, 7, 0.4, "error", "no_ctx",
                 "no_ctx: failing at step 4")], env)
            self.assertIn("vsweep: variant 0: actor 7: no_ctx: warning: "
                          "no_ctx: 2 actors, own state found", err)

    def test_null_ctx_on_a_thread_of_its_own_reaches_stderr(self):
        """From a thread of the plugin's own the host cannot tell whose
        the message is: it is printed on stderr, not stored, and the
        services answer none (0 actors, no state) rather than crash."""
        for env in ({}, {"VSWEEP_NO_CONTAINMENT": "1"}):
            scn = self.write("s.yaml", NO_CTX.replace("THREAD", "1"))
            db = self.path("r%d.db" % len(env))
            rc, _, err = run("run", scn, "-o", db, "--plugin-path",
                             os.path.join(TEST_PLUGINS, "no_ctx"), env=env)
            self.assertEqual(rc, 1, err)
            self.assertIn("vsweep: a plugin logged with no host_ctx and not "
                          "on the thread vsweep calls it on (tied to no "
                          "variant): warning: no_ctx: 0 actors, own state "
                          "not found\n", err)
            self.assertEqual(query(db, "SELECT level FROM log"),
                             [("error",)], env)


if __name__ == "__main__":
    unittest.main()
