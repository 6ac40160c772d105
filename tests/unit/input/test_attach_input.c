/* Check suite for attach: in scenario files (input/attach.h): what is read,
 * the defaults, binding (attached actors get no plugins), and every error
 * with its message and line:col. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_registry.h"
#include "input/scenario.h"

#define PI 3.14159265358979323846
#define EPS 1e-12

/* Lines 1-3 the top, 4-7 the assets, 8 actors:, 9 the truck (ID 1),
 * 10-12 actor 2 up to its attach: key, whose entries start at line 13 in
 * column 7 (so "      parent: 1" has its value in column 15). */
#define HEAD                                                                \
	"vsweep: 1\nstep: 0.1\nduration: 10\nassets:\n"                      \
	"  truck: {length: 6.2, width: 2.5, height: 3.2, axles: [2.1, -1.6, " \
	"-2.9], points: {attach_fifth_wheel: [0, -1.95, 1.2]}}\n"            \
	"  trailer: {length: 13.6, width: 2.5, height: 4, axles: [-4.2, "    \
	"-5.5], points: {hitch: [0, 5.6, 1.2], attach_rear: [0, -6.8, 0.5]}}\n" \
	"  box: {length: 1, width: 1, height: 1}\n"                          \
	"actors:\n"                                                          \
	"  - {id: 1, asset: truck, start: {position: [0, 0, 0]}, speed: 5}\n"
#define CHILD(asset) "  - id: 2\n    asset: " asset "\n    attach:\n"
#define TRAILER CHILD("trailer")
#define P1 "      parent: 1\n"
#define TT "      type: trailer\n"
#define TF "      type: fixed\n"

static vs_scenario *parse(const char *text, vs_error *err)
{
	memset(err, 0, sizeof *err);
	return vs_scenario_parse("s.yaml", text, strlen(text), err);
}

/* ---- accepted ----------------------------------------------------------- */

START_TEST(values_and_units)
{
	vs_error err;
	vs_scenario *s = parse(HEAD TRAILER P1 TT
	                       "      name: kingpin\n"
	                       "      offset: [0.1, -0.2, 0.3]\n"
	                       "      heading: -90\n"
	                       "      slope: 0\n"
	                       "      child_point: hitch\n"
	                       "      parent_point: attach_fifth_wheel\n",
	                       &err);
	ck_assert_msg(s, "%s", err.msg);
	const vs_attach *at = &s->actors[1].attach;
	ck_assert_int_eq(at->present, 1);
	ck_assert_int_eq(s->actors[0].attach.present, 0);
	ck_assert_str_eq(at->name, "kingpin");
	ck_assert_int_eq(at->parent_id, 1);
	ck_assert_int_eq(at->parent, 0);
	ck_assert_int_eq(at->type, VS_ATTACH_TRAILER);
	ck_assert_str_eq(vs_attach_type_name(at->type), "trailer");
	ck_assert_double_eq(at->offset[2], 0.3);
	ck_assert_double_eq_tol(at->heading, -PI / 2, EPS); /* degrees in */
	ck_assert_int_eq(at->child_point.kind, VS_POINT_IMPORTED);
	ck_assert_int_eq(at->child_point.index, 0);
	ck_assert_int_eq(at->parent_point.index, 0);
	double p[3];
	vs_attach_point_pos(s, 0, &at->parent_point, p);
	ck_assert_double_eq(p[1], -1.95);
	ck_assert_double_eq(p[2], 1.2);
	/* no start needed, and no route */
	ck_assert_int_eq(s->actors[1].has_start, 0);
	ck_assert_double_eq(s->actors[1].speed[0], 0);
	vs_scenario_destroy(s);
}
END_TEST

