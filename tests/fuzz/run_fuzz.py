#!/usr/bin/env python3
"""Runs one libFuzzer target for a fixed time from a seed corpus made of the
repository's scenarios, sweeps and test inputs; prints the executions and
fails on any crash (libFuzzer's own exit status).

  run_fuzz.py FUZZER {scenario|sweep|variant|odr|fmu} SECONDS [-- extra libFuzzer args]

Long run (hours, keeps the corpus it grows):
  build-fuzz/tests/fuzz/fuzz_sweep -max_total_time=3600 corpus/ seeds/
or, with this script's seeds (odr: tests/data/xodr; fmu: the descriptions
tests/fmu/make_fmu.py writes):
  tests/fuzz/run_fuzz.py build-fuzz/tests/fuzz/fuzz_odr odr 3600
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

root = os.environ.get("VSWEEP_SOURCE_ROOT",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
exe, kind, seconds = sys.argv[1], sys.argv[2], sys.argv[3]
extra = sys.argv[5:] if len(sys.argv) > 4 and sys.argv[4] == "--" else []


def is_sweep(text):
    return "blocks:" in text


seeds = []
if kind == "odr":
    for path in sorted(glob.glob(os.path.join(root, "tests", "data", "xodr",
                                              "*.xodr"))):
        seeds.append(open(path, "rb").read())
elif kind == "fmu":
    sys.path.insert(0, os.path.join(root, "tests", "fmu"))
    import make_fmu  # noqa: E402
    for fmi in (2, 3):
        for start in (False, True):
            for fail in (False, True):
                seeds.append(make_fmu.description(fmi, "st", start, fail,
                                                  fail).encode())
yaml = kind in ("scenario", "sweep", "variant")
for path in sorted(glob.glob(os.path.join(root, "scenarios", "*.yaml")) +
                   glob.glob(os.path.join(root, "tests", "**", "*.yaml"),
                             recursive=True)) if yaml else []:
    text = open(path, "rb").read()
    sweep = is_sweep(text.decode("utf-8", "replace"))
    if (kind == "scenario") != sweep:
        seeds.append(text)
# Scenario and sweep snippets embedded in the unit tests (C string
# literals, possibly split over lines).
for path in glob.glob(os.path.join(root, "tests", "unit", "*", "*.c")) \
        if yaml else []:
    src = re.sub(r'"\s*\n\s*"', "", open(path).read())
    for m in re.finditer(r'"(vsweep: 1\\n(?:[^"\\]|\\.)*)"', src):
        text = m.group(1).encode().decode("unicode_escape")
        if (kind == "scenario") != is_sweep(text):
            seeds.append(text.encode())

work = tempfile.mkdtemp(prefix="vsweep-fuzz-")
corpus = os.path.join(work, "corpus")
seed_dir = os.path.join(work, "seeds")
os.makedirs(corpus)
os.makedirs(seed_dir)
for k, s in enumerate(seeds):
    if kind == "variant":
        s = (k * 2654435761).to_bytes(8, "little") + s
    open(os.path.join(seed_dir, "seed%03d" % k), "wb").write(s)
print("fuzz_%s: %d seed inputs, %s s" % (kind, len(seeds), seconds), flush=True)
p = subprocess.run([exe, "-max_total_time=" + seconds, "-rss_limit_mb=2048",
                    "-timeout=20", "-print_final_stats=1",
                    "-artifact_prefix=" + work + "/", corpus, seed_dir] + extra,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
out = p.stdout
runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", out)
print("fuzz_%s: %s executions, exit %d" % (kind, runs[-1] if runs else "?", p.returncode))
if p.returncode != 0:
    print(out[-20000:])
    print("artifacts in", work)
    sys.exit(1)
subprocess.run(["rm", "-rf", work])
