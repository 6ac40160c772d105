/* Grid and random sweep blocks: grid order and ranges, block
 * concatenation, seeded reproducibility, the statistics of the draws
 * against closed forms, and constant memory over 10^7 variants. The
 * blocks refused, with message and position, are in
 * test_sweep_block_errors.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "input/sweep.h"
#include "sweep_seed.h"

static vs_sweep *parse_ok(const char *text)
{
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("w.yaml", text, strlen(text), seed, &err);
	ck_assert_msg(sw, "%s\n%s", text, err.msg);
	return sw;
}

/* Variant i's changes into b (which must fit sw). Hot loops call this
 * and the checks below through plain ifs: every ck_assert writes a mark
 * to Check's pipe, which would dominate 10^7 iterations. */
static const vs_change_set *changes(const vs_sweep *sw, uint64_t i,
                                    vs_change_buf *b)
{
	vs_error err = {{0}};
	if (vs_sweep_changes(sw, i, b, &err))
		ck_abort_msg("variant %llu: %s", (unsigned long long)i, err.msg);
	return &b->set;
}

/* Sample mean and variance of change c's first value over a random
 * block's variants [0, n), each checked to lie in [lo, hi]. */
static void sample(const vs_sweep *sw, int c, int n, double lo, double hi,
                   double *mean, double *var)
{
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	double s = 0, s2 = 0;
	for (int i = 0; i < n; i++) {
		double x = changes(sw, (uint64_t)i, &b)->changes[c].values[0];
		if (!(x >= lo && x <= hi))
			ck_abort_msg("draw %d = %.17g outside [%g, %g]", i, x, lo,
			             hi);
		s += x;
		s2 += x * x;
	}
	*mean = s / n;
	*var = s2 / n - *mean * *mean;
	vs_change_buf_finish(&b);
}

/* ---- grids --------------------------------------------------------------- */

/* 2 speeds x 3 lf: the last axis varies fastest. */
static const char *const grid_json[] = {
	"{\"actor1\":{\"speed\":5,\"vehicle_model\":{\"lf\":1.3999999999999999}}}",
	"{\"actor1\":{\"speed\":5,\"vehicle_model\":{\"lf\":1.5}}}",
	"{\"actor1\":{\"speed\":5,\"vehicle_model\":{\"lf\":1.6000000000000001}}}",
	"{\"actor1\":{\"speed\":10,\"vehicle_model\":{\"lf\":1.3999999999999999}}}",
	"{\"actor1\":{\"speed\":10,\"vehicle_model\":{\"lf\":1.5}}}",
	"{\"actor1\":{\"speed\":10,\"vehicle_model\":{\"lf\":1.6000000000000001}}}",
};

START_TEST(grid_order)
{
	static const double lf[] = {1.4, 1.5, 1.6};
	vs_sweep *sw = parse_ok(GRID
		"      - {actor: 1, speed: {values: [5, 10]}}\n"
		"      - {actor: 1, param: vehicle_model.lf, values: [1.4, 1.5, "
		"1.6]}\n");
	ck_assert_uint_eq(sw->count, 6);
	ck_assert_int_eq(sw->blocks[0].kind, VS_BLOCK_GRID);
	ck_assert_str_eq(vs_block_kind_name(sw->blocks[0].kind), "grid");
	for (uint64_t i = 0; i < 6; i++) {
		vs_error err = {{0}};
		char *json = NULL;
		vs_scenario *v = vs_sweep_variant(sw, seed, i, &json, &err);
		ck_assert_msg(v, "%s", err.msg);
		ck_assert_str_eq(json, grid_json[i]);
		ck_assert_double_eq(v->actors[0].speed[0], i < 3 ? 5 : 10);
		ck_assert_double_eq(v->actors[0].vehicle_model.params[1],
		                    lf[i % 3]);
		free(json);
		vs_scenario_destroy(v);
	}
	vs_sweep_destroy(sw);

	/* three axes of 2, 3 and 4: i = (a * 3 + b) * 4 + c */
	sw = parse_ok(GRID
		"      - {actor: 1, speed: {from: 0, to: 1, step: 1}}\n"
		"      - {actor: 3, start.x: {from: 0, to: 2, step: 1}}\n"
		"      - {actor: 3, start.y: {values: [0, 1, 2, 3]}}\n");
	ck_assert_uint_eq(sw->count, 24);
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	for (uint64_t i = 0; i < 24; i++) {
		const vs_change_set *s = changes(sw, i, &b);
		ck_assert_int_eq(s->n, 3);
		ck_assert_double_eq(s->changes[0].values[0], (double)(i / 12));
		ck_assert_double_eq(s->changes[1].values[0],
		                    (double)(i / 4 % 3));
		ck_assert_double_eq(s->changes[2].values[0], (double)(i % 4));
	}
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);
}
END_TEST

