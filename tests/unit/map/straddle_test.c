/* The straddled lane (docs/conventions.md): an actor whose footprint
 * overlaps several lanes is in the most aligned of them; ties go to the
 * lane holding its origin, then to the lower lane row; is_on_lane stays
 * the origin's. Closed forms on a straight road (lanes are bands in y), on
 * the seed article's ring (annuli) and on an OpenDRIVE straight road. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_map.h"

#define HW 0.95 /* m: the sedan's half width (1.9 m) */
#define HL 2.4  /* m: its half length (4.8 m) */

static vs_map *must_parse(const char *yaml)
{
	vs_error err;
	vs_map *m = parse_map(yaml, &err);
	ck_assert_msg(m, "%s", err.msg);
	return m;
}

/* A car at (x, y) travelling at heading h (rad from +X) and facing it. */
static vs_map_location car(const vs_map *m, double x, double y, double h,
                           double hw, double hl)
{
	vs_map_footprint fp = {hw, hl, h - PI / 2}; /* RoadRunner yaw */
	vs_map_location l;
	vs_map_locate_footprint(m, x, y, 0, h, &fp, &l);
	return l;
}

static int lane_of(const vs_map *m, const vs_map_location *l)
{
	const vs_lane *lane = vs_map_lane(m, l->lane);
	return lane ? lane->lane : 0;
}

/* Along +X from 0 to 100 m: lanes 2, 1 at y in [3.5, 7], [0, 3.5]
 * (travelling -X), -1, -2 at [-3.5, 0], [-7, -3.5] (travelling +X). */
static const char straight[] =
	"roads:\n"
	"  - id: main\n"
	"    line: [[0, 0, 0], [100, 0, 0]]\n"
	"    lanes: {left: 2, right: 2, width: 3.5}\n";

/* docs/conventions.md's own case: origin 2 dm over the centre line in lane 1,
 * driving along lane -1. */
