#!/bin/sh
# The analyst's query set on >= 10 M actor-steps (queries.py says how), with
# the write side against a build of main: builds main's tree in
# /tmp/vsweep-bench-main unless BASE=path/to/vsweep is given. Release
# builds both (this tree's in build-bench, as run.sh).
# Usage: tools/bench/queries.sh [--actor-steps N]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ -z "$BASE" ]; then
	src=/tmp/vsweep-bench-main
	rm -rf "$src" && mkdir -p "$src"
	git -C "$root" archive main | tar -x -C "$src"
	meson setup "$src/build" "$src" -Dbuildtype=release -Dtests=false >/dev/null
	nice ninja -C "$src/build" >/dev/null  # vsweep and its plugins
	BASE="$src/build/tools/vsweep/vsweep"
fi
[ -f "$root/build-bench/build.ninja" ] ||
	meson setup "$root/build-bench" "$root" -Dbuildtype=release \
		-Dtests=false >/dev/null
ninja -C "$root/build-bench" >/dev/null
exec python3 "$here/queries.py" "$root/build-bench/tools/vsweep/vsweep" "$BASE" "$@"
