/* MapLocation on the OpenDRIVE test roads: inside every lane, both sides
 * of lane boundaries (including a border lane, which is no lane), lane
 * sections, overlapping junction lanes (the most aligned wins), LHT, off
 * the road; s and Angle against closed forms (s to 1 mm of the lane's
 * centre-line length, Angle to 1e-3 rad). Also the lanes' UUIDs,
 * sections and types. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "test_map.h"

#define S_TOL 1e-3 /* m */
#define A_TOL 1e-3 /* rad */

static vs_map *load(const char *name)
{
	char path[1024];
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/data/xodr/%s", root ? root : ".",
	         name);
	vs_error err = {{0}};
	vs_map *m = vs_map_load_opendrive(path, &err);
	ck_assert_msg(m, "%s", err.msg);
	return m;
}

/* The map's lane (road, section, OpenDRIVE id), or -1. */
static int find(const vs_map *m, const char *road, int sec, int id)
{
	for (int i = 0; i < vs_map_lane_count(m); i++) {
		const vs_lane *l = vs_map_lane(m, i);
		if (strcmp(l->road, road) == 0 && l->section == sec &&
		    l->lane == id)
			return i;
	}
	return -1;
}

/* Locates (x, y) travelling at heading h and checks the lane (road,
 * section, id; on it), its s (m along the lane centre, travel order) and
 * the angle. */
static void on(const vs_map *m, double x, double y, double h,
               const char *road, int sec, int id, double s, double angle)
{
	vs_map_location l;
	vs_map_locate(m, x, y, 0, h, &l);
	int want = find(m, road, sec, id);
	ck_assert_int_ge(want, 0);
	const vs_lane *got = vs_map_lane(m, l.lane);
	ck_assert_msg(l.lane == want && l.is_on_lane,
	              "(%g, %g): lane %s/%d/%d on %d, want %s/%d/%d", x, y,
	              got ? got->road : "-", got ? got->section : -1,
	              got ? got->lane : 0, l.is_on_lane, road, sec, id);
	if (!isnan(s))
		ck_assert_msg(fabs(l.position * got->length - s) <= S_TOL,
		              "(%g, %g): s %.6f != %.6f", x, y,
		              l.position * got->length, s);
	ck_angle_eq(l.angle, angle, A_TOL);
}

static void off(const vs_map *m, double x, double y, double h,
                const char *road, int sec, int id, double dist)
{
	vs_map_location l;
	vs_map_locate(m, x, y, 0, h, &l);
	ck_assert_msg(!l.is_on_lane, "(%g, %g) is on a lane", x, y);
	ck_assert_int_eq(l.lane, find(m, road, sec, id));
	/* lane edges: chords bent back onto the curve (odr_build.c) */
	ck_assert_double_eq_tol(l.distance, dist, 5e-4);
}

