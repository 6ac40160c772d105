/* Footprints as oriented rectangles (obb.h): overlap by the separating
 * axis theorem and the distance between two footprints.
 *
 * Called by monitor.c at every step for each pair of actors, not attached
 * to one another, that its broad phase (near_pairs.h) hands over:
 * collision events and the summary's closest distance. Pure functions of
 * their arguments; touching footprints (distance 0, no interior overlap)
 * do not overlap. */
#include "sim/obb.h"

#include <math.h>

#include "common/util.h"

/* Corners counter-clockwise, world frame, and the footprint's axes. Actor
 * X (right) in the world is (cos yaw, sin yaw), actor Y (forward) is
 * (-sin yaw, cos yaw). */
typedef struct box {
	double p[4][2]; /* m, corners */
	double c, s;    /* cos yaw, sin yaw */
} box;

static void corners(const vs_obb *o, vs_obb_trig t, box *b)
{
	double c = t.c, s = t.s;
	double xr[2] = {c * o->hw, s * o->hw};
	double yf[2] = {-s * o->hl, c * o->hl};
	const int sx[4] = {1, 1, -1, -1}, sy[4] = {-1, 1, 1, -1};
	for (int i = 0; i < 4; i++) {
		b->p[i][0] = o->cx + sx[i] * xr[0] + sy[i] * yf[0];
		b->p[i][1] = o->cy + sx[i] * xr[1] + sy[i] * yf[1];
	}
	b->c = c;
	b->s = s;
}

/* Projections of a's and b's corners onto axis d overlap (strictly). */
static int overlap_on(const double pa[4][2], const double pb[4][2], double dx,
                      double dy)
{
	double amin = INFINITY, amax = -INFINITY;
	double bmin = INFINITY, bmax = -INFINITY;
	for (int i = 0; i < 4; i++) {
		double ta = pa[i][0] * dx + pa[i][1] * dy;
		double tb = pb[i][0] * dx + pb[i][1] * dy;
		amin = vs_fmin(amin, ta);
		amax = vs_fmax(amax, ta);
		bmin = vs_fmin(bmin, tb);
		bmax = vs_fmax(bmax, tb);
	}
	return amin < bmax && bmin < amax;
}

/* Separating axis theorem: two rectangles are disjoint iff one of their
 * four edge normals separates them. */
static int boxes_overlap(const box *a, const box *b)
{
	const box *o[2] = {a, b};
	for (int k = 0; k < 2; k++)
		if (!overlap_on(a->p, b->p, o[k]->c, o[k]->s) ||
		    !overlap_on(a->p, b->p, -o[k]->s, o[k]->c))
			return 0;
	return 1;
}

static vs_obb_trig trig(const vs_obb *o)
{
	return (vs_obb_trig){cos(o->yaw), sin(o->yaw)};
}

int vs_obb_overlap(const vs_obb *a, const vs_obb *b)
{
	box pa, pb;
	corners(a, trig(a), &pa);
	corners(b, trig(b), &pb);
	return boxes_overlap(&pa, &pb);
}

/* A box's edge from corner a: its direction d = b - a and |d|^2, worked
 * out once for the four corners measured against it. */
typedef struct edge {
	double ax, ay; /* m, a */
	double dx, dy; /* m, b - a */
	double len2;   /* m^2 */
} edge;

static void edges_of(const box *b, edge e[4])
{
	for (int j = 0; j < 4; j++) {
		const double *a = b->p[j], *c = b->p[(j + 1) % 4];
		double dx = c[0] - a[0], dy = c[1] - a[1];
		e[j] = (edge){a[0], a[1], dx, dy, dx * dx + dy * dy};
	}
}

/* The offset from p to the closest point of edge e (m). */
static void point_edge(const double p[2], const edge *e, double off[2])
{
	double t = e->len2 > 0 ? ((p[0] - e->ax) * e->dx +
	                          (p[1] - e->ay) * e->dy) /
	                                 e->len2
	                       : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	off[0] = p[0] - (e->ax + t * e->dx);
	off[1] = p[1] - (e->ay + t * e->dy);
}

/* hypot(x, y), with C11's hypot(x, +-0) = |x| (and so for a zero x) taken
 * without the call: parallel footprints side by side or in line are
 * nearest along an axis of the world often enough to matter. */
static double hypot_axis(double x, double y)
{
	if (y == 0)
		return fabs(x);
	if (x == 0)
		return fabs(y);
	return hypot(x, y);
}

double vs_obb_distance(const vs_obb *a, const vs_obb *b)
{
	return vs_obb_distance_trig(a, trig(a), b, trig(b));
}

double vs_obb_distance_trig(const vs_obb *a, vs_obb_trig ta, const vs_obb *b,
                            vs_obb_trig tb)
{
	box ba, bb;
	corners(a, ta, &ba);
	corners(b, tb, &bb);
	if (boxes_overlap(&ba, &bb))
		return 0;
	/* Disjoint convex polygons: the closest pair involves a corner of
	 * one and an edge of the other: 32 corner-edge offsets. The distance
	 * is the smallest hypot() of them; hypot is slow, so it is taken only
	 * of the offsets whose squared length is within a relative 1e-12 of
	 * the smallest (rounding of the squares is ~1e-16), which gives the
	 * very same minimum. */
	double off[32][2], sq[32], best = INFINITY;
	edge ea[4], eb[4];
	edges_of(&ba, ea);
	edges_of(&bb, eb);
	int n = 0;
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			point_edge(ba.p[i], &eb[j], off[n++]);
			point_edge(bb.p[i], &ea[j], off[n++]);
		}
	}
	for (int k = 0; k < n; k++) {
		sq[k] = off[k][0] * off[k][0] + off[k][1] * off[k][1];
		best = vs_fmin(best, sq[k]);
	}
	double d = INFINITY;
	for (int k = 0; k < n; k++)
		if (sq[k] <= best * (1 + 1e-12))
			d = vs_fmin(d, hypot_axis(off[k][0], off[k][1]));
	return d;
}
