/* The SQLite results file, written by one thread (a second, ckpt.h, only
 * copies its WAL back into the file): the runner's writer
 * (core/run/runner.c) opens it through vs_store_open, stores finished
 * variants with vs_store_put between vs_store_begin and vs_store_commit,
 * and closes it; vsweep-mpi's parts and the unit tests use it the same way.
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

#include <math.h>
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
#include "store/batch.h"
#include "store/bound.h"
#include "store/busy.h"
#include "store/ckpt.h"
#include "store/pairs.h"
#include "store/stats.h"
#include "store/units.h"
#include "store/walvfs.h"

/* Signal rows per INSERT (batch.h): 5 values each; a variant's rows go
 * in the order made (step-major), numbered by rowid in that order. */
#define SIGNALS_PER_INSERT 200
#define SIGNAL_COLS 5

/* Rows per multi-row INSERT, largest first: the per-statement work
 * (step, reset, halt) is shared by that many rows. Writer instructions per
 * actor-step on the benchmark's sweep (callgrind): 10 rows 14.1 k, 50
 * 10.7 k, 200 9.9 k, 1000 9.5 k. 1000 rows are 24,000 parameters, under
 * SQLite's default limit of 32,766; a build with a lower limit gets as
 * many rows as fit (prepare_all). The remainder goes 200, 50, then 1 at
 * a time. Preparing the 1000-row INSERT takes ~25 ms and 2.4 MB, the
 * 200-row one ~3 ms (SQLite's parse of a long VALUES list grows faster
 * than its length), a third of a one-variant run's CPU. So the big one
 * is prepared only once the store has taken BIG_AFTER rows: a
 * drill-down or a test of a few variants does without it, and a large
 * run pays at most those rows' 4 % more instructions (~4 ms) over
 * preparing it first. The same rows go in, in the same order, either
 * way. */
#define TIERS 4
static const int tier_rows[TIERS] = {1000, 200, 50, 1};
#define BIG_AFTER 100000
#define STATE_COLS 24
#define STATE_REALS 17 /* x .. roll_r */

struct vs_store {
	sqlite3 *db;
	char *path;
	/* The state INSERTs of tier_rows[t] rows (or fewer, if SQLite's
	 * parameter limit says so: rows[t]); ins[0] NULL until BIG_AFTER
	 * rows were stored; bound[t]: what ins[t] holds. */
	sqlite3_stmt *ins[TIERS];
	int rows[TIERS];
	vs_bound bound[TIERS];
	int64_t rows_put;         /* state rows stored through this store */
	/* State rows in the file: at open (-1: not known, a file resumed),
	 * committed since, in the open transaction, and in it when the open
	 * variant's savepoint began. So a finish need not count them. */
	int64_t rows_before, rows_done, rows_tx, rows_tx_at_var;
	sqlite3_stmt *ins_actor;
	sqlite3_stmt *ins_variant;
	sqlite3_stmt *ins_wheel;
	sqlite3_stmt *ins_event;
	sqlite3_stmt *ins_summary;
	sqlite3_stmt *set_meta;
	sqlite3_stmt *ins_log, *ins_name, *get_name;
	vs_batch ins_signals;       /* batch.h: SIGNALS_PER_INSERT, one */
	vs_batch ins_pairs;         /* pairs.h */
	int in_tx;
	vs_store_busy busy;       /* waits out other programs' locks */
	int lock_fd;              /* vs_store_writer_lock's; -1: none */
	int fresh_fail;           /* made by a failed open: remove on close */
	int sweep_changed;        /* resumed with another sweep (extend) */
	int made;                 /* made by this open (vs_store_made) */
	sqlite3_stmt *each;       /* vs_store_next_variant's cursor */
	const vs_state_row **ord; /* put_rows' order of a variant's rows */
	int64_t cap_ord;
	/* The variant being stored in parts (vs_store_variant_begin). */
	int var_open;
	uint64_t var_id;
	int stats_dropped; /* sqlite_stat1 emptied by this run's first write */
	vs_ckpt ckpt;      /* copies the WAL back beside the writer */
	int ckpt_tried;    /* vs_ckpt_start called (vs_store_begin) */
};