START_TEST(odr_locate_straight)
{
	vs_map *m = load("straight.xodr");
	ck_assert_int_eq(vs_map_lane_count(m), 2); /* -2 is a border */
	const vs_lane *l = vs_map_lane(m, find(m, "1", 0, -1));
	ck_assert_str_eq(l->type, "driving");
	ck_assert_double_eq_tol(l->length, 100, 1e-9);
	ck_assert_double_eq_tol(l->width, 3.5, 1e-9);
	/* Python: uuid.uuid5(uuid.NAMESPACE_URL, "vsweep:odr:1:0:-1") */
	ck_assert_str_eq(l->uuid, "{372c23c5-a3d5-5ab1-8678-e96047007db8}");
	for (double x = 0.5; x < 100; x += 9.5) {
		on(m, x, -1.75, 0.2, "1", 0, -1, x, 0.2);
		on(m, x, 1.75, PI, "1", 0, 1, 100 - x, 0);
		on(m, x, -3.49, 0, "1", 0, -1, x, 0);
		off(m, x, -3.51, 0, "1", 0, -1, 0.01);  /* the border lane */
		on(m, x, 0.01, PI, "1", 0, 1, 100 - x, 0);
		on(m, x, -0.01, PI, "1", 0, -1, x, PI); /* wrong way */
	}
	off(m, 30, 20, 0, "1", 0, 1, 16.5);
	off(m, 130, -1, 0, "1", 0, -1, 30);
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_locate_arc)
{
	vs_map *m = load("arc.xodr");
	const double R = 50;
	for (double phi = 0.05; phi < PI / 2; phi += 0.11) {
		/* lanes 3 m: -1's centre at radius 51.5, -2's 54.5, 1's 48.5 */
		const double r[3] = {51.5, 54.5, 48.5};
		const int id[3] = {-1, -2, 1};
		for (int k = 0; k < 3; k++) {
			double x = r[k] * sin(phi), y = R - r[k] * cos(phi);
			double tangent = id[k] < 0 ? phi : phi + PI;
			double s = id[k] < 0 ? r[k] * phi
			                     : r[k] * (PI / 2 - phi);
			on(m, x, y, tangent + 0.1, "arc", 0, id[k], s, 0.1);
		}
		/* just inside and outside the outer edge, radius 56 */
		on(m, 55.99 * sin(phi), R - 55.99 * cos(phi), phi, "arc", 0, -2,
		   NAN, 0);
		off(m, 56.01 * sin(phi), R - 56.01 * cos(phi), phi, "arc", 0,
		    -2, 0.01);
	}
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_locate_clothoid)
{
	vs_map *m = load("clothoid.xodr");
	/* lane -1's centre at t = -1.75 runs s - t·(heading change) = s +
	 * 1.75 h(s): 91.75 m in all (the heading turns by 1 rad) */
	ck_assert_double_eq_tol(vs_map_lane(m, find(m, "c", 0, -1))->length,
	                        91.75, 2e-3);
	double c = 0.02 / 40;
	for (double d = 1; d < 40; d += 3) {
		double x, y, h = c * d * d / 2;
		/* the spiral, from the reference line's own (tested) points:
		 * the Fresnel integral as in odr_geom_test.c would give */
		double xs = 0, ys = 0;
		const int n = 4000;
		for (int i = 0; i < n; i++) { /* midpoint rule, fine here */
			double t = (i + 0.5) * d / n;
			xs += cos(c * t * t / 2) * d / n;
			ys += sin(c * t * t / 2) * d / n;
		}
		x = 20 + xs + 1.75 * sin(h);
		y = ys - 1.75 * cos(h);
		on(m, x, y, h - 0.05, "c", 0, -1, 20 + d + 1.75 * h, -0.05);
	}
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_locate_widening)
{
	vs_map *m = load("widening.xodr");
	/* at s = 80 lane -1 spans t in [-3.3, 0.5], its centre
	 * 0.5 - (3 + 0.01 s) / 2 turning right by atan(0.005); lane -2
	 * spans [-6.884, -3.3], its centre's slope -0.01 - w2'(80) / 2 =
	 * -0.0292; lane 1's centre 0.5 + (3 + 0.02 (s - 50)) / 2 has slope
	 * 0.01 and runs the other way */
	double k = sqrt(1 + 0.005 * 0.005);
	on(m, 80, -3.29, 0, "w", 0, -1, 80 * k, atan(0.005));
	on(m, 80, -1.0, 0, "w", 0, -1, 80 * k, atan(0.005));
	on(m, 80, -3.31, 0, "w", 0, -2, NAN, atan(0.0292));
	on(m, 80, -6.87, 0, "w", 0, -2, NAN, atan(0.0292));
	on(m, 80, 2.3, PI, "w", 0, 1, NAN, -atan(0.01));
	on(m, 20, 3.49, PI, "w", 0, 1, NAN, 0);
	vs_map_location l;
	vs_map_locate(m, 80, -6.9, 0, 0, &l);
	ck_assert(!l.is_on_lane);
	vs_map_locate(m, 20, 3.51, 0, PI, &l);
	ck_assert(!l.is_on_lane);
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_locate_sections_lht)
{
	vs_map *m = load("sections.xodr");
	ck_assert_int_eq(vs_map_lane_count(m), 4);
	ck_assert_str_ne(vs_map_lane(m, find(m, "s2", 0, -1))->uuid,
	                 vs_map_lane(m, find(m, "s2", 1, -1))->uuid);
	on(m, 30, -5, 0, "s2", 0, -2, 30, 0);
	on(m, 59.9, -1.75, 0, "s2", 0, -1, 59.9, 0);
	on(m, 70, -1.75, 0, "s2", 1, -1, 10, 0);
	on(m, 70, 1.75, PI, "s2", 1, 1, 30, 0);
	off(m, 70, -5, 0, "s2", 1, -1, 1.5);
	vs_map_unref(m);

	m = load("lht.xodr");
	on(m, 30, 1.75, 0, "L", 0, 1, 30, 0);
	on(m, 30, -1.75, PI, "L", 0, -1, 70, 0);
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_locate_junction_poly)
{
	vs_map *m = load("junction.xodr");
	on(m, -50, -1.75, 0, "1", 0, -1, 50, 0);
	/* (3, -1) is on both connecting roads: the turn's tangent there is
	 * the polar angle round its centre (0, 10) plus pi/2 */
	double t = atan2(-11, 3) + PI / 2;
	on(m, 3, -1, 0, "100", 0, -1, 3, 0);
	on(m, 3, -1, 0.25, "101", 0, -1, NAN, 0.25 - t);
	on(m, 11.75, 60, PI / 2, "3", 0, -1, 50, 0);
	on(m, 120, 1.75, PI, "2", 0, 1, NAN, 0); /* s: 3-D, over the hill */
	vs_map_unref(m);

	m = load("parampoly.xodr");
	double h = atan2(15, 100);
	on(m, 50 + 1.75 * sin(h), 5 - 1.75 * cos(h), h, "pn", 0, -1, NAN, 0);
	vs_map_unref(m);
}
END_TEST

