/* The footprint's side of MapLocation (docs/conventions.md: the most
 * aligned of the lanes an actor straddles): does an actor's plan
 * rectangle overlap a
 * lane's area within one record, and how far is the actor origin from
 * that piece of lane. locate.c walks the cells under the rectangle and
 * asks these of the records it finds there.
 *
 * Each piece of lane is a convex polygon in plan, or for a ring an
 * annulus: a polyline lane's trapezoid between two mitre lines, exact; an
 * OpenDRIVE lane's quadrilateral of its corners between two stations (its
 * edges' bends, under a few millimetres, left out); a circle lane's
 * annulus, exact. Overlap is by separating axes, strict: a rectangle that
 * only touches a lane does not straddle it. Pure functions of the map and
 * their arguments. */
#include <math.h>

#include "map/map_internal.h"

void map_rect_make(double x, double y, double half_width,
                   double half_length, double yaw, map_rect *r)
{
	/* actor X (right) in the world is (cos yaw, sin yaw), actor Y
	 * (forward) is (-sin yaw, cos yaw), as for collisions */
	double c = cos(yaw), s = sin(yaw);
	r->ax = c;
	r->ay = s;
	const int sx[4] = {1, 1, -1, -1}, sy[4] = {-1, 1, 1, -1};
	r->box[0] = r->box[1] = INFINITY;
	r->box[2] = r->box[3] = -INFINITY;
	for (int i = 0; i < 4; i++) {
		r->p[i][0] = x + sx[i] * c * half_width - sy[i] * s * half_length;
		r->p[i][1] = y + sx[i] * s * half_width + sy[i] * c * half_length;
		r->box[0] = vs_fmin(r->box[0], r->p[i][0]);
		r->box[1] = vs_fmin(r->box[1], r->p[i][1]);
		r->box[2] = vs_fmax(r->box[2], r->p[i][0]);
		r->box[3] = vs_fmax(r->box[3], r->p[i][1]);
	}
}

/* Do the projections of the n corners of poly (x y rows) and of the rectangle on
 * the axis (dx, dy) stay apart (touching counts as apart)? */
static int apart_on(const double *poly, int n, const map_rect *r,
                    double dx, double dy)
{
	double alo = INFINITY, ahi = -INFINITY;
	double blo = INFINITY, bhi = -INFINITY;
	for (int i = 0; i < n; i++) {
		double t = poly[2 * i] * dx + poly[2 * i + 1] * dy;
		alo = t < alo ? t : alo;
		ahi = t > ahi ? t : ahi;
	}
	for (int i = 0; i < 4; i++) {
		double t = r->p[i][0] * dx + r->p[i][1] * dy;
		blo = t < blo ? t : blo;
		bhi = t > bhi ? t : bhi;
	}
	return ahi <= blo || bhi <= alo;
}

/* Separating axes between a convex polygon (n corners in order) and the
 * rectangle: the polygon's edge normals and the rectangle's two axes. */
static int poly_meets_rect(const double *poly, int n, const map_rect *r)
{
	if (apart_on(poly, n, r, r->ax, r->ay) ||
	    apart_on(poly, n, r, -r->ay, r->ax))
		return 0;
	for (int i = 0; i < n; i++) {
		const double *a = poly + 2 * i, *b = poly + 2 * ((i + 1) % n);
		double nx = b[1] - a[1], ny = a[0] - b[0];
		if ((nx != 0 || ny != 0) && apart_on(poly, n, r, nx, ny))
			return 0;
	}
	return 1;
}

/* Plan distance (m) from (px, py) to a convex polygon (n corners in
 * order, either sense), 0 inside. */
static double poly_distance(const double *poly, int n, double px,
                            double py)
{
	int pos = 0, neg = 0;
	double best = INFINITY;
	for (int i = 0; i < n; i++) {
		const double *a = poly + 2 * i, *b = poly + 2 * ((i + 1) % n);
		double ex = b[0] - a[0], ey = b[1] - a[1];
		double wx = px - a[0], wy = py - a[1];
		double c = ex * wy - ey * wx;
		pos += c > 0;
		neg += c < 0;
		double l2 = ex * ex + ey * ey;
		double t = l2 > 0 ? (wx * ex + wy * ey) / l2 : 0;
		t = t > 0 ? (t < 1 ? t : 1) : 0;
		double dx = wx - t * ex, dy = wy - t * ey;
		double d2 = dx * dx + dy * dy;
		best = d2 < best ? d2 : best;
	}
	return pos && neg ? sqrt(best) : 0;
}