static vs_rc db_fail(vs_store *st, vs_error *err, const char *what)
{
	vs_error_set(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	return VS_RC_IO;
}

static vs_rc exec(vs_store *st, const char *sql, vs_error *err)
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
		return db_fail(st, err, "preparing a statement");
	return VS_RC_OK;
}

/* Prepares the state INSERT of tier t (prepare_all's comment). */
static vs_rc prepare_tier(vs_store *st, int t, vs_error *err)
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
		rc = prepare_tier(st, t, err);
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
		rc = db_fail(st, err, "preparing a statement");
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
	if (exec(st, "BEGIN", err) ||
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
			db_fail(st, err, "writing lanes");
			sqlite3_finalize(q);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return VS_RC_IO;
		}
	}
	sqlite3_finalize(q);
	return exec(st, "COMMIT", err);
}

vs_rc vs_store_set_meta(vs_store *st, const vs_meta *m, vs_error *err)
{
	sqlite3_bind_text(st->set_meta, 1, m->key, -1, SQLITE_STATIC);
	bind_meta_value(st->set_meta, 2, m);
	int rc = sqlite3_step(st->set_meta);
	sqlite3_reset(st->set_meta);
	if (rc != SQLITE_DONE)
		return db_fail(st, err, "writing the sweep record");
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
	if (exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	for (int i = 0; i < n; i++)
		if (vs_store_set_meta(st, &m[i], err)) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return VS_RC_IO;
		}
	return exec(st, "COMMIT", err) ? VS_RC_IO : VS_RC_OK;
}

static vs_rc create_schema(vs_store *st, const vs_meta *meta, int n_meta,
                           const vs_plugin_row *plugins, int n_plugins,
                           vs_error *err)
{
	if (exec(st, "BEGIN", err) || exec(st, vs_schema_sql, err) ||
	    exec(st, "PRAGMA user_version = 1", err) ||
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
			db_fail(st, err, "writing the plugin record");
			sqlite3_finalize(ins); /* after: it clears the message */
			return VS_RC_IO;
		}
	}
	sqlite3_finalize(ins);
	return exec(st, "COMMIT", err);
}

