/* Check suite for the SQLite store: file modes, identity on resume, whole
 * variants per transaction, and the views of docs/results.md. */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/ckpt.h"
#include "store/stats.h"
#include "store/store.h"

static char dir[256], path[300];

static void setup(void)
{
	strcpy(dir, "/tmp/vs_store_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/r.db", dir);
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const vs_plugin_row plugins[] = {
	{"kinematic_bicycle", "vehicle_model", "1.0", "/p/kb.so", "00ff"},
};

/* The record every test's file is written with. */
static vs_store_def base_def(void)
{
	vs_store_def d = vs_store_default_def();
	d.path = path;
	d.scenario_text = "name: a\n";
	d.step = 0.01;
	d.variant_count = 3;
	d.scenario_path = "a.yaml";
	d.plugins = plugins;
	d.n_plugins = 1;
	return d;
}

/* Opens path in mode with d's record (NULL: base_def's); NULL on error,
 * which must then be an input error. */
static vs_store *open_mode(vs_store_mode mode, const vs_store_def *d,
                           vs_error *err)
{
	vs_store_def def = d ? *d : base_def();
	def.mode = mode;
	vs_store *st = (vs_store *)1;
	vs_rc rc = vs_store_open(&def, &st, err);
	ck_assert_int_eq(rc == VS_RC_OK, st != NULL);
	if (rc)
		ck_assert_int_eq(rc, VS_RC_INPUT);
	return st;
}

/* A variant with n_steps steps of one actor on a known motion. */
static void make_result(vs_result *r, uint64_t variant, int n_steps)
{
	memset(r, 0, sizeof *r);
	r->variant = variant;
	r->status = VS_VARIANT_DONE;
	r->params_json = strdup("{\"actor1\":{\"speed\":5}}");
	r->wall_seconds = 0.5;
	r->n_actors = 1;
	r->actors = calloc(1, sizeof *r->actors);
	r->actors[0] = (vs_actor_row){1, "ego", "vehicle", 0, NULL,
	                              4.8, 1.9, 1.5, 4, "kinematic_bicycle",
	                              "constant_steer"};
	r->n_rows = n_steps;
	r->rows = calloc((size_t)n_steps, sizeof *r->rows);
	for (int k = 0; k < n_steps; k++) {
		vs_state_row *row = &r->rows[k];
		row->actor_id = 1;
		row->step = k;
		row->s.x = 10.0 * k + (double)variant;
		row->s.y = -3.0 * k;
		row->s.z = 0.25;
		row->s.yaw = 0.1 * k - 1.0;
		row->s.pitch = 0.05;
		row->s.roll = -0.02;
		row->s.vx = 1.0;
	}
}

static sqlite3 *db_open(void)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static double q_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	double v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

START_TEST(failed_lane_write_says_why)
{
	/* two lanes with one UUID break lane_id's UNIQUE: the message says
	 * so (it said "not an error", read after the statement's finalize
	 * and the ROLLBACK) */
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	const vs_lane_row lanes[] = {
	    {"00000000-0000-5000-8000-000000000001", "a", -1, 10, 3.5, 0,
	     "driving"},
	    {"00000000-0000-5000-8000-000000000001", "b", -1, 10, 3.5, 0,
	     "driving"}};
	ck_assert_int_eq(vs_store_set_lanes(st, lanes, 2, &err), VS_RC_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "writing lanes: UNIQUE "
	                                      "constraint failed"));
	vs_error cerr = {{0}};
	vs_store_close(st, &cerr);
}
END_TEST

START_TEST(create_refuses_existing_file)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err.msg, "exists"));
	ck_assert_ptr_nonnull(strstr(err.msg, "--resume"));
}
END_TEST

START_TEST(resume_checks_identity)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	vs_store_close(st, NULL);
	/* A fact about the file, not identity, may differ. */
	vs_store_def d2 = base_def();
	d2.scenario_path = "elsewhere/a.yaml";
	d2.duration = 99;
	st = open_mode(VS_STORE_RESUME, &d2, &err);
	ck_assert_msg(st != NULL, "%s", err.msg);
	vs_store_close(st, NULL);
	d2.scenario_text = "name: b\n";
	st = open_mode(VS_STORE_RESUME, &d2, &err);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err.msg, "scenario_text differs"));
	memset(&err, 0, sizeof err);
	d2 = base_def();
	d2.step = 0.02;
	st = open_mode(VS_STORE_RESUME, &d2, &err);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err.msg, "step differs"));
	/* The shard record is identity too: shard 1/2 is another file. */
	memset(&err, 0, sizeof err);
	d2 = base_def();
	d2.shard = "1/2";
	st = open_mode(VS_STORE_RESUME, &d2, &err);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err.msg, "shard differs"));
}
END_TEST

START_TEST(resume_checks_plugin_build)
{
	vs_error err = {{0}};
	vs_store_close(open_mode(VS_STORE_CREATE, NULL, &err), NULL);
	vs_plugin_row other = plugins[0];
	other.digest = "abcd";
	vs_store_def d = base_def();
	d.plugins = &other;
	vs_store *st = open_mode(VS_STORE_RESUME, &d, &err);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err.msg, "kinematic_bicycle"));
	ck_assert_ptr_nonnull(strstr(err.msg, "not the build"));
}
END_TEST

