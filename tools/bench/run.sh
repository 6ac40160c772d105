#!/usr/bin/env bash
# The write benchmark (tools/bench/bench.py): vsweep against a plain SQLite
# insert of the same rows, interleaved, medians of several runs, CPU time
# beside wall time.
#
#   tools/bench/run.sh [VARIANTS] [REPEATS]      defaults 300 and 5
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps.sh
[ -f build-bench/build.ninja ] ||
  meson setup build-bench -Dbuildtype=release -Dtests=false >/dev/null
ninja -C build-bench >/dev/null
exec python3 tools/bench/bench.py "$@"
