/* The road map: lane layout and MapLocation against closed-form geometry
 * (straight lanes are rectangles, circle lanes annuli), the most-aligned
 * and nearest-lane rules, UUIDs against Python's uuid5, and maps shared by
 * scenarios. bad_maps.c holds every bad-map message, brute_force.c the
 * spatial index against a brute-force scan of 10,000 lanes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/scenario.h"
#include "map/map_internal.h"
#include "yaml/yamltree.h"
#include "test_map.h"

vs_map *parse_map(const char *yaml, vs_error *err)
{
	return parse_map_at("m.yaml", yaml, err);
}

vs_map *parse_map_at(const char *path, const char *yaml, vs_error *err)
{
	memset(err, 0, sizeof *err);
	vs_ydoc *doc = vs_ydoc_parse(path, yaml, strlen(yaml), err);
	if (!doc)
		return NULL;
	vs_map *m = NULL;
	if (vs_map_parse(doc, doc->root, &m, err))
		m = NULL;
	vs_ydoc_destroy(doc);
	return m;
}

vs_map *load_xodr_text(const char *xml, vs_error *err)
{
	char path[] = "/tmp/vsweep_odr_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(xml, f);
	fclose(f);
	memset(err, 0, sizeof *err);
	vs_map *m = vs_map_load_opendrive(path, err);
	unlink(path);
	return m;
}

static vs_map *must_parse(const char *yaml)
{
	vs_error err;
	vs_map *m = parse_map(yaml, &err);
	ck_assert_msg(m, "%s", err.msg);
	return m;
}

static vs_map_location at(const vs_map *m, double x, double y, double h)
{
	vs_map_location loc;
	vs_map_locate(m, x, y, 0, h, &loc);
	return loc;
}

/* The signed index of the lane a location names (0: none). */
static int lane_of(const vs_map *m, const vs_map_location *l)
{
	const vs_lane *lane = vs_map_lane(m, l->lane);
	return lane ? lane->lane : 0;
}

/* ---- straight lanes ---------------------------------------------------- */

/* Along +X from 0 to 100 m; left lanes 1, 2 at y in [0, 3.5], [3.5, 7];
 * right lanes -1, -2 at [-3.5, 0], [-7, -3.5]. */
static const char straight[] =
	"roads:\n"
	"  - id: main\n"
	"    line: [[0, 0, 0], [100, 0, 0]]\n"
	"    lanes: {left: 2, right: 2, width: 3.5}\n";

START_TEST(straight_layout)
{
	vs_map *m = must_parse(straight);
	ck_assert_int_eq(vs_map_lane_count(m), 4);
	const int want[4] = {1, 2, -1, -2};
	const double inner[4] = {0, 3.5, 0, -3.5};
	const double outer[4] = {3.5, 7, -3.5, -7};
	for (int i = 0; i < 4; i++) {
		const vs_lane *l = vs_map_lane(m, i);
		ck_assert_int_eq(l->lane, want[i]);
		ck_assert_str_eq(l->road, "main");
		ck_assert_int_eq(l->road_index, 0);
		ck_assert_double_eq_tol(l->length, 100, EPS);
		ck_assert_double_eq(l->width, 3.5);
		ck_assert_double_eq_tol(l->inner, inner[i], EPS);
		ck_assert_double_eq_tol(l->outer, outer[i], EPS);
		ck_assert_int_eq(l->closed, 0);
	}
	ck_assert_ptr_null(vs_map_lane(m, 4));
	ck_assert_ptr_null(vs_map_lane(m, -1));
	vs_map_unref(m);
}
END_TEST

/* Just inside and just outside (1e-6 of the 100 m scale) every lateral
 * boundary and both ends. */
typedef struct probe {
	double x, y;
	int on;     /* is_on_lane */
	int lane;   /* signed index reported */
} probe;

#define D 1e-4 /* 1e-6 * 100 m */
static const probe straight_probes[] = {
	{50, 7 - D, 1, 2},     {50, 7 + D, 0, 2},
	{50, 3.5 + D, 1, 2},   {50, 3.5 - D, 1, 1},
	{50, D, 1, 1},         {50, -D, 1, -1},
	{50, -3.5 + D, 1, -1}, {50, -3.5 - D, 1, -2},
	{50, -7 + D, 1, -2},   {50, -7 - D, 0, -2},
	{D, -1, 1, -1},        {-D, -1, 0, -1},
	{100 - D, 5, 1, 2},    {100 + D, 5, 0, 2},
};

START_TEST(straight_boundaries)
{
	vs_map *m = must_parse(straight);
	const probe *p = &straight_probes[_i];
	/* travel across the road: no lane is favoured by alignment */
	vs_map_location l = at(m, p->x, p->y, PI / 2);
	ck_assert_msg(l.is_on_lane == p->on && lane_of(m, &l) == p->lane,
	              "(%g, %g): on %d lane %d, want on %d lane %d", p->x,
	              p->y, l.is_on_lane, lane_of(m, &l), p->on, p->lane);
	ck_assert_double_eq_tol(l.distance, p->on ? 0 : D, 1e-9);
	vs_map_unref(m);
}
END_TEST

