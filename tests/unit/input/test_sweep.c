/* Sweep files: list blocks, varyActorProperties' rules (message and
 * position for each), variants built from the seed, and params_json. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/sweep.h"

#define PI 3.14159265358979323846
#define EPS 1e-12

/* The seed (sweep_seed.h): actor 1 a car with bicycle_steady and
 * constant_steer; actor 2 a car on a route with yaws; actor 3 a box. The
 * car's axles: y = 2 - 0.8 and 2.5 behind, so its rear overhang is
 * 4 - 0.8 - 2.5 = 0.7 m. */
#include "sweep_seed.h"

static vs_sweep *parse(const char *text, vs_error *err)
{
	memset(err, 0, sizeof *err);
	return vs_sweep_parse("w.yaml", text, strlen(text), seed, err);
}

/* Builds variant i and checks its params_json; returns the variant. */
static vs_scenario *variant(const vs_sweep *sw, uint64_t i, const char *json)
{
	vs_error err = {{0}};
	char *got = NULL;
	vs_scenario *v = vs_sweep_variant(sw, seed, i, &got, &err);
	ck_assert_msg(v, "variant %llu: %s", (unsigned long long)i, err.msg);
	ck_assert_str_eq(got, json);
	free(got);
	return v;
}

/* docs/sweep.md's list block, against this seed, plus a second block. */
static const char design_list[] =
	"vsweep: 1\n"
	"seed: 42\n"
	"blocks:\n"
	"  - list:                                  # one variant per entry\n"
	"      - [{actor: 1, speed: 10}, {actor: 1, param: vehicle_model.lf, "
	"value: 1.5}]\n"
	"      - [{actor: 2, waypoints: [[0,0,0],[0,60,0]], speed: [8, 12]}]\n"
	"      - []\n"
	"  - list:\n"
	"      - [{actor: 1, dimension: {length: 5}}]\n";

/* A route with yaws starts with heading yaw[0] (docs/sweep.md),
 * not facing its second waypoint (here +Y, yaw 0). */
START_TEST(yaw_change_sets_start_heading)
{
	vs_error err;
	vs_sweep *sw = parse("vsweep: 1\nblocks:\n  - list:\n      - [{actor: "
	                     "2, speed: 5, waypoints: [[0,0,0],[0,60,0]], "
	                     "yaw: [0.4, 0]}]\n", &err);
	ck_assert_msg(sw, "%s", err.msg);
	char *json = NULL;
	vs_scenario *v = vs_sweep_variant(sw, seed, 0, &json, &err);
	ck_assert_msg(v, "%s", err.msg);
	ck_assert_double_eq(v->actors[1].start_yaw, 0.4);
	ck_assert_double_eq(v->actors[1].start_pos[1], 0);
	free(json);
	vs_scenario_destroy(v);
	vs_sweep_destroy(sw);
}
END_TEST

/* docs/sweep.md: a seed is any integer >= 0, and the generator keys on
 * 64 bits: 2^63 and 2^64 - 1 are seeds as 0 is. */
START_TEST(seed_full_range)
{
	static const struct {
		const char *text;
		uint64_t want;
	} cases[] = {{"0", 0},
	             {"-0", 0},
	             {"9223372036854775807", 9223372036854775807ULL},
	             {"9223372036854775808", 1ULL << 63},
	             {"18446744073709551615", UINT64_MAX}};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char text[256];
		snprintf(text, sizeof text,
		         "vsweep: 1\nseed: %s\nblocks:\n  - list:\n"
		         "      - [{actor: 1, speed: 8}]\n", cases[k].text);
		vs_error err;
		vs_sweep *sw = parse(text, &err);
		ck_assert_msg(sw, "%s: %s", cases[k].text, err.msg);
		ck_assert_uint_eq(sw->seed, cases[k].want);
		vs_sweep_destroy(sw);
	}
}
END_TEST

