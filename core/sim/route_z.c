/* Height along a route: z, pitch and vz of an actor following 3-D
 * waypoints (route_z.h). */
#include "sim/route_z.h"

#include <math.h>

/* Legs ahead of the last one searched each step: far more than a step can
 * cover, far fewer than a loop. */
#define LEGS_AHEAD 3

void vs_route_z_init(vs_route_z *r, const vs_actor_spec *a, int follows)
{
	r->active = 0;
	r->leg = 0;
	if (!follows || a->n_waypoints < 2)
		return;
	for (int i = 1; i < a->n_waypoints; i++)
		if (a->waypoints[3 * i + 2] != a->waypoints[2])
			r->active = 1;
}

/* Squared horizontal distance from (x, y) to leg i, and where on it (u in
 * [0, 1]) the nearest point is. */
static double leg_nearest(const double *w, int i, double x, double y,
                          double *u)
{
	const double *a = w + 3 * i, *b = a + 3;
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((x - a[0]) * dx + (y - a[1]) * dy) / len2 : 0;
	t = t < 0 ? 0 : (t > 1 ? 1 : t);
	*u = t;
	double qx = a[0] + t * dx - x, qy = a[1] + t * dy - y;
	return qx * qx + qy * qy;
}

void vs_route_z_apply(vs_route_z *r, const vs_actor_spec *a, vs_state *s)
{
	if (!r->active)
		return;
	const double *w = a->waypoints;
	int last = a->n_waypoints - 2; /* the last leg */
	double best = INFINITY, best_u = 0;
	for (int i = r->leg; i <= last && i <= r->leg + LEGS_AHEAD; i++) {
		double u, d2 = leg_nearest(w, i, s->x, s->y, &u);
		if (d2 < best) {
			best = d2;
			best_u = u;
			r->leg = i;
		}
	}
	const double *p = w + 3 * r->leg, *q = p + 3;
	double run = hypot(q[0] - p[0], q[1] - p[1]); /* m, horizontal */
	double rise = q[2] - p[2];                   /* m */
	s->z = p[2] + best_u * rise;
	double slope = run > 0 ? rise / run : 0;
	s->pitch = atan(slope);
	/* Driving forward (+Y) along the leg climbs at the slope. */
	double hx = -sin(s->yaw), hy = cos(s->yaw);
	double along = run > 0 ? (hx * (q[0] - p[0]) + hy * (q[1] - p[1])) / run
	                       : 0;
	s->vz = s->speed * along * slope;
}
