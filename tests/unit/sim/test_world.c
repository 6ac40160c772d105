/* Check suite for the host's world services (sim/world.c, world_index.c):
 * on randomised scenes of 300 actors (some attached in chains, some placed
 * far off or at non-finite positions), lane_actors, actors_near,
 * actor_reach and the ID lookup equal what a plain pass over every actor,
 * written here from their definitions in plugin.h, gives; and the answers
 * follow the actors when the step moves on (gen). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "map/map.h"
#include "sim/world.h"

#define N 300

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uniform(void) /* [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static vs_asset sedan = {.name = "sedan", .length = 4.8, .width = 1.9,
                         .height = 1.5, .n_axles = 2,
                         .axle_y = {1.5, -1.5}};

typedef struct scene {
	vs_scenario scn;
	vs_actor_spec actors[N];
	int64_t ids[N];
	vs_state prev[N];
	vs_state *prev_p;
	vs_map_row loc[N];
	vs_map *map;
	vs_sim_world w;
} scene;

/* A three-lane ring and a two-lane straight road; N actors with IDs
 * shuffled (not in scenario order), random sizes; every 10th attached to
 * the one before it, so that chains of two and three form. */
static void scene_init(scene *sc)
{
	memset(sc, 0, sizeof *sc);
	double widths[3] = {3.5, 3.5, 3.5};
	vs_map_road roads[2] = {
		{.id = "ring", .is_circle = 1, .radius = 150, .n_right = 3,
		 .widths = widths},
		{.id = "cross", .n_points = 2,
		 .points = (const double[]){-400, 0, 0, 400, 0, 0},
		 .n_left = 1, .n_right = 1, .widths = widths}};
	vs_error err = {0};
	sc->map = vs_map_create(roads, 2, &err);
	ck_assert_msg(sc->map, "%s", err.msg);
	sc->scn.n_assets = 1;
	sc->scn.assets = &sedan;
	sc->scn.n_actors = N;
	sc->scn.actors = sc->actors;
	for (int i = 0; i < N; i++) {
		vs_actor_spec *a = &sc->actors[i];
		a->id = 1000 + (int64_t)((i * 7919) % N) * 3; /* unique */
		a->name = "car";
		a->length = 1 + 15 * uniform();
		a->width = 0.5 + 2.5 * uniform();
		a->height = 1.5;
		if (i % 10 == 1 || i % 30 == 2) {
			a->attach.present = 1;
			a->attach.parent_id = sc->actors[i - 1].id;
		}
		sc->ids[i] = a->id;
	}
	vs_sim_world_init(&sc->w, &sc->scn);
	sc->prev_p = sc->prev;
	sc->w.map = sc->map;
	sc->w.n = N;
	sc->w.ids = sc->ids;
	sc->w.prev = &sc->prev_p;
	sc->w.loc = sc->loc;
}

/* New positions (metres to kilometres apart, some at one spot) and
 * locations (random lanes, some none), and the step moves on. */
static void scene_move(scene *sc, double spread)
{
	int lanes = vs_map_lane_count(sc->map);
	for (int i = 0; i < N; i++) {
		double x = spread * (uniform() - 0.5), y = spread * (uniform() - 0.5);
		if (i % 17 == 0) /* a crowd at one point */
			x = y = 12.5;
		sc->prev[i] = (vs_state){.x = x, .y = y};
		int lane = (int)(uniform() * (lanes + 1)) - 1; /* -1: none */
		double pos = i % 23 == 0 ? 0.5 : uniform(); /* equal s too */
		sc->loc[i] = (vs_map_row){.lane = lane, .position = pos,
		                          .on_lane = i % 7 != 3};
	}
	sc->w.gen++;
}

static void scene_free(scene *sc)
{
	vs_sim_world_free(&sc->w);
	vs_map_unref(sc->map);
}

