"""Table actor_param: every parameter of each actor's plugins with the
seed's value and the plugin's unit and range, so that a swept plugin
parameter has a unit. Expected units and ranges are docs/plugins.md's
(idm, cut_in, kinematic_bicycle); a file written before the table gets it
when resumed, a merge takes it from a part that has it, and the report
labels a swept plugin parameter with its unit."""
import html
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

# docs/plugins.md: name -> (unit, min, max); m/s² as the plugins spell it
DOC = {
    (1, "behaviour", "v0"): ("m/s", 0.1, 100),
    (1, "behaviour", "T"): ("s", 0, 10),
    (1, "behaviour", "s0"): ("m", 0, 100),
    (1, "behaviour", "a"): ("m/s^2", 0.01, 20),
    (1, "behaviour", "b"): ("m/s^2", 0.01, 20),
    (2, "behaviour", "gap"): ("m", -100, 1000),
    (2, "behaviour", "gap_time"): ("s", -1, 100),
    (2, "behaviour", "speed"): ("m/s", -1, 100),
    (2, "vehicle_model", "max_steer_deg"): ("deg", 0, 89),
}
# the seed below sets these; every other parameter keeps its default
SEED_SET = {(1, "behaviour", "v0"): 27.0, (2, "behaviour", "gap"): 12.0}
DEFAULTS = {(1, "behaviour", "T"): 1.5, (1, "behaviour", "s0"): 2.0,
            (2, "behaviour", "gap_time"): -1.0}

SWEEP = """vsweep: 1
blocks:
  - grid:
      - {actor: 2, param: behaviour.gap, values: [5, 20]}
      - {actor: 1, param: behaviour.v0, values: [25, 30]}
"""


class ParamUnitsTest(TempDirCase):
    def setUp(self):
        super().setUp()
        with open(scenario("cut_in.yaml"), encoding="utf-8") as f:
            text = f.read()
        text = text.replace("duration: 25 ", "duration: 2 ")
        text = text.replace("params: {v0: 30}", "params: {v0: 27}")
        text = text.replace("gap: 10,", "gap: 12,")
        self.scn = self.write("cut_in.yaml", text)
        self.sweep = self.write("sweep.yaml", SWEEP)

    def sweep_into(self, db, *extra):
        rc, _, err = run("run", self.scn, "--sweep", self.sweep, "-o", db,
                         "--record", "summary", *extra)
        self.assertEqual(rc, 0, err)
        return db

    def rows(self, db):
        return {(a, r, n): (u, v, lo, hi, p) for a, r, n, u, v, lo, hi, p in
                query(db, "SELECT actor_id, role, name, unit, value, min, "
                      "max, plugin FROM actor_param")}

    def test_units_ranges_and_seed_values(self):
        got = self.rows(self.sweep_into(self.path("r.db")))
        for k, (unit, lo, hi) in DOC.items():
            self.assertIn(k, got)
            self.assertEqual(got[k][0], unit, k)
            self.assertEqual((got[k][2], got[k][3]), (lo, hi), k)
        for k, v in {**SEED_SET, **DEFAULTS}.items():
            self.assertEqual(got[k][1], v, k)
        self.assertEqual(got[(1, "behaviour", "v0")][4], "idm")
        self.assertEqual(got[(2, "behaviour", "gap")][4], "cut_in")
        # every plugin named by the plugin table, nothing else
        names = {r[0] for r in query(self.path("r.db"),
                                     "SELECT name FROM plugin")}
        self.assertEqual({v[4] for v in got.values()}, names)

    def test_resume_adds_the_table_to_an_earlier_file(self):
        db = self.sweep_into(self.path("r.db"))
        want = self.rows(db)
        with sqlite3.connect(db) as c:  # as a build before the table wrote it
            c.execute("DROP TABLE actor_param")
        self.sweep_into(db, "--resume")
        self.assertEqual(self.rows(db), want)

    def test_merge_takes_the_table_from_a_part_that_has_it(self):
        parts = []
        for k in range(2):
            parts.append(self.sweep_into(self.path("p%d.db" % k),
                                         "--shard", "%d/2" % k))
        want = self.rows(parts[1])
        with sqlite3.connect(parts[0]) as c:
            c.execute("DROP TABLE actor_param")
        out = self.path("m.db")
        rc, _, err = run("merge", out, *parts)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.rows(out), want)

    def test_report_labels_a_swept_plugin_parameter(self):
        db = self.sweep_into(self.path("r.db"))
        page = self.path("p.html")
        rc, _, err = run("report", db, "-o", page)
        self.assertEqual(rc, 0, err)
        with open(page, encoding="utf-8") as f:
            text = html.unescape(f.read())
        for label in ("actor1.behaviour.v0 (m/s)", "actor2.behaviour.gap (m)"):
            self.assertTrue(label in text, label)


if __name__ == "__main__":
    unittest.main()