typedef struct range_case {
	const char *range;
	uint64_t count;
	double from, step, last;
	int exact;  /* last is exactly `to` */
} range_case;

/* Counts by hand: floor((to - from) / step) + 1, the upper limit
 * included when it lies on the grid. */
static const range_case range_cases[] = {
	{"speed: {from: 5, to: 30, step: 5}", 6, 5, 5, 30, 1},
	{"speed: {from: 0, to: 1, step: 0.1}", 11, 0, 0.1, 1, 1},
	/* naively 0.1 + 2 * 0.1 = 0.30000000000000004 */
	{"speed: {from: 0.1, to: 0.3, step: 0.1}", 3, 0.1, 0.1, 0.3, 1},
	{"speed: {from: 0, to: 1, step: 0.3}", 4, 0, 0.3, 0.9, 0},
	{"speed: {from: 0, to: 10, step: 3}", 4, 0, 3, 9, 1},
	{"speed: {from: 2, to: 2, step: 1}", 1, 2, 1, 2, 1},
	{"param: vehicle_model.lf, value: {from: 1.2, to: 1.6, step: 0.1}", 5,
	 1.2, 0.1, 1.6, 1},
	{"start.x: {from: -3, to: 3, step: 1.5}", 5, -3, 1.5, 3, 1},
	/* nearly 10^9 variants: nothing is held per variant */
	{"start.yaw: {from: 0, to: 999999, step: 0.001}", 999999001, 0, 0.001,
	 999999, 1},
};

START_TEST(ranges)
{
	const range_case *rc = &range_cases[_i];
	char text[256];
	snprintf(text, sizeof text, GRID "      - {actor: 1, %s}\n", rc->range);
	vs_sweep *sw = parse_ok(text);
	ck_assert_uint_eq(sw->count, rc->count);
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	uint64_t step = rc->count > 1000 ? rc->count / 997 : 1;
	for (uint64_t k = 0; k < rc->count; k += step) {
		double v = changes(sw, k, &b)->changes[0].values[0];
		ck_assert_msg(fabs(v - (rc->from + (double)k * rc->step)) < 1e-9,
		              "%s: value %llu = %.17g", rc->range,
		              (unsigned long long)k, v);
	}
	double last = changes(sw, rc->count - 1, &b)->changes[0].values[0];
	if (rc->exact)
		ck_assert_msg(last == rc->last, "%.17g", last);
	else
		ck_assert_double_eq_tol(last, rc->last, 1e-12);
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);
}
END_TEST

/* A route with its own yaws on one axis, plus a speed every variant gets;
 * lengths and rear overhangs paired on one axis, which would break the
 * car's geometry if they combined freely. */
