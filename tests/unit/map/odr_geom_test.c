/* OpenDRIVE reference lines, lane boundaries, elevation and superelevation
 * of the test roads (tests/data/xodr, written by gen.py) against closed
 * forms: a line, a circle, the clothoid's Fresnel power series, the
 * paramPoly3 and poly3 polynomials (poly3 arc length by Simpson's rule
 * here), width and laneOffset cubics; to 1 mm and 1e-4 rad, and
 * continuous across geometry joints and lane-section boundaries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/odr.h"
#include "test_map.h"

#define MM 1e-3
#define RAD 1e-4

static odr_net *odr_test_net(const char *name)
{
	char path[1024];
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/tests/data/xodr/%s", root ? root : ".",
	         name);
	vs_error err = {{0}};
	odr_net *net = odr_read(path, &err);
	ck_assert_msg(net, "%s", err.msg);
	return net;
}

static const odr_road *odr_test_road(const odr_net *net, const char *id)
{
	for (int i = 0; i < net->n_roads; i++)
		if (strcmp(net->roads[i].id, id) == 0)
			return &net->roads[i];
	ck_abort_msg("no road %s", id);
	return NULL;
}

static void ref_is(const odr_road *r, double s, double x, double y, double h)
{
	double rx, ry, rh;
	odr_ref(r, s, &rx, &ry, &rh, NULL);
	ck_assert_msg(hypot(rx - x, ry - y) <= MM,
	              "road %s s=%g: (%.6f, %.6f) != (%.6f, %.6f)", r->id, s,
	              rx, ry, x, y);
	ck_angle_eq(rh, h, RAD);
}

/* The lateral offset of lane id's outer edge at s. */
static double edge(const odr_road *r, int lane_id, double s)
{
	int sec = odr_section_at(r, s);
	const odr_section *q = &r->sec[sec];
	for (int k = 0; k < q->n_lanes; k++)
		if (q->lanes[k].id == lane_id) {
			double dt;
			return odr_boundary(r, sec, k, s, &dt);
		}
	ck_abort_msg("no lane %d at s=%g", lane_id, s);
	return 0;
}

START_TEST(odr_line_and_arc)
{
	odr_net *net = odr_test_net("straight.xodr");
	const odr_road *r = odr_test_road(net, "1");
	for (double s = 0; s <= 100; s += 12.5)
		ref_is(r, s, s, 0, 0);
	ck_assert_double_eq_tol(edge(r, 1, 40), 3.5, MM);
	ck_assert_double_eq_tol(edge(r, -1, 40), -3.5, MM);
	ck_assert_double_eq_tol(edge(r, -2, 40), -4.0, MM);
	odr_free(net);

	net = odr_test_net("arc.xodr");
	r = odr_test_road(net, "arc");
	const double R = 50;
	for (double s = 0; s <= R * PI / 2; s += 7.3) {
		double k;
		ref_is(r, s, R * sin(s / R), R * (1 - cos(s / R)), s / R);
		double x, y, h;
		odr_ref(r, s, &x, &y, &h, &k);
		ck_assert_double_eq_tol(k, 1 / R, 1e-12);
	}
	ck_assert_double_eq_tol(edge(r, -2, 30), -6, MM);
	odr_free(net);
}
END_TEST

/* The clothoid from curvature 0 at rate c: x = ∫ cos(c t²/2), y = ∫ sin,
 * by their power series (enough terms for |c| L² / 2 <= 1). */
static void fresnel(double c, double L, double *x, double *y)
{
	double sx = 0, sy = 0;
	for (int n = 0; n < 30; n++) {
		double f2n = 1; /* (2n)!, then (2n+1)! */
		for (int i = 2; i <= 2 * n; i++)
			f2n *= i;
		double f2n1 = f2n * (2 * n + 1);
		double sign = n % 2 ? -1 : 1;
		sx += sign * pow(c / 2, 2 * n) * pow(L, 4 * n + 1) /
		      (f2n * (4 * n + 1));
		sy += sign * pow(c / 2, 2 * n + 1) * pow(L, 4 * n + 3) /
		      (f2n1 * (4 * n + 3));
	}
	*x = sx;
	*y = sy;
}