START_TEST(overwrite_replaces)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result r;
	make_result(&r, 0, 5);
	vs_store_begin(st, &err);
	ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
	vs_store_commit(st, &err);
	vs_store_close(st, NULL);
	vs_result_finish(&r);
	st = open_mode(VS_STORE_OVERWRITE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(vs_store_variant_count(st), 0);
	vs_store_close(st, NULL);
}
END_TEST

START_TEST(rolled_back_variant_leaves_nothing)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result a, b;
	make_result(&a, 0, 120);
	make_result(&b, 1, 77);
	vs_store_begin(st, &err);
	vs_store_put(st, &a, &err);
	vs_store_commit(st, &err);
	vs_store_begin(st, &err);
	vs_store_put(st, &b, &err);
	vs_store_rollback(st); /* as if killed before the commit */
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM variant"), 1);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"), 120);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM actor"), 1);
	sqlite3_close(db);
	/* The next variant continues right after the committed rows. */
	st = open_mode(VS_STORE_RESUME, NULL, &err);
	ck_assert_int_eq(vs_store_variant_count(st), 1);
	ck_assert_int_eq(vs_store_variant_at(st, 0), 0);
	vs_store_begin(st, &err);
	ck_assert_int_eq(vs_store_put(st, &b, &err), 0);
	vs_store_commit(st, &err);
	vs_store_close(st, NULL);
	db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 1"), 77);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"), 197);
	sqlite3_close(db);
	vs_result_finish(&a);
	vs_result_finish(&b);
}
END_TEST

/* The value of column c (0: x, 1: y, 2: z, 3: roll, 4: vx) or of the lane
 * (c = 5, -1: none) in row k of variant v: some equal in every row, some
 * changing in blocks of rows, every row or never, NaN, -0.0 and NULL
 * among them, so that a statement's row slots keep and change their
 * values between executions in every way. */
static double pattern(int v, int k, int c)
{
	switch (c) {
	case 0: return k % 3 == 0 ? 0.0 : 0.5 * k + v;
	case 1: return v % 2 ? -0.0 : 0.0;
	case 2: return 0.25;
	case 3: return 0.01 * (k / 100);
	case 4: return v == 2 && k % 5 == 0 ? NAN : 1.5 + v;
	default:
		if (v == 1 || (v == 3 && k % 2))
			return -1;
		return k / 500;
	}
}

START_TEST(repeated_and_changed_values_stored_exactly)
{
	/* The store binds a value only when its statement's parameter does
	 * not hold the same bits already (bound.h); every row must still
	 * read back as stored. 1237 rows: the big statement, the 50-row one
	 * and the 1-row one each run. */
	enum { VARIANTS = 4, ROWS = 1237 };
	vs_error err = {{0}};
	vs_store_def d = base_def();
	d.variant_count = VARIANTS;
	vs_store *st = open_mode(VS_STORE_CREATE, &d, &err);
	vs_store_begin(st, &err);
	for (int v = 0; v < VARIANTS; v++) {
		vs_result r;
		make_result(&r, (uint64_t)v, ROWS);
		for (int k = 0; k < ROWS; k++) {
			vs_state_row *row = &r.rows[k];
			row->s.x = pattern(v, k, 0);
			row->s.y = pattern(v, k, 1);
			row->s.z = pattern(v, k, 2);
			row->s.roll = pattern(v, k, 3);
			row->s.vx = pattern(v, k, 4);
			row->m.lane = (int)pattern(v, k, 5);
			row->m.on_lane = k % 2;
			row->m.position = 0.001 * k;
		}
		ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
		vs_result_finish(&r);
	}
	vs_store_commit(st, &err);
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	sqlite3_stmt *q = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
	    "SELECT variant_id, step, x, y, z, roll, vx, lane, on_lane, "
	    "position FROM state ORDER BY variant_id, step", -1, &q, NULL),
	    SQLITE_OK);
	int n = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		int v = sqlite3_column_int(q, 0), k = sqlite3_column_int(q, 1);
		ck_assert_int_eq(v, n / ROWS);
		ck_assert_int_eq(k, n % ROWS);
		for (int c = 0; c < 5; c++) {
			double want = pattern(v, k, c);
			if (isnan(want)) { /* SQLite stores NaN as NULL */
				ck_assert_int_eq(sqlite3_column_type(q, 2 + c),
				                 SQLITE_NULL);
				continue;
			}
			ck_assert_int_ne(sqlite3_column_type(q, 2 + c),
			                 SQLITE_NULL);
			ck_assert_double_eq(sqlite3_column_double(q, 2 + c), want);
		}
		int lane = (int)pattern(v, k, 5);
		if (lane < 0) {
			for (int c = 7; c < 10; c++)
				ck_assert_int_eq(sqlite3_column_type(q, c),
				                 SQLITE_NULL);
		} else {
			ck_assert_int_eq(sqlite3_column_int(q, 7), lane + 1);
			ck_assert_int_eq(sqlite3_column_int(q, 8), k % 2);
			ck_assert_double_eq(sqlite3_column_double(q, 9), 0.001 * k);
		}
		n++;
	}
	ck_assert_int_eq(n, VARIANTS * ROWS);
	sqlite3_finalize(q);
	sqlite3_close(db);
}
END_TEST

/* A variant of three actors, ids in the given (scenario) order, n_steps
 * steps, rows step-major as the simulator makes them; x = 100 id + step,
 * so every stored row says which it is. */
