/* `vsweep merge` (and vsweep-mpi's last step): joins the files of one
 * sweep, written by `run --shard K/N` or by vsweep-mpi's ranks ("part R"),
 * into one results file whose stored rows are a single run's. Called by
 * tools/vsweep/main.c and tools/vsweep-mpi/main.c; vsweep-mpi's parts code
 * also reads a file's variant ids through vs_merge_each_variant.
 *
 * Invariants:
 * - The inputs are only read. They belong to one sweep: every identity
 *   key record.c marks as the sweep's, and the plugin builds, equal the
 *   first file's; all shards of one N or all parts, each given once.
 * - Variants are copied in ascending index, each from the one file that
 *   holds it (shards: K = i mod N; parts: the file whose next id is i).
 * - Key order: each table is filled in the order one writer storing the
 *   variants in index order fills it, as an unsharded run does; the
 *   state rows of a variant come in their key order, so they land at the
 *   b-tree's right edge.
 * - The output is written under OUT.partial-PID, synced, and linked to
 *   OUT only when complete: OUT is never half-written, never replaced.
 *   A stop (vs_merge_stop) or a failure removes it.
 * - One snapshot per input: its own connection holds a read transaction
 *   from its first read to its close, so its counts, its variant rows
 *   and the order of its rows are those of one moment, even while a run
 *   still writes it (--allow-partial). The rows copied inside SQLite are
 *   read on the output's connection, at that moment or later; a run
 *   commits a variant's rows with its variant row and never changes
 *   them, and the rows committed after that moment lie after all others
 *   by rowid: a variant whose row the snapshot holds has the same rows
 *   there. So what is merged is the file as it stood at that moment. */
#include "store/merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/test_hooks.h"
#include "common/util.h"
#include "store/merge_inputs.h"
#include "store/stats.h"
#include "store/store.h"
#include "store/units.h"

volatile sig_atomic_t vs_merge_stop;

static vs_rc exec(sqlite3 *db, const char *path, const char *sql,
		  vs_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		vs_error_set(err, "%s: %s", path, msg ? msg : "SQL error");
		sqlite3_free(msg);
		return VS_RC_IO;
	}
	return VS_RC_OK;
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

/* SQL: whether sqlite_master row m is a table with a variant_id column
 * (qualified: inside pragma_table_info, a bare `name` is its own). */
#define HAS_VARIANT_ID \
	"EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS p WHERE p.name " \
	"= 'variant_id')"

/* A table copied variant by variant: it has a variant_id column. Found
 * in the schema rather than listed, so a table added to it is merged
 * without touching this file. `variant` and `state` are handled apart:
 * state, the bulk of the file, is copied inside SQLite when it can be,
 * and the variant row goes last, as the writer stores it. */
typedef struct vtable {
	char *name;
	int n_cols;
	int vcol;                /* variant_id's column, 0.. */
	sqlite3_stmt *ins;       /* into the output */
} vtable;

typedef struct copier {
	sqlite3 *out;
	const char *tmp;
	vtable *t;
	int n_t;
	sqlite3_stmt *ins_state, *ins_variant;
	int n_state_cols, n_variant_cols;
} copier;

typedef struct stmts {       /* one shard's reads */
	sqlite3_stmt *variant, *state;
	/* On the output's connection, the shard attached: copies a variant's
	 * state rows inside SQLite, ~3x cheaper than row by row through the
	 * API.
	 * NULL when the shards outnumber SQLite's attach limit. */
	sqlite3_stmt *state_in;
	sqlite3_stmt **rows;     /* per vtable: WHERE variant_id = ? */
	/* Per vtable with rowids, when the shard stores its rows in variant
	 * order (as vsweep writes them): rowid, then the row, from *next on;
	 * each variant's rows are read once, where its WHERE would read the
	 * whole table (event, signal and log rows of files written before
	 * their variant_id index). NULL: read by rows[]. */
	sqlite3_stmt **after;
	int64_t *next;           /* the first rowid not yet copied */
	/* The same inside SQLite, on the output's connection with the shard
	 * attached (as state_in): the first rowid of a later variant, and
	 * the copy of the rows before it; for a table keyed by variant_id,
	 * end_in NULL and copy_in its key range. NULL when not attached. */
	sqlite3_stmt **end_in, **copy_in;
	int n_rows;
} stmts;

static int n_columns(sqlite3 *db, const char *table)
{
	sqlite3_stmt *q = NULL;
	int n = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info(?)",
	                       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int(q, 0);
	}
	sqlite3_finalize(q);
	return n;
}