START_TEST(grid_paired)
{
	vs_sweep *sw = parse_ok(GRID
		"      - {actor: 2, speed: 10,\n"
		"         waypoints: {values: [[[0,0,0],[60,0,0]],\n"
		"                              [[0,0,0],[80,0,0],[90,5,0]]]},\n"
		"         yaw: {values: [[0, 0], [0, 0, 0.2]]}}\n"
		"      - {actor: 1, dimension.length: {values: [3, 6]},\n"
		"         dimension.rear_overhang: {values: [0.5, 4]}}\n");
	ck_assert_uint_eq(sw->count, 4);
	vs_error err = {{0}};
	char *json;
	vs_scenario *v = vs_sweep_variant(sw, seed, 3, &json, &err);
	ck_assert_msg(v, "%s", err.msg);
	ck_assert_str_eq(json, "{\"actor2\":{\"speed\":10,\"waypoints\":"
	                       "[[0,0,0],[80,0,0],[90,5,0]],\"yaw\":[0,0,"
	                       "0.20000000000000001]},\"actor1\":{\"dimension\":"
	                       "{\"length\":6,\"rear_overhang\":4}}}");
	ck_assert_int_eq(v->actors[1].n_waypoints, 3);
	ck_assert_int_eq(v->actors[1].n_yaw, 3);
	ck_assert_double_eq(v->actors[0].length, 6);
	free(json);
	vs_scenario_destroy(v);
	vs_sweep_destroy(sw);
}
END_TEST

/* ---- blocks in sequence -------------------------------------------------- */

START_TEST(concatenation)
{
	vs_sweep *sw = parse_ok(
		"vsweep: 1\n"
		"blocks:\n"
		"  - list: [[{actor: 1, speed: 1}], [{actor: 1, speed: 2}],\n"
		"           [{actor: 1, speed: 3}]]\n"
		"  - grid: [{actor: 1, speed: {values: [10, 20]}},\n"
		"           {actor: 3, start.x: {values: [0, 1]}}]\n"
		"  - random: {count: 5, axes: [{actor: 1, speed: {uniform: "
		"[100, 200]}}]}\n"
		"  - list: [[{actor: 3, start.yaw: 1}]]\n");
	static const vs_block_kind kinds[] = {VS_BLOCK_LIST, VS_BLOCK_GRID,
	                                      VS_BLOCK_RANDOM, VS_BLOCK_LIST};
	static const char *const names[] = {"list", "grid", "random", "list"};
	static const uint64_t counts[] = {3, 4, 5, 1}, firsts[] = {0, 3, 7, 12};
	ck_assert_uint_eq(sw->count, 13);
	ck_assert_int_eq(sw->n_blocks, 4);
	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(sw->blocks[k].kind, kinds[k]);
		ck_assert_str_eq(vs_block_kind_name(sw->blocks[k].kind), names[k]);
		ck_assert_uint_eq(sw->blocks[k].count, counts[k]);
		ck_assert_uint_eq(sw->blocks[k].first, firsts[k]);
	}
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	for (uint64_t i = 0; i < 13; i++) {
		const vs_change_set *s = changes(sw, i, &b);
		double v = s->changes[0].values[0];
		if (i < 3)
			ck_assert_double_eq(v, (double)(i + 1));
		else if (i < 7) /* speed, then start.x */
			ck_assert(v == (i < 5 ? 10 : 20) &&
			          s->changes[1].values[0] == (double)((i - 3) % 2));
		else if (i < 12)
			ck_assert(v >= 100 && v <= 200);
		else
			ck_assert(s->changes[0].prop == VS_PROP_START && v == 1);
	}
	vs_error err = {{0}};
	ck_assert_int_eq(vs_sweep_changes(sw, 13, &b, &err), -1);
	ck_assert_str_eq(err.msg, "w.yaml: variant 13 is out of range: the "
	                          "sweep has 13");
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);
}
END_TEST

/* docs/sweep.md's sweep: 2 + 6 x 3 + 1000 variants. Its uniform draws are
 * pinned bit for bit to an independent Python transcription of the
 * generator, which is what "the same seed gives the same draws on any
 * machine" means. */
