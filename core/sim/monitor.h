/* Watching a variant while it runs: events (collision, lane_change,
 * off_road, back_on_road) and the per-variant summary of variant_summary,
 * computed at every simulated step, not only the recorded ones; and the
 * pair rows of actor_pair at the recorded ones. */
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

/* Every kind an event row may carry, in one list (monitor.c) for the
 * monitor and safety.c that make them and for crash containment, whose
 * child sends a kind as its index here: the kind's index, or -1 for
 * none of them; the name of index k (0 <= k < VS_EVENT_KINDS). */
enum { VS_EVENT_KINDS = 5 };
int32_t vs_event_kind_index(const char *kind);
const char *vs_event_kind_name(int32_t k);

/* Appends an event of kind (a static string, one of the list above) to
 * res; returns it, zeroed but for these fields, for its detail. */
vs_event_row *vs_monitor_add_event(vs_result *res, int64_t step,
                                   int64_t actor, const char *kind,
                                   int64_t other);

/* Pair rows of step k (view actor_pair) into res: every two actors not
 * attached to each other whose footprints are at most range (m) apart,
 * each pair once, the lower actor ID first. */
void vs_monitor_pairs(vs_monitor *m, int64_t step, const vs_state *cur,
                      double range, vs_result *res);

/* 1 when the value v of actor id beats the KPI held so far (best, of
 * best_id; 0: none yet): larger wins for a maximum (sign 1), smaller for
 * a minimum (sign -1), and of equal values the lower actor ID. Infinite
 * values never win: they stand for "none". */
static inline int vs_kpi_beats(double v, int64_t id, double best,
                               int64_t best_id, int sign)
{
	if (!(v - v == 0)) /* inf or NaN */
		return 0;
	if (best_id == 0 || sign * v > sign * best)
		return 1;
	return v == best && id < best_id;
}

/* Writes the summary into res and frees the monitor; accepts NULL. */
void vs_monitor_finish(vs_monitor *m, vs_result *res);

#endif