/* The index of table's variant_id column (0..), or 0. */
static int variant_column(sqlite3 *db, const char *table)
{
	sqlite3_stmt *q = NULL;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT cid FROM pragma_table_info(?) WHERE "
	                       "name = 'variant_id'", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int(q, 0);
	}
	sqlite3_finalize(q);
	return n;
}

static sqlite3_stmt *prepare_insert(sqlite3 *db, const char *table, int n)
{
	size_t len = strlen(table) + 32 + 2 * (size_t)n;
	char *sql = vs_xcalloc(1, len);
	int at = snprintf(sql, len, "INSERT INTO \"%s\" VALUES (", table);
	for (int i = 0; i < n; i++)
		at += snprintf(sql + at, len - (size_t)at, i ? ",?" : "?");
	snprintf(sql + at, len - (size_t)at, ")");
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		q = NULL;
	free(sql);
	return q;
}

/* Reads the output's schema: which tables go per variant, which whole. */
static vs_rc setup_copier(copier *c, vs_error *err)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(c->out, "SELECT m.name, " HAS_VARIANT_ID " FROM "
	                       "sqlite_master AS m WHERE m.type = 'table' AND "
	                       "m.name NOT LIKE 'sqlite_%' ORDER BY m.name", -1,
	                       &q, NULL) != SQLITE_OK)
		return merge_fail_db(err, c->tmp, c->out, "reading the schema");
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		if (!sqlite3_column_int(q, 1) || !strcmp(name, "variant") ||
		    !strcmp(name, "state"))
			continue;
		c->t = vs_xrealloc(c->t, (size_t)(c->n_t + 1) * sizeof *c->t);
		vtable *t = &c->t[c->n_t++];
		memset(t, 0, sizeof *t);
		t->name = vs_strdup(name);
	}
	sqlite3_finalize(q);
	for (int i = 0; i < c->n_t; i++) {
		vtable *t = &c->t[i];
		t->n_cols = n_columns(c->out, t->name);
		t->vcol = variant_column(c->out, t->name);
		t->ins = prepare_insert(c->out, t->name, t->n_cols);
		if (!t->ins)
			return merge_fail_db(err, c->tmp, c->out, "preparing");
	}
	c->n_state_cols = n_columns(c->out, "state");
	c->n_variant_cols = n_columns(c->out, "variant");
	c->ins_state = prepare_insert(c->out, "state", c->n_state_cols);
	c->ins_variant = prepare_insert(c->out, "variant", c->n_variant_cols);
	if (!c->ins_state || !c->ins_variant)
		return merge_fail_db(err, c->tmp, c->out, "preparing");
	return VS_RC_OK;
}

static void finish_copier(copier *c)
{
	for (int i = 0; i < c->n_t; i++) {
		free(c->t[i].name);
		sqlite3_finalize(c->t[i].ins);
	}
	free(c->t);
	sqlite3_finalize(c->ins_state);
	sqlite3_finalize(c->ins_variant);
}

/* A SELECT on a shard whose columns must be the output table's. */
static vs_rc prepare_read(shard *s, const char *sql, int n_cols,
			  const char *table, sqlite3_stmt **q, vs_error *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, q, NULL) != SQLITE_OK)
		return merge_fail_db(err, s->path, s->db, "reading");
	if (sqlite3_column_count(*q) != n_cols) {
		vs_error_set(err, "%s: its table %s is not this vsweep's (%d "
		             "columns, not %d)", s->path, table,
		             sqlite3_column_count(*q), n_cols);
		return VS_RC_INPUT;
	}
	return VS_RC_OK;
}

/* The streaming read of table on shard s (stmts.after), or *q NULL when
 * the shard's rows are not in variant order by rowid. */
static vs_rc prepare_stream(shard *s, const char *table, sqlite3_stmt **q,
                            int64_t *next, vs_error *err)
{
	/* One pass over the variant_id column (a window function's lag()
	 * took 10x as long). */
	char sql[320];
	snprintf(sql, sizeof sql, "SELECT variant_id FROM \"%s\" ORDER BY "
	         "rowid", table);
	sqlite3_stmt *chk = NULL;
	int disordered = 0, rc = SQLITE_ERROR;
	if (sqlite3_prepare_v2(s->db, sql, -1, &chk, NULL) == SQLITE_OK) {
		int64_t last = INT64_MIN;
		while ((rc = sqlite3_step(chk)) == SQLITE_ROW) {
			int64_t v = sqlite3_column_int64(chk, 0);
			if (v < last) {
				disordered = 1;
				rc = SQLITE_DONE;
				break;
			}
			last = v;
		}
	}
	sqlite3_finalize(chk);
	if (rc != SQLITE_DONE)
		return merge_fail_db(err, s->path, s->db, "reading");
	*next = INT64_MIN;
	if (disordered)
		return VS_RC_OK;
	snprintf(sql, sizeof sql, "SELECT rowid, * FROM \"%s\" WHERE rowid >= "
	         "? ORDER BY rowid", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, q, NULL) != SQLITE_OK)
		return merge_fail_db(err, s->path, s->db, "reading");
	return VS_RC_OK;
}