static void make_crowd(vs_result *r, uint64_t variant, const int64_t ids[3],
                       int n_steps)
{
	make_result(r, variant, 3 * n_steps);
	for (int k = 0; k < 3 * n_steps; k++) {
		vs_state_row *row = &r->rows[k];
		row->actor_id = ids[k % 3];
		row->step = k / 3;
		row->s.x = 100.0 * (double)row->actor_id + (double)row->step;
	}
}

/* A variant's rows in the order a plain scan returns them (the table's
 * own order), "actor:step,..." */
static void scan_order(sqlite3 *db, uint64_t variant, char *out, size_t n)
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT group_concat(actor_id || ':' || step)"
	         " FROM (SELECT actor_id, step FROM state WHERE variant_id = "
	         "%llu)", (unsigned long long)variant);
	sqlite3_stmt *s = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	snprintf(out, n, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

/* The state table is its key (variant_id, actor_id, step): WITHOUT
 * ROWID, so a scan reads a variant's rows actor by actor, each actor's
 * steps in order, whatever order the actors come in; a second row with
 * a stored key is refused, not duplicated. */
START_TEST(state_rows_stored_in_key_order)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result a, b;
	make_crowd(&a, 0, (const int64_t[3]){1, 2, 3}, 3);
	make_crowd(&b, 1, (const int64_t[3]){7, 2, 5}, 2);
	vs_store_begin(st, &err);
	ck_assert_int_eq(vs_store_put(st, &a, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &b, &err), 0);
	vs_store_commit(st, &err);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	sqlite3 *db = db_open();
	char got[200];
	scan_order(db, 0, got, sizeof got);
	ck_assert_str_eq(got, "1:0,1:1,1:2,2:0,2:1,2:2,3:0,3:1,3:2");
	scan_order(db, 1, got, sizeof got);
	ck_assert_str_eq(got, "2:0,2:1,5:0,5:1,7:0,7:1");
	/* Each row's values moved with it. */
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "x != 100 * actor_id + step"), 0);
	/* No rowid, no second b-tree: the key is the table. */
	sqlite3_stmt *q = NULL;
	ck_assert_int_ne(sqlite3_prepare_v2(db, "SELECT rowid FROM state", -1,
	                                    &q, NULL), SQLITE_OK);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM sqlite_master "
	                             "WHERE type = 'index' AND tbl_name = "
	                             "'state' AND sql IS NOT NULL"), 0);
	/* A new file's pages are 16 KiB (store.h, VS_STORE_PAGE_SIZE). */
	ck_assert_double_eq(q_double(db, "PRAGMA page_size"), 16384);
	sqlite3_close(db);
	/* Variant 1 again: its first row's key is stored, so the insert
	 * fails and nothing of it stays. */
	st = open_mode(VS_STORE_RESUME, NULL, &err);
	vs_store_begin(st, &err);
	b.variant = 0;
	ck_assert_int_eq(vs_store_put(st, &b, &err), VS_RC_IO);
	vs_store_rollback(st);
	vs_store_close(st, NULL);
	db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"), 15);
	sqlite3_close(db);
	vs_result_finish(&a);
	vs_result_finish(&b);
}
END_TEST

/* A small run does without the 1000-row state INSERT (~25 ms and 2.4 MB
 * to prepare, store.c); once 100 000 rows are stored the store takes it
 * up. Every row goes in whatever the batches: the variant of 1273 rows
 * after that is 1000 + 200 + 50 + 23 single rows. */
START_TEST(big_insert_prepared_once_it_pays)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(vs_store_state_batch(st), 200);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	vs_result r;
	make_result(&r, 0, 20000);
	for (uint64_t v = 0; v < 5; v++) {
		r.variant = v;
		ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
		ck_assert_int_eq(vs_store_state_batch(st), 200);
	}
	vs_result_finish(&r);
	make_result(&r, 5, 1273);
	ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
	ck_assert_int_eq(vs_store_state_batch(st), 1000);
	vs_result_finish(&r);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	sqlite3 *db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"),
	                    101273);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 5 AND x = 10.0 * step + 5 "
	                             "AND y = -3.0 * step AND z = 0.25"),
	                    1273);
	ck_assert_double_eq(q_double(db, "SELECT max(step) FROM state WHERE "
	                             "variant_id = 5"), 1272);
	sqlite3_close(db);
}
END_TEST

/* SQLite's allocations, counted by a wrapper of its own allocator. */
static sqlite3_mem_methods sqlite_mem;
static long long sqlite_allocs;

static void *count_malloc(int n)
{
	sqlite_allocs++;
	return sqlite_mem.xMalloc(n);
}

static void *count_realloc(void *p, int n)
{
	sqlite_allocs++;
	return sqlite_mem.xRealloc(p, n);
}

/* Storing rows makes no heap allocation per row. A multi-row INSERT
 * that may abort halfway keeps a statement journal, a copy of every page
 * it changes that was already in the transaction, in 1 KiB pieces
 * malloc'd: ~0.4 allocations per state row appended at the b-tree's
 * right edge (and 16 KiB copied per 120 rows). The store's INSERTs (OR
 * FAIL: a failed one is rolled back with its transaction) keep none.
 * After a first variant (statements prepared, cache warm), 3 variants
 * of 6001 state rows and 300 pair rows each (200-, 50- and 1-row state
 * INSERTs, 64-row pair INSERTs) in one transaction. A key stored twice
 * still fails, and the rollback leaves none of that transaction's
 * rows. */
