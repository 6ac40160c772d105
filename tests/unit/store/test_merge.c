/* Check suite for merge.c at unit level: shard and part files are written
 * here through the store (no simulation), with row counts chosen so that
 * every variant of the merged file can be checked by hand, then merged;
 * and every refusal of vs_merge, each with its message.
 *
 * The sweep of every file here has 7 variants. Variant v stores v + 1
 * state rows (one actor, steps 0..v), except variant 4, stored failed
 * with no rows: 23 state rows in all.
 * Shards of N = 3 hold {0, 3, 6}, {1, 4}, {2, 5}. */
#include <check.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/merge.h"
#include "store/store.h"

enum { COUNT = 7 };

static char dir[256];

static void setup(void)
{
	strcpy(dir, "/tmp/vs_merge_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A path in the test's folder; each call's own buffer (a test makes
 * fewer than 64 paths). */
static char *in_dir(const char *name)
{
	static char buf[64][400];
	static int k;
	char *p = buf[k++ % 64];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return p;
}

static const vs_plugin_row plugin = {"kinematic_bicycle", "vehicle_model",
                                     "1.0", "/p/kb.so", "00ff"};

/* The record of one file of the test sweep. */
static vs_store_def sweep_def(const char *path, const char *shard)
{
	vs_store_def d = vs_store_default_def();
	d.path = path;
	d.scenario_text = "name: merged\n";
	d.step = 0.1;
	d.shard = shard;
	d.variant_count = COUNT;
	d.plugins = &plugin;
	d.n_plugins = 1;
	return d;
}

/* x of variant v's row at step k: which variant and step a row is. */
static double x_of(uint64_t v, int k)
{
	return 1000.0 * (double)v + k;
}

static void make_result(vs_result *r, uint64_t v)
{
	memset(r, 0, sizeof *r);
	r->variant = v;
	r->status = v == 4 ? VS_VARIANT_FAILED : VS_VARIANT_DONE;
	if (v == 4)
		strcpy(r->error, "actor 1 (ego): test: failed on purpose");
	r->params_json = strdup("{}");
	r->n_actors = 1;
	r->actors = calloc(1, sizeof *r->actors);
	r->actors[0] = (vs_actor_row){1, "ego", "vehicle", 0, NULL,
	                              4.8, 1.9, 1.5, 4, "kinematic_bicycle",
	                              NULL};
	r->n_rows = v == 4 ? 0 : (int64_t)v + 1;
	r->rows = calloc((size_t)r->n_rows + 1, sizeof *r->rows);
	for (int k = 0; k < r->n_rows; k++) {
		r->rows[k].actor_id = 1;
		r->rows[k].step = k;
		r->rows[k].s.x = x_of(v, k);
		r->rows[k].m.lane = -1;
	}
}

/* Writes a file of the test sweep holding variants vars[0..n), in that
 * order, with record d (its path is the file). */
static void write_def(const vs_store_def *d, const uint64_t *vars, int n)
{
	vs_error err = {{0}};
	vs_store *st = NULL;
	ck_assert_msg(vs_store_open(d, &st, &err) == VS_RC_OK, "%s", err.msg);
	ck_assert_int_eq(vs_store_begin(st, &err), VS_RC_OK);
	for (int i = 0; i < n; i++) {
		vs_result r;
		make_result(&r, vars[i]);
		ck_assert_msg(vs_store_put(st, &r, &err) == VS_RC_OK, "%s",
		              err.msg);
		vs_result_finish(&r);
	}
	ck_assert_int_eq(vs_store_commit(st, &err), VS_RC_OK);
	ck_assert_int_eq(vs_store_close(st, &err), VS_RC_OK);
}

static const char *write_file(const char *name, const char *shard,
                              const uint64_t *vars, int n)
{
	char *path = in_dir(name);
	vs_store_def d = sweep_def(path, shard);
	write_def(&d, vars, n);
	return path;
}

static const uint64_t s0[] = {0, 3, 6}, s1[] = {1, 4}, s2[] = {2, 5};

/* The three shards of N = 3, complete; paths into p. */
static void three_shards(const char *p[3])
{
	p[0] = write_file("s0.db", "0/3", s0, 3);
	p[1] = write_file("s1.db", "1/3", s1, 2);
	p[2] = write_file("s2.db", "2/3", s2, 2);
}

static vs_rc merge(const char *const *p, int n, int partial,
                   vs_merge_summary *sum, vs_error *err)
{
	return vs_merge(in_dir("out.db"), p, n, partial, sum, err);
}

static sqlite3 *open_out(void)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(in_dir("out.db"), &db), SQLITE_OK);
	return db;
}

static long long q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK,
	              "%s: %s", sql, sqlite3_errmsg(db));
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	long long v = sqlite3_column_type(s, 0) == SQLITE_NULL
	                      ? -1
	                      : sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Checks the merged file's variants against hand-worked counts:
 * want[v] = its number of state rows, -1 for a variant stored without
 * rows, 0 for a variant the file must not hold. */
