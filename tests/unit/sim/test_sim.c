/* Check suite for the stepping loop: docs/conventions.md's step semantics
 * (every behaviour sees step k-1, so actor order does not matter), failures,
 * recording, and the actor geometry handed to plugins. The plugins here are
 * descriptors defined in the test, bound by hand: no files, no dlopen. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/registry.h"
#include "sim/actor.h"
#include "sim/character.h"
#include "sim/signals.h"
#include "sim/sim.h"
#include "sim/wheels.h"

/* --- test plugins ------------------------------------------------------ */

typedef struct inst {
	const vs_host *host;
	void *ctx;
	int64_t other; /* probe: the actor it watches */
	int64_t k;
	int fail_step;
} inst;

static vs_status t_create(const vs_create_args *a, void **out)
{
	inst *p = calloc(1, sizeof *p);
	p->host = vs_sim_host();
	p->ctx = a->host_ctx;
	p->other = (int64_t)a->params[0];
	p->fail_step = (int)a->params[1];
	*out = p;
	return VS_OK;
}

static vs_status t_reset(void *i, vs_state *s)
{
	(void)s;
	((inst *)i)->k = 0;
	return VS_OK;
}

static void t_destroy(void *i)
{
	free(i);
}

/* Behaviour: speed = the watched actor's previous x + 1. */
static vs_status probe_step(void *i, double t, double dt, const vs_state *self,
                            vs_control *c)
{
	inst *p = i;
	p->k++;
	if (p->k == p->fail_step) {
		p->host->log(p->ctx, VS_LOG_ERROR, "gave up at step %lld",
		             (long long)p->k);
		return VS_ERROR;
	}
	const vs_state *o = p->host->previous_state(p->ctx, p->other);
	if (!o)
		return VS_ERROR;
	c->speed = o->x + 1;
	c->steering_wheel = 0;
	return VS_OK;
}

/* Vehicle model: x takes the commanded speed's value (a probe, not
 * physics); a NaN when asked. */
static vs_status place_step(void *i, double t, double dt, const vs_control *c,
                            vs_state *s)
{
	inst *p = i;
	p->k++;
	s->x = p->k == p->fail_step ? NAN : c->speed;
	return VS_OK;
}

static const vs_param probe_params[] = {
	{"other", 0, 0, 1e9, "", "actor to watch"},
	{"fail_step", -1, -1, 1e9, "", "step to fail at"},
};

static const vs_plugin probe = {
	VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), VS_KIND_BEHAVIOUR,
	"probe", "1", "test", probe_params, 2, t_create, t_reset, NULL,
	probe_step, t_destroy, NULL, 0, 0, 0, 0};
static const vs_plugin place = {
	VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), VS_KIND_VEHICLE_MODEL,
	"place", "1", "test", probe_params, 2, t_create, t_reset, place_step,
	NULL, t_destroy, NULL, 0, 0, 0, 0};
static const vs_loaded_plugin probe_l = {"probe.so", NULL, &probe, NULL};
static const vs_loaded_plugin place_l = {"place.so", NULL, &place, NULL};

/* Behaviour that goes wrong in one call, silently (no log): the host's
 * own message must say which actor, plugin and call. params: phase 1
 * create returns ERROR, 2 reset returns FATAL, 3 the step `at` returns
 * DISCARD, 4 the step `at` gives a NaN steering wheel. */
static int gates_alive;

static vs_status gate_create(const vs_create_args *a, void **out)
{
	if (a->params[0] == 1)
		return VS_ERROR;
	int64_t *k = calloc(2, sizeof *k);
	k[1] = (int64_t)a->params[0] * 1000 + (int64_t)a->params[1];
	*out = k;
	gates_alive++;
	return VS_OK;
}

static vs_status gate_reset(void *i, vs_state *s)
{
	(void)s;
	int64_t *k = i;
	k[0] = 0;
	return k[1] / 1000 == 2 ? VS_FATAL : VS_OK;
}

static vs_status gate_step(void *i, double t, double dt, const vs_state *self,
                           vs_control *c)
{
	(void)t;
	(void)dt;
	(void)self;
	int64_t *k = i;
	int phase = (int)(k[1] / 1000), at = (int)(k[1] % 1000);
	k[0]++;
	c->speed = 1;
	c->steering_wheel = phase == 4 && k[0] == at ? NAN : 0;
	return phase == 3 && k[0] == at ? VS_DISCARD : VS_OK;
}

