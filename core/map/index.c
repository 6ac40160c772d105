/* The spatial index and the lane query.
 *
 * Uniform grids of square cells, each cell listing the records (lane
 * pieces, map_internal.h) whose area overlaps it, found through a hash
 * table so that empty space costs no memory (and, with a bitmap of the
 * occupied cells, no probe). A point on a lane is inside a record of its
 * own fine cell, so containment looks at one cell. Off the road, rings of
 * cells are searched outward until no unvisited cell can be nearer than
 * the best lane found; after a few rings the search moves to a grid 8
 * times coarser, so a point far from every lane reads a few cells too. A
 * lookup thus reads a handful of records whatever the size of the map.
 * Nothing here writes to the map after building. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"

#define CELL_MIN_WIDTHS 4.0  /* fine cell side, in median lane widths: */
#define CELL_MAX_WIDTHS 12.0 /* the median quad length, within these */
#define LEVEL_FACTOR 8       /* each grid's cells are this many times wider */
#define TOP_CELLS 64         /* the coarsest grid has at most about this
                                many cells */
#define RINGS_PER_LEVEL 4    /* rings searched before moving up a level
                                (empty cells cost a bit test) */
#define MAX_CELLS_AXIS ((double)(1 << 24)) /* keeps cell keys in 48 bits */
#define MAX_BITMAP_BITS ((uint64_t)1 << 26) /* 8 MiB: past it, no bitmap */

_Static_assert(sizeof(map_quad) == 64, "a quad is one cache line");
_Static_assert(sizeof(map_slot) == 32, "two slots to a cache line");

/* ---- geometry of one record ------------------------------------------- */

static int is_ring(const vs_map *m, uint32_t id)
{
	return id >= (uint32_t)m->n_quads;
}

static const map_ring *ring_of(const vs_map *m, uint32_t id)
{
	return &m->rings[id - (uint32_t)m->n_quads];
}

/* Local coordinates of (px, py) in a quad's frame. */
static void local(const map_quad *r, double px, double py, double *x,
                  double *y)
{
	double dx = px - r->ox, dy = py - r->oy;
	*x = dx * r->ux + dy * r->uy;
	*y = dy * r->ux - dx * r->uy;
}

static int quad_holds(const map_quad *r, double x, double y)
{
	return y >= 0 && y <= r->w && x >= r->ks * y && x <= r->len + r->ke * y;
}

/* The quad's corners in its frame, counter-clockwise: start-low, end-low,
 * end-high, start-high. */
static void corners(const map_quad *r, double c[4][2])
{
	c[0][0] = 0;
	c[0][1] = 0;
	c[1][0] = r->len;
	c[1][1] = 0;
	c[2][0] = r->len + r->ke * r->w;
	c[2][1] = r->w;
	c[3][0] = r->ks * r->w;
	c[3][1] = r->w;
}

static int rec_contains(const vs_map *m, uint32_t id, double px, double py)
{
	if (is_ring(m, id)) {
		const map_ring *r = ring_of(m, id);
		double dx = px - r->ox, dy = py - r->oy;
		double d2 = dx * dx + dy * dy;
		return d2 >= r->lo * r->lo && d2 <= r->hi * r->hi;
	}
	double x, y;
	local(&m->quads[id], px, py, &x, &y);
	return quad_holds(&m->quads[id], x, y);
}

/* Squared distance (m^2) from (x, y) to segment a-b, and the nearest
 * point. (Squares, not hypot: lookups are hot, and map coordinates are
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

/* Plan distance (m) from (px, py) to a quad, 0 inside, and the quad's
 * nearest point in its frame (qx, qy). */
