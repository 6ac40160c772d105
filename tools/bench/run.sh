#!/usr/bin/env bash
# vsweep against a plain SQLite insert of the same number of rows, measured
# in the same run (these machines are noisy: compare ratios, not rates).
#
#   tools/bench/run.sh [VARIANTS]      default 300
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-300}
tools/deps.sh
[ -f build-bench/build.ninja ] ||
  meson setup build-bench -Dbuildtype=release -Dtests=false >/dev/null
ninja -C build-bench >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo "vsweep: 1"
  echo "blocks:"
  echo "  - list:"
  for i in $(seq 0 $((n - 1))); do
    echo "      - [{actor: 1, speed: $((5 + i % 25)).$((i % 7))}, {actor: 2, speed: [$((8 + i % 9)), $((12 + i % 5))]}]"
  done
} > "$tmp/sweep.yaml"

t0=$(date +%s.%N)
build-bench/tools/vsweep/vsweep run tools/bench/bench.yaml \
  --sweep "$tmp/sweep.yaml" -o "$tmp/v.db" -j 2 >/dev/null
t1=$(date +%s.%N)
rows=$(sqlite3 "$tmp/v.db" "SELECT count(*) FROM state")
bytes=$(stat -c %s "$tmp/v.db")
plain=$(build-bench/tools/bench/plain_insert "$tmp/p.db" "$rows")
pbytes=$(stat -c %s "$tmp/p.db")
python3 - "$n" "$rows" "$t0" "$t1" "$plain" "$bytes" "$pbytes" <<'PY'
import sys
n, rows, t0, t1, plain, b, pb = sys.argv[1:]
rows = int(rows); dt = float(t1) - float(t0); plain = float(plain)
rate = rows / dt
print("variants            %d (2 actors, 20 s at 100 Hz, -j 2)" % int(n))
print("actor-steps stored  %d" % rows)
print("vsweep              %.0f actor-steps/s (%.2f s, whole run)" % (rate, dt))
print("plain insert        %.0f rows/s (prepared single-row, WAL, 10k/commit)" % plain)
print("ratio               %.2f" % (rate / plain))
print("bytes/actor-step    %.1f (plain: %.1f)" % (int(b) / rows, int(pb) / rows))
PY
