/* Watching a variant while it runs: events (collision, lane_change,
 * off_road, back_on_road) and the per-variant summary of variant_summary.
 * Computed at every simulated step, not only the recorded ones. */
#ifndef VS_MONITOR_H
#define VS_MONITOR_H

#include <stdint.h>

#include <vsweep/plugin.h>

#include "sim/result.h"

typedef struct vs_monitor vs_monitor;

struct vs_map;

/* A monitor for n actors, whose identities are given by vs_monitor_actor
 * before the first step; the map names lanes in event details (NULL: no
 * map). */
vs_monitor *vs_monitor_create(int n, const struct vs_map *map);

/* Actor i: its ID and box from its info, and its parent's ID (0: the
 * world; an actor never collides with its parent or child). */
void vs_monitor_actor(vs_monitor *m, int i, const vs_actor_info *info,
                      int64_t parent_id);

/* Step k's states (cur) and map locations (loc, NULL without a map).
 * Appends events to res. Returns the number of collisions that began this
 * step. */
int vs_monitor_step(vs_monitor *m, int64_t step, const vs_state *cur,
                    const vs_map_row *loc, vs_result *res);

/* Appends an event of kind (a static string) to res; returns it, zeroed
 * but for these fields, for its detail. */
vs_event_row *vs_monitor_add_event(vs_result *res, int64_t step,
                                   int64_t actor, const char *kind,
                                   int64_t other);

/* Writes the summary into res and frees the monitor; accepts NULL. */
void vs_monitor_finish(vs_monitor *m, vs_result *res);

#endif
