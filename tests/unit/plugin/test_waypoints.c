/* waypoints, the real built plugin, alone (speed rules) and closed loop
 * with the real kinematic_bicycle (path following). Expected values are
 * the route itself: the speed rules of varyActorProperties and the exact
 * geometry of the path the waypoints describe. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fake_host.h"

/* ---- speed rules, behaviour alone ------------------------------------ */

/* Waypoints every 100 m along +X. speeds[] as given, expected[] the speed
 * at each waypoint after the P-against-M rules. */
static const struct {
	const char *rule;
	size_t m, p;
	double speeds[6];
	double expected[6];
} speed_cases[] = {
	{"P = M", 3, 3, {5, 10, 15}, {5, 10, 15}},
	{"P < M: last repeats", 4, 2, {5, 10}, {5, 10, 10, 10}},
	{"P > M: extras ignored", 3, 5, {5, 10, 15, 20, 25}, {5, 10, 15}},
	{"scalar", 4, 1, {7}, {7, 7, 7, 7}},
	{"slow scalar", 2, 1, {0.2}, {0.2, 0.2}}, /* below creep speed */
};

/* The speed the behaviour commands with the actor's origin at (x, 0)
 * facing +X: a fresh instance started there, one step. */
static double speed_at(const vs_plugin *d, vs_actor_info a, double x)
{
	vs_state s;
	memset(&s, 0, sizeof s);
	s.x = x;
	s.yaw = -PI / 2; /* faces +X */
	s.speed = 1.0;
	a.start = s;
	void *b = create_ok(d, &a, NULL);
	ck_assert_int_eq(d->reset(b, &s), VS_OK);
	vs_control c = {.speed = -1, .steering_wheel = -1,
	                .accel = NAN};
	ck_assert_int_eq(d->behaviour_step(b, 0.01, 0.01, &s, &c), VS_OK);
	/* straight path, actor on it: no steering */
	ck_assert_double_eq_tol(c.steering_wheel, 0.0, 1e-12);
	d->destroy(b);
	return c.speed;
}

START_TEST(speed_rules)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/waypoints.so", &lp);
	size_t m = speed_cases[_i].m;
	double wp[6 * 3] = {0};
	for (size_t i = 0; i < m; i++)
		wp[3 * i] = 100.0 * (double)i;
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = m;
	a.speed = speed_cases[_i].speeds;
	a.n_speed = speed_cases[_i].p;
	const double *e = speed_cases[_i].expected;
	for (size_t i = 0; i + 1 < m; i++) {
		double x = 100.0 * (double)i;
		ck_assert_msg(fabs(speed_at(lp.desc, a, x) - e[i]) < 1e-12,
		              "%s: at waypoint %zu", speed_cases[_i].rule, i);
		/* linear in arc length: the mean half-way and 1/4 along */
		ck_assert_msg(fabs(speed_at(lp.desc, a, x + 50.0) -
		                   0.5 * (e[i] + e[i + 1])) < 1e-12,
		              "%s: half-way after %zu", speed_cases[_i].rule, i);
		ck_assert_msg(fabs(speed_at(lp.desc, a, x + 25.0) -
		                   (0.75 * e[i] + 0.25 * e[i + 1])) < 1e-12,
		              "%s: 1/4 after %zu", speed_cases[_i].rule, i);
	}
	/* at the last waypoint: stopped */
	ck_assert_double_eq(speed_at(lp.desc, a, 100.0 * (double)(m - 1)), 0.0);
	vs_plugin_close(&lp);
}
END_TEST

/* Input the behaviour refuses, and what it logs. */
START_TEST(bad_routes)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/waypoints.so", &lp);
	const vs_plugin *d = lp.desc;
	static const double wp[] = {0, 0, 0, 10, 0, 0};
	static const double neg[] = {5, -1};
	static const double yaw1[] = {0};
	struct {
		vs_actor_info a;
		const char *says;
	} cases[5];
	for (int i = 0; i < 5; i++) {
		cases[i].a = sedan_info();
		cases[i].a.waypoints = wp;
		cases[i].a.n_waypoints = 2;
	}
	cases[0].a.n_waypoints = 1;
	cases[0].says = "needs at least 2";
	cases[1].a.n_speed = 0;
	cases[1].says = "no speed";
	cases[2].a.speed = neg;
	cases[2].a.n_speed = 2;
	cases[2].says = "speed -1 at waypoint 2";
	cases[3].a.yaw = yaw1;
	cases[3].a.n_yaw = 1;
	cases[3].says = "1 yaw values for 2 waypoints";
	cases[4].a.wheelbase = 0;
	cases[4].says = "needs a vehicle";
	for (int i = 0; i < 5; i++) {
		vs_create_args args = {sizeof args, &cases[i].a, NULL, NULL,
		                       &fake_host, NULL, NULL};
		void *b = NULL;
		fake_log_clear();
		ck_assert_int_eq(d->create(&args, &b), VS_ERROR);
		ck_assert_ptr_null(b);
		ck_assert_int_eq(fake_log_errors(), 1);
		ck_assert_msg(strstr(fake_log_text(), cases[i].says),
		              "case %d: want \"%s\" in %s", i, cases[i].says,
		              fake_log_text());
	}
	d->destroy(NULL);
	vs_plugin_close(&lp);
}
END_TEST