static double quad_nearest(const map_quad *r, double px, double py,
                           double *qx, double *qy)
{
	double x, y;
	local(r, px, py, &x, &y);
	*qx = x;
	*qy = y;
	if (quad_holds(r, x, y))
		return 0;
	/* outside a convex quadrilateral: the nearest edge */
	double c[4][2], best = INFINITY;
	corners(r, c);
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

/* Plan distance (m) from (px, py) to a record's area (0 inside), or
 * INFINITY when a cheap bound shows it is more than limit (m). */
static double rec_distance(const vs_map *m, uint32_t id, double px,
                           double py, double limit)
{
	if (is_ring(m, id)) {
		const map_ring *r = ring_of(m, id);
		double dx = px - r->ox, dy = py - r->oy;
		double d = sqrt(dx * dx + dy * dy);
		return d < r->lo ? r->lo - d : d > r->hi ? d - r->hi : 0;
	}
	const map_quad *r = &m->quads[id];
	double x, y, qx, qy;
	local(r, px, py, &x, &y);
	/* outside the quad's box in its frame is at least this far */
	double bx = fmax(fmax(fmin(0, r->ks * r->w) - x,
	                      x - fmax(r->len, r->len + r->ke * r->w)), 0);
	double by = fmax(fmax(-y, y - r->w), 0);
	if (bx * bx + by * by > limit * limit)
		return INFINITY;
	return quad_nearest(r, px, py, &qx, &qy);
}

/* The lane position p in [0, 1] at the record's point nearest (px, py),
 * the angle from the lane's tangent there to travel_heading, and the
 * lane's z there. */
static void rec_eval(const vs_map *m, uint32_t id, double px, double py,
                     double travel_heading, double *p, double *angle,
                     double *z)
{
	const map_info *f = &m->info[id];
	if (is_ring(m, id)) {
		/* exact arc: the angle round the centre is the position */
		const map_ring *r = ring_of(m, id);
		double th = atan2(py - r->oy, px - r->ox);
		if (th < 0)
			th += 2 * MAP_PI;
		if (th >= 2 * MAP_PI)
			th = 0;
		double pos = f->dir > 0 ? th / (2 * MAP_PI)
		                        : 1 - th / (2 * MAP_PI);
		*p = pos >= 1 ? 0 : pos; /* a ring's s = 1 is its s = 0 */
		*angle = map_wrap(travel_heading -
		                  (th + f->dir * MAP_PI / 2));
		*z = f->oz;
		return;
	}
	const map_quad *r = &m->quads[id];
	double x, y;
	quad_nearest(r, px, py, &x, &y);
	/* the fraction along the piece, measured on the lateral line at y,
	 * so that neighbouring pieces agree on their shared mitre line */
	double t = (x - r->ks * y) / (r->len + (r->ke - r->ks) * y);
	t = t > 0 ? (t < 1 ? t : 1) : 0;
	double pos = f->p0 + t * (f->p1 - f->p0);
	*p = pos > 0 ? (pos < 1 ? pos : 1) : 0;
	*angle = map_wrap(travel_heading - f->heading);
	*z = f->oz + t * f->dz;
}

/* ---- building the grids ----------------------------------------------- */

typedef struct pair {
	uint64_t key;
	uint32_t rec;
} pair;

typedef struct pairs {
	pair *v;
	size_t n, cap;
} pairs;

static void push(pairs *ps, uint64_t key, uint32_t rec)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 1024;
		ps->v = vs_xrealloc(ps->v, ps->cap * sizeof *ps->v);
	}
	ps->v[ps->n++] = (pair){key, rec};
}

