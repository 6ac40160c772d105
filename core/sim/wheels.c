/* Wheels of a vehicle (wheels.h): their fixed geometry, stored once per
 * actor, and the four accumulators per actor-step the wheel_pose view
 * derives every wheel's steer and spin from.
 *
 * Called by sim.c: vs_wheels_advance once per actor and step, after the
 * actor's state at step k is final (attached children after their
 * parents), when the wheels are stored (nothing else reads the
 * accumulators); vs_wheels_geometry when the actor_info rows are filled.
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

/* sin a and cos a. At a = +-0 (a vehicle going straight) they are +-0
 * and 1 exactly, so the libm call is skipped without changing a bit. */
static void sin_cos(double a, double *s, double *c)
{
	if (a == 0) {
		*s = a;
		*c = 1;
		return;
	}
	*s = sin(a);
	*c = cos(a);
}

/* tan d; tan +-0 = +-0 exactly, without the call. */
static double tan_of(double d)
{
	return d == 0 ? d : tan(d);
}

/* The steer of the wheel at lateral x, given t = tan d. At d = +-0,
 * atan2(l * t, l + x * t) is atan2(+-0, l) = d exactly for a finite l > 0
 * and a finite x, so the call is skipped then. */
static double wheel_steer(double d, double t, double x, double l)
{
	if (d == 0 && l > 0 && isfinite(l) && isfinite(x))
		return d;
	return atan2(l * t, l + x * t);
}

double vs_wheel_steer(double d, double x, double l)
{
	return wheel_steer(d, tan_of(d), x, l);
}

/* Speed at which the wheel at (x, y) of the actor frame rolls: the wheel
 * centre's velocity along the wheel's heading (m/s), given the sine sn
 * and cosine c of its steer. vr, vf: the origin's velocity in the actor
 * frame (X right, Y forward). */
static double rolling_speed(double vr, double vf, double wz, double x,
                            double y, double sn, double c)
{
	/* Plus w x r for the wheel centre, r = (x, y). */
	double wr = vr - wz * y;
	double wf = vf + wz * x;
	/* Wheel heading Rz(steer) (0, 1) = (-sin steer, cos steer). */
	return -sn * wr + c * wf;
}

/* The front wheels' steer sines and cosines for the bicycle angle d
 * (rad), half the track and the wheelbase l (m) into m, unless m holds
 * them for these already (bit for bit: the same inputs give the same
 * numbers; a NaN never matches). */
static void front_headings(vs_wheel_speeds *m, double d, double half,
                           double l)
{
	if (m->have_d && m->d == d && signbit(m->d) == signbit(d) &&
	    m->half == half && m->l == l)
		return;
	double t = tan_of(d); /* once for both wheels */
	sin_cos(wheel_steer(d, t, -half, l), &m->sin_l, &m->cos_l);
	sin_cos(wheel_steer(d, t, half, l), &m->sin_r, &m->cos_r);
	m->d = d;
	m->half = half;
	m->l = l;
	m->have_d = 1;
}

/* s's rolling speeds into m, the yaw's sine and cosine taken once. */
static void speeds_of(const vs_state *s, const vs_actor_info *info,
                      vs_wheel_speeds *m)
{
	double c, sn;
	sin_cos(s->yaw, &sn, &c);
	double vr = s->vx * c + s->vy * sn;
	double vf = -s->vx * sn + s->vy * c;
	m->valid = 1;
	m->vx = s->vx;
	m->vy = s->vy;
	m->yaw = s->yaw;
	m->wz = s->wz;
	m->steer = s->steer;
	m->origin = rolling_speed(vr, vf, s->wz, 0, 0, 0, 1);
	m->left = m->right = 0;
	if (info->n_axles < 2)
		return;
	double l = info->wheelbase, y = info->front_axle_y;
	double half = info->track / 2;
	front_headings(m, s->steer, half, l);
	m->left = rolling_speed(vr, vf, s->wz, -half, y, m->sin_l, m->cos_l);
	m->right = rolling_speed(vr, vf, s->wz, half, y, m->sin_r, m->cos_r);
}

/* Whether m holds s's speeds: the same fields, bit for bit (a NaN never
 * matches, and is simply computed again). */
static int speeds_match(const vs_wheel_speeds *m, const vs_state *s)
{
	return m->valid && m->vx == s->vx && m->vy == s->vy &&
	       m->yaw == s->yaw && m->wz == s->wz && m->steer == s->steer &&
	       signbit(m->vx) == signbit(s->vx) &&
	       signbit(m->vy) == signbit(s->vy) &&
	       signbit(m->yaw) == signbit(s->yaw) &&
	       signbit(m->wz) == signbit(s->wz) &&
	       signbit(m->steer) == signbit(s->steer);
}

void vs_wheels_advance(vs_wheel_acc *acc, vs_wheel_speeds *memo,
                       const vs_actor_info *info, const vs_state *a,
                       const vs_state *b, double dt)
{
	/* a is the last call's b unless the actor was moved in between
	 * (then its speeds are worked out again). */
	vs_wheel_speeds sa = *memo; /* its front headings, if a's steer */
	if (!speeds_match(memo, a))
		speeds_of(a, info, &sa);
	speeds_of(b, info, memo);
	/* Trapezoid over the step: exact for the constant speeds and yaw
	 * rates of steady motion. */
	acc->dist += 0.5 * dt * (sa.origin + memo->origin);
	acc->turn += vs_wrap_angle(b->yaw - a->yaw);
	if (info->n_axles < 2)
		return;
	acc->roll_l += 0.5 * dt * (sa.left + memo->left);
	acc->roll_r += 0.5 * dt * (sa.right + memo->right);
}
