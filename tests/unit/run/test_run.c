/* Check suite for the runner (core/run/runner.c), driven through its index
 * source hook (vs_index_source) on a small scenario written by the test:
 * two cars, 0.1 s steps for 1 s, swept over a 4 x 3 grid (12 variants).
 *
 * Hand-worked expectations: a variant records steps 0..10 of 2 actors,
 * 22 state rows, whatever the number of threads. Files are compared
 * through SQL, table by table. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "plugin/registry.h"
#include "run/runner.h"
#include "sim/sim.h"
#include "test_forkserver.h"
#include "test_journal.h"

enum { N_VARIANTS = 12, ROWS = 22 };

/* The order the test's source yields the variants in. */
static const uint64_t order[N_VARIANTS] = {7, 2, 11, 0, 5, 9, 1, 3, 10, 4,
                                           8, 6};

static const char scenario_yaml[] =
	"vsweep: 1\n"
	"name: runner unit\n"
	"step: 0.1\n"
	"duration: 1\n"
	"assets:\n"
	"  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,\n"
	"          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}\n"
	"actors:\n"
	"  - id: 1\n"
	"    name: ego\n"
	"    asset: sedan\n"
	"    start: {position: [0, 0, 0], yaw: 0}\n"
	"    speed: 10\n"
	"    vehicle_model: {plugin: kinematic_bicycle,\n"
	"                    params: {steering_ratio: 15}}\n"
	"    behaviour: {plugin: constant_steer,\n"
	"                params: {steering_wheel_deg: 45}}\n"
	"  - id: 2\n"
	"    name: other\n"
	"    asset: sedan\n"
	"    start: {position: [0, 200, 0], yaw: 0}\n"
	"    speed: 5\n"
	"    vehicle_model: {plugin: kinematic_bicycle}\n"
	"    behaviour: {plugin: constant_steer,\n"
	"                params: {steering_wheel_deg: 0}}\n";

static const char sweep_yaml[] =
	"vsweep: 1\n"
	"blocks:\n"
	"  - grid:\n"
	"      - {actor: 1, speed: {values: [5, 10, 15, 20]}}\n"
	"      - {actor: 2, param: behaviour.steering_wheel_deg,\n"
	"         values: [0, 30, 60]}\n";

static char dir[256];
static vs_registry *reg;
static vs_scenario *scn;
static vs_sweep *sw;

static char *in_dir(const char *name)
{
	static char buf[32][400];
	static int k;
	char *p = buf[k++ % 32];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	strcpy(dir, "/tmp/vs_run_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *scn_path = in_dir("seed.yaml"), *sw_path = in_dir("sweep.yaml");
	write_text(scn_path, scenario_yaml);
	write_text(sw_path, sweep_yaml);
	const char *root = getenv("VSWEEP_BUILD_ROOT");
	ck_assert_msg(root && *root, "run through meson test");
	char plugins[400];
	snprintf(plugins, sizeof plugins, "%s/plugins", root);
	const char *dirs[1] = {plugins};
	reg = vs_registry_create(dirs, 1, vs_sim_host());
	vs_error err = {{0}};
	scn = vs_scenario_load(scn_path, &err);
	ck_assert_msg(scn != NULL, "%s", err.msg);
	ck_assert_msg(vs_scenario_bind(scn, reg, &err) == 0, "%s", err.msg);
	sw = vs_sweep_load(sw_path, scn, &err);
	ck_assert_msg(sw != NULL, "%s", err.msg);
	ck_assert_int_eq(sw->count, N_VARIANTS);
	vs_run_stop = 0;
}

static void teardown(void)
{
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The test's index source: order[from .. to), then nothing; with
 * stop_at >= 0 it sets vs_run_stop when asked for the stop_at-th index
 * (still yielding it, as a source racing a signal may). */
typedef struct list_source {
	int pos, to;
	int stop_at;
} list_source;

static int list_next(void *ctx, uint64_t *i)
{
	list_source *q = ctx;
	if (q->pos == q->stop_at)
		vs_run_stop = 1;
	else if (vs_run_stop)
		return 0;
	if (q->pos >= q->to)
		return 0;
	*i = order[q->pos++];
	return 1;
}

static vs_run_opts opts(const char *out, int jobs)
{
	return (vs_run_opts){
		.out = out,
		.jobs = jobs,
		.shard_k = 0,
		.shard_n = 1,
		.mode = VS_STORE_CREATE,
		.record_every = 1,
		.record = "",
	};
}

static int contain; /* the runs of run_list simulate in child processes */

/* Runs order[from .. to) into out with jobs threads. */
static vs_rc run_list(const char *out, int jobs, vs_store_mode mode,
                      int from, int to, int stop_at, vs_run_summary *sum)
{
	list_source q = {from, to, stop_at};
	vs_index_source src = {list_next, &q};
	vs_run_opts o = opts(out, jobs);
	o.mode = mode;
	o.contain = contain;
	o.source = &src;
	vs_error err = {{0}};
	vs_rc rc = vs_run(scn, sw, reg, &o, sum, &err);
	ck_assert_msg(rc == VS_RC_OK, "%s", err.msg);
	return rc;
}

static long long q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK,
	              "%s: %s", sql, sqlite3_errmsg(db));
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	long long v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The file holds exactly the variants ids[0 .. n), each done with its 22
 * state rows, step 0..10 of each actor. */
static void check_stored(const char *path, const uint64_t *ids, int n)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM variant"), n);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM state"),
	                 (long long)n * ROWS);
	for (int p = 0; p < n; p++) {
		char sql[300];
		snprintf(sql, sizeof sql, "SELECT status = 1 AND (SELECT "
		         "count(*) FROM state s WHERE s.variant_id = v.variant_id "
		         "AND s.step BETWEEN 0 AND 10) = %d FROM variant v WHERE "
		         "variant_id = %llu", ROWS, (unsigned long long)ids[p]);
		ck_assert_msg(q_int(db, sql) == 1, "variant %llu, stored %d-th: "
		              "not done with %d rows", (unsigned long long)ids[p],
		              p, ROWS);
	}
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM (SELECT actor_id, "
	                       "step FROM state GROUP BY actor_id, step)"),
	                 n ? 2 * 11 : 0);
	sqlite3_close(db);
}

