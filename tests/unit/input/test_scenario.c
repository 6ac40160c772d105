/* Scenario files: docs/scenario.md's example, defaults and derived values,
 * every input rule's message and position, and plugin binding. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_registry.h"
#include "input/scenario.h"

#define PI 3.14159265358979323846

/* The scenario example of docs/scenario.md, verbatim. */
static const char design_example[] =
	"# scenario\n"
	"vsweep: 1                      # format version\n"
	"name: steady circle\n"
	"step: 0.01                     # s\n"
	"duration: 30                   # s\n"
	"map:\n"
	"  roads:\n"
	"    - id: ring\n"
	"      circle: {center: [0, 0], radius: 57.3}\n"
	"      lanes: {left: 4, right: 4, width: 3.5}   # outward from the "
	"reference line\n"
	"    - id: main\n"
	"      polyline: [[0, 0, 0], [200, 0, 0], [300, 40, 0]]\n"
	"      lanes: {left: 2, right: 1, width: 3.5}\n"
	"assets:        # axles: front at y = length/2 - front_overhang, rear "
	"one\n"
	"               # wheelbase behind; or `axles:` lists y positions "
	"(actor frame)\n"
	"  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,\n"
	"          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}\n"
	"  trailer: {length: 12, width: 2.5, height: 4, axles: [-4.0, -5.3, "
	"-6.6],\n"
	"            track: 2.0, wheel_radius: 0.5, points: {hitch: [0, 5.5, "
	"1.0]}}\n"
	"actors:\n"
	"  - id: 1\n"
	"    name: ego\n"
	"    asset: sedan\n"
	"    start: {position: [57.3, 0, 0], yaw: 0}   # faces +Y: "
	"counter-clockwise\n"
	"    speed: 10                  # the actor's route: speed, waypoints, "
	"yaw\n"
	"    vehicle_model: {plugin: bicycle_steady,\n"
	"                    params: {m: 2000, lf: 1.4, Kf: 30e3, Kr: 30e3, "
	"steering_ratio: 15}}\n"
	"    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: "
	"45}}\n"
	"  - id: 2                       # no start: first waypoint, facing the "
	"next\n"
	"    asset: sedan                # no vehicle_model: kinematic_bicycle\n"
	"    waypoints: [[0, 0, 0], [50, 0, 0], [100, 10, 0]]\n"
	"    speed: [10, 15]\n"
	"    behaviour: {plugin: waypoints}\n"
	"  - id: 3                      # computed points (Front/Origin/Rear) "
	"lie on the\n"
	"    asset: trailer             # ground; a trailer's wheels stay on "
	"the ground\n"
	"    attach: {parent: 2, type: trailer, offset: [0, 0, 0], heading: 0, "
	"slope: 0,\n"
	"             child_point: hitch, parent_point: Rear}\n";

static vs_scenario *parse(const char *text, vs_error *err)
{
	memset(err, 0, sizeof *err);
	return vs_scenario_parse("s.yaml", text, strlen(text), err);
}

#define EPS 1e-12

