/* The SQLite results file, written by one thread (a second, ckpt.h, only
 * copies its WAL back into the file): the runner's writer
 * (core/run/runner.c) opens it through vs_store_open, stores finished
 * variants with vs_store_put between vs_store_begin and vs_store_commit,
 * and closes it; vsweep-mpi's parts and the unit tests use it the same way.
 * This file opens, checks, commits and closes; store_rows.c writes a
 * variant's rows; store_internal.h holds what the two share.
 * merge.c writes its output on its own, through the same schema.
 *
 * Invariants:
 * - Whole variants only: a variant's state, actor, wheel, event, summary,
 *   pair and variant rows go in one transaction (the caller's), so a kill at
 *   any moment leaves whole variants (WAL, synchronous = NORMAL).
 * - Key order: state rows go in (variant_id, actor_id, step) order, the
 *   table's key; variants come in ascending order from the runner, so
 *   rows land at the b-tree's right edge (a variant stored in parts puts
 *   each actor's later steps after its earlier ones, inside the
 *   variant's range; resume and extend may fill gaps: correct, only
 *   slower).
 * - A variant stored in parts (vs_store_variant_begin ... vs_store_put)
 *   keeps its rows in the savepoint vs_variant until its variant row is
 *   written: whole variants still, and a cancel leaves the file as if
 *   its rows had never been stored. The parts go through the same
 *   insert code as whole variants; storing in parts changes no row.
 * - A file is checked before it is changed: an existing file that is
 *   not this run's (identity meta rows, plugin builds; record.c says
 *   which) is refused and left as it was; only a file this process
 *   created is removed on failure. */
#include "store/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "store/pairs.h"
#include "store/reader.h"
#include "store/stats.h"
#include "store/units.h"
#include "store/store_internal.h"
#include "store/walvfs.h"

/* Rows per state INSERT, largest first (store_internal.h, TIERS). */
static const int tier_rows[TIERS] = {1000, 200, 50, 1};

vs_rc vs_store_db_fail(vs_store *st, vs_error *err, const char *what)
{
	vs_error_set(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	return VS_RC_IO;
}

vs_rc vs_store_exec(vs_store *st, const char *sql, vs_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		vs_error_set(err, "%s: %s", st->path, msg ? msg : "SQL error");
		sqlite3_free(msg);
		return VS_RC_IO;
	}
	return VS_RC_OK;
}

static vs_rc prepare(vs_store *st, const char *sql, sqlite3_stmt **out,
                     vs_error *err)
{
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out,
	                       NULL) != SQLITE_OK)
		return vs_store_db_fail(st, err, "preparing a statement");
	return VS_RC_OK;
}

/* Prepares the state INSERT of tier t (prepare_all's comment). */
vs_rc vs_store_prepare_tier(vs_store *st, int t, vs_error *err)
{
	char *sql = vs_store_insert_sql("state", STATE_COLS, st->rows[t]);
	vs_rc rc = prepare(st, sql, &st->ins[t], err);
	free(sql);
	if (!rc)
		vs_bound_init(&st->bound[t], st->ins[t]);
	return rc;
}