/* ---- closed loop with kinematic_bicycle ------------------------------ */

typedef struct run {
	vs_loaded_plugin bl, ml;
	void *b, *m;
	vs_state s;
	double dt;
	int k;
} run;

/* Starts the actor at start (origin, yaw, speed) on the route in a. */
static void run_start(run *r, vs_actor_info *a, double x, double y,
                      double yaw)
{
	memset(r, 0, sizeof *r);
	open_built("plugins/waypoints.so", &r->bl);
	open_built("plugins/kinematic_bicycle.so", &r->ml);
	double mp[4];
	default_params(r->ml.desc, mp, 4);
	r->s.x = x;
	r->s.y = y;
	r->s.yaw = yaw;
	r->s.speed = a->speed[0];
	a->start = r->s;
	r->b = create_ok(r->bl.desc, a, NULL);
	r->m = create_ok(r->ml.desc, a, mp);
	r->dt = a->step;
	ck_assert_int_eq(r->ml.desc->reset(r->m, &r->s), VS_OK);
	ck_assert_int_eq(r->bl.desc->reset(r->b, &r->s), VS_OK);
}

/* One step as the host does it: behaviour on step k-1, then the model. */
static void run_step(run *r)
{
	r->k++;
	double t = r->k * r->dt;
	vs_state prev = r->s;
	vs_control c = {.speed = 0, .steering_wheel = 0,
	                .accel = NAN}; /* accel: none, as the host sets it */
	ck_assert_int_eq(r->bl.desc->behaviour_step(r->b, t, r->dt, &prev, &c),
	                 VS_OK);
	ck_assert_int_eq(r->ml.desc->vehicle_step(r->m, t, r->dt, &c, &r->s),
	                 VS_OK);
}

static void run_end(run *r)
{
	r->bl.desc->destroy(r->b);
	r->ml.desc->destroy(r->m);
	vs_plugin_close(&r->bl);
	vs_plugin_close(&r->ml);
}

/* Distance from p to the segment a-b. */
static double seg_dist(double px, double py, double ax, double ay, double bx,
                       double by)
{
	double dx = bx - ax, dy = by - ay;
	double u = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy);
	u = u < 0 ? 0 : (u > 1 ? 1 : u);
	return hypot(ax + u * dx - px, ay + u * dy - py);
}

/* Starting 1 m off a straight route and 5 deg askew, the actor settles
 * onto it (pure pursuit's error decays about as exp(-s / Ld)), then stops
 * at its end. */
START_TEST(straight_settles)
{
	static const double wp[] = {0, 0, 0, 200, 0, 0};
	vs_actor_info a = sedan_info(); /* 10 m/s */
	a.waypoints = wp;
	a.n_waypoints = 2;
	run r;
	run_start(&r, &a, 0.0, 1.0, -PI / 2 + 5 * DEG);
	double worst_after = 0, worst = 0;
	while (r.k < 3000) {
		run_step(&r);
		worst = fmax(worst, fabs(r.s.y));
		if (r.s.x > 60.0)
			worst_after = fmax(worst_after, fabs(r.s.y));
	}
	ck_assert_msg(worst < 1.5, "overshoot to %g m", worst);
	ck_assert_msg(worst_after < 0.05, "lateral error %g m after 60 m",
	              worst_after);
	ck_assert_double_eq(r.s.speed, 0.0);
	ck_assert_double_eq_tol(r.s.x, 200.0, 0.1 + 1e-9);
	run_end(&r);
}
END_TEST

/* The design's route: (0,0) -> (50,0) -> (100,10), speed [10, 15], so
 * 10 -> 15 m/s on the first leg and 15 m/s on (P < M: the last repeats).
 * The actor stops at the last waypoint, never more than one step's travel
 * (15 m/s * 0.01 s) past it. */
