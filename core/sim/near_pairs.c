/* Broad phase of near_pairs.h: a uniform grid rebuilt per call. Cells are
 * as wide as the largest reach two circles can bridge (2·r_max + reach),
 * so a pair within reach always lies in the same or neighbouring cells;
 * the 3 x 3 neighbourhood of each actor is found by binary search in the
 * actors sorted by cell. O(n log n + candidates) per call. When the reach
 * is infinite or the cells would not fit in integers, every pair is
 * returned (the exhaustive loop, still correct); a dozen actors or fewer
 * are tested pair by pair. */
#include "sim/near_pairs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/error.h"

/* Up to this many actors, pairs are tested exhaustively: below it the
 * grid's sort and searches cost more than the n (n - 1) / 2 tests they
 * save (perf at 2 actors: 4.9 % of a full-recording run's CPU in the
 * grid). */
#define NEAR_PAIRS_EXHAUSTIVE 12

struct near_cell {
	int64_t ix, iy; /* grid cell */
	int idx;        /* actor index */
};

int vs_near_pairs_within(const double *cx, const double *cy, const double *r,
                         int i, int j, double reach)
{
	double dx = cx[i] - cx[j], dy = cy[i] - cy[j];
	double lim = reach + r[i] + r[j];
	return dx * dx + dy * dy <= lim * lim;
}

static int cell_cmp(const void *pa, const void *pb)
{
	const struct near_cell *a = pa, *b = pb;
	if (a->ix != b->ix)
		return a->ix < b->ix ? -1 : 1;
	if (a->iy != b->iy)
		return a->iy < b->iy ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int pair_cmp(const void *pa, const void *pb)
{
	const vs_pair *a = pa, *b = pb;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

static void push(vs_near_pairs *np, size_t *k, int i, int j)
{
	if (*k == np->cap_out) {
		np->cap_out = np->cap_out ? 2 * np->cap_out : 64;
		np->out = vs_xrealloc(np->out, np->cap_out * sizeof *np->out);
	}
	np->out[(*k)++] = (vs_pair){i < j ? i : j, i < j ? j : i};
}

/* First entry of the sorted cells at or after cell (ix, iy). */
static size_t lower(const struct near_cell *c, size_t n, int64_t ix,
                    int64_t iy)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].ix < ix || (c[mid].ix == ix && c[mid].iy < iy))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t vs_near_pairs_find(vs_near_pairs *np, int n, const double *cx,
                          const double *cy, const double *r, double reach,
                          const vs_pair **pairs)
{
	size_t k = 0;
	double r_max = 0, extent = 0;
	for (int i = 0; i < n; i++) {
		r_max = fmax(r_max, r[i]);
		extent = fmax(extent, fmax(fabs(cx[i]), fabs(cy[i])));
	}
	double h = 2 * r_max + reach;
	if (!isfinite(h) || !(h > 0) || extent / h > 1e15) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				push(np, &k, i, j);
		*pairs = np->out;
		return k;
	}
	if (n <= NEAR_PAIRS_EXHAUSTIVE) {
		/* Few actors: every pair through the same test costs less than
		 * building the grid, and gives the same pairs in (i, j) order. */
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (vs_near_pairs_within(cx, cy, r, i, j, reach))
					push(np, &k, i, j);
		*pairs = np->out;
		return k;
	}
	if (np->cap_cells < (size_t)n) {
		np->cap_cells = (size_t)n;
		np->cells = vs_xrealloc(np->cells, (size_t)n * sizeof *np->cells);
	}
	struct near_cell *c = np->cells;
	for (int i = 0; i < n; i++)
		c[i] = (struct near_cell){(int64_t)floor(cx[i] / h),
		                          (int64_t)floor(cy[i] / h), i};
	if (n > 1)
		qsort(c, (size_t)n, sizeof *c, cell_cmp);
	for (int a = 0; a < n; a++) {
		int i = c[a].idx;
		for (int64_t dx = -1; dx <= 1; dx++)
			for (int64_t dy = -1; dy <= 1; dy++) {
				size_t b = lower(c, (size_t)n, c[a].ix + dx,
				                 c[a].iy + dy);
				for (; b < (size_t)n && c[b].ix == c[a].ix + dx &&
				       c[b].iy == c[a].iy + dy; b++) {
					int j = c[b].idx;
					if (j > i && vs_near_pairs_within(
						     cx, cy, r, i, j, reach))
						push(np, &k, i, j);
				}
			}
	}
	if (k > 1)
		qsort(np->out, k, sizeof *np->out, pair_cmp);
	*pairs = np->out;
	return k;
}

void vs_near_pairs_finish(vs_near_pairs *np)
{
	free(np->cells);
	free(np->out);
	*np = (vs_near_pairs){0};
}