/* Compares a stored meta value with the run's; 0 when equal. */
static int meta_differs(sqlite3_stmt *q, const vs_meta *m)
{
	if (sqlite3_step(q) != SQLITE_ROW)
		return 1;
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
		db_fail(st, err, "reading the plugin record");
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

/* A file written before signal units (units.h) gets them: its rows
 * and its other tables stay as they are. */
static vs_rc add_units(vs_store *st, vs_error *err)
{
	int has = vs_store_has_units(st->db);
	if (has > 0)
		return VS_RC_OK;
	if (has < 0)
		return db_fail(st, err, "reading the schema");
	if (exec(st, "BEGIN IMMEDIATE", err))
		return VS_RC_IO;
	if (vs_store_add_units(st->db) != SQLITE_OK) {
		db_fail(st, err, "adding signal units");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return VS_RC_IO;
	}
	return exec(st, "COMMIT", err);
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

/* What --overwrite may replace: nothing (0), an empty file or an SQLite
 * one (1); anything else (a scenario given as -o by mistake) is not
 * results and is kept (-1). */
static int replaceable(const char *path)
{
	char head[16] = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == 0 || (n == sizeof head &&
	                  memcmp(head, "SQLite format 3", 16) == 0)
	               ? 1
	               : -1;
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
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		vs_error_set(err, "%s: is a directory; -o names the results "
		             "file", path);
		return VS_RC_INPUT;
	}
	if (mode == VS_STORE_OVERWRITE && replaceable(path) < 0) {
		vs_error_set(err, "%s: is not an SQLite file; --overwrite "
		             "replaces only results files", path);
		return VS_RC_INPUT;
	}
	int lock_fd = -1;
	vs_rc locked = vs_store_writer_lock(path, &lock_fd, err);
	if (locked)
		return locked;
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
		rc = db_fail(st, err, "cannot open");
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
	if ((fresh && exec(st, "PRAGMA page_size = " VS_STORE_PAGE_SIZE, err)) ||
	    exec(st, "PRAGMA journal_mode = WAL", err) ||
	    exec(st, "PRAGMA synchronous = NORMAL", err) ||
	    exec(st, "PRAGMA cache_size = " VS_STORE_CACHE_KIB, err) ||
	    exec(st, "PRAGMA temp_store = MEMORY", err) ||
	    exec(st, "PRAGMA secure_delete = OFF", err) ||
	    exec(st, "PRAGMA wal_autocheckpoint = 4096", err))
		goto fail;
	if (fresh) {
		if (create_schema(st, meta, n_meta, def->plugins,
		                  def->n_plugins, err))
			goto fail;
	} else if (add_units(st, err) || prepare_all(st, err)) {
		goto fail;
	}
	*out = st;
	return VS_RC_OK;
fail:
	if (st->db && fresh) {
		/* Removed while still ours: the lock goes after. */
		st->fresh_fail = 1;
	}
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
	if (exec(st, "BEGIN IMMEDIATE", err))
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
			if (has < 0 || (has > 0 && exec(st, drop[k], err))) {
				if (has < 0)
					db_fail(st, err, "reading the schema");
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
	if (exec(st, "COMMIT", err))
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
		rc = exec(st, "CREATE INDEX IF NOT EXISTS event_row_variant ON "
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

static void bind_state(vs_bound *s, int base, int64_t variant,
                       const vs_state_row *r)
{
	const vs_state *v = &r->s;
	const vs_wheel_acc *w = &r->w;
	double vals[STATE_REALS] = {
		v->x, v->y, v->z, v->roll, v->pitch, v->yaw,
		v->vx, v->vy, v->vz, v->wx, v->wy, v->wz,
		v->steer, w->dist, w->turn, w->roll_l, w->roll_r};
	vs_bound_int64(s, base + 1, variant);
	vs_bound_int64(s, base + 2, r->actor_id);
	vs_bound_int64(s, base + 3, r->step);
	for (int i = 0; i < STATE_REALS; i++)
		vs_bound_double(s, base + 4 + i, vals[i]);
	/* Map location: lanes are numbered from 1 in the lane table; NULLs
	 * (no map, or not recorded) cost no payload bytes. */
	const vs_map_row *m = &r->m;
	int c = base + 4 + STATE_REALS;
	if (m->lane >= 0) {
		vs_bound_int64(s, c, m->lane + 1);
		vs_bound_int64(s, c + 1, m->on_lane);
		vs_bound_double(s, c + 2, m->position);
		vs_bound_double(s, c + 3, m->angle);
	} else {
		for (int k = 0; k < 4; k++)
			vs_bound_null(s, c + k);
	}
}

/* Compares two rows by (actor_id, step): the state key's order below
 * the variant. */
static int row_cmp(const void *a, const void *b)
{
	const vs_state_row *x = *(const vs_state_row *const *)a;
	const vs_state_row *y = *(const vs_state_row *const *)b;
	if (x->actor_id != y->actor_id)
		return x->actor_id < y->actor_id ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The rows of r in (actor_id, step) order, into ord (n_rows pointers).
 * The simulator's rows are step-major with the actors in one order at
 * every step: then it is a transposition; anything else is sorted. */
static void order_rows(const vs_result *r, const vs_state_row **ord)
{
	int64_t n = r->n_rows;
	int64_t a = 0; /* actors per step: rows before the first step change */
	while (a < n && r->rows[a].step == r->rows[0].step)
		a++;
	int regular = a > 0 && n % a == 0;
	for (int64_t i = a; regular && i < n; i++)
		regular = r->rows[i].actor_id == r->rows[i % a].actor_id &&
		          r->rows[i].step == r->rows[i - i % a].step &&
		          r->rows[i].step > r->rows[i - a].step;
	for (int64_t k = 1; regular && k < a; k++)
		regular = r->rows[k].actor_id > r->rows[k - 1].actor_id;
	if (!regular) {
		for (int64_t i = 0; i < n; i++)
			ord[i] = &r->rows[i];
		qsort(ord, (size_t)n, sizeof *ord, row_cmp);
		return;
	}
	int64_t steps = n / a, i = 0;
	for (int64_t k = 0; k < a; k++)
		for (int64_t s = 0; s < steps; s++)
			ord[i++] = &r->rows[s * a + k];
}

/* Writes r's state rows in (actor_id, step) order, the table's key
 * order below the variant: each row lands at the b-tree's right edge
 * (SQLite then skips the descent from the root, and the pages it fills
 * stay full) or, for a variant stored in parts, right after the same
 * actor's previous row. A row whose key is already stored (a bug) fails the
 * insert rather than being duplicated. Measured in docs/results.md,
 * "Write speed". */
static vs_rc put_rows(vs_store *st, const vs_result *r, vs_error *err)
{
	if (r->n_rows <= 0)
		return VS_RC_OK; /* a failed variant: no rows */
	if (r->n_rows > st->cap_ord) {
		free(st->ord);
		st->cap_ord = r->n_rows;
		st->ord = vs_xcalloc((size_t)st->cap_ord, sizeof *st->ord);
	}
	const vs_state_row **ord = st->ord;
	order_rows(r, ord);
	if (!st->ins[0] && st->rows_put >= BIG_AFTER &&
	    prepare_tier(st, 0, err))
		return VS_RC_IO;
	int64_t i = 0;
	for (int t = st->ins[0] ? 0 : 1; t < TIERS; t++) {
		vs_bound *bs = &st->bound[t];
		while (r->n_rows - i >= st->rows[t]) {
			for (int k = 0; k < st->rows[t]; k++)
				bind_state(bs, k * STATE_COLS,
				           (int64_t)r->variant, ord[i + k]);
			int rc = sqlite3_step(bs->s);
			sqlite3_reset(bs->s);
			if (rc != SQLITE_DONE) {
				st->rows_before = -1; /* count them at the end */
				return db_fail(st, err, "writing state rows");
			}
			i += st->rows[t];
		}
	}
	st->rows_put += r->n_rows;
	st->rows_tx += r->n_rows;
	return VS_RC_OK;
}

int vs_store_state_batch(const vs_store *st)
{
	for (int t = 0; t < TIERS; t++)
		if (st->ins[t])
			return st->rows[t];
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *s, int col, const char *t)
{
	if (t)
		sqlite3_bind_text(s, col, t, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, col);
}

static vs_rc put_actors(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_actor;
	for (int i = 0; i < r->n_actors; i++) {
		const vs_actor_row *a = &r->actors[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, a->actor_id);
		sqlite3_bind_text(s, 3, a->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, a->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 5, a->parent_id);
		bind_text_or_null(s, 6, a->attach_type);
		sqlite3_bind_double(s, 7, a->length);
		sqlite3_bind_double(s, 8, a->width);
		sqlite3_bind_double(s, 9, a->height);
		sqlite3_bind_int(s, 10, a->wheel_count);
		bind_text_or_null(s, 11, a->vehicle_model);
		bind_text_or_null(s, 12, a->behaviour);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_fail(st, err, "writing actor rows");
	}
	return VS_RC_OK;
}

static vs_rc put_wheels(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_wheel;
	for (int i = 0; i < r->n_wheels; i++) {
		const vs_wheel_row *w = &r->wheels[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, w->actor_id);
		sqlite3_bind_int(s, 3, w->wheel);
		sqlite3_bind_double(s, 4, w->x);
		sqlite3_bind_double(s, 5, w->y);
		sqlite3_bind_double(s, 6, w->radius);
		sqlite3_bind_int(s, 7, w->steered);
		sqlite3_bind_double(s, 8, w->wheelbase);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_fail(st, err, "writing wheel rows");
	}
	return VS_RC_OK;
}

static void bind_real_or_null(sqlite3_stmt *s, int col, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, col);
	else
		sqlite3_bind_double(s, col, v);
}

/* An actor ID, NULL for 0 (none). */
static void bind_actor(sqlite3_stmt *s, int col, int64_t id)
{
	if (id)
		sqlite3_bind_int64(s, col, id);
	else
		sqlite3_bind_null(s, col);
}

static vs_rc put_events(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_event;
	for (int64_t i = 0; i < r->n_events; i++) {
		const vs_event_row *e = &r->events[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, e->step);
		sqlite3_bind_int64(s, 3, e->actor_id);
		sqlite3_bind_text(s, 4, e->kind, -1, SQLITE_STATIC);
		if (e->other_id)
			sqlite3_bind_int64(s, 5, e->other_id);
		else
			sqlite3_bind_null(s, 5);
		bind_text_or_null(s, 6, e->detail[0] ? e->detail : NULL);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_fail(st, err, "writing events");
	}
	if (r->summary_void)
		return VS_RC_OK; /* unknown: NULL in variant_summary's join */
	const vs_summary *m = &r->summary;
	s = st->ins_summary;
	sqlite3_bind_int64(s, 1, (int64_t)r->variant);
	bind_real_or_null(s, 2, m->max_lat_acc);
	bind_real_or_null(s, 3, m->max_yaw_rate);
	bind_real_or_null(s, 4, m->min_distance);
	bind_real_or_null(s, 5, m->on_lane_pct);
	sqlite3_bind_int64(s, 6, m->collisions);
	sqlite3_bind_int64(s, 7, m->lane_changes);
	const double kpi[4] = {m->min_ttc, m->min_thw, m->max_decel,
	                       m->max_jerk};
	const int64_t of[4] = {m->min_ttc_actor, m->min_thw_actor,
	                       m->max_decel_actor, m->max_jerk_actor};
	for (int k = 0; k < 4; k++) { /* each KPI and its actor, or NULLs */
		bind_real_or_null(s, 8 + 2 * k, kpi[k]);
		bind_actor(s, 9 + 2 * k, isnan(kpi[k]) ? 0 : of[k]);
	}
	/* The actors of the first three KPIs (NULL where the KPI is). */
	bind_actor(s, 16, isnan(m->max_lat_acc) ? 0 : m->max_lat_acc_actor);
	bind_actor(s, 17, isnan(m->max_yaw_rate) ? 0 : m->max_yaw_rate_actor);
	int no_d = isnan(m->min_distance);
	bind_actor(s, 18, no_d ? 0 : m->min_distance_actor);
	bind_actor(s, 19, no_d ? 0 : m->min_distance_other);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_fail(st, err, "writing the summary");
	return VS_RC_OK;
}

/* The signal_name id of name, added with its unit when new; -1 on
 * error. */
static int64_t signal_id(vs_store *st, const char *name, const char *unit)
{
	sqlite3_bind_text(st->ins_name, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->ins_name, 2, unit ? unit : "", -1,
	                  SQLITE_STATIC);
	int rc = sqlite3_step(st->ins_name);
	sqlite3_reset(st->ins_name);
	if (rc != SQLITE_DONE)
		return -1;
	sqlite3_bind_text(st->get_name, 1, name, -1, SQLITE_STATIC);
	int64_t id = sqlite3_step(st->get_name) == SQLITE_ROW
	                     ? sqlite3_column_int64(st->get_name, 0)
	                     : -1;
	sqlite3_reset(st->get_name);
	return id;
}

typedef struct signals_ctx {
	const vs_result *r;
	const int64_t *ids; /* signal_name ids of r's names */
} signals_ctx;

static void bind_signal(sqlite3_stmt *s, int base, int64_t i, const void *ctx)
{
	const signals_ctx *c = ctx;
	const vs_signal_row *g = &c->r->signals[i];
	sqlite3_bind_int64(s, base + 1, (int64_t)c->r->variant);
	sqlite3_bind_int64(s, base + 2, g->actor_id);
	sqlite3_bind_int64(s, base + 3, g->step);
	sqlite3_bind_int64(s, base + 4, c->ids[g->name]);
	bind_real_or_null(s, base + 5, g->value);
}

/* Signal rows (names stored once) and plugin messages. */
static vs_rc put_signals_logs(vs_store *st, const vs_result *r, vs_error *err)
{
	int64_t *ids = vs_xcalloc((size_t)r->n_signal_names + 1, sizeof *ids);
	for (int i = 0; i < r->n_signal_names; i++)
		if ((ids[i] = signal_id(st, r->signal_names[i],
		                        r->signal_units ? r->signal_units[i]
		                                        : NULL)) < 0) {
			free(ids);
			return db_fail(st, err, "writing signal names");
		}
	signals_ctx c = {r, ids};
	int put = vs_batch_put(&st->ins_signals, r->n_signals, bind_signal, &c);
	free(ids);
	if (put != SQLITE_DONE)
		return db_fail(st, err, "writing signal rows");
	sqlite3_stmt *s = st->ins_log;
	int64_t n_logs = r->n_logs < VS_LOG_ROWS_KEPT ? r->n_logs
	                                              : VS_LOG_ROWS_KEPT;
	for (int64_t i = 0; i < n_logs; i++) {
		const vs_log_row *l = &r->logs[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, l->actor_id);
		sqlite3_bind_double(s, 3, l->t);
		sqlite3_bind_int(s, 4, l->level);
		sqlite3_bind_text(s, 5, l->plugin, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, l->message, -1, SQLITE_STATIC);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return db_fail(st, err, "writing plugin messages");
	}
	return VS_RC_OK;
}

vs_rc vs_store_variant_begin(vs_store *st, uint64_t variant, vs_error *err)
{
	if (st->var_open || !st->in_tx) {
		vs_error_set(err, "%s: variant %llu begun outside a transaction "
		             "or inside another variant (internal error)",
		             st->path, (unsigned long long)variant);
		return VS_RC_IO;
	}
	if (exec(st, "SAVEPOINT vs_variant", err))
		return VS_RC_IO;
	st->rows_tx_at_var = st->rows_tx;
	st->var_open = 1;
	st->var_id = variant;
	return VS_RC_OK;
}

vs_rc vs_store_variant_rows(vs_store *st, const vs_result *part,
                            vs_error *err)
{
	if (!st->var_open || part->variant != st->var_id) {
		vs_error_set(err, "%s: rows of variant %llu, which is not being "
		             "stored (internal error)", st->path,
		             (unsigned long long)part->variant);
		return VS_RC_IO;
	}
	/* The signal rows alone: the logs come with the variant's end. */
	vs_result v = *part;
	v.n_logs = 0;
	if (put_rows(st, part, err) || put_signals_logs(st, &v, err))
		return VS_RC_IO;
	if (vs_store_pairs_put(&st->ins_pairs, part->variant, part->pairs,
	                       part->n_pairs) != SQLITE_DONE)
		return db_fail(st, err, "writing pair rows");
	return VS_RC_OK;
}

void vs_store_variant_cancel(vs_store *st)
{
	if (!st->var_open)
		return;
	/* Failing, the transaction's rollback drops the rows all the same. */
	if (sqlite3_exec(st->db, "ROLLBACK TO vs_variant", NULL, NULL,
	                 NULL) != SQLITE_OK)
		st->rows_before = -1; /* rows may stay: count them at the end */
	sqlite3_exec(st->db, "RELEASE vs_variant", NULL, NULL, NULL);
	st->rows_tx = st->rows_tx_at_var;
	st->var_open = 0;
}

vs_rc vs_store_put(vs_store *st, const vs_result *r, vs_error *err)
{
	if (st->var_open && r->variant != st->var_id) {
		vs_error_set(err, "%s: variant %llu ended while %llu is being "
		             "stored (internal error)", st->path,
		             (unsigned long long)r->variant,
		             (unsigned long long)st->var_id);
		return VS_RC_IO;
	}
	if (put_rows(st, r, err))
		return VS_RC_IO;
	if (put_actors(st, r, err) || put_wheels(st, r, err) ||
	    put_events(st, r, err) || put_signals_logs(st, r, err))
		return VS_RC_IO;
	if (vs_store_pairs_put(&st->ins_pairs, r->variant, r->pairs,
	                       r->n_pairs) != SQLITE_DONE)
		return db_fail(st, err, "writing pair rows");
	sqlite3_stmt *s = st->ins_variant;
	sqlite3_bind_int64(s, 1, (int64_t)r->variant);
	sqlite3_bind_int(s, 2, (int)r->status);
	bind_text_or_null(s, 3, r->status == VS_VARIANT_FAILED ? r->error
	                                                       : NULL);
	sqlite3_bind_text(s, 4, r->params_json ? r->params_json : "{}", -1,
	                  SQLITE_STATIC);
	sqlite3_bind_double(s, 5, r->wall_seconds);
	bind_text_or_null(s, 6, r->label);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return db_fail(st, err, "writing the variant row");
	if (st->var_open) {
		/* Its rows are now the transaction's, with its variant row. */
		if (exec(st, "RELEASE vs_variant", err))
			return VS_RC_IO;
		st->var_open = 0;
	}
	return VS_RC_OK;
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
		/* Fold the WAL back so the file stands alone when copied. */
		if (!st->fresh_fail)
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