START_TEST(storing_rows_allocates_nothing_per_row)
{
	/* in this test's own process, before SQLite is initialised */
	ck_assert_int_eq(sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_mem),
	                 SQLITE_OK);
	sqlite3_mem_methods m = sqlite_mem;
	m.xMalloc = count_malloc;
	m.xRealloc = count_realloc;
	ck_assert_int_eq(sqlite3_config(SQLITE_CONFIG_MALLOC, &m), SQLITE_OK);

	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	vs_result r;
	for (uint64_t k = 0; k < 4; k++) {
		if (k < 2) {
			ck_assert_int_eq(vs_store_begin(st, &err), 0);
			sqlite_allocs = 0;
		}
		make_result(&r, k, 6001);
		r.n_pairs = 300;
		r.pairs = calloc(300, sizeof *r.pairs);
		for (int i = 0; i < 300; i++)
			r.pairs[i] = (vs_pair_row){i, 1, 2, 3.0, 5.0, 0.5};
		ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
		vs_result_finish(&r);
		if (k == 0)
			ck_assert_int_eq(vs_store_commit(st, &err), 0);
	}
	long long allocs = sqlite_allocs;
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	/* some per statement run and per page split: 0.06 per row (a
	 * statement journal's made it 0.46) */
	ck_assert_msg(allocs < 3 * (6001 + 300) / 10,
	              "%lld allocations for 18903 rows", allocs);

	/* variant 4, then variant 1's rows again: the insert fails */
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	make_result(&r, 4, 2001);
	ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
	vs_result_finish(&r);
	make_result(&r, 1, 2001);
	ck_assert_int_ne(vs_store_put(st, &r, &err), 0);
	vs_result_finish(&r);
	vs_store_rollback(st);
	ck_assert_int_eq(vs_store_close(st, &err), 0);

	sqlite3 *db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"),
	                    4 * 6001);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM pair_row"),
	                    4 * 300);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM variant"), 4);
	sqlite3_close(db);
}
END_TEST

/* The writer's connection: WAL, synchronous NORMAL, temporary tables in
 * memory, and secure_delete off whatever SQLite's build chose (Debian's
 * is on: zeroing the space cells leave costs 1.6 % of a run's
 * instructions). */
START_TEST(writer_connection_settings)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(vs_store_pragma(st, "secure_delete"), 0);
	ck_assert_int_eq(vs_store_pragma(st, "synchronous"), 1);
	ck_assert_int_eq(vs_store_pragma(st, "temp_store"), 2);
	ck_assert_int_eq(vs_store_pragma(st, "page_size"), 16384);
	ck_assert_int_eq(vs_store_pragma(st, "secure_delete; DROP"), -1);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
}
END_TEST

static void q_text(sqlite3 *db, const char *sql, char *out, size_t n)
{
	sqlite3_stmt *s = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	int rc = sqlite3_step(s);
	snprintf(out, n, "%s", rc == SQLITE_ROW && sqlite3_column_text(s, 0)
	                       ? (const char *)sqlite3_column_text(s, 0) : "");
	sqlite3_finalize(s);
}

/* The file's statistics row of state is want, and SQLite's own ANALYZE
 * of the file writes the same. */
static void assert_state_stat(const char *want)
{
	sqlite3 *db = db_open();
	char mine[64], analysed[64];
	q_text(db, "SELECT stat FROM sqlite_stat1 WHERE tbl = 'state'", mine,
	       sizeof mine);
	ck_assert_str_eq(mine, want);
	ck_assert_int_eq(sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL),
	                 SQLITE_OK);
	q_text(db, "SELECT stat FROM sqlite_stat1 WHERE tbl = 'state'",
	       analysed, sizeof analysed);
	ck_assert_str_eq(analysed, want);
	sqlite3_close(db);
}

/* vs_store_finish writes the statistics SQLite's ANALYZE finds: for
 * state, its rows, rows per variant and per (variant, actor), rounded up,
 * counting only variants and actors that have rows (whatever the actor
 * table says); a later write to the file drops them. */
START_TEST(finish_writes_what_analyze_finds)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result r[4];
	make_crowd(&r[0], 0, (const int64_t[3]){1, 2, 3}, 3); /* 9 rows */
	make_crowd(&r[1], 1, (const int64_t[3]){7, 2, 5}, 2); /* 6 rows */
	make_result(&r[2], 2, 0);                             /* failed */
	r[2].status = VS_VARIANT_FAILED;
	strcpy(r[2].error, "boom");
	make_result(&r[3], 3, 5);                             /* 5 rows */
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(vs_store_put(st, &r[i], &err), 0);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_finish(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	/* 20 rows; 3 variants with rows: 20 / 3 -> 7; 7 (variant, actor)
	 * pairs: 20 / 7 -> 3. */
	sqlite3 *db = db_open();
	char variant[64];
	q_text(db, "SELECT stat FROM sqlite_stat1 WHERE tbl = 'variant'",
	       variant, sizeof variant);
	ck_assert_str_eq(variant, "4");
	sqlite3_close(db);
	assert_state_stat("20 7 3 1");
	/* The first commit of a run resuming the file drops them. */
	st = open_mode(VS_STORE_RESUME, NULL, &err);
	vs_result more;
	make_result(&more, 4, 2);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &more, &err), 0);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM sqlite_stat1"),
	                    0);
	sqlite3_close(db);
	for (int i = 0; i < 4; i++)
		vs_result_finish(&r[i]);
	vs_result_finish(&more);
}
END_TEST

