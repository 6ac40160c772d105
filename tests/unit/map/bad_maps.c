/* Every bad-map message with its position (table-driven), and the same
 * checks for maps built in code. */
#include <string.h>

#include "test_map.h"

typedef struct bad_map {
	const char *yaml;
	const char *msg;
} bad_map;

#define ROAD "roads:\n  - id: a\n"                     /* road at 2:5 */
#define LINE "    line: [[0, 0, 0], [10, 0, 0]]\n"       /* line 3 */
#define LANES "    lanes: {left: 1, right: 1, width: 3}\n" /* line 4 */
#define CIRCLE(x) "    circle: {" x "}\n"
#define CLANES(x) "    lanes: {" x "}\n"

static const bad_map bad_maps[] = {
	{"[1]\n", "m.yaml:1:1: map: expected a mapping, got a list"},
	{"colour: red\n",
	 "m.yaml:1:1: unknown key 'colour' in map; allowed: roads, "
	 "opendrive"},
	{"roads: 5\n", "m.yaml:1:8: roads: expected a list, got '5'"},
	{"roads: [5]\n", "m.yaml:1:9: road: expected a mapping, got '5'"},
	{"roads:\n  - line: [[0, 0, 0], [1, 0, 0]]\n" LANES,
	 "m.yaml:2:5: road: missing required key 'id'"},
	{ROAD LINE LANES "    colour: red\n",
	 "m.yaml:5:5: unknown key 'colour' in road; allowed: id, circle, "
	 "polyline, line, lanes"},
	{"roads:\n  - id: [1]\n" LINE LANES,
	 "m.yaml:2:9: road: id: expected"},
	{ROAD LANES, "m.yaml:2:5: road 'a': needs a circle, polyline or line"},
	{ROAD LINE CIRCLE("center: [0, 0], radius: 5") LANES,
	 "m.yaml:4:5: road 'a': has both 'line' and 'circle'; give one of "
	 "circle, polyline or line"},
	{ROAD CIRCLE("center: [0, 0]") LANES,
	 "m.yaml:3:13: road 'a': circle: missing required key 'radius'"},
	{ROAD CIRCLE("radius: 5") LANES,
	 "m.yaml:3:13: road 'a': circle: missing required key 'center'"},
	{ROAD CIRCLE("center: [0, 0], radius: 0") LANES,
	 "m.yaml:3:38: road 'a': circle: radius must be > 0, got 0"},
	{ROAD CIRCLE("center: [0, 0], radius: -3") LANES,
	 "m.yaml:3:38: road 'a': circle: radius must be > 0, got -3"},
	{ROAD CIRCLE("center: [0], radius: 5") LANES,
	 "m.yaml:3:22: road 'a': circle: center: expected"},
	{ROAD CIRCLE("center: [0, 0], radius: 5, z: up") LANES,
	 "m.yaml:3:44: road 'a': circle: z: expected a number, got 'up'"},
	{ROAD CIRCLE("center: [0, 0], radius: 5, spin: 1") LANES,
	 "m.yaml:3:41: unknown key 'spin' in road 'a': circle; allowed: "
	 "center, radius, z"},
	{ROAD "    circle: [0, 0]\n" LANES,
	 "m.yaml:3:13: road 'a': circle: expected a mapping, got a list"},
	{ROAD "    polyline: [[0, 0, 0]]\n" LANES,
	 "m.yaml:3:15: road 'a': polyline: needs at least 2 rows, got 1"},
	{ROAD "    polyline: [[0, 0, 0], [5, 0, 0], [5, 0, 0]]\n" LANES,
	 "m.yaml:3:38: road 'a': polyline: row 3 repeats row 2; consecutive "
	 "rows must differ"},
	{ROAD "    polyline: [[0, 0, 0], [5, 0]]\n" LANES,
	 "m.yaml:3:27: road 'a': polyline: expected"},
	{ROAD "    polyline: [[0, 0, 0], [5, 0, 0], [5, 0, 4]]\n" LANES,
	 "m.yaml:3:38: road 'a': polyline: point 3 is within 0.001 m of point "
	 "2 in x-y; consecutive points must differ"},
	{ROAD "    polyline: [[0, 0, 0], [5, 0, 0], [0, 0, 0]]\n" LANES,
	 "m.yaml:3:27: road 'a': polyline: point 2 turns the road back on "
	 "itself"},
	{ROAD "    polyline: [[0, 0, 0], [10, 0, 0], [0, 1, 0]]\n" LANES,
	 "m.yaml:3:27: road 'a': polyline: the turn at point 2 is too sharp "
	 "for lanes reaching 3 m from the reference line"},
	{ROAD "    polyline: [[0, 0, 0], [2e7, 0, 0]]\n" LANES,
	 "m.yaml:3:27: road 'a': polyline: point 2: coordinates must be "
	 "within +-1e+07 m"},
	{ROAD CIRCLE("center: [0, 2e7], radius: 5") LANES,
	 "m.yaml:3:13: road 'a': circle: the radius must be > 0 and "
	 "coordinates within +-1e+07 m"},
	{ROAD "    line: [[0, 0, 0], [1, 0, 0], [2, 0, 0]]\n" LANES,
	 "m.yaml:3:11: road 'a': line: needs exactly 2 points, got 3"},
	{ROAD LINE, "m.yaml:2:5: road 'a': missing required key 'lanes'"},
	{ROAD LINE CLANES("left: 1, width: 3, speed: 5"),
	 "m.yaml:4:32: unknown key 'speed' in road 'a': lanes; allowed: left, "
	 "right, width"},
	{ROAD LINE CLANES("left: -1, width: 3"),
	 "m.yaml:4:19: road 'a': lanes: left must be 0 to 64 lanes, got -1"},
	{ROAD LINE CLANES("right: 65, width: 3"),
	 "m.yaml:4:20: road 'a': lanes: right must be 0 to 64 lanes, got 65"},
	{ROAD LINE CLANES("right: 1.5, width: 3"),
	 "m.yaml:4:20: road 'a': lanes: right: expected an integer, got '1.5'"},
	{ROAD LINE CLANES("left: 0, right: 0, width: 3"),
	 "m.yaml:4:12: road 'a': lanes: a road needs at least one lane "
	 "(left + right >= 1)"},
	{ROAD LINE CLANES("width: 3"),
	 "m.yaml:4:12: road 'a': lanes: a road needs at least one lane"},
	{ROAD LINE CLANES("left: 1"),
	 "m.yaml:4:12: road 'a': lanes: missing required key 'width'"},
	{ROAD LINE CLANES("left: 1, width: 0"),
	 "m.yaml:4:29: road 'a': lanes: width must be > 0, got 0"},
	{ROAD LINE CLANES("left: 1, width: -2"),
	 "m.yaml:4:29: road 'a': lanes: width must be > 0, got -2"},
	{ROAD LINE CLANES("left: 1, right: 1, width: [3, 3, 3]"),
	 "m.yaml:4:39: road 'a': lanes: width: 3 widths for 2 lanes; give one "
	 "width, or one per lane: left 1..1, then right -1..-1"},
	{ROAD LINE CLANES("left: 1, right: 1, width: [3, 0]"),
	 "m.yaml:4:43: road 'a': lanes: width must be > 0, got 0"},
	{ROAD LINE CLANES("left: 1, width: wide"),
	 "m.yaml:4:29: road 'a': lanes: width: expected a number, got 'wide'"},
	{ROAD CIRCLE("center: [0, 0], radius: 5") CLANES("left: 2, width: 3"),
	 "m.yaml:4:12: road 'a': lanes: the left lanes reach 6 m inside the "
	 "reference circle of radius 5 m"},
	{ROAD CIRCLE("center: [0, 0], radius: 6") CLANES("left: 2, width: 3"),
	 "m.yaml:4:12: road 'a': lanes: the left lanes reach 6 m inside the "
	 "reference circle of radius 6 m"},
	{ROAD LINE LANES "  - id: b\n" LINE LANES "  - id: a\n" LINE LANES,
	 "m.yaml:8:9: road 'a': the id is used twice (first at line 2)"},
};

