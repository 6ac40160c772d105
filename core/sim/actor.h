/* An actor of a bound variant scenario as the simulation sees it: its body
 * (sim/geometry.h, fed with the asset and the actor's possibly varied
 * dimensions), its contact points, and the vs_actor_info plugins receive.
 * Read by sim.c (plugins, the monitor, actor_info rows) and attach.c
 * (hitches and a trailer's axles); includes nothing of sim/ but the
 * geometry, so neither of those two includes the other. */
#ifndef VS_SIM_ACTOR_H
#define VS_SIM_ACTOR_H

#include <vsweep/plugin.h>

#include "input/scenario.h"
#include "geom/geometry.h"

/* What actor i's geometry depends on; points into the scenario's asset. */
vs_geom_body vs_sim_body(const vs_scenario *scn, int actor);

/* The actor's axle positions (m, actor frame, front first) from the asset
 * and its possibly varied dimensions, into axle_y (VS_MAX_AXLES values);
 * returns the count (0: no axles). */
int vs_sim_axles(const vs_scenario *scn, int actor, double *axle_y);

/* Where a contact point of actor i lies in its actor frame (m), for the
 * actor's current (possibly varied) length. An imported point whose index
 * is unresolved (vs_attach_check refuses these) gives the origin. */
void vs_sim_point_pos(const vs_scenario *scn, int actor,
                      const vs_attach_point *pt, double out[3]);

/* The actor as plugins see it (vs_actor_info), from the scenario: axle
 * positions from the asset and the actor's (possibly varied) dimensions.
 * Route arrays point into the scenario. */
void vs_sim_actor_info(const vs_scenario *scn, int actor,
                       vs_actor_info *info);

#endif