START_TEST(straight_position_angle)
{
	vs_map *m = must_parse(straight);
	/* right lanes run along the reference, left lanes against it */
	vs_map_location l = at(m, 25, -1, 0);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.position, 0.25, EPS);
	ck_assert_double_eq_tol(l.angle, 0, EPS);
	l = at(m, 25, -1, PI); /* against the lane: pi, never -pi */
	ck_assert_double_eq_tol(l.angle, PI, EPS);
	l = at(m, 25, -1, 0.3);
	ck_assert_double_eq_tol(l.angle, 0.3, EPS);
	l = at(m, 25, -1, -0.3);
	ck_assert_double_eq_tol(l.angle, -0.3, EPS);
	l = at(m, 25, 5, PI);
	ck_assert_int_eq(lane_of(m, &l), 2);
	ck_assert_double_eq_tol(l.position, 0.75, EPS);
	ck_assert_double_eq_tol(l.angle, 0, EPS);
	l = at(m, 25, 5, 0);
	ck_assert_double_eq_tol(l.angle, PI, EPS);
	l = at(m, 0, -1, 0);
	ck_assert_double_eq_tol(l.position, 0, EPS);
	l = at(m, 100, 1, 0);
	ck_assert_double_eq_tol(l.position, 0, EPS);
	ck_assert_int_eq(lane_of(m, &l), 1);
	vs_map_unref(m);
}
END_TEST

/* A point exactly on the line shared by lane 1 and lane -1 (opposite
 * directions) is in both: the one aligned with the travel wins. */
START_TEST(most_aligned)
{
	vs_map *m = must_parse(straight);
	vs_map_location l = at(m, 40, 0, 0.1);
	ck_assert_int_eq(l.is_on_lane, 1);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.angle, 0.1, EPS);
	l = at(m, 40, 0, PI - 0.1);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_assert_double_eq_tol(l.angle, -0.1, EPS);
	ck_assert_double_eq_tol(l.position, 0.6, EPS);
	/* square across: equally aligned, the lower lane index wins */
	l = at(m, 40, 0, PI / 2);
	ck_assert_int_eq(l.lane, 0);
	/* lanes -1 and -2 run the same way: a tie, the lower index */
	l = at(m, 40, -3.5, 0);
	ck_assert_int_eq(lane_of(m, &l), -1);
	vs_map_unref(m);

	/* two roads crossing at right angles: the one driven along wins */
	m = must_parse("roads:\n"
	               "  - {id: ew, line: [[-50, 0, 0], [50, 0, 0]],\n"
	               "     lanes: {right: 1, width: 4}}\n"
	               "  - {id: sn, line: [[0, -50, 0], [0, 50, 0]],\n"
	               "     lanes: {right: 1, width: 4}}\n");
	l = at(m, 1, -1, PI / 2 - 0.2);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "sn");
	ck_assert_double_eq_tol(l.angle, -0.2, EPS);
	l = at(m, 1, -1, 0.2);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "ew");
	vs_map_unref(m);

	/* stacked roads, the same way: equally aligned, the nearer in z */
	m = must_parse("roads:\n"
	               "  - {id: low, line: [[0, 0, 0], [50, 0, 0]],\n"
	               "     lanes: {right: 1, width: 4}}\n"
	               "  - {id: high, line: [[0, 0, 6], [50, 0, 6]],\n"
	               "     lanes: {right: 1, width: 4}}\n");
	vs_map_locate(m, 20, -2, 5.5, 0, &l);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "high");
	vs_map_locate(m, 20, -2, 0.5, 0, &l);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "low");
	vs_map_unref(m);
}
END_TEST

/* Off every lane: the lane whose area is nearest, is_on_lane 0. */
START_TEST(nearest_off_road)
{
	vs_map *m = must_parse(
		"roads:\n"
		"  - id: main\n"
		"    line: [[0, 0, 0], [100, 0, 0]]\n"
		"    lanes: {left: 2, right: 2, width: 3.5}\n"
		"  - id: far\n"
		"    line: [[0, 100, 0], [100, 100, 0]]\n"
		"    lanes: {right: 1, width: 4}\n");
	vs_map_location l = at(m, 50, -20, 0);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_assert_double_eq_tol(l.distance, 13, EPS);
	ck_assert_double_eq_tol(l.position, 0.5, EPS);
	l = at(m, 120, -1, 0); /* past the end: s = 1, distance to the end */
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.distance, 20, EPS);
	ck_assert_double_eq_tol(l.position, 1, EPS);
	l = at(m, 130, -20, 0); /* off a corner */
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_assert_double_eq_tol(l.distance, hypot(30, 13), EPS);
	l = at(m, 50, 60, 0); /* nearer "far" (36 m) than "main" (53 m) */
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "far");
	ck_assert_double_eq_tol(l.distance, 36, EPS);
	l = at(m, 50, 51, 0); /* nearer "main": 44 against 45 */
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "main");
	ck_assert_int_eq(lane_of(m, &l), 2);
	l = at(m, 50, 51.5, 0); /* 44.5 from both: the lower index */
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "main");
	l = at(m, 5e6, -3e6, 0); /* far away: still the nearest */
	ck_assert_int_eq(lane_of(m, &l), -2);
	ck_assert_double_eq_tol(l.distance, hypot(5e6 - 100, 3e6 - 7), 1e-6);
	vs_map_unref(m);
}
END_TEST

