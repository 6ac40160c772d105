#include "store/merge.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

/* Identity keys every shard of one sweep shares (see runner.c's record). */
static const char *const identity[] = {
	"format", "vsweep_version", "scenario_text", "sweep_text", "step",
	"record_every", "record", "variant_count"};
#define N_IDENTITY (sizeof identity / sizeof identity[0])

typedef struct shard {
	const char *path;
	sqlite3 *db;
	unsigned long long k, n;
	long long stored;
} shard;

static int fail_db(vs_error *err, const char *path, sqlite3 *db,
                   const char *what)
{
	vs_error_set(err, "%s: %s: %s", path, what, sqlite3_errmsg(db));
	return -2;
}

/* The text form of a meta value, for comparing shards; NULL if absent. */
static char *meta_text(sqlite3 *db, const char *key)
{
	sqlite3_stmt *q = NULL;
	char *v = NULL;
	if (sqlite3_prepare_v2(db, "SELECT quote(value) FROM meta WHERE key = "
	                       "?", -1, &q, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = vs_strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return v;
}

static long long query_ll(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static int open_shard(shard *s, vs_error *err)
{
	if (access(s->path, R_OK) != 0) {
		vs_error_set(err, "%s: no such results file", s->path);
		return -1;
	}
	/* Read-write although only read: a read-only connection to a WAL
	 * file leaves its -wal and -shm behind. */
	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		return fail_db(err, s->path, s->db, "cannot open");
	char *sh = meta_text(s->db, "shard");
	if (!sh || sscanf(sh, "'%llu/%llu'", &s->k, &s->n) != 2 ||
	    s->k >= s->n) {
		free(sh);
		vs_error_set(err, "%s: not a vsweep results file (no shard "
		             "record)", s->path);
		return -1;
	}
	free(sh);
	s->stored = query_ll(s->db, "SELECT count(*) FROM variant");
	return 0;
}

/* Every shard belongs to the sweep of the first: same identity records,
 * same plugin builds, same N, each K once. */
static int check_shards(shard *s, int n, unsigned long long count,
                        int allow_partial, vs_error *err)
{
	for (int i = 1; i < n; i++) {
		for (size_t k = 0; k < N_IDENTITY; k++) {
			char *a = meta_text(s[0].db, identity[k]);
			char *b = meta_text(s[i].db, identity[k]);
			int differ = !a || !b || strcmp(a, b);
			free(a);
			free(b);
			if (differ) {
				vs_error_set(err, "%s: not a shard of the sweep "
				             "of %s: its %s differs", s[i].path,
				             s[0].path, identity[k]);
				return -1;
			}
		}
		const char *sql = "SELECT group_concat(name || ' ' || version "
		                  "|| ' ' || digest, ';') FROM (SELECT * FROM "
		                  "plugin ORDER BY name)";
		sqlite3_stmt *qa = NULL, *qb = NULL;
		sqlite3_prepare_v2(s[0].db, sql, -1, &qa, NULL);
		sqlite3_prepare_v2(s[i].db, sql, -1, &qb, NULL);
		int differ = sqlite3_step(qa) != SQLITE_ROW ||
		             sqlite3_step(qb) != SQLITE_ROW ||
		             strcmp((const char *)sqlite3_column_text(qa, 0),
		                    (const char *)sqlite3_column_text(qb, 0));
		sqlite3_finalize(qa);
		sqlite3_finalize(qb);
		if (differ) {
			vs_error_set(err, "%s: not a shard of the sweep of %s: "
			             "its plugin builds differ", s[i].path,
			             s[0].path);
			return -1;
		}
		if (s[i].n != s[0].n) {
			vs_error_set(err, "%s: shard %llu/%llu does not split "
			             "the sweep like %s (%llu/%llu)", s[i].path,
			             s[i].k, s[i].n, s[0].path, s[0].k, s[0].n);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (s[j].k == s[i].k) {
				vs_error_set(err, "%s: shard %llu/%llu is "
				             "already given as %s", s[i].path,
				             s[i].k, s[i].n, s[j].path);
				return -1;
			}
	}
	if (allow_partial)
		return 0;
	unsigned long long n_shards = s[0].n;
	if ((unsigned long long)n < n_shards) {
		for (unsigned long long k = 0; k < n_shards; k++) {
			int found = 0;
			for (int i = 0; i < n; i++)
				found |= s[i].k == k;
			if (!found) {
				vs_error_set(err, "shard %llu/%llu is missing; "
				             "give it, or --allow-partial to merge "
				             "what exists", k, n_shards);
				return -1;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		unsigned long long want =
			count > s[i].k ? (count - s[i].k - 1) / s[i].n + 1 : 0;
		if ((unsigned long long)s[i].stored != want) {
			vs_error_set(err, "%s: shard %llu/%llu holds %lld of its "
			             "%llu variants; finish it with run --resume, "
			             "or --allow-partial", s[i].path, s[i].k,
			             s[i].n, s[i].stored, want);
			return -1;
		}
	}
	return 0;
}

static int exec(sqlite3 *db, const char *path, const char *sql,
                vs_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		vs_error_set(err, "%s: %s", path, msg ? msg : "SQL error");
		sqlite3_free(msg);
		return -2;
	}
	return 0;
}

/* Copies the rows a SELECT on src returns into dst through an INSERT with
 * as many parameters as the SELECT has columns; values keep their types
 * and bits. */
static int copy_rows(sqlite3_stmt *sel, sqlite3_stmt *ins, int *rows)
{
	int n = sqlite3_column_count(sel), rc;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		for (int c = 0; c < n; c++)
			sqlite3_bind_value(ins, c + 1,
			                   sqlite3_column_value(sel, c));
		if (sqlite3_step(ins) != SQLITE_DONE) {
			sqlite3_reset(ins);
			return -1;
		}
		sqlite3_reset(ins);
		if (rows)
			(*rows)++;
	}
	sqlite3_reset(sel);
	return rc == SQLITE_DONE ? 0 : -1;
}

typedef struct stmts {
	sqlite3_stmt *variant, *state, *actor, *wheel; /* per shard */
} stmts;

static int prepare_shard(shard *s, stmts *q)
{
	return sqlite3_prepare_v2(s->db, "SELECT variant_id, status, error, "
	                          "params, wall_seconds, row_lo, row_hi FROM "
	                          "variant WHERE variant_id = ?", -1,
	                          &q->variant, NULL) ||
	       sqlite3_prepare_v2(s->db, "SELECT * FROM state WHERE rowid "
	                          "BETWEEN ? AND ? ORDER BY rowid", -1,
	                          &q->state, NULL) ||
	       sqlite3_prepare_v2(s->db, "SELECT * FROM actor WHERE "
	                          "variant_id = ?", -1, &q->actor, NULL) ||
	       sqlite3_prepare_v2(s->db, "SELECT * FROM wheel WHERE "
	                          "variant_id = ?", -1, &q->wheel, NULL);
}

static void finalize_shard(stmts *q)
{
	sqlite3_finalize(q->variant);
	sqlite3_finalize(q->state);
	sqlite3_finalize(q->actor);
	sqlite3_finalize(q->wheel);
}

/* Copies variant i from its shard; *copied 0 if the shard lacks it. */
static int copy_variant(stmts *q, sqlite3_stmt **ins,
                        long long i, long long *next_rowid, int *copied)
{
	*copied = 0;
	sqlite3_bind_int64(q->variant, 1, i);
	if (sqlite3_step(q->variant) != SQLITE_ROW) {
		sqlite3_reset(q->variant);
		return 0;
	}
	int has_rows = sqlite3_column_type(q->variant, 5) != SQLITE_NULL;
	long long lo = sqlite3_column_int64(q->variant, 5);
	long long hi = sqlite3_column_int64(q->variant, 6);
	int n = 0;
	if (has_rows) {
		sqlite3_bind_int64(q->state, 1, lo);
		sqlite3_bind_int64(q->state, 2, hi);
		if (copy_rows(q->state, ins[0], &n))
			goto fail;
	}
	sqlite3_bind_int64(q->actor, 1, i);
	sqlite3_bind_int64(q->wheel, 1, i);
	if (copy_rows(q->actor, ins[1], NULL) ||
	    copy_rows(q->wheel, ins[2], NULL))
		goto fail;
	/* The variant row, its rows renumbered to follow the previous one's,
	 * as the single writer of an unsharded run numbers them. */
	for (int c = 0; c < 5; c++)
		sqlite3_bind_value(ins[3], c + 1,
		                   sqlite3_column_value(q->variant, c));
	if (has_rows) {
		sqlite3_bind_int64(ins[3], 6, *next_rowid);
		sqlite3_bind_int64(ins[3], 7, *next_rowid + n - 1);
	} else {
		sqlite3_bind_null(ins[3], 6);
		sqlite3_bind_null(ins[3], 7);
	}
	int rc = sqlite3_step(ins[3]);
	sqlite3_reset(ins[3]);
	sqlite3_reset(q->variant);
	if (rc != SQLITE_DONE)
		return -1;
	*next_rowid += n;
	*copied = 1;
	return 0;
fail:
	sqlite3_reset(q->variant);
	return -1;
}

static int write_output(const char *tmp, shard *s, int n,
                        unsigned long long count, vs_merge_summary *sum,
                        vs_error *err)
{
	sqlite3 *out = NULL;
	sqlite3_stmt *ins[4] = {0};
	stmts *q = vs_xcalloc((size_t)n, sizeof *q);
	int rc = -2;
	if (sqlite3_open(tmp, &out) != SQLITE_OK) {
		rc = fail_db(err, tmp, out, "cannot create");
		goto done;
	}
	if (exec(out, tmp, "PRAGMA journal_mode = WAL; PRAGMA synchronous = "
	         "OFF; PRAGMA cache_size = -65536; BEGIN", err) ||
	    exec(out, tmp, vs_schema_sql, err) ||
	    exec(out, tmp, "PRAGMA user_version = 1", err))
		goto done;
	sqlite3_stmt *att = NULL;
	sqlite3_prepare_v2(out, "ATTACH DATABASE ? AS first", -1, &att, NULL);
	sqlite3_bind_text(att, 1, s[0].path, -1, SQLITE_STATIC);
	int arc = sqlite3_step(att);
	sqlite3_finalize(att);
	if (arc != SQLITE_DONE ||
	    exec(out, tmp, "INSERT INTO meta SELECT * FROM first.meta; "
	         "UPDATE meta SET value = '0/1' WHERE key = 'shard'; "
	         "INSERT INTO plugin SELECT * FROM first.plugin; COMMIT; "
	         "DETACH DATABASE first", err)) {
		if (!vs_error_is_set(err))
			fail_db(err, tmp, out, "copying the sweep record");
		goto done;
	}
	const char *ins_sql[4] = {
		"INSERT INTO state VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		"INSERT INTO actor VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		"INSERT INTO wheel VALUES (?,?,?,?,?,?,?,?)",
		"INSERT INTO variant VALUES (?,?,?,?,?,?,?)"};
	for (int i = 0; i < 4; i++)
		if (sqlite3_prepare_v2(out, ins_sql[i], -1, &ins[i], NULL)) {
			rc = fail_db(err, tmp, out, "preparing");
			goto done;
		}
	for (int i = 0; i < n; i++)
		if (prepare_shard(&s[i], &q[i])) {
			rc = fail_db(err, s[i].path, s[i].db, "reading");
			goto done;
		}
	long long next_rowid = 1;
	if (exec(out, tmp, "BEGIN", err))
		goto done;
	for (unsigned long long v = 0; v < count; v++) {
		unsigned long long k = v % s[0].n;
		int idx = -1, copied = 0;
		for (int i = 0; i < n; i++)
			if (s[i].k == k)
				idx = i;
		if (idx >= 0 && copy_variant(&q[idx], ins, (long long)v,
		                             &next_rowid, &copied)) {
			rc = fail_db(err, tmp, out, "copying a variant");
			goto done;
		}
		if (copied)
			sum->variants++;
		else
			sum->missing++;
		if ((v + 1) % 256 == 0 &&
		    exec(out, tmp, "COMMIT; BEGIN", err))
			goto done;
	}
	if (exec(out, tmp, "COMMIT", err))
		goto done;
	rc = 0;
done:
	for (int i = 0; i < n; i++)
		finalize_shard(&q[i]);
	free(q);
	for (int i = 0; i < 4; i++)
		sqlite3_finalize(ins[i]);
	if (out) {
		sqlite3_wal_checkpoint_v2(out, NULL, SQLITE_CHECKPOINT_TRUNCATE,
		                          NULL, NULL);
		if (sqlite3_close(out) != SQLITE_OK && rc == 0)
			rc = fail_db(err, tmp, out, "closing");
	}
	return rc;
}

static void remove_db(const char *path)
{
	char buf[4200];
	unlink(path);
	snprintf(buf, sizeof buf, "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof buf, "%s-shm", path);
	unlink(buf);
}

int vs_merge(const char *out, const char *const *paths, int n,
             int allow_partial, vs_merge_summary *sum, vs_error *err)
{
	memset(sum, 0, sizeof *sum);
	if (access(out, F_OK) == 0) {
		vs_error_set(err, "%s: exists; merge into a new file", out);
		return -1;
	}
	shard *s = vs_xcalloc((size_t)n, sizeof *s);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		s[i].path = paths[i];
		rc = open_shard(&s[i], err);
	}
	unsigned long long count = 0;
	if (!rc) {
		char *c = meta_text(s[0].db, "variant_count");
		count = c ? strtoull(c, NULL, 10) : 0;
		free(c);
		rc = check_shards(s, n, count, allow_partial, err);
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.partial-%ld", out, (long)getpid());
	if (!rc) {
		remove_db(tmp);
		rc = write_output(tmp, s, n, count, sum, err);
		if (rc == 0 && rename(tmp, out) != 0) {
			vs_error_set(err, "%s: cannot rename %s into place", out,
			             tmp);
			rc = -2;
		}
		if (rc)
			remove_db(tmp);
	}
	sum->shards = n;
	for (int i = 0; i < n; i++)
		sqlite3_close(s[i].db);
	free(s);
	return rc;
}
