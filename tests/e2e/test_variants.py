"""vsweep variants: the variant table (variant_id, block, kind, label,
params)
without a run. Expected rows come from the sweep format's rules (list
entries in order, a grid's last axis varying fastest, a range's values
from + k step), not from the program; the params of random draws are
compared with what `vsweep run` stores for the same sweep. Memory stays
constant: 300 000 variants take no more than 3000."""
import csv
import io
import json
import os
import resource
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import VSWEEP, TempDirCase, query, run, scenario  # noqa

SCN = scenario("circle.yaml")  # actor 1: a sedan, kinematic_bicycle

SWEEP = """vsweep: 1
seed: 3
blocks:
  - list:
      - [{actor: 1, speed: 8}]
      - [{actor: 1, param: vehicle_model.steering_ratio, value: 16}]
  - grid:
      - {actor: 1, speed: {values: [5, 10]}}
      - {actor: 1, dimension.length: {from: 4, to: 5, step: 0.5}}
  - random:
      count: 4
      axes:
        - {actor: 1, speed: {uniform: [5, 25]}}
"""


def grid_params(speed, length):
    return {"actor1": {"speed": speed, "dimension": {"length": length}}}


EXPECTED_FIXED = [
    (0, 1, "list", {"actor1": {"speed": 8}}),
    (1, 1, "list", {"actor1": {"vehicle_model": {"steering_ratio": 16}}}),
] + [(2 + 3 * a + b, 2, "grid", grid_params(s, l))
     for a, s in enumerate([5, 10]) for b, l in enumerate([4, 4.5, 5])]


class VariantsTest(TempDirCase):
    def table(self, sweep, fmt):
        rc, out, err = run("variants", SCN, "--sweep", sweep, "--format",
                           fmt)
        self.assertEqual(rc, 0, err)
        if fmt == "json":
            table = json.loads(out)
            self.assertEqual({r["label"] for r in table}, {None})
            return [(r["variant_id"], r["block"], r["kind"], r["params"])
                    for r in table]
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["variant_id", "block", "kind", "label",
                                   "params"])
        # no entry here has a label: an empty field
        self.assertEqual({r[3] for r in rows[1:]}, {""})
        return [(int(i), int(b), k, json.loads(p))
                for i, b, k, _, p in rows[1:]]

    def test_list_grid_random(self):
        sweep = self.write("sweep.yaml", SWEEP)
        rows = self.table(sweep, "csv")
        self.assertEqual(len(rows), 12)
        self.assertEqual(rows[:8], EXPECTED_FIXED)
        for i, (vid, block, kind, params) in enumerate(rows[8:]):
            self.assertEqual((vid, block, kind), (8 + i, 3, "random"))
            self.assertEqual(list(params), ["actor1"])
            self.assertTrue(5 <= params["actor1"]["speed"] <= 25)
        self.assertEqual(self.table(sweep, "json"), rows)
        # the params a run stores, byte for byte
        rc, out, err = run("variants", SCN, "--sweep", sweep)
        self.assertEqual(rc, 0, err)
        db = self.path("r.db")
        with open(SCN, encoding="utf-8") as f:
            short = self.write("short.yaml", f.read().replace(
                "duration: 30", "duration: 0.05"))
        rc, _, err = run("run", short, "--sweep", sweep, "-o", db, "-j", "2")
        self.assertEqual(rc, 0, err)
        stored = query(db, "SELECT variant_id, params FROM variant_info "
                       "ORDER BY variant_id")
        printed = [(int(r[0]), r[4]) for r in
                   list(csv.reader(io.StringIO(out)))[1:]]
        self.assertEqual(printed, stored)

    def test_errors(self):
        sweep = self.write("sweep.yaml", SWEEP)
        rc, _, err = run("variants", SCN)
        self.assertEqual(rc, 2)
        self.assertIn("needs --sweep", err)
        rc, _, err = run("variants", SCN, "--sweep", sweep, "--format", "xml")
        self.assertEqual(rc, 2)
        self.assertIn("csv or json", err)
        bad = self.write("bad.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                         "      - [{actor: 9, speed: 8}]\n")
        rc, out, err = run("variants", SCN, "--sweep", bad)
        self.assertEqual(rc, 2)
        self.assertIn("bad.yaml:4:", err)
        self.assertEqual(out, "")

    def test_seed_takes_all_64_bits(self):
        """docs/sweep.md: seed is an integer >= 0 keying SplitMix64, a
        64-bit generator: seeds up to 2^64 - 1 are accepted (2^63 and
        above were refused as out of range) and key the draws with all
        their bits. The expected draws are a transcription of the
        contract (rng.h: u of SplitMix64 at (seed, i, axis, draw)), and
        speed {uniform: [0, 1]} is u itself."""
        def mix(z):
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9 % 2**64
            z = (z ^ (z >> 27)) * 0x94d049bb133111eb % 2**64
            return z ^ (z >> 31)

        def at(state, n):
            return mix((state + (n + 1) * 0x9e3779b97f4a7c15) % 2**64)

        def unit(seed, i):
            k = at(at(at(at(seed, 0), i), 0), 0)
            return ((k >> 11) | 1) * 2.0 ** -53

        for seed in (2**63 - 1, 2**63, 2**64 - 1):
            with self.subTest(seed=seed):
                sweep = self.write("s.yaml", (
                    "vsweep: 1\nseed: %d\nblocks:\n  - random:\n"
                    "      count: 3\n      axes:\n"
                    "        - {actor: 1, speed: {uniform: [0, 1]}}\n")
                    % seed)
                rows = self.table(sweep, "json")
                self.assertEqual([r[3]["actor1"]["speed"] for r in rows],
                                 [unit(seed, i) for i in range(3)])
        bad = self.write("bad.yaml", "vsweep: 1\nseed: %d\nblocks:\n"
                         "  - list: [[{actor: 1, speed: 8}]]\n" % 2**64)
        rc, _, err = run("variants", SCN, "--sweep", bad)
        self.assertEqual(rc, 2)
        self.assertIn("bad.yaml:2:7: seed: 18446744073709551616 is out of "
                      "range (0 to 18446744073709551615)", err)

    def max_rss_kb(self, sweep):
        """Peak resident memory of `vsweep variants` alone, in KiB."""
        probe = ("import resource, subprocess, sys\n"
                 "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
                 "assert p.returncode == 0\n"
                 "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        # Under ASan, freed blocks wait in a quarantine that would read as
        # growth: turn it off (other builds ignore the variable).
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = ":".join(filter(None, [
            env.get("ASAN_OPTIONS"), "quarantine_size_mb=0",
            "thread_local_quarantine_size_kb=0"]))
        out = subprocess.run([sys.executable, "-c", probe, VSWEEP, "variants",
                              SCN, "--sweep", sweep, "--format", "json"],
                             capture_output=True, text=True, check=True,
                             env=env)
        return int(out.stdout)

    def test_constant_memory(self):
        def grid(n):  # n * 1000 variants
            return self.write("g%d.yaml" % n, (
                "vsweep: 1\nblocks:\n  - grid:\n"
                "      - {actor: 1, speed: {from: 0, to: %d, step: 1}}\n"
                "      - {actor: 1, dimension.height: {from: 1, to: 1.999, "
                "step: 0.001}}\n") % (n - 1))
        small, big = self.max_rss_kb(grid(3)), self.max_rss_kb(grid(300))
        # 300 000 rows of about 80 bytes would be 24 MB if kept
        self.assertLess(big, small + 4096, (small, big))


if __name__ == "__main__":
    unittest.main()