START_TEST(list_blocks)
{
	vs_error err;
	vs_sweep *sw = parse(design_list, &err);
	ck_assert_msg(sw, "%s", err.msg);
	ck_assert_uint_eq(sw->seed, 42);
	ck_assert_int_eq(sw->n_blocks, 2);
	ck_assert_uint_eq(sw->count, 4);
	ck_assert_str_eq(sw->text, design_list);

	/* the header's own example */
	vs_scenario *v = variant(sw, 0,
	                         "{\"actor1\":{\"speed\":10,\"vehicle_model\":"
	                         "{\"lf\":1.5}}}");
	const vs_actor_spec *a = &v->actors[0];
	ck_assert_int_eq(a->n_speed, 1);
	ck_assert_double_eq(a->speed[0], 10);
	ck_assert_double_eq(a->vehicle_model.params[1], 1.5); /* lf */
	ck_assert_double_eq(a->vehicle_model.params[0], 1500); /* m default */
	ck_assert_double_eq(seed->actors[0].speed[0], 7);      /* seed intact */
	ck_assert_double_eq(seed->actors[0].vehicle_model.params[1], 1.2);
	vs_scenario_destroy(v);

	/* new waypoints: the derived start follows them (now facing +Y),
	 * and the seed's yaws, which belonged to the old route, go */
	v = variant(sw, 1, "{\"actor2\":{\"waypoints\":[[0,0,0],[0,60,0]],"
	                   "\"speed\":[8,12]}}");
	a = &v->actors[1];
	ck_assert_int_eq(a->n_waypoints, 2);
	ck_assert_double_eq(a->waypoints[4], 60);
	ck_assert_int_eq(a->n_speed, 2);
	ck_assert_double_eq(a->speed[1], 12);
	ck_assert_int_eq(a->has_start, 0);
	ck_assert_double_eq_tol(a->start_yaw, 0, EPS);
	ck_assert_int_eq(a->n_yaw, 0);
	ck_assert_ptr_null(a->yaw);
	vs_scenario_destroy(v);

	v = variant(sw, 2, "{}");
	ck_assert_double_eq_tol(v->actors[1].start_yaw, -PI / 2, EPS);
	ck_assert_int_eq(v->actors[1].n_yaw, 2);
	vs_scenario_destroy(v);

	/* a longer body on the same chassis: the axles keep their distance
	 * from the front bumper, so the wheelbase stays 2.5 m */
	v = variant(sw, 3, "{\"actor1\":{\"dimension\":{\"length\":5}}}");
	a = &v->actors[0];
	ck_assert_double_eq(a->length, 5);
	ck_assert_double_eq(a->front_overhang, 0.8);
	ck_assert_double_eq_tol(a->rear_overhang, 1.7, EPS);
	ck_assert_double_eq_tol(a->length - a->front_overhang - a->rear_overhang,
	                        2.5, EPS);
	vs_scenario_destroy(v);

	char *json = (char *)"untouched";
	ck_assert_ptr_null(vs_sweep_variant(sw, seed, 4, &json, &err));
	ck_assert_ptr_null(json);
	ck_assert_str_eq(err.msg,
	                 "w.yaml: variant 4 is out of range: the sweep has 4");
	vs_sweep_destroy(sw);
}
END_TEST

/* ---- one variant's changes in, the variant and its JSON out ------------- */

typedef struct good_case {
	const char *changes; /* one list entry */
	const char *json;
} good_case;