/* The world corners of lane piece k of a quad record (its trapezoid
 * between the mitre lines), counter-clockwise. */
static void quad_piece(const vs_map *m, uint32_t id, int k, double c[4][2])
{
	const map_quad *q = &m->quads[id];
	const map_across *l = &m->across[m->info[id].across + k];
	const double local[4][2] = {{q->ks * l->y0, l->y0},
	                            {q->len + q->ke * l->y0, l->y0},
	                            {q->len + q->ke * l->y1, l->y1},
	                            {q->ks * l->y1, l->y1}};
	for (int i = 0; i < 4; i++) {
		c[i][0] = q->ox + local[i][0] * q->ux - local[i][1] * q->uy;
		c[i][1] = q->oy + local[i][0] * q->uy + local[i][1] * q->ux;
	}
}

/* The corners of lane j (its entry in the patch's slanes) of a patch:
 * the bilinear map at (0, lo0), (1, lo1), (1, hi1), (0, hi0). */
static void patch_piece(const vs_map *m, uint32_t id, int j, double c[4][2])
{
	const map_patch *q = map_patch_of(m, id);
	const map_slane *l = &m->slanes[m->info[id].across + j];
	const double uv[4][2] = {{0, l->lo0}, {1, l->lo1}, {1, l->hi1},
	                         {0, l->hi0}};
	for (int i = 0; i < 4; i++) {
		double u = uv[i][0], v = uv[i][1];
		for (int a = 0; a < 2; a++) {
			const double *p = a ? q->y : q->x;
			c[i][a] = p[0] + u * (p[1] - p[0]) + v * (p[3] - p[0]) +
			          u * v * (p[0] - p[1] + p[2] - p[3]);
		}
	}
}

/* The largest distance (m) of the rectangle's corners from (ox, oy): the
 * largest of their hypot(), with hypot (slow) taken only for the corners
 * whose squared distance is within 1e-9 of the largest square. Any other
 * corner is nearer by far more than the rounding of either (some 1e-16),
 * so it cannot hold the largest hypot: the same bits. */
static double far_corner(const map_rect *r, double ox, double oy)
{
	double s2[4], top = 0, far = 0;
	for (int i = 0; i < 4; i++) {
		double dx = r->p[i][0] - ox, dy = r->p[i][1] - oy;
		s2[i] = dx * dx + dy * dy;
		top = vs_fmax(top, s2[i]);
	}
	for (int i = 0; i < 4; i++)
		if (!(s2[i] < top * (1 - 1e-9)))
			far = vs_fmax(far, hypot(r->p[i][0] - ox,
			                         r->p[i][1] - oy));
	return far;
}

int map_piece_straddled(const vs_map *m, uint32_t id, int j,
                        const map_rect *r, double px, double py,
                        map_ring_span *span, double *dist)
{
	if (map_is_ring(m, id)) {
		const map_ring *g = map_ring_of(m, id);
		const map_across *l = &m->across[m->info[id].across + j];
		/* the rectangle's nearest and farthest points from the
		 * centre: an annulus meets it when they straddle its radii */
		if (span->id != id)
			*span = (map_ring_span){
				id, poly_distance(&r->p[0][0], 4, g->ox, g->oy),
				far_corner(r, g->ox, g->oy),
				hypot(px - g->ox, py - g->oy)};
		if (!(span->near < l->y1 && span->far > l->y0))
			return 0;
		double d = span->d;
		*dist = d < l->y0 ? l->y0 - d : d > l->y1 ? d - l->y1 : 0;
		return 1;
	}
	double c[4][2];
	if (map_is_patch(m, id))
		patch_piece(m, id, j, c);
	else
		quad_piece(m, id, j, c);
	if (!poly_meets_rect(&c[0][0], 4, r))
		return 0;
	*dist = poly_distance(&c[0][0], 4, px, py);
	return 1;
}
