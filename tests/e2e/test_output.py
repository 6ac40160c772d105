"""What a contained plugin prints (the log view's level 'output') is
stored as a logged message is (docs/results.md, view log): control
characters, a NUL and bytes that are not UTF-8 become visible escapes
(\\n, \\t, \\xNN with two lowercase hex digits), well-formed UTF-8 stays,
and a line past 4096 bytes keeps the whole characters within its first
4096 bytes, each escaped, then "\u2026 [N more bytes]". So every stored
message reads as text from Python's sqlite3 (its default text factory
refuses bytes that are not UTF-8) and prints on a terminal as it reads,
whatever -j and whether the variant crashed after printing. A line a
plugin prints that starts as vsweep's own ("vsweep: ") reaches vsweep's
stderr escaped likewise.

crash_garble (tests/plugins/crash) prints its lines at step 5; actor 2's
crash_abort aborts at step 6 in variant 1 only."""
import os
import sqlite3
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TEST_PLUGINS, VSWEEP, TempDirCase  # noqa: E402

CRASH_PLUGINS = os.path.join(TEST_PLUGINS, "crash")
# Sanitizer builds switch containment off for the other tests; this one
# is about it. The abort must kill the child (ASan would exit(1) instead).
os.environ.pop("VSWEEP_NO_CONTAINMENT", None)
os.environ["ASAN_OPTIONS"] = ":".join(
    x for x in (os.environ.get("ASAN_OPTIONS", ""), "detect_leaks=0",
                "handle_abort=0") if x)

SCENARIO = """\
vsweep: 1
name: garbled output
step: 0.1
duration: 1
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: crash_garble, params: {armed: 0}}
  - id: 2
    asset: car
    start: {position: [0, 50, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: crash_abort, params: {armed: 1, fault_step: 6}}
"""

SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 2, param: behaviour.trigger, value: 0}]
      - [{actor: 2, param: behaviour.trigger, value: 1}]
"""

# crash_garble's lines in the order printed (stdout's, then stderr's),
# each as the rule above stores it, written out by hand.
WANT = [
    "\\xff\\xfe abc",                          # not UTF-8 at all
    "lone \\x80 continuation",
    "cut \\xe2\\x82 short",                     # 3-byte form, 2 bytes
    "cut at the end \\xe2\\x82",
    "\\x1b[31mred\\x1b[0m",                     # ESC
    "bell\\x07",                                # BEL
    "tab\\there\\x0d",                          # a CR before the newline
    "nul\\x00after",
    "del\\x7f overlong \\xc0\\xaf surrogate \\xed\\xa0\\x80",
    "kept: 45\u00b0 \u20ac \U0001f697",         # well-formed: as printed
    "\\x1b" * 4096 + "\u2026 [4 more bytes]",   # 4100 ESC bytes
    "stderr \\x1b]0;title\\x07",
]


class GarbledOutputTest(TempDirCase):
    def sweep(self, jobs):
        """(exit status, stderr as bytes, results file) of the sweep."""
        scn = self.write("s.yaml", SCENARIO)
        sw = self.write("w.yaml", SWEEP)
        db = self.path("r%d.db" % jobs)
        env = dict(os.environ)
        env.pop("VSWEEP_PLUGIN_PATH", None)
        p = subprocess.run([VSWEEP, "run", scn, "--sweep", sw, "-o", db,
                            "-j", str(jobs), "--plugin-path", CRASH_PLUGINS],
                           capture_output=True, env=env, timeout=120,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr, db

    def test_printed_lines_are_stored_escaped(self):
        for jobs in (1, 2):
            with self.subTest(jobs=jobs):
                rc, err, db = self.sweep(jobs)
                self.assertEqual(rc, 1, err)  # variant 1 crashed
                c = sqlite3.connect(db)  # the default text factory
                try:
                    status = c.execute("SELECT variant_id, status FROM "
                                       "variant ORDER BY variant_id"
                                       ).fetchall()
                    rows = c.execute("SELECT variant_id, message FROM log "
                                     "WHERE level = 'output' ORDER BY "
                                     "variant_id, rowid").fetchall()
                finally:
                    c.close()
                self.assertEqual(status, [(0, 1), (1, 2)])  # done, failed
                self.assertEqual(rows, [(v, m) for v in (0, 1)
                                        for m in WANT])
                # the spoofed line, once per variant, escaped; nothing
                # on vsweep's stderr a terminal would act on
                text = err.decode("utf-8")
                self.assertEqual(text.count("vsweep: spoof "
                                            "\\x1b[2J\\x07\n"), 2, text)
                self.assertEqual([ch for ch in text if ch < " " and
                                  ch != "\n"], [], text)


if __name__ == "__main__":
    unittest.main()
