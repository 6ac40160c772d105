/* Check suite for the event monitor's broad phase: on crowded randomised
 * scenes (200 actors wandering, bumping, parting; a few attached pairs), the
 * collision events and the closest approach equal those of an exhaustive
 * check of every pair written here, independently of the monitor. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/monitor.h"
#include "sim/near_pairs.h"
#include "sim/obb.h"

#define N 200
#define STEPS 150

static uint64_t rng = 88172645463325252ULL;

static double uniform(void) /* [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct ref_event {
	int64_t step, a, b;
} ref_event;

/* The exhaustive rule: every unrelated pair, every step; an event when a
 * contact begins; min of all distances, and the pair of it (the lowest
 * IDs among equal distances) in pair[2]. */
static double exhaustive(const vs_actor_info *info, const int64_t *parent,
                         vs_state (*st)[N], ref_event *ev, int *n_ev,
                         int64_t pair[2])
{
	static unsigned char touching[N][N];
	memset(touching, 0, sizeof touching);
	double best = INFINITY;
	*n_ev = 0;
	for (int k = 0; k < STEPS; k++)
		for (int i = 0; i < N; i++)
			for (int j = i + 1; j < N; j++) {
				if (parent[i] == info[j].id ||
				    parent[j] == info[i].id)
					continue;
				vs_obb a = {st[k][i].x, st[k][i].y,
				            info[i].width / 2, info[i].length / 2,
				            st[k][i].yaw};
				vs_obb b = {st[k][j].x, st[k][j].y,
				            info[j].width / 2, info[j].length / 2,
				            st[k][j].yaw};
				double d = vs_obb_distance(&a, &b);
				int64_t lo = info[i].id, hi = info[j].id;
				if (d < best ||
				    (d == best && (lo < pair[0] ||
				                   (lo == pair[0] && hi < pair[1])))) {
					pair[0] = lo;
					pair[1] = hi;
				}
				best = fmin(best, d);
				if (d == 0 && !touching[i][j])
					ev[(*n_ev)++] = (ref_event){
						k, info[i].id, info[j].id};
				touching[i][j] = d == 0;
			}
	return best;
}

static void scene(double spread, vs_actor_info *info, int64_t *parent,
                  vs_state (*st)[N])
{
	for (int i = 0; i < N; i++) {
		info[i] = (vs_actor_info){.struct_size = sizeof info[i]};
		info[i].id = i + 1;
		info[i].length = 0.5 + 5 * uniform();
		info[i].width = 0.5 + 2 * uniform();
		/* every tenth actor hangs on the one before */
		parent[i] = i % 10 == 9 ? i : 0;
		st[0][i] = (vs_state){.x = spread * uniform(),
		                      .y = spread * uniform(),
		                      .yaw = 6.3 * uniform()};
	}
	for (int k = 1; k < STEPS; k++)
		for (int i = 0; i < N; i++) {
			vs_state s = st[k - 1][i];
			double v = 3 * uniform();  /* m per step */
			s.yaw += 0.4 * (uniform() - 0.5);
			s.x += -sin(s.yaw) * v;
			s.y += cos(s.yaw) * v;
			st[k][i] = s;
		}
}

static void compare_with_exhaustive(double spread)
{
	static vs_state st[STEPS][N];
	vs_actor_info info[N];
	int64_t parent[N];
	scene(spread, info, parent, st);
	static ref_event ev[N * N];
	int n_ev;
	int64_t pair[2] = {0, 0};
	double best = exhaustive(info, parent, st, ev, &n_ev, pair);

	vs_monitor *m = vs_monitor_create(N, NULL);
	for (int i = 0; i < N; i++)
		vs_monitor_actor(m, i, &info[i], parent[i]);
	vs_result res;
	memset(&res, 0, sizeof res);
	for (int k = 0; k < STEPS; k++)
		vs_monitor_step(m, k, st[k], NULL, &res);
	vs_monitor_finish(m, &res);
	ck_assert_int_eq(res.n_events, n_ev);
	ck_assert_int_eq(res.summary.collisions, n_ev);
	for (int e = 0; e < n_ev; e++) {
		ck_assert_int_eq(res.events[e].step, ev[e].step);
		ck_assert_int_eq(res.events[e].actor_id, ev[e].a);
		ck_assert_int_eq(res.events[e].other_id, ev[e].b);
		ck_assert_str_eq(res.events[e].kind, "collision");
	}
	/* bit for bit: the same minimum of the same doubles */
	ck_assert(res.summary.min_distance == best);
	ck_assert_int_eq(res.summary.min_distance_actor, pair[0]);
	ck_assert_int_eq(res.summary.min_distance_other, pair[1]);
	free(res.events);
}

