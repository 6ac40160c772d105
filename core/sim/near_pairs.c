/* Broad phase of near_pairs.h: a uniform grid rebuilt per call. Cells are
 * as wide as the largest reach two circles can bridge (2·r_max + reach),
 * so a pair within reach always lies in the same or neighbouring cells.
 * With the actors sorted by cell (column ix, then row iy), each actor
 * looks forward only, so that every pair is met once: at the later
 * entries of its own column up to the next row, and at the three rows
 * round its own in the next column, which a pointer that only moves
 * forward finds (the targets ascend with the actors). The pairs found are
 * then put in (i, j) order by a counting sort on i. The cells are sorted
 * from the last call's order, which the actors mostly keep: O(n +
 * candidates) per step in steady traffic, O(n log n) at worst. When the
 * reach is infinite or the cells would not fit in integers, every pair is
 * returned (the exhaustive loop, still correct); a dozen actors or fewer
 * are tested pair by pair. */
#include "sim/near_pairs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/sort.h"
#include "common/util.h"

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

static void push(vs_near_pairs *np, size_t *k, int i, int j)
{
	if (*k == np->cap_out) {
		np->cap_out = np->cap_out ? 2 * np->cap_out : 64;
		np->out = vs_xrealloc(np->out, np->cap_out * sizeof *np->out);
	}
	np->out[(*k)++] = (vs_pair){i < j ? i : j, i < j ? j : i};
}

/* Cell a before cell (ix, iy) in the sort's order. */
static int cell_before(const struct near_cell *a, int64_t ix, int64_t iy)
{
	return a->ix < ix || (a->ix == ix && a->iy < iy);
}

/* The k pairs of np->tmp into np->out in (i, j) order: counted by i, then
 * each i's few pairs sorted by j in place (insertion). */
static void order_pairs(vs_near_pairs *np, int n, size_t k)
{
	size_t *start = np->start;
	for (int i = 0; i <= n; i++)
		start[i] = 0;
	for (size_t q = 0; q < k; q++)
		start[np->tmp[q].i + 1]++;
	for (int i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (size_t q = 0; q < k; q++)
		np->out[start[np->tmp[q].i]++] = np->tmp[q];
	/* start[i] is now the end of i's pairs, the start of i + 1's */
	size_t from = 0;
	for (int i = 0; i < n; i++) {
		for (size_t a = from + 1; a < start[i]; a++) {
			vs_pair p = np->out[a];
			size_t b = a;
			for (; b > from && np->out[b - 1].j > p.j; b--)
				np->out[b] = np->out[b - 1];
			np->out[b] = p;
		}
		from = start[i];
	}
}

size_t vs_near_pairs_find(vs_near_pairs *np, int n, const double *cx,
                          const double *cy, const double *r, double reach,
                          const vs_pair **pairs)
{
	size_t k = 0;
	double r_max = 0, extent = 0;
	for (int i = 0; i < n; i++) {
		r_max = vs_fmax(r_max, r[i]);
		extent = vs_fmax(extent, vs_fmax(fabs(cx[i]), fabs(cy[i])));
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
		np->start = vs_xrealloc(np->start,
		                        ((size_t)n + 1) * sizeof *np->start);
	}
	struct near_cell *c = np->cells;
	/* In the last call's order when it had these actors: they move
	 * little from step to step, so an insertion sort has little to do;
	 * past 8 n moves (the cells' size changed, say) qsort takes over.
	 * Either way the order is the one total order (ix, iy, idx). */
	int keep = np->n_cells == n;
	for (int a = 0; a < n; a++) {
		int i = keep ? c[a].idx : a;
		c[a] = (struct near_cell){(int64_t)floor(cx[i] / h),
		                          (int64_t)floor(cy[i] / h), i};
	}
	np->n_cells = n;
	vs_sort_nearly(c, (size_t)n, sizeof *c, cell_cmp);
	/* The pairs found go to out (push), which then becomes tmp, the
	 * sort's input; the sort writes them to the other buffer. */
	size_t q = 0; /* first cell at or after (ix + 1, iy - 1) */
	for (size_t a = 0; a < (size_t)n; a++) {
		int64_t ix = c[a].ix, iy = c[a].iy;
		int i = c[a].idx;
		/* own column: the later entries of this row and the next */
		for (size_t b = a + 1; b < (size_t)n && c[b].ix == ix &&
		                       c[b].iy <= iy + 1; b++)
			if (vs_near_pairs_within(cx, cy, r, i, c[b].idx, reach))
				push(np, &k, i, c[b].idx);
		/* next column, rows iy - 1 .. iy + 1 */
		while (q < (size_t)n && cell_before(&c[q], ix + 1, iy - 1))
			q++;
		for (size_t b = q; b < (size_t)n && c[b].ix == ix + 1 &&
		                   c[b].iy <= iy + 1; b++)
			if (vs_near_pairs_within(cx, cy, r, i, c[b].idx, reach))
				push(np, &k, i, c[b].idx);
	}
	if (k > 1) {
		/* tmp as large as out, then the two swap: both hold cap_out */
		if (np->cap_tmp < np->cap_out) {
			np->tmp = vs_xrealloc(np->tmp,
			                      np->cap_out * sizeof *np->tmp);
			np->cap_tmp = np->cap_out;
		}
		vs_pair *t = np->tmp;
		np->tmp = np->out;
		np->out = t;
		order_pairs(np, n, k);
	}
	*pairs = np->out;
	return k;
}

void vs_near_pairs_finish(vs_near_pairs *np)
{
	free(np->cells);
	free(np->out);
	free(np->tmp);
	free(np->start);
	*np = (vs_near_pairs){0};
}
