#!/usr/bin/env python3
"""Stored rows before and after a change: runs every scenario in scenarios/
(alone and with each sweep whose name starts with the scenario's) into a
folder, then compares two such folders view by view.

  tools/dev/same_rows.py run VSWEEP OUTDIR     # one results file per pair
  tools/dev/same_rows.py compare DIR_A DIR_B   # exit 1 on any difference

Views are compared, not base tables, so a change of storage layout is
judged by what users query. Floats are compared by their exact bits (hex);
wall-clock columns are left out."""
import os
import sqlite3
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP_COLS = {"wall_seconds"}


def pairs():
    scen = os.path.join(ROOT, "scenarios")
    files = sorted(f for f in os.listdir(scen) if f.endswith(".yaml"))
    sweeps = [f for f in files if "blocks:" in open(os.path.join(scen, f)).read()]
    for s in files:
        if s in sweeps:
            continue
        stem = s[:-5]
        yield stem, [os.path.join(scen, s)]
        for w in sweeps:
            if w.startswith(stem + "_"):
                yield w[:-5], [os.path.join(scen, s), "--sweep", os.path.join(scen, w)]


def run(vsweep, out):
    os.makedirs(out, exist_ok=True)
    for name, args in pairs():
        db = os.path.join(out, name + ".db")
        p = subprocess.run([vsweep, "run", *args, "-o", db, "--overwrite", "-j", "2"],
                           capture_output=True, text=True)
        print("%-28s exit %d" % (name, p.returncode))


def dump(db):
    c = sqlite3.connect(db)
    out = {}
    views = [r[0] for r in c.execute(
        "SELECT name FROM sqlite_master WHERE type='view' ORDER BY name")]
    for v in views:
        cols = [r[1] for r in c.execute("PRAGMA table_info(%s)" % v)
                if r[1] not in SKIP_COLS]
        rows = c.execute("SELECT %s FROM %s" % (", ".join(cols), v)).fetchall()
        out[v] = sorted(tuple(x.hex() if isinstance(x, float) else x for x in r)
                        for r in rows)
    return out


def compare(a, b):
    bad = 0
    for f in sorted(os.listdir(a)):
        if not f.endswith(".db"):
            continue
        fb = os.path.join(b, f)
        if not os.path.exists(fb):
            print("%s: missing in %s" % (f, b)); bad += 1; continue
        da, db_ = dump(os.path.join(a, f)), dump(fb)
        for v in sorted(set(da) | set(db_)):
            if da.get(v) != db_.get(v):
                print("%s: view %s differs (%d vs %d rows)" % (
                    f, v, len(da.get(v, [])), len(db_.get(v, []))))
                bad += 1
        print("%-32s %s" % (f, "same" if not bad else "checked"))
    print("differences: %d" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
