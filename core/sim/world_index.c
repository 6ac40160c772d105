/* The broad phase of world_index.h: which actors a search among actors
 * need look at, so that a behaviour's search (IDM's lead) costs what the
 * traffic near it costs, not what the whole scenario holds.
 *
 * Built once per step (gen) on the first call, from step k-1's states and
 * MapLocations:
 *   - by_lane: every actor on the road by (lane, s, scenario index), so
 *     that lane_actors is two binary searches and a slice;
 *   - cells: every origin in a uniform grid of WORLD_CELL m, sorted by
 *     (column, row, scenario index), so that actors_near visits only the
 *     cells a circle covers, with a binary search per column;
 *   - reach: the largest distance from an actor's origin to a corner of its
 *     footprint or of anything attached to it (a tractor's trailers), the
 *     bound a search needs to stop early.
 * Answers are exact (actors_near tests every origin it visits), in a
 * fixed order, so that results do not depend on the grid. */
#include "sim/world_index.h"

#include <math.h>
#include <stdlib.h>

#include "common/sort.h"
#include "common/util.h"
#include "map/map.h"

/* m: a few cars long. A query costs a binary search per column it
 * covers plus the origins in its cells; the lead search asks for circles
 * of tens to hundreds of metres. */
#define WORLD_CELL 32.0

/* Beyond this many cells, an origin's column or row would not fit in an
 * int64_t: such an actor is left out of the grid (n_cells < n) and
 * actors_near scans every actor instead. */
#define WORLD_MAX_CELL 1e15