START_TEST(design_example_parses)
{
	vs_error err;
	vs_scenario *s = parse(design_example, &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_int_eq(s->version, 1);
	ck_assert_str_eq(s->name, "steady circle");
	ck_assert_double_eq(s->step, 0.01);
	ck_assert_double_eq(s->duration, 30);
	ck_assert_int_eq(vs_scenario_steps(s), 3001);
	ck_assert_uint_eq(s->text_len, strlen(design_example));
	ck_assert_str_eq(s->text, design_example);

	ck_assert_int_eq(s->n_assets, 2);
	const vs_asset *sedan = &s->assets[0], *trailer = &s->assets[1];
	ck_assert_str_eq(sedan->name, "sedan");
	ck_assert_int_eq(sedan->n_axles, 2);
	ck_assert_double_eq_tol(sedan->axle_y[0], 2.4 - 0.9, EPS);
	ck_assert_double_eq_tol(sedan->axle_y[1], 2.4 - 0.9 - 3.0, EPS);
	ck_assert_double_eq(sedan->track, 1.6);
	ck_assert_double_eq(sedan->wheel_radius, 0.34);
	ck_assert_int_eq(trailer->n_axles, 3);
	ck_assert_double_eq(trailer->axle_y[2], -6.6);
	ck_assert_double_eq_tol(trailer->front_overhang, 6 + 4.0, EPS);
	ck_assert_int_eq(trailer->n_points, 1);
	ck_assert_str_eq(trailer->points[0].name, "hitch");
	ck_assert_double_eq(trailer->points[0].p[1], 5.5);

	ck_assert_int_eq(s->n_actors, 3);
	const vs_actor_spec *a = &s->actors[0];
	ck_assert_int_eq(a->id, 1);
	ck_assert_str_eq(a->name, "ego");
	ck_assert_int_eq(a->has_start, 1);
	ck_assert_double_eq(a->start_pos[0], 57.3);
	ck_assert_double_eq(a->length, 4.8);
	ck_assert_double_eq(a->front_overhang, 0.9);
	/* rearmost axle to rear bumper: 4.8 - 0.9 - 3.0 */
	ck_assert_double_eq_tol(a->rear_overhang, 0.9, EPS);
	ck_assert_int_eq(a->n_speed, 1);
	ck_assert_double_eq(a->speed[0], 10);
	ck_assert_str_eq(a->vehicle_model.plugin, "bicycle_steady");
	ck_assert_int_eq(a->vehicle_model.n_set, 5);
	ck_assert_str_eq(a->vehicle_model.set_names[2], "Kf");
	ck_assert_double_eq(a->vehicle_model.set_values[2], 30e3);
	ck_assert_str_eq(a->behaviour.plugin, "constant_steer");

	a = &s->actors[1];
	ck_assert_str_eq(a->name, "actor2");
	ck_assert_int_eq(a->has_start, 0);
	ck_assert_int_eq(a->n_waypoints, 3);
	ck_assert_double_eq(a->waypoints[6], 100);
	ck_assert_int_eq(a->n_speed, 2);
	/* first waypoint, facing the second (+X): yaw = 0 - pi/2 */
	ck_assert_double_eq(a->start_pos[0], 0);
	ck_assert_double_eq_tol(a->start_yaw, -PI / 2, EPS);
	ck_assert_ptr_null(a->vehicle_model.plugin);

	a = &s->actors[2];
	ck_assert_int_eq(a->has_start, 0); /* attached: pose from its parent */
	ck_assert_int_eq(a->n_speed, 1);
	ck_assert_double_eq(a->speed[0], 0);
	ck_assert_double_eq_tol(a->rear_overhang, 6 - 6.6, EPS);
	vs_scenario_destroy(s);
}
END_TEST

START_TEST(design_example_binds)
{
	vs_error err;
	vs_scenario *s = parse(design_example, &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_msg(vs_scenario_bind(s, fake_registry(FAKE_N_PLUGINS), &err) == 0,
	              "%s", err.msg);
	const vs_actor_spec *a = &s->actors[0];
	ck_assert_ptr_eq(a->vehicle_model.loaded, &fake_loaded[1]);
	/* set values over defaults, in descriptor order: m lf Kf Kr ratio */
	ck_assert_double_eq(a->vehicle_model.params[0], 2000);
	ck_assert_double_eq(a->vehicle_model.params[1], 1.4);
	ck_assert_double_eq(a->vehicle_model.params[3], 30e3);
	ck_assert_int_eq(vs_plugin_use_param(&a->vehicle_model, "Kr"), 3);
	ck_assert_int_eq(vs_plugin_use_param(&a->vehicle_model, "nope"), -1);
	ck_assert_double_eq(a->behaviour.params[0], 45);

	a = &s->actors[1]; /* defaults: kinematic_bicycle, waypoints */
	ck_assert_ptr_eq(a->vehicle_model.loaded, &fake_loaded[0]);
	ck_assert_double_eq(a->vehicle_model.params[0], 15);
	ck_assert_ptr_eq(a->behaviour.loaded, &fake_loaded[2]);

	a = &s->actors[2]; /* no route, no behaviour: the host holds it */
	ck_assert_ptr_null(a->behaviour.loaded);
	ck_assert_ptr_null(a->behaviour.plugin);

	/* a deep copy, bound plugins included */
	vs_scenario *c = vs_scenario_clone(s);
	ck_assert_ptr_null(c->text); /* variants carry no file text */
	ck_assert_ptr_ne(c->actors, s->actors);
	ck_assert_ptr_ne(c->actors[0].vehicle_model.params,
	                 s->actors[0].vehicle_model.params);
	ck_assert_double_eq(c->actors[0].vehicle_model.params[1], 1.4);
	ck_assert_str_eq(c->actors[0].vehicle_model.set_names[1], "lf");
	ck_assert_ptr_eq(c->actors[0].vehicle_model.loaded, &fake_loaded[1]);
	ck_assert_str_eq(c->assets[1].points[0].name, "hitch");
	ck_assert_int_eq(vs_scenario_find_actor(c, 3), 2);
	ck_assert_int_eq(vs_scenario_find_actor(c, 4), -1);
	vs_scenario_destroy(c);
	vs_scenario_destroy(s);
	vs_scenario_destroy(NULL);
}
END_TEST

#define TOP "vsweep: 1\nstep: 0.1\nduration: 10\n"

/* No start: the first waypoint, facing the second. RoadRunner yaw: 0 faces
 * +Y, +pi/2 faces -X, and facing -Y is pi (the wrap is (-pi, pi]). */
START_TEST(start_from_waypoints)
{
	static const struct {
		double dx, dy, yaw;
	} dir[] = {{0, 10, 0}, {-10, 0, PI / 2}, {10, 0, -PI / 2},
	           {0, -10, PI}, {1, 1, -PI / 4}};
	char text[512];
	int k = _i;
	snprintf(text, sizeof text,
	         TOP "assets:\n  box: {length: 1, width: 1, height: 1}\n"
	             "actors:\n  - {id: 7, asset: box, speed: 1,\n"
	             "     waypoints: [[1, 2, 3], [%g, %g, 3]]}\n",
	         1 + dir[k].dx, 2 + dir[k].dy);
	vs_error err;
	vs_scenario *s = parse(text, &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_double_eq(s->actors[0].start_pos[1], 2);
	ck_assert_double_eq_tol(s->actors[0].start_yaw, dir[k].yaw, EPS);
	vs_scenario_destroy(s);
}
END_TEST

/* With yaws and no start, the actor starts with heading yaw[0], not
 * facing the second waypoint (+X here, yaw -pi/2). */
START_TEST(start_from_yaw)
{
	vs_error err;
	vs_scenario *s = parse(TOP "assets:\n  box: {length: 1, width: 1, "
	                       "height: 1}\nactors:\n  - {id: 7, asset: box, "
	                       "speed: 1, waypoints: [[1, 2, 3], [11, 2, 3]], "
	                       "yaw: [-1.2, -1.5707963267948966]}\n", &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_double_eq(s->actors[0].start_yaw, -1.2);
	ck_assert_double_eq(s->actors[0].start_pos[2], 3);
	vs_scenario_destroy(s);
}
END_TEST

/* kind: character binds to the pedestrian behaviour by default, with no
 * vehicle model; a character may be the parent of a fixed child; each
 * actor's kind reads as actor_info has it. */
START_TEST(character_binds)
{
	vs_error err;
	vs_scenario *s = parse(TOP "assets:\n"
	                           "  ped: {kind: character, length: 0.5, "
	                           "width: 0.5, height: 1.8}\n"
	                           "  pram: {length: 0.9, width: 0.6, height: "
	                           "1.0}\n"
	                           "  car: {kind: vehicle, length: 4, width: 2, "
	                           "height: 1.5, wheelbase: 2.5}\n"
	                           "actors:\n"
	                           "  - {id: 1, asset: ped, speed: 1.4, "
	                           "waypoints: [[0, 0, 0], [5, 0, 0]]}\n"
	                           "  - {id: 2, asset: pram, attach: {parent: 1, "
	                           "type: fixed, parent_point: Front}}\n"
	                           "  - {id: 3, asset: car, start: {position: "
	                           "[9, 9, 0]}}\n"
	                           "  - {id: 4, asset: ped, start: {position: "
	                           "[3, 3, 0]}}\n",
	                       &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_int_eq(s->assets[0].kind, VS_ASSET_CHARACTER);
	ck_assert_int_eq(s->assets[0].n_axles, 0);
	ck_assert_int_eq(s->assets[1].kind, VS_ASSET_VEHICLE);
	ck_assert_int_eq(s->assets[2].kind, VS_ASSET_VEHICLE);
	ck_assert_int_eq(vs_scenario_bind(s, fake_registry(FAKE_N_PLUGINS),
	                                  &err), 0);
	ck_assert_ptr_null(s->actors[0].vehicle_model.loaded);
	ck_assert_str_eq(s->actors[0].behaviour.loaded->desc->name,
	                 "pedestrian");
	ck_assert_int_eq(s->actors[1].attach.parent, 0);
	/* a character without a route stands: no plugins at all */
	ck_assert_ptr_null(s->actors[3].behaviour.loaded);
	ck_assert_ptr_null(s->actors[3].vehicle_model.loaded);
	ck_assert_str_eq(vs_actor_kind_name(s, 0), "character");
	ck_assert_str_eq(vs_actor_kind_name(s, 1), "object");
	ck_assert_str_eq(vs_actor_kind_name(s, 2), "vehicle");
	vs_scenario_destroy(s);
}
END_TEST

START_TEST(defaults)
{
	vs_error err;
	vs_scenario *s = parse(TOP "map:\nassets:\n"
	                           "  car: {length: 5, width: 2, height: 1.5, "
	                           "wheelbase: 3}\n"
	                           "  cone: {length: 0.3, width: 0.3, height: "
	                           "0.7}\n"
	                           "actors:\n"
	                           "  - {id: 4, asset: cone, start: {position: "
	                           "[1, 2, 0]}}\n",
	                       &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_str_eq(s->name, "s.yaml");
	const vs_asset *car = &s->assets[0];
	ck_assert_double_eq_tol(car->track, 0.85 * 2, EPS);
	ck_assert_double_eq(car->wheel_radius, 0.3);
	ck_assert_double_eq_tol(car->front_overhang, 0.2 * 5, EPS);
	ck_assert_double_eq_tol(car->axle_y[0], 2.5 - 1, EPS);
	ck_assert_double_eq_tol(car->axle_y[1], 2.5 - 1 - 3, EPS);
	ck_assert_int_eq(s->assets[1].n_axles, 0);
	const vs_actor_spec *a = &s->actors[0];
	ck_assert_double_eq(a->rear_overhang, 0);
	ck_assert_double_eq(a->start_yaw, 0);
	ck_assert_int_eq(a->n_speed, 1);
	ck_assert_double_eq(a->speed[0], 0);
	ck_assert_int_eq(vs_scenario_steps(s), 101);
	vs_scenario_destroy(s);
}
END_TEST

START_TEST(load_file)
{
	char path[] = "/tmp/vs_scenario_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t n = strlen(design_example);
	ck_assert_int_eq(write(fd, design_example, n), (ssize_t)n);
	close(fd);
	vs_error err = {{0}};
	vs_scenario *s = vs_scenario_load(path, &err);
	unlink(path);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_str_eq(s->path, path);
	ck_assert_int_eq(s->n_actors, 3);
	vs_scenario_destroy(s);
	ck_assert_ptr_null(vs_scenario_load("/nonexistent/s.yaml", &err));
	ck_assert_str_eq(err.msg, "/nonexistent/s.yaml: cannot open: No such "
	                          "file or directory");
}
END_TEST

/* ---- refused scenarios -------------------------------------------------- */

typedef struct bad_case {
	const char *yaml;
	const char *msg; /* expected prefix of the error */
	int registry;    /* bind against the first N fake plugins; -1: parse */
} bad_case;

/* Lines 4-9: the car asset; actors from line 10, the first at line 11. */
#define CAR                                                          \
	"assets:\n  car:\n    length: 4\n    width: 2\n    height: 1.5\n" \
	"    wheelbase: 2.5\n"
#define ACTORS "actors:\n  - id: 1\n    asset: car\n"
#define AT0 "    start: {position: [0, 0, 0]}\n"
#define ALLOWED_ACTOR                                                    \
	"allowed: id, name, asset, start, speed, waypoints, yaw, "      \
	"vehicle_model, behaviour, attach"

/* Lines 4-9: a character asset; actors from line 10, the first at 11. */
#define PED                                                              \
	"assets:\n  ped:\n    kind: character\n    length: 0.5\n"            \
	"    width: 0.5\n    height: 1.8\n"
#define WALKER                                                           \
	"actors:\n  - id: 3\n    name: walker\n    asset: ped\n"               \
	"    speed: 1.4\n    waypoints: [[0, 0, 0], [5, 0, 0]]\n"

static const bad_case bad_cases[] = {
	/* characters (kind: character) */
	{TOP PED "    axles: [0.1]\n",
	 "s.yaml:10:12: asset 'ped': axles: a character (kind: character) has "
	 "no axles or wheels; remove it, or make the asset a vehicle", -1},
	{TOP PED "    wheelbase: 0.3\n",
	 "s.yaml:10:16: asset 'ped': wheelbase: a character (kind: character) "
	 "has no axles or wheels", -1},
	{TOP PED "    track: 0.3\n", "s.yaml:10:12: asset 'ped': track: a "
	 "character", -1},
	{TOP "assets:\n  ped: {kind: bicycle, length: 1, width: 1, height: 1}\n"
	 "actors:\n  - {id: 1, asset: ped, start: {position: [0, 0, 0]}}\n",
	 "s.yaml:5:15: asset 'ped': kind must be 'vehicle' or 'character', "
	 "got 'bicycle'", -1},
	{TOP PED WALKER "    behaviour: {plugin: constant_steer}\n",
	 "s.yaml:16:25: actor 3 (walker): behaviour 'constant_steer' drives "
	 "vehicles only, and asset 'ped' is a character (kind: character); "
	 "name a behaviour that drives characters, such as pedestrian",
	 FAKE_N_PLUGINS},
	{TOP PED WALKER "    behaviour: {plugin: waypoints}\n",
	 "s.yaml:16:25: actor 3 (walker): behaviour 'waypoints' drives "
	 "vehicles only", FAKE_N_PLUGINS},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[0, 0, 0], [1, 0, 0]]\n"
	                "    behaviour: {plugin: pedestrian}\n",
	 "s.yaml:15:25: actor 1 (actor1): behaviour 'pedestrian' drives "
	 "characters only, and asset 'car' is a vehicle; use it on an asset "
	 "of kind: character", FAKE_N_PLUGINS},
	{TOP PED WALKER "    vehicle_model: {plugin: kinematic_bicycle}\n",
	 "s.yaml:16:29: actor 3 (walker): vehicle_model: asset 'ped' is a "
	 "character (kind: character), which its behaviour moves as a point "
	 "mass; remove vehicle_model", FAKE_N_PLUGINS},
	{TOP PED "    points: {attach_hand: [0, 0.25, 0.9]}\n"
	 "actors:\n  - {id: 1, asset: ped, start: {position: [0, 0, 0]}}\n"
	 "  - {id: 2, asset: ped, attach: {parent: 1, type: trailer}}\n",
	 "s.yaml:13:51: attach: type trailer needs a vehicle (an asset with "
	 "axles); asset 'ped' has none, so use type fixed", -1},
	/* the file */
	{"", "s.yaml: empty file; a scenario starts with 'vsweep: 1'", -1},
	{"[1]", "s.yaml:1:1: scenario: expected a mapping, got a list", -1},
	{"vsweep: 2\ncolour: red\n",
	 "s.yaml:1:9: vsweep: format version 2 is not supported (this vsweep "
	 "reads version 1)", -1},
	{"step: 0.1\n", "s.yaml:1:1: scenario: missing required key 'vsweep'",
	 -1},
	{TOP "colour: red\n" CAR ACTORS AT0,
	 "s.yaml:4:1: unknown key 'colour' in scenario; allowed: vsweep, name, "
	 "step, duration, stop_at_collision, near_miss_ttc, map, assets, "
	 "actors", -1},
	{TOP "near_miss_ttc: -1\n" CAR ACTORS AT0,
	 "s.yaml:4:16: near_miss_ttc must be >= 0, got -1", -1},
	{"vsweep: 1\nduration: 10\n" CAR ACTORS AT0,
	 "s.yaml:1:1: scenario: missing required key 'step'", -1},
	{"vsweep: 1\nstep: 0\nduration: 10\n",
	 "s.yaml:2:7: step must be > 0, got 0", -1},
	{"vsweep: 1\nstep: 0.1\nduration: -1\n",
	 "s.yaml:3:11: duration must be > 0, got -1", -1},
	{"vsweep: 1\nstep: 1e-7\nduration: 100\n" CAR ACTORS AT0,
	 "s.yaml:3:11: duration / step = 1e+09 steps; at most 1e+08 allowed",
	 -1},
	{TOP "map: [1]\n", "s.yaml:4:6: map: expected a mapping, got a list",
	 -1},
	{TOP "name: ''\n", "s.yaml:4:7: name must not be empty", -1},
	/* assets */
	{TOP "assets: [1]\n",
	 "s.yaml:4:9: assets: expected a mapping, got a list", -1},
	{TOP "assets:\n  car: 5\n",
	 "s.yaml:5:8: car: expected a mapping, got '5'", -1},
	{TOP "assets:\n  car:\n    length: 4\n    height: 1.5\n",
	 "s.yaml:6:5: asset 'car': missing required key 'width'", -1},
	{TOP "assets:\n  car:\n    length: -4\n",
	 "s.yaml:6:13: length must be > 0, got -4", -1},
	{TOP CAR "    colour: red\n",
	 "s.yaml:10:5: unknown key 'colour' in asset 'car'; allowed: kind, "
	 "length, width, height, wheelbase, track, wheel_radius, "
	 "front_overhang, axles, points", -1},
	{TOP CAR "    track: 0\n", "s.yaml:10:12: track must be > 0, got 0", -1},
	{TOP CAR "    axles: [1, -1]\n",
	 "s.yaml:10:12: asset 'car': give either wheelbase or axles, not both",
	 -1},
	{TOP "assets:\n  t:\n    length: 4\n    width: 2\n    height: 1.5\n"
	     "    axles: [1, 1.5]\n",
	 "s.yaml:9:16: axles: list them front first, each behind the one "
	 "before (y strictly decreasing)", -1},
	{TOP "assets:\n  t:\n    length: 4\n    width: 2\n    height: 1.5\n"
	     "    axles: [8, 7, 6, 5, 4, 3, 2, 1, 0]\n",
	 "s.yaml:9:12: axles: at most 8 axles, got 9", -1},
	{TOP "assets:\n  t:\n    length: 4\n    width: 2\n    height: 1.5\n"
	     "    axles: [1]\n    front_overhang: 1\n",
	 "s.yaml:10:21: asset 't': front_overhang is not used with axles", -1},
	{TOP CAR "    front_overhang: 4\n",
	 "s.yaml:10:21: front_overhang must be less than length (4 m), got 4",
	 -1},
	{TOP CAR "    points: {tow: [0, 1, 0]}\n",
	 "s.yaml:10:14: point 'tow': names must be 'hitch' or begin with "
	 "'attach'", -1},
	{TOP CAR "    points: {hitch: [0, 1]}\n",
	 "s.yaml:10:21: hitch: expected a list of 3 numbers, got 2", -1},
	/* actors */
	{TOP CAR "actors: []\n",
	 "s.yaml:10:9: actors: needs at least one actor", -1},
	{TOP CAR, "s.yaml:1:1: scenario: missing required key 'actors'", -1},
	{TOP CAR "actors:\n  - 5\n",
	 "s.yaml:11:5: actor: expected a mapping, got '5'", -1},
	{TOP CAR ACTORS "    colour: red\n",
	 "s.yaml:13:5: unknown key 'colour' in actor; " ALLOWED_ACTOR, -1},
	{TOP CAR "actors:\n  - id: 0\n",
	 "s.yaml:11:9: id must be a positive integer, got 0", -1},
	{TOP CAR "actors:\n  - id: a\n",
	 "s.yaml:11:9: id: expected an integer, got 'a'", -1},
	{TOP CAR "actors:\n  - asset: car\n",
	 "s.yaml:11:5: actor: missing required key 'id'", -1},
	{TOP CAR "actors:\n  - id: 1\n",
	 "s.yaml:11:5: actor 1: missing required key 'asset'", -1},
	{TOP CAR ACTORS AT0 "  - id: 1\n    asset: car\n" AT0,
	 "s.yaml:14:9: id 1 is already used by the actor at line 11", -1},
	{TOP CAR "actors:\n  - id: 1\n    asset: bus\n",
	 "s.yaml:12:12: unknown asset 'bus'; defined: car", -1},
	{TOP CAR ACTORS "    name: ''\n" AT0,
	 "s.yaml:13:11: name must not be empty", -1},
	{TOP CAR ACTORS,
	 "s.yaml:11:5: actor 1 needs a start (start: {position: [x, y, z], "
	 "yaw: ...}) or waypoints", -1},
	{TOP CAR ACTORS "    waypoints: [[0, 0, 0], [1, 0, 0]]\n",
	 "s.yaml:13:16: waypoints need a speed", -1},
	{TOP CAR ACTORS AT0 "    yaw: [0, 0]\n",
	 "s.yaml:14:10: yaw needs waypoints (one yaw per waypoint)", -1},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[0, 0, 0], [1, 0, 0]]\n"
	                "    yaw: [0]\n",
	 "s.yaml:15:10: yaw has 1 values for 2 waypoints; give one per waypoint",
	 -1},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[0, 0, 0]]\n",
	 "s.yaml:14:16: waypoints: needs at least 2 rows, got 1", -1},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[1, 2, 3], [1, 2, 3]]\n",
	 "s.yaml:14:28: waypoints: row 2 repeats row 1", -1},
	/* a vertical leg: z is linear in horizontal distance, none here */
	{TOP CAR ACTORS "    speed: 1\n"
	                "    waypoints: [[0, 5, 0], [0, 5, 1], [9, 5, 0]]\n",
	 "s.yaml:14:28: waypoints: point 2 is within 0.001 m of point 1 in "
	 "x-y; consecutive points must differ in plan", -1},
	{TOP CAR ACTORS "    speed: 1\n"
	                "    waypoints: [[0, 0, 0], [9, 0, 0], [9, 0.0009, 0]]\n",
	 "s.yaml:14:39: waypoints: point 3 is within 0.001 m of point 2", -1},
	{TOP CAR ACTORS AT0 "    speed: -1\n",
	 "s.yaml:14:12: speed must be >= 0, got -1", -1},
	{TOP CAR ACTORS AT0 "    speed: [1, .nan]\n",
	 "s.yaml:14:16: speed: .nan is not a finite number", -1},
	{TOP CAR ACTORS AT0 "    speed: []\n",
	 "s.yaml:14:12: speed: expected a number or a non-empty list of "
	 "numbers, got a list", -1},
	{TOP CAR ACTORS "    start: {yaw: 0}\n",
	 "s.yaml:13:12: start: missing required key 'position'", -1},
	{TOP CAR ACTORS "    start: {position: [0, 0, 0], heading: 0}\n",
	 "s.yaml:13:34: unknown key 'heading' in start; allowed: position, yaw",
	 -1},
	{TOP CAR ACTORS AT0 "    vehicle_model: {params: {m: 1}}\n",
	 "s.yaml:14:20: vehicle_model: missing required key 'plugin'", -1},
	{TOP CAR ACTORS AT0 "    vehicle_model: {plugin: x, params: {m: heavy}}\n",
	 "s.yaml:14:44: m: expected a number, got 'heavy'", -1},
	{TOP CAR ACTORS AT0 "    behaviour: {plugin: x, params: [1]}\n",
	 "s.yaml:14:36: params: expected a mapping, got a list", -1},
	{TOP CAR ACTORS AT0 "    attach: 2\n",
	 "s.yaml:14:13: attach: expected a mapping, got '2'", -1},
	/* binding */
	{TOP CAR ACTORS AT0 "    vehicle_model: {plugin: nosuch}\n",
	 "s.yaml:14:29: actor 1: vehicle_model: no plugin named 'nosuch'",
	 FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0 "    behaviour: {plugin: bicycle_steady}\n",
	 "s.yaml:14:25: actor 1: behaviour: 'bicycle_steady' is a vehicle model "
	 "plugin (fake/bicycle_steady.so), not a behaviour", FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0 "    vehicle_model: {plugin: waypoints}\n",
	 "s.yaml:14:29: actor 1: vehicle_model: 'waypoints' is a behaviour "
	 "plugin (fake/waypoints.so), not a vehicle model", FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0 "    vehicle_model:\n      plugin: bicycle_steady\n"
	                    "      params:\n        mass: 2000\n",
	 "s.yaml:17:15: actor 1: vehicle_model: plugin 'bicycle_steady' has no "
	 "param 'mass'; its params: m, lf, Kf, Kr, steering_ratio",
	 FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0 "    vehicle_model:\n      plugin: bicycle_steady\n"
	                    "      params:\n        lf: 20\n",
	 "s.yaml:17:13: actor 1: vehicle_model: param lf = 20 m is outside "
	 "[0.1, 10] m", FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0 "    vehicle_model:\n      plugin: kinematic_bicycle\n"
	                    "      params: {steering_ratio: 0}\n",
	 "s.yaml:16:32: actor 1: vehicle_model: param steering_ratio = 0 is "
	 "outside [1, 100]", FAKE_N_PLUGINS},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[0, 0, 0], [1, 0, 0]]\n"
	                "    behaviour: {plugin: waypoints, params: {x: 1}}\n",
	 "s.yaml:15:48: actor 1: behaviour: plugin 'waypoints' has no param "
	 "'x'; it takes none", FAKE_N_PLUGINS},
	/* a plugin that needs a map (vs_plugin.needs), without one; the
	 * position is the plugin: value's */
	{TOP CAR ACTORS AT0 "    behaviour: {plugin: lane_keep}\n",
	 "s.yaml:14:25: actor 1 (actor1): behaviour lane_keep needs a map: "
	 "the scenario has no map:", FAKE_N_PLUGINS},
	{TOP "map:\n" CAR ACTORS AT0 "    name: ego\n"
	 "    behaviour:\n      plugin: lane_keep\n",
	 "s.yaml:17:15: actor 1 (ego): behaviour lane_keep needs a map: the "
	 "scenario has no map:", FAKE_N_PLUGINS},
	{TOP "map: {roads: []}\n" CAR ACTORS AT0
	 "    vehicle_model: {plugin: road_model}\n",
	 "s.yaml:15:29: actor 1 (actor1): vehicle_model road_model needs a "
	 "map: the scenario has no map:", FAKE_N_PLUGINS},
	{TOP CAR ACTORS AT0,
	 "s.yaml:11:5: actor 1: vehicle_model (the default when none is "
	 "named): no plugin named 'kinematic_bicycle'", 0},
	{TOP CAR ACTORS "    speed: 1\n    waypoints: [[0, 0, 0], [1, 0, 0]]\n",
	 "s.yaml:11:5: actor 1: behaviour (the default when none is named): no "
	 "plugin named 'waypoints'", 2},
};