static int pair_cmp(const void *a, const void *b)
{
	const pair *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Bounding box of a quad: xmin, ymin, xmax, ymax. */
static void quad_box(const map_quad *r, double b[4])
{
	double c[4][2];
	corners(r, c);
	b[0] = b[1] = INFINITY;
	b[2] = b[3] = -INFINITY;
	for (int k = 0; k < 4; k++) {
		double x = r->ox + c[k][0] * r->ux - c[k][1] * r->uy;
		double y = r->oy + c[k][0] * r->uy + c[k][1] * r->ux;
		b[0] = fmin(b[0], x);
		b[1] = fmin(b[1], y);
		b[2] = fmax(b[2], x);
		b[3] = fmax(b[3], y);
	}
}

static void box_add(double b[4], double x, double y)
{
	b[0] = fmin(b[0], x);
	b[1] = fmin(b[1], y);
	b[2] = fmax(b[2], x);
	b[3] = fmax(b[3], y);
}

/* A grid being built: margin (m) grows every cell for the overlap tests,
 * so that rounding in rec_contains never leaves a point out of a cell
 * whose record contains it. */
typedef struct builder {
	map_grid *g;
	double margin;
	pairs ps;
} builder;

static int64_t cell_of(double v, double v0, double cell, int64_t n)
{
	double c = floor((v - v0) / cell);
	return c < 0 ? 0 : c > (double)(n - 1) ? n - 1 : (int64_t)c;
}

/* The cell, grown by the margin: x0, y0, x1, y1. */
static void cell_rect(const builder *b, int64_t ix, int64_t iy, double r[4])
{
	const map_grid *g = b->g;
	r[0] = g->x0 + (double)ix * g->cell - b->margin;
	r[1] = g->y0 + (double)iy * g->cell - b->margin;
	r[2] = r[0] + g->cell + 2 * b->margin;
	r[3] = r[1] + g->cell + 2 * b->margin;
}

/* The range of cells a box (grown by the margin) touches. */
static void cell_range(const builder *b, const double box[4], int64_t c[4])
{
	const map_grid *g = b->g;
	c[0] = cell_of(box[0] - b->margin, g->x0, g->cell, g->nx);
	c[1] = cell_of(box[1] - b->margin, g->y0, g->cell, g->ny);
	c[2] = cell_of(box[2] + b->margin, g->x0, g->cell, g->nx);
	c[3] = cell_of(box[3] + b->margin, g->y0, g->cell, g->ny);
}

static uint64_t cell_key(const map_grid *g, int64_t ix, int64_t iy)
{
	return (uint64_t)iy * (uint64_t)g->nx + (uint64_t)ix;
}

/* Does a convex quadrilateral w overlap the cell? Separating axes: the
 * box (done by the caller) and the record's u and n; its lateral edges
 * are not tried, which can only keep a cell that could have gone. */
static int quad_meets_cell(const builder *b, double w[4][2],
                           const map_quad *r, int64_t ix, int64_t iy)
{
	double c[4];
	cell_rect(b, ix, iy, c);
	const double rect[4][2] = {{c[0], c[1]}, {c[2], c[1]}, {c[2], c[3]},
	                           {c[0], c[3]}};
	const double axes[2][2] = {{r->ux, r->uy}, {-r->uy, r->ux}};
	for (int a = 0; a < 2; a++) {
		double plo = INFINITY, phi = -INFINITY;
		double rlo = INFINITY, rhi = -INFINITY;
		for (int k = 0; k < 4; k++) {
			double v = w[k][0] * axes[a][0] + w[k][1] * axes[a][1];
			plo = fmin(plo, v);
			phi = fmax(phi, v);
			v = rect[k][0] * axes[a][0] + rect[k][1] * axes[a][1];
			rlo = fmin(rlo, v);
			rhi = fmax(rhi, v);
		}
		if (phi < rlo || rhi < plo)
			return 0;
	}
	return 1;
}

/* Does the annulus lo <= |p - centre| <= hi meet the cell? */
static int ring_meets_cell(const builder *b, const map_ring *r, int64_t ix,
                           int64_t iy)
{
	double c[4];
	cell_rect(b, ix, iy, c);
	double nx = fmax(c[0] - r->ox, fmax(0, r->ox - c[2]));
	double ny = fmax(c[1] - r->oy, fmax(0, r->oy - c[3]));
	double fx = fmax(fabs(c[0] - r->ox), fabs(c[2] - r->ox));
	double fy = fmax(fabs(c[1] - r->oy), fabs(c[3] - r->oy));
	return hypot(nx, ny) <= r->hi && hypot(fx, fy) >= r->lo;
}

/* How many pieces about a cell long a length splits into. */
static int pieces(double length, double cell)
{
	double n = ceil(length / cell);
	return n < 1 ? 1 : n > 1e7 ? 10000000 : (int)n;
}

/* Lists a circle record in the cells near each sector of its annulus. */
static void cover_ring(builder *b, const map_ring *r, uint32_t ri)
{
	int np = pieces(2 * MAP_PI * r->hi, b->g->cell);
	np = np < 8 ? 8 : np;
	for (int j = 0; j < np; j++) {
		double t0 = 2 * MAP_PI * j / np, t1 = 2 * MAP_PI * (j + 1) / np;
		/* the sector's box: its corners, and any axis direction it
		 * spans at the outer radius */
		double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
		for (int s = 0; s < 2; s++) {
			double rad = s ? r->hi : r->lo;
			box_add(box, r->ox + rad * cos(t0), r->oy + rad * sin(t0));
			box_add(box, r->ox + rad * cos(t1), r->oy + rad * sin(t1));
		}
		for (int q = 1; q <= 4; q++)
			if (q * MAP_PI / 2 > t0 && q * MAP_PI / 2 < t1)
				box_add(box, r->ox + r->hi * cos(q * MAP_PI / 2),
				        r->oy + r->hi * sin(q * MAP_PI / 2));
		int64_t c[4];
		cell_range(b, box, c);
		for (int64_t iy = c[1]; iy <= c[3]; iy++)
			for (int64_t ix = c[0]; ix <= c[2]; ix++)
				if (ring_meets_cell(b, r, ix, iy))
					push(&b->ps, cell_key(b->g, ix, iy), ri);
	}
}

/* Lists a polyline record in the cells near each cell-long piece. */
static void cover_quad(builder *b, const map_quad *r, uint32_t ri)
{
	double c[4][2];
	corners(r, c);
	int np = pieces(fmax(c[1][0] - c[0][0], c[2][0] - c[3][0]),
	                b->g->cell);
	for (int j = 0; j < np; j++) {
		double f[2] = {(double)j / np, (double)(j + 1) / np};
		double w[4][2];
		double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
		/* the piece: fractions f of the way along the lo and hi edges,
		 * counter-clockwise like the corners */
		for (int k = 0; k < 4; k++) {
			const double *a = k < 2 ? c[0] : c[3];
			const double *e = k < 2 ? c[1] : c[2];
			double x = a[0] + f[k == 1 || k == 2] * (e[0] - a[0]);
			double y = a[1];
			w[k][0] = r->ox + x * r->ux - y * r->uy;
			w[k][1] = r->oy + x * r->uy + y * r->ux;
			box_add(box, w[k][0], w[k][1]);
		}
		int64_t cr[4];
		cell_range(b, box, cr);
		for (int64_t iy = cr[1]; iy <= cr[3]; iy++)
			for (int64_t ix = cr[0]; ix <= cr[2]; ix++)
				if (quad_meets_cell(b, w, r, ix, iy))
					push(&b->ps, cell_key(b->g, ix, iy), ri);
	}
}

static uint64_t slot_hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15u;
	return key ^ (key >> 29);
}

