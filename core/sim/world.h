/* What a behaviour may ask the host about the world (ABI 1.1 host
 * services): any actor's MapLocation and attributes, and lane geometry,
 * all of the previous step, so that the order in which actors are
 * stepped never matters. sim.c owns one per variant and answers its
 * plugins' calls through it. */
#ifndef VS_SIM_WORLD_H
#define VS_SIM_WORLD_H

#include <vsweep/plugin.h>

#include "input/scenario.h"
#include "sim/result.h"

struct vs_map;

typedef struct vs_sim_world {
	const struct vs_map *map;     /* NULL: no map */
	int n;                        /* actors */
	const int64_t *ids;           /* in scenario order */
	vs_state *const *prev;        /* points at sim's prev (swapped) */
	const vs_map_row *loc;        /* MapLocation of step k-1 while
	                                 behaviours compute step k */
	vs_actor_attr *attrs;         /* n */
	int64_t *children;            /* every attrs[i].children, packed */
} vs_sim_world;

/* Fills the actor attributes of scn; the rest is the caller's. */
void vs_sim_world_init(vs_sim_world *w, const vs_scenario *scn);
void vs_sim_world_free(vs_sim_world *w);

/* The host services' answers (plugin.h describes them). */
int vs_sim_world_location(const vs_sim_world *w, int64_t id,
                          vs_lane_location *out);
int vs_sim_world_lane_point(const vs_sim_world *w, const char *lane, double s,
                            vs_lane_point *out);
const char *vs_sim_world_lane_link(const vs_sim_world *w, const char *lane,
                                   int relation);
const vs_actor_attr *vs_sim_world_attr(const vs_sim_world *w, int64_t id);

#endif