/* Every stored row of a equals b's (event rowids included; wall time
 * left out, the only column that may differ). */
static void check_same_rows(const char *a, const char *b)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(a, &db), SQLITE_OK);
	char sql[600];
	snprintf(sql, sizeof sql, "ATTACH '%s' AS b", b);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	static const char *const tables[][2] = {
		{"state", "*"},
		{"variant", "variant_id, status, error, params, label"},
		{"actor", "*"},
		{"wheel", "*"},
		{"event_row", "rowid, *"},
		{"summary", "*"},
		{"lane", "*"},
	};
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		const char *n = tables[t][0], *c = tables[t][1];
		snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM (SELECT "
		         "%s FROM main.%s EXCEPT SELECT %s FROM b.%s)) + (SELECT "
		         "count(*) FROM (SELECT %s FROM b.%s EXCEPT SELECT %s "
		         "FROM main.%s))", c, n, c, n, c, n, c, n);
		ck_assert_msg(q_int(db, sql) == 0, "%s: %s differs from %s", n,
		              a, b);
	}
	sqlite3_close(db);
}

START_TEST(same_rows_for_any_jobs)
{
	for (int jobs = 1; jobs <= 8; jobs++) {
		char name[32];
		snprintf(name, sizeof name, "j%d.db", jobs);
		vs_run_summary sum;
		run_list(in_dir(name), jobs, VS_STORE_CREATE, 0, N_VARIANTS, -1,
		         &sum);
		ck_assert_int_eq(vs_run_outcome(&sum), VS_RC_OK);
		ck_assert_int_eq(sum.done, N_VARIANTS);
		ck_assert_int_eq(sum.failed, 0);
		ck_assert_int_eq(sum.total, N_VARIANTS);
		ck_assert_int_eq(sum.actor_steps, N_VARIANTS * ROWS);
		check_stored(in_dir(name), order, N_VARIANTS);
		if (jobs > 1)
			check_same_rows(in_dir("j1.db"), in_dir(name));
	}
}
END_TEST

/* Simulated in child processes (contain.c), the rows are the same. */
START_TEST(contained_runs_store_the_same_rows)
{
	vs_run_summary sum;
	run_list(in_dir("in.db"), 2, VS_STORE_CREATE, 0, N_VARIANTS, -1, &sum);
	contain = 1;
	for (int jobs = 1; jobs <= 3; jobs++) {
		char name[32];
		snprintf(name, sizeof name, "c%d.db", jobs);
		run_list(in_dir(name), jobs, VS_STORE_CREATE, 0, N_VARIANTS, -1,
		         &sum);
		ck_assert_int_eq(sum.done, N_VARIANTS);
		check_stored(in_dir(name), order, N_VARIANTS);
		check_same_rows(in_dir("in.db"), in_dir(name));
	}
	contain = 0;
}
END_TEST

START_TEST(shard_sequence_without_source)
{
	/* Shard 1/3 of 12: indices 1, 4, 7, 10, in that order. */
	static const uint64_t want[] = {1, 4, 7, 10};
	vs_run_opts o = opts(in_dir("s.db"), 3);
	o.shard_k = 1;
	o.shard_n = 3;
	vs_run_summary sum;
	vs_error err = {{0}};
	ck_assert_msg(vs_run(scn, sw, reg, &o, &sum, &err) == VS_RC_OK, "%s",
	              err.msg);
	ck_assert_int_eq(sum.total, 4);
	ck_assert_int_eq(sum.done, 4);
	check_stored(in_dir("s.db"), want, 4);
	/* Run again with --resume: all there, nothing to do. */
	o.mode = VS_STORE_RESUME;
	ck_assert_int_eq(vs_run(scn, sw, reg, &o, &sum, &err), VS_RC_OK);
	ck_assert_int_eq(sum.skipped, 4);
	ck_assert_int_eq(sum.done, 0);
	/* Another shard's file is not this run's to resume. */
	o.shard_k = 2;
	ck_assert_int_eq(vs_run(scn, sw, reg, &o, &sum, &err), VS_RC_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "shard differs"));
}
END_TEST