static vs_rc prepare_all(vs_store *st, vs_error *err)
{
	int fit = sqlite3_limit(st->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1) /
	          STATE_COLS;
	/* SQLite before 3.32 allowed 999 parameters: 41 rows */
	for (int t = 0; t < TIERS; t++) /* 1 at least: the loop in put_rows */
		st->rows[t] = fit < 1 ? 1 : fit < tier_rows[t] ? fit : tier_rows[t];
	vs_rc rc = VS_RC_OK;
	for (int t = 1; t < TIERS && !rc; t++) /* tier 0: put_rows */
		rc = vs_store_prepare_tier(st, t, err);
	if (!rc)
		rc = prepare(st,
		             "INSERT INTO actor VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		             &st->ins_actor, err);
	if (!rc)
		rc = prepare(st, "INSERT INTO wheel VALUES (?,?,?,?,?,?,?,?)",
		             &st->ins_wheel, err);
	if (!rc)
		rc = prepare(st, "INSERT INTO event_row VALUES (?,?,?,?,?,?)",
		             &st->ins_event, err);
	if (!rc)
		rc = prepare(st, "INSERT INTO summary VALUES "
		             "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		             &st->ins_summary, err);
	if (!rc)
		rc = prepare(st, "INSERT INTO variant VALUES (?,?,?,?,?,?)",
		             &st->ins_variant, err);
	if (!rc)
		rc = prepare(st, "INSERT OR REPLACE INTO meta VALUES (?,?)",
		             &st->set_meta, err);
	if (!rc)
		rc = prepare(st, "INSERT INTO log_row VALUES (?,?,?,?,?,?)",
		             &st->ins_log, err);
	if (!rc)
		/* A name stored before its file had units (units.h) gets
		 * its unit once the run stores it again: the resume checked
		 * that the plugin builds are the stored run's. */
		rc = prepare(st, "INSERT INTO signal_name (name, unit) VALUES "
		             "(?1, ?2) ON CONFLICT (name) DO UPDATE SET unit = "
		             "excluded.unit WHERE unit IS NULL", &st->ins_name,
		             err);
	if (!rc)
		rc = prepare(st, "SELECT id FROM signal_name WHERE name = ?",
		             &st->get_name, err);
	if (!rc && (vs_store_pairs_prepare(st->db, &st->ins_pairs) != SQLITE_OK ||
	            vs_batch_prepare(st->db, "signal_row", SIGNAL_COLS,
	                             SIGNALS_PER_INSERT, &st->ins_signals) !=
	                    SQLITE_OK))
		rc = vs_store_db_fail(st, err, "preparing a statement");
	return rc;
}

static void bind_meta_value(sqlite3_stmt *s, int col, const vs_meta *m)
{
	if (m->is_text)
		sqlite3_bind_text(s, col, m->text ? m->text : "", -1,
		                  SQLITE_STATIC);
	else
		sqlite3_bind_double(s, col, m->number);
}

vs_rc vs_store_set_lanes(vs_store *st, const vs_lane_row *lanes, int n,
                         vs_error *err)
{
	sqlite3_stmt *q = NULL;
	if (prepare(st, "SELECT count(*) FROM lane", &q, err))
		return VS_RC_IO;
	int have = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : 0;
	sqlite3_finalize(q);
	if (have > 0 || n == 0)
		return VS_RC_OK;
	if (vs_store_exec(st, "BEGIN", err) ||
	    prepare(st, "INSERT INTO lane VALUES (?,?,?,?,?,?,?,?)", &q, err))
		return VS_RC_IO;
	for (int i = 0; i < n; i++) {
		sqlite3_bind_int(q, 1, i + 1);
		sqlite3_bind_text(q, 2, lanes[i].lane_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, lanes[i].road, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 4, lanes[i].lane_index);
		sqlite3_bind_double(q, 5, lanes[i].length);
		sqlite3_bind_double(q, 6, lanes[i].width);
		sqlite3_bind_int(q, 7, lanes[i].section);
		sqlite3_bind_text(q, 8, lanes[i].type ? lanes[i].type : "driving",
		                  -1, SQLITE_STATIC);
		int rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE) {
			/* said first: the finalize and the ROLLBACK would leave
			 * "not an error" as the connection's message */
			vs_store_db_fail(st, err, "writing lanes");
			sqlite3_finalize(q);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return VS_RC_IO;
		}
	}
	sqlite3_finalize(q);
	return vs_store_exec(st, "COMMIT", err);
}

vs_rc vs_store_set_meta(vs_store *st, const vs_meta *m, vs_error *err)
{
	sqlite3_bind_text(st->set_meta, 1, m->key, -1, SQLITE_STATIC);
	bind_meta_value(st->set_meta, 2, m);
	int rc = sqlite3_step(st->set_meta);
	sqlite3_reset(st->set_meta);
	if (rc != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing the sweep record");
	return VS_RC_OK;
}

int vs_store_meta_text(vs_store *st, const char *key, char *buf,
                       size_t size)
{
	sqlite3_stmt *q = NULL;
	int found = 0;
	buf[0] = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = ?",
	                       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
			snprintf(buf, size, "%s",
			         (const char *)sqlite3_column_text(q, 0));
			found = 1;
		}
	}
	sqlite3_finalize(q);
	return found;
}

