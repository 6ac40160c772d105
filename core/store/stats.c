/* The query planner's statistics of a finished results file (stats.h).
 *
 * sqlite_stat1 holds, per table and index, "N d1 d2 ... 1": N rows, and
 * for each prefix of the key the rows per distinct value of that prefix,
 * rounded up (SQLite's ANALYZE: (N + distinct - 1) / distinct, a 2 from
 * at most 1.1 written as 1). For
 * state's key (variant_id, actor_id, step) that is N, the rows per
 * variant, the rows per (variant, actor), and 1 (the key is unique).
 * Counting the rows walks the b-tree's pages without decoding a record;
 * the (variant, actor) pairs that have rows are found by hopping along
 * the key, one probe per pair. Reading all of state, as ANALYZE does,
 * would take about 1 s per 10 M actor-steps. */
#include "store/stats.h"

#include <stdint.h>
#include <stdio.h>

/* The tables of one row per variant, actor, wheel, event, lane or signal
 * name (a few per variant): ANALYZE reads them in a fraction of the time
 * the sweep took to write them. */
static const char *const small_tables[] = {
	"meta", "plugin", "variant", "actor", "wheel", "event_row",
	"summary", "lane", "signal_name", "actor_param"};

static vs_rc fail(sqlite3 *db, const char *path, const char *what,
                  vs_error *err)
{
	vs_error_set(err, "%s: %s: %s", path, what, sqlite3_errmsg(db));
	return VS_RC_IO;
}

static vs_rc exec(sqlite3 *db, const char *path, const char *sql,
                  vs_error *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, path, "writing the statistics", err);
	return VS_RC_OK;
}

/* Steps q (bound by the caller) to its row: 1 with the row, 0 without,
 * -1 on failure. */
static int row(sqlite3_stmt *q)
{
	int rc = sqlite3_step(q);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Counts state's rows (*n, unless known >= 0: then known), and the
 * variants (*v) and (variant, actor) pairs (*va) that have rows: from
 * each pair to the next by one key probe, the next actor of the variant
 * or else the next variant's first. */
static vs_rc count_state(sqlite3 *db, const char *path, int64_t known,
                         int64_t *n, int64_t *v, int64_t *va, vs_error *err)
{
	sqlite3_stmt *q[3] = {NULL, NULL, NULL};
	static const char *const sql[3] = {
		"SELECT count(*) FROM state",
		"SELECT actor_id FROM state WHERE variant_id = ?1 AND "
		"actor_id > ?2 ORDER BY actor_id LIMIT 1",
		"SELECT variant_id, actor_id FROM state WHERE variant_id > ?1 "
		"ORDER BY variant_id, actor_id LIMIT 1"};
	int ok = 1;
	for (int i = 0; i < 3 && ok; i++)
		ok = sqlite3_prepare_v2(db, sql[i], -1, &q[i], NULL) == SQLITE_OK;
	*n = known;
	*v = *va = 0;
	if (ok && known < 0) {
		ok = row(q[0]) == 1;
		if (ok)
			*n = sqlite3_column_int64(q[0], 0);
	}
	int64_t var = INT64_MIN, actor = 0;
	int more = 0; /* the last probe: 1 a row, 0 none, -1 failed */
	while (ok) {
		sqlite3_reset(q[1]);
		sqlite3_bind_int64(q[1], 1, var);
		sqlite3_bind_int64(q[1], 2, actor);
		more = var == INT64_MIN ? 0 : row(q[1]);
		if (more == 1) {
			actor = sqlite3_column_int64(q[1], 0);
			++*va;
			continue;
		}
		sqlite3_reset(q[2]);
		sqlite3_bind_int64(q[2], 1, var);
		if (more < 0 || (more = row(q[2])) <= 0)
			break;
		var = sqlite3_column_int64(q[2], 0);
		actor = sqlite3_column_int64(q[2], 1);
		++*v;
		++*va;
	}
	vs_rc rc = ok && more == 0 ? VS_RC_OK
	                           : fail(db, path, "counting state rows", err);
	for (int i = 0; i < 3; i++)
		sqlite3_finalize(q[i]);
	return rc;
}

/* Rows per distinct value as ANALYZE writes it: rounded up, except that
 * a 2 from at most 1.1 rows per value is written as 1. */
static int64_t per(int64_t n, int64_t distinct)
{
	int64_t v = (n + distinct - 1) / distinct;
	return v == 2 && n * 10 <= distinct * 11 ? 1 : v;
}

static vs_rc state_row(sqlite3 *db, const char *path, int64_t known,
                       vs_error *err)
{
	int64_t n, v, va;
	vs_rc rc = count_state(db, path, known, &n, &v, &va, err);
	if (!rc)
		rc = exec(db, path, "DELETE FROM sqlite_stat1 WHERE tbl = 'state'",
		          err);
	if (rc || n == 0)
		return rc; /* nothing stored: SQLite's defaults */
	char stat[96];
	snprintf(stat, sizeof stat, "%lld %lld %lld 1", (long long)n,
	         (long long)per(n, v), (long long)per(n, va));
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db, "INSERT INTO sqlite_stat1 VALUES "
	                       "('state', 'state', ?)", -1, &q, NULL) != SQLITE_OK)
		return fail(db, path, "writing the statistics", err);
	sqlite3_bind_text(q, 1, stat, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(q) != SQLITE_DONE)
		rc = fail(db, path, "writing the statistics", err);
	sqlite3_finalize(q);
	return rc;
}

vs_rc vs_store_stats_write(sqlite3 *db, const char *path, int64_t state_rows,
                           vs_error *err)
{
	/* ANALYZE of the schema table alone creates sqlite_stat1, empty. */
	vs_rc rc = exec(db, path, "ANALYZE sqlite_schema", err);
	for (size_t i = 0; !rc && i < sizeof small_tables / sizeof *small_tables;
	     i++) {
		char sql[64];
		snprintf(sql, sizeof sql, "ANALYZE \"%s\"", small_tables[i]);
		rc = exec(db, path, sql, err);
	}
	return rc ? rc : state_row(db, path, state_rows, err);
}
