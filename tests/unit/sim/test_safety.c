/* Check suite for the safety KPIs' lead (sim/safety.c): on randomised
 * steps of 240 actors spread over the lanes of a ring and a straight road
 * (equal positions, actors off the lane, travelling the other way,
 * pedestrians, attached combinations), the near_miss events (actor, lead,
 * TTC and gap) and min_ttc / min_time_headway equal those of the rule
 * applied to every pair, written here from safety.c's header comment: the
 * lead is the other actor on the same lane, origin on it, travelling its
 * way (a character whichever way), of another combination, with the least
 * ds > 0 ahead along the lane (round a ring: ds + the lane's length), of
 * equal ds the lowest index; a character level with the body is not
 * ahead. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "map/map.h"
#include "sim/safety.h"

#define N 240
#define STEPS 60
#define DT 0.1      /* s */
#define PI 3.14159265358979323846

static uint64_t rng = 0xD1B54A32D192ED03ULL;

static double uniform(void) /* [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct ref {
	int n;
	int64_t ids[N];
	double length[N];
	int person[N];
	int combo[N];
	unsigned char below[N];
	double near_miss; /* s */
	double min_ttc, min_thw;
	int64_t min_ttc_actor, min_thw_actor;
	vs_event_row ev[N * STEPS];
	int n_ev;
} ref;

static int ref_lead(const ref *R, const vs_map *map, int i,
                    const vs_map_row *loc, double *gap)
{
	const vs_lane *l = vs_map_lane(map, loc[i].lane);
	if (!l || !loc[i].on_lane || fabs(loc[i].angle) >= PI / 2)
		return -1;
	int best = -1;
	double best_ds = INFINITY;
	for (int j = 0; j < R->n; j++) {
		if (j == i || loc[j].lane != loc[i].lane || !loc[j].on_lane ||
		    R->combo[j] == R->combo[i] ||
		    (fabs(loc[j].angle) >= PI / 2 && !R->person[j]))
			continue;
		double ds = (loc[j].position - loc[i].position) * l->length;
		if (ds <= 0 && l->closed)
			ds += l->length;
		if (R->person[j] && ds <= 0.5 * (R->length[i] + R->length[j]))
			continue;
		if (ds > 0 && ds < best_ds) {
			best_ds = ds;
			best = j;
		}
	}
	if (best >= 0)
		*gap = best_ds - 0.5 * (R->length[i] + R->length[best]);
	return best;
}

/* smaller wins, of equal values the lower ID; infinite never */
static void keep_min(double v, int64_t id, double *best, int64_t *best_id)
{
	if (isinf(v) || isnan(v))
		return;
	if (v < *best || (v == *best && id < *best_id)) {
		*best = v;
		*best_id = id;
	}
}

static void ref_step(ref *R, const vs_map *map, int64_t step,
                     const vs_state *st, const vs_map_row *loc)
{
	for (int i = 0; i < R->n; i++) {
		double gap = 0.0, v = hypot(st[i].vx, st[i].vy);
		int j = ref_lead(R, map, i, loc, &gap);
		double ttc = INFINITY;
		if (j >= 0) {
			double u = hypot(st[j].vx, st[j].vy);
			if (R->person[j])
				u *= cos(loc[j].angle);
			if (v > u)
				ttc = fmax(gap, 0.0) / (v - u);
			double thw = v > 0 ? fmax(gap, 0.0) / v : INFINITY;
			keep_min(thw, R->ids[i], &R->min_thw, &R->min_thw_actor);
		}
		keep_min(ttc, R->ids[i], &R->min_ttc, &R->min_ttc_actor);
		int below = ttc < R->near_miss;
		if (below && !R->below[i]) {
			vs_event_row *e = &R->ev[R->n_ev++];
			*e = (vs_event_row){step, R->ids[i], "near_miss",
			                    R->ids[j], ""};
			snprintf(e->detail, sizeof e->detail,
			         "ttc %.3f s, gap %.3f m", ttc, gap);
		}
		R->below[i] = (unsigned char)below;
	}
}

/* n actors (<= N), min_events near_miss events at least, each below
 * near_miss s of TTC. Each step new at random, or with drift, moved a
 * little from the step before (positions past one another, now and then
 * a lane change or a step off the lane and back), as in traffic, where
 * the lead search's order is sorted from the last step's by insertion. */