static void lane_point_is(const vs_map *m, const char *road, int lane,
                          double s, double offset, double x, double y,
                          double z, double heading)
{
	double p[3], h;
	char why[512];
	ck_assert_msg(!vs_map_odr_point(m, road, lane, s, offset, p, &h, why,
	                                sizeof why), "%s", why);
	ck_assert_msg(hypot(p[0] - x, p[1] - y) < 1e-6 && fabs(p[2] - z) < 1e-6,
	              "%s/%d/%g: (%g, %g, %g) != (%g, %g, %g)", road, lane, s,
	              p[0], p[1], p[2], x, y, z);
	ck_angle_eq(h, heading, 1e-9);
}

START_TEST(odr_lane_coordinates)
{
	vs_map *m = load("straight.xodr");
	lane_point_is(m, "1", -1, 30, 0.2, 30, -1.55, 0, 0);
	lane_point_is(m, "1", 1, 30, 0, 30, 1.75, 0, PI);
	double p[3], h;
	char why[512];
	ck_assert_int_eq(vs_map_odr_point(m, "9", -1, 3, 0, p, &h, why,
	                                  sizeof why), -1);
	ck_assert(strstr(why, "road '9' is not in "));
	ck_assert_int_eq(vs_map_odr_point(m, "1", -3, 3, 0, p, &h, why,
	                                  sizeof why), -1);
	ck_assert_str_eq(why, "road '1' has no lane -3 at s = 3 m (lane "
	                      "section 0: lanes -2 to 1)");
	ck_assert_int_eq(vs_map_odr_point(m, "1", -1, 101, 0, p, &h, why,
	                                  sizeof why), -1);
	ck_assert_str_eq(why, "s = 101 m is off road '1' (0 to 100 m)");
	vs_map_unref(m);

	m = load("arc.xodr");
	lane_point_is(m, "arc", -2, 30, 0, 54.5 * sin(0.6),
	              50 - 54.5 * cos(0.6), 0, 0.6);
	vs_map_unref(m);
	m = load("hill.xodr");
	lane_point_is(m, "hill", -1, 50, 0, 50, -1.75, 2.5, 0);
	lane_point_is(m, "bank", -1, 50, 0, 101.75 * sin(0.5),
	              400 - 101.75 * cos(0.5), 2 - 1.75 * tan(0.05), 0.5);
	vs_map_unref(m);
	m = load("lht.xodr");
	lane_point_is(m, "L", 1, 40, 0, 40, 1.75, 0, 0);
	vs_map_unref(m);
}
END_TEST

START_TEST(odr_scenario_lane_positions)
{
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	char text[2048];
	snprintf(text, sizeof text,
	         "vsweep: 1\nstep: 0.1\nduration: 1\n"
	         "map: {opendrive: %s/tests/data/xodr/straight.xodr}\n"
	         "assets:\n  box: {length: 1, width: 1, height: 1}\n"
	         "actors:\n"
	         "  - {id: 1, asset: box, start: {position: {road: \"1\", "
	         "lane: -1, s: 30, offset: 0.2}}}\n"
	         "  - {id: 2, asset: box, speed: 5, waypoints: [{road: 1, "
	         "lane: 1, s: 90}, [50, 1.75, 0]]}\n"
	         "  - {id: 3, asset: box, start: {position: {road: \"1\", "
	         "lane: 1, s: 30}, yaw: 0.25}}\n", root ? root : ".");
	vs_error err = {{0}};
	vs_scenario *scn = vs_scenario_parse("s.yaml", text, strlen(text),
	                                     &err);
	ck_assert_msg(scn, "%s", err.msg);
	const vs_actor_spec *a = &scn->actors[0];
	ck_assert_double_eq_tol(a->start_pos[0], 30, 1e-9);
	ck_assert_double_eq_tol(a->start_pos[1], -1.55, 1e-9);
	ck_angle_eq(a->start_yaw, -PI / 2, 1e-12); /* faces +X */
	a = &scn->actors[1];
	ck_assert_int_eq(a->n_waypoints, 2);
	ck_assert_double_eq_tol(a->waypoints[0], 90, 1e-9);
	ck_assert_double_eq_tol(a->waypoints[1], 1.75, 1e-9);
	ck_assert_double_eq_tol(a->waypoints[3], 50, 1e-9);
	ck_angle_eq(scn->actors[2].start_yaw, 0.25, 1e-12);
	vs_scenario_destroy(scn);

	snprintf(text, sizeof text,
	         "vsweep: 1\nstep: 0.1\nduration: 1\n"
	         "map: {opendrive: %s/tests/data/xodr/straight.xodr}\n"
	         "assets:\n  box: {length: 1, width: 1, height: 1}\n"
	         "actors:\n"
	         "  - {id: 1, asset: box, start: {position: {road: \"1\", "
	         "lane: -4, s: 30}}}\n", root ? root : ".");
	ck_assert_ptr_null(vs_scenario_parse("s.yaml", text, strlen(text),
	                                     &err));
	ck_assert_str_eq(err.msg, "s.yaml:8:43: position: road '1' has no "
	                          "lane -4 at s = 30 m (lane section 0: "
	                          "lanes -2 to 1)");
}
END_TEST