/* Copies variant i's rows from a streaming read (prepare_stream) into
 * ins: those from *next on up to the first row of a later variant, where
 * *next then points (rows of an earlier variant, which no merged variant
 * row claims, are passed over). 0, or -1 on a SQLite failure. */
static int copy_streamed(sqlite3_stmt *sel, sqlite3_stmt *ins, int vcol,
                         long long i, int64_t *next)
{
	sqlite3_bind_int64(sel, 1, *next);
	int n = sqlite3_column_count(sel) - 1, rc;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t v = sqlite3_column_int64(sel, 1 + vcol);
		if (v < i)
			continue; /* a variant not merged: no row of it stored */
		if (v > i) {
			*next = sqlite3_column_int64(sel, 0);
			break;
		}
		for (int c = 0; c < n; c++)
			sqlite3_bind_value(ins, c + 1,
			                   sqlite3_column_value(sel, c + 1));
		int irc = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (irc != SQLITE_DONE) {
			sqlite3_reset(sel);
			return -1;
		}
	}
	if (rc == SQLITE_DONE)
		*next = INT64_MAX; /* nothing after */
	sqlite3_reset(sel);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* copy_streamed inside SQLite: end finds the first rowid from *next on
 * of a later variant than i, copy moves variant i's rows before it. */
static int copy_streamed_in(sqlite3_stmt *end, sqlite3_stmt *copy,
                            long long i, int64_t *next)
{
	sqlite3_bind_int64(end, 1, *next);
	sqlite3_bind_int64(end, 2, i);
	int rc = sqlite3_step(end);
	int64_t stop = rc == SQLITE_ROW ? sqlite3_column_int64(end, 0)
	                                : INT64_MAX;
	sqlite3_reset(end);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	sqlite3_bind_int64(copy, 1, *next);
	sqlite3_bind_int64(copy, 2, i);
	sqlite3_bind_int64(copy, 3, stop);
	rc = sqlite3_step(copy);
	sqlite3_reset(copy);
	*next = stop;
	return rc == SQLITE_DONE ? 0 : -1;
}

static vs_rc prepare_shard(shard *s, const copier *c, stmts *q, vs_error *err)
{
	q->rows = vs_xcalloc((size_t)c->n_t + 1, sizeof *q->rows);
	q->after = vs_xcalloc((size_t)c->n_t + 1, sizeof *q->after);
	q->next = vs_xcalloc((size_t)c->n_t + 1, sizeof *q->next);
	q->end_in = vs_xcalloc((size_t)c->n_t + 1, sizeof *q->end_in);
	q->copy_in = vs_xcalloc((size_t)c->n_t + 1, sizeof *q->copy_in);
	q->n_rows = c->n_t;
	vs_rc rc = prepare_read(s, "SELECT * FROM variant WHERE variant_id = ?",
	                      c->n_variant_cols, "variant", &q->variant, err);
	if (!rc)
		rc = prepare_read(s, "SELECT * FROM state WHERE variant_id = ? "
		                  "ORDER BY actor_id, step", c->n_state_cols,
		                  "state", &q->state, err);
	for (int i = 0; i < c->n_t && !rc; i++) {
		/* The shard's own layout: a rowid table (event and log rows,
		 * and signal rows of files written before their key) is read
		 * in rowid order, as written; a keyed one in its key's. */
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT rowid FROM \"%s\"",
		         c->t[i].name);
		sqlite3_stmt *r = NULL;
		int rowid = sqlite3_prepare_v2(s->db, sql, -1, &r, NULL) ==
		            SQLITE_OK;
		sqlite3_finalize(r);
		snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" WHERE "
		         "variant_id = ?%s", c->t[i].name,
		         rowid ? " ORDER BY rowid" : "");
		rc = prepare_read(s, sql, c->t[i].n_cols, c->t[i].name,
		                  &q->rows[i], err);
		if (!rc && rowid)
			rc = prepare_stream(s, c->t[i].name, &q->after[i],
			                    &q->next[i], err);
	}
	if (!rc && s->is_part) {
		if (sqlite3_prepare_v2(s->db, "SELECT variant_id FROM variant "
		                       "ORDER BY variant_id", -1, &s->ids,
		                       NULL) != SQLITE_OK)
			return merge_fail_db(err, s->path, s->db, "reading");
		s->head = sqlite3_step(s->ids) == SQLITE_ROW
		                  ? sqlite3_column_int64(s->ids, 0)
		                  : -1;
	}
	return rc;
}