START_TEST(stops_at_last_waypoint)
{
	static const double wp[] = {0, 0, 0, 50, 0, 0, 100, 10, 0};
	static const double sp[] = {10, 15};
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 3;
	a.speed = sp;
	a.n_speed = 2;
	run r;
	run_start(&r, &a, 0.0, 0.0, -PI / 2); /* first waypoint, facing +X */
	const double ux = 50 / hypot(50, 10), uy = 10 / hypot(50, 10);
	const double step_travel = 15.0 * 0.01;
	double worst_past = -INFINITY;
	int stopped_at = -1;
	while (r.k < 2000) {
		run_step(&r);
		/* signed distance past the last waypoint along the last leg */
		double past = (r.s.x - 100) * ux + (r.s.y - 10) * uy;
		worst_past = fmax(worst_past, past);
		if (stopped_at < 0 && r.s.speed == 0.0)
			stopped_at = r.k;
	}
	ck_assert_msg(worst_past <= step_travel, "went %g m past the end",
	              worst_past);
	ck_assert_msg(hypot(r.s.x - 100, r.s.y - 10) < step_travel,
	              "stopped at (%g, %g)", r.s.x, r.s.y);
	ck_assert_double_eq(r.s.speed, 0.0);
	/* 50 m from 10 to 15 m/s linear in distance, ds/dt = v0 + (v1 - v0)
	 * s / L, takes L / (v1 - v0) ln(v1 / v0); then 51 m at 15 m/s. */
	double t_exp = 50.0 / 5.0 * log(1.5) + hypot(50, 10) / 15.0;
	ck_assert_msg(fabs(stopped_at * 0.01 - t_exp) < 0.1,
	              "stopped at t = %g s, expected %g s", stopped_at * 0.01,
	              t_exp);
	run_end(&r);
}
END_TEST

/* Distance to the corner route: +X along y = 0 to (50, 0), a quarter
 * circle of radius 30 about (50, 30) to (80, 30), then +Y along x = 80. */
static double corner_dist(double x, double y)
{
	double d = fmin(seg_dist(x, y, 0, 0, 50, 0), seg_dist(x, y, 80, 30, 80, 80));
	double ang = atan2(y - 30, x - 50);
	if (ang >= -PI / 2 && ang <= 0)
		d = fmin(d, fabs(hypot(x - 50, y - 30) - 30));
	return d;
}

START_TEST(corner_arc)
{
	/* waypoints on the true route: the arc every 3 deg */
	double wp[40 * 3] = {0};
	size_t m = 0;
	wp[3 * m] = 0, wp[3 * m + 1] = 0, m++;
	for (int k = 0; k <= 30; k++) {
		double ang = -PI / 2 + k * 3 * DEG;
		wp[3 * m] = 50 + 30 * cos(ang);
		wp[3 * m + 1] = 30 + 30 * sin(ang);
		m++;
	}
	wp[3 * m] = 80, wp[3 * m + 1] = 80, m++;
	vs_actor_info a = sedan_info(); /* 10 m/s: 3.3 m/s^2 on the arc */
	a.waypoints = wp;
	a.n_waypoints = m;
	run r;
	run_start(&r, &a, 0.0, 0.0, -PI / 2);
	double worst = 0;
	while (r.k < 2000) {
		run_step(&r);
		worst = fmax(worst, corner_dist(r.s.x, r.s.y));
	}
	ck_assert_msg(worst < 0.5, "%g m off the corner route", worst);
	ck_assert_msg(hypot(r.s.x - 80, r.s.y - 80) < 0.1, "ended at %g %g",
	              r.s.x, r.s.y);
	run_end(&r);
}
END_TEST

/* The same corner from four waypoints with yaw: the path is the cubic
 * Hermite curve with tangents along the headings, magnitude = chord,
 * evaluated here independently of the plugin's sampling. */
static double hermite_dist(double x, double y)
{
	const double p0[2] = {50, 0}, p1[2] = {80, 30};
	const double c = hypot(30, 30);
	const double m0[2] = {c, 0}, m1[2] = {0, c};
	double d = fmin(seg_dist(x, y, 0, 0, 50, 0), seg_dist(x, y, 80, 30, 80, 80));
	double qx = p0[0], qy = p0[1];
	for (int k = 1; k <= 4000; k++) {
		double u = k / 4000.0, u2 = u * u, u3 = u2 * u;
		double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
		double h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
		double px = h00 * p0[0] + h10 * m0[0] + h01 * p1[0] + h11 * m1[0];
		double py = h00 * p0[1] + h10 * m0[1] + h01 * p1[1] + h11 * m1[1];
		d = fmin(d, seg_dist(x, y, qx, qy, px, py));
		qx = px;
		qy = py;
	}
	return d;
}