START_TEST(bad_map_messages)
{
	const bad_map *c = &bad_maps[_i];
	vs_error err;
	vs_map *m = parse_map(c->yaml, &err);
	ck_assert_msg(!m, "accepted:\n%s", c->yaml);
	ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg,
	              err.msg);
}
END_TEST

/* The same checks without a file, for maps built in code. */
START_TEST(create_errors)
{
	double w[2] = {3, 3};
	double pts[6] = {0, 0, 0, 0, 0, 1};
	vs_map_road rd[2] = {
		{.id = "a", .is_circle = 1, .radius = 10, .n_left = 1,
		 .widths = w},
		{.id = "a", .is_circle = 1, .radius = 10, .n_left = 1,
		 .widths = w},
	};
	vs_error err = {{0}};
	ck_assert_ptr_null(vs_map_create(rd, 2, &err));
	ck_assert_str_eq(err.msg, "road 'a': the id is used twice (first by "
	                          "road 1)");
	rd[1] = (vs_map_road){.id = "b", .n_points = 2, .points = pts,
	                      .n_right = 1, .widths = w};
	memset(&err, 0, sizeof err);
	ck_assert_ptr_null(vs_map_create(rd, 2, &err));
	ck_assert_str_eq(err.msg, "road 'b': polyline: point 2 is within "
	                          "0.001 m of point 1 in x-y; consecutive "
	                          "points must differ");
	rd[1].n_points = 1;
	memset(&err, 0, sizeof err);
	ck_assert_ptr_null(vs_map_create(rd, 2, &err));
	ck_assert_str_eq(err.msg, "road 'b': polyline: needs at least 2 "
	                          "points, got 1");
	w[1] = 0;
	rd[1] = rd[0];
	rd[1].id = "b";
	rd[1].n_right = 1;
	memset(&err, 0, sizeof err);
	ck_assert_ptr_null(vs_map_create(rd, 2, &err));
	ck_assert_str_eq(err.msg, "road 'b': lanes: width 2 is 0; widths must "
	                          "be > 0 and at most 1e+07 m");
}
END_TEST

TCase *bad_map_tcase(void)
{
	TCase *tc = tcase_create("bad");
	tcase_add_loop_test(tc, bad_map_messages, 0,
	                    sizeof bad_maps / sizeof bad_maps[0]);
	tcase_add_test(tc, create_errors);
	return tc;
}
