/* The lane query: which lanes of the records in the point's own fine
 * cell contain it (a point on a lane is always inside a record of its
 * cell), and off the road, rings of cells searched outward until no
 * unvisited cell can be nearer than the best lane found; after a few rings
 * the search moves to a grid 8 times coarser, so a point far from every
 * lane reads a few cells too. With a footprint, the cells under it are
 * read for the lanes it straddles (footprint.c); lanes that cannot be
 * more aligned than the origin's are passed over before any geometry. A
 * lookup thus reads a handful of records whatever the size of the map,
 * and writes nothing but its own stack (and, past 16 straddled lanes or
 * records, a heap list it frees). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"

#define RINGS_PER_LEVEL 4    /* rings searched before moving up a level
                                (empty cells cost a bit test) */

_Static_assert(sizeof(map_quad) == 64, "a quad is one cache line");

/* ---- geometry of one record ------------------------------------------- */

static int quad_holds(const map_quad *r, double x, double y)
{
	return y >= 0 && y <= r->w && x >= r->ks * y && x <= r->len + r->ke * y;
}

/* The quad's corners in its frame, counter-clockwise: start-right,

 * bounded far below overflow.) */
static double seg_dist2(double x, double y, const double *a, const double *b,
                        double *qx, double *qy)
{
	double ex = b[0] - a[0], ey = b[1] - a[1];
	double t = ((x - a[0]) * ex + (y - a[1]) * ey) / (ex * ex + ey * ey);
	t = t > 0 ? (t < 1 ? t : 1) : 0;
	*qx = a[0] + t * ex;
	*qy = a[1] + t * ey;
	return (x - *qx) * (x - *qx) + (y - *qy) * (y - *qy);
}

/* Plan distance (m) from the point (x, y) in a quad's frame to the quad,
 * 0 inside; (qx, qy) is the quad's nearest point. */
static double quad_nearest(const map_quad *r, double x, double y, double *qx,
                           double *qy)
{
	*qx = x;
	*qy = y;
	if (quad_holds(r, x, y))
		return 0;
	/* outside a convex quadrilateral: the nearest edge */
	double c[4][2], best = INFINITY;
	map_corners(r, c);
	for (int e = 0; e < 4; e++) {
		double ex, ey;
		double d2 = seg_dist2(x, y, c[e], c[(e + 1) % 4], &ex, &ey);
		if (d2 < best) {
			best = d2;
			*qx = ex;
			*qy = ey;
		}
	}
	return sqrt(best);
}

/* A point relative to a record: quad frame coordinates (x, y), or for a
 * ring x = 0 and y = the radius. */
static void rec_local(const vs_map *m, uint32_t id, double px, double py,
                      double *x, double *y)
{
	if (map_is_ring(m, id)) {
		const map_ring *r = map_ring_of(m, id);
		double dx = px - r->ox, dy = py - r->oy;
		*x = 0;
		*y = sqrt(dx * dx + dy * dy);
		return;
	}
	map_local(&m->quads[id], px, py, x, y);
}

/* Plan distance (m) from (px, py) to a record's area (0 inside) and the
 * y (quad frame, or radius) of its nearest point; INFINITY when a cheap
 * bound shows the distance is more than limit (m). */
