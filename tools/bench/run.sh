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

# One vsweep run; prints "start end bytes" (s since the epoch, bytes).
sweep() {
  rm -f "$tmp/v.db"
  local t0 t1
  t0=$(date +%s.%N)
  build-bench/tools/vsweep/vsweep run tools/bench/bench.yaml \
    --sweep "$tmp/sweep.yaml" -o "$tmp/v.db" -j 2 "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t0 $t1 $(stat -c %s "$tmp/v.db")"
}
read -r s_all e_all b_all < <(sweep)
rows=$(sqlite3 "$tmp/v.db" "SELECT count(*) FROM state")
read -r s_nomap e_nomap b_nomap < <(sweep --record state,wheels)
read -r s_state e_state b_state < <(sweep --record state)
plain=$(build-bench/tools/bench/plain_insert "$tmp/p.db" "$rows")
pbytes=$(stat -c %s "$tmp/p.db")
python3 - "$n" "$rows" "$plain" "$pbytes" "$s_all" "$e_all" "$b_all" \
  "$s_nomap" "$e_nomap" "$b_nomap" "$s_state" "$e_state" "$b_state" <<'PY'
import sys
n, rows, plain, pb = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
a = sys.argv[5:]
runs = [(name, float(a[3 * k + 1]) - float(a[3 * k]), a[3 * k + 2]) for k, name in
        enumerate(["everything (state, wheels, map)", "without map location",
                   "state only"])]
print("variants            %d (2 actors, 20 s at 100 Hz, -j 2)" % n)
print("actor-steps         %d" % rows)
print("plain insert        %.0f rows/s (prepared single-row, WAL, 10k/commit), %.1f bytes/row"
      % (plain, pb / rows))
for name, t, b in runs:
    rate = rows / float(t)
    print("vsweep %-30s %.0f actor-steps/s  ratio %.2f  %.1f bytes/actor-step  (%.2f s)"
          % (name, rate, rate / plain, int(b) / rows, float(t)))
PY