/* ANALYZE writes a 2 from at most 1.1 rows per value as 1: 11 variants
 * of one row each but one of two, 12 rows: 12 / 11 rounds up to 2, and
 * 12 <= 1.1 x 11, so "12 1 1 1". */
START_TEST(finish_rounds_as_analyze_does)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	for (int v = 0; v < 11; v++) {
		vs_result r;
		make_result(&r, (uint64_t)v, v == 5 ? 2 : 1);
		ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
		vs_result_finish(&r);
	}
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_finish(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	assert_state_stat("12 1 1 1");
}
END_TEST

/* A statement of the schema is cut at its own ';', not at one inside a
 * comment or a string (actor_param's comments hold both). */
START_TEST(schema_statement_ends_at_its_own_semicolon)
{
	char *t = vs_schema_statement("CREATE TABLE actor_param");
	ck_assert_ptr_nonnull(t);
	size_t n = strlen(t);
	ck_assert_str_eq(t + n - strlen(") WITHOUT ROWID;"), ") WITHOUT ROWID;");
	ck_assert_ptr_nonnull(strstr(t, "PRIMARY KEY (actor_id, role, name)"));
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, t, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	free(t);
	ck_assert_ptr_null(vs_schema_statement("CREATE TABLE no_such"));
}
END_TEST

START_TEST(views_have_contract_columns)
{
	vs_error err = {{0}};
	vs_store_close(open_mode(VS_STORE_CREATE, NULL, &err), NULL);
	sqlite3 *db = db_open();
	static const struct {
		const char *view, *cols;
	} want[] = {
		{"variant_info", "variant_id,status,label,error,params,"
		 "wall_seconds"},
		{"actor_info", "variant_id,actor_id,name,kind,parent_id,"
		 "attach_type,length,width,height,wheel_count,vehicle_model,"
		 "behaviour"},
		{"actor_state", "variant_id,actor_id,step,t,x,y,z,roll,pitch,"
		 "yaw,vx,vy,vz,wx,wy,wz"},
		{"actor_pose", "variant_id,actor_id,step,t,m11,m12,m13,m14,m21,"
		 "m22,m23,m24,m31,m32,m33,m34,m41,m42,m43,m44"},
		{"wheel_pose", "variant_id,actor_id,step,wheel,m11,m12,m13,m14,"
		 "m21,m22,m23,m24,m31,m32,m33,m34,m41,m42,m43,m44"},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char sql[128], got[512] = "";
		snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info"
		         "('%s')", want[i].view);
		sqlite3_stmt *s = NULL;
		ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL),
		                 SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			if (got[0])
				strcat(got, ",");
			strcat(got, (const char *)sqlite3_column_text(s, 0));
		}
		sqlite3_finalize(s);
		ck_assert_str_eq(got, want[i].cols);
	}
	sqlite3_close(db);
}
END_TEST

START_TEST(pose_view_is_rz_ry_rx)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result r;
	make_result(&r, 3, 60);
	vs_store_begin(st, &err);
	vs_store_put(st, &r, &err);
	vs_store_commit(st, &err);
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	sqlite3_stmt *s = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT * FROM actor_pose "
	                 "ORDER BY step", -1, &s, NULL), SQLITE_OK);
	int k = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const vs_state *v = &r.rows[k].s;
		ck_assert_int_eq(sqlite3_column_int(s, 0), 3);
		ck_assert_int_eq(sqlite3_column_int(s, 2), k);
		ck_assert_double_eq_tol(sqlite3_column_double(s, 3), k * 0.01,
		                        1e-15);
		/* R = Rz(yaw) Rx(pitch) Ry(roll), multiplied out by hand. */
		double cy = cos(v->yaw), sy = sin(v->yaw);
		double cp = cos(v->pitch), sp = sin(v->pitch);
		double cr = cos(v->roll), sr = sin(v->roll);
		double m[16] = {
			cy * cr - sy * sp * sr, -sy * cp, cy * sr + sy * sp * cr,
			v->x, sy * cr + cy * sp * sr, cy * cp,
			sy * sr - cy * sp * cr, v->y, -cp * sr, sp, cp * cr,
			v->z, 0, 0, 0, 1};
		for (int i = 0; i < 16; i++)
			ck_assert_double_eq_tol(sqlite3_column_double(s, 4 + i),
			                        m[i], 1e-14);
		k++;
	}
	ck_assert_int_eq(k, 60);
	sqlite3_finalize(s);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM actor_state "
	                             "WHERE variant_id = 3 AND x = 10 * step + "
	                             "3"), 60);
	sqlite3_close(db);
	vs_result_finish(&r);
}
END_TEST

START_TEST(failed_variant_keeps_reason)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result r;
	make_result(&r, 0, 0);
	r.status = VS_VARIANT_FAILED;
	strcpy(r.error, "actor 1 (ego): x: boom");
	vs_store_begin(st, &err);
	ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
	vs_store_commit(st, &err);
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	sqlite3_stmt *s = NULL;
	sqlite3_prepare_v2(db, "SELECT status, error FROM variant_info", -1,
	                   &s, NULL);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "failed");
	ck_assert_str_eq((const char *)sqlite3_column_text(s, 1),
	                 "actor 1 (ego): x: boom");
	sqlite3_finalize(s);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM actor_state"),
	                    0);
	sqlite3_close(db);
	vs_result_finish(&r);
}
END_TEST

/* A view of rows [from, from + n) of r, as a chunk of variant r->variant
 * (the store only reads it). */