static double rec_distance(const vs_map *m, uint32_t id, double px,
                           double py, double limit, double *qy)
{
	double x, y, qx;
	if (map_is_patch(m, id)) {
		const map_patch *q = map_patch_of(m, id);
		double bx = 0, by = 0;
		bx = vs_fmax(vs_fmax(px - vs_fmax(vs_fmax(q->x[0], q->x[1]),
		                         vs_fmax(q->x[2], q->x[3])),
		               vs_fmin(vs_fmin(q->x[0], q->x[1]),
		                    vs_fmin(q->x[2], q->x[3])) - px), 0);
		by = vs_fmax(vs_fmax(py - vs_fmax(vs_fmax(q->y[0], q->y[1]),
		                         vs_fmax(q->y[2], q->y[3])),
		               vs_fmin(vs_fmin(q->y[0], q->y[1]),
		                    vs_fmin(q->y[2], q->y[3])) - py), 0);
		*qy = 0;
		if (bx * bx + by * by > limit * limit)
			return INFINITY;
		/* the chords' distance, less the bend of the edge across
		 * from the point */
		double d = map_patch_nearest(q, px, py, &x, &y);
		const map_info *f = &m->info[id];
		const map_psurf *ps = map_psurf_of(m, id);
		double w = ps->hi0 - ps->lo0 + x * (ps->hi1 - ps->lo1 -
		                                    ps->hi0 + ps->lo0);
		double bend = 4 * x * (1 - x) * w;
		if (d > 0 && y <= 0)
			d = vs_fmax(d - bend * -f->blo, 0);
		else if (d > 0 && y >= 1)
			d = vs_fmax(d - bend * f->bhi, 0);
		return d;
	}
	rec_local(m, id, px, py, &x, &y);
	if (map_is_ring(m, id)) {
		const map_ring *r = map_ring_of(m, id);
		*qy = y < r->lo ? r->lo : y > r->hi ? r->hi : y;
		return fabs(y - *qy);
	}
	const map_quad *r = &m->quads[id];
	/* outside the quad's box in its frame is at least this far */
	double bx = vs_fmax(vs_fmax(vs_fmin(0, r->ks * r->w) - x,
	                      x - vs_fmax(r->len, r->len + r->ke * r->w)), 0);
	double by = vs_fmax(vs_fmax(-y, y - r->w), 0);
	if (bx * bx + by * by > limit * limit)
		return INFINITY;
	return quad_nearest(r, x, y, &qx, qy);
}

/* A patch lane at u along it: position, angle to travel_heading, z. */
static void slane_eval(const map_slane *q, double u, double travel_heading,
                       double *p, double *angle, double *z)
{
	double pos = q->p0 + u * (q->p1 - q->p0);
	*p = pos > 0 ? (pos < 1 ? pos : 1) : 0;
	*angle = map_wrap(travel_heading - q->h0 - u * q->dh);
	*z = q->z0 + u * q->dz;
}

/* The angle (rad) of a query's point round a ring's centre, kept once
 * worked out: a lookup asks for it for each lane holding the point, for
 * the footprint's straddled lanes and for its answer, two to four times
 * on a ring road, always of the same point. Keyed by the centre's bits
 * (pieces of one road share it), so the value is atan2's own. */
typedef struct ring_theta {
	int have;
	uint64_t ox, oy; /* the centre's bits */
	double th;
} ring_theta;

/* atan2(py - oy, px - ox), through c (NULL: no memory) for the point
 * (px, py) c belongs to. */
static double ring_theta_of(ring_theta *c, double px, double py, double ox,
                            double oy)
{
	uint64_t bx = vs_bits_of(ox), by = vs_bits_of(oy);
	if (c && c->have && c->ox == bx && c->oy == by)
		return c->th;
	double th = atan2(py - oy, px - ox);
	if (c)
		*c = (ring_theta){1, bx, by, th};
	return th;
}

/* Lane k of the record's road at the point (px, py), or at the record's
 * point nearest it: the lane's position p in [0, 1], the angle from its
 * tangent there to travel_heading, and its z there. rt: the point's
 * ring angles (NULL: none kept). */
