"""Impossible bodies are refused (DESIGN.md, "Variations"). A random
draw of the sedan's length (4.8 m, wheelbase 3 m, overhangs 0.9 m; a
length change keeps the axles and moves the rear bumper) fails its
variant when the length is not longer than the wheelbase, or when the
rear axle falls outside the body (rear overhang 0.9 + length - 4.8 < 0),
and runs otherwise. An imported point pushed outside the body by a
length or width change is refused by `vsweep check` in a list and a grid
(naming the block and axis), and fails a random draw when it is built."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

SWEEP = """vsweep: 1
seed: 11
blocks:
  - random:
      count: 30
      axes:
        - {actor: 2, dimension.length: {uniform: [2, 6]}}
"""


class BodiesTest(TempDirCase):
    def test_random_lengths(self):
        db = self.path("r.db")
        rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep",
                         self.write("w.yaml", SWEEP), "-o", db)
        self.assertIn(rc, (0, 1), err)
        rows = query(db, "SELECT status, error, params FROM variant_info")
        self.assertEqual(len(rows), 30)
        kinds = set()
        for status, error, params in rows:
            if status == "done":
                (change,) = json.loads(params).values()  # keyed by name
                self.assertGreaterEqual(change["dimension"]["length"], 3.9)
                kinds.add("ok")
                continue
            # a variant that cannot be built stores no params: its
            # reason names the drawn length
            m = re.search(r"actor 2: length \(([0-9.]+) m\) must be longer "
                          r"than the wheelbase \(3 m\)", error)
            if m:
                self.assertLessEqual(float(m.group(1)), 3.0)
                kinds.add("wheelbase")
                continue
            m = re.search(r"actor 2: axle 2 \(y = (-[0-9.]+) m\) lies "
                          r"outside the body \(length ([0-9.]+) m\): an "
                          r"axle must be inside the body", error)
            self.assertTrue(m, error)
            length = float(m.group(2))
            self.assertTrue(3.0 < length < 3.9, error)
            # the rear axle stays 3.9 m behind the front bumper
            self.assertAlmostEqual(float(m.group(1)), length / 2 - 3.9,
                                   delta=1e-4)
            kinds.add("axle")
        self.assertEqual(kinds, {"wheelbase", "axle", "ok"})


# A van whose imported points sit 0.1 m inside its box (length 4 m, width
# 2 m): hitch 3.9 m behind the front bumper, attach_side 0.9 m right of
# the centre line. A length change keeps the points' distance to the
# front bumper, so at length L the hitch is at y = -1.9 + (L - 4)/2 =
# L/2 - 3.9: outside the body (|y| > L/2) for L < 3.9 m. The rear axle
# (front overhang 0.8 m, wheelbase 2.5 m) is at L/2 - 3.3, inside for
# L >= 3.3 m, and the track 1.6 m is narrower than any width used here
# but 1.6, so only the point rule is broken. A width W < 1.8 m puts
# attach_side (x = 0.9 m) outside (|x| > W/2).
VAN = """vsweep: 1
step: 0.05
duration: 0.1
assets:
  van: {length: 4, width: 2, height: 2, wheelbase: 2.5, track: 1.6,
        front_overhang: 0.8,
        points: {hitch: [0, -1.9, 0.5], attach_side: [0.9, 0, 1]}}
actors:
  - id: 1
    asset: van
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
"""
HEAD = "vsweep: 1\nseed: 5\nblocks:\n"
HITCH = ("actor 1: point hitch (0, -2.1 m) lies outside the body (length "
         "3.6 m, width 2 m): an imported point must be inside the body")
SIDE = ("actor 1: point attach_side (0.9, 0 m) lies outside the body "
        "(length 4 m, width 1.7 m): an imported point must be inside the "
        "body")


class PointsTest(TempDirCase):
    def check(self, sweep):
        scn = self.write("van.yaml", VAN)
        return run("check", scn, "--sweep", self.write("w.yaml", sweep))

    def test_list_and_grid_refused(self):
        cases = [
            ("  - list:\n      - [{actor: 1, dimension.length: 3.6}]\n",
             "w.yaml:5:21: " + HITCH),
            ("  - list:\n      - [{actor: 1, dimension: {width: 1.7}}]\n",
             "w.yaml:5:33: " + SIDE),
            ("  - grid:\n      - {actor: 1, dimension.length: "
             "{from: 3.6, to: 4.4, step: 0.4}}\n",
             "w.yaml:5:38: block 1 (grid), axis 1 (dimension.length = "
             "3.6): " + HITCH),
            ("  - list: [[]]\n  - grid:\n"
             "      - {actor: 1, dimension.width: {values: [2, 1.7]}}\n",
             "w.yaml:6:50: block 2 (grid), axis 1 (dimension.width = "
             "1.7): " + SIDE),
        ]
        for body, msg in cases:
            with self.subTest(body=body):
                rc, _, err = self.check(HEAD + body)
                self.assertEqual(rc, 2, err)
                self.assertIn(msg, err)
        # inside by the margin: accepted (L = 3.9 puts the hitch on the
        # rear face, W = 1.8 the side point on the side)
        rc, out, err = self.check(
            HEAD + "  - grid:\n      - {actor: 1, dimension.length: "
            "{values: [3.9, 4.4]}, dimension.width: {values: [1.8, 2]}}\n")
        self.assertEqual(rc, 0, err)

    def test_random_draws_fail_when_built(self):
        db = self.path("r.db")
        sweep = self.write("w.yaml", HEAD + "  - random:\n      count: 20\n"
                           "      axes:\n        - {actor: 1, "
                           "dimension.length: {uniform: [3.4, 4.4]}}\n")
        rc, _, err = run("run", self.write("van.yaml", VAN), "--sweep",
                         sweep, "-o", db)
        self.assertEqual(rc, 1, err)  # some variants failed
        kinds = set()
        for vid, status, error, params in query(
                db, "SELECT variant_id, status, error, params FROM "
                "variant_info"):
            if status == "done":
                length = json.loads(params)["actor1"]["dimension"]["length"]
                self.assertGreaterEqual(length, 3.9)
                kinds.add("ok")
                continue
            m = re.search(r"actor 1: point hitch \(0, (-[0-9.]+) m\) lies "
                          r"outside the body \(length ([0-9.]+) m, width 2 "
                          r"m\): an imported point must be inside the body",
                          error)
            self.assertTrue(m, error)
            length = float(m.group(2))
            self.assertTrue(3.4 <= length < 3.9, error)
            self.assertAlmostEqual(float(m.group(1)), length / 2 - 3.9,
                                   delta=1e-4)
            kinds.add("point")
        self.assertEqual(kinds, {"ok", "point"})


if __name__ == "__main__":
    unittest.main()