/* ---- circles ----------------------------------------------------------- */

/* Centre (10, -5), radius 50: lane 1 (inside) r in [46, 50], travelling
 * clockwise; lane -1 r in [50, 54], counter-clockwise. */
static const char ring[] =
	"roads:\n"
	"  - id: ring\n"
	"    circle: {center: [10, -5], radius: 50, z: 2}\n"
	"    lanes: {left: 1, right: 1, width: 4}\n";

static vs_map_location at_polar(const vs_map *m, double r, double th,
                                double h)
{
	return at(m, 10 + r * cos(th), -5 + r * sin(th), h);
}

START_TEST(circle_layout)
{
	vs_map *m = must_parse(ring);
	ck_assert_int_eq(vs_map_lane_count(m), 2);
	ck_assert_int_eq(vs_map_lane(m, 0)->lane, 1);
	ck_assert_double_eq_tol(vs_map_lane(m, 0)->length, 2 * PI * 48, EPS);
	ck_assert_double_eq_tol(vs_map_lane(m, 1)->length, 2 * PI * 52, EPS);
	ck_assert_int_eq(vs_map_lane(m, 1)->closed, 1);
	const double d = 50e-6; /* 1e-6 of the radius */
	const struct {
		double r;
		int on, lane;
	} c[] = {{46 - d, 0, 1}, {46 + d, 1, 1}, {50 - d, 1, 1},
	         {50 + d, 1, -1}, {54 - d, 1, -1}, {54 + d, 0, -1},
	         {0, 0, 1}, {20, 0, 1}, {80, 0, -1}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		vs_map_location l = at_polar(m, c[i].r, 1.0, 1.0);
		ck_assert_msg(l.is_on_lane == c[i].on &&
		                  lane_of(m, &l) == c[i].lane,
		              "r = %g: on %d lane %d", c[i].r, l.is_on_lane,
		              lane_of(m, &l));
	}
	ck_assert_double_eq_tol(at_polar(m, 20, 2, 0).distance, 26, EPS);
	ck_assert_double_eq_tol(at_polar(m, 80, 2, 0).distance, 26, EPS);
	vs_map_unref(m);
}
END_TEST

START_TEST(circle_position_angle)
{
	vs_map *m = must_parse(ring);
	/* lane -1 (counter-clockwise from centre + (r, 0)) */
	vs_map_location l = at_polar(m, 52, 0, PI / 2);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.position, 0, 1e-12);
	ck_assert_double_eq_tol(l.angle, 0, 1e-12);
	for (double th = -3; th < 3.2; th += 0.37) {
		double want = th < 0 ? th / (2 * PI) + 1 : th / (2 * PI);
		l = at_polar(m, 51, th, th + PI / 2 + 0.2);
		ck_assert_double_eq_tol(l.position, want, 1e-12);
		ck_assert_double_eq_tol(l.angle, 0.2, 1e-12);
		/* lane 1 runs clockwise from the same start */
		l = at_polar(m, 47, th, th - PI / 2);
		ck_assert_int_eq(lane_of(m, &l), 1);
		ck_assert_double_eq_tol(l.position, want ? 1 - want : 0, 1e-12);
		ck_assert_double_eq_tol(l.angle, 0, 1e-12);
	}
	/* the wrap at the start: just before it s -> 1, just after s -> 0 */
	l = at_polar(m, 52, -1e-9, PI / 2);
	ck_assert_double_eq_tol(l.position, 1, 1e-9);
	ck_assert_double_lt(l.position, 1);
	l = at_polar(m, 52, 1e-9, PI / 2);
	ck_assert_double_eq_tol(l.position, 0, 1e-9);
	l = at_polar(m, 48, 1e-9, -PI / 2);
	ck_assert_double_eq_tol(l.position, 1, 1e-9);
	l = at_polar(m, 48, -1e-9, -PI / 2);
	ck_assert_double_eq_tol(l.position, 0, 1e-9);
	/* driving against lane -1 at the top of the ring */
	l = at_polar(m, 52, PI / 2, 0);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(fabs(l.angle), PI, 1e-12);
	/* exactly on the shared circle r = 50: the aligned lane */
	l = at(m, 10, 45, PI + 0.1);
	ck_assert_int_eq(l.is_on_lane, 1);
	ck_assert_int_eq(lane_of(m, &l), -1);
	l = at(m, 10, 45, 0.1);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_assert_double_eq_tol(l.position, 0.75, 1e-12);
	vs_map_unref(m);
}
END_TEST

