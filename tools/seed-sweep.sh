#!/usr/bin/env bash
# The main job: build vsweep, sweep the seed article's circle over speed
# into circle.db, and print a summary of it in SQL.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
build/tools/vsweep/vsweep run scenarios/circle.yaml \
  --sweep scenarios/circle_speed.yaml -o circle.db --overwrite -j "$(nproc)"
sqlite3 -header -column circle.db "
  SELECT v.variant_id, v.status,
         json_extract(v.params, '\$.actor1.speed') AS speed_mps,
         count(*) AS steps, round(max(s.t), 2) AS t_end_s,
         round(avg(sqrt(s.vx * s.vx + s.vy * s.vy) / s.wz), 3) AS radius_m,
         round(avg(s.wz), 4) AS yaw_rate_rad_s
  FROM variant_info v JOIN actor_state s USING (variant_id)
  WHERE s.step > 0
  GROUP BY v.variant_id ORDER BY v.variant_id;"
