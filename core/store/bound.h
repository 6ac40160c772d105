/* What a prepared statement holds bound (vs_bound), so that a value equal
 * bit for bit to the one already bound is not bound again.
 *
 * SQLite keeps a statement's bindings across sqlite3_reset (and moves them
 * to a re-prepared statement), so a parameter bound to the same value as
 * in the last execution need not be bound anew. The state insert binds 24
 * values per row, and binding was 14 % of a full-recording run's CPU
 * (perf, tools/bench/bench.yaml); between executions of a multi-row
 * insert, a row slot's variant, actor, flat-road z, roll, pitch, vz, wx,
 * wy and lane columns rarely change. The record SQLite builds depends only
 * on the bound values, so skipping equal ones stores the same bytes.
 *
 * Invariants: tag[i] and bits[i] describe what parameter i + 1 of the
 * statement holds; tag 0 (unknown) never matches, so the first binding of
 * every parameter happens. Doubles compare by their bits: -0.0 and 0.0
 * differ, and a NaN matches only the same NaN. */
#ifndef VS_STORE_BOUND_H
#define VS_STORE_BOUND_H

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

enum { VS_BOUND_UNKNOWN, VS_BOUND_NULL, VS_BOUND_INT, VS_BOUND_REAL };

typedef struct vs_bound {
	sqlite3_stmt *s;
	int n;          /* the statement's parameters */
	uint8_t *tag;   /* VS_BOUND_*, per parameter */
	uint64_t *bits; /* the value: an int64, or a double's bits */
} vs_bound;

/* For statement s (NULL: an empty record, freed alike). */
void vs_bound_init(vs_bound *b, sqlite3_stmt *s);
void vs_bound_free(vs_bound *b);

/* Binds parameter i (1-based) unless it holds v already. */
static inline void vs_bound_int64(vs_bound *b, int i, int64_t v)
{
	uint64_t u = (uint64_t)v;
	if (b->tag[i - 1] == VS_BOUND_INT && b->bits[i - 1] == u)
		return;
	sqlite3_bind_int64(b->s, i, v);
	b->tag[i - 1] = VS_BOUND_INT;
	b->bits[i - 1] = u;
}

/* For a parameter that goes into a REAL column only (an integral v is
 * bound as an integer, which such a column stores alike). */
static inline void vs_bound_double(vs_bound *b, int i, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	if (b->tag[i - 1] == VS_BOUND_REAL && b->bits[i - 1] == u)
		return;
	/* An integral value goes in as an integer: given a double, SQLite
	 * checks it for an integral value in every REAL column at every
	 * execution and then stores it as that integer, so the record is
	 * the same bytes (|v| < 2^53: the conversion is exact; a NaN
	 * fails the range test). */
	if (v > -9.0e15 && v < 9.0e15 && v == (double)(int64_t)v)
		sqlite3_bind_int64(b->s, i, (int64_t)v);
	else
		sqlite3_bind_double(b->s, i, v);
	b->tag[i - 1] = VS_BOUND_REAL;
	b->bits[i - 1] = u;
}

static inline void vs_bound_null(vs_bound *b, int i)
{
	if (b->tag[i - 1] == VS_BOUND_NULL)
		return;
	sqlite3_bind_null(b->s, i);
	b->tag[i - 1] = VS_BOUND_NULL;
}

#endif
