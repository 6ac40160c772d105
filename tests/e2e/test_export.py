"""vsweep export: variant I of a sweep as a standalone scenario file. Its
run must store, view by view and to the bit, the rows variant I stores in
a run of the whole sweep (the variant's own params aside: the exported
file is a seed, so its params are {}). Covers list changes of speed, a
speed vector, waypoints with yaw, plugin params and start, attached
actors' attach offset, heading and slope, and a random draw; a dimension change, which a scenario file cannot give one actor, is
refused."""
import hashlib
import os
import shutil
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, run, scenario  # noqa
from test_fmu import SCENARIO as FMU_SCENARIO, fmu_model  # noqa: E402

SCN = scenario("two_cars.yaml")
SWEEP = scenario("two_cars_sweep.yaml")  # variant 6 changes a dimension

RANDOM = """vsweep: 1
seed: 11
blocks:
  - random:
      count: 3
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
        - {actor: 1, param: vehicle_model.steering_ratio,
           value: {normal: {mean: 15, sd: 1, min: 10, max: 20}}}
"""


# An FMU vehicle model named by a path relative to the seed's folder; the
# exported file lives elsewhere, so it must name the FMU by another path.
FMU_SEED = FMU_SCENARIO % dict(duration=2, model=fmu_model("model.fmu"))
FMU_SWEEP = """vsweep: 1
blocks:
  - grid:
      - {actor: 1, param: vehicle_model.m, values: [1800, 2200]}
      - {actor: 1, speed: {values: [10, 12]}}
"""


# A box carried on a car (fixed, offset set, no heading in the seed) and a
# trailer towed by it; their attach changes, with the car's speed.
ATTACH_SEED = """vsweep: 1
step: 0.1
duration: 2
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}
  box: {length: 2, width: 1, height: 1, points: {hitch: [0, 0.9, 0.5]}}
  cart: {length: 3, width: 1.6, height: 1.2, wheelbase: 1.0, track: 1.4,
         front_overhang: 1.5, points: {hitch: [0, 1.5, 0.4]}}
actors:
  - id: 1
    asset: sedan
    waypoints: [[0, 0, 0], [30, 0, 0], [60, 10, 0]]
    speed: 10
  - id: 3
    name: load
    asset: box
    attach: {parent: 1, type: fixed, offset: [0, 0, 1.5],
             parent_point: Origin}
  - id: 4
    asset: cart
    attach: {parent: 1, type: trailer}
"""
ATTACH_SWEEP = """vsweep: 1
blocks:
  - list:
      - []
      - [{actor: 3, attach.offset: [0.1, 0.2, 1.7]},
         {actor: 3, attach.heading: 90}]
      - [{actor: 3, attach.slope: 12.5}, {actor: 3, attach.heading: -30},
         {actor: 4, attach.offset: [0, -0.3, 0]}, {actor: 1, speed: 12}]
      - [{actor: 4, attach.heading: 7}]
"""


def rows(db, variant):
    """Every view's rows of one variant (variant_info aside) as a row
    count and a digest of the rows with floats as exact bits; variant_id
    and params (the variant's own name and changes) left out."""
    c = sqlite3.connect(db)
    out = {}
    views = [r[0] for r in c.execute(
        "SELECT name FROM sqlite_master WHERE type = 'view' "
        "AND name != 'variant_info' ORDER BY 1")]
    for v in views:
        cols = [r[1] for r in c.execute("PRAGMA table_info(%s)" % v)]
        if "variant_id" not in cols:
            continue
        keep = [x for x in cols
                if x not in ("variant_id", "params", "wall_seconds")]
        sel = ", ".join('"%s"' % x for x in keep)
        h, n = hashlib.sha256(), 0
        for r in c.execute("SELECT %s FROM %s WHERE variant_id = ? "
                           "ORDER BY %s" % (sel, v, sel), (variant,)):
            h.update(repr(tuple(x.hex() if isinstance(x, float) else x
                                for x in r)).encode())
            n += 1
        out[v] = (n, h.hexdigest())
    c.close()
    return out