START_TEST(design_sweep)
{
	vs_sweep *sw = parse_ok(
		"vsweep: 1\n"
		"seed: 42\n"
		"blocks:\n"
		"  - list:\n"
		"      - [{actor: 1, speed: 10}, {actor: 1, param: "
		"vehicle_model.lf, value: 1.5}]\n"
		"      - [{actor: 2, waypoints: [[0,0,0],[60,0,0]], speed: [8, "
		"12]}]\n"
		"  - grid:\n"
		"      - {actor: 1, speed: {from: 5, to: 30, step: 5}}\n"
		"      - {actor: 1, param: vehicle_model.lf, values: [1.4, 1.5, "
		"1.6]}\n"
		"  - random:\n"
		"      count: 1000\n"
		"      axes:\n"
		"        - {actor: 2, speed: {uniform: [5, 25]}}\n"
		"        - {actor: 2, dimension.length: {normal: {mean: 4.5, sd: "
		"0.3, min: 3.5, max: 6}}}\n");
	ck_assert_uint_eq(sw->count, 1020);
	ck_assert_uint_eq(sw->blocks[1].count, 18);
	ck_assert_uint_eq(sw->blocks[2].first, 20);
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	ck_assert(changes(sw, 20, &b)->changes[0].values[0] ==
	          18.77445620323676);
	ck_assert(changes(sw, 21, &b)->changes[0].values[0] ==
	          7.105198722819395);
	ck_assert(changes(sw, 1019, &b)->changes[0].values[0] ==
	          24.005943492950458);
	double len = changes(sw, 500, &b)->changes[1].values[0];
	ck_assert(len >= 3.5 && len <= 6);
	vs_change_buf_finish(&b);
	/* the JSON holds the drawn values to the bit */
	vs_error err = {{0}};
	char *json;
	vs_scenario *v = vs_sweep_variant(sw, seed, 20, &json, &err);
	ck_assert_msg(v, "%s", err.msg);
	double speed, length;
	ck_assert_int_eq(sscanf(json, "{\"actor2\":{\"speed\":%lf,\"dimension\":"
	                              "{\"length\":%lf}}}", &speed, &length), 2);
	ck_assert(speed == 18.77445620323676 && speed == v->actors[1].speed[0]);
	ck_assert(length == v->actors[1].length);
	free(json);
	vs_scenario_destroy(v);
	vs_sweep_destroy(sw);
}
END_TEST

/* ---- random: reproducibility --------------------------------------------- */

#define RANDOM_AXES                                                        \
	"        - {actor: 1, speed: {uniform: [0, 50]}}\n"                    \
	"        - {actor: 1, param: vehicle_model.lf, value: {normal: {mean: " \
	"1.4, sd: 0.1, min: 1.2, max: 1.6}}}\n"                                \
	"        - {actor: 3, start.yaw: {choice: {values: [0, 1, 2]}}}\n"

