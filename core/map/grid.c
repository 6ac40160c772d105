/* The spatial index: uniform grids of square cells, each cell listing
 * the records (road pieces, map_internal.h) whose area overlaps it, found
 * through a hash table so that empty space costs no memory (and, with a
 * bitmap of the occupied cells, no probe). The finest grid's cells are a
 * few lanes wide; each next grid's are 8 times wider, up to a grid of a
 * few cells, for the off-road search (locate.c). Built once; never written
 * after. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"

#define CELL_MIN_WIDTHS 4.0  /* fine cell side, in median lane widths: */
#define CELL_MAX_WIDTHS 12.0 /* the median quad length, within these */
#define PATCH_MIN_WIDTHS 4.0 /* ... on maps made mostly of patches */
#define LEVEL_FACTOR 8       /* each grid's cells are this many times wider */
#define TOP_CELLS 64         /* the coarsest grid has at most about this
                                many cells */
#define MAX_CELLS_AXIS ((double)(1 << 24)) /* keeps cell keys in 48 bits */
#define MAX_BITMAP_BITS ((uint64_t)1 << 26) /* 8 MiB: past it, no bitmap */
#define FILL_CELLS ((double)(1 << 20)) /* cells the records' boxes may
                                          cover in all on the finest grid,
                                          besides ... */
#define FILL_CELLS_PER_REC 16.0        /* ... this many per record */

_Static_assert(sizeof(map_slot) == 16, "four slots to a cache line");

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
	map_corners(r, c);
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
 * so that rounding in the containment test never leaves a point out of a cell
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
		for (int s = 0; s < 4; s++) {
			double a = s % 2 ? r->hi : r->lo, t = s < 2 ? t0 : t1;
			box_add(box, r->ox + a * cos(t), r->oy + a * sin(t));
		}
		for (int q = 1; q <= 4; q++) {
			double t = q * MAP_PI / 2;
			if (t > t0 && t < t1)
				box_add(box, r->ox + r->hi * cos(t),
				        r->oy + r->hi * sin(t));
		}
		int64_t c[4];
		cell_range(b, box, c);
		for (int64_t iy = c[1]; iy <= c[3]; iy++)
			for (int64_t ix = c[0]; ix <= c[2]; ix++)
				if (ring_meets_cell(b, r, ix, iy))
					push(&b->ps, map_cell_key(b->g, ix, iy),
					     ri);
	}
}

/* Lists a polyline record in the cells near each cell-long piece. */
static void cover_quad(builder *b, const map_quad *r, uint32_t ri)
{
	double c[4][2];
	map_corners(r, c);
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
					push(&b->ps, map_cell_key(b->g, ix, iy),
					     ri);
	}
}

/* Lists a patch in the cells it meets: its box, then separating axes
 * across its four edges (a convex quadrilateral; a slightly concave one
 * keeps a cell or two it could have gone without). */
static void cover_patch(builder *b, const map_patch *q, double reach,
                        uint32_t ri)
{
	double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	for (int k = 0; k < 4; k++)
		box_add(box, q->x[k], q->y[k]);
	box[0] -= reach; /* its bent edges */
	box[1] -= reach;
	box[2] += reach;
	box[3] += reach;
	int64_t cr[4];
	cell_range(b, box, cr);
	for (int64_t iy = cr[1]; iy <= cr[3]; iy++)
		for (int64_t ix = cr[0]; ix <= cr[2]; ix++) {
			double c[4];
			cell_rect(b, ix, iy, c);
			int apart = 0;
			for (int e = 0; e < 4 && !apart; e++) {
				int f = (e + 1) % 4;
				double nx = q->y[f] - q->y[e];
				double ny = q->x[e] - q->x[f];
				double plo = INFINITY, phi = -INFINITY;
				double rlo = INFINITY, rhi = -INFINITY;
				for (int k = 0; k < 4; k++) {
					double v = q->x[k] * nx + q->y[k] * ny;
					plo = fmin(plo, v);
					phi = fmax(phi, v);
					v = c[k % 2 ? 2 : 0] * nx +
					    c[k < 2 ? 1 : 3] * ny;
					rlo = fmin(rlo, v);
					rhi = fmax(rhi, v);
				}
				double grow = reach * hypot(nx, ny);
				apart = phi + grow < rlo || rhi < plo - grow;
			}
			if (!apart)
				push(&b->ps, map_cell_key(b->g, ix, iy), ri);
		}
}

