"""What a contained plugin prints (the log view's level 'output') is
stored as a logged message is (docs/results.md, view log): control
characters, a NUL and bytes that are not UTF-8 become visible escapes
(\\n, \\t, \\xNN with two lowercase hex digits), well-formed UTF-8 stays,
and a line past 4096 bytes keeps the whole characters within its first
4096 bytes, each escaped, then "\u2026 [N more bytes]". So every stored
message reads as text from Python's sqlite3 (its default text factory
refuses bytes that are not UTF-8) and prints on a terminal as it reads,
whatever -j and whether the variant crashed after printing. Every line
a plugin prints is stored so, even one that starts as vsweep's own
("vsweep: "): none reaches vsweep's stderr (docs/cli.md, Output), which
has vsweep's lines only, whole, as when the plugin runs in vsweep's own
process, whatever the plugin printed without a newline before them.
C1 controls (U+0080 to U+009F: U+009B is ESC [ to xterm) and the
bidirectional overrides and isolates are escaped too, each byte as \\xNN,
in a stored message, on stderr and in an error message quoting a
scenario file.

crash_garble (tests/plugins/crash) prints its lines at step 5; actor 2's
crash_abort aborts at step 6 in variant 1 only. talk (tests/plugins/talk)
prints, and logs, what its parameter mode says."""
import os
import re
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
    "vsweep: spoof \\x1b[2J\\x07",            # a plugin's, whatever it says
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
                # the spoofed line stored (above), not on vsweep's
                # stderr; nothing there a terminal would act on
                text = err.decode("utf-8")
                self.assertNotIn("spoof", text)
                self.assertEqual([ch for ch in text if ch < " " and
                                  ch != "\n"], [], text)


TALK_PLUGINS = os.path.join(TEST_PLUGINS, "talk")

TALK = """\
vsweep: 1
name: talk
step: 0.1
duration: 0.5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: talk, params: {mode: %d, talk_step: 2}}
"""

# talk's mode 3 text (U+009B, U+0085, U+202E, U+2069 among plain text),
# as stored and printed: each of their UTF-8 bytes as \xNN (RFC 3629:
# C2 9B, C2 85, E2 80 AE, E2 81 A9).
UNSAFE = ("csi:\\xc2\\x9b31m nel:\\xc2\\x85 rlo:\\xe2\\x80\\xaeabc "
          "pdi:\\xe2\\x81\\xa9 end")


def unsafe_chars(text):
    """The characters of text a terminal would act on or show out of
    order: C0 but newline, DEL, C1, bidirectional overrides/isolates."""
    return [ch for ch in text if (ch < " " and ch != "\n") or
            "\x7f" <= ch <= "\x9f" or "\u202a" <= ch <= "\u202e" or
            "\u2066" <= ch <= "\u2069"]


class TalkTest(TempDirCase):
    def run_talk(self, mode, contained=True):
        """(stderr as text, log rows (level, plugin, message)) of one
        variant of talk in the mode, in a child process or not."""
        scn = self.write("t%d.yaml" % mode, TALK % mode)
        db = self.path("t%d%s.db" % (mode, "c" if contained else "u"))
        env = dict(os.environ)
        env.pop("VSWEEP_PLUGIN_PATH", None)
        if not contained:
            env["VSWEEP_NO_CONTAINMENT"] = "1"
        p = subprocess.run([VSWEEP, "run", scn, "-o", db, "-j", "1",
                            "--plugin-path", TALK_PLUGINS],
                           capture_output=True, env=env, timeout=120,
                           stdin=subprocess.DEVNULL)
        err = p.stderr.decode("utf-8")
        self.assertEqual(p.returncode, 0, err)
        c = sqlite3.connect(db)
        try:
            rows = c.execute("SELECT level, plugin, message FROM log "
                             "ORDER BY rowid").fetchall()
        finally:
            c.close()
        return err, rows

    def test_forged_lines_are_stored_not_printed(self):
        """Lines that read as vsweep's are a plugin's all the same."""
        err, rows = self.run_talk(1)
        self.assertEqual(rows, [
            ("output", "", "vsweep: variant 0: actor 1: talk: error: "
             "forged"),
            ("output", "", "vsweep: variant 0: failed: forged"),
            ("output", "", "vsweep: further plugin messages are not "
             "printed (forged)")])
        self.assertEqual(err, "")  # nothing vsweep had to say

    def test_warning_after_unended_output(self):
        """A plugin's warning is vsweep's line on stderr, whole, though
        the plugin printed without a newline before it; what it printed
        is stored, one row for the variant."""
        want = "vsweep: variant 0: actor 1: talk: warning: real warning"
        err, rows = self.run_talk(2)
        self.assertIn(want, err.splitlines(), err)
        self.assertNotIn("progress", err)
        printed = "".join("\\x0dprogress %d%%" % (20 * k)
                          for k in range(1, 6))  # steps 1 to 5
        self.assertEqual(rows, [("warning", "talk", "real warning"),
                                ("output", "", printed)])
        # uncontained, the same line (after the raw progress text, on
        # the same stderr), the same warning stored
        bare_err, bare_rows = self.run_talk(2, contained=False)
        self.assertIn(want + "\n", bare_err)
        self.assertEqual(bare_rows, rows[:1])

    def test_c1_and_bidi_escaped(self):
        """Logged, printed and on stderr: escaped the one way."""
        for contained in (True, False):
            with self.subTest(contained=contained):
                err, rows = self.run_talk(3, contained)
                want = [("warning", "talk", UNSAFE)]
                if contained:
                    want.append(("output", "", UNSAFE))
                self.assertEqual(rows, want)
                self.assertIn("vsweep: variant 0: actor 1: talk: "
                              "warning: " + UNSAFE, err.splitlines())
                self.assertEqual(unsafe_chars(err), [], err)

    def test_c1_and_bidi_escaped_in_errors(self):
        """A plugin name from a scenario file, quoted in the error."""
        scn = self.write("bad.yaml", (TALK % 1).replace(
            "plugin: talk,", 'plugin: "x\\u009b2J\\u202ey\\u2066",'))
        p = subprocess.run([VSWEEP, "check", scn, "--plugin-path",
                            TALK_PLUGINS], capture_output=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        err = p.stderr.decode("utf-8")
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("'x\\xc2\\x9b2J\\xe2\\x80\\xaey\\xe2\\x81\\xa6'",
                      err)
        self.assertRegex(err, r"bad\.yaml:12:\d+: ")
        self.assertEqual(unsafe_chars(err), [], err)


if __name__ == "__main__":
    unittest.main()
