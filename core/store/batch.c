/* Rows written several to an INSERT (batch.h). */
#include "store/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

char *vs_store_insert_sql(const char *table, int cols, int rows)
{
	size_t tuple = 2 * (size_t)cols + 2; /* "(?,?)" and a comma */
	size_t n = strlen(table) + 32 + (size_t)rows * tuple;
	char *sql = vs_xcalloc(1, n), *p = sql;
	p += sprintf(p, "INSERT OR FAIL INTO %s VALUES ", table);
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

int vs_batch_prepare(sqlite3 *db, const char *table, int cols, int per,
                     vs_batch *b)
{
	memset(b, 0, sizeof *b);
	/* as many rows as the build's parameter limit allows (999 at least) */
	int fit = sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, -1) / cols;
	b->per = per < fit ? per : fit > 1 ? fit : 1;
	b->cols = cols;
	const int rows[2] = {b->per, 1};
	for (int k = 0; k < 2; k++) {
		char *sql = vs_store_insert_sql(table, cols, rows[k]);
		int rc = sqlite3_prepare_v3(db, sql, -1,
		                            SQLITE_PREPARE_PERSISTENT, &b->s[k],
		                            NULL);
		free(sql);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

void vs_batch_finalize(vs_batch *b)
{
	sqlite3_finalize(b->s[0]);
	sqlite3_finalize(b->s[1]);
	memset(b, 0, sizeof *b);
}

int vs_batch_put(const vs_batch *b, int64_t n, vs_batch_bind bind,
                 const void *ctx)
{
	int64_t i = 0;
	for (int k = 0; k < 2; k++) {
		int per = k ? 1 : b->per;
		while (n - i >= per) {
			for (int j = 0; j < per; j++)
				bind(b->s[k], j * b->cols, i + j, ctx);
			int rc = sqlite3_step(b->s[k]);
			sqlite3_reset(b->s[k]);
			if (rc != SQLITE_DONE)
				return rc;
			i += per;
		}
	}
	return SQLITE_DONE;
}