/* With a map, a plugin that needs one binds, whether or not the actor
 * starts on a lane (off every lane it drives on until it meets one). */
START_TEST(needs_map_binds_with_a_map)
{
	static const char *const start[] = {"[10, -1.75, 0]", "[10, 500, 0]"};
	char yaml[1024];
	snprintf(yaml, sizeof yaml,
	         TOP "map:\n  roads:\n    - id: r\n"
	         "      line: [[0, 0, 0], [300, 0, 0]]\n"
	         "      lanes: {right: 1, width: 3.5}\n" CAR ACTORS
	         "    start: {position: %s, yaw: -1.5707963267948966}\n"
	         "    speed: 10\n"
	         "    vehicle_model: {plugin: road_model}\n"
	         "    behaviour: {plugin: lane_keep}\n", start[_i]);
	vs_error err;
	vs_scenario *s = parse(yaml, &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_msg(vs_scenario_bind(s, fake_registry(FAKE_N_PLUGINS), &err)
	              == 0, "%s", err.msg);
	ck_assert_ptr_eq(s->actors[0].behaviour.loaded, &fake_loaded[5]);
	ck_assert_ptr_eq(s->actors[0].vehicle_model.loaded, &fake_loaded[6]);
	vs_scenario_destroy(s);
}
END_TEST

START_TEST(bad_scenario)
{
	const bad_case *c = &bad_cases[_i];
	vs_error err;
	vs_scenario *s = parse(c->yaml, &err);
	if (c->registry >= 0) {
		ck_assert_msg(s, "%s\n%s", c->yaml, err.msg);
		ck_assert_int_eq(vs_scenario_bind(s, fake_registry(c->registry),
		                                  &err), -1);
		vs_scenario_destroy(s);
		s = NULL;
	}
	ck_assert_msg(!s, "accepted:\n%s", c->yaml);
	ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg, err.msg);
}
END_TEST

static Suite *scenario_suite(void)
{
	Suite *s = suite_create("scenario");
	TCase *tc = tcase_create("good");
	tcase_add_test(tc, design_example_parses);
	tcase_add_test(tc, design_example_binds);
	tcase_add_test(tc, start_from_yaw);
	tcase_add_loop_test(tc, start_from_waypoints, 0, 5);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, character_binds);
	tcase_add_loop_test(tc, needs_map_binds_with_a_map, 0, 2);
	tcase_add_test(tc, load_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_add_loop_test(tc, bad_scenario, 0,
	                    sizeof bad_cases / sizeof bad_cases[0]);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(scenario_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
