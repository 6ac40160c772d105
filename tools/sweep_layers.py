#!/usr/bin/env python3
"""The sweep loader's layers, checked on the built library: each file of
core/input/ listed below may call functions defined only in the files
listed before it (or in itself), never in one after it. The symbols come
from `nm` on libvscore.a, so a call that slips past the headers is still
caught.

  tools/sweep_layers.py LIBVSCORE.a

Prints each file's calls into the others and exits 1 naming any upward
call."""
import collections
import re
import subprocess
import sys

# Bottom first (core/input/sweep.c's opening comment says what each holds).
LAYERS = ["keys", "sweep_props", "variant_build", "sweep_values",
          "sweep_rules", "sweep_dists", "sweep_list", "sweep_block_rules",
          "sweep_blocks", "sweep"]
MEMBER = re.compile(r"input_(\w+)\.c\.o$")


def symbols(lib):
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True,
                         check=True).stdout
    defined = collections.defaultdict(set)
    used = collections.defaultdict(set)
    for line in out.splitlines():
        parts = line.rsplit(":", 1)
        if len(parts) != 2:
            continue
        m = MEMBER.search(parts[0])
        if not m or m.group(1) not in LAYERS:
            continue
        f = parts[1].split()
        if len(f) == 2 and f[0] == "U":
            used[m.group(1)].add(f[1])
        elif len(f) == 3 and f[1] in "TDRB":
            defined[m.group(1)].add(f[2])
    return defined, used


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    defined, used = symbols(argv[1])
    missing = [f for f in LAYERS if f not in defined]
    if missing:
        print("sweep_layers.py: no object for %s in %s" % (missing, argv[1]))
        return 1
    bad = 0
    for i, f in enumerate(LAYERS):
        for j, g in enumerate(LAYERS):
            calls = sorted(used[f] & defined[g])
            if not calls or f == g:
                continue
            up = j > i
            bad += up
            print("%s -> %s: %s%s" % (f, g, " ".join(calls),
                                      "  <- UPWARD" if up else ""))
    print("%s" % ("%d upward call(s)" % bad if bad else "no upward call"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