static void *aligned_zalloc(size_t n)
{
	n = (n + 63) / 64 * 64;
	void *p = aligned_alloc(64, n ? n : 64);
	if (!p) { /* as vs_xcalloc does: nothing to recover */
		fputs("vsweep: out of memory\n", stderr);
		abort();
	}
	return memset(p, 0, n ? n : 64);
}

/* Fills grid g (its geometry set) with the map's records. */
static void grid_fill(const vs_map *m, map_grid *g, double margin)
{
	builder b = {g, margin, {0}};
	for (uint32_t i = 0; i < (uint32_t)m->n_recs; i++) {
		if (is_ring(m, i))
			cover_ring(&b, ring_of(m, i), i);
		else
			cover_quad(&b, &m->quads[i], i);
	}
	pairs *ps = &b.ps;
	qsort(ps->v, ps->n, sizeof *ps->v, pair_cmp);
	/* drop repeats (two pieces of one record in a cell), count cells */
	size_t n = 0, n_cells = 0;
	for (size_t i = 0; i < ps->n; i++) {
		if (n && ps->v[i].key == ps->v[n - 1].key &&
		    ps->v[i].rec == ps->v[n - 1].rec)
			continue;
		if (!n || ps->v[i].key != ps->v[n - 1].key)
			n_cells++;
		ps->v[n++] = ps->v[i];
	}
	/* two slots to a cache line, and about 70 % full: short probes */
	size_t n_slots = (n_cells * 10 / 7 + 2) / 2 * 2;
	g->n_slots = n_slots;
	g->slots = aligned_zalloc(n_slots * sizeof *g->slots);
	for (size_t i = 0; i < n_slots; i++)
		g->slots[i].key = MAP_NO_KEY;
	g->n_cells = (uint32_t)n_cells;
	uint64_t bits = (uint64_t)g->nx * (uint64_t)g->ny;
	if (bits <= MAX_BITMAP_BITS) {
		g->occupied = vs_xcalloc((size_t)(bits + 63) / 64,
		                         sizeof *g->occupied);
		for (size_t i = 0; i < n; i++)
			g->occupied[ps->v[i].key / 64] |=
				(uint64_t)1 << (ps->v[i].key % 64);
	}
	g->cell_recs = vs_xcalloc(n, sizeof *g->cell_recs);
	size_t used = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && ps->v[j].key == ps->v[i].key; j++)
			;
		uint64_t h = slot_hash(ps->v[i].key) % n_slots;
		while (g->slots[h].key != MAP_NO_KEY)
			h = h + 1 < n_slots ? h + 1 : 0;
		map_slot *s = &g->slots[h];
		s->key = ps->v[i].key;
		s->count = (uint32_t)(j - i);
		uint32_t *ids = s->ids;
		if (j - i > MAP_SLOT_IDS) {
			s->ids[0] = (uint32_t)used;
			ids = g->cell_recs + used;
			used += j - i;
		}
		for (size_t k = i; k < j; k++)
			ids[k - i] = ps->v[k].rec;
	}
	free(ps->v);
}

