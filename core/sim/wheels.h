/* Wheel poses (docs/conventions.md "Wheels"), derived by the host for every
 * vehicle: one 4x4 per wheel in the actor frame, front axle first, left to
 * right; translation the wheel centre (z = radius), rotation
 * Rz(steer) Rx(spin).
 *
 * What is stored per actor-step is four numbers (vs_wheel_acc) plus the
 * bicycle steer angle; the wheel_pose view derives every wheel from them
 * and the wheel geometry stored once per actor:
 *   steer of a steered wheel at lateral x:  atan2(l tan d, l + x tan d)
 *     (Ackermann: each front wheel points square to the turn centre, so in
 *     a left turn (d > 0) the inner, left wheel has the larger angle);
 *   distance rolled: unsteered wheels  dist + x * turn  (a rigid body's
 *     point at lateral x moves forward at v + w x), steered wheels their
 *     own integral;
 *   spin = -distance / radius: rolling forward turns a wheel negatively
 *     about the actor's +X axis (right-hand rule), so the matrices animate
 *     a rolling wheel the right way round. */
#ifndef VS_WHEELS_H
#define VS_WHEELS_H

#include <vsweep/plugin.h>

#include "sim/result.h"

/* The wheels of an actor, from its info (axles, track, radius); writes at
 * most max rows and returns the count (2 per axle, 0 for a non-vehicle).
 * axle_y lists the info's axle positions, front first. */
int vs_wheels_geometry(const vs_actor_info *info, const double *axle_y,
                       int n_axles, vs_wheel_row *out, int max);

/* Steer angle of a wheel at lateral x (m, + right) on the steered axle,
 * for the bicycle angle d (rad, + left) and wheelbase l (m). */
double vs_wheel_steer(double d, double x, double l);

/* The rolling speeds (m/s) of one state: the origin's forward speed and
 * the left and right steered wheels'; with the state fields they were
 * computed from, so that the next step, whose start is this step's end,
 * reuses them (a match is bit for bit: the same inputs, the same
 * numbers). Zero-initialise (valid = 0) per actor. */
typedef struct vs_wheel_speeds {
	int valid;
	double vx, vy, yaw, wz, steer; /* the state they are of */
	double origin, left, right;    /* m/s */
	/* The steered wheels' headings for the bicycle angle d (rad): the
	 * sine and cosine of each front wheel's steer. A steer held over
	 * many steps (a steady turn) reuses them: the tangent, two arc
	 * tangents and two sines and cosines per step. Kept across the
	 * speeds above, which are overwritten every step. */
	int have_d;
	double d, half, l; /* rad; m, half the track and the wheelbase */
	double sin_l, cos_l, sin_r, cos_r;
} vs_wheel_speeds;

/* Advances the accumulators from state a (step k-1) to b (step k); memo
 * carries b's speeds to the next call. */
void vs_wheels_advance(vs_wheel_acc *acc, vs_wheel_speeds *memo,
                       const vs_actor_info *info, const vs_state *a,
                       const vs_state *b, double dt);

#endif
