#!/usr/bin/env bash
# The main job: build vsweep, sweep the seed article's circle over speed
# into circle.db, and print a summary of it in SQL. Says what it does at
# each stage, and builds only the program and the two plugins the sweep
# uses (in build-seed/, tests off), so a first run is short and visible.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "seed-sweep: $*" >&2; }
say "checking the Debian packages (tools/deps.sh installs what is missing)"
tools/deps.sh
if [ ! -f build-seed/build.ninja ]; then
  say "configuring build-seed/ (meson, tests off)"
  meson setup build-seed -Dtests=false --buildtype=release >/dev/null
fi
say "building vsweep and the plugins kinematic_bicycle, constant_steer"
ninja -C build-seed tools/vsweep/vsweep plugins/kinematic_bicycle.so \
  plugins/constant_steer.so >&2
say "sweeping scenarios/circle.yaml over scenarios/circle_speed.yaml into circle.db"
build-seed/tools/vsweep/vsweep run scenarios/circle.yaml \
  --sweep scenarios/circle_speed.yaml -o circle.db --overwrite -j "$(nproc)"
say "summary per variant (SQL on circle.db):"
sqlite3 -header -column circle.db "
  SELECT v.variant_id, v.status,
         json_extract(v.params, '\$.actor1.speed') AS speed_mps,
         count(*) AS steps, round(max(s.t), 2) AS t_end_s,
         round(avg(sqrt(s.vx * s.vx + s.vy * s.vy) / s.wz), 3) AS radius_m,
         round(avg(s.wz), 4) AS yaw_rate_rad_s
  FROM variant_info v JOIN actor_state s USING (variant_id)
  WHERE s.step > 0
  GROUP BY v.variant_id ORDER BY v.variant_id;"