static void gate_destroy(void *i)
{
	if (i)
		gates_alive--;
	free(i);
}

static const vs_param gate_params[] = {
	{"phase", 0, 0, 4, "", "which call goes wrong"},
	{"at", 0, 0, 100, "", "the step that goes wrong"},
};
static const vs_plugin gate = {
	VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), VS_KIND_BEHAVIOUR,
	"gate", "1", "test", gate_params, 2, gate_create, gate_reset, NULL,
	gate_step, gate_destroy, NULL, 0, 0, 0, 0};
static const vs_loaded_plugin gate_l = {"gate.so", NULL, &gate, NULL};

/* --- a scenario built by hand ------------------------------------------ */

static vs_asset sedan = {
	.name = "sedan", .length = 4.8, .width = 1.9, .height = 1.5,
	.front_overhang = 0.9, .track = 1.6, .wheel_radius = 0.34,
	.n_axles = 2, .axle_y = {1.5, -1.5}};

static void use(vs_plugin_use *u, const vs_loaded_plugin *l, double other,
                double fail)
{
	memset(u, 0, sizeof *u);
	u->plugin = (char *)l->desc->name;
	u->loaded = l;
	u->params = calloc(2, sizeof(double));
	u->params[0] = other;
	u->params[1] = fail;
}

static void actor(vs_actor_spec *a, int64_t id, double x0, int64_t other)
{
	memset(a, 0, sizeof *a);
	a->id = id;
	a->name = id == 1 ? "one" : "two";
	a->length = 4.8;
	a->width = 1.9;
	a->height = 1.5;
	a->front_overhang = 0.9;
	a->rear_overhang = 0.9;
	a->start_pos[0] = x0;
	use(&a->behaviour, &probe_l, (double)other, -1);
	use(&a->vehicle_model, &place_l, 0, -1);
}

static vs_scenario *two_actors(int swapped)
{
	vs_scenario *s = calloc(1, sizeof *s);
	s->step = 0.5;
	s->duration = 5; /* steps 0..10 */
	s->n_assets = 1;
	s->assets = &sedan;
	s->n_actors = 2;
	s->actors = calloc(2, sizeof *s->actors);
	actor(&s->actors[swapped ? 1 : 0], 1, 0.0, 2);
	actor(&s->actors[swapped ? 0 : 1], 2, 100.0, 1);
	return s;
}

static void free_scn(vs_scenario *s)
{
	for (int i = 0; i < s->n_actors; i++) {
		free(s->actors[i].behaviour.params);
		free(s->actors[i].vehicle_model.params);
	}
	free(s->actors);
	free(s);
}

static double x_of(const vs_result *r, int64_t id, int64_t step)
{
	for (int64_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].actor_id == id && r->rows[i].step == step)
			return r->rows[i].s.x;
	ck_abort_msg("no row for actor %lld step %lld", (long long)id,
	             (long long)step);
	return 0;
}

/* --- tests --------------------------------------------------------------- */

START_TEST(behaviours_see_previous_step_in_any_order)
{
	for (int swapped = 0; swapped < 2; swapped++) {
		vs_scenario *s = two_actors(swapped);
		vs_result r = {0};
		vs_sim_opts o = {.record_every = 1};
		ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
		ck_assert_int_eq(r.status, VS_VARIANT_DONE);
		ck_assert_int_eq(r.n_rows, 2 * 11);
		/* x1(k) = x2(k-1) + 1 and x2(k) = x1(k-1) + 1, from x1(0) = 0
		 * and x2(0) = 100: odd steps swap the two sequences. */
		double a = 0, b = 100;
		for (int k = 1; k <= 10; k++) {
			double na = b + 1, nb = a + 1;
			a = na;
			b = nb;
			ck_assert_double_eq(x_of(&r, 1, k), a);
			ck_assert_double_eq(x_of(&r, 2, k), b);
		}
		ck_assert_double_eq(x_of(&r, 1, 10), 10);
		ck_assert_double_eq(x_of(&r, 2, 10), 110);
		vs_result_finish(&r);
		free_scn(s);
	}
}
END_TEST