static void rec_eval(const vs_map *m, uint32_t id, int k, double px,
                     double py, double travel_heading, ring_theta *rt,
                     double *p, double *angle, double *z)
{
	const map_info *f = &m->info[id];
	int dir = k < f->n_left ? -1 : 1;
	if (map_is_patch(m, id)) {
		/* travel direction and position change linearly along it */
		double u, v;
		map_patch_nearest(map_patch_of(m, id), px, py, &u, &v);
		/* k counts from first_lane (as for the other records);
		 * lanes without area here have no entry */
		const map_slane *q = &m->slanes[f->across];
		for (int j = 0; j < f->n_lanes; j++)
			if (q[j].lane == f->first_lane + k) {
				q += j;
				break;
			}
		slane_eval(q, u, travel_heading, p, angle, z);
		return;
	}
	if (map_is_ring(m, id)) {
		/* exact arc: the angle round the centre is the position */
		const map_ring *r = map_ring_of(m, id);
		double th = ring_theta_of(rt, px, py, r->ox, r->oy);
		if (th < 0)
			th += 2 * MAP_PI;
		if (th >= 2 * MAP_PI)
			th = 0;
		double pos = th / (2 * MAP_PI);
		pos = dir > 0 ? pos : 1 - pos;
		*p = pos >= 1 ? 0 : pos; /* a ring's s = 1 is its s = 0 */
		*angle = map_wrap(travel_heading - (th + dir * MAP_PI / 2));
		*z = f->oz;
		return;
	}
	const map_quad *r = &m->quads[id];
	double x, y;
	map_local(r, px, py, &x, &y);
	quad_nearest(r, x, y, &x, &y);
	/* the fraction along the piece, measured on the lateral line at y,
	 * so that neighbouring pieces agree on their shared mitre line */
	double t = (x - r->ks * y) / (r->len + (r->ke - r->ks) * y);
	t = t > 0 ? (t < 1 ? t : 1) : 0;
	const map_across *q = &m->across[f->across + k];
	double pos = q->p0 + t * (q->p1 - q->p0);
	*p = pos > 0 ? (pos < 1 ? pos : 1) : 0;
	*angle = map_wrap(travel_heading - f->heading -
	                  (dir > 0 ? 0 : MAP_PI));
	*z = f->oz + t * f->dz;
}

/* ---- the query -------------------------------------------------------- */

/* The records of cell (ix, iy) of grid g: NULL when it has none. */
static const uint32_t *cell_probe(const map_grid *g, uint64_t key,
                                  uint32_t *count)
{
	for (uint64_t h = map_slot_hash(g, key);;
	     h = h + 1 < g->n_slots ? h + 1 : 0) {
		const map_slot *s = &g->slots[h];
		if (s->word == MAP_NO_KEY)
			return NULL;
		if (s->word >> 16 != key)
			continue;
		*count = (uint32_t)(s->word & MAP_SLOT_MANY);
		if (*count <= MAP_SLOT_IDS)
			return s->ids;
		if (*count == MAP_SLOT_MANY)
			*count = g->cell_recs[s->ids[0] - 1];
		return g->cell_recs + s->ids[0];
	}
}

/* The same; the bitmap first, so that the empty cells of a search cost
 * no probe. */
static const uint32_t *cell_ids(const map_grid *g, int64_t ix, int64_t iy,
                                uint32_t *count)
{
	uint64_t key = map_cell_key(g, ix, iy);
	if (g->occupied && !(g->occupied[key / 64] >> (key % 64) & 1))
		return NULL;
	return cell_probe(g, key, count);
}


/* The best candidate so far, a lane of a record: on a lane, the most
 * aligned (|angle|, then |dz|), else the nearest; lane and segment break
 * exact ties, so the answer does not depend on the order candidates are
 * met in. */
typedef struct best {
	int64_t id;  /* record; -1: none yet */
	int lane;    /* index into vs_map.lanes */
	double k1, k2;
	int have;    /* 1: p and a hold the lane's position and angle */
	double p, a;
} best;

static void consider_eval(const vs_map *m, best *b, uint32_t id, int lane,
                          double k1, double k2, int have, double p,
                          double a)
{
	int better;
	if (b->id < 0 || k1 != b->k1)
		better = b->id < 0 || k1 < b->k1;
	else if (k2 != b->k2)
		better = k2 < b->k2;
	else if (lane != b->lane)
		better = lane < b->lane;
	else
		better = m->info[id].seg < m->info[b->id].seg;
	if (better)
		*b = (best){id, lane, k1, k2, have, p, a};
}

static void consider(const vs_map *m, best *b, uint32_t id, int lane,
                     double k1, double k2)
{
	consider_eval(m, b, id, lane, k1, k2, 0, 0, 0);
}