/* Pair rows within a reach, every step of a crowded scene with moving
 * actors, against a double loop over all pairs: the same pairs in the same
 * order, the distance bit for bit, gap and closing speed from their
 * definitions. */
START_TEST(pair_rows_equal_exhaustive)
{
	static vs_state st[STEPS][N];
	vs_actor_info info[N];
	int64_t parent[N];
	scene(120, info, parent, st);
	for (int k = 0; k < STEPS; k++)
		for (int i = 0; i < N; i++) { /* a velocity of its own */
			st[k][i].vx = 3 * cos(st[k][i].yaw + i);
			st[k][i].vy = 2 * sin(st[k][i].yaw - i);
		}
	const double reach = 2.5; /* m */
	vs_monitor *m = vs_monitor_create(N, NULL);
	for (int i = 0; i < N; i++)
		vs_monitor_actor(m, i, &info[i], parent[i]);
	vs_result res;
	memset(&res, 0, sizeof res);
	int64_t at = 0, within = 0;
	for (int k = 0; k < STEPS; k++) {
		vs_monitor_step(m, k, st[k], NULL, &res);
		vs_monitor_pairs(m, k, st[k], reach, &res);
		for (int i = 0; i < N; i++)
			for (int j = i + 1; j < N; j++) {
				if (parent[i] == info[j].id ||
				    parent[j] == info[i].id)
					continue;
				const vs_state *a = &st[k][i], *b = &st[k][j];
				vs_obb fa = {a->x, a->y, info[i].width / 2,
				             info[i].length / 2, a->yaw};
				vs_obb fb = {b->x, b->y, info[j].width / 2,
				             info[j].length / 2, b->yaw};
				double d = vs_obb_distance(&fa, &fb);
				if (d > reach)
					continue;
				within++;
				ck_assert_int_lt(at, res.n_pairs);
				const vs_pair_row *r = &res.pairs[at++];
				ck_assert_int_eq(r->step, k);
				ck_assert_int_eq(r->actor_id, info[i].id);
				ck_assert_int_eq(r->other_id, info[j].id);
				ck_assert(r->distance == d);
				double gx = b->x - a->x, gy = b->y - a->y;
				double g = sqrt(gx * gx + gy * gy);
				/* d|p|/dt = (p . v) / |p|, closing its negative */
				double rate = (gx * (b->vx - a->vx) +
				               gy * (b->vy - a->vy)) / g;
				ck_assert_double_eq_tol(r->gap, g, 1e-12 * (1 + g));
				ck_assert_double_eq_tol(r->closing, -rate, 1e-9);
			}
	}
	ck_assert_int_eq(at, res.n_pairs);
	ck_assert_int_gt(within, 1000);
	vs_monitor_finish(m, &res);
	free(res.events);
	free(res.pairs);
}
END_TEST

/* A pair is stored lower ID first whatever the scenario's order; attached
 * actors are no pair. Car 9 (4 m) at 20 m/s behind van 4 (6 m) at
 * 10 m/s, origins 50 m apart: distance 45 m, closing 10 m/s. */