static void finalize_shard(shard *s, stmts *q)
{
	sqlite3_finalize(q->variant);
	sqlite3_finalize(q->state);
	sqlite3_finalize(q->state_in);
	for (int i = 0; q->rows && i < q->n_rows; i++) {
		sqlite3_finalize(q->rows[i]);
		sqlite3_finalize(q->after[i]);
		sqlite3_finalize(q->end_in[i]);
		sqlite3_finalize(q->copy_in[i]);
	}
	free(q->rows);
	free(q->after);
	free(q->next);
	free(q->end_in);
	free(q->copy_in);
	sqlite3_finalize(s->ids);
	s->ids = NULL;
}

/* Copies variant i from the file that should hold it: 0 when copied,
 * 1 when the file lacks it (an incomplete shard, merged with
 * --allow-partial), -1 on a SQLite failure. */
static int copy_variant(copier *c, stmts *q, long long i)
{
	sqlite3_stmt *v = q->variant;
	sqlite3_bind_int64(v, 1, i);
	int step = sqlite3_step(v);
	if (step != SQLITE_ROW) {
		sqlite3_reset(v);
		return step == SQLITE_DONE ? 1 : -1;
	}
	if (q->state_in) {
		sqlite3_bind_int64(q->state_in, 1, i);
		int rc = sqlite3_step(q->state_in);
		sqlite3_reset(q->state_in);
		if (rc != SQLITE_DONE)
			goto fail;
	} else {
		sqlite3_bind_int64(q->state, 1, i);
		if (copy_rows(q->state, c->ins_state, NULL))
			goto fail;
	}
	for (int t = 0; t < q->n_rows; t++) {
		if (q->copy_in[t] && !q->end_in[t]) {
			sqlite3_bind_int64(q->copy_in[t], 2, i);
			int rc = sqlite3_step(q->copy_in[t]);
			sqlite3_reset(q->copy_in[t]);
			if (rc != SQLITE_DONE)
				goto fail;
			continue;
		}
		if (q->copy_in[t]) {
			if (copy_streamed_in(q->end_in[t], q->copy_in[t], i,
			                     &q->next[t]))
				goto fail;
			continue;
		}
		if (q->after[t]) {
			if (copy_streamed(q->after[t], c->t[t].ins, c->t[t].vcol,
			                  i, &q->next[t]))
				goto fail;
			continue;
		}
		sqlite3_bind_int64(q->rows[t], 1, i);
		if (copy_rows(q->rows[t], c->t[t].ins, NULL))
			goto fail;
	}
	for (int col = 0; col < c->n_variant_cols; col++)
		sqlite3_bind_value(c->ins_variant, col + 1,
		                   sqlite3_column_value(v, col));
	int rc = sqlite3_step(c->ins_variant);
	sqlite3_reset(c->ins_variant);
	sqlite3_reset(v);
	return rc == SQLITE_DONE ? 0 : -1;
fail:
	sqlite3_reset(v);
	return -1;
}

/* Which file holds variant v, -1 if none: shards by K = v mod N; parts by
 * walking their ascending ids, a variant in two parts being an error. */
static vs_rc holder(shard *s, int n, unsigned long long v, int *idx,
		    vs_error *err)
{
	*idx = -1;
	for (int i = 0; i < n; i++) {
		if (s[i].is_part ? s[i].head != (long long)v
		                 : s[i].k != v % s[i].n)
			continue;
		if (*idx >= 0) {
			vs_error_set(err, "variant %llu is in both %s and %s; "
			             "merge one of them", v, s[*idx].path,
			             s[i].path);
			return VS_RC_INPUT;
		}
		*idx = i;
	}
	return VS_RC_OK;
}