/* A short list of ints on the stack, on the heap past that. */
#define LIST_STACK 16
typedef struct list {
	int n, cap;
	int64_t *v;
	int64_t own[LIST_STACK];
} list;

static void list_init(list *l)
{
	l->n = 0;
	l->cap = LIST_STACK;
	l->v = l->own;
}

static void list_free(list *l)
{
	if (l->v != l->own)
		free(l->v);
}

static int list_has(const list *l, int64_t x)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return 1;
	return 0;
}

static void list_push(list *l, int64_t x)
{
	if (l->n == l->cap) {
		int64_t *v = vs_xcalloc((size_t)l->cap * 2, sizeof *v);
		memcpy(v, l->v, (size_t)l->n * sizeof *v);
		list_free(l);
		l->v = v;
		l->cap *= 2;
	}
	l->v[l->n++] = x;
}

typedef struct query {
	double x, y, z, heading;
	best on, near;
	list origin; /* the lanes holding the point */
	ring_theta ring; /* the point round a ring's centre */
} query;

/* The fine cell of the point: the lanes of its records that contain the
 * point (two, on the line they share). */
static void visit_own(const vs_map *m, query *q, const uint32_t *ids,
                      uint32_t count)
{
	for (uint32_t k = 0; k < count; k++) {
		uint32_t id = ids[k];
		double x, y;
		if (map_is_patch(m, id)) {
			const map_info *f = &m->info[id];
			if (!map_patch_uv(map_patch_of(m, id), q->x, q->y,
			                  f->reach, &x, &y) ||
			    x < -1e-9 || x > 1 + 1e-9)
				continue;
			/* rec_eval finds (u, v) again, by map_patch_nearest:
			 * the same solve, when its tighter box passes and
			 * (u, v) is in the unit square; then u clamped */
			int same = map_patch_in_box(map_patch_of(m, id), q->x,
			                            q->y, 0) &&
			           map_in_unit(x, y);
			double u = vs_fmin(vs_fmax(x, 0), 1);
			for (int j = 0; j < f->n_lanes; j++) {
				const map_slane *l = &m->slanes[f->across + j];
				if (!map_slane_holds(l, x, y))
					continue;
				double p, a, z;
				if (same)
					slane_eval(l, u, q->heading, &p, &a, &z);
				else
					rec_eval(m, id, l->lane - f->first_lane,
					         q->x, q->y, q->heading,
					         &q->ring, &p, &a, &z);
				consider_eval(m, &q->on, id, l->lane, fabs(a),
				              fabs(q->z - z), 1, p, a);
				if (!list_has(&q->origin, l->lane))
					list_push(&q->origin, l->lane);
			}
			continue;
		}
		rec_local(m, id, q->x, q->y, &x, &y);
		if (map_is_ring(m, id) ? y < map_ring_of(m, id)->lo ||
		                         y > map_ring_of(m, id)->hi
		                   : !quad_holds(&m->quads[id], x, y))
			continue;
		const map_info *f = &m->info[id];
		for (int j = 0; j < f->n_lanes; j++) {
			const map_across *l = &m->across[f->across + j];
			if (y < l->y0 || y > l->y1)
				continue;
			double p, a, z;
			rec_eval(m, id, j, q->x, q->y, q->heading, &q->ring, &p,
			         &a, &z);
			consider_eval(m, &q->on, id, f->first_lane + j, fabs(a),
			              fabs(q->z - z), 1, p, a);
			if (!list_has(&q->origin, f->first_lane + j))
				list_push(&q->origin, f->first_lane + j);
		}
	}
}

/* The lane of a patch whose range at u across it holds v, or the
 * nearest one in v (ties: the first, lower in t). */
