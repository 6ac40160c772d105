#!/usr/bin/env python3
"""The write benchmark, interleaved: vsweep sweeps and the plain SQLite
insert baseline run in turn (A B A B ...), so load on a shared machine hits
both alike. Prints medians and spread (min-max) of wall and CPU time (user +
system of the child), rates, their ratio to the baseline and bytes per
actor-step; the steady-state CPU per actor-step of a full-recording
sweep (what each further variant costs, the run's fixed costs taken
off: the difference between runs of VARIANTS and VARIANTS / 3); then
-j 2 against -j 1 with full recording (also where the simulation, not
the writer, is the bound: IDM traffic), the crash
containment's overhead (plugins in child processes, the default, against
VSWEEP_NO_CONTAINMENT=1, interleaved too), and the simulation
cost per actor-step for 2 .. 512 actors (recording only step 0; five
rounds over the crowd sizes in turn, medians and spread), for cars on
straight lines and for IDM traffic on a ring road, whose lead searches
go through the host's broad phase.

  tools/bench/run.sh [VARIANTS] [REPEATS]      (defaults 300 and 5)
"""
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build-bench")
VSWEEP = os.path.join(BUILD, "tools", "vsweep", "vsweep")
PLAIN = os.path.join(BUILD, "tools", "bench", "plain_insert")