START_TEST(straddle_opposite_lanes)
{
	vs_map *m = must_parse(straight);
	vs_map_location l;
	vs_map_locate(m, 40, 0.2, 0, 0, &l); /* the origin alone */
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, PI, 1e-12);
	l = car(m, 40, 0.2, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_int_eq(l.is_on_lane, 1); /* the origin is on lane 1 */
	ck_angle_eq(l.angle, 0, 1e-12);
	ck_assert_double_eq_tol(l.position, 0.4, 1e-12); /* s = x / 100 */
	ck_assert_double_eq_tol(l.distance, 0.2, 1e-12);
	/* centred on the reference line: on both lanes, the aligned one */
	l = car(m, 40, 0, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_angle_eq(l.angle, 0, 1e-12);
	/* the footprint's right edge at y = 0.05 > 0: lane -1 is not
	 * straddled, the car is in lane 1 against its travel */
	l = car(m, 40, 1.0, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, PI, 1e-12);
	ck_assert_double_eq_tol(l.position, 0.6, 1e-12); /* (100 - x) / 100 */
	/* ... at y = 0.9 it reaches 5 cm into lane -1 */
	l = car(m, 40, 0.9, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	/* turned 30 degrees, the half extent across is 0.95 cos 30 + 2.4
	 * sin 30 = 2.023 m: straddles from y = 2.0, not from 2.05 */
	double h = PI / 6;
	l = car(m, 40, 2.0, h, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_angle_eq(l.angle, h, 1e-12);
	l = car(m, 40, 2.05, h, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, h - PI, 1e-12);
	vs_map_unref(m);
}
END_TEST

/* Equal |angle|: crossing the road at right angles, every lane is pi / 2
 * off. */
START_TEST(straddle_ties)
{
	vs_map *m = must_parse(straight);
	/* origin in lane -1, footprint over -2, -1 and 1: the origin's */
	vs_map_location l = car(m, 50, -1.75, PI / 2, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_angle_eq(l.angle, PI / 2, 1e-12);
	/* origin in lane 1, footprint over -1, 1 and 2 */
	l = car(m, 50, 1.75, PI / 2, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, -PI / 2, 1e-12);
	/* origin 0.2 m off the road's right edge (y = -7), the footprint
	 * over lanes -2 and -1 (y up to -2.2): neither holds the origin, the
	 * lower lane row wins (left lanes 1, 2, then right -1, -2), at its
	 * distance 3.7 m, with is_on_lane 0 */
	l = car(m, 50, -7.2, PI / 2, HW, 5);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_assert_double_eq_tol(l.distance, 3.7, 1e-12);
	ck_angle_eq(l.angle, PI / 2, 1e-12);
	/* a shorter one reaches lane -2 only */
	l = car(m, 50, -7.2, PI / 2, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_assert_double_eq_tol(l.distance, 0.2, 1e-12);
	vs_map_unref(m);
}
END_TEST

/* Off the road, a footprint reaching into a lane: that lane, even against
 * its travel (nothing is more aligned), off lane; reaching none: the
 * nearest lane, as for a point. */
START_TEST(straddle_off_road)
{
	vs_map *m = must_parse(straight);
	vs_map_location l = car(m, 30, -7.5, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_angle_eq(l.angle, 0, 1e-12);
	ck_assert_double_eq_tol(l.distance, 0.5, 1e-12);
	l = car(m, 30, -7.5, PI, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_angle_eq(l.angle, PI, 1e-12);
	l = car(m, 30, -8, 0, HW, HL); /* edge at -7.05: touches nothing */
	vs_map_location p;
	vs_map_locate(m, 30, -8, 0, 0, &p);
	ck_assert_int_eq(l.lane, p.lane);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_assert_double_eq_tol(l.distance, 1, 1e-12);
	/* no footprint (NULL or zero size): the point query, bit for bit */
	for (int k = 0; k < 40; k++) {
		double x = -5 + 2.7 * k, y = -9 + 0.45 * k, h = 0.3 * k;
		vs_map_footprint zero = {0, 0, 1};
		vs_map_location a, b, c;
		vs_map_locate(m, x, y, 0, h, &a);
		vs_map_locate_footprint(m, x, y, 0, h, NULL, &b);
		vs_map_locate_footprint(m, x, y, 0, h, &zero, &c);
		ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
		ck_assert_int_eq(memcmp(&a, &c, sizeof a), 0);
	}
	vs_map_unref(m);
}
END_TEST

/* The seed article's neutral-steer car circles on l / delta = 3.0 / (3
 * pi / 180) = 57.2958 m, 4 mm inside the ring's reference line (57.3 m):
 * its origin is in lane 1, which runs clockwise, while it drives
 * counter-clockwise along lane -1 (57.3 .. 60.8 m). */
START_TEST(straddle_article_ring)
{
	vs_map *m = must_parse("roads:\n"
	                       "  - id: ring\n"
	                       "    circle: {center: [0, 0], radius: 57.3}\n"
	                       "    lanes: {left: 4, right: 4, width: 3.5}\n");
	const double rho = 3.0 / (3 * PI / 180);
	for (int k = 0; k < 12; k++) {
		double th = 0.1 + 2 * PI * k / 12;
		double x = rho * cos(th), y = rho * sin(th), h = th + PI / 2;
		vs_map_location l;
		vs_map_locate(m, x, y, 0, h, &l);
		ck_assert_int_eq(lane_of(m, &l), 1);
		ck_angle_eq(fabs(l.angle), PI, 1e-9);
		l = car(m, x, y, h, HW, HL);
		ck_assert_int_eq(lane_of(m, &l), -1);
		ck_assert_int_eq(l.is_on_lane, 1);
		ck_angle_eq(l.angle, 0, 1e-9);
		ck_assert_double_eq_tol(l.position, th / (2 * PI), 1e-9);
		ck_assert_double_eq_tol(l.distance, 57.3 - rho, 1e-9);
	}
	/* on lane -1's centre (59.05 m) the car straddles nothing else */
	vs_map_location l = car(m, 0, 59.05, PI, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq(l.distance, 0);
	vs_map_unref(m);
}
END_TEST

/* The same on an OpenDRIVE road: straight.xodr runs along +X, lane 1 at
 * y in [0, 3.5], lane -1 at [-3.5, 0] (and a border lane, no lane). */
START_TEST(straddle_opendrive)
{
	char path[1024];
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/data/xodr/straight.xodr",
	         root ? root : ".");
	vs_error err = {{0}};
	vs_map *m = vs_map_load_opendrive(path, &err);
	ck_assert_msg(m, "%s", err.msg);
	vs_map_location l = car(m, 40, 0.2, 0, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_int_eq(l.is_on_lane, 1);
	ck_angle_eq(l.angle, 0, 1e-9);
	ck_assert_double_eq_tol(l.position * vs_map_lane(m, l.lane)->length,
	                        40, 1e-6);
	l = car(m, 60, -0.3, PI, HW, HL);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, 0, 1e-9);
	ck_assert_double_eq_tol(l.position * vs_map_lane(m, l.lane)->length,
	                        40, 1e-6); /* lane 1 runs from x = 100 */
	l = car(m, 60, 1.0, 0, HW, HL); /* not reaching lane -1 */
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_angle_eq(l.angle, PI, 1e-9);
	vs_map_unref(m);
}
END_TEST

/* Two lanes running the same way on a curve (arc.xodr: radius 50 m about
 * (0, 50), lanes -1 at 50 .. 53 m and -2 at 53 .. 56 m, counter-clockwise):
 * a car following the curve and reaching over into the other lane is
 * equally aligned with both, so it stays in the lane holding its origin,
 * whatever the rounding of the two lanes' headings. */
START_TEST(straddle_parallel_lanes_tie)
{
	char path[1024];
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/data/xodr/arc.xodr",
	         root ? root : ".");
	vs_error err = {{0}};
	vs_map *m = vs_map_load_opendrive(path, &err);
	ck_assert_msg(m, "%s", err.msg);
	for (int k = 0; k < 40; k++) {
		double phi = 0.02 + 1.5 * k / 40; /* rad round the centre */
		for (int side = 0; side < 2; side++) {
			double r = side ? 53.5 : 52.5; /* 0.5 m from the edge */
			vs_map_location l = car(m, r * sin(phi),
			                        50 - r * cos(phi), phi, HW, HL);
			ck_assert_int_eq(lane_of(m, &l), side ? -2 : -1);
			ck_assert_int_eq(l.is_on_lane, 1);
			ck_angle_eq(l.angle, 0, 1e-3);
		}
	}
	vs_map_unref(m);
}
END_TEST

TCase *straddle_tcase(void)
{
	TCase *tc = tcase_create("straddle");
	tcase_add_test(tc, straddle_opposite_lanes);
	tcase_add_test(tc, straddle_ties);
	tcase_add_test(tc, straddle_off_road);
	tcase_add_test(tc, straddle_article_ring);
	tcase_add_test(tc, straddle_opendrive);
	tcase_add_test(tc, straddle_parallel_lanes_tie);
	return tc;
}