static int index_of(const scene *sc, int64_t id)
{
	for (int i = 0; i < N; i++)
		if (sc->ids[i] == id)
			return i;
	return -1;
}

/* lane_actors by definition: the actors on the road located in the lane,
 * by s, equal s in scenario order. */
static void check_lanes(scene *sc)
{
	for (int l = 0; l < vs_map_lane_count(sc->map); l++) {
		const vs_lane *lane = vs_map_lane(sc->map, l);
		int want[N], n = 0;
		for (int i = 0; i < N; i++)
			if (sc->loc[i].lane == l && sc->loc[i].on_lane)
				want[n++] = i;
		for (int a = 1; a < n; a++) /* insertion sort by (s, index) */
			for (int b = a; b > 0 && sc->loc[want[b - 1]].position >
			                           sc->loc[want[b]].position; b--) {
				int t = want[b];
				want[b] = want[b - 1];
				want[b - 1] = t;
			}
		const int64_t *ids;
		const double *s;
		size_t got = vs_sim_world_lane_actors(&sc->w, lane->uuid, &ids,
		                                      &s);
		ck_assert_uint_eq(got, (size_t)n);
		for (int j = 0; j < n; j++) {
			ck_assert_int_eq(ids[j], sc->ids[want[j]]);
			/* as map_location's s, bit for bit */
			ck_assert(s[j] == sc->loc[want[j]].position * lane->length);
		}
	}
	const int64_t *ids;
	const double *s;
	ck_assert_uint_eq(vs_sim_world_lane_actors(&sc->w, "{no-such-lane}",
	                                           &ids, &s), 0);
}

/* actors_near by definition: every origin within radius, in scenario
 * order. */
static void check_near(scene *sc, double x, double y, double r)
{
	const int64_t *ids;
	size_t got = vs_sim_world_actors_near(&sc->w, x, y, r, &ids);
	size_t j = 0;
	for (int i = 0; i < N; i++) {
		double dx = sc->prev[i].x - x, dy = sc->prev[i].y - y;
		if (!(dx * dx + dy * dy <= r * r))
			continue;
		ck_assert_msg(j < got, "(%g, %g) r %g: actor %d missing", x, y,
		              r, i);
		ck_assert_int_eq(ids[j], sc->ids[i]);
		j++;
	}
	ck_assert_uint_eq(got, j);
}

/* actor_reach by definition: the farthest footprint corner of an actor
 * or of anything attached below it, from the actor's origin. */
static double reach_of(const scene *sc)
{
	double best = 0;
	for (int i = 0; i < N; i++) {
		const vs_actor_spec *a = &sc->actors[i];
		double r = 0.5 * hypot(a->length, a->width);
		best = fmax(best, r);
		for (int p = i; sc->actors[p].attach.present;) {
			p = index_of(sc, sc->actors[p].attach.parent_id);
			best = fmax(best, hypot(sc->prev[i].x - sc->prev[p].x,
			                        sc->prev[i].y - sc->prev[p].y) + r);
		}
	}
	return best;
}

START_TEST(ids_are_found_by_id)
{
	scene sc;
	scene_init(&sc);
	ck_assert_ptr_nonnull(sc.w.id_slot); /* 1000 .. 1897: dense */
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(vs_sim_world_index(&sc.w, sc.ids[i]), i);
	ck_assert_int_eq(vs_sim_world_index(&sc.w, 1001), -1);
	ck_assert_int_eq(vs_sim_world_index(&sc.w, INT64_MIN), -1);
	ck_assert_ptr_null(vs_sim_world_attr(&sc.w, 7));
	ck_assert_int_eq(vs_sim_world_attr(&sc.w, sc.ids[5])->id, sc.ids[5]);
	scene_free(&sc);
}
END_TEST

