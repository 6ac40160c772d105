"""The reference docs against the code.

docs/results.md documents the whole results schema: a results file made
by the real vsweep binary is asked for every view and its columns
(PRAGMA table_info), and every name must appear in backticks in the
section of docs/results.md headed by that view; likewise the columns of the
`meta` and `plugin` records and every `meta` key the run wrote. A view or
column added to the schema without a word in the docs fails here.

docs/plugins.md's complete plugin is compiled from the page as printed
(the SDK header only, warnings as errors) and run on the page's scenario,
with the stopping point the page derives by hand."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

DOC = os.path.join(SRC, "docs", "results.md")
PLUGINS_DOC = os.path.join(SRC, "docs", "plugins.md")

# A map, two wheeled actors and a one-variant sweep: every view of the file
# has rows, though table_info needs none.
SCENARIO = """\
vsweep: 1
step: 0.1
duration: 1
map:
  roads:
    - {id: main, line: [[0, -50, 0], [0, 50, 0]], lanes: {left: 1, right: 1, width: 3.5}}
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7}
actors:
  - {id: 1, asset: car, start: {position: [1.75, 0, 0], yaw: 0}, speed: 10}
  - {id: 2, asset: car, start: {position: [-1.75, 20, 0], yaw: 3.14159}, speed: 5}
"""
SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 12}]
"""


def sections(text):
    """{heading text: body} for every markdown heading of the file."""
    out, head, body = {}, None, []
    for line in text.splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            if head is not None:
                out[head] = "\n".join(body)
            head, body = m.group(1), []
        elif head is not None:
            body.append(line)
    if head is not None:
        out[head] = "\n".join(body)
    return out


def section_of(secs, name):
    """The body of the one section whose heading holds `name`, or None."""
    hits = [b for h, b in secs.items() if "`%s`" % name in h]
    return hits[0] if len(hits) == 1 else None


def undocumented(text, objects):
    """What objects ({name: [column, ...]}) the text leaves out: a name
    with no section of its own, or a column not in backticks in it."""
    secs = sections(text)
    missing = []
    for name, cols in sorted(objects.items()):
        body = section_of(secs, name)
        if body is None:
            missing.append("%s (no section headed `%s`)" % (name, name))
            continue
        missing += ["%s.%s" % (name, c) for c in cols
                    if "`%s`" % c not in body]
    return missing


class DocsTest(TempDirCase):
    @classmethod
    def setUpClass(cls):
        with open(DOC, encoding="utf-8") as f:
            cls.text = f.read()

    def results_file(self):
        scn = self.write("s.yaml", SCENARIO)
        sweep = self.write("w.yaml", SWEEP)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", db, "-j", "1")
        self.assertEqual(rc, 0, err)
        return db

    def test_every_view_and_column_is_documented(self):
        db = self.results_file()
        c = sqlite3.connect(db)
        views = [r[0] for r in c.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'view'")]
        objects = {v: [r[1] for r in c.execute(
            "SELECT * FROM pragma_table_info(?)", (v,))] for v in views}
        # The records every file carries besides the views.
        for table in ("meta", "plugin"):
            objects[table] = [r[1] for r in c.execute(
                "SELECT * FROM pragma_table_info(?)", (table,))]
        keys = [r[0] for r in c.execute("SELECT key FROM meta")]
        c.close()
        # The schema is not empty (a broken file would pass vacuously).
        self.assertIn("actor_state", views)
        self.assertIn("x", objects["actor_state"])
        self.assertIn("step", keys)
        missing = undocumented(self.text, objects)
        meta = section_of(sections(self.text), "meta")
        missing += ["meta key %s" % k for k in keys
                    if meta is not None and "`%s`" % k not in meta]
        self.assertEqual(missing, [], "not documented in docs/results.md")
        # Nothing documented as a view that the file does not have.
        stale = [h for h in sections(self.text)
                 if re.fullmatch(r"View `(\w+)`", h)
                 and re.fullmatch(r"View `(\w+)`", h).group(1) not in views]
        self.assertEqual(stale, [], "documented views that do not exist")

    def test_check_catches_an_undocumented_name(self):
        # The checker itself: a column dropped from a view's section, or a
        # view without a section, is reported.
        text = "## View `a`\n\n| `x` | m |\n| `y` | m |\n"
        self.assertEqual(undocumented(text, {"a": ["x", "y"]}), [])
        self.assertEqual(undocumented(text, {"a": ["x", "y", "z"]}),
                         ["a.z"])
        self.assertEqual(undocumented(text, {"b": ["x"]}),
                         ["b (no section headed `b`)"])
        # A name in another view's section does not count.
        text += "## View `b`\n\n| `w` | m |\n"
        self.assertEqual(undocumented(text, {"b": ["x"]}), ["b.x"])


class PluginExampleTest(TempDirCase):
    def test_the_guide_plugin_builds_and_runs(self):
        with open(PLUGINS_DOC, encoding="utf-8") as f:
            text = f.read()
        page = text.split("## A complete plugin", 1)[1]
        code = re.search(r"```c\n(.*?)```", page, re.S).group(1)
        yaml = re.search(r"```yaml\n(.*?)```", page, re.S).group(1)
        src = self.write("cruise_gap.c", code)
        out = self.path("plugins")
        os.mkdir(out)
        cc = shutil.which("cc") or "gcc"
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-pedantic",
                        "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
                        "-I", os.path.join(SRC, "core", "include"), "-o",
                        os.path.join(out, "cruise_gap.so"), src, "-lm"],
                       check=True)
        scn = self.write("gap.yaml", yaml)
        db = self.path("gap.db")
        rc, _, err = run("run", scn, "--plugin-path", out, "-o", db)
        self.assertEqual(rc, 0, err)
        # 1 m per step; step k sees y = k - 1, so the first sight of the
        # cone (at y = 50) nearer than gap = 20 m is at y = 31: it stops.
        (y,), = query(db, "SELECT max(y) FROM actor_state WHERE "
                          "actor_id = 1")
        self.assertEqual(y, 31.0)
        # Waypoints instead of a start: the page's failure, word for word.
        bad = self.write("bad.yaml", yaml.replace(
            "start: {position: [0, 0, 0], yaw: 0}",
            "waypoints: [[0, 0, 0], [0, 100, 0]]"))
        rc, _, err = run("run", bad, "--plugin-path", out, "-o",
                         self.path("bad.db"))
        self.assertEqual(rc, 1, err)
        (error,), = query(self.path("bad.db"),
                          "SELECT error FROM variant_info")
        self.assertIn(error, " ".join(page.split()))


if __name__ == "__main__":
    unittest.main()
