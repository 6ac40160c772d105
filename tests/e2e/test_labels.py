"""Variant labels (sweep.md "Labels"): a list entry {label, changes} is
stored in variant_info.label and variant_summary.label (NULL for an
unlabelled entry and for grid and random variants), printed by `vsweep
variants`, kept by `vsweep merge` of shards; a label that is not a
string, empty, with a control character, or used twice is refused at
FILE:LINE:COL. Expected labels are the sweep file's own text."""
import csv
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

# variant 0: "cut-in fast"; 1: no label; 2: "slow, \"quoted\""; 3-4: grid
SWEEP = """vsweep: 1
blocks:
  - list:
      - {label: cut-in fast, changes: [{actor: 1, speed: 12}]}
      - [{actor: 1, speed: 9}]
      - {label: 'slow, "quoted"', changes: [{actor: 1, speed: 6}]}
  - grid:
      - {actor: 1, speed: {values: [5, 7]}}
"""
LABELS = ["cut-in fast", None, 'slow, "quoted"', None, None]


class LabelsTest(TempDirCase):
    def short_scenario(self):
        with open(scenario("circle.yaml"), encoding="utf-8") as f:
            return self.write("short.yaml", f.read().replace(
                "duration: 30", "duration: 0.05"))

    def test_run_stores_labels(self):
        scn, db = self.short_scenario(), self.path("r.db")
        sweep = self.write("w.yaml", SWEEP)
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", db, "-j", "2")
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT variant_id, label, "
                     "json_extract(params, '$.actor1.speed') "
                     "FROM variant_info ORDER BY variant_id")
        self.assertEqual(rows, [(i, l, s) for i, (l, s) in
                                enumerate(zip(LABELS, [12, 9, 6, 5, 7]))])
        self.assertEqual(query(db, "SELECT variant_id FROM variant_info "
                               "WHERE label = 'cut-in fast'"), [(0,)])
        self.assertEqual(query(db, "SELECT label FROM variant_summary "
                               "ORDER BY variant_id"),
                         [(l,) for l in LABELS])

    def test_merge_keeps_labels(self):
        scn, sweep = self.short_scenario(), self.write("w.yaml", SWEEP)
        shards = []
        for k in range(2):
            shards.append(self.path("s%d.db" % k))
            rc, _, err = run("run", scn, "--sweep", sweep, "-o", shards[-1],
                             "--shard", "%d/2" % k)
            self.assertEqual(rc, 0, err)
        merged = self.path("m.db")
        rc, _, err = run("merge", merged, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(merged, "SELECT variant_id, label FROM "
                               "variant_info ORDER BY variant_id"),
                         list(enumerate(LABELS)))

    def test_variants_prints_labels(self):
        scn, sweep = self.short_scenario(), self.write("w.yaml", SWEEP)
        rc, out, err = run("variants", scn, "--sweep", sweep)
        self.assertEqual(rc, 0, err)
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["variant_id", "block", "kind", "label",
                                   "params"])
        self.assertEqual([r[3] for r in rows[1:]],
                         [l or "" for l in LABELS])
        # the quoted label is one CSV field, its quotes doubled
        self.assertIn('"slow, ""quoted"""', out.splitlines()[3])
        rc, out, err = run("variants", scn, "--sweep", sweep, "--format",
                           "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["label"] for r in json.loads(out)], LABELS)

    def test_bad_labels(self):
        scn = self.short_scenario()
        head = "vsweep: 1\nblocks:\n  - list:\n"
        cases = [
            ("      - {label: [a], changes: []}\n",
             "w.yaml:4:17: label: expected a string, got a list"),
            ("      - {label: , changes: []}\n",
             "w.yaml:4:17: label: expected a string"),
            ("      - {label: \"a\\tb\", changes: []}\n",
             "w.yaml:4:17: label: control character (code 9) at "
             "character 2"),
            # C1 controls and the Unicode line breaks break the line as
            # surely (NEL is a C1); counted in characters, not bytes
            ("      - {label: \"a\\x85b\", changes: []}\n",
             "w.yaml:4:17: label: control character U+0085 at character "
             "2; a label is one line of printable text"),
            ("      - {label: \"\u00e9\\x9f\", changes: []}\n",
             "w.yaml:4:17: label: control character U+009F at character "
             "2"),
            ("      - {label: \"x\\u2028y\", changes: []}\n",
             "w.yaml:4:17: label: line separator U+2028 at character 2"),
            ("      - {label: \"\u00e9\u00e9\\u2029\", changes: []}\n",
             "w.yaml:4:17: label: paragraph separator U+2029 at "
             "character 3"),
            ("      - {label: a}\n",
             "w.yaml:4:9: list entry: missing required key 'changes'"),
            ("      - {label: a, changes: [], name: b}\n",
             "w.yaml:4:33: unknown key 'name' in list entry; allowed: "
             "label, changes"),
            ("      - {label: a, changes: 5}\n",
             "w.yaml:4:29: list entry (one variant"),
            ("      - {label: %s, changes: []}\n" % ("x" * 201),
             "w.yaml:4:17: label: 201 bytes long; at most 200"),
            # duplicates, also across blocks: reported at the second
            ("      - {label: a, changes: []}\n"
             "      - {label: b, changes: []}\n"
             "  - list:\n"
             "      - {label: a, changes: [{actor: 1, speed: 3}]}\n",
             "w.yaml:7:17: label 'a' is already used (line 4); each "
             "labelled variant needs its own label"),
        ]
        for body, msg in cases:
            with self.subTest(body=body):
                sweep = self.write("w.yaml", head + body)
                rc, _, err = run("check", scn, "--sweep", sweep)
                self.assertEqual(rc, 2, err)
                self.assertIn(msg, err)


if __name__ == "__main__":
    unittest.main()