START_TEST(corner_hermite)
{
	static const double wp[] = {0, 0, 0, 50, 0, 0, 80, 30, 0, 80, 80, 0};
	/* RoadRunner yaw: heading +X is yaw -pi/2, heading +Y is yaw 0 */
	static const double yaw[] = {-PI / 2, -PI / 2, 0, 0};
	static const double sp[] = {8};
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 4;
	a.yaw = yaw;
	a.n_yaw = 4;
	a.speed = sp;
	run r;
	run_start(&r, &a, 0.0, 0.0, -PI / 2);
	double worst = 0;
	while (r.k < 2500) {
		run_step(&r);
		if (r.k % 5 == 0)
			worst = fmax(worst, hermite_dist(r.s.x, r.s.y));
	}
	ck_assert_msg(worst < 0.5, "%g m off the Hermite route", worst);
	ck_assert_msg(hypot(r.s.x - 80, r.s.y - 80) < 0.1, "ended at %g %g",
	              r.s.x, r.s.y);
	run_end(&r);
}
END_TEST

/* With yaw given, the actor passes waypoint i with heading yaw[i] within
 * 0.02 rad (docs/sweep.md): the heading at the step where its
 * origin is nearest each waypoint, on routes whose curvature a sedan
 * reaches (a corner, an S, a lane change with diagonal yaws). */
START_TEST(headings_at_waypoints)
{
	static const double wp[3][12] = {
		{0, 0, 0, 50, 0, 0, 80, 30, 0, 80, 80, 0},
		{0, 0, 0, 40, 20, 0, 80, 0, 0, 120, 20, 0},
		{0, 0, 0, 40, 0, 0, 60, 4, 0, 100, 4, 0}};
	static const double yaw[3][4] = {
		{-PI / 2, -PI / 2, 0, 0},
		{-PI / 2, -PI / 4, -PI * 3 / 4, -PI / 2},
		{-PI / 2, -PI / 2 + 0.2, -PI / 2, -PI / 2}};
	static const double sp[] = {8};
	vs_actor_info a = sedan_info();
	a.waypoints = wp[_i];
	a.n_waypoints = 4;
	a.yaw = yaw[_i];
	a.n_yaw = 4;
	a.speed = sp;
	run r;
	run_start(&r, &a, wp[_i][0], wp[_i][1], yaw[_i][0]);
	double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
	double head[4] = {yaw[_i][0], 0, 0, 0};
	best[0] = 0;
	while (r.k < 3000) {
		run_step(&r);
		for (int i = 1; i < 4; i++) {
			double d = hypot(r.s.x - wp[_i][3 * i],
			                 r.s.y - wp[_i][3 * i + 1]);
			if (d < best[i] && r.s.speed > 0.5) {
				best[i] = d;
				head[i] = r.s.yaw;
			}
		}
	}
	for (int i = 0; i < 3; i++) {
		double e = remainder(head[i] - yaw[_i][i], 2 * PI);
		printf("route %d waypoint %d: heading off by %.4f rad, passed "
		       "%.4f m away\n", _i, i + 1, e, best[i]);
		ck_assert_msg(fabs(e) < 0.02 && best[i] < 0.2,
		              "route %d waypoint %d: heading off by %g rad, "
		              "passed %g m away", _i, i + 1, e, best[i]);
	}
	run_end(&r);
}
END_TEST

/* A route whose yaws ask for a bend tighter than the vehicle turns (a
 * sedan of wheelbase 3 m at 45 deg: radius 3 m) fails at create, naming
 * the waypoint: a 2 m jog sideways in 2 m with both ends heading +X. */
START_TEST(unreachable_yaw_fails)
{
	static const double wp[] = {0, 0, 0, 40, 0, 0, 42, 2, 0};
	static const double yaw[] = {-PI / 2, -PI / 2, -PI / 2};
	vs_loaded_plugin lp = {0};
	open_built("plugins/waypoints.so", &lp);
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 3;
	a.yaw = yaw;
	a.n_yaw = 3;
	vs_create_args args = {sizeof args, &a, NULL, NULL, &fake_host, NULL,
	                       NULL};
	void *b = NULL;
	fake_log_clear();
	ck_assert_int_eq(lp.desc->create(&args, &b), VS_ERROR);
	ck_assert_ptr_null(b);
	ck_assert_msg(strstr(fake_log_text(), "waypoint 3 cannot be met"), "%s",
	              fake_log_text());
	/* the same jog over 40 m is within reach */
	static const double wp2[] = {0, 0, 0, 40, 0, 0, 80, 2, 0};
	a.waypoints = wp2;
	b = create_ok(lp.desc, &a, NULL);
	lp.desc->destroy(b);
	vs_plugin_close(&lp);
}
END_TEST