static vs_result part_of(const vs_result *r, int64_t from, int64_t n)
{
	vs_result p;
	memset(&p, 0, sizeof p);
	p.variant = r->variant;
	p.rows = r->rows + from;
	p.n_rows = n;
	return p;
}

START_TEST(variant_in_parts_is_stored_as_one)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result a, b, c;
	make_result(&a, 0, 120);
	make_result(&b, 1, 77);
	make_result(&c, 2, 5);
	/* One signal row in b's first chunk: its name is stored with it. */
	char *names[1] = {"probe.out"}, *units[1] = {"m/s"};
	vs_signal_row sig = {1, 0, 0, 2.5};
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &a, &err), 0);
	ck_assert_int_eq(vs_store_variant_begin(st, 1, &err), 0);
	vs_result p = part_of(&b, 0, 30);
	p.signal_names = names;
	p.signal_units = units;
	p.n_signal_names = 1;
	p.signals = &sig;
	p.n_signals = 1;
	ck_assert_msg(vs_store_variant_rows(st, &p, &err) == 0, "%s", err.msg);
	p = part_of(&b, 30, 30);
	ck_assert_int_eq(vs_store_variant_rows(st, &p, &err), 0);
	/* The rest, 17 rows, ends the variant with its status. */
	vs_result rest = b;
	rest.rows = b.rows + 60;
	rest.n_rows = 17;
	ck_assert_int_eq(vs_store_put(st, &rest, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &c, &err), 0);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	/* 120 rows of variant 0, then b's 77, then c's 5. */
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 1"), 77);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 2"), 5);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"), 202);
	/* make_result's motion: x = 10 k + variant at step k, k = 0..76. */
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 1 AND step BETWEEN 0 AND 76 "
	                             "AND x = 10.0 * step + 1"), 77);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM actor WHERE "
	                             "variant_id = 1"), 1);
	ck_assert_double_eq(q_double(db, "SELECT value FROM actor_signal "
	                             "WHERE variant_id = 1 AND "
	                             "name = 'probe.out'"), 2.5);
	/* stored with the unit its plugin declares */
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM actor_signal "
	                             "WHERE name = 'probe.out' AND "
	                             "unit = 'm/s'"), 1);
	sqlite3_close(db);
	vs_result_finish(&a);
	vs_result_finish(&b);
	vs_result_finish(&c);
}
END_TEST

/* A store that made its file counts the state rows it commits, and its
 * finish writes that count instead of reading every page: rows rolled
 * back with a transaction, or with a variant cancelled while stored in
 * parts, are not counted; rows stored in parts are. The numbers must be
 * ANALYZE's. */
START_TEST(finish_counts_what_was_committed)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result a, b, c, d;
	make_result(&a, 0, 30);
	make_result(&b, 1, 12);
	make_result(&c, 2, 7);
	make_result(&d, 3, 9);
	/* a transaction rolled back: variant 0's 30 rows go */
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &a, &err), 0);
	vs_store_rollback(st);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &a, &err), 0);       /* 30 */
	ck_assert_int_eq(vs_store_variant_begin(st, 1, &err), 0);
	vs_result p = part_of(&b, 0, 5);
	ck_assert_int_eq(vs_store_variant_rows(st, &p, &err), 0);
	vs_store_variant_cancel(st);                            /* 0 */
	vs_result_finish(&b);
	make_result(&b, 1, 0);
	b.status = VS_VARIANT_FAILED;
	strcpy(b.error, "crashed");
	ck_assert_int_eq(vs_store_put(st, &b, &err), 0);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_variant_begin(st, 2, &err), 0);
	p = part_of(&c, 0, 4);
	ck_assert_int_eq(vs_store_variant_rows(st, &p, &err), 0);
	vs_result rest = c; /* the variant's end, with its last 3 rows */
	rest.rows = c.rows + 4;
	rest.n_rows = 3;
	ck_assert_int_eq(vs_store_put(st, &rest, &err), 0);    /* 7 */
	ck_assert_int_eq(vs_store_put(st, &d, &err), 0);       /* 9 */
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_finish(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	/* 46 rows; 3 variants with rows: 46 / 3 -> 16; one actor each */
	assert_state_stat("46 16 16 1");
	/* A count given is taken as it is, not read from the pages: 4600
	 * rows over the same 3 variants would be 1534 per variant. */
	sqlite3 *db = db_open();
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(vs_store_stats_write(db, path, 4600, &err), 0);
	ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL),
	                 SQLITE_OK);
	char stat[64];
	q_text(db, "SELECT stat FROM sqlite_stat1 WHERE tbl = 'state'", stat,
	       sizeof stat);
	ck_assert_str_eq(stat, "4600 1534 1534 1");
	sqlite3_close(db);
	vs_result_finish(&a);
	vs_result_finish(&b);
	vs_result_finish(&c);
	vs_result_finish(&d);
}
END_TEST

