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

struct world_id;
struct world_lane_entry;
struct world_cell;

typedef struct vs_sim_world {
	const struct vs_map *map;     /* NULL: no map */
	int n;                        /* actors */
	const int64_t *ids;           /* in scenario order */
	vs_state *const *prev;        /* points at sim's prev (swapped) */
	const vs_map_row *loc;        /* MapLocation of step k-1 while
	                                 behaviours compute step k */
	vs_actor_attr *attrs;         /* n */
	int64_t *children;            /* every attrs[i].children, packed */
	/* The caller bumps gen whenever prev and loc move on (each step):
	 * what is worked out from them below is kept until gen changes. */
	uint64_t gen;
	struct world_id *by_id;       /* n: (id, index), sorted by ID */
	int *id_slot;                 /* when IDs are dense (the usual 1..n):
	                                 the index of ID id_min + k at k,
	                                 -1 for none; else NULL */
	int64_t id_min, id_span;      /* id_slot's first ID and length */
	/* vs_sim_world_location's answers, computed once per gen */
	vs_lane_location *loc_memo;   /* n */
	int *loc_rc;                  /* n: its return code */
	uint64_t *loc_gen;            /* n: the gen loc_memo[i] is of */
	/* The broad phase (world_index.c), built on first use per gen. */
	uint64_t index_gen;           /* 0: never built */
	struct world_lane_entry *by_lane; /* the located actors by lane, s */
	int n_by_lane;
	int64_t *lane_ids;            /* by_lane's IDs and s (m), as */
	double *lane_s;               /* lane_actors hands them out */
	struct world_cell *cells;     /* n: origins by grid cell */
	int n_cells;                  /* < n: some origins are not finite
	                                 (or too far out for the grid):
	                                 actors_near then scans them all */
	uint64_t *lane_mark;          /* n: lane_stamp when put in by_lane */
	uint64_t lane_stamp;          /* one per build of by_lane */
	int *near_idx;                /* n: actors_near's answer, indices */
	int64_t *near_ids;            /* n: and IDs */
	double reach;                 /* m: vs_sim_world_reach */
	int *parent_idx;              /* n: each actor's parent's index, -1
	                                 for none */
} vs_sim_world;

/* Fills the actor attributes of scn; the rest is the caller's. */
void vs_sim_world_init(vs_sim_world *w, const vs_scenario *scn);
void vs_sim_world_free(vs_sim_world *w);

/* The index of actor id in scenario order, or -1. */
int vs_sim_world_index(const vs_sim_world *w, int64_t id);

/* The host services' answers (plugin.h describes them). */
int vs_sim_world_location(vs_sim_world *w, int64_t id,
                          vs_lane_location *out);
int vs_sim_world_lane_point(const vs_sim_world *w, const char *lane, double s,
                            vs_lane_point *out);
const char *vs_sim_world_lane_link(const vs_sim_world *w, const char *lane,
                                   int relation);
const vs_actor_attr *vs_sim_world_attr(const vs_sim_world *w, int64_t id);

/* The broad phase's services (world_index.c; plugin.h describes them). */
size_t vs_sim_world_lane_actors(vs_sim_world *w, const char *lane,
                                const int64_t **ids, const double **s);
size_t vs_sim_world_actors_near(vs_sim_world *w, double x, double y,
                                double radius, const int64_t **ids);
double vs_sim_world_reach(vs_sim_world *w);

#endif