START_TEST(odr_clothoid)
{
	odr_net *net = odr_test_net("clothoid.xodr");
	const odr_road *r = odr_test_road(net, "c");
	const double c = 0.02 / 40; /* curvature rate, 1/m² */
	for (double s = 0; s <= 20; s += 5)
		ref_is(r, s, s, 0, 0);
	for (double d = 0; d <= 40; d += 2.5) {
		double x, y;
		fresnel(c, d, &x, &y);
		ref_is(r, 20 + d, 20 + x, y, c * d * d / 2);
	}
	double ex, ey;
	fresnel(c, 40, &ex, &ey);
	ex += 20;
	for (double d = 0; d <= 30; d += 3) {
		/* the arc of curvature 0.02 from the spiral's end at heading
		 * 0.4 */
		double h0 = 0.4, k = 0.02;
		double x = ex + (sin(h0 + k * d) - sin(h0)) / k;
		double y = ey - (cos(h0 + k * d) - cos(h0)) / k;
		ref_is(r, 60 + d, x, y, h0 + k * d);
	}
	/* continuity at the joints, and the curvature there */
	for (int j = 0; j < 2; j++) {
		double s = j ? 60 : 20, x0, y0, h0, k0, x1, y1, h1, k1;
		odr_ref(r, s - 1e-7, &x0, &y0, &h0, &k0);
		odr_ref(r, s, &x1, &y1, &h1, &k1);
		ck_assert(hypot(x1 - x0, y1 - y0) < MM);
		ck_angle_eq(h1, h0, RAD);
		ck_assert_double_eq_tol(k1, k0, 1e-6);
	}
	odr_free(net);
}
END_TEST

/* poly3 arc length to u by Simpson's rule. */
static double poly3_len(double u)
{
	const int n = 2000;
	double h = u / n, sum = 0;
	for (int i = 0; i <= n; i++) {
		double x = i * h, d = 0.006 * x - 0.00006 * x * x;
		double f = sqrt(1 + d * d);
		sum += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * f;
	}
	return sum * h / 3;
}

START_TEST(odr_param_poly3)
{
	odr_net *net = odr_test_net("parampoly.xodr");
	const odr_road *r = odr_test_road(net, "pn");
	for (int i = 0; i <= 10; i++) {
		double p = i / 10.0;
		ref_is(r, p * r->length, 100 * p, 30 * p * p - 20 * p * p * p,
		       atan2(60 * p - 60 * p * p, 100));
	}
	/* the same curve from (0, 50), p = s in [0, length] */
	r = odr_test_road(net, "pa");
	for (int i = 0; i <= 10; i++) {
		double p = i / 10.0;
		ref_is(r, p * r->length, 100 * p,
		       50 + 30 * p * p - 20 * p * p * p,
		       atan2(60 * p - 60 * p * p, 100));
	}
	r = odr_test_road(net, "p3");
	for (double u = 0; u <= 100; u += 12.5)
		ref_is(r, poly3_len(u), u,
		       100 + 0.003 * u * u - 0.00002 * u * u * u,
		       atan(0.006 * u - 0.00006 * u * u));
	odr_free(net);
}
END_TEST

START_TEST(odr_widths_and_offset)
{
	odr_net *net = odr_test_net("widening.xodr");
	const odr_road *r = odr_test_road(net, "w");
	for (double s = 0; s <= 100; s += 6.25) {
		double w1 = s < 50 ? 3 : 3 + 0.02 * (s - 50);
		double wm1 = 3 + 0.01 * s;
		double wm2 = 0.0012 * s * s - 0.000008 * s * s * s;
		ck_assert_double_eq_tol(edge(r, 1, s), 0.5 + w1, MM);
		ck_assert_double_eq_tol(edge(r, -1, s), 0.5 - wm1, MM);
		ck_assert_double_eq_tol(edge(r, -2, s), 0.5 - wm1 - wm2, MM);
	}
	/* continuous where lane 1's second width record starts */
	ck_assert_double_eq_tol(edge(r, 1, 50 - 1e-7), edge(r, 1, 50), MM);
	odr_free(net);

	net = odr_test_net("sections.xodr");
	r = odr_test_road(net, "s2");
	ck_assert_int_eq(odr_section_at(r, 59.999), 0);
	ck_assert_int_eq(odr_section_at(r, 60), 1);
	ck_assert_double_eq_tol(edge(r, -1, 59.999), -3.5, MM);
	ck_assert_double_eq_tol(edge(r, -1, 60), -3.5, MM);
	ck_assert_double_eq_tol(edge(r, -2, 30), -7, MM);
	ck_assert_double_eq_tol(edge(r, 1, 80), 3.5, MM);
	ck_assert_int_eq(r->sec[0].lanes[0].has_succ, 1);
	ck_assert_int_eq(r->sec[1].lanes[1].has_pred, 1);
	odr_free(net);
}
END_TEST

