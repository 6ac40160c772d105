/* Broad phase for pairwise checks between actors: which pairs can be within
 * a given reach of each other, from bounding circles, without looking at
 * every pair. The monitor uses it so that its cost per actor-step stays
 * flat as the number of actors grows; the exact distance is still measured
 * for every pair it returns. */
#ifndef VS_NEAR_PAIRS_H
#define VS_NEAR_PAIRS_H

#include <stddef.h>

/* A pair of actor indices, i < j. */
typedef struct vs_pair {
	int i, j;
} vs_pair;

/* Reusable scratch space; zero-initialise, vs_near_pairs_finish frees. */
typedef struct vs_near_pairs {
	struct near_cell *cells; /* n entries: actor index and grid cell */
	vs_pair *out;           /* the last result */
	vs_pair *tmp;           /* cap_tmp: the pairs before their sort */
	size_t *start;          /* cap_cells + 1: where each i's pairs go */
	size_t cap_cells, cap_out, cap_tmp;
	int n_cells;            /* actors of the last grid: cells then hold
	                           their sorted order */
} vs_near_pairs;

/* Every pair (i < j) of the n circles (centre cx, cy, radius r; m) whose
 * gap |c_i - c_j| - r_i - r_j is at most reach (m, >= 0): a superset of the
 * pairs whose shapes inside the circles are within reach. The pairs are
 * sorted by (i, j), the order an exhaustive double loop visits them, so
 * results that depend on order come out the same. reach may be infinite
 * (every pair). Returns the count; *pairs points into np until the next
 * call. */
size_t vs_near_pairs_find(vs_near_pairs *np, int n, const double *cx,
                          const double *cy, const double *r, double reach,
                          const vs_pair **pairs);

/* 1 when the gap of circles i and j is at most reach, exactly as
 * vs_near_pairs_find decides it (compared squared: no square root). */
int vs_near_pairs_within(const double *cx, const double *cy, const double *r,
                         int i, int j, double reach);

void vs_near_pairs_finish(vs_near_pairs *np);

#endif