START_TEST(plugin_error_fails_variant_with_reason)
{
	vs_scenario *s = two_actors(0);
	s->actors[1].behaviour.params[1] = 4; /* actor 2 fails at step 4 */
	vs_result r = {0};
	vs_sim_opts o = {.record_every = 1};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.status, VS_VARIANT_FAILED);
	ck_assert_str_eq(r.error, "actor 2 (two): probe: gave up at step 4");
	ck_assert_int_eq(r.n_rows, 2 * 4); /* steps 0..3 */
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(non_finite_state_fails_variant)
{
	vs_scenario *s = two_actors(0);
	s->actors[0].vehicle_model.params[1] = 7;
	vs_result r = {0};
	vs_sim_opts o = {.record_every = 1};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.status, VS_VARIANT_FAILED);
	/* the field place_step spoils is named, with its value */
	ck_assert_ptr_nonnull(strstr(r.error, "actor 1 (one): place: "
	                             "non-finite state: x = nan at step 7"));
	for (int64_t i = 0; i < r.n_rows; i++)
		ck_assert(isfinite(r.rows[i].s.x));
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

/* Every plugin call that goes wrong without a logged reason fails the
 * variant with "actor ID (NAME): PLUGIN: what", the call and step named;
 * instances made before the failure are destroyed. Step 0.5 s. */
START_TEST(silent_plugin_failures_are_named)
{
	static const struct {
		double phase, at;
		const char *error;
		int64_t rows;
	} cases[] = {
		{1, 0, "actor 2 (two): gate: create failed (ERROR)", 0},
		{2, 0, "actor 2 (two): gate: reset failed", 0},
		{3, 3, "actor 2 (two): gate: DISCARD at step 3 (t = 1.5 s)", 2 * 3},
		{4, 2, "actor 2 (two): gate: non-finite control: "
		       "steering_wheel = nan at step 2 (t = 1 s)", 2 * 2},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		vs_scenario *s = two_actors(0);
		vs_plugin_use *u = &s->actors[1].behaviour;
		free(u->params);
		use(u, &gate_l, cases[c].phase, cases[c].at);
		vs_result r = {0};
		vs_sim_opts o = {.record_every = 1};
		ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
		ck_assert_int_eq(r.status, VS_VARIANT_FAILED);
		ck_assert_str_eq(r.error, cases[c].error);
		ck_assert_int_eq(r.n_rows, cases[c].rows);
		ck_assert_int_eq(gates_alive, 0);
		vs_result_finish(&r);
		free_scn(s);
	}
}
END_TEST

START_TEST(record_every_keeps_multiples)
{
	vs_scenario *s = two_actors(0);
	vs_result r = {0};
	vs_sim_opts o = {.record_every = 3};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.n_rows, 2 * 4); /* 0 3 6 9 */
	for (int64_t i = 0; i < r.n_rows; i++)
		ck_assert_int_eq(r.rows[i].step % 3, 0);
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(stop_flag_aborts)
{
	vs_scenario *s = two_actors(0);
	vs_result r = {0};
	volatile sig_atomic_t stop = 1;
	vs_sim_opts o = {.record_every = 1, .stop = &stop};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), -1);
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

/* A sink that keeps what it is handed, chunk by chunk (sim.h's
 * vs_row_sink), and says stop at chunk stop_at (0: never). */
typedef struct collect {
	vs_state_row rows[64];
	int64_t n_rows;
	int64_t chunk_rows[16];
	int n_chunks;
	int stop_at;
} collect;

static int collect_flush(void *ctx, vs_result *r)
{
	collect *c = ctx;
	ck_assert_int_lt(c->n_chunks, 16);
	ck_assert_int_le(c->n_rows + r->n_rows, 64);
	memcpy(c->rows + c->n_rows, r->rows, (size_t)r->n_rows * sizeof *r->rows);
	c->n_rows += r->n_rows;
	c->chunk_rows[c->n_chunks++] = r->n_rows;
	r->n_rows = 0; /* taken; the array is kept for reuse */
	return c->stop_at && c->n_chunks == c->stop_at ? -1 : 0;
}

/* The rows a sink was handed, then those left in r, must be the 2 actors'
 * closed-form x of behaviours_see_previous_step_in_any_order, steps 0 ..
 * last, in step order. */