static void compare(int n, int min_events, double near_miss, int drift)
{
	double widths[3] = {3.5, 3.5, 3.5};
	vs_map_road roads[2] = {
		{.id = "ring", .is_circle = 1, .radius = 60, .n_right = 2,
		 .widths = widths},
		{.id = "line", .n_points = 2,
		 .points = (const double[]){0, 500, 0, 800, 500, 0},
		 .n_left = 1, .n_right = 2, .widths = widths}};
	vs_error err = {0};
	vs_map *map = vs_map_create(roads, 2, &err);
	ck_assert_msg(map, "%s", err.msg);
	int lanes = vs_map_lane_count(map);

	static ref R;
	memset(&R, 0, sizeof R);
	R.n = n;
	R.near_miss = near_miss;
	R.min_ttc = R.min_thw = INFINITY;
	for (int i = 0; i < n; i++) {
		R.ids[i] = 500 - 2 * i; /* not in index order */
		R.length[i] = 0.5 + 15 * uniform();
		R.person[i] = i % 13 == 0;
		R.combo[i] = i;
	}
	vs_safety *sf = vs_safety_create(n, R.ids, R.length, DT, map,
	                                 near_miss);
	for (int i = 0; i < n; i++)
		if (R.person[i])
			vs_safety_set_character(sf, i);
	for (int i = 2; i + 1 < n; i += 20) { /* pairs and a chain of 3 */
		vs_safety_attach(sf, i + 1, i);
		if (i % 40 == 2)
			vs_safety_attach(sf, i - 1, i);
		for (int j = 0; j < n; j++)
			if (R.combo[j] == R.combo[i + 1] ||
			    (i % 40 == 2 && R.combo[j] == R.combo[i - 1]))
				R.combo[j] = R.combo[i];
	}
	vs_result res;
	memset(&res, 0, sizeof res);
	static vs_state st[N];
	static vs_map_row loc[N];
	for (int64_t k = 0; k < STEPS; k++) {
		for (int i = 0; drift && k > 0 && i < n; i++) {
			/* in [0, 1), as a ring's positions are (1 is 0) */
			double p = loc[i].position + 0.01 * (uniform() - 0.5);
			loc[i].position = p < 0 ? p + 1 : p >= 1 ? p - 1 : p;
			if (uniform() < 0.02)
				loc[i].lane = (int)(uniform() * (lanes + 1)) - 1;
			if (uniform() < 0.02)
				loc[i].on_lane = !loc[i].on_lane;
			st[i].vx += uniform() - 0.5;
		}
		for (int i = 0; !(drift && k > 0) && i < n; i++) {
			double v = 30 * uniform(), h = 2 * PI * uniform();
			st[i] = (vs_state){.vx = v * cos(h), .vy = v * sin(h)};
			int lane = (int)(uniform() * (lanes + 1)) - 1;
			/* a few positions shared: ties and ds 0 */
			double pos = uniform() < 0.2 ? 0.125 * (int)(8 * uniform())
			                             : uniform();
			double ang = uniform() < 0.15 ? PI * (uniform() - 0.5) * 2
			                              : 0.3 * (uniform() - 0.5);
			loc[i] = (vs_map_row){lane, uniform() < 0.9, pos, ang};
		}
		vs_safety_step(sf, k, st, loc, &res);
		ref_step(&R, map, k, st, loc);
	}
	vs_safety_finish(sf, &res);
	ck_assert_int_ge(R.n_ev, min_events);
	ck_assert_int_eq(res.n_events, R.n_ev);
	for (int e = 0; e < R.n_ev; e++) {
		ck_assert_int_eq(res.events[e].step, R.ev[e].step);
		ck_assert_int_eq(res.events[e].actor_id, R.ev[e].actor_id);
		ck_assert_int_eq(res.events[e].other_id, R.ev[e].other_id);
		ck_assert_str_eq(res.events[e].detail, R.ev[e].detail);
	}
	/* nobody closing on a lead all run: no value (NULL in the file) */
	if (isinf(R.min_ttc))
		ck_assert(isnan(res.summary.min_ttc));
	else
		ck_assert(res.summary.min_ttc == R.min_ttc);
	if (isinf(R.min_thw))
		ck_assert(isnan(res.summary.min_thw));
	else
		ck_assert(res.summary.min_thw == R.min_thw);
	ck_assert_int_eq(res.summary.min_ttc_actor, R.min_ttc_actor);
	ck_assert_int_eq(res.summary.min_thw_actor, R.min_thw_actor);
	free(res.events);
	vs_map_unref(map);
}

START_TEST(leads_in_traffic)
{
	compare(N, 100, 4.0, 0); /* many leads, many changes */
	compare(N, 20, 4.0, 1);
}
END_TEST

/* Few actors a lane: leads round the ring, and actors level with one
 * another (ds 0) as the only one on the lane. */
START_TEST(leads_in_sparse_traffic)
{
	/* every closing lead a near miss: each one's ID is compared */
	for (int round = 0; round < 40; round++)
		compare(9, round % 2 ? 0 : 1, 1e9, round % 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("safety");
	TCase *tc = tcase_create("leads");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, leads_in_traffic);
	tcase_add_test(tc, leads_in_sparse_traffic);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