/* IDs far apart (no direct table) and at the ends of int64_t. */
START_TEST(sparse_ids_are_found_by_id)
{
	static const int64_t ids[] = {INT64_MAX, -5, 0, INT64_MIN + 1, 7,
	                              1000000000000};
	enum { M = sizeof ids / sizeof ids[0] };
	vs_actor_spec actors[M];
	memset(actors, 0, sizeof actors);
	for (int i = 0; i < M; i++) {
		actors[i].id = ids[i];
		actors[i].name = "a";
	}
	vs_scenario scn = {.n_assets = 1, .assets = &sedan, .n_actors = M,
	                   .actors = actors};
	vs_sim_world w;
	memset(&w, 0, sizeof w);
	vs_sim_world_init(&w, &scn);
	ck_assert_ptr_null(w.id_slot);
	for (int i = 0; i < M; i++)
		ck_assert_int_eq(vs_sim_world_index(&w, ids[i]), i);
	ck_assert_int_eq(vs_sim_world_index(&w, 1), -1);
	ck_assert_int_eq(vs_sim_world_index(&w, INT64_MIN), -1);
	ck_assert_int_eq(vs_sim_world_index(&w, INT64_MAX - 1), -1);
	vs_sim_world_free(&w);
	/* dense, and IDs just outside the table */
	for (int i = 0; i < M; i++)
		actors[i].id = INT64_MAX - 2 * i;
	memset(&w, 0, sizeof w);
	vs_sim_world_init(&w, &scn);
	ck_assert_ptr_nonnull(w.id_slot);
	for (int i = 0; i < M; i++)
		ck_assert_int_eq(vs_sim_world_index(&w, INT64_MAX - 2 * i), i);
	ck_assert_int_eq(vs_sim_world_index(&w, INT64_MAX - 1), -1);
	ck_assert_int_eq(vs_sim_world_index(&w, INT64_MAX - 2 * M), -1);
	ck_assert_int_eq(vs_sim_world_index(&w, INT64_MIN), -1);
	ck_assert_int_eq(vs_sim_world_index(&w, 0), -1);
	vs_sim_world_free(&w);
}
END_TEST

START_TEST(answers_equal_a_pass_over_every_actor)
{
	scene sc;
	scene_init(&sc);
	const double spreads[] = {60, 600, 6000, 60000};
	for (int round = 0; round < 4; round++) {
		scene_move(&sc, spreads[round]);
		check_lanes(&sc);
		for (int q = 0; q < 200; q++) {
			double x = spreads[round] * (uniform() - 0.5);
			double y = spreads[round] * (uniform() - 0.5);
			double r = spreads[round] * 0.2 * uniform() * uniform();
			check_near(&sc, x, y, r);
		}
		check_near(&sc, 12.5, 12.5, 0.0); /* the crowd, exactly */
		check_near(&sc, 0, 0, INFINITY);
		ck_assert(vs_sim_world_reach(&sc.w) == reach_of(&sc));
	}
	/* a circle that covers few cells sees few actors: the grid works
	 * (a pass over every actor would still give the same answer) */
	const int64_t *ids;
	scene_move(&sc, 60000);
	ck_assert_uint_le(vs_sim_world_actors_near(&sc.w, 30000, 30000, 50,
	                                           &ids), 2);
	/* nothing for a NaN point or radius */
	ck_assert_uint_eq(vs_sim_world_actors_near(&sc.w, NAN, 0, 10, &ids), 0);
	ck_assert_uint_eq(vs_sim_world_actors_near(&sc.w, 0, 0, NAN, &ids), 0);
	ck_assert_uint_eq(vs_sim_world_actors_near(&sc.w, 0, 0, -1, &ids), 0);
	scene_free(&sc);
}
END_TEST

/* Step to step, actors move a little: the index starts from the last
 * step's order and sorts by insertion (world_index.c). Small moves past
 * one another, a few lane changes, actors leaving the road and coming
 * back, one leaving the grid and returning: each step's answers still
 * equal a pass over every actor. */