START_TEST(reproducible)
{
	enum { N = 2000, C = 3 };
	static double a[N][C];
	vs_sweep *sw1 = parse_ok("vsweep: 1\nseed: 7\nblocks:\n  - random:\n"
	                         "      count: 2000\n      axes:\n" RANDOM_AXES);
	vs_sweep *sw2 = parse_ok("vsweep: 1\nseed: 7\nblocks:\n  - random:\n"
	                         "      count: 2000\n      axes:\n" RANDOM_AXES);
	vs_sweep *sw8 = parse_ok("vsweep: 1\nseed: 8\nblocks:\n  - random:\n"
	                         "      count: 2000\n      axes:\n" RANDOM_AXES);
	vs_change_buf b1, b2;
	vs_change_buf_init(&b1, sw1);
	vs_change_buf_init(&b2, sw2);
	int differ = 0;
	for (int i = 0; i < N; i++) { /* in sequence */
		const vs_change_set *s = changes(sw1, (uint64_t)i, &b1);
		for (int c = 0; c < C; c++)
			a[i][c] = s->changes[c].values[0];
		differ += changes(sw8, (uint64_t)i, &b2)->changes[0].values[0] !=
		          a[i][0];
	}
	ck_assert_int_ge(differ, N - 2);
	/* alone, in reverse, from another sweep object and buffer */
	for (int i = N - 1; i >= 0; i--) {
		vs_change_buf fresh;
		vs_change_buf_init(&fresh, sw2);
		const vs_change_set *s = changes(sw2, (uint64_t)i, &fresh);
		for (int c = 0; c < C; c++)
			ck_assert(memcmp(&s->changes[c].values[0], &a[i][c],
			                 sizeof(double)) == 0);
		vs_change_buf_finish(&fresh);
	}
	/* vs_sweep_variant agrees with vs_sweep_changes */
	vs_error err = {{0}};
	char *json;
	vs_scenario *v = vs_sweep_variant(sw1, seed, 1234, &json, &err);
	ck_assert_msg(v, "%s", err.msg);
	ck_assert(v->actors[0].speed[0] == a[1234][0]);
	ck_assert(v->actors[0].vehicle_model.params[1] == a[1234][1]);
	ck_assert(v->actors[2].start_yaw == a[1234][2]);
	free(json);
	vs_scenario_destroy(v);
	vs_change_buf_finish(&b1);
	vs_change_buf_finish(&b2);
	vs_sweep_destroy(sw1);
	vs_sweep_destroy(sw2);
	vs_sweep_destroy(sw8);
}
END_TEST

/* ---- random: statistics against closed forms ----------------------------- */

enum { NDRAW = 20000 };

#define RANDOM_ONE(axis)                                                   \
	"vsweep: 1\nseed: 3\nblocks:\n  - random:\n      count: 20000\n"      \
	"      axes:\n        - " axis "\n"

START_TEST(uniform_stats)
{
	vs_sweep *sw = parse_ok(RANDOM_ONE("{actor: 1, speed: {uniform: [5, "
	                                   "25]}}"));
	double mean, var;
	sample(sw, 0, NDRAW, 5, 25, &mean, &var);
	/* mean 15, sd of the mean 20 / sqrt(12 n) = 0.041; variance
	 * 400 / 12, sd of the sample variance sqrt((2000 - 1111) / n) =
	 * 0.21: both within 5 sd */
	ck_assert_double_eq_tol(mean, 15, 0.21);
	ck_assert_double_eq_tol(var, 400.0 / 12, 1.05);
	vs_sweep_destroy(sw);
}
END_TEST

typedef struct normal_case {
	const char *axis;
	double mean, sd, lo, hi;
} normal_case;

static const normal_case normal_cases[] = {
	{"{actor: 3, start.x: {normal: {mean: 0, sd: 1}}}", 0, 1, -INFINITY,
	 INFINITY},
	{"{actor: 1, speed: {normal: {mean: 10, sd: 4, min: 8, max: 20}}}", 10,
	 4, 8, 20},
	{"{actor: 1, speed: {normal: {mean: 0, sd: 1, min: 0}}}", 0, 1, 0,
	 INFINITY},
	/* above the mean: sampled as the mirror image */
	{"{actor: 3, start.x: {normal: {mean: 0, sd: 1, min: 3, max: 4}}}", 0,
	 1, 3, 4},
	{"{actor: 3, start.x: {normal: {mean: 5, sd: 2, max: 1}}}", 5, 2,
	 -INFINITY, 1},
	{"{actor: 1, dimension.length: {normal: {mean: 4.5, sd: 0.3, min: 3.5, "
	 "max: 6}}}", 4.5, 0.3, 3.5, 6},
};

static double phi(double x)
{
	return isinf(x) ? 0 : exp(-0.5 * x * x) / sqrt(2 * 3.14159265358979324);
}

static double cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2));
}