START_TEST(lane_points)
{
	vs_map *m = must_parse(ring);
	double p[3], h;
	/* lane -1 a quarter round, on its left (inner) boundary */
	ck_assert_int_eq(vs_map_lane_point(m, 1, 0.25, 2, p, &h), 0);
	ck_assert_double_eq_tol(p[0], 10, 1e-9);
	ck_assert_double_eq_tol(p[1], -5 + 50, 1e-9);
	ck_assert_double_eq(p[2], 2);
	ck_angle_eq(h, PI, 1e-12);
	/* lane 1 a quarter round (clockwise): the bottom; left = outward */
	ck_assert_int_eq(vs_map_lane_point(m, 0, 0.25, 2, p, &h), 0);
	ck_assert_double_eq_tol(p[0], 10, 1e-9);
	ck_assert_double_eq_tol(p[1], -5 - 50, 1e-9);
	ck_angle_eq(h, PI, 1e-12);
	ck_assert_int_eq(vs_map_lane_point(m, 2, 0, 0, p, &h), -1);
	/* a drawing polyline within 1 cm of the arc, closed */
	double *v;
	int n = vs_map_lane_polyline(m, 1, 0, 0.01, &v);
	ck_assert_int_gt(n, 8);
	ck_assert_double_eq_tol(v[0], v[3 * (n - 1)], 1e-9);
	ck_assert_double_eq_tol(v[1], v[3 * (n - 1) + 1], 1e-9);
	for (int k = 0; k + 1 < n; k++) {
		double mx = (v[3 * k] + v[3 * k + 3]) / 2 - 10;
		double my = (v[3 * k + 1] + v[3 * k + 4]) / 2 + 5;
		ck_assert_double_le(52 - hypot(mx, my), 0.01);
	}
	free(v);
	vs_map_unref(m);

	m = must_parse(straight);
	n = vs_map_lane_polyline(m, 0, -1.75, 0.01, &v); /* lane 1's right */
	ck_assert_int_eq(n, 2);
	ck_assert_double_eq_tol(v[0], 100, EPS); /* travel order: from x 100 */
	ck_assert_double_eq_tol(v[1], 3.5, EPS); /* going -X, right is +Y */
	ck_assert_double_eq_tol(v[3], 0, EPS);
	free(v);
	vs_map_unref(m);
}
END_TEST

/* ---- polylines --------------------------------------------------------- */

/* East 100 m, then a left turn north 100 m; lane -1 (outside of the turn)
 * has its centre at offset -2: (0, -2) -> (102, -2) -> (102, 100), 204 m;
 * lane 1's centre (100, 2) -> (98, 2) -> (98, 0)... reversed: 196 m. */
static const char bend[] =
	"roads:\n"
	"  - id: bend\n"
	"    polyline: [[0, 0, 0], [100, 0, 10], [100, 100, 10]]\n"
	"    lanes: {left: 1, right: 1, width: 4}\n";

START_TEST(polyline_mitre)
{
	vs_map *m = must_parse(bend);
	const vs_lane *l1 = vs_map_lane(m, 0), *r1 = vs_map_lane(m, 1);
	ck_assert_double_eq_tol(r1->length, hypot(102, 10) + 102, EPS);
	ck_assert_double_eq_tol(l1->length, hypot(98, 10) + 98, EPS);
	/* on the centre line, s is the arc length */
	vs_map_location l = at(m, 102, 50, PI / 2);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.position,
	                        (hypot(102, 10) + 52) / r1->length, EPS);
	ck_assert_double_eq_tol(l.angle, 0, EPS);
	l = at(m, 51, -2, 0); /* half way along the first segment */
	ck_assert_double_eq_tol(l.position, hypot(102, 10) / 2 / r1->length,
	                        EPS);
	l = at(m, 98, 50, -PI / 2);
	ck_assert_int_eq(lane_of(m, &l), 1);
	ck_assert_double_eq_tol(l.position, 50 / l1->length, EPS);
	/* the mitre line y = -(x - 100) from the corner: both segments give
	 * the vertex's s there */
	l = at(m, 103, -3, 0);
	ck_assert_int_eq(l.is_on_lane, 1);
	ck_assert_double_eq_tol(l.position, hypot(102, 10) / r1->length, EPS);
	vs_map_location a = at(m, 103 - 1e-9, -3 + 1e-6, 0);
	vs_map_location b = at(m, 103 + 1e-6, -3 - 1e-9, 0);
	ck_assert_double_eq_tol(a.position, b.position, 1e-6);
	/* outside the turn, past the outer mitre corner (104, -4) */
	l = at(m, 107, -7, PI / 4);
	ck_assert_int_eq(l.is_on_lane, 0);
	ck_assert_int_eq(lane_of(m, &l), -1);
	ck_assert_double_eq_tol(l.distance, 3 * sqrt(2), EPS);
	/* inside the turn, lane 1's outer edges meet at (96, 4) */
	ck_assert_int_eq(at(m, 95, 3.9, 0).is_on_lane, 1);
	ck_assert_int_eq(at(m, 95, 4.1, 0).is_on_lane, 0);
	ck_assert_int_eq(at(m, 96.1, 5, 0).is_on_lane, 1);
	ck_assert_int_eq(at(m, 95.9, 5, 0).is_on_lane, 0);
	vs_map_unref(m);
}
END_TEST