static const good_case good_cases[] = {
	/* P > M: the speeds are kept as given; the behaviour ignores extras */
	{"[{actor: 2, waypoints: [[0,0,0],[10,0,0],[20,5,0]], "
	 "speed: [1,2,3,4], yaw: [0, 0.1, 0.2]}]",
	 "{\"actor2\":{\"waypoints\":[[0,0,0],[10,0,0],[20,5,0]],"
	 "\"speed\":[1,2,3,4],\"yaw\":[0,0.10000000000000001,"
	 "0.20000000000000001]}}"},
	/* actors in first-appearance order, groups whole where they start */
	{"[{actor: 1, param: vehicle_model.lf, value: 1.5}, "
	 "{actor: 2, speed: 3}, {actor: 1, speed: 4}, "
	 "{actor: 1, param: vehicle_model.m, value: 1000}, "
	 "{actor: 1, param: behaviour.steering_wheel_deg, value: -90}]",
	 "{\"actor1\":{\"vehicle_model\":{\"lf\":1.5,\"m\":1000},\"speed\":4,"
	 "\"behaviour\":{\"steering_wheel_deg\":-90}},\"actor2\":{\"speed\":3}}"},
	{"[{actor: 3, start: {position: [1, 2, 3], yaw: 0.5}, "
	 "dimension.height: 2, dimension.length: 3}]",
	 "{\"actor3\":{\"start\":{\"position\":[1,2,3],\"yaw\":0.5},"
	 "\"dimension\":{\"height\":2,\"length\":3}}}"},
	/* an overhang given with a length wins, whatever the order */
	{"[{actor: 1, dimension: {rear_overhang: 1, length: 5}}]",
	 "{\"actor1\":{\"dimension\":{\"rear_overhang\":1,\"length\":5}}}"},
	{"[{actor: 2, start.yaw: 1}, {actor: 2, speed: [0.1]}]",
	 "{\"actor2\":{\"start\":{\"yaw\":1},\"speed\":0.10000000000000001}}"},
	/* one coordinate; the others stay the seed's */
	{"[{actor: 3, start.y: -2, start: {z: 0.5}}]",
	 "{\"actor3\":{\"start\":{\"y\":-2,\"z\":0.5}}}"},
};

START_TEST(good_variant)
{
	const good_case *c = &good_cases[_i];
	char text[1024];
	snprintf(text, sizeof text, "vsweep: 1\nblocks:\n  - list:\n      - %s\n",
	         c->changes);
	vs_error err;
	vs_sweep *sw = parse(text, &err);
	ck_assert_msg(sw, "%s\n%s", text, err.msg);
	ck_assert_uint_eq(sw->count, 1);
	vs_scenario *v = variant(sw, 0, c->json);
	/* variant i is a pure function of (sweep, i) */
	vs_scenario_destroy(variant(sw, 0, c->json));
	const vs_actor_spec *a1 = &v->actors[0], *a2 = &v->actors[1];
	const vs_actor_spec *a3 = &v->actors[2];
	switch (_i) {
	case 0:
		ck_assert_int_eq(a2->n_speed, 4);
		ck_assert_int_eq(a2->n_waypoints, 3);
		ck_assert_int_eq(a2->n_yaw, 3);
		ck_assert_double_eq(a2->yaw[2], 0.2);
		break;
	case 1:
		ck_assert_double_eq(a1->vehicle_model.params[0], 1000);
		ck_assert_double_eq(a1->behaviour.params[0], -90);
		ck_assert_double_eq(a2->speed[0], 3);
		break;
	case 2:
		ck_assert_int_eq(a3->has_start, 1);
		ck_assert_double_eq(a3->start_pos[2], 3);
		ck_assert_double_eq(a3->start_yaw, 0.5);
		ck_assert_double_eq(a3->height, 2);
		ck_assert_double_eq(a3->length, 3);
		ck_assert_double_eq(a3->rear_overhang, 0); /* not a vehicle */
		break;
	case 3:
		ck_assert_double_eq(a1->rear_overhang, 1);
		ck_assert_double_eq(a1->length, 5);
		break;
	case 5:
		ck_assert_double_eq(a3->start_pos[0], 5);
		ck_assert_double_eq(a3->start_pos[1], -2);
		ck_assert_double_eq(a3->start_pos[2], 0.5);
		break;
	case 4:
		/* a start given for one field keeps the derived other one */
		ck_assert_int_eq(a2->has_start, 1);
		ck_assert_double_eq(a2->start_yaw, 1);
		ck_assert_double_eq(a2->start_pos[0], 0);
		ck_assert_double_eq(a2->speed[0], strtod("0.10000000000000001",
		                                         NULL));
		break;
	}
	vs_scenario_destroy(v);
	vs_sweep_destroy(sw);
}
END_TEST