START_TEST(cancelled_variant_leaves_no_rows)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	vs_result a, b, c;
	make_result(&a, 0, 120);
	make_result(&b, 1, 77);
	make_result(&c, 2, 5);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &a, &err), 0);
	ck_assert_int_eq(vs_store_variant_begin(st, 1, &err), 0);
	vs_result p = part_of(&b, 0, 40);
	ck_assert_int_eq(vs_store_variant_rows(st, &p, &err), 0);
	p = part_of(&b, 40, 37);
	ck_assert_int_eq(vs_store_variant_rows(st, &p, &err), 0);
	/* A crash: its rows go, its failure is stored without rows. */
	vs_store_variant_cancel(st);
	vs_result_finish(&b);
	make_result(&b, 1, 0);
	b.status = VS_VARIANT_FAILED;
	strcpy(b.error, "crashed: signal 11 (SIGSEGV)");
	ck_assert_int_eq(vs_store_put(st, &b, &err), 0);
	ck_assert_int_eq(vs_store_put(st, &c, &err), 0);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	vs_store_close(st, NULL);
	sqlite3 *db = db_open();
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state"), 125);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 1"), 0);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM variant WHERE "
	                             "variant_id = 1 AND status = 2"), 1);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM state WHERE "
	                             "variant_id = 2"), 5);
	sqlite3_close(db);
	vs_result_finish(&a);
	vs_result_finish(&b);
	vs_result_finish(&c);
}
END_TEST

START_TEST(variant_in_parts_needs_a_transaction)
{
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_int_eq(vs_store_variant_begin(st, 0, &err), VS_RC_IO);
	ck_assert_ptr_nonnull(strstr(err.msg, "internal error"));
	vs_store_close(st, NULL);
}
END_TEST

static off_t file_size(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 ? sb.st_size : 0;
}

/* The checkpointer thread copies the writer's commits into the file while
 * the writer goes on, and the WAL starts again from its beginning every
 * VS_CKPT_RESTART frames: the writer begins each transaction right after
 * its last commit, so without the wait in vs_ckpt_before_begin no pass
 * would ever find the WAL fully copied at a BEGIN, and the WAL would hold
 * every page written (here 4 x the bound). */
START_TEST(checkpointer_copies_beside_the_writer)
{
	enum { COMMITS = 64, ROWS = 256, PAGE = 4096 };
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA page_size = 4096; "
	                              "PRAGMA journal_mode = WAL; "
	                              "PRAGMA synchronous = NORMAL; "
	                              "CREATE TABLE t (b BLOB)", NULL, NULL,
	                              NULL), SQLITE_OK);
	vs_ckpt c;
	ck_assert_int_eq(vs_ckpt_start(&c, db, path), 0);
	char wal[320];
	snprintf(wal, sizeof wal, "%s-wal", path);
	off_t most = 0;
	for (int i = 0; i < COMMITS; i++) {
		vs_ckpt_before_begin(&c);
		/* ~ROWS pages: one 3.5 kB blob per 4 KiB page */
		ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE; "
		                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
		                 "SELECT i + 1 FROM n WHERE i < 256) "
		                 "INSERT INTO t SELECT randomblob(3500) FROM n; "
		                 "COMMIT", NULL, NULL, NULL), SQLITE_OK);
		off_t w = file_size(wal);
		most = w > most ? w : most;
	}
	/* frames of 24 + PAGE bytes; one commit past the bound, and its
	 * b-tree pages */
	off_t bound = (off_t)(VS_CKPT_RESTART + 2 * ROWS) * (24 + PAGE) + 32;
	ck_assert_int_le(most, bound);
	/* Passes are asked for every VS_CKPT_STEP frames, and the WAL can
	 * restart only after one: it held that many at least once (a
	 * restart before VS_CKPT_RESTART is allowed: a pass may finish
	 * while the writer is descheduled between COMMIT and BEGIN). */
	ck_assert_int_ge(most, (off_t)VS_CKPT_STEP * (24 + PAGE));
	/* Copied while the writer's connection was open: the writer's own
	 * commits no longer checkpoint (the hook replaced that), so the
	 * file holds the rows only if the thread copied them. */
	vs_ckpt_before_begin(&c);
	ck_assert_int_ge(file_size(path),
	                 (off_t)(COMMITS - 1) * ROWS * PAGE / 2);
	vs_ckpt_stop(&c);
	ck_assert_int_eq(c.running, 0);
	ck_assert_uint_gt(c.passed, 0); /* the thread is gone: no race */
	sqlite3_close(db);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM t"),
	                    COMMITS * ROWS);
	sqlite3_close(db);
}
END_TEST

/* Threads of this process (/proc/self/task). */
static int thread_count(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	ck_assert_ptr_nonnull(f);
	char line[256];
	int n = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* A run forks its simulation server after opening the file, from a process
 * that must have one thread (a thread inside malloc at the fork leaves the
 * children a lock nobody releases): the checkpointer starts with the first
 * write transaction, and is gone once the file is closed. */
START_TEST(no_thread_before_the_first_write)
{
	vs_error err = {{0}};
	int before = thread_count();
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(thread_count(), before);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	ck_assert_int_eq(thread_count(), before + 1);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	ck_assert_int_eq(vs_store_close(st, &err), 0);
	/* joined; the kernel may count an exited thread a moment longer */
	struct timespec ms10 = {0, 10000000L};
	for (int i = 0; i < 100 && thread_count() != before; i++)
		nanosleep(&ms10, NULL);
	ck_assert_int_eq(thread_count(), before);
}
END_TEST

/* sum(payload) over a table's pages (dbstat): the record bytes, which
 * differ when a value is stored under another serial type (3.0 as an
 * integer takes 1 byte, as a REAL 8). */
static double payload(sqlite3 *db, const char *schema)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT sum(payload) FROM dbstat('%s') "
	         "WHERE name = 'state'", schema);
	return q_double(db, sql);
}