START_TEST(pair_rows_lower_id_first)
{
	vs_actor_info info[3] = {
		{.struct_size = sizeof info[0], .id = 9, .length = 4, .width = 2},
		{.struct_size = sizeof info[0], .id = 4, .length = 6, .width = 2},
		{.struct_size = sizeof info[0], .id = 5, .length = 6, .width = 2},
	};
	vs_state st[3] = {{.y = 0, .vy = 20}, {.y = 50, .vy = 10},
	                  {.y = 57, .vy = 10}};
	vs_monitor *m = vs_monitor_create(3, NULL);
	vs_monitor_actor(m, 0, &info[0], 0);
	vs_monitor_actor(m, 1, &info[1], 0);
	vs_monitor_actor(m, 2, &info[2], 4); /* hangs on 4 */
	vs_result res;
	memset(&res, 0, sizeof res);
	vs_monitor_step(m, 0, st, NULL, &res);
	vs_monitor_pairs(m, 0, st, 100, &res);
	ck_assert_int_eq(res.n_pairs, 2);
	const vs_pair_row want[2] = {{0, 4, 9, 45, 50, 10},
	                             {0, 5, 9, 52, 57, 10}};
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(res.pairs[k].actor_id, want[k].actor_id);
		ck_assert_int_eq(res.pairs[k].other_id, want[k].other_id);
		ck_assert(res.pairs[k].distance == want[k].distance);
		ck_assert(res.pairs[k].gap == want[k].gap);
		ck_assert(res.pairs[k].closing == want[k].closing);
	}
	vs_monitor_finish(m, &res);
	ck_assert_int_eq(res.summary.min_distance_actor, 4);
	ck_assert_int_eq(res.summary.min_distance_other, 9);
	free(res.events);
	free(res.pairs);
}
END_TEST

START_TEST(crowded_scene_equals_exhaustive)
{
	compare_with_exhaustive(120); /* m: many contacts */
}
END_TEST

START_TEST(sparse_scene_equals_exhaustive)
{
	compare_with_exhaustive(30000); /* m: no contacts: the minimum is a gap */
}
END_TEST

/* The broad phase alone: every pair within reach is returned, in (i, j)
 * order, against a double loop; with few actors (tested pair by pair)
 * and many (the grid), either side of the switch. */
START_TEST(near_pairs_are_a_superset_in_loop_order)
{
	enum { M = 300 };
	static const int sizes[] = {2, 3, 12, 13, 40, M};
	double cx[M], cy[M], r[M];
	for (int i = 0; i < M; i++) {
		cx[i] = 500 * uniform() - 250;
		cy[i] = 500 * uniform() - 250;
		r[i] = 3 * uniform();
	}
	/* A crowd in the small sizes too: the first 40 within 60 m. */
	for (int i = 0; i < 40; i++) {
		cx[i] = 60 * uniform();
		cy[i] = 60 * uniform();
	}
	vs_near_pairs np = {0};
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		int m = sizes[z];
		for (double reach = 0; reach < 40; reach += 7.5) {
			const vs_pair *p;
			size_t n = vs_near_pairs_find(&np, m, cx, cy, r, reach,
			                              &p);
			size_t k = 0;
			for (int i = 0; i < m; i++)
				for (int j = i + 1; j < m; j++) {
					double dx = cx[i] - cx[j];
					double dy = cy[i] - cy[j];
					double lim = reach + r[i] + r[j];
					if (dx * dx + dy * dy > lim * lim)
						continue;
					ck_assert_uint_lt(k, n);
					ck_assert_int_eq(p[k].i, i);
					ck_assert_int_eq(p[k].j, j);
					k++;
				}
			ck_assert_uint_eq(k, n);
		}
	}
	/* Steps: every centre moves a little, as in traffic; the cells are
	 * then sorted from the last call's order (the insertion sort's own
	 * path, without the qsort it falls back on). */
	for (int step = 0; step < 20; step++) {
		for (int i = 0; i < M; i++) {
			cx[i] += 0.6 * uniform() - 0.3;
			cy[i] += 0.6 * uniform() - 0.3;
		}
		const vs_pair *p;
		size_t n = vs_near_pairs_find(&np, M, cx, cy, r, 7.5, &p);
		size_t k = 0;
		for (int i = 0; i < M; i++)
			for (int j = i + 1; j < M; j++) {
				if (!vs_near_pairs_within(cx, cy, r, i, j, 7.5))
					continue;
				ck_assert_uint_lt(k, n);
				ck_assert(p[k].i == i && p[k].j == j);
				k++;
			}
		ck_assert_uint_eq(k, n);
	}
	vs_near_pairs_finish(&np);
}
END_TEST