START_TEST(single)
{
	vs_sweep *sw = vs_sweep_single();
	ck_assert_uint_eq(sw->count, 1);
	ck_assert_ptr_null(sw->path);
	ck_assert_str_eq(sw->text, "");
	ck_assert_uint_eq(sw->text_len, 0);
	vs_scenario_destroy(variant(sw, 0, "{}"));
	vs_error err = {{0}};
	ck_assert_ptr_null(vs_sweep_variant(sw, seed, 1, NULL, &err));
	vs_sweep_destroy(sw);
	vs_sweep_destroy(NULL);
}
END_TEST

/* An FMU's param names come from its modelDescription.xml and may hold
 * any character: the params JSON escapes them as RFC 8259 section 7 says
 * (quote and backslash, control characters as \n, \t or \u00XX) and keeps
 * UTF-8 as it is, so the text stays JSON. */
START_TEST(param_names_are_json_escaped)
{
	double v1 = 1.5, v2 = 2;
	vs_change ch[] = {
		{.actor = 1, .prop = VS_PROP_PARAM, .n = 1, .values = &v1,
		 .field = (char *)"vehicle_model.I\"z\\<b>\n\t\x01\xc3\xa9"},
		{.actor = 1, .prop = VS_PROP_PARAM, .n = 1, .values = &v2,
		 .field = (char *)"behaviour.k\x1f"},
	};
	vs_change_set set = {.n = 2, .changes = ch};
	char *json = vs_change_set_json(&set);
	ck_assert_str_eq(json, "{\"actor1\":{\"vehicle_model\":{"
	                       "\"I\\\"z\\\\<b>\\n\\t\\u0001\xc3\xa9\":1.5},"
	                       "\"behaviour\":{\"k\\u001f\":2}}}");
	free(json);
}
END_TEST

START_TEST(load_file)
{
	char path[] = "/tmp/vs_sweep_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t n = strlen(design_list);
	ck_assert_int_eq(write(fd, design_list, n), (ssize_t)n);
	close(fd);
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_load(path, seed, &err);
	unlink(path);
	ck_assert_msg(sw, "%s", err.msg);
	ck_assert_str_eq(sw->path, path);
	ck_assert_uint_eq(sw->count, 4);
	vs_sweep_destroy(sw);
	ck_assert_ptr_null(vs_sweep_load("/nonexistent/w.yaml", seed, &err));
	ck_assert_str_eq(err.msg, "/nonexistent/w.yaml: cannot open: No such "
	                          "file or directory");
}
END_TEST

/* ---- refused sweeps ---------------------------------------------------- */

typedef struct bad_case {
	const char *yaml;
	const char *msg; /* expected prefix of the error */
} bad_case;

/* The variant's list starts at line 4, column 9; its first change's
 * actor value is at 4:18 and a second key at 4:21. */
#define V "vsweep: 1\nblocks:\n  - list:\n      - "
#define ALLOWED_CHANGE                                                    \
	"allowed: actor, speed, waypoints, yaw, dimension, dimension.length, " \
	"dimension.width, dimension.height, dimension.front_overhang, "       \
	"dimension.rear_overhang, start, start.position, start.yaw, start.x, " \
	"start.y, start.z, start.s, start.offset, attach, attach.offset, "    \
	"attach.heading, attach.slope, param, value"

