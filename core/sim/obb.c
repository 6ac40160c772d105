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
 * (-sin yaw, cos yaw); corner k is at (sx[k] hw, sy[k] hl) in the actor's
 * frame, so edge 0 lies on x = hw, 1 on y = hl, 2 on x = -hw, 3 on y = -hl. */
void vs_obb_ready(const vs_obb *o, vs_obb_trig t, vs_obb_box *b)
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
	b->cx = o->cx;
	b->cy = o->cy;
	b->hw = o->hw;
	b->hl = o->hl;
	for (int j = 0; j < 4; j++) {
		const double *a = b->p[j], *e = b->p[(j + 1) % 4];
		b->ex[j] = e[0] - a[0];
		b->ey[j] = e[1] - a[1];
		b->len2[j] = b->ex[j] * b->ex[j] + b->ey[j] * b->ey[j];
	}
	b->scale = 1 + fabs(o->cx) + fabs(o->cy) + fabs(o->hw) + fabs(o->hl);
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
static int boxes_overlap(const vs_obb_box *a, const vs_obb_box *b)
{
	const vs_obb_box *o[2] = {a, b};
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
	vs_obb_box pa, pb;
	vs_obb_ready(a, trig(a), &pa);
	vs_obb_ready(b, trig(b), &pb);
	return boxes_overlap(&pa, &pb);
}

/* The offset from p to the closest point of b's edge j (m). */
static void point_edge(const double p[2], const vs_obb_box *b, int j,
                       double off[2])
{
	const double *a = b->p[j];
	double dx = b->ex[j], dy = b->ey[j], len2 = b->len2[j];
	double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2
	                    : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	off[0] = p[0] - (a[0] + t * dx);
	off[1] = p[1] - (a[1] + t * dy);
}

/* Point p in b's own frame, where b's edges are axis-aligned: there the
 * distances from p to b and to each of its edges take no division, and
 * they are within a few rounding units of b's size and place (m) of what
 * point_edge gives. */
typedef struct local {
	double u, v;   /* m, along b's X (right) and Y (forward) */
	double ax, ay; /* m, how far outside b's extents, 0 within */
} local;

static local local_of(const double p[2], const vs_obb_box *b)
{
	double rx = p[0] - b->cx, ry = p[1] - b->cy;
	local l;
	l.u = rx * b->c + ry * b->s;
	l.v = ry * b->c - rx * b->s;
	double ax = fabs(l.u) - fabs(b->hw), ay = fabs(l.v) - fabs(b->hl);
	l.ax = ax > 0 ? ax : 0;
	l.ay = ay > 0 ? ay : 0;
	return l;
}

/* The squared distance from l to b's edge j (m^2), estimated. */
static double edge_estimate(const local *l, const vs_obb_box *b, int j)
{
	double a;
	switch (j) {
	case 0: a = l->u - b->hw; return a * a + l->ay * l->ay;
	case 1: a = l->v - b->hl; return l->ax * l->ax + a * a;
	case 2: a = l->u + b->hw; return a * a + l->ay * l->ay;
	default: a = l->v + b->hl; return l->ax * l->ax + a * a;
	}
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
	vs_obb_box ba, bb;
	vs_obb_ready(a, trig(a), &ba);
	vs_obb_ready(b, trig(b), &bb);
	return vs_obb_box_distance(&ba, &bb);
}

/* The corners of one box, in the other's frame, all beyond one side of it
 * by more than delta (m): then a separating axis, the other's X or Y, is
 * found by boxes_overlap too (whose projections differ from these by
 * rounding, far below delta). */
static int clearly_apart(const local l[4], const vs_obb_box *b, double delta)
{
	double umin = l[0].u, umax = l[0].u, vmin = l[0].v, vmax = l[0].v;
	for (int i = 1; i < 4; i++) {
		umin = l[i].u < umin ? l[i].u : umin;
		umax = l[i].u > umax ? l[i].u : umax;
		vmin = l[i].v < vmin ? l[i].v : vmin;
		vmax = l[i].v > vmax ? l[i].v : vmax;
	}
	double hw = fabs(b->hw) + delta, hl = fabs(b->hl) + delta;
	return umin > hw || umax < -hw || vmin > hl || vmax < -hl;
}

double vs_obb_box_distance(const vs_obb_box *ba, const vs_obb_box *bb)
{
	/* Disjoint convex polygons: the closest pair involves a corner of
	 * one and an edge of the other: 32 corner-edge offsets. The distance
	 * is the smallest hypot() of them; hypot is slow, so it is taken only
	 * of the offsets whose squared length is within a relative 1e-12 of
	 * the smallest (rounding of the squares is ~1e-16), which gives the
	 * very same minimum.
	 *
	 * Most of the 32 are far from that minimum, and each costs a
	 * division. So each is first estimated without one (local_of), and an
	 * offset is worked out only if its estimate is within 3 delta (and a
	 * relative 1e-11) of the smallest estimate, which is the smallest of
	 * the corners' distances to the other box. An estimate and the
	 * offset's length differ by rounding only, a few 1e-16 of the boxes'
	 * scale, far below delta = 1e-9 scale: every offset left out is
	 * longer than the closest offset by more than the relative 1e-12, so
	 * the minimum and the offsets within 1e-12 of it are the same as with
	 * all 32 worked out. The same corners in the other's frame show most
	 * pairs apart without the separating axes' projections.
	 *
	 * Both shortcuts hold while nothing overflows: squares of lengths up
	 * to 1e150 m do not. Past that (an edge's squared length can be inf,
	 * its offsets NaN) and for a NaN anywhere, all 32 are worked out. */
	const vs_obb_box *from[2] = {ba, bb}, *to[2] = {bb, ba};
	double delta = 1e-9 * (ba->scale + bb->scale);
	int within = ba->scale + bb->scale < 1e150; /* false for NaN too */
	local l[2][4];
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 4; i++)
			l[s][i] = local_of(from[s]->p[i], to[s]);
	if (!(within && (clearly_apart(l[0], bb, delta) ||
	                 clearly_apart(l[1], ba, delta))) &&
	    boxes_overlap(ba, bb))
		return 0;
	double out2[2][4], e_min2 = INFINITY;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 4; i++) {
			out2[s][i] = l[s][i].ax * l[s][i].ax +
			             l[s][i].ay * l[s][i].ay;
			e_min2 = out2[s][i] < e_min2 ? out2[s][i] : e_min2;
		}
	double reach = sqrt(e_min2) * (1 + 1e-11) + 3 * delta;
	double limit = reach * reach;
	if (!within || !(limit < INFINITY))
		limit = INFINITY; /* work all 32 out */
	double off[32][2], sq[32], best = INFINITY;
	int n = 0;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 4; i++) {
			if (out2[s][i] > limit)
				continue; /* no edge of to[s] is near enough */
			for (int j = 0; j < 4; j++) {
				if (edge_estimate(&l[s][i], to[s], j) > limit)
					continue;
				point_edge(from[s]->p[i], to[s], j, off[n]);
				sq[n] = off[n][0] * off[n][0] +
				        off[n][1] * off[n][1];
				best = vs_fmin(best, sq[n]);
				n++;
			}
		}
	double d = INFINITY;
	for (int k = 0; k < n; k++)
		if (sq[k] <= best * (1 + 1e-12))
			d = vs_fmin(d, hypot_axis(off[k][0], off[k][1]));
	return d;
}