/* Zigzag polylines turning both ways, climbing: a point drawn on a lane
 * at position p and lateral offset y is found on that lane at p, aligned
 * with it; just past the outermost edges it is off the road. */
START_TEST(polyline_round_trip)
{
	unsigned seed = 2024 + (unsigned)_i;
	double pts[3 * 12], w[6] = {3.5, 3, 4, 3.5, 3, 4};
	double x = 0, y = 0, z = 0, h = 0.3 * _i;
	for (int k = 0; k < 12; k++) {
		pts[3 * k] = x;
		pts[3 * k + 1] = y;
		pts[3 * k + 2] = z;
		seed = seed * 1103515245u + 12345u;
		double r = ((seed >> 8) & 0xffff) / 65536.0;
		double len = 20 + 40 * r;
		h += (r - 0.5) * 2 * PI / 3; /* turns up to 60 degrees */
		x += len * cos(h);
		y += len * sin(h);
		z += (r - 0.5) * 4;
	}
	vs_map_road rd = {.id = "zz", .n_points = 12, .points = pts,
	                  .n_left = 3, .n_right = 3, .widths = w};
	vs_error err = {{0}};
	vs_map *m = vs_map_create(&rd, 1, &err);
	ck_assert_msg(m, "%s", err.msg);
	for (int i = 0; i < 6; i++) {
		double wi = vs_map_lane(m, i)->width;
		/* (not at the very ends: a point on an end line is on the
		 * lane's boundary, in or out by rounding) */
		for (int k = 1; k < 200; k++) {
			double p = k / 200.0, lat = (k % 7 - 3) / 6.1 * wi;
			double q[3], head;
			int rc = vs_map_lane_point(m, i, p, lat, q, &head);
			ck_assert_int_eq(rc, 0);
			vs_map_location l;
			vs_map_locate(m, q[0], q[1], q[2], head, &l);
			ck_assert_msg(l.is_on_lane && l.lane == i,
			              "lane %d p %g lat %g: on %d lane %d", i,
			              p, lat, l.is_on_lane, l.lane);
			ck_assert_double_eq_tol(l.position, p, 1e-9);
			ck_angle_eq(l.angle, 0, 1e-9);
		}
	}
	/* lanes 3 and -3 are the outermost, their outer edges on their right
	 * (keep right): just past them is off the road */
	for (int k = 1; k < 100; k++) {
		double q[3], head;
		vs_map_location l;
		vs_map_lane_point(m, 2, k / 100.0, -2 - 1e-6, q, &head);
		vs_map_locate(m, q[0], q[1], q[2], head, &l);
		ck_assert_int_eq(l.is_on_lane, 0);
		ck_assert_int_eq(l.lane, 2);
		vs_map_lane_point(m, 5, k / 100.0, -2 - 1e-6, q, &head);
		vs_map_locate(m, q[0], q[1], q[2], head, &l);
		ck_assert_int_eq(l.is_on_lane, 0);
		ck_assert_int_eq(l.lane, 5);
	}
	vs_map_unref(m);
}
END_TEST

START_TEST(width_list)
{
	vs_map *m = must_parse(
		"roads:\n"
		"  - id: w\n"
		"    line: [[0, 0, 0], [0, 50, 0]]\n" /* north: left is -X */
		"    lanes: {left: 2, right: 1, width: [3, 4, 5]}\n");
	const double w[3] = {3, 4, 5};
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq(vs_map_lane(m, i)->width, w[i]);
	const struct {
		double x;
		int lane;
	} c[] = {{-2.9, 1}, {-3.1, 2}, {-6.9, 2}, {4.9, -1}};
	for (int i = 0; i < 4; i++) {
		vs_map_location l = at(m, c[i].x, 10, 1);
		ck_assert_int_eq(l.is_on_lane, 1);
		ck_assert_int_eq(lane_of(m, &l), c[i].lane);
	}
	ck_assert_int_eq(at(m, -7.1, 10, 1).is_on_lane, 0);
	ck_assert_int_eq(at(m, 5.1, 10, 1).is_on_lane, 0);
	vs_map_unref(m);
}
END_TEST