static int lane_entry_cmp(const void *a, const void *b)
{
	const struct world_lane_entry *x = a, *y = b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cell_cmp(const void *a, const void *b)
{
	const struct world_cell *x = a, *y = b;
	if (x->ix != y->ix)
		return x->ix < y->ix ? -1 : 1;
	if (x->iy != y->iy)
		return x->iy < y->iy ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void alloc_once(vs_sim_world *w)
{
	if (w->cells)
		return;
	size_t m = (size_t)w->n + 1;
	w->by_lane = vs_xcalloc(m, sizeof *w->by_lane);
	w->lane_ids = vs_xcalloc(m, sizeof *w->lane_ids);
	w->lane_s = vs_xcalloc(m, sizeof *w->lane_s);
	w->cells = vs_xcalloc(m, sizeof *w->cells);
	w->near_idx = vs_xcalloc(m, sizeof *w->near_idx);
	w->near_ids = vs_xcalloc(m, sizeof *w->near_ids);
	w->lane_mark = vs_xcalloc(m, sizeof *w->lane_mark);
	w->n_by_lane = w->n_cells = 0; /* no last order yet */
}

/* Actor i's entry in by_lane at k, when it is on the road; 1 if so. */
static int lane_entry(vs_sim_world *w, int i, int k)
{
	const vs_lane *l = vs_map_lane(w->map, w->loc[i].lane);
	/* off the road (its lane the nearest): not listed, so that the cars
	 * that drove off a lane's end, all at its s = length, are not looked
	 * at by every search along the lane */
	if (!l || !w->loc[i].on_lane)
		return 0;
	/* s as map_location gives it, bit for bit */
	w->by_lane[k] = (struct world_lane_entry){
		w->loc[i].lane, i, w->loc[i].position * l->length};
	w->lane_mark[i] = w->lane_stamp;
	return 1;
}

/* The located actors by (lane, s): those of the last step's index in its
 * order (read ahead of where the new one is written), then the others. */
static void build_lanes(vs_sim_world *w)
{
	int k = 0;
	w->lane_stamp++;
	for (int j = 0; w->map && j < w->n_by_lane; j++)
		k += lane_entry(w, w->by_lane[j].idx, k);
	for (int i = 0; w->map && i < w->n; i++)
		if (w->lane_mark[i] != w->lane_stamp)
			k += lane_entry(w, i, k);
	/* from the last step's order (actors keep their places), so an
	 * insertion sort has little to do (a qsort of every actor at every
	 * step, here and for the safety KPIs' leads, was 4 % of IDM
	 * traffic's simulation at 32 cars) */
	vs_sort_nearly(w->by_lane, (size_t)k, sizeof *w->by_lane,
	               lane_entry_cmp);
	for (int j = 0; j < k; j++) {
		w->lane_ids[j] = w->ids[w->by_lane[j].idx];
		w->lane_s[j] = w->by_lane[j].s;
	}
	w->n_by_lane = k;
}

static void build_cells(vs_sim_world *w)
{
	const vs_state *st = *w->prev;
	int k = 0;
	/* in the last step's order when it held every actor */
	int keep = w->n_cells == w->n;
	for (int a = 0; a < w->n; a++) {
		int i = keep ? w->cells[a].idx : a;
		double cx = floor(st[i].x / WORLD_CELL);
		double cy = floor(st[i].y / WORLD_CELL);
		if (!(fabs(cx) < WORLD_MAX_CELL && fabs(cy) < WORLD_MAX_CELL))
			continue; /* NaN too */
		w->cells[k++] = (struct world_cell){(int64_t)cx, (int64_t)cy, i};
	}
	vs_sort_nearly(w->cells, (size_t)k, sizeof *w->cells, cell_cmp);
	w->n_cells = k;
}

/* The bound of vs_sim_world_reach; infinite when a position is not
 * finite (no search may then stop early). */
static void build_reach(vs_sim_world *w)
{
	const vs_state *st = *w->prev;
	double reach = 0.0; /* m */
	for (int i = 0; i < w->n; i++) {
		const vs_actor_attr *a = &w->attrs[i];
		double r = 0.5 * hypot(a->length, a->width); /* m */
		reach = vs_fmax(reach, r);
		/* every ancestor's reach covers this actor's corners */
		int p = w->parent_idx[i];
		for (int depth = 0; p >= 0 && depth < w->n; depth++) {
			double d = hypot(st[i].x - st[p].x, st[i].y - st[p].y);
			reach = vs_fmax(reach, d + r);
			if (!isfinite(d))
				reach = INFINITY;
			p = w->parent_idx[p];
		}
		if (!isfinite(st[i].x) || !isfinite(st[i].y) || !isfinite(r))
			reach = INFINITY;
	}
	w->reach = reach;
}

static void build(vs_sim_world *w)
{
	if (w->index_gen == w->gen)
		return;
	alloc_once(w);
	build_lanes(w);
	build_cells(w);
	build_reach(w);
	w->index_gen = w->gen;
}

/* The first entry of by_lane whose lane is >= li. */
static int lane_bound(const vs_sim_world *w, int li)
{
	int lo = 0, hi = w->n_by_lane;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (w->by_lane[mid].lane < li)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t vs_sim_world_lane_actors(vs_sim_world *w, const char *lane,
                                const int64_t **ids, const double **s)
{
	*ids = NULL;
	*s = NULL;
	int li = lane && w->map ? vs_map_find_lane(w->map, lane) : -1;
	if (li < 0)
		return 0;
	build(w);
	int lo = lane_bound(w, li), end = lane_bound(w, li + 1);
	*ids = w->lane_ids + lo;
	*s = w->lane_s + lo;
	return (size_t)(end - lo);
}

/* The first cell at or after (ix, iy) in the grid's order. */
static int first_cell(const vs_sim_world *w, int64_t ix, int64_t iy)
{
	int lo = 0, hi = w->n_cells;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct world_cell *c = &w->cells[mid];
		if (c->ix < ix || (c->ix == ix && c->iy < iy))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int within(const vs_state *st, int i, double x, double y, double r)
{
	double dx = st[i].x - x, dy = st[i].y - y;
	return dx * dx + dy * dy <= r * r;
}

size_t vs_sim_world_actors_near(vs_sim_world *w, double x, double y,
                                double radius, const int64_t **ids)
{
	*ids = NULL;
	if (!(radius >= 0) || !isfinite(x) || !isfinite(y))
		return 0;
	build(w);
	const vs_state *st = *w->prev;
	size_t k = 0;
	double x0 = floor((x - radius) / WORLD_CELL);
	double x1 = floor((x + radius) / WORLD_CELL);
	double y0 = floor((y - radius) / WORLD_CELL);
	double y1 = floor((y + radius) / WORLD_CELL);
	if (w->n_cells < w->n || !(x1 - x0 + 1 <= w->n_cells) ||
	    !(fabs(x0) < WORLD_MAX_CELL && fabs(x1) < WORLD_MAX_CELL)) {
		/* a circle over more columns (a binary search each) than
		 * there are actors, or one whose columns do not fit in
		 * int64_t, or an actor off the grid: every origin, in
		 * scenario order */
		for (int i = 0; i < w->n; i++)
			if (within(st, i, x, y, radius))
				w->near_idx[k++] = i;
	} else {
		int64_t ix0 = (int64_t)x0, ix1 = (int64_t)x1;
		int64_t iy0 = (int64_t)vs_fmax(y0, -WORLD_MAX_CELL);
		int64_t iy1 = (int64_t)vs_fmin(y1, WORLD_MAX_CELL);
		for (int64_t ix = ix0; ix <= ix1; ix++) {
			for (int c = first_cell(w, ix, iy0);
			     c < w->n_cells && w->cells[c].ix == ix &&
			     w->cells[c].iy <= iy1; c++)
				if (within(st, w->cells[c].idx, x, y, radius))
					w->near_idx[k++] = w->cells[c].idx;
		}
		qsort(w->near_idx, k, sizeof *w->near_idx, int_cmp);
	}
	for (size_t j = 0; j < k; j++)
		w->near_ids[j] = w->ids[w->near_idx[j]];
	*ids = w->near_ids;
	return k;
}

double vs_sim_world_reach(vs_sim_world *w)
{
	build(w);
	return w->reach;
}

void world_index_free(vs_sim_world *w)
{
	free(w->by_lane);
	free(w->lane_ids);
	free(w->lane_s);
	free(w->cells);
	free(w->lane_mark);
	free(w->near_idx);
	free(w->near_ids);
}
