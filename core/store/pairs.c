/* Pair rows into pair_row (pairs.h), PAIRS_PER_INSERT to an INSERT
 * (batch.h). The rows come in key order (step, lower actor ID, higher)
 * only within a step when the scenario lists actors by ascending ID;
 * WITHOUT ROWID takes them in any order, and a step's pairs share the
 * b-tree's right-most page anyway. */
#include "store/pairs.h"

#include <math.h>

#define PAIRS_PER_INSERT 64
#define PAIR_COLS 7

int vs_store_pairs_prepare(sqlite3 *db, vs_batch *b)
{
	return vs_batch_prepare(db, "pair_row", PAIR_COLS, PAIRS_PER_INSERT, b);
}

typedef struct pairs_ctx {
	uint64_t variant;
	const vs_pair_row *rows;
} pairs_ctx;

static void bind(sqlite3_stmt *s, int base, int64_t i, const void *ctx)
{
	const pairs_ctx *c = ctx;
	const vs_pair_row *r = &c->rows[i];
	sqlite3_bind_int64(s, base + 1, (int64_t)c->variant);
	sqlite3_bind_int64(s, base + 2, r->step);
	sqlite3_bind_int64(s, base + 3, r->actor_id);
	sqlite3_bind_int64(s, base + 4, r->other_id);
	sqlite3_bind_double(s, base + 5, r->distance);
	sqlite3_bind_double(s, base + 6, r->gap);
	if (isnan(r->closing)) /* the origins coincide: no direction */
		sqlite3_bind_null(s, base + 7);
	else
		sqlite3_bind_double(s, base + 7, r->closing);
}

int vs_store_pairs_put(const vs_batch *b, uint64_t variant,
                       const vs_pair_row *rows, int64_t n)
{
	pairs_ctx c = {variant, rows};
	return vs_batch_put(b, n, bind, &c);
}
