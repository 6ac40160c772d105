/* Safety KPIs of one variant, watched at every simulated step: time to
 * collision and time headway of each actor to its lead in the same lane,
 * the largest deceleration and jerk, and near_miss events (docs/results.md
 * "View event" and "View variant_summary"). */
#ifndef VS_SIM_SAFETY_H
#define VS_SIM_SAFETY_H

#include <stdint.h>

#include <vsweep/plugin.h>

#include "sim/result.h"

struct vs_map;

typedef struct vs_safety vs_safety;

/* For n actors with these IDs and lengths (m, copied), step dt (s), a
 * map (NULL: no TTC or headway) and the near-miss threshold (s; 0:
 * none). */
vs_safety *vs_safety_create(int n, const int64_t *ids, const double *length,
                            double dt, const struct vs_map *map,
                            double near_miss_ttc);

/* Marks actor i a character (kind: character): a person on the lane ahead
 * is a lead whichever way it walks (crossing, too), at its speed along
 * the lane; it has no deceleration or jerk KPI (it starts and stops at
 * once). */
void vs_safety_set_character(vs_safety *sf, int i);

/* Actor child is attached to actor parent (indices): no actor of a
 * combination (a tractor, its trailers, theirs) is the lead of another. */
void vs_safety_attach(vs_safety *sf, int child, int parent);

/* Step k's states and map locations (NULL without a map); near_miss
 * events go to res. */
void vs_safety_step(vs_safety *sf, int64_t step, const vs_state *cur,
                    const vs_map_row *loc, vs_result *res);

/* Writes the KPIs into res->summary and frees; accepts NULL. */
void vs_safety_finish(vs_safety *sf, vs_result *res);

#endif
