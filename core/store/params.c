/* The actors' plugin parameters (table actor_param): what the seed
 * scenario sets each to, with the plugin's unit and range, so that a
 * swept member of a variant's params has a unit (the report shows it). */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "store/store.h"
#include "store/store_internal.h"

char *vs_schema_statement(const char *head)
{
	const char *s = strstr(vs_schema_sql, head);
	if (!s)
		return NULL;
	/* its ';', not one in a comment or a string */
	const char *end = s;
	while (*end && *end != ';') {
		if (end[0] == '-' && end[1] == '-') {
			end += strcspn(end, "\n");
		} else if (*end == '\'') {
			end = strchr(end + 1, '\''); /* '' inside: two strings */
			if (!end)
				return NULL;
			end++;
		} else {
			end++;
		}
	}
	if (!*end)
		return NULL;
	char *out = vs_xcalloc(1, (size_t)(end - s) + 2);
	memcpy(out, s, (size_t)(end - s) + 1);
	return out;
}

static void bind_bound(sqlite3_stmt *q, int col, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, col, v);
	else
		sqlite3_bind_null(q, col);
}

/* The table, made when the file was written by a build before it. */
static vs_rc make_table(vs_store *st, vs_error *err)
{
	sqlite3_stmt *q = NULL;
	int have = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_master "
	                       "WHERE type = 'table' AND name = 'actor_param'",
	                       -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		return vs_store_db_fail(st, err, "reading the schema");
	}
	have = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (have)
		return VS_RC_OK;
	char *sql = vs_schema_statement("CREATE TABLE actor_param");
	if (!sql) {
		vs_error_set(err, "%s: no actor_param table in the schema",
		             st->path);
		return VS_RC_IO;
	}
	vs_rc rc = vs_store_exec(st, sql, err);
	free(sql);
	return rc;
}

static vs_rc insert(vs_store *st, const vs_actor_param_row *p, int n,
                    vs_error *err)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO actor_param VALUES "
	                       "(?,?,?,?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return vs_store_db_fail(st, err, "preparing a statement");
	for (int i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, p[i].actor_id);
		sqlite3_bind_text(q, 2, p[i].role, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, p[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, p[i].plugin, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, p[i].unit ? p[i].unit : "", -1,
		                  SQLITE_STATIC);
		sqlite3_bind_double(q, 6, p[i].value);
		bind_bound(q, 7, p[i].min);
		bind_bound(q, 8, p[i].max);
		sqlite3_bind_text(q, 9, p[i].doc ? p[i].doc : "", -1,
		                  SQLITE_STATIC);
		int rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE) {
			/* said first: the finalize would clear the message */
			vs_store_db_fail(st, err, "writing the actors' plugin "
			                 "parameters");
			sqlite3_finalize(q);
			return VS_RC_IO;
		}
	}
	sqlite3_finalize(q);
	return VS_RC_OK;
}

vs_rc vs_store_set_actor_params(vs_store *st, const vs_actor_param_row *p,
                                int n, vs_error *err)
{
	if (vs_store_exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	vs_rc rc = make_table(st, err);
	sqlite3_stmt *q = NULL;
	int have = 0;
	if (!rc && sqlite3_prepare_v2(st->db, "SELECT count(*) FROM actor_param",
	                              -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		have = sqlite3_column_int(q, 0);
	else if (!rc)
		rc = vs_store_db_fail(st, err, "reading actor_param");
	sqlite3_finalize(q);
	/* A resumed file keeps its rows: its plugin builds and its seed are
	 * this run's (vs_store_open checked them). */
	if (!rc && !have)
		rc = insert(st, p, n, err);
	if (rc) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return vs_store_exec(st, "COMMIT", err);
}