static void check_variants(const long long want[COUNT])
{
	sqlite3 *db = open_out();
	long long total = 0;
	for (int v = 0; v < COUNT; v++) {
		char sql[200];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM variant WHERE "
		         "variant_id = %d", v);
		long long held = q_int(db, sql);
		ck_assert_int_eq(held, want[v] != 0);
		if (!held)
			continue;
		snprintf(sql, sizeof sql, "SELECT count(*) FROM state WHERE "
		         "variant_id = %d", v);
		ck_assert_int_eq(q_int(db, sql), want[v] < 0 ? 0 : want[v]);
		if (want[v] < 0)
			continue;
		total += want[v];
		/* The rows moved with their variant: its steps 0..v, each with
		 * its own x. */
		snprintf(sql, sizeof sql, "SELECT count(*) FROM state WHERE "
		         "variant_id = %d AND step BETWEEN 0 AND %d AND x = "
		         "%.17g + step * %.17g", v, v, x_of(v, 0),
		         x_of(v, 1) - x_of(v, 0));
		ck_assert_int_eq(q_int(db, sql), v + 1);
	}
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM state"), total);
	sqlite3_close(db);
}

static const long long whole[COUNT] = {1, 2, 3, 4, -1, 6, 7};

/* --- merging ------------------------------------------------------------ */

START_TEST(shards_copied_in_index_order)
{
	const char *p[3];
	three_shards(p);
	/* Given in any order: the output is the same. */
	const char *order[3] = {p[2], p[0], p[1]};
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_msg(merge(order, 3, 0, &sum, &err) == VS_RC_OK, "%s",
	              err.msg);
	ck_assert_int_eq(sum.variants, COUNT);
	ck_assert_int_eq(sum.missing, 0);
	ck_assert_int_eq(sum.shards, 3);
	check_variants(whole);
	sqlite3 *db = open_out();
	/* One unsharded run's record, the failed variant's reason kept. */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM meta WHERE key = "
	                       "'shard' AND value = '0/1'"), 1);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM variant WHERE "
	                       "variant_id = 4 AND status = 2 AND error LIKE "
	                       "'%on purpose'"), 1);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM actor"), COUNT);
	sqlite3_close(db);
}
END_TEST

START_TEST(merged_equals_one_writer)
{
	const char *p[3];
	three_shards(p);
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_int_eq(merge(p, 3, 0, &sum, &err), VS_RC_OK);
	static const uint64_t all[COUNT] = {0, 1, 2, 3, 4, 5, 6};
	write_file("one.db", "0/1", all, COUNT);
	sqlite3 *db = open_out();
	char sql[600];
	snprintf(sql, sizeof sql, "ATTACH '%s' AS one", in_dir("one.db"));
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	/* Every row of every per-variant table. */
	static const char *const diff[] = {
		"SELECT count(*) FROM (SELECT * FROM main.state EXCEPT "
		"SELECT * FROM one.state)",
		"SELECT count(*) FROM (SELECT * FROM main.variant EXCEPT "
		"SELECT * FROM one.variant)",
		"SELECT count(*) FROM (SELECT * FROM main.actor EXCEPT "
		"SELECT * FROM one.actor)",
		"SELECT count(*) FROM (SELECT * FROM main.summary EXCEPT "
		"SELECT * FROM one.summary)",
		"SELECT (SELECT count(*) FROM main.state) - "
		"(SELECT count(*) FROM one.state)",
	};
	for (size_t i = 0; i < sizeof diff / sizeof diff[0]; i++)
		ck_assert_msg(q_int(db, diff[i]) == 0, "%s", diff[i]);
	sqlite3_close(db);
}
END_TEST

START_TEST(parts_merge_like_shards)
{
	static const uint64_t a[] = {0, 2, 5}, b[] = {1, 3, 4, 6};
	const char *p[2] = {write_file("rank-0.db", "part 0", a, 3),
	                    write_file("rank-1.db", "part 1", b, 4)};
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_msg(merge(p, 2, 0, &sum, &err) == VS_RC_OK, "%s", err.msg);
	ck_assert_int_eq(sum.variants, COUNT);
	check_variants(whole);
}
END_TEST

START_TEST(allow_partial_copies_what_exists)
{
	const char *p[3];
	three_shards(p);
	vs_merge_summary sum;
	vs_error err = {{0}};
	/* Shard 2/3 (variants 2 and 5) left out. */
	ck_assert_msg(merge(p, 2, 1, &sum, &err) == VS_RC_OK, "%s", err.msg);
	ck_assert_int_eq(sum.variants, 5);
	ck_assert_int_eq(sum.missing, 2);
	/* 1 + 2 rows, then variant 3's 4, variant 6's 7. */
	static const long long want[COUNT] = {1, 2, 0, 4, -1, 0, 7};
	check_variants(want);
}
END_TEST

/* --- refusals ----------------------------------------------------------- */

/* Merging p refuses with an input error whose message holds each of the
 * NULL-terminated words, and leaves no output. */