static const bad_case bad_cases[] = {
	/* the file */
	{"", "w.yaml: empty file; a sweep starts with 'vsweep: 1'"},
	{"blocks: []\n", "w.yaml:1:1: sweep: missing required key 'vsweep'"},
	{"vsweep: 3\n", "w.yaml:1:9: vsweep: format version 3 is not supported"},
	{"vsweep: 1\nvariants: 3\n",
	 "w.yaml:2:1: unknown key 'variants' in sweep; allowed: vsweep, seed, "
	 "blocks"},
	{"vsweep: 1\nseed: -1\n", "w.yaml:2:7: seed must be >= 0, got -1"},
	{"vsweep: 1\nseed: 18446744073709551616\n",
	 "w.yaml:2:7: seed: 18446744073709551616 is out of range (0 to "
	 "18446744073709551615)"},
	{"vsweep: 1\nseed: -9223372036854775808\n",
	 "w.yaml:2:7: seed must be >= 0, got -9223372036854775808"},
	{"vsweep: 1\nseed: 1.5\n",
	 "w.yaml:2:7: seed: expected an integer, got '1.5'"},
	{"vsweep: 1\n", "w.yaml:1:1: sweep: missing required key 'blocks'"},
	{"vsweep: 1\nblocks: []\n", "w.yaml:2:9: blocks: needs at least one block"},
	/* blocks */
	/* a plain value in an axis is one value for every variant: here
	 * nothing varies (test_sweep_blocks.c has the grid and random forms) */
	{"vsweep: 1\nblocks:\n  - grid:\n      - {actor: 1, speed: 1}\n",
	 "w.yaml:4:9: grid axis: nothing varies"},
	{"vsweep: 1\nblocks:\n  - random: {count: 3}\n",
	 "w.yaml:3:13: random: missing required key 'axes'"},
	{"vsweep: 1\nblocks:\n  - foo: 1\n",
	 "w.yaml:3:5: unknown block kind 'foo'; allowed: list, grid, random"},
	{"vsweep: 1\nblocks:\n  - list: [[]]\n    grid: []\n",
	 "w.yaml:4:5: a block holds exactly one of list, grid or random (start "
	 "a new '- ' entry for each block)"},
	{"vsweep: 1\nblocks:\n  - {}\n",
	 "w.yaml:3:5: a block holds exactly one of list, grid or random"},
	{"vsweep: 1\nblocks:\n  - list: []\n",
	 "w.yaml:3:11: list: needs at least one variant"},
	{"vsweep: 1\nblocks:\n  - list: 5\n",
	 "w.yaml:3:11: list: expected a list, got '5'"},
	{V "{actor: 1, speed: 1}\n",
	 "w.yaml:4:9: list entry (one variant: a list of changes, or {label: "
	 "NAME, changes: [...]}): expected a list, got a mapping of a change; "
	 "write [{actor: ...}]"},
	{V "[1]\n", "w.yaml:4:10: change: expected a mapping, got '1'"},
	/* the actor */
	{V "[{actor: 0, speed: 1}]\n",
	 "w.yaml:4:18: actor: expected a positive integer actor ID, got 0"},
	{V "[{actor: -1, speed: 1}]\n",
	 "w.yaml:4:18: actor: expected a positive integer actor ID, got -1"},
	{V "[{actor: 1.5, speed: 1}]\n",
	 "w.yaml:4:18: actor: expected an integer, got '1.5'"},
	{V "[{actor: 9, speed: 1}]\n",
	 "w.yaml:4:18: actor 9: no such actor in the seed scenario (its IDs: "
	 "1, 2, 3)"},
	{V "[{speed: 1}]\n", "w.yaml:4:10: change: missing required key 'actor'"},
	{V "[{actor: 1}]\n",
	 "w.yaml:4:10: change: actor 1: give a property to change (speed, "
	 "waypoints, yaw, dimension, start, attach or param)"},
	{V "[{actor: 1, colour: 1}]\n",
	 "w.yaml:4:21: unknown key 'colour' in change; " ALLOWED_CHANGE},
	/* varyActorProperties' limitations */
	{V "[{actor: 2, waypoints: [[0,0,0],[1,0,0]]}]\n",
	 "w.yaml:4:21: actor 2: a waypoints change needs a speed change for the "
	 "same actor in the same variant"},
	{V "[{actor: 2, waypoints: [[0,0,0],[1,0,0]]}, {actor: 1, speed: 1}]\n",
	 "w.yaml:4:21: actor 2: a waypoints change needs a speed change"},
	{V "[{actor: 2, speed: 1, yaw: [0, 0]}]\n",
	 "w.yaml:4:31: actor 2: a yaw change needs waypoints and speed changes "
	 "for the same actor in the same variant"},
	{V "[{actor: 2, yaw: [0, 0], waypoints: [[0,0,0],[1,0,0]]}]\n",
	 "w.yaml:4:21: actor 2: a yaw change needs waypoints and speed"},
	{V "[{actor: 2, speed: 1, waypoints: [[0,0,0],[1,0,0]], yaw: [0]}]\n",
	 "w.yaml:4:61: actor 2: yaw has 1 values for 2 waypoints; give one per "
	 "waypoint"},
	{V "[{actor: 3, speed: 1, waypoints: [[0,0,0],[1,0,0]]}]\n",
	 "w.yaml:4:31: actor 3: has no behaviour to follow waypoints"},
	/* a route change on a behaviour that follows no route */
	{V "[{actor: 1, speed: 1, waypoints: [[0,0,0],[1,0,0]]}]\n",
	 "w.yaml:4:31: actor 1: its behaviour 'constant_steer' does not "
	 "follow a route, so a waypoints change has no effect"},
	{V "[{actor: 1, speed: [1, 2]}]\n",
	 "w.yaml:4:21: actor 1: its behaviour 'constant_steer' does not "
	 "follow a route, so a speed vector change has no effect"},
	{V "[{actor: 2, speed: 1, waypoints: [[0,0,0]]}]\n",
	 "w.yaml:4:42: waypoints: needs at least 2 rows, got 1"},
	{V "[{actor: 2, speed: 1, waypoints: [[0,0,0],[0,0,0]]}]\n",
	 "w.yaml:4:51: waypoints: row 2 repeats row 1"},
	{V "[{actor: 2, speed: 1, waypoints: [[0,0,0],[0,0,5],[1,0,0]]}]\n",
	 "w.yaml:4:51: waypoints: point 2 is within 0.001 m of point 1 in x-y"},
	/* values */
	{V "[{actor: 1, speed: -1}]\n", "w.yaml:4:28: speed must be >= 0, got -1"},
	{V "[{actor: 1, speed: [1, -2]}]\n",
	 "w.yaml:4:32: speed must be >= 0, got -2"},
	{V "[{actor: 1, speed: .inf}]\n",
	 "w.yaml:4:28: speed: .inf is not a finite number"},
	{V "[{actor: 1, dimension: {length: 0}}]\n",
	 "w.yaml:4:41: length must be > 0, got 0"},
	{V "[{actor: 1, dimension: {mass: 1}}]\n",
	 "w.yaml:4:33: unknown key 'mass' in dimension; allowed: length, width, "
	 "height, front_overhang, rear_overhang"},
	{V "[{actor: 1, dimension: {}}]\n",
	 "w.yaml:4:32: dimension: give at least one field"},
	{V "[{actor: 1, dimension.width: -1}]\n",
	 "w.yaml:4:38: dimension.width must be > 0, got -1"},
	{V "[{actor: 1, dimension: {front_overhang: 2, rear_overhang: 2.5}}]\n",
	 "w.yaml:4:52: actor 1: front_overhang + rear_overhang (4.5 m) must be "
	 "less than length (4 m) for a vehicle with 2 axles"},
	/* impossible bodies (track 1.7 m, wheelbase 2.5 m, overhangs 0.8 and
	 * 0.7 m; a length change keeps the axles, moving the rear bumper) */
	{V "[{actor: 1, dimension.width: 1.5}]\n",
	 "w.yaml:4:21: actor 1: track (1.7 m) must be narrower than the width "
	 "(1.5 m)"},
	{V "[{actor: 1, dimension.length: 3}]\n",
	 "w.yaml:4:21: actor 1: axle 2 (y = -1.8 m) lies outside the body "
	 "(length 3 m): an axle must be inside the body"},
	{V "[{actor: 1, dimension.length: 2}]\n",
	 "w.yaml:4:21: actor 1: length (2 m) must be longer than the wheelbase "
	 "(2.5 m)"},
	{V "[{actor: 1, start.position: [1, 2]}]\n",
	 "w.yaml:4:37: start.position: expected a list of 3 numbers, got 2"},
	{V "[{actor: 1, start: {position: [1, 2, 3], x: 1}}]\n",
	 "w.yaml:4:50: actor 1: start.x and start.position (at line 4) both set "
	 "the start position; give one"},
	{V "[{actor: 1, start.y: [1]}]\n",
	 "w.yaml:4:30: start.y: expected a number, got a list"},
	{V "[{actor: 1, start: {w: 1}}]\n",
	 "w.yaml:4:29: unknown key 'w' in start; allowed: position, yaw, x, y, "
	 "z"},
	{V "[{actor: 1, speed: 1}, {actor: 1, speed: 2}]\n",
	 "w.yaml:4:43: actor 1: speed is changed twice in this variant (first "
	 "at line 4)"},
	/* params */
	{V "[{actor: 1, param: model.lf, value: 1}]\n",
	 "w.yaml:4:28: param: expected vehicle_model.NAME or behaviour.NAME, "
	 "got 'model.lf'"},
	{V "[{actor: 1, param: vehicle_model., value: 1}]\n",
	 "w.yaml:4:28: param: expected vehicle_model.NAME or behaviour.NAME"},
	{V "[{actor: 1, param: vehicle_model.mass, value: 1}]\n",
	 "w.yaml:4:28: param vehicle_model.mass: actor 1's plugin "
	 "'bicycle_steady' has no param 'mass'; its params: m, lf, Kf, Kr, "
	 "steering_ratio"},
	{V "[{actor: 1, param: vehicle_model.lf, value: 20}]\n",
	 "w.yaml:4:53: value: vehicle_model.lf = 20 is outside [0.1, 10] m"},
	{V "[{actor: 1, param: vehicle_model.lf, value: x}]\n",
	 "w.yaml:4:53: value: expected a number, got 'x'"},
	{V "[{actor: 1, param: vehicle_model.lf}]\n",
	 "w.yaml:4:21: param vehicle_model.lf needs a value (value: NUMBER)"},
	{V "[{actor: 1, value: 1}]\n",
	 "w.yaml:4:28: value: only a param change takes a value"},
	{V "[{actor: 3, param: behaviour.x, value: 1}]\n",
	 "w.yaml:4:28: param behaviour.x: actor 3 has no behaviour plugin"},
};