/* A closed route (last waypoint = first): progress only moves forward, so
 * the actor goes round once and stops where it started instead of
 * "arriving" at once. */
START_TEST(closed_loop)
{
	double wp[37 * 3] = {0};
	for (int k = 0; k <= 36; k++) {
		double ang = -PI / 2 + k * 10 * DEG; /* counter-clockwise */
		wp[3 * k] = 30 * cos(ang);
		wp[3 * k + 1] = 30 + 30 * sin(ang);
	}
	wp[3 * 36] = wp[0];
	wp[3 * 36 + 1] = wp[1];
	static const double sp[] = {8};
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 37;
	a.speed = sp;
	run r;
	run_start(&r, &a, 0.0, 0.0, -PI / 2);
	double travelled = 0, worst = 0;
	while (r.k < 4000) {
		double x = r.s.x, y = r.s.y;
		run_step(&r);
		travelled += hypot(r.s.x - x, r.s.y - y);
		worst = fmax(worst, fabs(hypot(r.s.x, r.s.y - 30) - 30));
	}
	/* the 36-gon's perimeter: 36 chords of 2 * 30 * sin(5 deg) */
	double perimeter = 36 * 60 * sin(5 * DEG);
	ck_assert_double_eq_tol(travelled, perimeter, 1.0);
	ck_assert_msg(worst < 0.5, "%g m off the circle", worst);
	ck_assert_msg(hypot(r.s.x, r.s.y) < 0.1, "ended at %g %g", r.s.x,
	              r.s.y);
	run_end(&r);
}
END_TEST

/* A route that starts at 0 m/s still moves (a speed linear in distance
 * from 0 would hold the actor at the start for ever): it creeps off, then
 * follows the profile, and reaches the end. */
START_TEST(starts_from_rest)
{
	static const double wp[] = {0, 0, 0, 100, 0, 0};
	static const double sp[] = {0, 10};
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 2;
	a.speed = sp;
	a.n_speed = 2;
	run r;
	run_start(&r, &a, 0.0, 0.0, -PI / 2);
	while (r.k < 6000)
		run_step(&r);
	ck_assert_double_eq_tol(r.s.x, 100.0, 0.1);
	ck_assert_double_eq(r.s.speed, 0.0);
	run_end(&r);
}
END_TEST

/* Started facing away from its route, the actor turns round (pure
 * pursuit's target is behind it) instead of driving off, then follows the
 * route to its end. */
START_TEST(turns_around)
{
	static const double wp[] = {0, 0, 0, 100, 0, 0};
	static const double sp[] = {5};
	vs_actor_info a = sedan_info();
	a.waypoints = wp;
	a.n_waypoints = 2;
	a.speed = sp;
	run r;
	run_start(&r, &a, 0.0, 0.0, PI / 2); /* faces -X */
	double min_x = 0;
	while (r.k < 4000) {
		run_step(&r);
		min_x = fmin(min_x, r.s.x);
	}
	ck_assert_msg(min_x > -10.0, "drove off to x = %g", min_x);
	ck_assert_msg(hypot(r.s.x - 100, r.s.y) < 0.1, "ended at %g %g",
	              r.s.x, r.s.y);
	run_end(&r);
}
END_TEST

static Suite *waypoints_suite(void)
{
	Suite *s = suite_create("plugin_waypoints");
	TCase *tc = tcase_create("speed");
	tcase_add_loop_test(tc, speed_rules, 0,
	                    (int)(sizeof speed_cases / sizeof speed_cases[0]));
	tcase_add_test(tc, bad_routes);
	suite_add_tcase(s, tc);
	tc = tcase_create("follow");
	tcase_add_test(tc, straight_settles);
	tcase_add_test(tc, stops_at_last_waypoint);
	tcase_add_test(tc, corner_arc);
	tcase_add_test(tc, corner_hermite);
	tcase_add_loop_test(tc, headings_at_waypoints, 0, 3);
	tcase_add_test(tc, unreachable_yaw_fails);
	tcase_add_test(tc, closed_loop);
	tcase_add_test(tc, starts_from_rest);
	tcase_add_test(tc, turns_around);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(waypoints_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
