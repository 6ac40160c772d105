#!/usr/bin/env bash
# Builds vsweep and runs every test twice: a normal build, and one with
# AddressSanitizer and UndefinedBehaviorSanitizer; then the libFuzzer
# targets for a minute each (a clang build). Warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
jobs=$(nproc)
passed=0 failed=0

# Runs one build's tests; adds its counts to the totals.
run_tests() {
  local dir=$1 log
  shift
  log=$(mktemp)
  set +e
  env meson test -C "$dir" --print-errorlogs --num-processes "$jobs" "$@" |
    tee "$log"
  set -e
  passed=$((passed + $(awk '/^Ok:/ {print $2}' "$log")))
  failed=$((failed + $(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $NF} END {print s + 0}' "$log")))
  rm -f "$log"
}

[ -f build-test/build.ninja ] || meson setup build-test -Dwerror=true >/dev/null
ninja -C build-test
run_tests build-test

[ -f build-asan/build.ninja ] ||
  meson setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debug >/dev/null
ninja -C build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 run_tests build-asan

# The fuzz targets (clang, libFuzzer + ASan/UBSan), each for fuzz_seconds.
[ -f build-fuzz/build.ninja ] ||
  CC=clang meson setup build-fuzz -Dwerror=true -Dfuzz=true -Dtests=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
    -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
ninja -C build-fuzz
run_tests build-fuzz --suite fuzz

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
