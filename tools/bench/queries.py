#!/usr/bin/env python3
"""The analyst's first queries on an overnight-sized results file.

  tools/bench/queries.py VSWEEP [BASE_VSWEEP] [--actor-steps N] [--dir D]
                         [--repeats R] [--record WHAT] [--query-base]

Builds, for 2 and for 8 actors per variant, a results file of at least N
actor-steps (default 10 M) with VSWEEP, runs every query of queries.sql on
it (medians of R runs, wall and CPU time, rows per second, EXPLAIN QUERY
PLAN, the ratio to a full scan of actor_state in the same file) and prints
the write side: actor-steps per second and bytes per actor-step (both
builds recording state, map location and pairs unless --record says
otherwise). With
BASE_VSWEEP (a build of another layout, e.g. main's), the same files are
written with it too, for the write-side comparison; with --query-base its
file is queried as well, the two files taking turns query by query (on a
layout without a key the queries may take hours)."""
import argparse
import os
import sqlite3
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STEP, DURATION = 0.01, 20.0      # s: 2001 steps per actor


def scenario(n_actors):
    """Ego circling, the others on straight parallel routes (m, m/s)."""
    lines = ["vsweep: 1", "name: bench %d actors" % n_actors,
             "step: %g" % STEP, "duration: %g" % DURATION,
             "assets:",
             "  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,",
             "          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}",
             "actors:",
             "  - id: 1", "    name: ego", "    asset: sedan",
             "    start: {position: [57.3, 0, 0], yaw: 0}", "    speed: 10",
             "    behaviour: {plugin: constant_steer, "
             "params: {steering_wheel_deg: 45}}"]
    for a in range(2, n_actors + 1):
        y = -100 - 5 * a
        lines += ["  - id: %d" % a, "    name: car%d" % a, "    asset: sedan",
                  "    waypoints: [[0, %d, 0], [400, %d, 0]]" % (y, y),
                  "    speed: 10", "    behaviour: {plugin: waypoints}"]
    return "\n".join(lines) + "\n"


def sweep(count):
    return ("vsweep: 1\nseed: 5\nblocks:\n  - random:\n      count: %d\n"
            "      axes:\n        - {actor: 1, speed: {uniform: [5, 25]}}\n"
            "        - {actor: 2, speed: {uniform: [5, 25]}}\n" % count)


def write(vsweep, scen, swp, db, record):
    t0 = time.monotonic()
    p = subprocess.run([vsweep, "run", scen, "--sweep", swp, "-o", db,
                        "--overwrite", "--record", record],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode:
        raise SystemExit(p.stderr)
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM state").fetchone()[0]
    con.close()
    return n, wall, os.path.getsize(db)


def queries():
    out, title = [], None
    for line in open(os.path.join(HERE, "queries.sql")):
        line = line.strip()
        if line.startswith("--"):
            title = line[2:].strip()
        elif line:
            out.append((title, line.rstrip(";")))
    return out


def timed(con, q):
    """Wall and CPU seconds of running q to its last row."""
    w0, c0 = time.monotonic(), time.process_time()
    rows = sum(1 for _ in con.execute(q))
    return time.monotonic() - w0, time.process_time() - c0, rows


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def run_queries(files, n_rows, repeats):
    """files: [(label, db)]. Each query runs `repeats` times on every
    file, the files taking turns (ABAB...), after one untimed full scan of
    each (a file just written is read faster the second time); printed:
    medians of wall and CPU time, the ratio to the same file's full scan,
    and the plan of the first file."""
    cons = [(label, sqlite3.connect(db)) for label, db in files]
    for _, con in cons:
        timed(con, queries()[0][1])
    full = {}
    for title, q in queries():
        got = {label: [] for label, _ in cons}
        for _ in range(repeats):
            for label, con in cons:
                got[label].append(timed(con, q))
        print("  %s" % title)
        for label, con in cons:
            wall = median([g[0] for g in got[label]])
            cpu = median([g[1] for g in got[label]])
            full.setdefault(label, wall)
            print("    %-5s %7.3f s wall [%.3f-%.3f] %7.3f s CPU %6.2fx "
                  "full scan %9.3g actor-steps/s (%d rows out)"
                  % (label, wall, min(g[0] for g in got[label]),
                     max(g[0] for g in got[label]), cpu, wall / full[label],
                     n_rows / wall, got[label][0][2]))
            plan = "; ".join(r[3] for r in
                             con.execute("EXPLAIN QUERY PLAN " + q))
            print("          plan: %s%s" % (plan, "   <-- AUTOMATIC INDEX"
                                            if "AUTOMATIC" in plan else ""))
    for _, con in cons:
        con.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vsweep")
    ap.add_argument("base", nargs="?")
    ap.add_argument("--actor-steps", type=float, default=10e6)
    ap.add_argument("--dir", default="/tmp/vsweep-bench-queries")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--record",
                    help="what both builds record (a base from before "
                    "actor_pair: state,map); default state,map,pairs=1000 "
                    "at 2 actors (the two cars' pair at every step: they "
                    "stay over 50 m apart), state,map,pairs at 8 (the pairs "
                    "within 50 m)")
    ap.add_argument("--query-base", action="store_true",
                    help="run the queries on BASE_VSWEEP's file too")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    for n_actors in (2, 8):
        per_variant = n_actors * (round(DURATION / STEP) + 1)
        count = int(-(-a.actor_steps // per_variant))
        scen = os.path.join(a.dir, "a%d.yaml" % n_actors)
        swp = os.path.join(a.dir, "a%d_sweep.yaml" % n_actors)
        open(scen, "w").write(scenario(n_actors))
        open(swp, "w").write(sweep(count))
        record = a.record or ("state,map,pairs=1000" if n_actors == 2
                              else "state,map,pairs")
        print("== %d actors, %d variants, --record %s"
              % (n_actors, count, record))
        files = []
        for label, exe in (("this", a.vsweep), ("base", a.base)):
            if not exe:
                continue
            db = os.path.join(a.dir, "a%d_%s.db" % (n_actors, label))
            n, wall, size = write(exe, scen, swp, db, record)
            print("  write (%s): %d actor-steps in %.1f s wall: %.3g "
                  "actor-steps/s, %.1f bytes/actor-step" %
                  (label, n, wall, n / wall, size / n))
            if label == "this" or a.query_base:
                files.append((label, db))
        run_queries(files, n, a.repeats)
        for _, db in files:
            os.remove(db)
        base_db = os.path.join(a.dir, "a%d_base.db" % n_actors)
        if os.path.exists(base_db):
            os.remove(base_db)


if __name__ == "__main__":
    main()