static void check_streamed(const collect *c, const vs_result *r, int last)
{
	ck_assert_int_eq(c->n_rows + r->n_rows, 2 * (last + 1));
	double a = 0, b = 100;
	for (int k = 0; k <= last; k++) {
		for (int i = 0; i < 2; i++) {
			int64_t n = 2 * k + i;
			const vs_state_row *row = n < c->n_rows
			                          ? &c->rows[n]
			                          : &r->rows[n - c->n_rows];
			ck_assert_int_eq(row->step, k);
			ck_assert_int_eq(row->actor_id, i + 1);
			ck_assert_double_eq(row->s.x, i == 0 ? a : b);
		}
		double na = b + 1, nb = a + 1;
		a = na;
		b = nb;
	}
}

START_TEST(sink_takes_whole_steps_as_they_are_made)
{
	vs_scenario *s = two_actors(0);
	vs_result r = {0};
	collect c = {0};
	/* 3 rows' worth: a flush after every second step (4 rows held). */
	vs_row_sink sink = {collect_flush, &c, 3 * sizeof(vs_state_row)};
	vs_sim_opts o = {.record_every = 1, .sink = &sink};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.status, VS_VARIANT_DONE);
	/* Steps 0-1, 2-3, ..., 8-9 handed on; step 10 left in r. */
	ck_assert_int_eq(c.n_chunks, 5);
	for (int k = 0; k < c.n_chunks; k++)
		ck_assert_int_eq(c.chunk_rows[k], 4);
	ck_assert_int_eq(r.n_rows, 2);
	check_streamed(&c, &r, 10);
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(sink_keeps_rows_before_a_failure)
{
	vs_scenario *s = two_actors(0);
	s->actors[1].behaviour.params[1] = 4; /* actor 2 fails at step 4 */
	vs_result r = {0};
	collect c = {0};
	vs_row_sink sink = {collect_flush, &c, 3 * sizeof(vs_state_row)};
	vs_sim_opts o = {.record_every = 1, .sink = &sink};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.status, VS_VARIANT_FAILED);
	ck_assert_str_eq(r.error, "actor 2 (two): probe: gave up at step 4");
	check_streamed(&c, &r, 3); /* steps 0..3, as without a sink */
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(sink_stop_aborts)
{
	vs_scenario *s = two_actors(0);
	vs_result r = {0};
	collect c = {.stop_at = 2};
	vs_row_sink sink = {collect_flush, &c, 3 * sizeof(vs_state_row)};
	vs_sim_opts o = {.record_every = 1, .sink = &sink};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), -1);
	ck_assert_int_eq(c.n_chunks, 2); /* no step after the stop */
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(actor_rows_describe_actors)
{
	vs_scenario *s = two_actors(0);
	vs_result r = {0};
	vs_sim_run(s, NULL, &r);
	ck_assert_int_eq(r.n_actors, 2);
	ck_assert_int_eq(r.actors[1].actor_id, 2);
	ck_assert_str_eq(r.actors[1].kind, "vehicle");
	ck_assert_int_eq(r.actors[1].wheel_count, 4);
	ck_assert_int_eq(r.actors[1].parent_id, 0);
	ck_assert_str_eq(r.actors[1].vehicle_model, "place");
	ck_assert_str_eq(r.actors[1].behaviour, "probe");
	vs_result_finish(&r);
	free_scn(s);
}
END_TEST

START_TEST(axles_follow_dimensions)
{
	vs_scenario *s = two_actors(0);
	vs_actor_info info;
	vs_sim_actor_info(s, 0, &info);
	ck_assert_double_eq_tol(info.front_axle_y, 1.5, 1e-12);
	ck_assert_double_eq_tol(info.rear_axle_y, -1.5, 1e-12);
	ck_assert_double_eq_tol(info.wheelbase, 3.0, 1e-12);
	/* A longer body with the same overhangs: a longer wheelbase. */
	s->actors[0].length = 5.2;
	vs_sim_actor_info(s, 0, &info);
	ck_assert_double_eq_tol(info.front_axle_y, 1.7, 1e-12);
	ck_assert_double_eq_tol(info.rear_axle_y, -1.7, 1e-12);
	ck_assert_double_eq_tol(info.wheelbase, 3.4, 1e-12);
	/* Start velocity along the heading: yaw 0 faces +Y. */
	s->actors[0].n_speed = 1;
	double v = 4;
	s->actors[0].speed = &v;
	s->actors[0].start_yaw = 1.5707963267948966; /* pi/2: faces -X */
	vs_sim_actor_info(s, 0, &info);
	ck_assert_double_eq_tol(info.start.vx, -4, 1e-12);
	ck_assert_double_eq_tol(info.start.vy, 0, 1e-12);
	free_scn(s);
}
END_TEST