START_TEST(defaults_and_computed_points)
{
	vs_error err;
	/* trailer: child_point defaults to the asset's hitch */
	vs_scenario *s = parse(HEAD TRAILER P1 TT, &err);
	ck_assert_msg(s, "%s", err.msg);
	const vs_attach *at = &s->actors[1].attach;
	ck_assert_str_eq(at->name, "");
	ck_assert_int_eq(at->child_point.kind, VS_POINT_IMPORTED);
	ck_assert_str_eq(at->child_point.name, "hitch");
	ck_assert_int_eq(at->child_point.index, 0);
	ck_assert_int_eq(at->parent_point.kind, VS_POINT_REAR);
	ck_assert_double_eq(at->heading, 0);
	ck_assert_double_eq(at->slope, 0);
	ck_assert_double_eq(at->offset[0], 0);
	double p[3];
	vs_attach_point_pos(s, 0, &at->parent_point, p); /* truck's Rear */
	ck_assert_double_eq(p[0], 0);
	ck_assert_double_eq(p[1], -3.1);
	ck_assert_double_eq(p[2], 0);
	/* imported points are measured from the front bumper: a longer
	 * trailer keeps its hitch 1.2 m behind its front */
	s->actors[1].length = 15.6;
	vs_attach_point_pos(s, 1, &at->child_point, p);
	ck_assert_double_eq_tol(p[1], 5.6 + 1.0, EPS);
	ck_assert_double_eq_tol(p[2], 1.2, EPS);
	vs_scenario_destroy(s);

	/* without a hitch: Front; computed points follow the length */
	s = parse(HEAD CHILD("box") P1 TF "      parent_point: Origin\n", &err);
	ck_assert_msg(s, "%s", err.msg);
	at = &s->actors[1].attach;
	ck_assert_int_eq(at->type, VS_ATTACH_FIXED);
	ck_assert_int_eq(at->child_point.kind, VS_POINT_FRONT);
	ck_assert_int_eq(at->parent_point.kind, VS_POINT_ORIGIN);
	s->actors[1].length = 3;
	vs_attach_point_pos(s, 1, &at->child_point, p);
	ck_assert_double_eq(p[1], 1.5);
	vs_attach_point_pos(s, 1, &at->parent_point, p);
	ck_assert_double_eq(p[1], 0);
	vs_scenario_destroy(s);
}
END_TEST

/* A road train listed children first, a fixed child on a trailer, and
 * the extremes of the angle ranges. */