/* The hill's elevation z(s) and its slope. */
static double hill_z(double s, double *dz)
{
	if (s < 100) {
		*dz = 0.003 * s - 0.00003 * s * s;
		return 0.0015 * s * s - 0.00001 * s * s * s;
	}
	double d = s - 100;
	*dz = -0.003 * d + 0.00003 * d * d;
	return 5 - 0.0015 * d * d + 0.00001 * d * d * d;
}

START_TEST(odr_surface_closed_form)
{
	vs_error err = {{0}};
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/xodr/hill.xodr",
	         getenv("VSWEEP_SOURCE_ROOT") ? getenv("VSWEEP_SOURCE_ROOT")
	                                      : ".");
	vs_map *m = vs_map_load_opendrive(path, &err);
	ck_assert_msg(m, "%s", err.msg);
	/* along the hill facing +X (RoadRunner yaw -pi/2): the slope ahead
	 * lifts the nose (Rx, the pitch field), nothing across (Ry, roll) */
	for (double s = 5; s < 200; s += 15) {
		double z, pitch, roll, dz;
		double want = hill_z(s, &dz);
		ck_assert_int_eq(vs_map_surface(m, s, -1.75, -PI / 2, &z, &pitch,
		                                &roll), 1);
		ck_assert_double_eq_tol(z, want, MM);
		ck_assert_double_eq_tol(pitch, atan(dz), RAD);
		ck_assert_double_eq_tol(roll, 0, RAD);
		/* facing -X: nose down */
		vs_map_surface(m, s, 1.75, PI / 2, &z, &pitch, &roll);
		ck_assert_double_eq_tol(pitch, -atan(dz), RAD);
	}
	/* the banked curve: centre (0, 400), radius 100, falls to the right
	 * (outside) by 0.05 rad, 2 m up; on lane -1 facing along the road
	 * the right side is down: Ry (roll) turns the right axis down by
	 * 0.05 */
	for (double phi = 0.1; phi < 1; phi += 0.2) {
		double t = -1.75, z, pitch, roll;
		double x = 100 * sin(phi) - t * sin(phi);
		double y = 400 - 100 * cos(phi) + t * cos(phi);
		ck_assert_int_eq(vs_map_surface(m, x, y, phi - PI / 2, &z,
		                                &pitch, &roll), 1);
		ck_assert_double_eq_tol(z, 2 + t * tan(0.05), MM);
		ck_assert_double_eq_tol(roll, 0.05, RAD);
		ck_assert_double_eq_tol(pitch, 0, RAD);
	}
	/* off every road: flat ground at 0 */
	double z = 1, pitch = 1, roll = 1;
	ck_assert_int_eq(vs_map_surface(m, 50, 100, 0, &z, &pitch, &roll), 0);
	ck_assert(z == 0 && pitch == 0 && roll == 0);
	vs_map_unref(m);
}
END_TEST

TCase *odr_geom_tcase(void)
{
	TCase *tc = tcase_create("opendrive geometry");
	tcase_add_test(tc, odr_line_and_arc);
	tcase_add_test(tc, odr_clothoid);
	tcase_add_test(tc, odr_param_poly3);
	tcase_add_test(tc, odr_widths_and_offset);
	tcase_add_test(tc, odr_surface_closed_form);
	return tc;
}