START_TEST(normal_stats)
{
	const normal_case *nc = &normal_cases[_i];
	char text[256];
	snprintf(text, sizeof text, RANDOM_ONE("%s"), nc->axis);
	vs_sweep *sw = parse_ok(text);
	double mean, var;
	sample(sw, 0, NDRAW, nc->lo, nc->hi, &mean, &var);
	/* the truncated normal's mean, mu + sd (phi(a) - phi(b)) /
	 * (Phi(b) - Phi(a)), from libm; within 5 sd of the sample mean
	 * (the untruncated sd bounds the truncated one) */
	double a = (nc->lo - nc->mean) / nc->sd, b = (nc->hi - nc->mean) / nc->sd;
	double want = nc->mean + nc->sd * (phi(a) - phi(b)) / (cdf(b) - cdf(a));
	ck_assert_msg(fabs(mean - want) < 5 * nc->sd / sqrt(NDRAW),
	              "%s: mean %.6f, want %.6f", nc->axis, mean, want);
	ck_assert(var <= nc->sd * nc->sd * 1.05);
	vs_sweep_destroy(sw);
}
END_TEST

/* Pearson's chi-square of counts against weights (zero weights excluded,
 * and never drawn). */
static double chi_square(const int *count, const double *w, int n, int total)
{
	double sum = 0, x2 = 0;
	for (int k = 0; k < n; k++)
		sum += w[k];
	for (int k = 0; k < n; k++) {
		if (w[k] == 0) {
			ck_assert_int_eq(count[k], 0);
			continue;
		}
		double e = total * w[k] / sum;
		x2 += (count[k] - e) * (count[k] - e) / e;
	}
	return x2;
}

START_TEST(choice_freq)
{
	static const struct {
		const char *axis;
		double w[4];
		double limit; /* chi-square, p = 0.001 */
	} cases[] = {
		{"{actor: 1, param: vehicle_model.lf, value: {choice: {values: "
		 "[1.3, 1.4, 1.5, 1.6], weights: [1, 2, 0, 5]}}}", {1, 2, 0, 5},
		 13.82},
		{"{actor: 1, param: vehicle_model.lf, value: {choice: {values: "
		 "[1.3, 1.4, 1.5, 1.6]}}}", {1, 1, 1, 1}, 16.27},
	};
	static const double values[] = {1.3, 1.4, 1.5, 1.6};
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
		char text[256];
		snprintf(text, sizeof text, RANDOM_ONE("%s"), cases[t].axis);
		vs_sweep *sw = parse_ok(text);
		vs_change_buf b;
		vs_change_buf_init(&b, sw);
		int count[4] = {0};
		for (int i = 0; i < NDRAW; i++) {
			double x = changes(sw, (uint64_t)i, &b)->changes[0].values[0];
			int k = 0;
			while (k < 3 && values[k] != x)
				k++;
			ck_assert(values[k] == x);
			count[k]++;
		}
		double x2 = chi_square(count, cases[t].w, 4, NDRAW);
		ck_assert_msg(x2 < cases[t].limit, "case %zu: chi2 %g (%d %d %d "
		              "%d)", t, x2, count[0], count[1], count[2],
		              count[3]);
		vs_change_buf_finish(&b);
		vs_sweep_destroy(sw);
	}
}
END_TEST

/* Choices on one axis share the drawn index: a route keeps its yaws. */
START_TEST(choice_paired)
{
	vs_sweep *sw = parse_ok(RANDOM_ONE(
		"{actor: 2, speed: 5, waypoints: {choice: {values: "
		"[[[0,0,0],[60,0,0]], [[0,0,0],[80,0,0],[90,5,0]]]}}, yaw: "
		"{choice: {values: [[0, 0], [0, 0, 0.2]], weights: [1, 3]}}}"));
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	int second = 0;
	for (int i = 0; i < NDRAW; i++) {
		const vs_change_set *s = changes(sw, (uint64_t)i, &b);
		ck_assert_int_eq(s->n, 3);
		ck_assert_double_eq(s->changes[0].values[0], 5); /* fixed */
		ck_assert_int_eq(s->changes[2].n, s->changes[1].n / 3);
		second += s->changes[2].n == 3;
	}
	/* 3/4, sd sqrt(n 3/16) = 61: within 5 sd */
	ck_assert_int_lt(abs(second - NDRAW * 3 / 4), 310);
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);
}
END_TEST