START_TEST(chains_and_bounds)
{
	vs_error err;
	vs_scenario *s = parse(
		"vsweep: 1\nstep: 0.1\nduration: 10\nassets:\n"
		"  truck: {length: 6, width: 2.5, height: 3, wheelbase: 4}\n"
		"  trailer: {length: 12, width: 2.5, height: 4, axles: [-4]}\n"
		"  box: {length: 1, width: 1, height: 1}\n"
		"actors:\n"
		"  - {id: 5, asset: box, attach: {parent: 3, type: fixed, "
		"heading: 180, slope: -180}}\n"
		"  - {id: 3, asset: trailer, attach: {parent: 2, type: trailer, "
		"heading: -180}}\n"
		"  - {id: 2, asset: trailer, attach: {parent: 1, type: trailer}}\n"
		"  - {id: 1, asset: truck, start: {position: [0, 0, 0]}}\n",
		&err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_int_eq(s->actors[0].attach.parent, 1);
	ck_assert_int_eq(s->actors[1].attach.parent, 2);
	ck_assert_int_eq(s->actors[2].attach.parent, 3);
	ck_assert_double_eq_tol(s->actors[0].attach.slope, -PI, EPS);
	ck_assert_int_eq(s->actors[2].attach.child_point.kind, VS_POINT_FRONT);
	vs_scenario_destroy(s);
}
END_TEST

/* Attached actors get no vehicle model and no behaviour; the others keep
 * the defaults. */
START_TEST(binding_skips_attached)
{
	vs_error err;
	vs_scenario *s = parse(HEAD TRAILER P1 TT, &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_msg(vs_scenario_bind(s, fake_registry(FAKE_N_PLUGINS), &err)
	              == 0, "%s", err.msg);
	ck_assert_ptr_eq(s->actors[0].vehicle_model.loaded, &fake_loaded[0]);
	ck_assert_ptr_null(s->actors[1].vehicle_model.loaded);
	ck_assert_ptr_null(s->actors[1].vehicle_model.plugin);
	ck_assert_ptr_null(s->actors[1].behaviour.loaded);
	/* even with no plugins at all: nothing to find for actor 2 */
	vs_scenario *c = vs_scenario_clone(s);
	ck_assert_str_eq(c->actors[1].attach.child_point.name, "hitch");
	ck_assert_int_eq(c->actors[1].attach.parent, 0);
	vs_scenario_destroy(c);
	vs_scenario_destroy(s);
}
END_TEST

/* ---- refused ------------------------------------------------------------ */

typedef struct bad_case {
	const char *yaml;
	const char *msg; /* the whole expected message */
} bad_case;

#define POINT_FORMS                                                        \
	"give Front, Origin or Rear (computed from the bounding box) or an " \
	"imported point of the asset named 'hitch' or beginning with "      \
	"'attach'"

static const bad_case bad_cases[] = {
	/* the block */
	{HEAD TRAILER TT, "s.yaml:13:7: attach: missing required key 'parent'"},
	{HEAD TRAILER P1, "s.yaml:13:7: attach: missing required key 'type'"},
	{HEAD TRAILER P1 "      type: towed\n",
	 "s.yaml:14:13: type must be 'trailer' or 'fixed', got 'towed'"},
	{HEAD TRAILER P1 TT "      colour: red\n",
	 "s.yaml:15:7: unknown key 'colour' in attach; allowed: name, parent, "
	 "type, offset, heading, slope, child_point, parent_point"},
	{HEAD TRAILER "      parent: one\n" TT,
	 "s.yaml:13:15: parent: expected an integer, got 'one'"},
	{HEAD TRAILER P1 TT "      offset: [1, 2]\n",
	 "s.yaml:15:15: offset: expected a list of 3 numbers, got 2"},
	{HEAD TRAILER P1 TT "      name: ''\n",
	 "s.yaml:15:13: name must not be empty"},
	{HEAD TRAILER P1 TT "      name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	 "s.yaml:15:13: name: at most 63 characters, got 81"},
	/* angles: degrees in [-180, 180] */
	{HEAD TRAILER P1 TT "      heading: 200\n",
	 "s.yaml:15:16: heading must be in [-180, 180] degrees, got 200"},
	{HEAD TRAILER P1 TT "      heading: -180.5\n",
	 "s.yaml:15:16: heading must be in [-180, 180] degrees, got -180.5"},
	{HEAD TRAILER P1 TF "      slope: 181\n",
	 "s.yaml:15:14: slope must be in [-180, 180] degrees, got 181"},
	{HEAD TRAILER P1 TT "      heading: left\n",
	 "s.yaml:15:16: heading: expected a number, got 'left'"},
	{HEAD TRAILER P1 TT "      slope: 5\n",
	 "s.yaml:15:14: slope: a trailer's wheels stay on the ground, so its "
	 "slope must be 0 (type fixed tilts a child)"},
	/* contact points: malformed, then unknown on the asset */
	{HEAD TRAILER P1 TT "      child_point: tow\n",
	 "s.yaml:15:20: child_point: 'tow' is not a contact point; "
	 POINT_FORMS},
	{HEAD TRAILER P1 TT "      parent_point: front\n",
	 "s.yaml:15:21: parent_point: 'front' is not a contact point; "
	 POINT_FORMS},
	{HEAD TRAILER P1 TT "      child_point: [hitch]\n",
	 "s.yaml:15:20: child_point: expected a string, got a list"},
	{HEAD TRAILER P1 TT "      child_point: attach_nose\n",
	 "s.yaml:15:20: child_point: asset 'trailer' has no point "
	 "'attach_nose'; its points: hitch, attach_rear"},
	{HEAD TRAILER P1 TT "      parent_point: hitch\n",
	 "s.yaml:15:21: parent_point: asset 'truck' has no point 'hitch'; its "
	 "points: attach_fifth_wheel"},
	{HEAD CHILD("box") P1 TF "      child_point: attach_top\n",
	 "s.yaml:15:20: child_point: asset 'box' has no point 'attach_top'; it "
	 "has none (add points: to the asset, or use Front, Origin or Rear)"},
	/* parents */
	{HEAD TRAILER "      parent: 9\n" TT,
	 "s.yaml:13:15: attach: parent 9 is not an actor of this scenario "
	 "(give the ID of the actor to attach to)"},
	{HEAD TRAILER "      parent: 0\n" TT,
	 "s.yaml:13:15: attach: parent 0 is not an actor of this scenario "
	 "(give the ID of the actor to attach to)"},
	{HEAD TRAILER "      parent: 2\n" TT,
	 "s.yaml:13:15: attach: actor 2 cannot be attached to itself"},
	{HEAD TRAILER "      parent: 3\n" TT
	 "  - {id: 3, asset: trailer, attach: {parent: 2, type: trailer}}\n",
	 "s.yaml:13:15: attach: parents form a cycle (2 -> 3 -> 2); a chain of "
	 "attachments must end at an unattached actor"},
	{HEAD TRAILER "      parent: 4\n" TT
	 "  - {id: 3, asset: trailer, attach: {parent: 2, type: trailer}}\n"
	 "  - {id: 4, asset: box, attach: {parent: 3, type: fixed}}\n",
	 "s.yaml:13:15: attach: parents form a cycle (2 -> 4 -> 3 -> 2); a "
	 "chain of attachments must end at an unattached actor"},
	/* a cycle hanging off an actor listed before it */
	{HEAD CHILD("box") P1 TF
	 "  - {id: 3, asset: trailer, attach: {parent: 4, type: trailer}}\n"
	 "  - {id: 4, asset: trailer, attach: {parent: 3, type: trailer}}\n",
	 "s.yaml:15:46: attach: parents form a cycle (3 -> 4 -> 3); a chain of "
	 "attachments must end at an unattached actor"},
	/* trailers */
	{HEAD CHILD("box") P1 TT,
	 "s.yaml:14:13: attach: type trailer needs a vehicle (an asset with "
	 "axles); asset 'box' has none, so use type fixed"},
	{HEAD TRAILER P1 TT "      child_point: Rear\n",
	 "s.yaml:15:20: attach: a trailer's contact point must lie ahead of "
	 "its axles' centre (y = -4.85 m); child_point Rear is at y = -6.8 m"},
	{HEAD TRAILER P1 TT "      child_point: attach_rear\n",
	 "s.yaml:15:20: attach: a trailer's contact point must lie ahead of "
	 "its axles' centre (y = -4.85 m); child_point attach_rear is at "
	 "y = -6.8 m"},
	/* moved by the parent: no plugins, no route */
	{HEAD TRAILER P1 TT "    vehicle_model: {plugin: kinematic_bicycle}\n",
	 "s.yaml:15:20: actor 2: vehicle_model: attached actors are moved by "
	 "their parent; remove it"},
	{HEAD TRAILER P1 TT "    behaviour: {plugin: waypoints}\n",
	 "s.yaml:15:16: actor 2: behaviour: attached actors are moved by their "
	 "parent; remove it"},
	{HEAD TRAILER P1 TT "    speed: 3\n",
	 "s.yaml:15:12: actor 2: speed: attached actors are moved by their "
	 "parent; remove it"},
	{HEAD TRAILER P1 TT "    speed: 3\n    waypoints: [[0, 0, 0], [1, 0, 0]]\n",
	 "s.yaml:15:12: actor 2: speed: attached actors are moved by their "
	 "parent; remove it"},
	{HEAD TRAILER P1 TT "    waypoints: [[0, 0, 0], [1, 0, 0]]\n",
	 "s.yaml:15:16: waypoints need a speed"},
};

START_TEST(bad_attach)
{
	const bad_case *c = &bad_cases[_i];
	vs_error err;
	vs_scenario *s = parse(c->yaml, &err);
	ck_assert_msg(!s, "accepted:\n%s", c->yaml);
	ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg, err.msg);
}
END_TEST

static Suite *attach_suite(void)
{
	Suite *s = suite_create("attach_input");
	TCase *tc = tcase_create("good");
	tcase_add_test(tc, values_and_units);
	tcase_add_test(tc, defaults_and_computed_points);
	tcase_add_test(tc, chains_and_bounds);
	tcase_add_test(tc, binding_skips_attached);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_add_loop_test(tc, bad_attach, 0,
	                    sizeof bad_cases / sizeof bad_cases[0]);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(attach_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
