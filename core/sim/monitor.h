/* Watching a variant while it runs: events (collision, lane_change,
 * off_road, back_on_road) and the per-variant summary of variant_summary.
 * Computed at every simulated step, not only the recorded ones. */
#ifndef VS_MONITOR_H
#define VS_MONITOR_H

#include <stdint.h>

#include <vsweep/plugin.h>

#include "sim/result.h"

typedef struct vs_monitor vs_monitor;

/* Where an actor is on the map at one step (see core/map). */
typedef struct vs_lane_pos {
	int lane;      /* lane index, -1: none (no map) */
	int on_lane;   /* the origin lies between the lane's boundaries */
} vs_lane_pos;

struct vs_map;

/* n actors with their infos and parent IDs (0: the world); the map names
 * lanes in event details (NULL: no map). */
vs_monitor *vs_monitor_create(int n, const vs_actor_info *info,
                              const int64_t *parent,
                              const struct vs_map *map);

/* Step k's states (cur) and lane positions (NULL without a map). Appends
 * events to res. Returns the number of collisions that began this step. */
int vs_monitor_step(vs_monitor *m, int64_t step, const vs_state *cur,
                    const vs_lane_pos *lanes, vs_result *res);

/* Writes the summary into res and frees the monitor; accepts NULL. */
void vs_monitor_finish(vs_monitor *m, vs_result *res);

#endif