static void *aligned_zalloc(size_t n)
{
	n = (n + 63) / 64 * 64;
	void *p = aligned_alloc(64, n ? n : 64);
	if (!p) { /* as vs_xcalloc does: nothing to recover */
		fputs("vsweep: out of memory\n", vs_own_stderr());
		abort();
	}
	return memset(p, 0, n ? n : 64);
}

/* Fills grid g (its geometry set) with the map's records. */
static void grid_fill(const vs_map *m, map_grid *g, double margin)
{
	builder b = {g, margin, {0}};
	for (uint32_t i = 0; i < (uint32_t)m->n_recs; i++) {
		if (map_is_patch(m, i))
			cover_patch(&b, map_patch_of(m, i), m->info[i].reach,
			            i);
		else if (map_is_ring(m, i))
			cover_ring(&b, map_ring_of(m, i), i);
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
	/* about 70 % full: short probes */
	size_t n_slots = (n_cells * 10 / 7 + 4) / 4 * 4;
	g->n_slots = n_slots;
	g->slots = aligned_zalloc(n_slots * sizeof *g->slots);
	for (size_t i = 0; i < n_slots; i++)
		g->slots[i].word = MAP_NO_KEY;
	g->n_cells = (uint32_t)n_cells;
	uint64_t bits = (uint64_t)g->nx * (uint64_t)g->ny;
	if (bits <= MAX_BITMAP_BITS) {
		g->occupied = vs_xcalloc((size_t)(bits + 63) / 64,
		                         sizeof *g->occupied);
		for (size_t i = 0; i < n; i++)
			g->occupied[ps->v[i].key / 64] |=
				(uint64_t)1 << (ps->v[i].key % 64);
	}
	g->cell_recs = vs_xcalloc(n + n_cells, sizeof *g->cell_recs);
	g->n_cell_recs = n + n_cells;
	size_t used = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && ps->v[j].key == ps->v[i].key; j++)
			;
		uint64_t h = map_slot_hash(g, ps->v[i].key);
		while (g->slots[h].word != MAP_NO_KEY)
			h = h + 1 < n_slots ? h + 1 : 0;
		map_slot *s = &g->slots[h];
		size_t count = j - i;
		s->word = ps->v[i].key << 16 |
		          (count < MAP_SLOT_MANY ? count : MAP_SLOT_MANY);
		uint32_t *ids = s->ids;
		if (count > MAP_SLOT_IDS) {
			if (count >= MAP_SLOT_MANY)
				g->cell_recs[used++] = (uint32_t)count;
			s->ids[0] = (uint32_t)used;
			ids = g->cell_recs + used;
			used += count;
		}
		for (size_t k = i; k < j; k++)
			ids[k - i] = ps->v[k].rec;
	}
	free(ps->v);
}

/* How many cells of side `cell` (m) the records' boxes cover in all. */
static double covered_cells(const vs_map *m, double cell)
{
	double n = 0;
	for (uint32_t i = 0; i < (uint32_t)m->n_recs; i++) {
		const double *b = m->rec_box[i];
		n += (floor((b[2] - b[0]) / cell) + 2) *
		     (floor((b[3] - b[1]) / cell) + 2);
	}
	return n;
}