/* ---- UUIDs ------------------------------------------------------------- */

START_TEST(uuids)
{
	vs_map *a = must_parse(ring), *b = must_parse(ring);
	for (int i = 0; i < 2; i++) {
		const char *u = vs_map_lane(a, i)->uuid;
		ck_assert_int_eq((int)strlen(u), VS_MAP_UUID_LEN);
		for (int k = 0; k < VS_MAP_UUID_LEN; k++) {
			char ch = u[k];
			if (k == 0)
				ck_assert_int_eq(ch, '{');
			else if (k == 37)
				ck_assert_int_eq(ch, '}');
			else if (k == 9 || k == 14 || k == 19 || k == 24)
				ck_assert_int_eq(ch, '-');
			else
				ck_assert_msg(strchr("0123456789abcdef", ch),
				              "%s", u);
		}
		ck_assert_int_eq(u[15], '5');           /* version 5 */
		ck_assert_ptr_nonnull(strchr("89ab", u[20])); /* RFC 4122 */
		ck_assert_str_eq(u, vs_map_lane(b, i)->uuid);
		ck_assert_int_eq(vs_map_find_lane(a, u), i);
	}
	ck_assert_str_ne(vs_map_lane(a, 0)->uuid, vs_map_lane(a, 1)->uuid);
	/* Python: uuid.uuid5(uuid.NAMESPACE_URL, "vsweep:ring:-1") */
	ck_assert_str_eq(vs_map_lane(a, 1)->uuid,
	                 "{32e398c8-d4fb-5b0e-98c9-d604fc79f89f}");
	ck_assert_str_eq(vs_map_lane(a, 0)->uuid,
	                 "{b7e2085a-3510-5540-ab7c-54a9ddb7ec73}");
	ck_assert_int_eq(vs_map_find_lane(a, "{nope}"), -1);
	vs_map_unref(a);
	vs_map_unref(b);

	/* an id longer than one SHA-1 block */
	char id[101];
	memset(id, 'r', 100);
	id[100] = 0;
	double w[3] = {3, 3, 3};
	vs_map_road rd = {.id = id, .is_circle = 1, .radius = 20,
	                  .n_right = 3, .widths = w};
	vs_error err = {{0}};
	vs_map *m = vs_map_create(&rd, 1, &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_str_eq(vs_map_lane(m, 2)->uuid,
	                 "{fcd1b781-424a-5fef-a1e6-2c19b0d20f34}");
	vs_map_unref(m);
}
END_TEST

/* Lanes found by a copy of their UUID (behaviours pass back copies: a map
 * location's lane is copied into the plugin's struct), on a map of 1200
 * lanes; strings that are no lane's UUID, nearly one or longer, find
 * none. */
START_TEST(find_lane_by_copy)
{
	enum { ROADS = 300 };
	vs_map_road rd[ROADS];
	char ids[ROADS][16];
	double pts[ROADS][6], w[4] = {3.5, 3.5, 3.5, 3.5};
	for (int r = 0; r < ROADS; r++) {
		snprintf(ids[r], sizeof ids[r], "road%d", r);
		const double p[6] = {0, 20.0 * r, 0, 100, 20.0 * r, 0};
		memcpy(pts[r], p, sizeof p);
		rd[r] = (vs_map_road){.id = ids[r], .n_points = 2,
		                      .points = pts[r], .n_left = 2,
		                      .n_right = 2, .widths = w};
	}
	vs_error err = {{0}};
	vs_map *m = vs_map_create(rd, ROADS, &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 4 * ROADS);
	for (int i = 0; i < 4 * ROADS; i++) {
		char u[VS_MAP_UUID_LEN + 2];
		snprintf(u, sizeof u, "%s", vs_map_lane(m, i)->uuid);
		ck_assert_int_eq(vs_map_find_lane(m, u), i);
		u[VS_MAP_UUID_LEN - 1] = 0; /* its first 37 characters */
		ck_assert_int_eq(vs_map_find_lane(m, u), -1);
		u[VS_MAP_UUID_LEN - 1] = '}';
		u[VS_MAP_UUID_LEN] = '}';  /* one character more */
		u[VS_MAP_UUID_LEN + 1] = 0;
		ck_assert_int_eq(vs_map_find_lane(m, u), -1);
		u[VS_MAP_UUID_LEN] = 0;
		u[1] = u[1] == 'f' ? '0' : 'f'; /* one hex digit changed */
		ck_assert_int_eq(vs_map_find_lane(m, u), -1);
	}
	ck_assert_int_eq(vs_map_find_lane(m, ""), -1);
	ck_assert_int_eq(vs_map_find_lane(m, NULL), -1);
	vs_map_unref(m);
}
END_TEST

/* ---- empty maps, odd input, sharing ----------------------------------- */

START_TEST(empty_and_odd)
{
	vs_map_location l;
	vs_map_locate(NULL, 1, 2, 3, 0, &l);
	ck_assert_int_eq(l.lane, -1);
	ck_assert_int_eq(l.is_on_lane, 0);
	vs_error err;
	ck_assert_ptr_null(parse_map("roads: []\n", &err));
	ck_assert_str_eq(err.msg, "");
	ck_assert_ptr_null(parse_map("{}\n", &err));
	ck_assert_str_eq(err.msg, "");
	vs_map *m = vs_map_create(NULL, 0, &err);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(vs_map_lane_count(m), 0);
	vs_map_locate(m, 0, 0, 0, 0, &l);
	ck_assert_int_eq(l.lane, -1);
	vs_map_unref(m);
	m = must_parse(straight);
	vs_map_locate(m, NAN, 0, 0, 0, &l);
	ck_assert_int_eq(l.lane, -1);
	vs_map_locate(m, 0, 0, 0, INFINITY, &l);
	ck_assert_int_eq(l.lane, -1);
	vs_map_unref(m);
	vs_map_unref(NULL);
	/* travel direction: velocity, or the heading when slow */
	ck_assert_double_eq_tol(vs_map_travel_heading(0, 2, 1), PI / 2, EPS);
	ck_assert_double_eq_tol(vs_map_travel_heading(0.01, 0.05, 0), PI / 2,
	                        EPS);
	ck_assert_double_eq_tol(vs_map_travel_heading(0, 0, PI), -PI / 2,
	                        EPS);
}
END_TEST

START_TEST(scenario_shares_map)
{
	static const char text[] =
		"vsweep: 1\nstep: 0.1\nduration: 1\n"
		"map:\n"
		"  roads:\n"
		"    - id: ring\n"
		"      circle: {center: [0, 0], radius: 57.3}\n"
		"      lanes: {left: 4, right: 4, width: 3.5}\n"
		"assets:\n  box: {length: 1, width: 1, height: 1}\n"
		"actors:\n"
		"  - {id: 1, asset: box, start: {position: [0, 0, 0]}}\n";
	vs_error err = {{0}};
	vs_scenario *s = vs_scenario_parse("s.yaml", text, strlen(text), &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(s->map), 8);
	vs_scenario *c = vs_scenario_clone(s);
	ck_assert_ptr_eq(c->map, s->map);
	vs_scenario_destroy(s); /* the clone keeps the map alive */
	vs_map_location l;
	vs_map_locate(c->map, 57.3 + 1, 0, 0, PI / 2, &l);
	ck_assert_int_eq(vs_map_lane(c->map, l.lane)->lane, -1);
	vs_scenario_destroy(c);

	static const char bad[] =
		"vsweep: 1\nstep: 0.1\nduration: 1\n"
		"map:\n"
		"  roads:\n"
		"    - id: ring\n"
		"      circle: {center: [0, 0], radius: 0}\n";
	memset(&err, 0, sizeof err);
	ck_assert_ptr_null(vs_scenario_parse("s.yaml", bad, strlen(bad), &err));
	ck_assert_str_eq(err.msg, "s.yaml:7:40: road 'ring': circle: radius "
	                          "must be > 0, got 0");
	static const char none[] =
		"vsweep: 1\nstep: 0.1\nduration: 1\nmap:\n"
		"assets:\n  box: {length: 1, width: 1, height: 1}\n"
		"actors:\n"
		"  - {id: 1, asset: box, start: {position: [0, 0, 0]}}\n";
	memset(&err, 0, sizeof err);
	s = vs_scenario_parse("s.yaml", none, strlen(none), &err);
	ck_assert_msg(s, "%s", err.msg);
	ck_assert_ptr_null(s->map);
	c = vs_scenario_clone(s);
	ck_assert_ptr_null(c->map);
	vs_scenario_destroy(c);
	vs_scenario_destroy(s);
}
END_TEST

/* Two shortcuts past hypot() that must give hypot's answers, bit for
 * bit: a ring's farthest footprint corner from its centre (the squares
 * pick the candidates), and whether an actor moves fast enough for its
 * travel heading (the squares decide away from the threshold). Random
 * rectangles, ones with all corners at one distance, speeds within a
 * few ulps of the threshold, zeros, NaN and infinities. */
START_TEST(hypot_shortcuts_exact)
{
	vs_map *m = must_parse(ring);
	uint32_t id = 0;
	while (!map_is_ring(m, id))
		id++;
	uint64_t u = 88172645463325252ull; /* xorshift64 */
	for (int k = 0; k < 20000; k++) {
		double v[5];
		for (int i = 0; i < 5; i++) {
			u ^= u << 13;
			u ^= u >> 7;
			u ^= u << 17;
			v[i] = (double)(u >> 11) / 9007199254740992.0;
		}
		/* every 4th centred on the ring's centre, square to it */
		int sym = k % 4 == 0;
		double x = sym ? 10 : 10 + 160 * (v[0] - 0.5);
		double y = sym ? -5 : -5 + 160 * (v[1] - 0.5);
		double hw = 5 * v[2], hl = sym ? hw : 5 * v[3];
		double yaw = sym ? PI / 2 * (k % 8 == 0) : 2 * PI * v[4];
		map_rect r;
		map_rect_make(x, y, hw, hl, yaw, &r);
		map_ring_span span = {UINT32_MAX, 0, 0, 0};
		double d;
		map_piece_straddled(m, id, 0, &r, x, y, &span, &d);
		double want = 0;
		for (int i = 0; i < 4; i++)
			want = fmax(want, hypot(r.p[i][0] - 10, r.p[i][1] + 5));
		ck_assert_msg(memcmp(&want, &span.far, sizeof want) == 0,
		              "far %.17g, hypot %.17g", span.far, want);
	}
	vs_map_unref(m);
	const double t = VS_MAP_SLOW_SPEED;
	double speeds[64];
	int n = 0;
	/* the threshold and 1 to 8 ulps either side: at 1 ulp below, one
	 * direction in 11 has a square that rounds across the threshold's */
	double lo = t, hi = t;
	speeds[n++] = t;
	for (int e = 1; e <= 8; e++) {
		lo = nextafter(lo, 0);
		hi = nextafter(hi, 1);
		speeds[n++] = lo;
		speeds[n++] = hi;
	}
	const double odd[] = {0, -0.0, 4.9e-324, 1e-200, 1e200, INFINITY,
	                      NAN};
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
		speeds[n++] = odd[i];
	for (int i = 0; i < n; i++)
		for (double a = 0; a < 6.283; a += 0.00628) {
			double vx = speeds[i] * cos(a), vy = speeds[i] * sin(a);
			double got = vs_map_travel_heading(vx, vy, 0.3);
			double want = hypot(vx, vy) >= t
			                      ? atan2(vy, vx)
			                      : map_wrap(0.3 + PI / 2);
			ck_assert_msg(memcmp(&got, &want, sizeof got) == 0 ||
			                  (isnan(got) && isnan(want)),
			              "v (%g, %g): %.17g, want %.17g", vx, vy,
			              got, want);
		}
}
END_TEST

/* vs_fmin and vs_fmax give what libm's fmin and fmax give, bit for bit,
 * for every pair of special values: zeros of both signs, infinities,
 * subnormals, NaN. */
START_TEST(min_max_as_libm)
{
	double (*volatile lmin)(double, double) = fmin;
	double (*volatile lmax)(double, double) = fmax;
	const double v[] = {0.0, -0.0, 1.0, -1.0, 4.9e-324, -4.9e-324,
	                    1e300, INFINITY, -INFINITY, NAN, -NAN};
	const int n = (int)(sizeof v / sizeof v[0]);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double a = v[i], b = v[j];
			double got[2] = {vs_fmin(a, b), vs_fmax(a, b)};
			double want[2] = {lmin(a, b), lmax(a, b)};
			for (int k = 0; k < 2; k++)
				ck_assert_msg(isnan(got[k]) ? isnan(want[k])
				              : memcmp(&got[k], &want[k],
				                       sizeof got[k]) == 0,
				              "%s(%g, %g): %g, libm %g",
				              k ? "max" : "min", a, b, got[k],
				              want[k]);
		}
}
END_TEST

static Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("geometry");
	tcase_add_test(tc, straight_layout);
	tcase_add_loop_test(tc, straight_boundaries, 0,
	                    sizeof straight_probes / sizeof straight_probes[0]);
	tcase_add_test(tc, straight_position_angle);
	tcase_add_test(tc, most_aligned);
	tcase_add_test(tc, nearest_off_road);
	tcase_add_test(tc, circle_layout);
	tcase_add_test(tc, circle_position_angle);
	tcase_add_test(tc, lane_points);
	tcase_add_test(tc, polyline_mitre);
	tcase_add_loop_test(tc, polyline_round_trip, 0, 8);
	tcase_add_test(tc, width_list);
	tcase_add_test(tc, uuids);
	tcase_add_test(tc, find_lane_by_copy);
	tcase_add_test(tc, empty_and_odd);
	tcase_add_test(tc, scenario_shares_map);
	tcase_add_test(tc, min_max_as_libm);
	tcase_add_test(tc, hypot_shortcuts_exact);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, bad_map_tcase());
	suite_add_tcase(s, index_tcase());
	suite_add_tcase(s, straddle_tcase());
	suite_add_tcase(s, odr_geom_tcase());
	suite_add_tcase(s, odr_locate_tcase());
	suite_add_tcase(s, odr_bad_tcase());
	suite_add_tcase(s, odr_lanes_tcase());
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(map_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
