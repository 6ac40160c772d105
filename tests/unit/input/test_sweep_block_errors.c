/* Grid and random blocks refused: every message the loader gives for
 * them, with its FILE:LINE:COL, table-driven. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "input/sweep.h"
#include "sweep_seed.h"

/* ---- refused blocks ------------------------------------------------------ */

typedef struct bad_case {
	const char *yaml;
	const char *msg; /* expected prefix of the error */
} bad_case;

/* G and R (seed_fixture.h): a grid's first axis starts at line 4,
 * column 9 (its first key at 10, a second key at 20); a random block's at
 * line 6, column 11 (22). */
#define NOTHING                                                            \
	"nothing varies; give a property the values it takes as a mapping, "  \
	"e.g. speed: {"
#define SEPARATE                                                           \
	" (yaw and waypoints on separate axes combine every way; vary them " \
	"on one axis to pair them)"

static const bad_case bad_cases[] = {
	/* grid forms */
	{G "{actor: 1, speed: [5, 10]}\n",
	 "w.yaml:4:9: grid axis: " NOTHING "values: [5, 10]} (a plain value "
	 "such as speed: [5, 10] is one value, here a speed vector, that every "
	 "variant gets)"},
	{G "{actor: 1, speed: 5}\n", "w.yaml:4:9: grid axis: " NOTHING},
	{G "{actor: 1, dimension.length: [4, 5]}\n",
	 "w.yaml:4:38: dimension.length: a list is not a set of values here; "
	 "write dimension.length: {values: [...]}"},
	{G "{actor: 1, speed: {values: [5, -1]}}\n",
	 "w.yaml:4:40: speed must be >= 0, got -1"},
	{G "{actor: 1, speed: {values: []}}\n",
	 "w.yaml:4:36: values: needs at least one value"},
	{G "{actor: 1, speed: {values: 5}}\n",
	 "w.yaml:4:36: values: expected a list, got '5'"},
	{G "{actor: 1, speed: {from: -5, to: 5, step: 1}}\n",
	 "w.yaml:4:34: speed must be >= 0, got -5"},
	{G "{actor: 1, speed: {from: 0, to: 5, step: 0}}\n",
	 "w.yaml:4:50: step must be > 0, got 0"},
	{G "{actor: 1, speed: {from: 5, to: 1, step: 1}}\n",
	 "w.yaml:4:41: range: to (1) must be >= from (5); the step is positive"},
	{G "{actor: 1, speed: {from: 0, to: 1000000, step: 0.001}}\n",
	 "w.yaml:4:27: range: more than 1000000000 values"},
	{G "{actor: 1, speed: {from: 0, to: 1e300, step: 1e-300}}\n",
	 "w.yaml:4:27: range: more than 1000000000 values"},
	{G "{actor: 1, speed: {from: 0, to: 1}}\n",
	 "w.yaml:4:27: range: missing required key 'step'"},
	{G "{actor: 1, speed: {from: 0, to: 1, step: 1, by: 2}}\n",
	 "w.yaml:4:53: unknown key 'by' in speed; allowed: values, from, to, "
	 "step"},
	{G "{actor: 1, speed: {values: [1], from: 0}}\n",
	 "w.yaml:4:27: speed: give values or a range {from, to, step}, not both"},
	{G "{actor: 1, speed: {}}\n",
	 "w.yaml:4:27: speed: give the values it takes ({values: [...]} or "
	 "{from, to, step})"},
	{G "{actor: 1, speed: {uniform: [1, 2]}}\n",
	 "w.yaml:4:28: speed: uniform is for random blocks; a grid axis takes "
	 "{values: [...]} or {from, to, step}"},
	{G "{actor: 1, speed: 1, waypoints: {values: [[[0,0,0],[1,0,0]]]}}\n",
	 "w.yaml:4:30: actor 1: its behaviour 'constant_steer' does not "
	 "follow a route, so a waypoints change has no effect"},
	{G "{actor: 2, speed: 1, waypoints: {from: 0, to: 1, step: 1}}\n",
	 "w.yaml:4:41: waypoints: a range takes one-number properties; give "
	 "waypoints its values as a list (values: [...])"},
	{G "{actor: 1, dimension: {length: {values: [4, 5]}}}\n",
	 "w.yaml:4:20: dimension: in an axis, give each field on its own, as "
	 "dimension.FIELD"},
	{G "{actor: 1, start: {yaw: 1}}\n",
	 "w.yaml:4:20: start: in an axis, give each field on its own"},
	{G "{actor: 1, colour: 1}\n",
	 "w.yaml:4:20: unknown key 'colour' in grid axis; allowed: actor, "
	 "speed, waypoints, yaw, dimension.length, dimension.width, "
	 "dimension.height, dimension.front_overhang, dimension.rear_overhang, "
	 "start.position, start.yaw, start.x, start.y, start.z, start.s, "
	 "start.offset, attach.offset, attach.heading, attach.slope, param, "
	 "value, values"},
	{G "{speed: {values: [1]}}\n",
	 "w.yaml:4:9: grid axis: missing required key 'actor'"},
	{G "{actor: 9, speed: {values: [1]}}\n",
	 "w.yaml:4:17: actor 9: no such actor in the seed scenario"},
	{G "5\n", "w.yaml:4:9: grid axis: expected a mapping, got '5'"},
	{GRID "      {}\n", "w.yaml:4:7: grid: expected a list, got a mapping"},
	{GRID "      []\n", "w.yaml:4:7: grid: needs at least one axis"},
	{G "{actor: 1, speed: {values: [1, 2]}, start.x: {values: [1, 2, "
	 "3]}}\n",
	 "w.yaml:4:54: grid axis: start.x has 3 values but speed has 2; the "
	 "properties varied on one axis move together, value by value"},
	/* params */
	{G "{actor: 1, speed: {values: [1]}, values: [1]}\n",
	 "w.yaml:4:50: values: only a param axis takes values (param: "
	 "vehicle_model.NAME or behaviour.NAME)"},
	{G "{actor: 1, param: vehicle_model.lf}\n",
	 "w.yaml:4:20: param vehicle_model.lf needs its values (values: [...] "
	 "or value: {from, to, step})"},
	{G "{actor: 1, param: vehicle_model.lf, value: 1, values: [1]}\n",
	 "w.yaml:4:63: grid axis: give value or values, not both"},
	{G "{actor: 1, param: vehicle_model.lf, values: [1.4, 20]}\n",
	 "w.yaml:4:59: values: vehicle_model.lf = 20 is outside [0.1, 10] m"},
	{G "{actor: 1, param: vehicle_model.lf, value: {from: 0.05, to: 1, "
	 "step: 0.5}}\n",
	 "w.yaml:4:59: from: vehicle_model.lf = 0.05 is outside [0.1, 10] m"},
	{G "{actor: 1, param: vehicle_model.lf, value: {from: 5, to: 11, "
	 "step: 1}}\n",
	 "w.yaml:4:66: to: vehicle_model.lf = 11 is outside [0.1, 10] m"},
	/* a step doubles cannot resolve there: the same value 21 times */
	{GRID "      - {actor: 1, speed: {from: 1e16, to: 1.0000000000000002e16, "
	 "step: 0.1}}\n",
	 "w.yaml:4:73: range: step 0.1 is below what doubles resolve at 1e+16: "
	 "its values would repeat"},
	/* a value just past a bound is shown past it (%g showed 10) */
	{G "{actor: 1, param: vehicle_model.lf, values: [10.0000001]}\n",
	 "w.yaml:4:54: values: vehicle_model.lf = 10.0000001 is outside [0.1, "
	 "10] m"},
	{G "{actor: 1, param: vehicle_model.mass, values: [1]}\n",
	 "w.yaml:4:27: param vehicle_model.mass: actor 1's plugin "
	 "'bicycle_steady' has no param 'mass'"},
	/* counts */
	{GRID "      - {actor: 1, speed: {from: 0, to: 999, step: 1}}\n"
	      "      - {actor: 1, start.x: {from: 0, to: 999, step: 1}}\n"
	      "      - {actor: 1, start.y: {from: 0, to: 999, step: 1}}\n"
	      "      - {actor: 1, start.z: {values: [0, 1]}}\n",
	 "w.yaml:7:9: grid: more than 1000000000 variants (1000000000 from "
	 "the axes before this one, times 2)"},
	{GRID "      - {actor: 1, speed: {from: 0, to: 999, step: 1}}\n"
	      "      - {actor: 1, start.x: {from: 0, to: 999, step: 1}}\n"
	      "      - {actor: 1, start.y: {from: 0, to: 999, step: 1}}\n"
	      "  - list: [[]]\n",
	 "w.yaml:7:5: the sweep has more than 1000000000 variants"},
	/* the rules over a block */
	{G "{actor: 2, waypoints: {values: [[[0,0,0],[1,0,0]]]}}\n",
	 "w.yaml:4:20: actor 2: a waypoints change needs a speed change for "
	 "the same actor in the same block"},
	{G "{actor: 3, speed: 1, waypoints: {values: [[[0,0,0],[1,0,0]]]}}\n",
	 "w.yaml:4:30: actor 3: has no behaviour to follow waypoints"},
	{G "{actor: 2, yaw: {values: [[0, 0]]}}\n",
	 "w.yaml:4:20: actor 2: a yaw change needs waypoints and speed changes "
	 "for the same actor in the same block"},
	{GRID "      - {actor: 1, speed: {values: [1, 2]}}\n"
	      "      - {actor: 1, speed: {values: [3]}}\n",
	 "w.yaml:5:20: actor 1: speed is changed twice in this block (first "
	 "at line 4)"},
	{G "{actor: 1, start.position: [1, 2, 3], start.x: {values: [1]}}\n",
	 "w.yaml:4:47: actor 1: start.x and start.position (at line 4) both "
	 "set the start position; give one"},
	{GRID "      - {actor: 2, speed: 1, waypoints: {values: "
	      "[[[0,0,0],[1,0,0]], [[0,0,0],[1,0,0],[2,0,0]]]}}\n"
	      "      - {actor: 2, yaw: {values: [[0, 0]]}}\n",
	 "w.yaml:5:35: actor 2: yaw has 2 values for 3 waypoints; give one per "
	 "waypoint" SEPARATE},
	{GRID "      - {actor: 2, speed: {values: [1, 2]}, waypoints: "
	      "[[0,0,0],[1,0,0]]}\n"
	      "      - {actor: 2, yaw: {values: [[0, 0], [0, 0, 0]]}}\n",
	 "w.yaml:5:43: actor 2: yaw has 3 values for 2 waypoints; give one per "
	 "waypoint" SEPARATE},
	{G "{actor: 2, speed: 1, waypoints: {values: [[[0,0,0],[1,0,0]]]}, "
	 "yaw: {values: [[0, 0, 0]]}}\n",
	 "w.yaml:4:87: actor 2: yaw has 3 values for 2 waypoints; give one per "
	 "waypoint\n"},
	{G "{actor: 1, dimension.rear_overhang: {values: [0.5, 3.5]}}\n",
	 "w.yaml:4:20: actor 1: front_overhang + rear_overhang must be less "
	 "than length for a vehicle with 2 axles, but in this block length - "
	 "front_overhang - rear_overhang can be as low as -0.3 m"},
	/* paired on one axis these fit (grid_paired); apart they do not */
	{GRID "      - {actor: 1, dimension.length: {values: [3, 6]}}\n"
	      "      - {actor: 1, dimension.rear_overhang: {values: [0.5, 4]}}\n",
	 "w.yaml:5:20: actor 1: front_overhang + rear_overhang must be less "
	 "than length for a vehicle with 2 axles, but in this block length - "
	 "front_overhang - rear_overhang can be as low as -1.8 m"},
	/* impossible bodies over a grid (the car: track 1.7 m, wheelbase 2.5
	 * m, overhangs 0.8 and 0.7 m; a length change keeps the axles, so
	 * at length L the rear axle is at -(L/2 - (L - 3.3)) = L/2 - 3.3):
	 * the worst value of each axis, named with its block and axis */
	{G "{actor: 1, dimension.width: {values: [2, 1.5, 1.8]}}\n",
	 "w.yaml:4:50: block 1 (grid), axis 1 (dimension.width = 1.5): actor "
	 "1: track (1.7 m) must be narrower than the width (1.5 m)"},
	{G "{actor: 1, dimension.length: {from: 3, to: 5, step: 0.5}}\n",
	 "w.yaml:4:38: block 1 (grid), axis 1 (dimension.length = 3): actor 1: "
	 "axle 2 (y = -1.8 m) lies outside the body (length 3 m): an axle must "
	 "be inside the body"},
	{G "{actor: 1, dimension.length: {from: 2, to: 5, step: 1}}\n",
	 "w.yaml:4:38: block 1 (grid), axis 1 (dimension.length = 2): actor 1: "
	 "length (2 m) must be longer than the wheelbase (2.5 m)"},
	/* two axes: the variant that breaks the rule takes each axis's own
	 * worst value (length 3.2 puts the rear axle at -1.7 m) */
	{"vsweep: 1\nblocks:\n  - list: [[]]\n  - grid:\n"
	 "      - {actor: 1, dimension.width: {values: [2.1, 1.9]}}\n"
	 "      - {actor: 1, speed: {values: [1, 2, 3]}, "
	 "dimension.length: {values: [4, 3.2, 5]}}\n",
	 "w.yaml:6:79: block 2 (grid), axis 1 (dimension.width = 2.1), axis 2 "
	 "(dimension.length = 3.2): actor 1: axle 2 (y = -1.7 m) lies outside "
	 "the body (length 3.2 m)"},
	/* random forms */
	{"vsweep: 1\nblocks:\n  - random: [1]\n",
	 "w.yaml:3:13: random: expected a mapping, got a list"},
	{"vsweep: 1\nblocks:\n  - random: {count: 3}\n",
	 "w.yaml:3:13: random: missing required key 'axes'"},
	{"vsweep: 1\nblocks:\n  - random: {axes: []}\n",
	 "w.yaml:3:13: random: missing required key 'count'"},
	{"vsweep: 1\nblocks:\n  - random: {count: 3, axes: [], foo: 1}\n",
	 "w.yaml:3:34: unknown key 'foo' in random; allowed: count, axes"},
	{"vsweep: 1\nblocks:\n  - random: {count: 0, axes: []}\n",
	 "w.yaml:3:21: count: expected 1 to 1000000000 variants, got 0"},
	{"vsweep: 1\nblocks:\n  - random: {count: 1000000001, axes: []}\n",
	 "w.yaml:3:21: count: expected 1 to 1000000000 variants, got "
	 "1000000001"},
	{"vsweep: 1\nblocks:\n  - random: {count: 1.5, axes: []}\n",
	 "w.yaml:3:21: count: expected an integer, got '1.5'"},
	{"vsweep: 1\nblocks:\n  - random: {count: 2, axes: []}\n",
	 "w.yaml:3:30: axes: needs at least one axis"},
	{R "{actor: 1, speed: 5}\n",
	 "w.yaml:6:11: random axis: " NOTHING "uniform: [5, 10]}"},
	{R "{actor: 1, speed: {values: [1, 2]}}\n",
	 "w.yaml:6:30: speed: values is for grid blocks; a random axis takes "
	 "{uniform: [a, b]}, {normal: {...}} or {choice: {values: [...]}}"},
	{R "{actor: 1, speed: {uniform: [1, 2], normal: {mean: 1, sd: 1}}}\n",
	 "w.yaml:6:47: speed: give one distribution"},
	{R "{actor: 1, speed: {uniform: [-1, 5]}}\n",
	 "w.yaml:6:40: speed must be >= 0, got -1"},
	{R "{actor: 1, speed: {uniform: [5, 1]}}\n",
	 "w.yaml:6:39: uniform: expected [a, b] with a <= b (and b - a "
	 "finite), got [5, 1]"},
	{R "{actor: 1, speed: {uniform: [1]}}\n",
	 "w.yaml:6:39: uniform: expected a list of 2 numbers, got 1"},
	{R "{actor: 1, start.x: {uniform: [-1e308, 1e308]}}\n",
	 "w.yaml:6:41: uniform: expected [a, b] with a <= b (and b - a "
	 "finite)"},
	{R "{actor: 2, yaw: {uniform: [0, 1]}}\n",
	 "w.yaml:6:37: yaw: uniform takes one-number properties; give yaw its "
	 "values as a list (choice: {values: [...]})"},
	{R "{actor: 1, speed: {normal: {mean: 10, sd: 2}}}\n",
	 "w.yaml:6:38: speed: give the normal a min >= 0: speed must be >= 0 "
	 "and an unbounded normal is not"},
	{R "{actor: 1, speed: {normal: {mean: 10, sd: 2, min: -1}}}\n",
	 "w.yaml:6:61: speed must be >= 0, got -1"},
	{R "{actor: 1, dimension.length: {normal: {mean: 4, sd: 1}}}\n",
	 "w.yaml:6:49: dimension.length: give the normal a min > 0: "
	 "dimension.length must be > 0 and an unbounded normal is not"},
	{R "{actor: 1, param: vehicle_model.lf, value: {normal: {mean: 1.4, "
	 "sd: 0.1, min: 1}}}\n",
	 "w.yaml:6:63: vehicle_model.lf: give the normal min and max within "
	 "[0.1, 10] m, the param's range"},
	{R "{actor: 1, param: vehicle_model.lf, value: {normal: {mean: 1.4, "
	 "sd: 0.1, min: 1, max: 12}}}\n",
	 "w.yaml:6:97: max: vehicle_model.lf = 12 is outside [0.1, 10] m"},
	{R "{actor: 3, start.x: {normal: {mean: 0, sd: 0}}}\n",
	 "w.yaml:6:54: sd must be > 0, got 0"},
	{R "{actor: 3, start.x: {normal: {sd: 1}}}\n",
	 "w.yaml:6:40: normal: missing required key 'mean'"},
	{R "{actor: 3, start.x: {normal: {mean: 0, sd: 1, min: 5, max: 5}}}\n",
	 "w.yaml:6:70: normal: min (5) must be less than max (5)"},
	{R "{actor: 3, start.x: {normal: {mean: 0, sd: 1, min: 40, max: 41}}}\n",
	 "w.yaml:6:40: normal: [min, max] lies so far in the tail that it "
	 "holds almost none (< 1e-280) of the distribution"},
	{R "{actor: 3, start.x: {normal: {mean: 0, sd: 1e307}}}\n",
	 "w.yaml:6:54: normal: sd = 1e+307 is too large"},
	{R "{actor: 3, start.x: {choice: {values: [1, 2], weights: [1]}}}\n",
	 "w.yaml:6:66: choice: 1 weights for 2 values; give one per value"},
	{R "{actor: 3, start.x: {choice: {values: [1, 2], weights: [0, 0]}}}\n",
	 "w.yaml:6:66: choice: the weights must have a positive, finite sum, "
	 "got 0"},
	{R "{actor: 3, start.x: {choice: {values: [1, 2], weights: [1, -1]}}}\n",
	 "w.yaml:6:70: weights must be >= 0, got -1"},
	{R "{actor: 3, start.x: {choice: {weights: [1]}}}\n",
	 "w.yaml:6:40: choice: missing required key 'values'"},
	{R "{actor: 1, speed: {uniform: [1, 2]}, start.x: {uniform: [0, 1]}}\n",
	 "w.yaml:6:29: random axis: several properties vary on this axis, so "
	 "one index is drawn for all: each must be a choice, and speed is a "
	 "uniform"},
	{R "{actor: 1, start.x: {choice: {values: [1], weights: [1]}}, "
	 "start.y: {choice: {values: [1], weights: [2]}}}\n",
	 "w.yaml:6:79: random axis: weights are given on two choices; give them "
	 "on one (they weight the index all the choices share)"},
	{R "{actor: 1, param: vehicle_model.lf, values: [1.4]}\n",
	 "w.yaml:6:55: values: a random axis draws its param from value: "
	 "{uniform|normal|choice: ...}"},
	{R "{actor: 1, dimension.front_overhang: {normal: {mean: 0.8, sd: 0.1, "
	 "min: 0.1}}}\n",
	 "w.yaml:6:22: actor 1: front_overhang + rear_overhang must be less "
	 "than length for a vehicle with 2 axles, but in this block length - "
	 "front_overhang - rear_overhang can be as low as -inf m"},
	{R "{actor: 1, dimension.front_overhang: {uniform: [0.5, 3.5]}}\n",
	 "w.yaml:6:22: actor 1: front_overhang + rear_overhang must be less "
	 "than length for a vehicle with 2 axles, but in this block length - "
	 "front_overhang - rear_overhang can be as low as -0.2 m"},
};

START_TEST(bad_block)
{
	const bad_case *c = &bad_cases[_i];
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("w.yaml", c->yaml, strlen(c->yaml), seed,
	                              &err);
	ck_assert_msg(!sw, "accepted:\n%s", c->yaml);
	size_t n = strlen(c->msg);
	int exact = n && c->msg[n - 1] == '\n'; /* the whole message */
	ck_assert_msg(exact ? strncmp(err.msg, c->msg, n - 1) == 0 &&
	                          err.msg[n - 1] == 0
	                    : strncmp(err.msg, c->msg, n) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg, err.msg);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("sweep_block_errors");
	TCase *tc = tcase_create("bad");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, bad_block, 0,
	                    sizeof bad_cases / sizeof bad_cases[0]);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(errors_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