void map_index_build(vs_map *m)
{
	if (m->n_recs == 0)
		return;
	/* The fine cell: a few lanes across, so that a cell meets few of
	 * them; as long as the typical quad where roads are straight, since
	 * a cell then meets no more quads along the road. */
	size_t n = (size_t)(m->n_lanes > m->n_quads ? m->n_lanes : m->n_quads);
	double *v = vs_xcalloc(n, sizeof *v);
	for (int i = 0; i < m->n_lanes; i++)
		v[i] = m->lanes[i].width;
	qsort(v, (size_t)m->n_lanes, sizeof *v, dbl_cmp);
	double width = v[m->n_lanes / 2];
	double cell = CELL_MAX_WIDTHS * width;
	if (m->n_quads) {
		for (int i = 0; i < m->n_quads; i++)
			v[i] = m->quads[i].len;
		qsort(v, (size_t)m->n_quads, sizeof *v, dbl_cmp);
		cell = fmax(CELL_MIN_WIDTHS * width,
		            fmin(cell, v[m->n_quads / 2]));
	}
	free(v);

	double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	for (int i = 0; i < m->n_quads; i++) {
		double b[4];
		quad_box(&m->quads[i], b);
		box_add(box, b[0], b[1]);
		box_add(box, b[2], b[3]);
	}
	for (uint32_t i = (uint32_t)m->n_quads; i < (uint32_t)m->n_recs; i++) {
		const map_ring *r = ring_of(m, i);
		box_add(box, r->ox - r->hi, r->oy - r->hi);
		box_add(box, r->ox + r->hi, r->oy + r->hi);
	}
	double extent = fmax(box[2] - box[0], box[3] - box[1]);
	cell = fmax(cell, extent / (MAX_CELLS_AXIS - 2));
	double big = fmax(fmax(fabs(box[0]), fabs(box[1])),
	                  fmax(fabs(box[2]), fabs(box[3])));
	/* far more than the rounding of rec_contains, far less than a lane */
	double margin = 1e-6 * cell + 1e-9 * big;
	for (int l = 0; l < MAP_LEVELS; l++) {
		map_grid *g = &m->levels[l];
		g->x0 = box[0];
		g->y0 = box[1];
		g->cell = cell;
		g->nx = (int64_t)floor((box[2] - box[0]) / cell) + 1;
		g->ny = (int64_t)floor((box[3] - box[1]) / cell) + 1;
		grid_fill(m, g, margin);
		m->n_levels = l + 1;
		if (g->nx * g->ny <= TOP_CELLS)
			break;
		cell *= LEVEL_FACTOR;
	}
}

void map_index_free(vs_map *m)
{
	for (int l = 0; l < m->n_levels; l++) {
		free(m->levels[l].slots);
		free(m->levels[l].cell_recs);
		free(m->levels[l].occupied);
	}
}

/* ---- the query -------------------------------------------------------- */

static const map_slot *find_cell(const map_grid *g, int64_t ix, int64_t iy)
{
	uint64_t key = cell_key(g, ix, iy);
	if (g->occupied && !(g->occupied[key / 64] >> (key % 64) & 1))
		return NULL;
	for (uint64_t h = slot_hash(key) % g->n_slots;;
	     h = h + 1 < g->n_slots ? h + 1 : 0) {
		const map_slot *s = &g->slots[h];
		if (s->key == key)
			return s;
		if (s->key == MAP_NO_KEY)
			return NULL;
	}
}

static const uint32_t *slot_ids(const map_grid *g, const map_slot *s)
{
	return s->count <= MAP_SLOT_IDS ? s->ids : g->cell_recs + s->ids[0];
}

/* The best candidate so far: on a lane, the most aligned (|angle|, then
 * |dz|), else the nearest; lane and segment break exact ties, so the
 * answer does not depend on the order candidates are met in. */
typedef struct best {
	int64_t id;  /* record; -1: none yet */
	double k1, k2;
} best;

static void consider(const vs_map *m, best *b, uint32_t id, double k1,
                     double k2)
{
	int better;
	if (b->id < 0 || k1 != b->k1) {
		better = b->id < 0 || k1 < b->k1;
	} else if (k2 != b->k2) {
		better = k2 < b->k2;
	} else {
		const map_info *f = &m->info[id], *g = &m->info[b->id];
		better = f->lane != g->lane ? f->lane < g->lane
		                            : f->seg < g->seg;
	}
	if (better)
		*b = (best){id, k1, k2};
}

