#include "sim/obb.h"

#include <math.h>

/* Corners counter-clockwise, world frame. Actor X (right) in the world is
 * (cos yaw, sin yaw), actor Y (forward) is (-sin yaw, cos yaw). */
static void corners(const vs_obb *o, double p[4][2])
{
	double c = cos(o->yaw), s = sin(o->yaw);
	double xr[2] = {c * o->hw, s * o->hw};
	double yf[2] = {-s * o->hl, c * o->hl};
	const int sx[4] = {1, 1, -1, -1}, sy[4] = {-1, 1, 1, -1};
	for (int i = 0; i < 4; i++) {
		p[i][0] = o->cx + sx[i] * xr[0] + sy[i] * yf[0];
		p[i][1] = o->cy + sx[i] * xr[1] + sy[i] * yf[1];
	}
}

/* Projections of a's and b's corners onto axis d overlap (strictly). */
static int overlap_on(double pa[4][2], double pb[4][2], double dx, double dy)
{
	double amin = INFINITY, amax = -INFINITY;
	double bmin = INFINITY, bmax = -INFINITY;
	for (int i = 0; i < 4; i++) {
		double ta = pa[i][0] * dx + pa[i][1] * dy;
		double tb = pb[i][0] * dx + pb[i][1] * dy;
		amin = fmin(amin, ta);
		amax = fmax(amax, ta);
		bmin = fmin(bmin, tb);
		bmax = fmax(bmax, tb);
	}
	return amin < bmax && bmin < amax;
}

int vs_obb_overlap(const vs_obb *a, const vs_obb *b)
{
	/* Separating axis theorem: two rectangles are disjoint iff one of
	 * their four edge normals separates them. */
	double pa[4][2], pb[4][2];
	corners(a, pa);
	corners(b, pb);
	const vs_obb *o[2] = {a, b};
	for (int k = 0; k < 2; k++) {
		double c = cos(o[k]->yaw), s = sin(o[k]->yaw);
		if (!overlap_on(pa, pb, c, s) || !overlap_on(pa, pb, -s, c))
			return 0;
	}
	return 1;
}

static double point_segment(const double p[2], const double a[2],
                            const double b[2])
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2
	                    : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

double vs_obb_distance(const vs_obb *a, const vs_obb *b)
{
	if (vs_obb_overlap(a, b))
		return 0;
	/* Disjoint convex polygons: the closest pair involves a corner of
	 * one and an edge of the other. */
	double pa[4][2], pb[4][2];
	corners(a, pa);
	corners(b, pb);
	double d = INFINITY;
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			int j2 = (j + 1) % 4;
			d = fmin(d, point_segment(pa[i], pb[j], pb[j2]));
			d = fmin(d, point_segment(pb[i], pa[j], pa[j2]));
		}
	}
	return d;
}
