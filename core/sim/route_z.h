/* Height along a route (docs/sweep.md: a route is 3-D; its z
 * follows the waypoints' z along the path, pitch from the path's slope).
 * The vehicle models are planar, so the host lifts an actor whose
 * behaviour follows its route: z is interpolated linearly in horizontal
 * distance between the two waypoints whose leg the origin is on, and the
 * pitch (about the actor's X axis, nose up positive) is atan of that
 * leg's slope. */
#ifndef VS_SIM_ROUTE_Z_H
#define VS_SIM_ROUTE_Z_H

#include <vsweep/plugin.h>

#include "input/scenario.h"

/* Progress along one actor's route (the leg last found). */
typedef struct vs_route_z {
	int active; /* 1: the route's waypoints do not share one z */
	int leg;    /* index of the leg's first waypoint */
} vs_route_z;

/* Sets r for actor a: active when a follows its route (follows, from its
 * behaviour's descriptor) and its waypoints' z differ. */
void vs_route_z_init(vs_route_z *r, const vs_actor_spec *a, int follows);

/* Lifts s onto the route when r is active: z, pitch and vz from the leg
 * that holds the origin's projection, searched forward from the last (a
 * route that comes back over itself is taken in order). */
void vs_route_z_apply(vs_route_z *r, const vs_actor_spec *a, vs_state *s);

#endif
