/* varyActorProperties' rules that need only which properties a set of
 * changes touches, not their values. Layer 2 of the sweep loader, beside
 * sweep_values.c (whose context it reports through); used by list blocks
 * (sweep_list.c) and grid and random blocks (sweep_blocks.c). */
#ifndef VS_SWEEP_RULES_H
#define VS_SWEEP_RULES_H

#include "input/sweep_values.h"

/* Nothing changed twice, waypoints with speed (and someone to follow
 * them), yaw with waypoints and speed, start.position not with
 * start.x/y/z, only the dimension of an attached actor, no change the
 * actor's kind gives no effect (a route, yaw or speed vector without a
 * behaviour that follows routes, a speed for an actor nothing moves, an
 * overhang without the axle it places). A change's n says whether a
 * speed is a vector; its values are not read. scope
 * ("variant", "block") says what the set covers. Returns 0, or -1 with
 * c->err set at the offending change. */
int vs_sweep_check_rules(vs_sweep_ctx *c, const vs_change_set *set,
                         const char *scope);

#endif