typedef struct query {
	double x, y, z, heading;
	best on, near;
} query;

/* The fine cell of the point: which of its records contain the point. */
static void visit_own(const vs_map *m, query *q, const map_slot *s)
{
	const uint32_t *ids = slot_ids(&m->levels[0], s);
	for (uint32_t k = 0; k < s->count; k++) {
		if (!rec_contains(m, ids[k], q->x, q->y))
			continue;
		double p, a, z;
		rec_eval(m, ids[k], q->x, q->y, q->heading, &p, &a, &z);
		consider(m, &q->on, ids[k], fabs(a), fabs(q->z - z));
	}
}

/* Any cell: how near its records are. */
static void visit_near(const vs_map *m, const map_grid *g, query *q,
                       const map_slot *s)
{
	const uint32_t *ids = slot_ids(g, s);
	for (uint32_t k = 0; k < s->count; k++) {
		double limit = q->near.id < 0 ? INFINITY : q->near.k1;
		double d = rec_distance(m, ids[k], q->x, q->y, limit);
		if (d <= limit)
			consider(m, &q->near, ids[k], d, 0);
	}
}

/* Visits ring k of grid g round cell (cx, cy), clipped to the grid. */
static void visit_ring(const vs_map *m, const map_grid *g, query *q,
                       int64_t cx, int64_t cy, int64_t k)
{
	if (k == 0) {
		const map_slot *s = find_cell(g, cx, cy);
		if (s)
			visit_near(m, g, q, s);
		return;
	}
	int64_t x0 = cx - k, x1 = cx + k, y0 = cy - k, y1 = cy + k;
	int64_t ax = x0 < 0 ? 0 : x0, bx = x1 >= g->nx ? g->nx - 1 : x1;
	int64_t ay = y0 + 1 < 0 ? 0 : y0 + 1;
	int64_t by = y1 - 1 >= g->ny ? g->ny - 1 : y1 - 1;
	/* rows y0 and y1 whole, columns x0 and x1 between them */
	for (int side = 0; side < 4; side++) {
		int row = side < 2;
		int64_t at = side == 0 ? y0 : side == 1 ? y1 : side == 2 ? x0 : x1;
		if (at < 0 || at >= (row ? g->ny : g->nx))
			continue;
		int64_t from = row ? ax : ay, to = row ? bx : by;
		for (int64_t i = from; i <= to; i++) {
			const map_slot *s = row ? find_cell(g, i, at)
			                        : find_cell(g, at, i);
			if (s)
				visit_near(m, g, q, s);
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
	double gx = fmax(-lim, fmin(lim, (x - g->x0) / g->cell));
	double gy = fmax(-lim, fmin(lim, (y - g->y0) / g->cell));
	*cx = (int64_t)floor(gx);
	*cy = (int64_t)floor(gy);
	double fx = gx - (double)*cx, fy = gy - (double)*cy;
	*edge = fmin(fmin(fx, 1 - fx), fmin(fy, 1 - fy));
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

void vs_map_locate(const vs_map *m, double x, double y, double z,
                   double travel_heading, vs_map_location *out)
{
	*out = (vs_map_location){0, -1, 0, 0, 0};
	if (!m || m->n_recs == 0 || !isfinite(x) || !isfinite(y) ||
	    !isfinite(z) || !isfinite(travel_heading))
		return;
	query q = {x, y, z, travel_heading, {-1, 0, 0}, {-1, 0, 0}};
	const map_grid *g = &m->levels[0];
	int64_t cx, cy;
	double edge;
	locate_cell(g, x, y, &cx, &cy, &edge);
	const map_slot *s = NULL;
	if (cx >= 0 && cx < g->nx && cy >= 0 && cy < g->ny &&
	    (s = find_cell(g, cx, cy)))
		visit_own(m, &q, s);
	const best *b = &q.on;
	if (q.on.id < 0) {
		if (s)
			visit_near(m, g, &q, s);
		search_near(m, &q);
		b = &q.near;
	}
	double zl;
	out->is_on_lane = b == &q.on;
	out->lane = m->info[b->id].lane;
	out->distance = b == &q.on ? 0 : b->k1;
	rec_eval(m, (uint32_t)b->id, x, y, travel_heading, &out->position,
	         &out->angle, &zl);
}