static int patch_lane_at(const vs_map *m, uint32_t id, double u, double v)
{
	const map_info *f = &m->info[id];
	int lane = f->first_lane;
	double bd = INFINITY;
	for (int j = 0; j < f->n_lanes; j++) {
		const map_slane *l = &m->slanes[f->across + j];
		double bend = 4 * u * (1 - u);
		double lo = l->lo0 + u * (l->lo1 - l->lo0) + bend * l->blo;
		double hi = l->hi0 + u * (l->hi1 - l->hi0) + bend * l->bhi;
		double d = v < lo ? lo - v : v > hi ? v - hi : 0;
		if (d < bd) {
			bd = d;
			lane = l->lane;
		}
	}
	return lane;
}

/* The lowest-index lane of the record's road at y across it. */
static int lane_at(const vs_map *m, uint32_t id, double y)
{
	const map_info *f = &m->info[id];
	const map_across *l = &m->across[f->across];
	for (int j = 0; j < f->n_lanes; j++)
		if (y >= l[j].y0 && y <= l[j].y1)
			return f->first_lane + j;
	/* not reached: the lanes' ranges cover the record's exactly (they
	 * are the same sums); the nearer edge lane, to be safe */
	const map_across *a = &l[0], *b = &l[f->n_lanes - 1];
	return fabs(y - (a->y0 + a->y1) / 2) <= fabs(y - (b->y0 + b->y1) / 2)
	               ? f->first_lane
	               : f->first_lane + f->n_lanes - 1;
}

/* Any cell: how near its records are. */
static void visit_near(const vs_map *m, query *q, const uint32_t *ids,
                       uint32_t count)
{
	for (uint32_t k = 0; k < count; k++) {
		double limit = q->near.id < 0 ? INFINITY : q->near.k1, y;
		double d = rec_distance(m, ids[k], q->x, q->y, limit, &y);
		if (d > limit)
			continue;
		int lane;
		if (map_is_patch(m, ids[k])) {
			double u, v;
			map_patch_nearest(map_patch_of(m, ids[k]), q->x, q->y,
			                  &u, &v);
			lane = patch_lane_at(m, ids[k], u, v);
		} else {
			lane = lane_at(m, ids[k], y);
		}
		consider(m, &q->near, ids[k], lane, d, 0);
	}
}

/* Visits ring k of grid g round cell (cx, cy), clipped to the grid. */
static void visit_ring(const vs_map *m, const map_grid *g, query *q,
                       int64_t cx, int64_t cy, int64_t k)
{
	if (k == 0) {
		uint32_t n;
		const uint32_t *ids = cell_ids(g, cx, cy, &n);
		if (ids)
			visit_near(m, q, ids, n);
		return;
	}
	int64_t x0 = cx - k, x1 = cx + k, y0 = cy - k, y1 = cy + k;
	int64_t ax = x0 < 0 ? 0 : x0, bx = x1 >= g->nx ? g->nx - 1 : x1;
	int64_t ay = y0 + 1 < 0 ? 0 : y0 + 1;
	int64_t by = y1 - 1 >= g->ny ? g->ny - 1 : y1 - 1;
	/* rows y0 and y1 whole, columns x0 and x1 between them */
	for (int side = 0; side < 4; side++) {
		int row = side < 2;
		int64_t at = side == 0 ? y0
		             : side == 1 ? y1
		             : side == 2 ? x0
		                         : x1;
		if (at < 0 || at >= (row ? g->ny : g->nx))
			continue;
		int64_t from = row ? ax : ay, to = row ? bx : by;
		for (int64_t i = from; i <= to; i++) {
			uint32_t n;
			const uint32_t *ids = row ? cell_ids(g, i, at, &n)
			                          : cell_ids(g, at, i, &n);
			if (ids)
				visit_near(m, q, ids, n);
		}
	}
}

/* The point's cell in grid g (clamped far outside, where only the bound
 * on distances gets looser, never wrong), and how far (in cells) the
 * point is from that cell's nearest side. */