START_TEST(tandem_rear_reference_is_group_centre)
{
	static vs_asset truck = {
		.name = "truck", .length = 8, .width = 2.5, .height = 3.5,
		.front_overhang = 1.2, .track = 2.0, .wheel_radius = 0.5,
		.n_axles = 3, .axle_y = {2.8, -1.9, -3.2}};
	vs_scenario *s = two_actors(0);
	s->assets = &truck;
	s->actors[0].length = 8;
	s->actors[0].front_overhang = 1.2;
	s->actors[0].rear_overhang = 4 - 3.2;
	vs_actor_info info;
	vs_sim_actor_info(s, 0, &info);
	ck_assert_double_eq_tol(info.front_axle_y, 2.8, 1e-12);
	ck_assert_double_eq_tol(info.rear_axle_y, (-1.9 - 3.2) / 2, 1e-12);
	ck_assert_int_eq(info.n_axles, 3);
	free_scn(s);
}
END_TEST

/* A character's point-mass step (character.h), against hand values: a
 * walker at (1, 2) facing +Y given a velocity of 1.4 m/s along +X. */
START_TEST(character_point_mass)
{
	const double dt = 0.1, pi = 3.14159265358979323846;
	vs_state prev = {.x = 1, .y = 2, .z = 0.5, .yaw = 0}, cur;
	vs_control c;
	vs_character_control_clear(&c);
	ck_assert(!vs_character_control_ok(&c)); /* vx, vy are required */
	c.vx = 1.4;
	c.vy = 0;
	ck_assert(vs_character_control_ok(&c));
	/* no position: moved by v dt; no yaw: facing the velocity, +X,
	 * which is RoadRunner yaw -pi/2, turned through -pi/2 in dt */
	vs_character_step(&prev, &c, dt, &cur);
	ck_assert_double_eq_tol(cur.x, 1.14, 1e-12);
	ck_assert_double_eq_tol(cur.y, 2, 1e-12);
	ck_assert_double_eq(cur.z, 0.5);
	ck_assert_double_eq_tol(cur.yaw, -pi / 2, 1e-12);
	ck_assert_double_eq_tol(cur.speed, 1.4, 1e-12);
	ck_assert_double_eq_tol(cur.wz, -pi / 2 / dt, 1e-9);
	/* a position and a yaw given: taken as they are; walking backwards
	 * (velocity against the heading) is a negative speed */
	c.x = 5;
	c.y = 6;
	c.yaw = pi / 2; /* faces -X */
	vs_character_step(&prev, &c, dt, &cur);
	ck_assert_double_eq(cur.x, 5);
	ck_assert_double_eq(cur.y, 6);
	ck_assert_double_eq_tol(cur.speed, -1.4, 1e-12);
	/* standing: the yaw stays as it was */
	vs_character_control_clear(&c);
	c.vx = c.vy = 0;
	prev.yaw = 0.3;
	vs_character_step(&prev, &c, dt, &cur);
	ck_assert_double_eq(cur.yaw, 0.3);
	ck_assert_double_eq(cur.wz, 0);
	c.yaw = INFINITY;
	ck_assert(!vs_character_control_ok(&c));
}
END_TEST

/* Wheels going straight (steer exactly +-0, which skips the libm calls):
 * every wheel points ahead with the steer's own sign of zero, and all
 * roll the origin's distance; a steered wheel's angle otherwise is the
 * Ackermann atan2(l tan d, l + x tan d) of wheels.h, bit for bit. */