def timed(cmd, env=None):
    """Runs cmd; returns (wall s, CPU s of the child and its children)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, env=env)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def sweep_file(path, n):
    with open(path, "w") as f:
        f.write("vsweep: 1\nblocks:\n  - list:\n")
        for i in range(n):
            f.write("      - [{actor: 1, speed: %d.%d}, {actor: 2, speed: [%d, %d]}]\n"
                    % (5 + i % 25, i % 7, 8 + i % 9, 12 + i % 5))


def crowd_file(path, n_actors, duration):
    """n_actors cars on parallel straight lines 4 m apart, 10 m/s."""
    with open(path, "w") as f:
        f.write("vsweep: 1\nname: crowd\nstep: 0.01\nduration: %g\n" % duration)
        f.write("assets:\n  sedan: {length: 4.8, width: 1.9, height: 1.5, "
                "wheelbase: 3.0, track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}\n")
        f.write("actors:\n")
        for k in range(n_actors):
            f.write("  - id: %d\n    asset: sedan\n    start: {position: [%d, %d, 0], yaw: 0}\n"
                    "    speed: %g\n    behaviour: {plugin: constant_steer, "
                    "params: {steering_wheel_deg: 0}}\n"
                    % (k + 1, 4 * (k % 32), 12 * (k // 32), 10 + 0.01 * k))


def ring_file(path, n_actors, duration, spacing=25.0, lanes=3, far=0):
    """n_actors IDM cars on a counter-clockwise ring road of three lanes,
    one car per `spacing` m of lane (the ring at least 60 m in radius),
    at 10-14 m/s wanting 25-31 m/s; with `far` straight roads of four
    lanes 5 km away besides (a bigger map, the traffic the same)."""
    import math
    per_lane = max(1, -(-n_actors // lanes))
    radius = max(60.0, per_lane * spacing / (2 * math.pi))  # m
    with open(path, "w") as f:
        f.write("vsweep: 1\nname: ring traffic\nstep: 0.01\n"
                "duration: %g\n" % duration)
        f.write("map:\n  roads:\n    - id: ring\n      circle: {center: "
                "[0, 0], radius: %r}\n      lanes: {right: %d, width: 3.5}\n"
                % (radius, lanes))
        for k in range(far):
            f.write("    - id: far%d\n      polyline: [[%d, 5000, 0], [%d, "
                    "5200, 0]]\n      lanes: {left: 2, right: 2, width: "
                    "3.5}\n" % (k, 10 * k, 10 * k))
        f.write("assets:\n  sedan: {length: 4.8, width: 1.9, height: 1.5, "
                "wheelbase: 3.0, front_overhang: 0.9}\nactors:\n")
        for k in range(n_actors):
            j, i = k % lanes, k // lanes
            r = radius + 1.75 + 3.5 * j
            th = 2 * math.pi * (i + 0.5 * j / lanes) / per_lane
            f.write("  - {id: %d, asset: sedan, start: {position: [%r, %r, "
                    "0], yaw: %r}, speed: %r, behaviour: {plugin: idm, "
                    "params: {v0: %r}}}\n"
                    % (k + 1, r * math.cos(th), r * math.sin(th), th,
                       10.0 + k % 5, 25.0 + k % 7))


def fmt(xs):
    return "%.3f [%.3f-%.3f]" % (statistics.median(xs), min(xs), max(xs))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    reps = max(5, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
    tmp = tempfile.mkdtemp(prefix="vsweep-bench-")
    sw = os.path.join(tmp, "sweep.yaml")
    sweep_file(sw, n)
    # A third of the variants: the difference from the full sweep is
    # what the further variants cost, without the run's fixed costs
    # (start-up, the page cache and the WAL filling, the statistics and
    # the WAL folded back at the end), which an overnight sweep spreads
    # over 10^8 actor-steps rather than 10^6.
    sw3 = os.path.join(tmp, "sweep3.yaml")
    sweep_file(sw3, max(1, n // 3))
    scen = os.path.join(ROOT, "tools", "bench", "bench.yaml")
    db = os.path.join(tmp, "v.db")
    # The default records the pairs within 50 m, which in bench.yaml (a
    # circle and a straight road 100 m south of its centre) is a part of
    # the steps; pairs=1000 stores the one pair at every step, the
    # write cost of actor_pair for two actors.
    kinds = [("everything (state, wheels, map, pairs)", []),
             ("pair every step (pairs=1000)",
              ["--record", "state,wheels,map,pairs=1000"]),
             ("no pairs (state, wheels, map)",
              ["--record", "state,wheels,map"]),
             ("without map location", ["--record", "state,wheels"]),
             ("state only", ["--record", "state"])]

    bare = dict(os.environ, VSWEEP_NO_CONTAINMENT="1")
    contained = {k: v for k, v in os.environ.items()
                 if k != "VSWEEP_NO_CONTAINMENT"}

    def vs(extra, jobs=2, env=contained, sweep=sw, scn=scen):
        for suffix in ("", "-wal", "-shm", ".crashes"):
            if os.path.exists(db + suffix):
                os.unlink(db + suffix)
        w, c = timed([VSWEEP, "run", scn, "--sweep", sweep, "-o", db,
                      "-j", str(jobs)] + extra, env)
        con = sqlite3.connect(db)
        pairs = con.execute("SELECT count(*) FROM pair_row").fetchone()[0]
        steps = con.execute("SELECT count(*) FROM state").fetchone()[0]
        con.close()
        return w, c, os.path.getsize(db), pairs, steps

    vs([])  # warm the page cache and the plugin files
    rows = sqlite3.connect(db).execute("SELECT count(*) FROM actor_state").fetchone()[0]
    res = {k: [] for k, _ in kinds}
    base = []
    j1 = []
    bare_runs = []
    third = []
    pdb = os.path.join(tmp, "p.db")
    for _ in range(reps):  # A B A B ...: baseline, then each vsweep kind
        w, c = timed([PLAIN, pdb, str(rows)])
        base.append((w, c, os.path.getsize(pdb)))
        for name, extra in kinds:
            res[name].append(vs(extra))
        j1.append(vs([], jobs=1))
        bare_runs.append(vs([], env=bare))
        third.append(vs([], sweep=sw3))

    print("machine             %d cores, load average %.2f at the end"
          % (os.cpu_count(), os.getloadavg()[0]))
    print("variants            %d (2 actors, 20 s at 100 Hz, -j 2), %d runs of each, interleaved"
          % (n, reps))
    print("actor-steps         %d per run" % rows)
    bw = [b[0] for b in base]
    bc = [b[1] for b in base]
    print("plain insert        wall %s s  CPU %s s  %.0f rows/s  %.1f bytes/row"
          % (fmt(bw), fmt(bc), rows / statistics.median(bw), base[0][2] / rows))
    for name, _ in kinds:
        w = [r[0] for r in res[name]]
        c = [r[1] for r in res[name]]
        ratio = statistics.median(bw) / statistics.median(w)
        print("vsweep %-28s wall %s s  CPU %s s  %.0f actor-steps/s  ratio %.2f  "
              "%.2f us CPU/actor-step  %.1f bytes/actor-step  %d pair rows"
              % (name, fmt(w), fmt(c), rows / statistics.median(w), ratio,
                 1e6 * statistics.median(c) / rows, res[name][0][2] / rows,
                 res[name][0][3]))
    # Steady state: each repetition's full sweep against its third,
    # run in the same round.
    full = res[kinds[0][0]]
    per = [1e6 * (f[1] - t[1]) / (f[4] - t[4]) for f, t in zip(full, third)]
    fixed = [t[1] - 1e-6 * p * t[4] for t, p in zip(third, per)]
    print("steady state        everything, -j 2: %s us CPU per further "
          "actor-step (%d - %d variants); the run's fixed CPU %s s"
          % (fmt(per), n, max(1, n // 3), fmt(fixed)))
    w1 = statistics.median([r[0] for r in j1])
    w2 = statistics.median([r[0] for r in res[kinds[0][0]]])
    print("full recording      -j 1 wall %s s; -j 2 / -j 1 actor-steps/s %.2f"
          % (fmt([r[0] for r in j1]), w1 / w2))

    # The containment's price: the same full-recording sweep at -j 2, its
    # variants simulated in child processes (the default) or in vsweep's
    # own (VSWEEP_NO_CONTAINMENT=1).
    cw = statistics.median([r[0] for r in res[kinds[0][0]]])
    cc = statistics.median([r[1] for r in res[kinds[0][0]]])
    nw = statistics.median([r[0] for r in bare_runs])
    nc = statistics.median([r[1] for r in bare_runs])
    print("containment         contained wall %s s  CPU %s s; "
          "VSWEEP_NO_CONTAINMENT=1 wall %s s  CPU %s s; "
          "contained / not: wall %.3f  CPU %.3f"
          % (fmt([r[0] for r in res[kinds[0][0]]]),
             fmt([r[1] for r in res[kinds[0][0]]]),
             fmt([r[0] for r in bare_runs]), fmt([r[1] for r in bare_runs]),
             cw / nw, cc / nc))

    # Simulation cost per actor-step against the number of actors: only
    # step 0 is stored, so SQLite is out of the measurement. The start-up
    # (~0.03 s of CPU: the file's schema, the plugins, the containment's
    # fork server) is measured on a run of the same actors for one step
    # and taken off: at 10^5 actor-steps it was over half of the 2-actor
    # run, and flattered the larger crowds' ratios.
    def crowd_run(scn):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.unlink(db + suffix)
        return timed([VSWEEP, "run", scn, "-o", db, "-j", "1",
                      "--record", "state", "--record-every", "1000000"])

    def series(name, make, actor_steps):
        """Rounds over every crowd size in turn (2, 8, ..., 512, then
        again), each size's long run beside its one-step run, so that the
        machine's drift during the series hits every size alike; the
        per-actor-step figure is taken per round and its median
        printed."""
        print("actors  actor-steps  wall s   CPU s    us CPU/actor-step  "
              "vs 2 actors   (start-up CPU s, taken off; spread of 5 "
              "rounds)")
        sizes = (2, 8, 32, 128, 512)
        crowd = {}
        for k in sizes:
            scn = os.path.join(tmp, "%s%d.yaml" % (name, k))
            one = os.path.join(tmp, "%s%d_one.yaml" % (name, k))
            steps = max(100, actor_steps // k)
            make(scn, k, steps * 0.01)
            make(one, k, 0.01)  # steps 0 and 1
            crowd[k] = (scn, one, steps, [])
        for _ in range(5):
            for k in sizes:
                scn, one, steps, runs = crowd[k]
                w, c = crowd_run(scn)
                _, c0 = crowd_run(one)
                runs.append((w, c, c0, 1e6 * (c - c0) / (k * (steps - 1))))
        per = {k: [r[3] for r in crowd[k][3]] for k in sizes}
        # the ratio to 2 actors within each round, then its median
        ratio = {k: statistics.median([a / b for a, b in zip(per[k], per[2])])
                 for k in sizes}
        for k in sizes:
            _, _, steps, runs = crowd[k]
            print("%6d  %11d  %7.3f  %7.3f  %17s  %10.2f   %.3f"
                  % (k, k * (steps + 1),
                     statistics.median([r[0] for r in runs]),
                     statistics.median([r[1] for r in runs]),
                     "%.3f [%.3f-%.3f]" % (statistics.median(per[k]),
                                           min(per[k]), max(per[k])),
                     ratio[k], statistics.median([r[2] for r in runs])))

    series("crowd", crowd_file, 1000000)  # ~10^6 actor-steps

    # The same for traffic whose behaviours search among the actors:
    # IDM cars at a constant density, so that a flat cost per actor-step
    # is the broad phase's doing (docs/plugins.md, Host services).
    print()
    print("IDM traffic on a three-lane ring, one car per 25 m of lane "
          "(each IDM car searches for its lead every step):")
    series("ring", ring_file, 200000)

    # The same traffic on bigger maps: behaviours name lanes by UUID in
    # every host call and ask for neighbours and successors, which are
    # looked up by hash, so the cost per actor-step does not grow with
    # the map's lanes (the map's building, in the start-up, does).
    print()
    print("32 IDM cars on the ring, the map 3 / 403 / 4003 lanes (0 / 100 "
          "/ 1000 four-lane roads far away), %d rounds:" % reps)
    print("lanes   us CPU/actor-step   vs 3 lanes   (start-up CPU s, taken "
          "off)")
    maps = {}
    for far in (0, 100, 1000):
        scn = os.path.join(tmp, "map%d.yaml" % far)
        one = os.path.join(tmp, "map%d_one.yaml" % far)
        ring_file(scn, 32, 20.0, far=far)
        ring_file(one, 32, 0.01, far=far)
        maps[far] = (scn, one, [], [])
    for _ in range(reps):
        for far in maps:
            scn, one, per, c0s = maps[far]
            _, c = crowd_run(scn)
            _, c0 = crowd_run(one)
            per.append(1e6 * (c - c0) / (32 * 2000))
            c0s.append(c0)
    for far, (_, _, per, c0s) in maps.items():
        print("%5d   %17s   %10.2f   %.3f"
              % (3 + 4 * far, fmt(per),
                 statistics.median([a / b for a, b in
                                    zip(per, maps[0][2])]),
                 statistics.median(c0s)))

    # What a second core gives a full-recording sweep. One SQLite writer
    # stores every row, and cannot be split: a second worker helps only as
    # far as the simulation (S, us CPU per actor-step, measured on the
    # same sweep storing nothing but step 0, the series' method) is a
    # part of the work beside the storing (W: the full recording's CPU
    # less S). The 2-car sweep is the writer's case; IDM traffic with
    # the per-actor views (the pairs, which grow with the density of
    # traffic, left out) the simulation's.
    print()
    print("-j 2 against -j 1, %d rounds interleaved (S: simulation, W: "
          "storing, us CPU per actor-step):" % reps)

    def cores(label, scn, sweep, record=()):
        run = lambda jobs, extra: vs(extra or list(record), jobs=jobs,
                                     sweep=sweep, scn=scn)
        steps = run(1, [])[4]  # warm
        r1, r2, rs = [], [], []
        for _ in range(reps):
            r1.append(run(1, []))
            r2.append(run(2, []))
            rs.append(run(1, ["--record", "state", "--record-every",
                              "1000000"]))
        full = 1e6 * statistics.median([r[1] for r in r1]) / steps
        sim = 1e6 * statistics.median([r[1] for r in rs]) / steps
        ratios = [a[0] / b[0] for a, b in zip(r1, r2)]
        print("%-44s -j 1 wall %s s  -j 2 wall %s s  -j 2 / -j 1 %.2f "
              "[%.2f-%.2f]  S %.2f  W %.2f"
              % (label, fmt([r[0] for r in r1]), fmt([r[0] for r in r2]),
                 statistics.median(ratios), min(ratios), max(ratios), sim,
                 max(full - sim, 0.0)))

    cores("2 cars, everything (the sweep above)", scen, sw)
    ring = os.path.join(tmp, "cores_ring.yaml")
    ring_file(ring, 32, 10.0)
    ring_sweep = os.path.join(tmp, "cores_ring_sweep.yaml")
    with open(ring_sweep, "w") as f:
        f.write("vsweep: 1\nblocks:\n  - list:\n")
        for i in range(8):
            f.write("      - [{actor: 1, speed: %d}]\n" % (8 + i))
    cores("32 IDM cars on the ring, 8 variants, no pairs", ring,
          ring_sweep, ["--record", "state,wheels,map"])
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