static void locate_cell(const map_grid *g, double x, double y, int64_t *cx,
                        int64_t *cy, double *edge)
{
	const double lim = 1099511627776.0; /* 2^40 cells */
	double gx = vs_fmax(-lim, vs_fmin(lim, (x - g->x0) / g->cell));
	double gy = vs_fmax(-lim, vs_fmin(lim, (y - g->y0) / g->cell));
	*cx = (int64_t)floor(gx);
	*cy = (int64_t)floor(gy);
	double fx = gx - (double)*cx, fy = gy - (double)*cy;
	*edge = vs_fmin(vs_fmin(fx, 1 - fx), vs_fmin(fy, 1 - fy));
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Off every lane: rings of cells outward, finest grid first, until no
 * cell left can hold a lane nearer than the best found. A cell of ring k
 * is at least (k - 1 + edge) cells from the point. */
static void search_near(const vs_map *m, query *q)
{
	for (int l = 0; l < m->n_levels; l++) {
		const map_grid *g = &m->levels[l];
		int top = l == m->n_levels - 1;
		int64_t cx, cy;
		double edge;
		locate_cell(g, q->x, q->y, &cx, &cy, &edge);
		/* rings that miss the grid altogether hold nothing */
		int64_t k0 = max64(cx < 0 ? -cx : cx - (g->nx - 1),
		                   cy < 0 ? -cy : cy - (g->ny - 1));
		int64_t kmax = max64(max64(cx, g->nx - 1 - cx),
		                     max64(cy, g->ny - 1 - cy));
		/* the finest grid's own cell was read already */
		int64_t k = max64(k0 > 0 ? k0 : 0, l == 0 ? 1 : 0);
		for (;; k++) {
			if (q->near.id >= 0 &&
			    q->near.k1 < ((double)k - 1 + edge) * g->cell)
				return;
			if (k > kmax)
				return; /* every cell of the grid was read */
			if (!top && k > RINGS_PER_LEVEL)
				break;
			visit_ring(m, g, q, cx, cy, k);
		}
	}
}

/* ---- the footprint ---------------------------------------------------- */

/* A lane the footprint straddles, not holding the point: the record
 * whose piece of it is nearest the point, and how near (m). */
typedef struct straddle {
	int32_t lane;
	uint32_t rec;
	double dist;
} straddle;

typedef struct straddles {
	int n, cap;
	straddle *v;
	straddle own[LIST_STACK];
} straddles;

static void straddle_add(straddles *c, int32_t lane, uint32_t rec,
                         double dist)
{
	for (int i = 0; i < c->n; i++) {
		straddle *e = &c->v[i];
		if (e->lane != lane)
			continue;
		if (dist < e->dist || (dist == e->dist && rec < e->rec))
			*e = (straddle){lane, rec, dist};
		return;
	}
	if (c->n == c->cap) {
		straddle *v = vs_xcalloc((size_t)c->cap * 2, sizeof *v);
		memcpy(v, c->v, (size_t)c->n * sizeof *v);
		if (c->v != c->own)
			free(c->v);
		c->v = v;
		c->cap *= 2;
	}
	c->v[c->n++] = (straddle){lane, rec, dist};
}

/* rad: a straddled lane beats the lane holding the origin only when it is
 * more aligned by more than this, so that parallel lanes whose headings
 * differ by rounding alone tie (and the origin's lane wins) */
#define ALIGN_TIE 1e-9

/* A lower bound on |angle| anywhere on piece j of record id, for travel
 * heading h: exact for a quad (its heading is constant) and a ring (th:
 * the point's angle round its centre, rad, where it is evaluated); for
 * a patch the bound over its length (the travel direction turns linearly
 * by dh along it). */
static double angle_bound(const vs_map *m, uint32_t id, int j, double th,
                          double h)
{
	const map_info *f = &m->info[id];
	if (map_is_patch(m, id)) {
		const map_slane *l = &m->slanes[f->across + j];
		double a0 = map_wrap(h - l->h0), a1 = a0 - l->dh;
		if ((a0 >= 0) != (a1 >= 0) && fabs(a1) < MAP_PI)
			return 0;
		return vs_fmin(fabs(a0), fabs(map_wrap(a1))) - ALIGN_TIE;
	}
	int dir = j < f->n_left ? -1 : 1;
	if (map_is_ring(m, id))
		return fabs(map_wrap(h - (th + dir * MAP_PI / 2))) - ALIGN_TIE;
	return fabs(map_wrap(h - f->heading - (dir > 0 ? 0 : MAP_PI))) -
	       ALIGN_TIE;
}

#define FOOT_CELLS 16 /* a footprint spanning more cells of a grid than
                         this on either axis is looked up in a coarser
                         one */

/* The lanes the footprint overlaps, other than those holding the point,
 * each with its piece nearest the point. */
static void visit_footprint(const vs_map *m, query *q,
                            const map_rect *r, straddles *c)
{
	const map_grid *g = &m->levels[0];
	int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;
	double e;
	for (int l = 0; l < m->n_levels; l++) {
		g = &m->levels[l];
		locate_cell(g, r->box[0], r->box[1], &x0, &y0, &e);
		locate_cell(g, r->box[2], r->box[3], &x1, &y1, &e);
		if (x1 - x0 < FOOT_CELLS && y1 - y0 < FOOT_CELLS)
			break;
	}
	x0 = max64(x0, 0);
	y0 = max64(y0, 0);
	x1 = x1 < g->nx - 1 ? x1 : g->nx - 1;
	y1 = y1 < g->ny - 1 ? y1 : g->ny - 1;
	list seen;
	list_init(&seen);
	for (int64_t iy = y0; iy <= y1; iy++)
		for (int64_t ix = x0; ix <= x1; ix++) {
			uint32_t n = 0;
			const uint32_t *ids = cell_ids(g, ix, iy, &n);
			for (uint32_t k = 0; ids && k < n; k++) {
				uint32_t id = ids[k];
				const double *b = m->rec_box[id];
				if (b[2] <= r->box[0] || b[0] >= r->box[2] ||
				    b[3] <= r->box[1] || b[1] >= r->box[3])
					continue;
				if (list_has(&seen, id))
					continue;
				list_push(&seen, id);
				const map_info *f = &m->info[id];
				map_ring_span span = {UINT32_MAX, 0, 0, 0};
				double th = 0;
				if (map_is_ring(m, id)) {
					const map_ring *g0 = map_ring_of(m, id);
					th = ring_theta_of(&q->ring, q->x,
					                   q->y, g0->ox,
					                   g0->oy);
				}
				for (int j = 0; j < f->n_lanes; j++) {
					int32_t lane =
						map_is_patch(m, id)
							? m->slanes[f->across + j]
							          .lane
							: f->first_lane + j;
					double d;
					if (list_has(&q->origin, lane))
						continue;
					/* a lane that cannot be more aligned
					 * than the origin's needs no geometry */
					if (q->on.id >= 0 &&
					    angle_bound(m, id, j, th,
					                q->heading) >=
					            q->on.k1 - ALIGN_TIE)
						continue;
					if (!map_piece_straddled(m, id, j, r,
					                         q->x, q->y, &span,
					                         &d))
						continue;
					straddle_add(c, lane, id, d);
				}
			}
		}
	list_free(&seen);
}

/* The most aligned of the straddled lanes (as consider ranks them) and
 * the distance to it; id -1 when there are none. */
static best most_aligned(const vs_map *m, query *q,
                         const straddles *c, double *dist)
{
	best b = {-1, -1, 0, 0, 0, 0, 0};
	for (int i = 0; i < c->n; i++) {
		const straddle *e = &c->v[i];
		double p, a, z;
		rec_eval(m, e->rec, e->lane - m->info[e->rec].first_lane, q->x,
		         q->y, q->heading, &q->ring, &p, &a, &z);
		int64_t was = b.id;
		int was_lane = b.lane;
		consider_eval(m, &b, e->rec, e->lane, fabs(a), fabs(q->z - z),
		              1, p, a);
		if (b.id != was || b.lane != was_lane)
			*dist = e->dist;
	}
	return b;
}

void vs_map_locate_footprint(const vs_map *m, double x, double y, double z,
                             double travel_heading,
                             const vs_map_footprint *fp,
                             vs_map_location *out)
{
	*out = (vs_map_location){0, -1, 0, 0, 0};
	if (!m || m->n_recs == 0 || !isfinite(x) || !isfinite(y) ||
	    !isfinite(z) || !isfinite(travel_heading))
		return;
	/* field by field: the origin list's own buffer needs no zeroing */
	query q;
	q.x = x;
	q.y = y;
	q.z = z;
	q.heading = travel_heading;
	q.on = q.near = (best){-1, -1, 0, 0, 0, 0, 0};
	q.ring.have = 0;
	list_init(&q.origin);
	const map_grid *g = &m->levels[0];
	int64_t cx, cy;
	double edge;
	locate_cell(g, x, y, &cx, &cy, &edge);
	const uint32_t *ids = NULL;
	uint32_t n = 0;
	if (cx >= 0 && cx < g->nx && cy >= 0 && cy < g->ny &&
	    (ids = cell_ids(g, cx, cy, &n)))
		visit_own(m, &q, ids, n);
	/* a footprint beyond any map (or not finite) straddles nothing it
	 * could find; the point alone decides then */
	best st = {-1, -1, 0, 0, 0, 0, 0};
	double st_dist = 0;
	if (fp && (fp->half_width > 0 || fp->half_length > 0) &&
	    fp->half_width <= VS_MAP_MAX_COORD &&
	    fp->half_length <= VS_MAP_MAX_COORD && isfinite(fp->yaw)) {
		map_rect r;
		map_rect_make(x, y, vs_fmax(fp->half_width, 0),
		              vs_fmax(fp->half_length, 0), fp->yaw, &r);
		straddles c;
		c.n = 0;
		c.cap = LIST_STACK;
		c.v = c.own;
		visit_footprint(m, &q, &r, &c);
		st = most_aligned(m, &q, &c, &st_dist);
		if (c.v != c.own)
			free(c.v);
	}
	list_free(&q.origin);
	const best *b = &q.on;
	/* ties go to the lane holding the origin */
	if (st.id >= 0 && (q.on.id < 0 || st.k1 < q.on.k1 - ALIGN_TIE))
		b = &st;
	else if (q.on.id < 0) {
		if (ids)
			visit_near(m, &q, ids, n);
		search_near(m, &q);
		b = &q.near;
	}
	out->is_on_lane = q.on.id >= 0;
	out->lane = b->lane;
	out->distance = b == &q.on ? 0 : b == &st ? st_dist : b->k1;
	if (b->have) {
		out->position = b->p;
		out->angle = b->a;
		return;
	}
	double zl;
	rec_eval(m, (uint32_t)b->id, b->lane - m->info[b->id].first_lane, x, y,
	         travel_heading, &q.ring, &out->position, &out->angle, &zl);
}

void vs_map_locate(const vs_map *m, double x, double y, double z,
                   double travel_heading, vs_map_location *out)
{
	vs_map_locate_footprint(m, x, y, z, travel_heading, NULL, out);
}


int map_patch_find(const vs_map *m, double x, double y, uint32_t *id,
                   double *u, double *v)
{
	if (!m || m->n_patches == 0)
		return -1;
	const map_grid *g = &m->levels[0];
	int64_t cx, cy;
	double edge;
	locate_cell(g, x, y, &cx, &cy, &edge);
	uint32_t n = 0;
	const uint32_t *ids;
	if (cx < 0 || cx >= g->nx || cy < 0 || cy >= g->ny ||
	    !(ids = cell_ids(g, cx, cy, &n)))
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		if (!map_is_patch(m, ids[k]))
			continue;
		const map_info *f = &m->info[ids[k]];
		if (!map_patch_uv(map_patch_of(m, ids[k]), x, y, f->reach, u,
		                  v) ||
		    *u < -1e-9 || *u > 1 + 1e-9)
			continue;
		for (int j = 0; j < f->n_lanes; j++)
			if (map_slane_holds(&m->slanes[f->across + j], *u, *v)) {
				*id = ids[k];
				*u = vs_fmin(vs_fmax(*u, 0), 1);
				return 0;
			}
	}
	return -1;
}