START_TEST(answers_equal_a_pass_as_actors_move_a_little)
{
	scene sc;
	scene_init(&sc);
	scene_move(&sc, 600);
	int lanes = vs_map_lane_count(sc.map);
	for (int step = 0; step < 40; step++) {
		for (int i = 0; i < N; i++) {
			sc.prev[i].x += 3 * (uniform() - 0.5);
			sc.prev[i].y += 3 * (uniform() - 0.5);
			double p = sc.loc[i].position + 0.02 * (uniform() - 0.5);
			sc.loc[i].position = p < 0 ? 0 : p > 1 ? 1 : p;
			if (uniform() < 0.01) /* a lane change */
				sc.loc[i].lane = (int)(uniform() * lanes);
			if (uniform() < 0.02) /* off the road, or back */
				sc.loc[i].on_lane = !sc.loc[i].on_lane;
		}
		sc.prev[9].x = step % 10 == 5 ? NAN : 20.0; /* out and back */
		sc.w.gen++;
		check_lanes(&sc);
		for (int q = 0; q < 20; q++)
			check_near(&sc, 600 * (uniform() - 0.5),
			           600 * (uniform() - 0.5), 60 * uniform());
	}
	scene_free(&sc);
}
END_TEST

START_TEST(positions_not_finite_or_far_out)
{
	scene sc;
	scene_init(&sc);
	scene_move(&sc, 600);
	sc.prev[3].x = NAN;
	sc.prev[4].y = INFINITY;
	sc.prev[5].x = 1e300; /* no grid cell holds it */
	check_near(&sc, 0, 0, 100);
	check_near(&sc, 1e300, 0, 1e290);
	check_near(&sc, 0, 0, INFINITY);
	ck_assert(isinf(vs_sim_world_reach(&sc.w)));
	/* every actor in the grid, a circle whose columns do not fit in
	 * int64_t (was a conversion out of range) */
	scene_move(&sc, 600);
	check_near(&sc, 1e21, 0, 1.0);
	check_near(&sc, -1e21, 5, 1e3);
	check_near(&sc, 0, 1e21, 1.0);
	scene_free(&sc);
}
END_TEST

START_TEST(answers_follow_the_step)
{
	scene sc;
	scene_init(&sc);
	scene_move(&sc, 600);
	const int64_t *ids;
	check_near(&sc, 0, 0, 100); /* the index of this step is built */
	sc.prev[0] = (vs_state){.x = 5000, .y = 5000};
	/* kept for the step: a position changed within it is not seen */
	ck_assert_uint_eq(vs_sim_world_actors_near(&sc.w, 5000, 5000, 1,
	                                           &ids), 0);
	sc.w.gen++; /* the step the position belongs to */
	ck_assert_uint_eq(vs_sim_world_actors_near(&sc.w, 5000, 5000, 1,
	                                           &ids), 1);
	ck_assert_int_eq(ids[0], sc.ids[0]);
	/* map_location is memoised for a step, recomputed on the next */
	vs_lane_location a, b;
	sc.loc[0] = (vs_map_row){.lane = 0, .position = 0.25};
	sc.w.gen++;
	ck_assert_int_eq(vs_sim_world_location(&sc.w, sc.ids[0], &a), 0);
	sc.loc[0].position = 0.75;
	ck_assert_int_eq(vs_sim_world_location(&sc.w, sc.ids[0], &b), 0);
	ck_assert(a.position == b.position);
	sc.w.gen++;
	ck_assert_int_eq(vs_sim_world_location(&sc.w, sc.ids[0], &b), 0);
	ck_assert(b.position == 0.75);
	scene_free(&sc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("world");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ids_are_found_by_id);
	tcase_add_test(tc, sparse_ids_are_found_by_id);
	tcase_add_test(tc, answers_equal_a_pass_over_every_actor);
	tcase_add_test(tc, answers_equal_a_pass_as_actors_move_a_little);
	tcase_add_test(tc, positions_not_finite_or_far_out);
	tcase_add_test(tc, answers_follow_the_step);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