/* Lane relations for behaviours (map.h): successors by the lane links
 * into the next lane section, through a junction's first connection and
 * across a road link; which lanes a lane leads into (any connection);
 * neighbours travelling the same way. */
START_TEST(odr_lane_links)
{
	vs_map *m = load("sections.xodr");
	int a = find(m, "s2", 0, -1), b = find(m, "s2", 0, -2);
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	ck_assert_int_ge(find(m, "s2", 1, -1), 0);
	ck_assert_int_eq(vs_map_lane_successor(m, a), find(m, "s2", 1, -1));
	ck_assert_int_eq(vs_map_lane_successor(m, b), -1); /* no link */
	ck_assert_int_eq(vs_map_lane_neighbour(m, a, -1), b);
	ck_assert_int_eq(vs_map_lane_neighbour(m, b, 1), a);
	ck_assert_int_eq(vs_map_lane_neighbour(m, a, 1), -1);
	ck_assert_double_eq_tol(vs_map_lane_width_at(m, a, 0.5), 3.5, 1e-9);
	ck_assert_int_eq(vs_map_lane_leads_into(m, a, find(m, "s2", 1, -1)), 1);
	ck_assert_int_eq(vs_map_lane_leads_into(m, b, find(m, "s2", 1, -1)), 0);
	ck_assert_int_eq(vs_map_lane_leads_into(m, a, b), 0);
	vs_map_unref(m);
	m = load("junction.xodr");
	int in = find(m, "1", 0, -1), through = find(m, "100", 0, -1);
	ck_assert_int_ge(through, 0);
	ck_assert_int_ge(find(m, "2", 0, -1), 0);
	ck_assert_int_eq(vs_map_lane_successor(m, in), through);
	ck_assert_int_eq(vs_map_lane_successor(m, through),
	                 find(m, "2", 0, -1));
	ck_assert_int_eq(vs_map_lane_successor(m, find(m, "101", 0, -1)), -1);
	ck_assert_int_eq(vs_map_lane_successor(m, find(m, "2", 0, -1)), -1);
	/* Into either connecting lane, the second connection's too; a lane
	 * leads into neither its neighbour nor its predecessor. */
	int turn = find(m, "101", 0, -1);
	ck_assert_int_eq(vs_map_lane_leads_into(m, in, through), 1);
	ck_assert_int_eq(vs_map_lane_leads_into(m, in, turn), 1);
	ck_assert_int_eq(vs_map_lane_leads_into(m, through, find(m, "2", 0, -1)),
	                 1);
	ck_assert_int_eq(vs_map_lane_leads_into(m, through, in), 0);
	ck_assert_int_eq(vs_map_lane_leads_into(m, through, turn), 0);
	ck_assert_int_eq(vs_map_lane_leads_into(m, in, find(m, "1", 0, 1)), 0);
	vs_map_unref(m);
}
END_TEST

TCase *odr_locate_tcase(void)
{
	TCase *tc = tcase_create("opendrive MapLocation");
	tcase_add_test(tc, odr_locate_straight);
	tcase_add_test(tc, odr_locate_arc);
	tcase_add_test(tc, odr_locate_clothoid);
	tcase_add_test(tc, odr_locate_widening);
	tcase_add_test(tc, odr_locate_sections_lht);
	tcase_add_test(tc, odr_locate_junction_poly);
	tcase_add_test(tc, odr_lane_coordinates);
	tcase_add_test(tc, odr_scenario_lane_positions);
	tcase_add_test(tc, odr_lane_links);
	return tc;
}