/* The store binds an integral double as an integer (bound.h); SQLite
 * stores an integral REAL as an integer anyway (up to 2^47, larger ones
 * as REALs again). The state rows must be the bytes SQLite writes when
 * given every value as a double: the same rows bound that way into a table
 * of the same schema hold the same values and the same payload bytes. */
START_TEST(integral_values_stored_as_sqlite_stores_them)
{
	static const double edge[] = {
		0.0, -0.0, 1.0, -3.0, 0.5, 2.0e-300, 140737488355327.0,
		140737488355328.0, -140737488355328.0, -140737488355329.0,
		8.9e15, 9.1e15, -9.1e15, 1e300, -1e300, 4503599627370497.0,
		NAN, INFINITY, -INFINITY, 12345.0, -0.25};
	enum { E = sizeof edge / sizeof edge[0], ROWS = 3 * E };
	vs_error err = {{0}};
	vs_store *st = open_mode(VS_STORE_CREATE, NULL, &err);
	ck_assert_int_eq(vs_store_begin(st, &err), 0);
	vs_result r;
	make_result(&r, 0, ROWS);
	for (int k = 0; k < ROWS; k++) {
		vs_state_row *row = &r.rows[k];
		row->s.x = edge[k % E];
		row->s.y = edge[(k + 1) % E];
		row->s.vx = edge[(k + 2) % E];
		row->s.yaw = edge[(k / E + k) % E];
		row->m.lane = 0;
		row->m.position = edge[(k + 3) % E];
		row->m.angle = edge[(k + 5) % E];
	}
	ck_assert_int_eq(vs_store_put(st, &r, &err), 0);
	vs_result_finish(&r);
	ck_assert_int_eq(vs_store_commit(st, &err), 0);
	vs_store_close(st, NULL);

	sqlite3 *db = db_open();
	char ref[320], *sql = NULL;
	snprintf(ref, sizeof ref, "ATTACH '%s/ref.db' AS ref", dir);
	ck_assert_int_eq(sqlite3_exec(db, ref, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_stmt *q = NULL, *ins = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema "
	                                    "WHERE name = 'state'", -1, &q,
	                                    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	/* CREATE TABLE state ... -> CREATE TABLE ref.state ... */
	const char *create = (const char *)sqlite3_column_text(q, 0);
	sql = sqlite3_mprintf("CREATE TABLE ref.%s", create + 13);
	sqlite3_finalize(q);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT * FROM main.state "
	                                    "ORDER BY 1, 2, 3", -1, &q, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO ref.state VALUES ("
	                 "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                 -1, &ins, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_column_count(q), 24);
	int n = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		for (int c = 0; c < 24; c++) {
			int t = sqlite3_column_type(q, c);
			if (t == SQLITE_NULL)
				sqlite3_bind_null(ins, c + 1);
			else if (c < 3 || c == 20 || c == 21) /* keys, lane */
				sqlite3_bind_int64(ins, c + 1,
				                   sqlite3_column_int64(q, c));
			else /* every REAL column given as a double */
				sqlite3_bind_double(ins, c + 1,
				                    sqlite3_column_double(q, c));
		}
		/* and exactly the value given */
		int k = sqlite3_column_int(q, 2);
		double want = edge[k % E];
		if (isnan(want))
			ck_assert_int_eq(sqlite3_column_type(q, 3), SQLITE_NULL);
		else
			ck_assert_int_eq(memcmp(&(double){
			    sqlite3_column_double(q, 3)}, &(double){
			    want == 0 ? 0.0 : want}, sizeof want), 0);
		ck_assert_int_eq(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
		n++;
	}
	ck_assert_int_eq(n, ROWS);
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	ck_assert_double_eq(q_double(db, "SELECT count(*) FROM (SELECT * FROM "
	                             "main.state EXCEPT SELECT * FROM "
	                             "ref.state)"), 0);
	ck_assert_double_eq(payload(db, "main"), payload(db, "ref"));
	sqlite3_close(db);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_refuses_existing_file);
	tcase_add_test(tc, failed_lane_write_says_why);
	tcase_add_test(tc, resume_checks_identity);
	tcase_add_test(tc, resume_checks_plugin_build);
	tcase_add_test(tc, overwrite_replaces);
	tcase_add_test(tc, rolled_back_variant_leaves_nothing);
	tcase_add_test(tc, repeated_and_changed_values_stored_exactly);
	tcase_add_test(tc, state_rows_stored_in_key_order);
	tcase_add_test(tc, big_insert_prepared_once_it_pays);
	tcase_add_test(tc, storing_rows_allocates_nothing_per_row);
	tcase_add_test(tc, writer_connection_settings);
	tcase_add_test(tc, finish_writes_what_analyze_finds);
	tcase_add_test(tc, finish_rounds_as_analyze_does);
	tcase_add_test(tc, finish_counts_what_was_committed);
	tcase_add_test(tc, views_have_contract_columns);
	tcase_add_test(tc, schema_statement_ends_at_its_own_semicolon);
	tcase_add_test(tc, pose_view_is_rz_ry_rx);
	tcase_add_test(tc, failed_variant_keeps_reason);
	tcase_add_test(tc, variant_in_parts_is_stored_as_one);
	tcase_add_test(tc, cancelled_variant_leaves_no_rows);
	tcase_add_test(tc, variant_in_parts_needs_a_transaction);
	tcase_add_test(tc, checkpointer_copies_beside_the_writer);
	tcase_add_test(tc, no_thread_before_the_first_write);
	tcase_add_test(tc, integral_values_stored_as_sqlite_stores_them);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(store_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