vs_rc vs_store_set_metas(vs_store *st, const vs_meta *m, int n,
                        vs_error *err)
{
	if (vs_store_exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	for (int i = 0; i < n; i++)
		if (vs_store_set_meta(st, &m[i], err)) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return VS_RC_IO;
		}
	return vs_store_exec(st, "COMMIT", err) ? VS_RC_IO : VS_RC_OK;
}

static vs_rc create_schema(vs_store *st, const vs_meta *meta, int n_meta,
                           const vs_plugin_row *plugins, int n_plugins,
                           vs_error *err)
{
	if (vs_store_exec(st, "BEGIN", err) || vs_store_exec(st, vs_schema_sql, err) ||
	    vs_store_exec(st, "PRAGMA user_version = 1", err) ||
	    prepare_all(st, err))
		return VS_RC_IO;
	for (int i = 0; i < n_meta; i++)
		if (vs_store_set_meta(st, &meta[i], err))
			return VS_RC_IO;
	sqlite3_stmt *ins = NULL;
	if (prepare(st, "INSERT INTO plugin VALUES (?,?,?,?,?)", &ins, err))
		return VS_RC_IO;
	for (int i = 0; i < n_plugins; i++) {
		const vs_plugin_row *p = &plugins[i];
		sqlite3_bind_text(ins, 1, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, p->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, p->version, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, p->path, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, p->digest, -1, SQLITE_STATIC);
		int rc = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (rc != SQLITE_DONE) {
			vs_store_db_fail(st, err, "writing the plugin record");
			sqlite3_finalize(ins); /* after: it clears the message */
			return VS_RC_IO;
		}
	}
	sqlite3_finalize(ins);
	return vs_store_exec(st, "COMMIT", err);
}

/* Compares a stored meta value with the run's; 0 when equal. A key a
 * later build added (vs_store_key_is_added) that the file lacks is
 * taken as equal: the file was written before it was recorded. */
static int meta_differs(sqlite3_stmt *q, const vs_meta *m)
{
	if (sqlite3_step(q) != SQLITE_ROW)
		return !vs_store_key_is_added(m->key);
	if (m->is_text) {
		const char *v = (const char *)sqlite3_column_text(q, 0);
		return !v || strcmp(v, m->text ? m->text : "") != 0;
	}
	return sqlite3_column_type(q, 0) != SQLITE_FLOAT &&
	               sqlite3_column_type(q, 0) != SQLITE_INTEGER
	           ? 1
	           : sqlite3_column_double(q, 0) != m->number;
}

/* The stored meta `format` first: a file of another format is refused
 * whatever else matches. */
static vs_rc check_format(vs_store *st, vs_error *err)
{
	sqlite3_stmt *q = NULL;
	char *format = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = "
	                       "'format'", -1, &q, NULL) != SQLITE_OK)
		return VS_RC_OK; /* no meta table: check_identity says so */
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		format = vs_strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	vs_rc rc = vs_store_format_check(st->path, format, err);
	free(format);
	return rc;
}

/* The map file (meta map_digest, q's row) is not the one the file was
 * written with: named by the path this run read it from, since the same
 * bytes elsewhere would do. VS_RC_INPUT. */
static vs_rc map_differs(vs_store *st, const vs_store_def *def,
                         sqlite3_stmt *q, vs_error *err)
{
	const char *was = sqlite3_data_count(q) > 0
	                          ? (const char *)sqlite3_column_text(q, 0)
	                          : NULL;
	vs_error_set(err, "%s: cannot resume: the map %s differs from the one "
	             "the file was written with (digest %s, now %s); use "
	             "--overwrite or another -o", st->path,
	             def->map_path[0] ? def->map_path : "(none)",
	             was && *was ? was : "(none)",
	             def->map_digest[0] ? def->map_digest : "(none)");
	return VS_RC_INPUT;
}

/* The stored run is this one: identity meta rows and plugin builds.
 * VS_RC_INPUT (not this run's, or not a results file) or VS_RC_IO. */