static vs_rc copy_all(copier *c, shard *s, stmts *q, int n,
		      unsigned long long count, int allow_partial,
		      vs_merge_summary *sum, vs_error *err)
{
	if (exec(c->out, c->tmp, "BEGIN", err))
		return VS_RC_IO;
	for (unsigned long long v = 0; v < count; v++) {
		int idx;
		if (vs_merge_stop)
			return VS_RC_INTERRUPTED;
		if (holder(s, n, v, &idx, err))
			return VS_RC_INPUT;
		int got = idx < 0 ? 1 : copy_variant(c, &q[idx], (long long)v);
		if (got < 0)
			return merge_fail_db(err, c->tmp, c->out, "copying a variant");
		if (got > 0) {
			if (s[0].is_part && !allow_partial) {
				vs_error_set(err, "variant %llu is in no part; "
				             "finish them with vsweep-mpi run "
				             "--resume, or --allow-partial", v);
				return VS_RC_INPUT;
			}
			sum->missing++;
		} else if (++sum->variants == 1) {
			vs_test_merge_gate(&vs_merge_stop); /* test_hooks.h */
		}
		if (idx >= 0 && s[idx].is_part)
			s[idx].head = sqlite3_step(s[idx].ids) == SQLITE_ROW
			                      ? sqlite3_column_int64(s[idx].ids, 0)
			                      : -1;
		if ((v + 1) % 256 == 0 &&
		    exec(c->out, c->tmp, "COMMIT; BEGIN", err))
			return VS_RC_IO;
	}
	for (int i = 0; i < n; i++)
		if (s[i].is_part && s[i].head != -1) {
			vs_error_set(err, "%s: holds variant %lld, not one of the "
			             "sweep's %llu", s[i].path, s[i].head, count);
			return VS_RC_INPUT;
		}
	return exec(c->out, c->tmp, "COMMIT", err);
}

