/* Pair rows into pair_row (pairs.h). Several rows per INSERT, as the
 * state rows are written: one VDBE program run per PAIRS_PER_INSERT rows
 * instead of per row. The rows come in key order (step, lower actor ID,
 * higher) only within a step when the scenario lists actors by ascending
 * ID; WITHOUT ROWID takes them in any order, and a step's pairs share
 * the b-tree's right-most page anyway. */
#include "store/pairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define PAIRS_PER_INSERT 64
#define PAIR_COLS 7

char *vs_store_insert_sql(const char *table, int cols, int rows)
{
	size_t tuple = 2 * (size_t)cols + 2; /* "(?,?)" and a comma */
	size_t n = strlen(table) + 32 + (size_t)rows * tuple;
	char *sql = vs_xcalloc(1, n), *p = sql;
	p += sprintf(p, "INSERT INTO %s VALUES ", table);
	for (int i = 0; i < rows; i++) {
		if (i)
			*p++ = ',';
		*p++ = '(';
		for (int c = 0; c < cols; c++) {
			if (c)
				*p++ = ',';
			*p++ = '?';
		}
		*p++ = ')';
	}
	*p = 0;
	return sql;
}

int vs_store_pairs_prepare(sqlite3 *db, sqlite3_stmt *p[2])
{
	int rows[2] = {PAIRS_PER_INSERT, 1};
	for (int k = 0; k < 2; k++) {
		char *sql = vs_store_insert_sql("pair_row", PAIR_COLS, rows[k]);
		int rc = sqlite3_prepare_v3(db, sql, -1,
		                            SQLITE_PREPARE_PERSISTENT, &p[k],
		                            NULL);
		free(sql);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static void bind(sqlite3_stmt *s, int base, uint64_t variant,
                 const vs_pair_row *r)
{
	sqlite3_bind_int64(s, base + 1, (int64_t)variant);
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

int vs_store_pairs_put(sqlite3_stmt *const p[2], uint64_t variant,
                       const vs_pair_row *rows, int64_t n)
{
	int64_t i = 0;
	while (n - i >= PAIRS_PER_INSERT) {
		for (int k = 0; k < PAIRS_PER_INSERT; k++)
			bind(p[0], k * PAIR_COLS, variant, &rows[i + k]);
		int rc = sqlite3_step(p[0]);
		sqlite3_reset(p[0]);
		if (rc != SQLITE_DONE)
			return rc;
		i += PAIRS_PER_INSERT;
	}
	for (; i < n; i++) {
		bind(p[1], 0, variant, &rows[i]);
		int rc = sqlite3_step(p[1]);
		sqlite3_reset(p[1]);
		if (rc != SQLITE_DONE)
			return rc;
	}
	return SQLITE_DONE;
}
