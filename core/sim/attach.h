/* Attached actors in the stepping loop (docs/conventions.md: "attached children
 * follow their parents (fixed) or integrate their own hitch dynamics
 * (trailer)").
 *
 * Notation: a pose is [R t; 0 1] with R = Rz(yaw) Rx(pitch) Ry(roll),
 * pitch and roll being the vs_state fields of that name (results schema
 * version 2: pitch about the actor's X, right, axis; roll about its Y);
 * T(v) is a translation by v; P the parent's pose; p the parent's contact
 * point and o the offset (parent frame); c the child's contact point
 * (child frame); h the heading and s the slope (attach:, input/attach.h).
 *
 * Placement (step 0, both types) puts the child's contact point on the
 * parent's plus the offset, turned by heading and slope:
 *     child = P T(p + o) Rz(h) Rx(s) T(-c)
 * so the child's point, child * c, is P (p + o), whatever the child's own
 * start says. Rx(s) turns about the child's X (right) axis: the slope is
 * RoadRunner's pitch of the child relative to the parent, nose up
 * positive, so a fixed child's forward axis R (0, 1, 0) rises at s (its z
 * component is sin s on a level parent with h = 0).
 *
 * fixed: the same constant transform C = T(p + o) Rz(h) Rx(s) T(-c) at
 * every step, child = P C. Velocity v = v_P + w_P x (R_P t_C), angular
 * velocity w = w_P.
 *
 * trailer: its own no-slip kinematics about the hitch H = P (p + o), the
 * parent's contact point plus the offset, in the ground plane. The
 * trailer's axle group centre A (the middle of all its axles: none is
 * steered) has no lateral velocity. With L2 = c_y - A_y > 0 the distance
 * from hitch to axle centre along the trailer, r = (cos yaw, sin yaw) the
 * trailer's right (+X) axis in the world and V_H the hitch velocity,
 *     d yaw / dt = -(r . V_H) / L2
 * (a hitch moving to the trailer's left turns it left). Over step k the
 * hitch follows the cubic Hermite curve through H and V_H of the parent at
 * steps k-1 and k (both known: parents are stepped first), and the yaw is
 * integrated by RK4 in VS_ATTACH_SUBSTEPS sub-steps. The trailer is then
 * placed with its contact point's (x, y) on H's, on the parent's ground:
 * z = the parent's z, roll = pitch = 0 (its wheels stay on the ground;
 * the points' heights do not lift it). Its velocity is V_H + w x (origin -
 * H) with w = (0, 0, d yaw / dt) at step k, its steer 0, so the host
 * derives its wheel poses like any vehicle's. The articulation is free: a
 * trailer off-tracks inside a curve. */
#ifndef VS_SIM_ATTACH_H
#define VS_SIM_ATTACH_H

#include <vsweep/plugin.h>

#include "common/error.h"
#include "input/scenario.h"

#define VS_ATTACH_SUBSTEPS 4 /* RK4 sub-steps per step for a trailer's yaw */

typedef struct vs_attach_link {
	int child, parent;       /* actor indices */
	vs_attach_type type;
	double hitch_p[3];       /* m, parent frame: p + o */
	double hitch_c[3];       /* m, child frame: c */
	double rel[9];           /* Rz(h) Rx(s), row-major: child axes in
	                            the parent's */
	double fixed_t[3];       /* m, parent frame: the child's origin,
	                            p + o - rel c */
	double tow;              /* m, trailer: L2, hitch to axle centre */
} vs_attach_link;

/* Caller-owned: vs_attach_plan_init / vs_attach_plan_finish. */
typedef struct vs_attach_plan {
	int n;                   /* links */
	vs_attach_link *links;   /* parents before children (a road train's
	                            second trailer after the first) */
	unsigned char *attached; /* per actor: 1 when a link moves it */
} vs_attach_plan;

/* Builds the links of a variant (its dimensions may differ from the
 * seed's, so this runs once per variant). On error (a trailer whose
 * contact point is no longer ahead of its axles, a cycle in a hand-built
 * scenario) returns -1 with err set to "actor ID (NAME): attach: why"
 * and p empty. */
int vs_attach_plan_init(vs_attach_plan *p, const vs_scenario *scn,
                        vs_error *err);
void vs_attach_plan_finish(vs_attach_plan *p);

/* Places every attached child at step 0 from its parent's step-0 state in
 * s (the parents' vehicle models have been reset). */
void vs_attach_place(const vs_attach_plan *p, vs_state *s);

/* Moves every attached child from step k-1 (prev) to k (cur), after the
 * unattached actors' vehicle models wrote theirs into cur. Returns 0, or
 * -1 with err set to "actor ID (NAME): attach: why" when a child's state
 * is not finite. */
int vs_attach_step(const vs_attach_plan *p, const vs_scenario *scn,
                   const vs_state *prev, vs_state *cur, double dt,
                   vs_error *err);

/* The rotation of a state (docs/conventions.md):
 * R = Rz(yaw) Rx(pitch) Ry(roll), row-major. */
void vs_state_rotation(const vs_state *s, double R[9]);

#endif
