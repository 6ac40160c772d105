#!/usr/bin/env bash
# Per-step cost of an FMU vehicle model against the same model as a native
# plugin (tools/bench/fmu_overhead.c): builds what it needs in a release
# build directory (with the tests, where the test FMUs come from) and
# prints medians of interleaved runs, CPU and wall time.
#
#   tools/bench/fmu_overhead.sh [STEPS [RUNS]]     default 200000 7
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps.sh
b=build-bench-fmu
[ -f $b/build.ninja ] || meson setup $b -Dbuildtype=release >/dev/null
ninja -C $b tools/bench/fmu_overhead plugins/bicycle_linear.so \
  tests/fmu/st2_start.fmu tests/fmu/st3_start.fmu >/dev/null
$b/tools/bench/fmu_overhead $b/plugins/bicycle_linear.so \
  $b/tests/fmu/st2_start.fmu $b/tests/fmu/st3_start.fmu "$@"