void map_index_build(vs_map *m)
{
	if (m->n_recs == 0)
		return;
	/* The fine cell: a few lanes across, so that a cell meets few of
	 * them; as long as the typical quad where roads are straight, since
	 * a cell then meets no more quads along the road. */
	int n_long = m->n_quads + m->n_patches;
	size_t n = (size_t)(m->n_lanes > n_long ? m->n_lanes : n_long);
	double *v = vs_xcalloc(n, sizeof *v);
	for (int i = 0; i < m->n_lanes; i++)
		v[i] = m->lanes[i].width;
	qsort(v, (size_t)m->n_lanes, sizeof *v, dbl_cmp);
	double width = fmax(v[m->n_lanes / 2], 0.5);
	double cell = CELL_MAX_WIDTHS * width;
	if (n_long) {
		for (int i = 0; i < m->n_quads; i++)
			v[i] = m->quads[i].len;
		for (int i = 0; i < m->n_patches; i++) {
			const map_patch *q = &m->patches[i];
			v[m->n_quads + i] = hypot(q->x[1] - q->x[0],
			                          q->y[1] - q->y[0]);
		}
		qsort(v, (size_t)n_long, sizeof *v, dbl_cmp);
		/* patches are short where roads bend (their edges are
		 * chords within a millimetre): cells about as long, so that
		 * a cell meets a few of them, not dozens */
		double lo = m->n_patches > m->n_quads ? PATCH_MIN_WIDTHS
		                                       : CELL_MIN_WIDTHS;
		cell = fmax(lo * width, fmin(cell, v[n_long / 2]));
	}
	free(v);

	double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	m->rec_box = vs_xcalloc((size_t)m->n_recs, sizeof *m->rec_box);
	for (uint32_t i = 0; i < (uint32_t)m->n_recs; i++) {
		double *b = m->rec_box[i];
		b[0] = b[1] = INFINITY;
		b[2] = b[3] = -INFINITY;
		if (map_is_patch(m, i)) {
			const map_patch *q = map_patch_of(m, i);
			double reach = m->info[i].reach;
			for (int k = 0; k < 4; k++) {
				box_add(b, q->x[k] - reach, q->y[k] - reach);
				box_add(b, q->x[k] + reach, q->y[k] + reach);
			}
		} else if (map_is_ring(m, i)) {
			const map_ring *r = map_ring_of(m, i);
			box_add(b, r->ox - r->hi, r->oy - r->hi);
			box_add(b, r->ox + r->hi, r->oy + r->hi);
		} else {
			quad_box(&m->quads[i], b);
		}
		box_add(box, b[0], b[1]);
		box_add(box, b[2], b[3]);
	}
	double extent = fmax(box[2] - box[0], box[3] - box[1]);
	cell = fmax(cell, extent / (MAX_CELLS_AXIS - 2));
	/* Filling a grid visits every cell of each record's box. One record
	 * far larger than the others (a lane a kilometre wide: a typo, or a
	 * width polynomial that runs away) would make a grid fitted to the
	 * others cover millions of cells with it, and loading the map take
	 * minutes: the cells grow until the boxes cover at most FILL_CELLS
	 * and FILL_CELLS_PER_REC a record. Lookups give the same answers on
	 * any grid; only their speed depends on the cells, and an ordinary
	 * map, whose records cover a few cells each, stays far below. */
	while (covered_cells(m, cell) >
	       FILL_CELLS + FILL_CELLS_PER_REC * m->n_recs)
		cell *= 2;
	double big = fmax(fmax(fabs(box[0]), fabs(box[1])),
	                  fmax(fabs(box[2]), fabs(box[3])));
	/* far more than the rounding of the containment tests, far less
	 * than a lane */
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
	/* what a lookup reads, on huge pages where the map is large */
	size_t n_rings = (size_t)(m->n_recs - m->n_quads - m->n_patches);
	m->quads = map_huge(m->quads, (size_t)m->n_quads * sizeof *m->quads);
	m->rings = map_huge(m->rings, n_rings * sizeof *m->rings);
	m->patches = map_huge(m->patches,
	                      (size_t)m->n_patches * sizeof *m->patches);
	m->psurf = map_huge(m->psurf, (size_t)m->n_patches * sizeof *m->psurf);
	m->info = map_huge(m->info, (size_t)m->n_recs * sizeof *m->info);
	m->across = map_huge(m->across, m->n_across * sizeof *m->across);
	m->slanes = map_huge(m->slanes, m->n_slanes * sizeof *m->slanes);
	m->rec_box = map_huge(m->rec_box,
	                      (size_t)m->n_recs * sizeof *m->rec_box);
	m->levels[0].slots = map_huge(m->levels[0].slots,
	                              m->levels[0].n_slots *
	                                      sizeof *m->levels[0].slots);
	m->levels[0].cell_recs = map_huge(m->levels[0].cell_recs,
	                                  m->levels[0].n_cell_recs *
	                                          sizeof(uint32_t));
}

void map_index_free(vs_map *m)
{
	free(m->rec_box);
	for (int l = 0; l < m->n_levels; l++) {
		free(m->levels[l].slots);
		free(m->levels[l].cell_recs);
		free(m->levels[l].occupied);
	}
}

