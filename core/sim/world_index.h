/* The broad phase behind the host's lane_actors, actors_near and
 * actor_reach services (world.h): built from step k-1 on the first call
 * of a step, kept for the rest of it. */
#ifndef VS_SIM_WORLD_INDEX_H
#define VS_SIM_WORLD_INDEX_H

#include <stdint.h>

#include "sim/world.h"

struct world_id {
	int64_t id;
	int idx; /* scenario order */
};

/* An actor located in a lane (its MapLocation at step k-1). */
struct world_lane_entry {
	int lane;  /* map lane index */
	int idx;   /* actor, scenario order */
	double s;  /* m along the lane */
};

/* An actor's origin in the grid. */
struct world_cell {
	int64_t ix, iy; /* cell */
	int idx;        /* actor, scenario order */
};

void world_index_free(vs_sim_world *w);

#endif
