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

/* The offset from p to the closest point of segment ab (m). */
static void point_segment(const double p[2], const double a[2],
                          const double b[2], double off[2])
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2
	                    : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	off[0] = p[0] - (a[0] + t * dx);
	off[1] = p[1] - (a[1] + t * dy);
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
	int n = 0;
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			int j2 = (j + 1) % 4;
			point_segment(ba.p[i], bb.p[j], bb.p[j2], off[n++]);
			point_segment(bb.p[i], ba.p[j], ba.p[j2], off[n++]);
		}
	}
	for (int k = 0; k < n; k++) {
		sq[k] = off[k][0] * off[k][0] + off[k][1] * off[k][1];
		best = vs_fmin(best, sq[k]);
	}
	double d = INFINITY;
	for (int k = 0; k < n; k++)
		if (sq[k] <= best * (1 + 1e-12))
			d = vs_fmin(d, hypot(off[k][0], off[k][1]));
	return d;
}