class ExportTest(TempDirCase):
    def short_seed(self):
        """two_cars.yaml cut to 3 s, so that the test stays fast."""
        with open(SCN, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("duration: 20\n", text)
        return self.write("two_cars.yaml",
                          text.replace("duration: 20\n", "duration: 3\n"))

    def check(self, seed, sweep, variants, out_dir=""):
        whole = self.path("whole.db")
        rc, _, err = run("run", seed, "--sweep", sweep, "-o", whole,
                         "--overwrite", "-j", "2")
        self.assertEqual(rc, 0, err)
        for i in variants:
            out = self.path(os.path.join(out_dir, "v%d.yaml" % i))
            rc, _, err = run("export", seed, "--sweep", sweep, "--variant",
                             str(i), "-o", out)
            self.assertEqual(rc, 0, err)
            db = self.path("v%d.db" % i)
            rc, _, err = run("run", out, "-o", db, "-j", "1")
            self.assertEqual(rc, 0, err)
            want, got = rows(whole, i), rows(db, 0)
            self.assertIn("actor_state", got)
            self.assertGreater(want["actor_state"][0], 0)
            self.assertEqual(got, want, "variant %d" % i)

    def test_list_variants(self):
        self.check(self.short_seed(), SWEEP, [0, 1, 2, 3, 4, 5, 7])

    def test_random_variants(self):
        sweep = self.write("random.yaml", RANDOM)
        self.check(self.short_seed(), sweep, [0, 1, 2])

    def test_fmu_variants(self):
        fmus = os.environ.get("VSWEEP_TEST_FMU_DIR")
        if not fmus:
            self.fail("VSWEEP_TEST_FMU_DIR is not set")
        shutil.copy(os.path.join(fmus, "st2_start.fmu"),
                    self.path("model.fmu"))
        os.mkdir(self.path("out"))
        self.check(self.write("fmu.yaml", FMU_SEED),
                   self.write("fmu_sweep.yaml", FMU_SWEEP), [0, 1, 2, 3],
                   out_dir="out")

    def test_attach_variants(self):
        """Found in review: an attached actor's attach.offset and
        attach.heading changes were dropped (the seed's attach: copied)
        and a speed: 0 added, which the run of the file refused."""
        seed = self.write("attach.yaml", ATTACH_SEED)
        self.check(seed, self.write("attach_sweep.yaml", ATTACH_SWEEP),
                   [0, 1, 2, 3])
        # the changes moved the load: its rows differ from the seed's
        whole = self.path("whole.db")
        c = sqlite3.connect(whole)
        poses = [tuple(c.execute("SELECT x, y, z, yaw FROM actor_state "
                                 "WHERE variant_id = ? AND actor_id IN "
                                 "(3, 4) AND step = 20 ORDER BY actor_id",
                                 (i,)).fetchall())
                 for i in range(4)]
        c.close()
        self.assertEqual(len(set(poses)), 4, poses)
        with open(self.path("v1.yaml"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("offset: [0.10000000000000001, 0.20000000000000001, "
                      "1.7]", text)
        self.assertIn("heading: 90", text)

    def test_refusals(self):
        out = self.path("v.yaml")
        rc, _, err = run("export", SCN, "--sweep", SWEEP, "--variant", "6",
                         "-o", out)
        self.assertEqual(rc, 2)
        self.assertIn("two_cars_sweep.yaml:14:", err)
        self.assertIn("dimension length", err)
        self.assertFalse(os.path.exists(out))
        rc, _, err = run("export", SCN, "--sweep", SWEEP, "--variant", "8",
                         "-o", out)
        self.assertEqual(rc, 2)
        self.assertIn("out of range", err)
        rc, _, err = run("export", SCN, "--sweep", SWEEP, "-o", out)
        self.assertEqual(rc, 2)
        self.assertIn("--variant I", err)


if __name__ == "__main__":
    unittest.main()
