/* A merge's sweep record (merge.c's invariants): the tables without a
 * variant_id copied from the first file (a record an earlier build did
 * not write from another), the union of the files' signal
 * names under their ids with their units (refused when two files number
 * them differently), and the merged file's own shard record ("0/1") and
 * file id. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "store/batch.h"
#include "store/merge_internal.h"
#include "store/store.h"
#include "store/units.h"

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
	return merge_exec(c->out, c->tmp, "COMMIT", err);
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

/* Whether schema db ("main", "first") of out has table t: 1, 0, -1. */
static int has_table(sqlite3 *out, const char *db, const char *t)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.sqlite_master "
	         "WHERE type = 'table' AND name = ?", db);
	sqlite3_stmt *q = NULL;
	int has = -1;
	if (sqlite3_prepare_v2(out, sql, -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW)
			has = sqlite3_column_int(q, 0) > 0;
	}
	sqlite3_finalize(q);
	return has;
}

/* Copies table t of in into out's, row by row (the same columns). */
static vs_rc copy_rows(copier *c, sqlite3 *in, const char *path,
                       const char *t, vs_error *err)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", t);
	sqlite3_stmt *r = NULL, *w = NULL;
	if (sqlite3_prepare_v2(in, sql, -1, &r, NULL) != SQLITE_OK) {
		vs_error_set(err, "%s: reading %s: %s", path, t,
		             sqlite3_errmsg(in));
		return VS_RC_IO;
	}
	int cols = sqlite3_column_count(r);
	char *ins = vs_store_insert_sql(t, cols, 1);
	vs_rc rc = VS_RC_OK;
	if (sqlite3_prepare_v2(c->out, ins, -1, &w, NULL) != SQLITE_OK)
		rc = merge_fail_db(err, c->tmp, c->out, "copying the sweep record");
	free(ins);
	int step;
	while (!rc && (step = sqlite3_step(r)) == SQLITE_ROW) {
		for (int k = 0; k < cols; k++)
			sqlite3_bind_value(w, k + 1, sqlite3_column_value(r, k));
		if (sqlite3_step(w) != SQLITE_DONE)
			rc = merge_fail_db(err, c->tmp, c->out,
			                   "copying the sweep record");
		sqlite3_reset(w);
	}
	if (!rc && step != SQLITE_DONE) {
		vs_error_set(err, "%s: reading %s: %s", path, t,
		             sqlite3_errmsg(in));
		rc = VS_RC_IO;
	}
	sqlite3_finalize(r);
	sqlite3_finalize(w);
	return rc;
}

/* Table t from the first of the other files that has it: the first file
 * was written by a build before t (actor_param), which a later build's
 * file of the same sweep holds. None has it: it stays empty. */
static vs_rc copy_from_another(copier *c, shard *s, int n, const char *t,
                               vs_error *err)
{
	for (int i = 1; i < n; i++) {
		/* in its snapshot, on the connection that holds it */
		sqlite3 *in = s[i].db;
		int has = has_table(in, "main", t);
		vs_rc rc = VS_RC_OK;
		if (has < 0) {
			vs_error_set(err, "%s: reading the schema: %s", s[i].path,
			             sqlite3_errmsg(in));
			rc = VS_RC_IO;
		} else if (has) {
			rc = copy_rows(c, in, s[i].path, t, err);
		}
		if (rc || has)
			return rc;
	}
	return VS_RC_OK;
}

/* A meta key a later build added (vs_store_added_key) that the first
 * file lacks, written by an earlier build: another file's, the first
 * that has it (merge_check_shards saw that those agree). */
static vs_rc copy_added_records(copier *c, shard *s, int n, vs_error *err)
{
	sqlite3_stmt *ins = NULL;
	if (sqlite3_prepare_v2(c->out, "INSERT OR IGNORE INTO main.meta "
	                       "VALUES (?, ?)", -1, &ins, NULL) != SQLITE_OK)
		return merge_fail_db(err, c->tmp, c->out,
		                     "writing the sweep record");
	vs_rc rc = VS_RC_OK;
	const char *key;
	for (int k = 0; !rc && (key = vs_store_added_key(k)); k++)
		for (int i = 1; i < n && !rc; i++) {
			sqlite3_stmt *q = NULL;
			if (sqlite3_prepare_v2(s[i].db, "SELECT value FROM meta "
			                       "WHERE key = ?", -1, &q,
			                       NULL) != SQLITE_OK) {
				rc = merge_fail_db(err, s[i].path, s[i].db,
				                   "reading the sweep record");
				break;
			}
			sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW) {
				sqlite3_bind_text(ins, 1, key, -1, SQLITE_STATIC);
				sqlite3_bind_value(ins, 2, sqlite3_column_value(q, 0));
				if (sqlite3_step(ins) != SQLITE_DONE)
					rc = merge_fail_db(err, c->tmp, c->out,
					                   "writing the sweep record");
				sqlite3_reset(ins);
			}
			sqlite3_finalize(q);
		}
	sqlite3_finalize(ins);
	return rc;
}

/* Tables without a variant_id (meta, plugin, ...): the first file's, or
 * another's for a table the first file does not have; signal names with
 * every file's units (copy_signal_names). */
vs_rc merge_copy_sweep_record(copier *c, shard *s, int n, vs_error *err)
{
	const shard *first = &s[0];
	sqlite3_stmt *att = NULL;
	sqlite3_prepare_v2(c->out, "ATTACH DATABASE ? AS first", -1, &att,
	                   NULL);
	sqlite3_bind_text(att, 1, first->uri, -1, SQLITE_STATIC);
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
		int has = has_table(c->out, "first", t);
		if (has <= 0) {
			rc = has < 0 ? merge_fail_db(err, c->tmp, c->out,
			                             "reading the schema")
			             : copy_from_another(c, s, n, t, err);
			continue;
		}
		char sql[256];
		snprintf(sql, sizeof sql, "INSERT INTO main.\"%s\" SELECT * "
		         "FROM first.\"%s\"", t, t);
		rc = merge_exec(c->out, c->tmp, sql, err);
	}
	sqlite3_finalize(q);
	if (!rc)
		rc = copy_signal_names(c, s, n, err);
	if (!rc)
		rc = copy_added_records(c, s, n, err);
	if (!rc)
		rc = set_unsharded(c, err);
	if (merge_exec(c->out, c->tmp, "DETACH DATABASE first", err) && !rc)
		rc = VS_RC_IO;
	return rc;
}