/* The footprint distance against the plain rule: the smallest hypot of
 * all 32 corner-to-edge offsets of two disjoint rectangles, bit for bit. */
static void ref_corners(const vs_obb *o, double p[4][2])
{
	double c = cos(o->yaw), s = sin(o->yaw);
	double xr[2] = {c * o->hw, s * o->hw}, yf[2] = {-s * o->hl, c * o->hl};
	const int sx[4] = {1, 1, -1, -1}, sy[4] = {-1, 1, 1, -1};
	for (int i = 0; i < 4; i++) {
		p[i][0] = o->cx + sx[i] * xr[0] + sy[i] * yf[0];
		p[i][1] = o->cy + sx[i] * xr[1] + sy[i] * yf[1];
	}
}

static double ref_point_segment(const double p[2], const double a[2],
                                const double b[2])
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2
	                    : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

START_TEST(footprint_distance_is_the_smallest_corner_edge_hypot)
{
	int disjoint = 0;
	for (int n = 0; n < 200000; n++) {
		vs_obb a = {20 * uniform(), 20 * uniform(), 0.1 + 2 * uniform(),
		            0.1 + 6 * uniform(), 7 * uniform() - 3.5};
		vs_obb b = {20 * uniform(), 20 * uniform(), 0.1 + 2 * uniform(),
		            0.1 + 6 * uniform(), 7 * uniform() - 3.5};
		if (n % 4 == 0)
			b.yaw = a.yaw; /* parallel edges: many equal offsets */
		if (n % 4 == 1) {
			/* A crowd's neighbours: side by side or nose to tail,
			 * a hair's breadth out of line, far from the origin;
			 * offsets within rounding of one another, which the
			 * distance may leave out only if they are not its. */
			double far = 1e4 * uniform(), side = n % 8 == 1;
			a.cx += far;
			a.cy -= far;
			b.yaw = a.yaw;
			double gap = 1e-3 + 3 * uniform();
			if (n % 16 == 5 || n % 16 == 9) /* touching, or all but */
				gap = 1e-7 * (uniform() - 0.5) * (n % 3);
			double along = 1e-6 * (uniform() - 0.5) * (n % 3);
			double w = side ? 2 * a.hw + gap : along;
			double f = side ? along : 2 * a.hl + gap;
			b.hw = a.hw;
			b.hl = a.hl;
			b.cx = a.cx + w * cos(a.yaw) - f * sin(a.yaw);
			b.cy = a.cy + w * sin(a.yaw) + f * cos(a.yaw);
		}
		if (n % 16 == 2)
			a.hw = 0; /* a line: its edges have no length */
		if (n % 64 == 6) {
			/* So long that an edge's squared length overflows
			 * (its offsets are NaN): the others still measure. */
			b.hl = 1e154 * (1 + uniform());
			a.cy += 1e3 * uniform();
		}
		if (n % 64 == 14) { /* negative extents: the same box */
			a.hw = -a.hw;
			b.hl = -b.hl;
		}
		if (n % 64 == 10) { /* far out, but not overflowing */
			a.cx += 1e140;
			b.cx += 1e140;
		}
		double want = 0;
		if (!vs_obb_overlap(&a, &b)) {
			double pa[4][2], pb[4][2];
			ref_corners(&a, pa);
			ref_corners(&b, pb);
			want = INFINITY;
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++) {
					int j2 = (j + 1) % 4;
					want = fmin(want, ref_point_segment(
						pa[i], pb[j], pb[j2]));
					want = fmin(want, ref_point_segment(
						pb[i], pa[j], pa[j2]));
				}
			disjoint++;
		}
		ck_assert(vs_obb_distance(&a, &b) == want);
	}
	ck_assert_int_gt(disjoint, 1000);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("monitor");
	TCase *tc = tcase_create("broad phase");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, crowded_scene_equals_exhaustive);
	tcase_add_test(tc, sparse_scene_equals_exhaustive);
	tcase_add_test(tc, near_pairs_are_a_superset_in_loop_order);
	tcase_add_test(tc, pair_rows_equal_exhaustive);
	tcase_add_test(tc, pair_rows_lower_id_first);
	tcase_add_test(tc, footprint_distance_is_the_smallest_corner_edge_hypot);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