static void refused(const char *const *p, int n, int partial, ...)
{
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_int_eq(merge(p, n, partial, &sum, &err), VS_RC_INPUT);
	va_list ap;
	va_start(ap, partial);
	const char *w;
	while ((w = va_arg(ap, const char *)))
		ck_assert_msg(strstr(err.msg, w), "'%s' not in: %s", w, err.msg);
	va_end(ap);
	ck_assert_int_ne(access(in_dir("out.db"), F_OK), 0);
}

START_TEST(refuses_foreign_shard)
{
	const char *p[3];
	three_shards(p);
	char *other = in_dir("other.db");
	vs_store_def d = sweep_def(other, "2/3");
	d.scenario_text = "name: another\n";
	write_def(&d, s2, 2);
	const char *q[3] = {p[0], p[1], other};
	refused(q, 3, 0, other, "not a shard of the sweep", "scenario_text",
	        (char *)NULL);
	/* Another build of a plugin is another sweep too. */
	vs_plugin_row rebuilt = plugin;
	rebuilt.digest = "abcd";
	char *third = in_dir("third.db");
	d = sweep_def(third, "2/3");
	d.plugins = &rebuilt;
	write_def(&d, s2, 2);
	q[2] = third;
	refused(q, 3, 0, "plugin builds differ", (char *)NULL);
}
END_TEST

START_TEST(refuses_duplicate_shard)
{
	const char *p[3];
	three_shards(p);
	const char *q[3] = {p[0], p[1], p[1]};
	refused(q, 3, 0, "shard 1/3 is already given", (char *)NULL);
	/* Even with --allow-partial. */
	refused(q, 3, 1, "already given", (char *)NULL);
}
END_TEST

START_TEST(refuses_missing_shard)
{
	const char *p[3];
	three_shards(p);
	const char *q[2] = {p[0], p[2]};
	refused(q, 2, 0, "shard 1/3 is missing", "--allow-partial",
	        (char *)NULL);
}
END_TEST

START_TEST(refuses_incomplete_shard)
{
	const char *p[3];
	three_shards(p);
	static const uint64_t first_two[] = {0, 3};
	const char *q[3] = {write_file("short.db", "0/3", first_two, 2), p[1],
	                    p[2]};
	refused(q, 3, 0, "shard 0/3 holds 2 of its 3 variants", (char *)NULL);
	/* --allow-partial merges it: variant 6 is missing (before the fix
	 * that came with this suite, the merge failed with an I/O error). */
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_int_eq(merge(q, 3, 1, &sum, &err), VS_RC_OK);
	ck_assert_int_eq(sum.variants, 6);
	ck_assert_int_eq(sum.missing, 1);
}
END_TEST

START_TEST(refuses_other_split_and_mixed_kinds)
{
	static const uint64_t even[] = {0, 2, 4, 6};
	const char *p[3];
	three_shards(p);
	const char *q[2] = {p[0], write_file("h.db", "0/2", even, 4)};
	refused(q, 2, 1, "does not split the sweep", (char *)NULL);
	static const uint64_t a[] = {1, 2, 4, 5};
	q[1] = write_file("rank-1.db", "part 1", a, 4);
	refused(q, 2, 1, "merge parts only with parts", (char *)NULL);
}
END_TEST

START_TEST(refuses_parts_overlapping_or_short)
{
	static const uint64_t a[] = {0, 2, 5}, b[] = {1, 2, 3, 4, 6};
	const char *p[2] = {write_file("rank-0.db", "part 0", a, 3),
	                    write_file("rank-1.db", "part 1", b, 5)};
	refused(p, 2, 0, "variant 2 is in both", (char *)NULL);
	static const uint64_t c[] = {1, 3, 6};
	p[1] = write_file("rank-2.db", "part 2", c, 3);
	refused(p, 2, 0, "the parts hold 6 of the sweep's 7", (char *)NULL);
	p[1] = p[0];
	refused(p, 2, 1, "part 0 is already given", (char *)NULL);
}
END_TEST

START_TEST(refuses_existing_output_and_non_results)
{
	const char *p[3];
	three_shards(p);
	FILE *f = fopen(in_dir("out.db"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	vs_merge_summary sum;
	vs_error err = {{0}};
	ck_assert_int_eq(merge(p, 3, 0, &sum, &err), VS_RC_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "exists"));
	remove(in_dir("out.db"));
	const char *none[1] = {in_dir("none.db")};
	refused(none, 1, 0, "no such results file", (char *)NULL);
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *t = tcase_create("merge");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, shards_copied_in_index_order);
	tcase_add_test(t, merged_equals_one_writer);
	tcase_add_test(t, parts_merge_like_shards);
	tcase_add_test(t, allow_partial_copies_what_exists);
	tcase_add_test(t, refuses_foreign_shard);
	tcase_add_test(t, refuses_duplicate_shard);
	tcase_add_test(t, refuses_missing_shard);
	tcase_add_test(t, refuses_incomplete_shard);
	tcase_add_test(t, refuses_other_split_and_mixed_kinds);
	tcase_add_test(t, refuses_parts_overlapping_or_short);
	tcase_add_test(t, refuses_existing_output_and_non_results);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(merge_suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