/* The merged file's shard record: one unsharded run's, "0/1". */
static vs_rc set_unsharded(copier *c, vs_error *err)
{
	char label[64];
	vs_store_shard_label(label, sizeof label, 0, 1);
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(c->out, "UPDATE meta SET value = ? WHERE key = "
	                       "'shard'", -1, &q, NULL) != SQLITE_OK)
		return merge_fail_db(err, c->tmp, c->out, "writing the sweep record");
	sqlite3_bind_text(q, 1, label, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	sqlite3_finalize(q);
	/* the merged file is a file of its own: not the first shard's */
	char id[40];
	vs_store_new_file_id(id);
	q = NULL;
	if (rc == SQLITE_DONE &&
	    sqlite3_prepare_v2(c->out, "INSERT OR REPLACE INTO meta VALUES "
	                       "('file_id', ?)", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(q);
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_ERROR;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return merge_fail_db(err, c->tmp, c->out, "writing the sweep record");
	return exec(c->out, c->tmp, "COMMIT", err);
}

/* The name main.signal_name holds under id (*name owned, NULL: none), or
 * the id it holds name under (-1: none): one of the two per call. */
static int64_t name_lookup(sqlite3_stmt *q, const char *name, int64_t id,
                           char **found)
{
	if (name)
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(q, 1, id);
	int64_t r = -1;
	if (sqlite3_step(q) == SQLITE_ROW) {
		if (name)
			r = sqlite3_column_int64(q, 0);
		else
			*found = vs_strdup((const char *)sqlite3_column_text(q, 0));
	}
	sqlite3_reset(q);
	return r;
}

/* File s's names into main.signal_name under s's ids, each with the unit
 * s knows for it. A name main holds under another id, or an id main
 * gives another name, cannot keep s's rows' name ids: refused. */
static vs_rc add_signal_names(copier *c, const shard *s, sqlite3_stmt **q,
                              vs_error *err)
{
	vs_unit_list l;
	if (vs_unit_list_read(s->db, &l) != SQLITE_OK)
		return merge_fail_db(err, s->path, s->db, "reading signal names");
	vs_rc rc = VS_RC_OK;
	for (int k = 0; k < l.n && !rc; k++) {
		char *other = NULL;
		int64_t id = name_lookup(q[0], l.name[k], 0, NULL);
		if (id < 0)
			name_lookup(q[1], NULL, l.id[k], &other);
		if (id >= 0 && id != l.id[k]) {
			vs_error_set(err, "%s: signal %s has id %lld here and "
			             "%lld in an earlier input: the inputs are "
			             "not shards of one sweep", s->path, l.name[k],
			             (long long)l.id[k], (long long)id);
			rc = VS_RC_INPUT;
		} else if (other) {
			vs_error_set(err, "%s: signal id %lld is %s here and %s "
			             "in an earlier input: the inputs are not "
			             "shards of one sweep", s->path,
			             (long long)l.id[k], l.name[k], other);
			rc = VS_RC_INPUT;
		} else if (id < 0) {
			sqlite3_bind_int64(q[2], 1, l.id[k]);
			sqlite3_bind_text(q[2], 2, l.name[k], -1, SQLITE_STATIC);
			if (sqlite3_step(q[2]) != SQLITE_DONE)
				rc = merge_fail_db(err, c->tmp, c->out,
				                   "writing signal names");
			sqlite3_reset(q[2]);
		}
		if (!rc && l.unit[k]) {
			sqlite3_bind_text(q[3], 1, l.name[k], -1, SQLITE_STATIC);
			sqlite3_bind_text(q[3], 2, l.unit[k], -1, SQLITE_STATIC);
			if (sqlite3_step(q[3]) != SQLITE_DONE)
				rc = merge_fail_db(err, c->tmp, c->out,
				                   "writing signal units");
			sqlite3_reset(q[3]);
		}
		free(other);
	}
	vs_unit_list_free(&l);
	return rc;
}

/* The union of the files' signal names, each under the id the files give
 * it, with the unit any file knows for it (merge_check_shards saw that
 * no two differ; '' where none does, files written before units were
 * stored). Every file whose variants simulated numbers the names alike
 * (signals.h); a file whose variants all failed before simulating has
 * none, and may come first. */
static vs_rc copy_signal_names(copier *c, shard *s, int n, vs_error *err)
{
	static const char *const sql[4] = {
		"SELECT id FROM main.signal_name WHERE name = ?1",
		"SELECT name FROM main.signal_name WHERE id = ?1",
		"INSERT INTO main.signal_name (id, name) VALUES (?1, ?2)",
		"UPDATE main.signal_name SET unit = ?2 WHERE name = ?1"};
	sqlite3_stmt *q[4] = {NULL};
	vs_rc rc = VS_RC_OK;
	for (int k = 0; k < 4 && !rc; k++)
		if (sqlite3_prepare_v2(c->out, sql[k], -1, &q[k], NULL) !=
		    SQLITE_OK)
			rc = merge_fail_db(err, c->tmp, c->out, "preparing");
	for (int i = 0; i < n && !rc; i++)
		rc = add_signal_names(c, &s[i], q, err);
	for (int k = 0; k < 4; k++)
		sqlite3_finalize(q[k]);
	return rc;
}

/* Tables without a variant_id (meta, plugin, ...): the first file's;
 * signal names with every file's units (copy_signal_names). */
static vs_rc copy_sweep_record(copier *c, shard *s, int n, vs_error *err)
{
	const shard *first = &s[0];
	sqlite3_stmt *att = NULL;
	sqlite3_prepare_v2(c->out, "ATTACH DATABASE ? AS first", -1, &att,
	                   NULL);
	sqlite3_bind_text(att, 1, first->path, -1, SQLITE_STATIC);
	int arc = sqlite3_step(att);
	sqlite3_finalize(att);
	if (arc != SQLITE_DONE)
		return merge_fail_db(err, c->tmp, c->out, "copying the sweep record");
	sqlite3_stmt *q = NULL;
	vs_rc rc = VS_RC_OK;
	if (sqlite3_prepare_v2(c->out, "SELECT m.name FROM main.sqlite_master "
	                       "AS m WHERE m.type = 'table' AND m.name NOT LIKE "
	                       "'sqlite_%' AND m.name != 'state' AND NOT "
	                       HAS_VARIANT_ID, -1, &q, NULL) != SQLITE_OK)
		rc = merge_fail_db(err, c->tmp, c->out, "reading the schema");
	while (!rc && sqlite3_step(q) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);
		if (!strcmp(t, "signal_name"))
			continue;
		char sql[256];
		snprintf(sql, sizeof sql, "INSERT INTO main.\"%s\" SELECT * "
		         "FROM first.\"%s\"", t, t);
		rc = exec(c->out, c->tmp, sql, err);
	}
	sqlite3_finalize(q);
	if (!rc)
		rc = copy_signal_names(c, s, n, err);
	if (!rc)
		rc = set_unsharded(c, err);
	if (exec(c->out, c->tmp, "DETACH DATABASE first", err) && !rc)
		rc = VS_RC_IO;
	return rc;
}

/* Attaches shard i to the output's connection as s<i> for the in-SQLite
 * copy of state rows (columns were checked by prepare_shard). */
static vs_rc attach_shard(copier *c, const shard *s, int i, stmts *q,
			  vs_error *err)
{
	char sql[128];
	snprintf(sql, sizeof sql, "ATTACH DATABASE ? AS s%d", i);
	sqlite3_stmt *att = NULL;
	sqlite3_prepare_v2(c->out, sql, -1, &att, NULL);
	sqlite3_bind_text(att, 1, s->path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(att);
	sqlite3_finalize(att);
	if (rc != SQLITE_DONE)
		return merge_fail_db(err, c->tmp, c->out, "attaching a shard");
	snprintf(sql, sizeof sql, "INSERT INTO main.state SELECT * FROM "
	         "s%d.state WHERE variant_id = ? ORDER BY actor_id, step", i);
	if (sqlite3_prepare_v2(c->out, sql, -1, &q->state_in, NULL) !=
	    SQLITE_OK)
		return merge_fail_db(err, c->tmp, c->out, "preparing");
	for (int t = 0; t < c->n_t; t++) {
		char end[256], copy[256];
		if (!q->after[t]) {
			/* keyed by variant_id first: its key range, in key
			 * order, into the same key */
			snprintf(copy, sizeof copy, "INSERT INTO main.\"%s\" "
			         "SELECT * FROM s%d.\"%s\" WHERE variant_id = ?2",
			         c->t[t].name, i, c->t[t].name);
			if (sqlite3_prepare_v2(c->out, copy, -1, &q->copy_in[t],
			                       NULL) != SQLITE_OK)
				return merge_fail_db(err, c->tmp, c->out, "preparing");
			continue;
		}
		/* +variant_id: walked in rowid order, never by an index on
		 * variant_id (which would sort every later variant's rows) */
		snprintf(end, sizeof end, "SELECT rowid FROM s%d.\"%s\" WHERE "
		         "rowid >= ?1 AND +variant_id > ?2 ORDER BY rowid LIMIT 1",
		         i, c->t[t].name);
		snprintf(copy, sizeof copy, "INSERT INTO main.\"%s\" SELECT * "
		         "FROM s%d.\"%s\" WHERE rowid >= ?1 AND rowid < ?3 AND "
		         "variant_id = ?2 ORDER BY rowid", c->t[t].name, i,
		         c->t[t].name);
		if (sqlite3_prepare_v2(c->out, end, -1, &q->end_in[t], NULL) !=
		            SQLITE_OK ||
		    sqlite3_prepare_v2(c->out, copy, -1, &q->copy_in[t], NULL) !=
		            SQLITE_OK)
			return merge_fail_db(err, c->tmp, c->out, "preparing");
	}
	return VS_RC_OK;
}

/* SQLite synced nothing (synchronous = OFF): the data reach the disk
 * before the rename makes the file the output. */
static vs_rc sync_file(const char *path, vs_error *err)
{
	int fd = open(path, O_RDWR);
	if (fd < 0 || fsync(fd) != 0) {
		vs_error_set(err, "%s: cannot sync: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return VS_RC_IO;
	}
	close(fd);
	return VS_RC_OK;
}

static vs_rc write_output(const char *tmp, shard *s, int n,
			  unsigned long long count, int allow_partial,
			  vs_merge_summary *sum, vs_error *err)
{
	copier c = {0};
	c.tmp = tmp;
	stmts *q = vs_xcalloc((size_t)n, sizeof *q);
	vs_rc rc = VS_RC_IO;
	if (sqlite3_open(tmp, &c.out) != SQLITE_OK) {
		rc = merge_fail_db(err, tmp, c.out, "cannot create");
		goto done;
	}
	sqlite3_progress_handler(c.out, 1000, merge_stop_asked, NULL);
	/* No journal: the file is renamed into place only once complete, so
	 * a crash leaves a stray temporary, never a broken output; and every
	 * page is written once instead of twice (WAL, then checkpoint).
	 * secure_delete off as for a run's store (store.c says why). */
	if (exec(c.out, tmp, "PRAGMA page_size = " VS_STORE_PAGE_SIZE "; "
	         "PRAGMA main.journal_mode = OFF; PRAGMA synchronous = OFF; "
	         "PRAGMA secure_delete = OFF; "
	         "PRAGMA cache_size = " VS_STORE_CACHE_KIB "; BEGIN", err) ||
	    exec(c.out, tmp, vs_schema_sql, err) ||
	    exec(c.out, tmp, "PRAGMA user_version = 1", err))
		goto done;
	rc = setup_copier(&c, err);
	if (!rc)
		rc = copy_sweep_record(&c, s, n, err);
	for (int i = 0; i < n && !rc; i++)
		rc = prepare_shard(&s[i], &c, &q[i], err);
	if (!rc && n < sqlite3_limit(c.out, SQLITE_LIMIT_ATTACHED, -1))
		for (int i = 0; i < n && !rc; i++)
			rc = attach_shard(&c, &s[i], i, &q[i], err);
	if (!rc)
		rc = copy_all(&c, s, q, n, count, allow_partial, sum, err);
	/* The merged file is final: the planner's statistics go in. */
	if (!rc)
		rc = exec(c.out, tmp, "BEGIN", err);
	if (!rc)
		rc = vs_store_stats_write(c.out, tmp, -1, err);
	if (!rc)
		rc = exec(c.out, tmp, "COMMIT", err);
	/* WAL from now on, like every results file vsweep writes. */
	if (!rc)
		rc = exec(c.out, tmp, "PRAGMA main.journal_mode = WAL", err);
done:
	for (int i = 0; i < n; i++)
		finalize_shard(&s[i], &q[i]);
	free(q);
	finish_copier(&c);
	if (c.out && sqlite3_close(c.out) != SQLITE_OK && rc == 0)
		rc = merge_fail_db(err, tmp, c.out, "closing");
	if (rc == 0)
		rc = sync_file(tmp, err);
	return rc;
}

/* The temporary name out is written under in this process. */
static void tmp_name(char *buf, size_t n, const char *out)
{
	snprintf(buf, n, "%s.partial-%ld", out, (long)getpid());
}

/* OUT.partial-PID files (and their -wal, -shm, -journal) of merges into
 * out whose process no longer runs here: what a SIGKILL, or a launcher
 * killing vsweep-mpi's ranks, left. The pid is this host's: a merge into
 * the same OUT from another host at the same time is not supported. */
static void remove_stale_tmps(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[4096], prefix[4096], path[8300];
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", slash == out ? 1 :
		         (int)(slash - out), out);
	else
		snprintf(dir, sizeof dir, ".");
	snprintf(prefix, sizeof prefix, "%s.partial-", slash ? slash + 1 : out);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		char *end;
		errno = 0;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (errno || end == e->d_name + plen || pid <= 0 ||
		    pid == (long)getpid() ||
		    (*end && strcmp(end, "-wal") && strcmp(end, "-shm") &&
		     strcmp(end, "-journal")))
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to signal: alive */
		snprintf(path, sizeof path, "%s/%.*s", dir,
		         (int)(end - e->d_name), e->d_name);
		vs_remove_db_files(path);
	}
	closedir(d);
}

vs_rc vs_merge(const char *out, const char *const *paths, int n,
	       int allow_partial, vs_merge_summary *sum, vs_error *err)
{
	memset(sum, 0, sizeof *sum);
	if (access(out, F_OK) == 0) {
		vs_error_set(err, "%s: exists; merge into a new file", out);
		return VS_RC_INPUT;
	}
	shard *s = vs_xcalloc((size_t)n, sizeof *s);
	for (int i = 0; i < n; i++)
		s[i].path = paths[i];
	vs_rc rc = merge_check_writers(s, n, allow_partial, err);
	for (int i = 0; i < n && !rc; i++)
		rc = merge_open_shard(&s[i], err);
	unsigned long long count = 0;
	if (!rc) {
		char *c = merge_meta_text(s[0].db, "variant_count", 1);
		count = c ? strtoull(c, NULL, 10) : 0;
		free(c);
		rc = merge_check_shards(s, n, count, allow_partial, err);
	}
	char tmp[4096];
	tmp_name(tmp, sizeof tmp, out);
	if (!rc) {
		remove_stale_tmps(out);
		vs_remove_db_files(tmp);
		rc = write_output(tmp, s, n, count, allow_partial, sum, err);
		/* link() never replaces: a file that appeared at out
		 * while merging stays, and the merge says so. */
		if (rc == 0 && link(tmp, out) != 0) {
			if (errno == EEXIST)
				vs_error_set(err, "%s: exists (it appeared while "
				             "merging); merge into a new file", out);
			else
				vs_error_set(err, "%s: cannot move %s into place: "
				             "%s", out, tmp, strerror(errno));
			rc = errno == EEXIST ? VS_RC_INPUT : VS_RC_IO;
		}
		vs_remove_db_files(tmp); /* merged: out is its other name */
	}
	if (rc && vs_merge_stop) {
		/* whatever failed, it failed because of the stop */
		vs_error_set(err, "interrupted; %s not written", out);
		rc = VS_RC_INTERRUPTED;
	}
	sum->shards = n;
	for (int i = 0; i < n; i++)
		sqlite3_close(s[i].db);
	free(s);
	return rc;
}

vs_rc vs_merge_each_variant(const char *path,
			    vs_rc (*fn)(void *ctx, uint64_t i), void *ctx,
                            vs_error *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	vs_rc rc = merge_open_db(path, &db, err);
	if (rc) {
		sqlite3_close(db);
		return VS_RC_IO;
	}
	if (sqlite3_prepare_v2(db, "SELECT variant_id FROM variant ORDER BY "
	                       "variant_id", -1, &q, NULL) != SQLITE_OK) {
		rc = merge_fail_db(err, path, db, "reading its variants");
	} else {
		int step;
		while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW)
			rc = fn(ctx, (uint64_t)sqlite3_column_int64(q, 0));
		if (!rc && step != SQLITE_DONE)
			rc = merge_fail_db(err, path, db, "reading its variants");
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc;
}
