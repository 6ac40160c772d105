#!/usr/bin/env python3
"""Two or more vsweep builds on the write benchmark's sweep, interleaved
(A B A B ...), medians and spread of wall and CPU time, µs of CPU and
bytes per actor-step: what a change costs or saves, measured in one run
so the machine's load hits every build alike.

  tools/bench/compare_builds.py NAME=VSWEEP NAME=VSWEEP ... [--variants N]
                                [--repeats R] [--modes j2,j1,bare1]
                                [--record WHAT]

Modes: j2, j1 (contained, -j 2 / -j 1) and bare1, bare2
(VSWEEP_NO_CONTAINMENT=1). The scenario is tools/bench/bench.yaml with
bench.py's sweep, everything recorded unless --record says what (e.g.
summary): the figures are per simulated actor-step, counted by a first,
untimed run that records every step."""
import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile

from bench import ROOT, sweep_file, timed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+", help="NAME=path/to/vsweep")
    ap.add_argument("--variants", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--modes", default="j2,j1,bare1")
    ap.add_argument("--record", help="vsweep run's --record (default: its "
                    "own, everything)")
    a = ap.parse_args()
    builds = dict(b.split("=", 1) for b in a.builds)
    modes = a.modes.split(",")
    tmp = tempfile.mkdtemp(prefix="vsweep-compare-")
    sw = os.path.join(tmp, "sweep.yaml")
    sweep_file(sw, a.variants)
    scen = os.path.join(ROOT, "tools", "bench", "bench.yaml")
    db = os.path.join(tmp, "v.db")

    def run(exe, mode, record=a.record):
        for s in ("", "-wal", "-shm", ".crashes"):
            if os.path.exists(db + s):
                os.unlink(db + s)
        env = {k: v for k, v in os.environ.items()
               if k != "VSWEEP_NO_CONTAINMENT"}
        if mode.startswith("bare"):
            env["VSWEEP_NO_CONTAINMENT"] = "1"
        w, c = timed([exe, "run", scen, "--sweep", sw, "-o", db, "-j",
                      mode[-1]] + (["--record", record] if record else []),
                     env)
        return w, c, os.path.getsize(db)

    # warms the page cache; every step recorded: its rows count the
    # simulated actor-steps
    run(next(iter(builds.values())), "j2", None)
    rows = sqlite3.connect(db).execute(
        "SELECT count(*) FROM actor_state").fetchone()[0]
    res = {(b, m): [] for b in builds for m in modes}
    for _ in range(a.repeats):
        for m in modes:
            for b, exe in builds.items():
                res[(b, m)].append(run(exe, m))
    print("load average %.2f at the end, %d actor-steps per run, %d runs "
          "of each, interleaved" % (os.getloadavg()[0], rows, a.repeats))
    for m in modes:
        for b in builds:
            r = res[(b, m)]
            w = [x[0] for x in r]
            c = statistics.median(x[1] for x in r)
            print("%-6s %-8s wall %.3f [%.3f-%.3f] s  CPU %.3f s  %.3g "
                  "actor-steps/s  %.2f us CPU/actor-step  %.1f "
                  "bytes/actor-step"
                  % (m, b, statistics.median(w), min(w), max(w), c,
                     rows / statistics.median(w), 1e6 * c / rows,
                     r[0][2] / rows))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