START_TEST(resumed_equals_uninterrupted)
{
	vs_run_summary sum;
	run_list(in_dir("whole.db"), 4, VS_STORE_CREATE, 0, N_VARIANTS, -1,
	         &sum);
	run_list(in_dir("parts.db"), 2, VS_STORE_CREATE, 0, 5, -1, &sum);
	ck_assert_int_eq(sum.done, 5);
	check_stored(in_dir("parts.db"), order, 5);
	run_list(in_dir("parts.db"), 6, VS_STORE_RESUME, 5, N_VARIANTS, -1,
	         &sum);
	ck_assert_int_eq(sum.skipped, 5);
	ck_assert_int_eq(sum.done, N_VARIANTS - 5);
	check_same_rows(in_dir("whole.db"), in_dir("parts.db"));
}
END_TEST

START_TEST(stop_leaves_whole_variants_in_order)
{
	for (int jobs = 1; jobs <= 4; jobs++) {
		char name[32];
		snprintf(name, sizeof name, "stop%d.db", jobs);
		vs_run_stop = 0;
		vs_run_summary sum;
		run_list(in_dir(name), jobs, VS_STORE_CREATE, 0, N_VARIANTS, 6,
		         &sum);
		ck_assert_int_eq(vs_run_outcome(&sum), VS_RC_INTERRUPTED);
		/* Stored: a prefix of the source's order, at most the 6
		 * taken before the stop, each whole, numbered as always. */
		ck_assert_int_le(sum.done, 6);
		check_stored(in_dir(name), order, (int)sum.done);
	}
	vs_run_stop = 0;
}
END_TEST

/* A source slow to yield its index at `at`: before it does, it watches
 * the results file from a connection of its own for the variants stored
 * before (waiting at most 20 s), as `vsweep status` would. */
typedef struct slow_source {
	list_source list;
	int at;
	const char *out;
	long long seen;    /* variants it saw committed */
	double waited;     /* s until it saw them all */
} slow_source;

static int slow_next(void *ctx, uint64_t *i)
{
	slow_source *q = ctx;
	if (q->list.pos == q->at) {
		sqlite3 *db = NULL;
		ck_assert_int_eq(sqlite3_open_v2(q->out, &db,
		                                 SQLITE_OPEN_READONLY, NULL),
		                 SQLITE_OK);
		sqlite3_busy_timeout(db, 100);
		double t0 = vs_now();
		while ((q->seen = q_int(db, "SELECT count(*) FROM variant")) <
		               q->at &&
		       vs_now() - t0 < 20) {
			struct timespec nap = {0, 20 * 1000 * 1000};
			nanosleep(&nap, NULL);
		}
		q->waited = vs_now() - t0;
		sqlite3_close(db);
	}
	return list_next(&q->list, i);
}

/* The variants stored before one slow to come are committed within
 * about a second (runner.c's COMMIT_SECONDS), not when it comes: the
 * writer waiting for it once held them in its open transaction, for as
 * long as it took (hours, for a hung plugin; and a kill lost them). */
START_TEST(stored_variants_committed_while_the_next_is_slow)
{
	slow_source q = {{0, N_VARIANTS, -1}, 3, in_dir("slow.db"), 0, 0};
	vs_index_source src = {slow_next, &q};
	vs_run_opts o = opts(q.out, 2);
	o.source = &src;
	vs_run_summary sum;
	vs_error err = {{0}};
	ck_assert_msg(vs_run(scn, sw, reg, &o, &sum, &err) == VS_RC_OK, "%s",
	              err.msg);
	ck_assert_msg(q.seen == 3, "%lld variants committed after %.1f s, "
	              "3 stored", q.seen, q.waited);
	ck_assert_msg(q.waited < 5, "committed after %.1f s", q.waited);
	ck_assert_int_eq(sum.done, N_VARIANTS);
	check_stored(q.out, order, N_VARIANTS);
}
END_TEST

static Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *t = tcase_create("run");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, same_rows_for_any_jobs);
	tcase_add_test(t, contained_runs_store_the_same_rows);
	tcase_add_test(t, shard_sequence_without_source);
	tcase_add_test(t, resumed_equals_uninterrupted);
	tcase_add_test(t, stop_leaves_whole_variants_in_order);
	tcase_add_test(t, stored_variants_committed_while_the_next_is_slow);
	suite_add_tcase(s, t);
	suite_add_tcase(s, forkserver_tcase());
	suite_add_tcase(s, journal_tcase());
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(run_suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