/* ---- constant memory ----------------------------------------------------- */

static long max_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Sanitizers and valgrind run this 20-50 times slower: fewer variants. */
static int slow_build(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return 1;
#endif
#endif
	const char *pre = getenv("LD_PRELOAD");
	return pre && strstr(pre, "vgpreload") != NULL;
}

/* Every one of 10^7 grid variants through the pure function (10^5 under
 * sanitizers), checked digit by digit, and 10^6 random ones: the peak
 * resident size must not grow with the number of variants. */
START_TEST(constant_memory)
{
	int slow = slow_build(), axes = slow ? 5 : 7;
	char text[1024] = GRID;
	static const char *const axis[] = {
		"{actor: 1, speed: ", "{actor: 1, start.x: ", "{actor: 1, start.y: ",
		"{actor: 1, start.z: ", "{actor: 1, start.yaw: ",
		"{actor: 3, start.x: ", "{actor: 3, start.y: "};
	for (int j = 0; j < axes; j++) {
		strcat(text, "      - ");
		strcat(text, axis[j]);
		strcat(text, "{from: 0, to: 9, step: 1}}\n");
	}
	vs_sweep *sw = parse_ok(text);
	uint64_t n = 1;
	for (int j = 0; j < axes; j++)
		n *= 10;
	ck_assert_uint_eq(sw->count, n);
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	long before = max_rss_kib();
	double sums[7] = {0};
	for (uint64_t i = 0; i < n; i++) {
		const vs_change_set *s = changes(sw, i, &b);
		uint64_t rest = i;
		for (int j = axes - 1; j >= 0; j--, rest /= 10) {
			double v = s->changes[j].values[0];
			if (v != (double)(rest % 10))
				ck_abort_msg("variant %llu axis %d: %g",
				             (unsigned long long)i, j, v);
			sums[j] += v;
		}
	}
	for (int j = 0; j < axes; j++)
		ck_assert_double_eq(sums[j], 4.5 * (double)n);
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);

	int m = slow ? 10000 : 1000000;
	snprintf(text, sizeof text, "vsweep: 1\nseed: 5\nblocks:\n  - random:\n"
	         "      count: %d\n      axes:\n" RANDOM_AXES, m);
	sw = parse_ok(text);
	vs_change_buf_init(&b, sw);
	for (int i = 0; i < m; i++) {
		const vs_change_set *s = changes(sw, (uint64_t)i, &b);
		double lf = s->changes[1].values[0];
		if (!(lf >= 1.2 && lf <= 1.6))
			ck_abort_msg("variant %d: lf %g", i, lf);
	}
	vs_change_buf_finish(&b);
	vs_sweep_destroy(sw);
	ck_assert_msg(max_rss_kib() - before < 4096, "peak RSS grew %ld KiB",
	              max_rss_kib() - before);
}
END_TEST

static Suite *blocks_suite(void)
{
	Suite *s = suite_create("sweep_blocks");
	TCase *tc = tcase_create("grid");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, grid_order);
	tcase_add_loop_test(tc, ranges, 0,
	                    sizeof range_cases / sizeof range_cases[0]);
	tcase_add_test(tc, grid_paired);
	tcase_add_test(tc, concatenation);
	tcase_add_test(tc, design_sweep);
	suite_add_tcase(s, tc);
	tc = tcase_create("random");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reproducible);
	tcase_add_test(tc, uniform_stats);
	tcase_add_loop_test(tc, normal_stats, 0,
	                    sizeof normal_cases / sizeof normal_cases[0]);
	tcase_add_test(tc, choice_freq);
	tcase_add_test(tc, choice_paired);
	suite_add_tcase(s, tc);
	tc = tcase_create("memory");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, constant_memory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(blocks_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