START_TEST(wheels_straight_and_steered)
{
	const double l = 3.0, x = 0.8;
	ck_assert(vs_wheel_steer(0.0, x, l) == 0 &&
	          !signbit(vs_wheel_steer(0.0, x, l)));
	ck_assert(vs_wheel_steer(-0.0, -x, l) == 0 &&
	          signbit(vs_wheel_steer(-0.0, -x, l)));
	for (double d = -0.5; d <= 0.5; d += 0.125)
		for (int side = -1; side <= 1; side += 2) {
			double t = tan(d), want = atan2(l * t, l + side * x * t);
			ck_assert(vs_wheel_steer(d, side * x, l) == want);
		}
	/* 10 m/s along a heading of 0.3 rad for 1 s in 100 steps */
	vs_actor_info info = {.n_axles = 2, .wheelbase = l, .track = 1.6,
	                      .front_axle_y = 1.5};
	for (int neg = 0; neg < 2; neg++) {
		vs_state a = {.yaw = 0.3, .steer = neg ? -0.0 : 0.0};
		a.vx = -10 * sin(a.yaw); /* world velocity, heading +Y at 0 */
		a.vy = 10 * cos(a.yaw);
		vs_wheel_acc acc = {0};
		vs_wheel_speeds memo = {0};
		for (int k = 0; k < 100; k++)
			vs_wheels_advance(&acc, &memo, &info, &a, &a, 0.01);
		ck_assert_double_eq_tol(acc.dist, 10, 1e-12);
		ck_assert_double_eq_tol(acc.roll_l, 10, 1e-12);
		ck_assert_double_eq_tol(acc.roll_r, 10, 1e-12);
		ck_assert(acc.turn == 0);
	}
}
END_TEST

/* A log row's message (vs_log_text, docs/results.md's view log): whole
 * up to 4096 bytes; past them, the whole characters within the first
 * 4096, then "\u2026 [N more bytes]", N the bytes left out. */
START_TEST(log_text_cuts_on_a_character_boundary)
{
	enum { MAX = 4096 };
	char *in = malloc(MAX + 16), *want = malloc(MAX + 64);
	memset(in, 'x', MAX + 16);
	/* exactly the limit: whole */
	char *got = vs_log_text(in, MAX, 0);
	ck_assert_uint_eq(strlen(got), MAX);
	ck_assert(strspn(got, "x") == MAX);
	free(got);
	/* one byte past it, ASCII: 4096 kept, 1 more */
	memcpy(want, in, MAX);
	strcpy(want + MAX, "\xe2\x80\xa6 [1 more bytes]");
	got = vs_log_text(in, MAX + 1, 0);
	ck_assert_str_eq(got, want);
	free(got);
	/* a 4-byte character (U+1F600) over bytes 4094..4097 of 4099: the
	 * cut backs off to byte 4094, 5 bytes left out */
	memcpy(in + MAX - 2, "\xf0\x9f\x98\x80y", 5);
	strcpy(want + MAX - 2, "\xe2\x80\xa6 [5 more bytes]");
	got = vs_log_text(in, MAX + 3, 0);
	ck_assert_str_eq(got, want);
	free(got);
	/* escaped: a tab is two characters, the limit counts the one byte */
	got = vs_log_text("a\tb", 3, 1);
	ck_assert_str_eq(got, "a\\tb");
	free(got);
	/* a NUL (a printed line may hold one) is escaped, not the end */
	got = vs_log_text("n\0x", 3, 1);
	ck_assert_str_eq(got, "n\\x00x");
	free(got);
	free(in);
	free(want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("sim");
	tcase_add_test(tc, behaviours_see_previous_step_in_any_order);
	tcase_add_test(tc, plugin_error_fails_variant_with_reason);
	tcase_add_test(tc, non_finite_state_fails_variant);
	tcase_add_test(tc, silent_plugin_failures_are_named);
	tcase_add_test(tc, record_every_keeps_multiples);
	tcase_add_test(tc, stop_flag_aborts);
	tcase_add_test(tc, sink_takes_whole_steps_as_they_are_made);
	tcase_add_test(tc, sink_keeps_rows_before_a_failure);
	tcase_add_test(tc, sink_stop_aborts);
	tcase_add_test(tc, actor_rows_describe_actors);
	tcase_add_test(tc, axles_follow_dimensions);
	tcase_add_test(tc, tandem_rear_reference_is_group_centre);
	tcase_add_test(tc, character_point_mass);
	tcase_add_test(tc, wheels_straight_and_steered);
	tcase_add_test(tc, log_text_cuts_on_a_character_boundary);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
