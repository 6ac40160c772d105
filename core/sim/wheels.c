/* Wheels of a vehicle (wheels.h): their fixed geometry, stored once per
 * actor, and the four accumulators per actor-step the wheel_pose view
 * derives every wheel's steer and spin from.
 *
 * Called by sim.c: vs_wheels_advance once per actor and step, after the
 * actor's state at step k is final (attached children after their
 * parents); vs_wheels_geometry when the actor_info rows are filled.
 *
 * Invariants: the accumulators start at 0 at step 0 and integrate over
 * each step with the trapezoid rule, from the states at k-1 and k only;
 * turn is the sum of each step's wrapped yaw change, so it is unwrapped
 * (it counts whole turns). */
#include "sim/wheels.h"

#include <math.h>

#include "common/util.h"

int vs_wheels_geometry(const vs_actor_info *info, const double *axle_y,
                       int n_axles, vs_wheel_row *out, int max)
{
	int n = 0;
	for (int a = 0; a < n_axles; a++) {
		for (int side = 0; side < 2 && n < max; side++) {
			vs_wheel_row *w = &out[n];
			w->actor_id = info->id;
			w->wheel = n;
			w->x = side == 0 ? -info->track / 2 : info->track / 2;
			w->y = axle_y[a];
			w->radius = info->wheel_radius;
			/* The front axle steers when there is a rear one to
			 * steer about; a single-axle trailer's does not. */
			w->steered = a == 0 && n_axles > 1;
			w->wheelbase = info->wheelbase;
			n++;
		}
	}
	return n;
}

double vs_wheel_steer(double d, double x, double l)
{
	double t = tan(d);
	return atan2(l * t, l + x * t);
}

/* Speed at which the wheel at (x, y) of the actor frame rolls: the wheel
 * centre's velocity along the wheel's heading (m/s). */
static double rolling_speed(const vs_state *s, double x, double y,
                            double steer)
{
	double c = cos(s->yaw), sn = sin(s->yaw);
	/* Origin velocity in the actor frame: X right, Y forward. */
	double vr = s->vx * c + s->vy * sn;
	double vf = -s->vx * sn + s->vy * c;
	/* Plus w x r for the wheel centre, r = (x, y). */
	double wr = vr - s->wz * y;
	double wf = vf + s->wz * x;
	/* Wheel heading Rz(steer) (0, 1) = (-sin steer, cos steer). */
	return -sin(steer) * wr + cos(steer) * wf;
}

void vs_wheels_advance(vs_wheel_acc *acc, const vs_actor_info *info,
                       const vs_state *a, const vs_state *b, double dt)
{
	/* Trapezoid over the step: exact for the constant speeds and yaw
	 * rates of steady motion. */
	acc->dist += 0.5 * dt * (rolling_speed(a, 0, 0, 0) +
	                         rolling_speed(b, 0, 0, 0));
	acc->turn += vs_wrap_angle(b->yaw - a->yaw);
	if (info->n_axles < 2)
		return;
	double l = info->wheelbase, y = info->front_axle_y;
	double half = info->track / 2;
	for (int side = 0; side < 2; side++) {
		double x = side == 0 ? -half : half;
		double ua = rolling_speed(a, x, y, vs_wheel_steer(a->steer, x, l));
		double ub = rolling_speed(b, x, y, vs_wheel_steer(b->steer, x, l));
		*(side == 0 ? &acc->roll_l : &acc->roll_r) +=
			0.5 * dt * (ua + ub);
	}
}