static vs_rc check_identity(vs_store *st, const vs_meta *meta,
                            int n_identity, const vs_store_def *def,
                            vs_error *err)
{
	const vs_plugin_row *plugins = def->plugins;
	int n_plugins = def->n_plugins;
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT value FROM meta WHERE key = ?", -1, &q,
	                       NULL) != SQLITE_OK) {
		vs_error_set(err, "%s: not a vsweep results file (%s)",
		             st->path, sqlite3_errmsg(st->db));
		return VS_RC_INPUT;
	}
	vs_rc rc = VS_RC_OK;
	for (int i = 0; i < n_identity && !rc; i++) {
		sqlite3_bind_text(q, 1, meta[i].key, -1, SQLITE_STATIC);
		int grows = def->extend &&
		            (!strcmp(meta[i].key, "sweep_text") ||
		             !strcmp(meta[i].key, "variant_count"));
		int differs = meta_differs(q, &meta[i]);
		/* An extension only adds variants: a sweep with fewer than the
		 * file's (a random block's count lowered) is another sweep, even
		 * where it still holds every variant stored so far. */
		int fewer = differs && grows && !meta[i].is_text &&
		            sqlite3_data_count(q) > 0 &&
		            meta[i].number < sqlite3_column_double(q, 0);
		if (fewer) {
			vs_error_set(err,
			             "%s: cannot resume: its sweep_text differs "
			             "from this run's and does not extend it (the "
			             "new sweep has %.0f variants, the file's %.0f); "
			             "use --overwrite or another -o",
			             st->path, meta[i].number,
			             sqlite3_column_double(q, 0));
			rc = VS_RC_INPUT;
		} else if (differs && grows) {
			st->sweep_changed = 1;
		} else if (differs && !strcmp(meta[i].key, "map_digest")) {
			rc = map_differs(st, def, q, err);
		} else if (differs) {
			vs_error_set(err,
			             "%s: cannot resume: its %s differs from this "
			             "run's; use --overwrite or another -o",
			             st->path, meta[i].key);
			rc = VS_RC_INPUT;
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(st->db,
	                       "SELECT version, digest FROM plugin "
	                       "WHERE name = ?", -1, &q, NULL) != SQLITE_OK) {
		/* No plugin table: not a results file of this vsweep. */
		vs_store_db_fail(st, err, "reading the plugin record");
		return VS_RC_INPUT;
	}
	for (int i = 0; i < n_plugins && !rc; i++) {
		sqlite3_bind_text(q, 1, plugins[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_ROW) {
			vs_error_set(err, "%s: cannot resume: plugin %s was not "
			             "used by the stored run", st->path,
			             plugins[i].name);
			rc = VS_RC_INPUT;
		} else if (strcmp((const char *)sqlite3_column_text(q, 0),
		                  plugins[i].version) ||
		           strcmp((const char *)sqlite3_column_text(q, 1),
		                  plugins[i].digest)) {
			vs_error_set(err, "%s: cannot resume: plugin %s (%s) is "
			             "not the build the stored run used (version "
			             "%s)", st->path, plugins[i].name,
			             plugins[i].path,
			             (const char *)sqlite3_column_text(q, 0));
			rc = VS_RC_INPUT;
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return rc;
}

/* A file written before a meta key was recorded (vs_store_added_key)
 * gets it: check_identity took it as the run's, which it now records. */
static vs_rc add_records(vs_store *st, const vs_meta *meta, int n_meta,
                         vs_error *err)
{
	sqlite3_stmt *q = NULL;
	if (prepare(st, "INSERT OR IGNORE INTO meta VALUES (?, ?)", &q, err))
		return VS_RC_IO;
	/* all of them or none, as a new file has them */
	if (vs_store_exec(st, "BEGIN IMMEDIATE", err)) {
		sqlite3_finalize(q);
		return VS_RC_IO;
	}
	int rc = SQLITE_DONE;
	for (int i = 0; i < n_meta && rc == SQLITE_DONE; i++) {
		if (!vs_store_key_is_added(meta[i].key))
			continue;
		sqlite3_bind_text(q, 1, meta[i].key, -1, SQLITE_STATIC);
		bind_meta_value(q, 2, &meta[i]);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
	}
	if (rc != SQLITE_DONE) {
		vs_store_db_fail(st, err, "adding the sweep record");
		sqlite3_finalize(q); /* after: it clears the message */
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return VS_RC_IO;
	}
	sqlite3_finalize(q);
	return vs_store_exec(st, "COMMIT", err) ? VS_RC_IO : VS_RC_OK;
}

/* A file written before signal units (units.h) gets them: its rows
 * and its other tables stay as they are. */
static vs_rc add_units(vs_store *st, vs_error *err)
{
	int has = vs_store_has_units(st->db);
	if (has > 0)
		return VS_RC_OK;
	if (has < 0)
		return vs_store_db_fail(st, err, "reading the schema");
	if (vs_store_exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	if (vs_store_add_units(st->db) != SQLITE_OK) {
		vs_store_db_fail(st, err, "adding signal units");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return VS_RC_IO;
	}
	return vs_store_exec(st, "COMMIT", err);
}

/* An SQLite file (possibly 0 bytes) with no table, index or view. */
static int holds_nothing(vs_store *st)
{
	sqlite3_stmt *q = NULL;
	int none = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_master",
	                       -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		none = sqlite3_column_int64(q, 0) == 0;
	sqlite3_finalize(q);
	return none;
}

static void exists_error(const char *path, vs_error *err)
{
	vs_error_set(err, "%s: exists; use --resume to continue it or "
	             "--overwrite to replace it", path);
}

vs_rc vs_store_path_check(const char *path, vs_error *err)
{
	struct stat sb;
	if (!path[0]) {
		vs_error_set(err, "-o names no file (an empty path)");
		return VS_RC_INPUT;
	}
	if (stat(path, &sb) != 0)
		return VS_RC_OK; /* not there (made later), or said then */
	if (S_ISDIR(sb.st_mode)) {
		vs_error_set(err, "%s: is a directory; -o names the results "
		             "file", path);
		return VS_RC_INPUT;
	}
	if (!S_ISREG(sb.st_mode)) {
		/* a device, FIFO or socket: never replaced (--overwrite would
		 * unlink /dev/null), never opened (a FIFO blocks) */
		vs_error_set(err, "%s: is not a regular file (a device, FIFO "
		             "or socket); -o names the results file", path);
		return VS_RC_INPUT;
	}
	return VS_RC_OK;
}

/* What --overwrite may replace: nothing (0); an empty file, or an SQLite
 * file that is a results file (its meta table has a format row) or holds
 * no table (a run killed in its first milliseconds, its schema in the WAL
 * only) (1). Anything else is kept (-1): a scenario given as -o by
 * mistake, another program's database, a file SQLite cannot read. Read
 * through an immutable URI: no lock taken, no -wal or -shm made beside a
 * file that is not ours. Only for a regular file (vs_store_open refuses
 * the others first: opening a FIFO would wait for a writer). */
static int replaceable(const char *path)
{
	char head[16] = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n == 0)
		return 1;
	if (n != sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
		return -1;
	char *uri = vs_store_uri(path, "immutable=1");
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int ok = -1;
	/* no table at all, or a meta table (then naming a format) */
	if (uri && sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY |
	                           SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*), count(*) FILTER (WHERE "
	                       "type = 'table' AND name = 'meta') FROM "
	                       "sqlite_master", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW) {
		int tables = sqlite3_column_int(q, 0);
		int meta = sqlite3_column_int(q, 1);
		sqlite3_finalize(q);
		q = NULL;
		if (tables == 0)
			ok = 1;
		else if (meta &&
		         sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key "
		                            "= 'format'", -1, &q,
		                            NULL) == SQLITE_OK &&
		         sqlite3_step(q) == SQLITE_ROW)
			ok = 1;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(uri);
	return ok;
}

vs_rc vs_store_overwritable(const char *path, vs_error *err)
{
	if (replaceable(path) >= 0)
		return VS_RC_OK;
	vs_error_set(err, "%s: is not a results file (not an SQLite file, or "
	             "one without vsweep's meta table); --overwrite replaces "
	             "only results files", path);
	return VS_RC_INPUT;
}

vs_rc vs_store_open(const vs_store_def *def, vs_store **out, vs_error *err)
{
	const char *path = def->path;
	vs_store_mode mode = def->mode;
	*out = NULL;
	vs_meta meta[VS_STORE_META_MAX];
	vs_meta_made made;
	int n_identity;
	int n_meta = vs_store_def_meta(def, &made, meta, &n_identity);
	/* Before anything is looked at: --overwrite must not delete, nor
	 * --resume join, a file another run is writing. */
	if (vs_store_path_check(path, err))
		return VS_RC_INPUT;
	int lock_fd = -1;
	vs_rc locked = vs_store_writer_lock(path, &lock_fd, err);
	if (locked)
		return locked;
	/* Looked into only under the lock: not torn by a run writing it. */
	if (mode == VS_STORE_OVERWRITE && vs_store_overwritable(path, err)) {
		vs_store_writer_unlock(path, lock_fd);
		return VS_RC_INPUT;
	}
	int exists = access(path, F_OK) == 0;
	if (exists && mode == VS_STORE_CREATE) {
		exists_error(path, err);
		vs_store_writer_unlock(path, lock_fd);
		return VS_RC_INPUT;
	}
	if (exists && mode == VS_STORE_OVERWRITE)
		vs_remove_db_files(path);
	int fresh = !exists || mode == VS_STORE_OVERWRITE;
	if (fresh) {
		/* Made here, exclusively: of two runs racing for one path,
		 * one gets it and the other is told it exists; only a file
		 * this call made is ever removed on failure. */
		int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
		if (fd < 0) {
			int e = errno;
			vs_store_writer_unlock(path, lock_fd);
			if (e == EEXIST) {
				exists_error(path, err);
				return VS_RC_INPUT;
			}
			vs_error_set(err, "%s: cannot create: %s", path,
			             strerror(e));
			return VS_RC_IO;
		}
		close(fd);
	}

	vs_store *st = vs_xcalloc(1, sizeof *st);
	st->path = vs_strdup(path);
	st->lock_fd = lock_fd; /* released by vs_store_close */
	/* Failures past opening are reported as input errors (exit 2), as
	 * they always were: the file at hand is not one this run can use. */
	vs_rc rc = VS_RC_INPUT;
	/* One connection, used by the writer thread only: no mutexes. */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &st->db, flags, vs_walvfs_name()) !=
	    SQLITE_OK) {
		rc = vs_store_db_fail(st, err, "cannot open");
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	vs_store_busy_init(&st->busy, st->db, st->path, def->lock_timeout);
	/* A run killed in its first milliseconds leaves a 0-byte file or
	 * one without a single table (the schema is made in one
	 * transaction): it holds nothing to lose, and resuming makes it. */
	if (!fresh && mode == VS_STORE_RESUME && holds_nothing(st))
		fresh = 1;
	st->made = fresh;
	st->rows_before = fresh ? 0 : -1;
	/* A file to resume is checked before anything is changed in it:
	 * another program's SQLite file stays as it was. */
	if (!fresh && (check_format(st, err) ||
	               check_identity(st, meta, n_identity, def, err)))
		goto fail;
	/* WAL + synchronous=NORMAL: a crash (even kill -9) loses at most the
	 * open transaction, never consistency. A new file gets 16 KiB pages
	 * (VS_STORE_PAGE_SIZE); the page cache holds one commit batch's
	 * pages, no more: rows arrive at the b-trees' right edges, and a
	 * bigger cache only costs allocation and page faults (measured in
	 * docs/results.md, "Write speed"). Debian builds SQLite with
	 * secure_delete on: it zeroes the space cells leave, and a page of a
	 * WITHOUT ROWID table splits by moving cells (1.6 % of a run's
	 * instructions); results hold nothing to hide. */
	if ((fresh && vs_store_exec(st, "PRAGMA page_size = " VS_STORE_PAGE_SIZE, err)) ||
	    vs_store_exec(st, "PRAGMA journal_mode = WAL", err) ||
	    vs_store_exec(st, "PRAGMA synchronous = NORMAL", err) ||
	    vs_store_exec(st, "PRAGMA cache_size = " VS_STORE_CACHE_KIB, err) ||
	    vs_store_exec(st, "PRAGMA temp_store = MEMORY", err) ||
	    vs_store_exec(st, "PRAGMA secure_delete = OFF", err) ||
	    vs_store_exec(st, "PRAGMA wal_autocheckpoint = 4096", err))
		goto fail;
	if (fresh) {
		if (create_schema(st, meta, n_meta, def->plugins,
		                  def->n_plugins, err))
			goto fail;
	} else if (add_units(st, err) ||
	           add_records(st, meta, n_meta, err) ||
	           prepare_all(st, err)) {
		goto fail;
	}
	st->opened = 1;
	*out = st;
	return VS_RC_OK;
fail:
	if (st->db && fresh) {
		/* Removed while still ours: the lock goes after. */
		st->fresh_fail = 1;
	}
	/* Another program's lock outlasted --lock-timeout: the file is
	 * fine, and a later run may resume it (3, as in a run), not an
	 * input error. */
	if (st->db && ((sqlite3_errcode(st->db) & 0xff) == SQLITE_BUSY ||
	               (sqlite3_errcode(st->db) & 0xff) == SQLITE_LOCKED))
		rc = VS_RC_IO;
	vs_store_close(st, NULL);
	return rc;
}

static int64_t query_int(vs_store *st, const char *sql, int64_t arg)
{
	sqlite3_stmt *q = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, arg);
	if (sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_type(q, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

int64_t vs_store_pragma(vs_store *st, const char *name)
{
	char sql[80];
	size_t n = strlen(name);
	if (n == 0 || n > 40 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz_") != n)
		return -1;
	snprintf(sql, sizeof sql, "PRAGMA %s", name);
	return query_int(st, sql, 0);
}

int64_t vs_store_bytes(vs_store *st)
{
	return query_int(st, "SELECT page_count * page_size FROM "
	                 "pragma_page_count(), pragma_page_size() "
	                 "WHERE ?1 = ?1", 0);
}

int64_t vs_store_variant_count(vs_store *st)
{
	return query_int(st, "SELECT count(*) FROM variant WHERE ?1 = ?1", 0);
}

int64_t vs_store_variant_at(vs_store *st, int64_t n)
{
	return query_int(st, "SELECT variant_id FROM variant ORDER BY "
	                 "variant_id LIMIT 1 OFFSET ?", n);
}

int vs_store_sweep_changed(const vs_store *st)
{
	return st->sweep_changed;
}

int vs_store_made(const vs_store *st)
{
	return st->made;
}

int vs_store_next_variant(vs_store *st, int64_t *id, const char **params,
                          const char **label)
{
	if (!st->each &&
	    sqlite3_prepare_v2(st->db, "SELECT variant_id, params, label FROM "
	                       "variant ORDER BY variant_id", -1, &st->each,
	                       NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st->each) != SQLITE_ROW) {
		sqlite3_finalize(st->each);
		st->each = NULL;
		return 0;
	}
	*id = sqlite3_column_int64(st->each, 0);
	*params = (const char *)sqlite3_column_text(st->each, 1);
	*label = (const char *)sqlite3_column_text(st->each, 2);
	return 1;
}

vs_rc vs_store_begin(vs_store *st, vs_error *err)
{
	/* IMMEDIATE: the write lock is taken (or waited for) here, not
	 * half-way through a variant's rows. */
	/* The checkpointer thread starts with the first write, not when the
	 * file is opened: a run forks its simulation server in between,
	 * from a process that must have one thread (run/contain.h). If it
	 * cannot start, SQLite's automatic checkpoint (vs_store_open)
	 * stays. */
	if (!st->ckpt_tried) {
		st->ckpt_tried = 1;
		vs_ckpt_start(&st->ckpt, st->db, st->path);
	}
	vs_ckpt_before_begin(&st->ckpt);
	if (vs_store_exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	st->in_tx = 1;
	/* A file being written holds no planner statistics: those of its
	 * last finish would understate the tables as they grow (SQLite may
	 * then scan a table it believes holds one row once per row of
	 * another). Dropped with the first rows this run commits;
	 * vs_store_finish writes them anew. */
	if (!st->stats_dropped) {
		/* sqlite_stat4: a build of SQLite with STAT4 writes samples */
		static const char *const drop[2] = {
			"DELETE FROM sqlite_stat1", "DELETE FROM sqlite_stat4"};
		for (int k = 0; k < 2; k++) {
			int64_t has = query_int(st, "SELECT count(*) FROM "
			                        "sqlite_schema WHERE name = "
			                        "'sqlite_stat' || ?1", k ? 4 : 1);
			if (has < 0 || (has > 0 && vs_store_exec(st, drop[k], err))) {
				if (has < 0)
					vs_store_db_fail(st, err, "reading the schema");
				vs_store_rollback(st);
				return VS_RC_IO;
			}
		}
		st->stats_dropped = 1; /* undone by a rollback */
	}
	return VS_RC_OK;
}

vs_rc vs_store_commit(vs_store *st, vs_error *err)
{
	if (vs_store_exec(st, "COMMIT", err))
		return VS_RC_IO;
	st->in_tx = 0;
	st->rows_done += st->rows_tx;
	st->rows_tx = 0;
	return VS_RC_OK;
}

vs_rc vs_store_finish(vs_store *st, vs_error *err)
{
	vs_rc rc = vs_store_begin(st, err);
	/* A file begun by a build whose schema lacked them (schema.sql says
	 * why they exist): built once, over a few rows per variant. */
	if (!rc)
		rc = vs_store_exec(st, "CREATE INDEX IF NOT EXISTS event_row_variant ON "
		          "event_row (variant_id); CREATE INDEX IF NOT EXISTS "
		          "log_row_variant ON log_row (variant_id)", err);
	if (!rc)
		rc = vs_store_stats_write(
		    st->db, st->path,
		    st->rows_before < 0 ? -1 : st->rows_before + st->rows_done,
		    err);
	if (!rc)
		rc = vs_store_commit(st, err);
	vs_store_rollback(st);
	return rc;
}

void vs_store_rollback(vs_store *st)
{
	if (st && st->in_tx) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		st->in_tx = 0;
		st->rows_tx = 0;
		st->var_open = 0;
		st->stats_dropped = 0; /* the deletion went with it */
	}
}

vs_rc vs_store_close(vs_store *st, vs_error *err)
{
	if (!st)
		return VS_RC_OK;
	vs_rc rc = VS_RC_OK;
	vs_store_rollback(st);
	for (int t = 0; t < TIERS; t++) {
		sqlite3_finalize(st->ins[t]);
		vs_bound_free(&st->bound[t]);
	}
	sqlite3_finalize(st->ins_actor);
	sqlite3_finalize(st->ins_variant);
	sqlite3_finalize(st->ins_wheel);
	sqlite3_finalize(st->ins_event);
	sqlite3_finalize(st->ins_summary);
	sqlite3_finalize(st->set_meta);
	vs_batch_finalize(&st->ins_signals);
	sqlite3_finalize(st->ins_log);
	sqlite3_finalize(st->ins_name);
	sqlite3_finalize(st->get_name);
	vs_batch_finalize(&st->ins_pairs);
	sqlite3_finalize(st->each);
	vs_ckpt_stop(&st->ckpt);
	if (st->db) {
		/* Fold the WAL back so the file stands alone when copied;
		 * not after a failed open, which wrote nothing (and, when a
		 * lock stopped it, would wait for that lock again). */
		if (st->opened && !st->fresh_fail)
			vs_store_fold_wal(&st->busy, st->db);
		if (sqlite3_close(st->db) != SQLITE_OK) {
			vs_error_set(err, "%s: closing: %s", st->path,
			             sqlite3_errmsg(st->db));
			rc = VS_RC_IO;
		}
	}
	if (st->fresh_fail)
		vs_remove_db_files(st->path);
	vs_store_writer_unlock(st->path, st->lock_fd);
	free(st->ord);
	free(st->path);
	free(st);
	return rc;
}