START_TEST(bad_sweep)
{
	const bad_case *c = &bad_cases[_i];
	vs_error err;
	vs_sweep *sw = parse(c->yaml, &err);
	ck_assert_msg(!sw, "accepted:\n%s", c->yaml);
	ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg, err.msg);
}
END_TEST

/* A hostile variant with very many changes fails at the limit, not after
 * the quadratic rule checks ran over all of them. */
START_TEST(too_many_changes)
{
	const char *one = "{actor: 1, speed: 1}, "; /* 22 characters */
	size_t n = strlen(one), len = 64 + 1001 * n;
	char *text = malloc(len);
	strcpy(text, V "[");
	for (int i = 0; i < 1001; i++)
		strcat(text, one);
	strcat(text, "]\n");
	vs_error err;
	vs_sweep *sw = parse(text, &err);
	free(text);
	ck_assert_ptr_null(sw);
	/* the 1001st change, at column 10 + 1000 * 22 */
	ck_assert_str_eq(err.msg, "w.yaml:4:22010: a variant changes at most "
	                          "1000 properties");
}
END_TEST

static Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("good");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, list_blocks);
	tcase_add_test(tc, seed_full_range);
	tcase_add_test(tc, yaw_change_sets_start_heading);
	tcase_add_loop_test(tc, good_variant, 0,
	                    sizeof good_cases / sizeof good_cases[0]);
	tcase_add_test(tc, single);
	tcase_add_test(tc, param_names_are_json_escaped);
	tcase_add_test(tc, load_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, bad_sweep, 0,
	                    sizeof bad_cases / sizeof bad_cases[0]);
	tcase_add_test(tc, too_many_changes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sweep_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
