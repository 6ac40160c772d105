/* A merge's copying of rows (merge.c's invariants): the output's schema
 * read into its inserts, each input's reads prepared against it (by
 * variant_id, streamed in rowid order, or inside SQLite with the input
 * attached), and one variant's rows copied from the file that holds it:
 * state, every other table with a variant_id, the variant row last. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "store/merge_internal.h"

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
vs_rc merge_setup_copier(copier *c, vs_error *err)
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

void merge_finish_copier(copier *c)
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

vs_rc merge_prepare_shard(shard *s, const copier *c, stmts *q, vs_error *err)
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

void merge_finalize_shard(shard *s, stmts *q)
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
int merge_copy_variant(copier *c, stmts *q, long long i)
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

/* Attaches shard i to the output's connection as s<i> for the in-SQLite
 * copy of state rows (columns were checked by merge_prepare_shard). */
vs_rc merge_attach_shard(copier *c, const shard *s, int i, stmts *q,
			 vs_error *err)
{
	char sql[128];
	snprintf(sql, sizeof sql, "ATTACH DATABASE ? AS s%d", i);
	sqlite3_stmt *att = NULL;
	sqlite3_prepare_v2(c->out, sql, -1, &att, NULL);
	sqlite3_bind_text(att, 1, s->uri, -1, SQLITE_STATIC);
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
