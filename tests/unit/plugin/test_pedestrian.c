/* pedestrian, the real built plugin, alone: what it writes into the
 * character fields of vs_control at given times, against the closed form
 * of a point mass walking straight legs (constant speed: distance /
 * speed; between different waypoint speeds a constant acceleration, a leg
 * of length L taking 2 L / (va + vb)), and its turning limit. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fake_host.h"

/* A 0.5 m walker on a route, at rest at its first waypoint. */
static vs_actor_info walker(const double *wp, size_t n_wp, const double *v,
                            size_t n_v)
{
	vs_actor_info a = sedan_info();
	a.length = a.width = 0.5;
	a.n_axles = 0;
	a.waypoints = wp;
	a.n_waypoints = n_wp;
	a.speed = v;
	a.n_speed = n_v;
	a.start.x = wp[0];
	a.start.y = wp[1];
	return a;
}

/* An instance with the default params (the host always gives some). */
static void *create_default(const vs_plugin *d, const vs_actor_info *a)
{
	static double params[8];
	default_params(d, params, 8);
	return create_ok(d, a, params);
}

/* The control for time t, the walker's previous state being prev. */
static vs_control step_at(const vs_plugin *d, void *b, double t,
                          const vs_state *prev)
{
	vs_control c;
	memset(&c, 0, sizeof c);
	c.x = c.y = c.vx = c.vy = c.yaw = NAN; /* as the host sets them */
	ck_assert_int_eq(d->behaviour_step(b, t, 0.01, prev, &c), VS_OK);
	return c;
}

/* Speeds [0, 2] over 10 m: from rest at a = 4 / 20 = 0.2 m/s^2, so
 * s = 0.1 t^2, arriving after 2 * 10 / 2 = 10 s at 2 m/s; then [2, 0]
 * back over 10 m north: stopping exactly at the last waypoint at
 * t = 20 s, s = 2 tau - 0.1 tau^2. */
START_TEST(from_rest_and_to_a_stop)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/pedestrian.so", &lp);
	const vs_plugin *d = lp.desc;
	ck_assert_uint_eq(d->drives, VS_DRIVES_CHARACTER);
	ck_assert_uint_eq(d->follows_route, 1);
	const double wp[] = {0, 0, 0, 10, 0, 0, 10, 10, 0};
	const double v[] = {0, 2, 0};
	vs_actor_info a = walker(wp, 3, v, 3);
	void *b = create_default(d, &a);
	vs_state s = a.start;
	ck_assert_int_eq(d->reset(b, &s), VS_OK);
	ck_assert_double_eq(s.vx, 0);
	ck_assert_double_eq_tol(s.yaw, -PI / 2, 1e-12); /* faces +X */
	const double ts[] = {0.5, 3, 7.25, 10, 12.5, 19.9, 20, 25};
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
		double t = ts[i], x, y, vx, vy;
		if (t < 10) { /* at 10 s the second leg begins */
			x = 0.1 * t * t;
			y = 0;
			vx = 0.2 * t;
			vy = 0;
		} else {
			double tau = fmin(t - 10, 10);
			x = 10;
			y = 2 * tau - 0.1 * tau * tau;
			vx = 0;
			vy = 2 - 0.2 * tau;
		}
		vs_control c = step_at(d, b, t, &s);
		ck_assert_msg(fabs(c.x - x) < 1e-9 && fabs(c.y - y) < 1e-9,
		              "t = %g: (%g, %g), want (%g, %g)", t, c.x, c.y, x,
		              y);
		ck_assert_double_eq_tol(c.vx, vx, 1e-9);
		ck_assert_double_eq_tol(c.vy, vy, 1e-9);
		/* along the leg: +X (yaw -pi/2) on the first, +Y (0) after */
		ck_assert_double_eq_tol(c.yaw, t < 10 ? -PI / 2 : 0.0, 1e-12);
	}
	d->destroy(b);
	vs_plugin_close(&lp);
}
END_TEST

/* P < M: speed [1, 2] on three waypoints is [1, 2, 2]; a leg with 0 at
 * both ends is never walked: [1, 0, 0] stops at the second waypoint. */
START_TEST(speed_rules_and_the_end_of_the_walk)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/pedestrian.so", &lp);
	const vs_plugin *d = lp.desc;
	const double wp[] = {0, 0, 0, 3, 0, 0, 3, 4, 0};
	const double v1[] = {1, 2};
	vs_actor_info a = walker(wp, 3, v1, 2);
	void *b = create_default(d, &a);
	vs_state s = a.start;
	d->reset(b, &s);
	/* leg 1: 2 * 3 / 3 = 2 s; leg 2 at 2 m/s: 4 m in 2 s */
	vs_control c = step_at(d, b, 3.0, &s);
	ck_assert_double_eq_tol(c.x, 3, 1e-12);
	ck_assert_double_eq_tol(c.y, 2, 1e-12);
	ck_assert_double_eq_tol(c.vy, 2, 1e-12);
	d->destroy(b);

	const double v2[] = {1, 0, 0};
	a = walker(wp, 3, v2, 3);
	b = create_default(d, &a);
	d->reset(b, &s);
	c = step_at(d, b, 100.0, &s); /* 2 * 3 / 1 = 6 s, then stands */
	ck_assert_double_eq_tol(c.x, 3, 1e-12);
	ck_assert_double_eq(c.y, 0);
	ck_assert_double_eq(c.vx, 0);
	ck_assert_double_eq_tol(c.yaw, -PI / 2, 1e-12); /* still facing +X */
	d->destroy(b);
	vs_plugin_close(&lp);
}
END_TEST

/* max_yaw_rate_deg 90: facing +Y (yaw 0) at the start, the body turns
 * towards +X (yaw -pi/2) at 90 deg/s: 0.9 deg in a 0.01 s step; the walk
 * itself is along +X from the first step. */
START_TEST(turning_at_a_limited_rate)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/pedestrian.so", &lp);
	const vs_plugin *d = lp.desc;
	const double wp[] = {0, 0, 0, 10, 0, 0};
	const double v[] = {1.4};
	vs_actor_info a = walker(wp, 2, v, 1);
	double params[3];
	default_params(d, params, 3);
	set_param(d, params, "max_yaw_rate_deg", 90);
	void *b = create_ok(d, &a, params);
	vs_state s = a.start;
	s.yaw = 0; /* a start: yaw facing +Y */
	ck_assert_int_eq(d->reset(b, &s), VS_OK);
	ck_assert_double_eq(s.yaw, 0); /* kept: it turns from there */
	ck_assert_double_eq_tol(s.vx, 1.4, 1e-12);
	vs_control c = step_at(d, b, 0.01, &s);
	ck_assert_double_eq_tol(c.yaw, -0.9 * DEG, 1e-12);
	ck_assert_double_eq_tol(c.x, 0.014, 1e-12);
	/* the last step of the turn lands on the walking direction */
	s.yaw = -89.5 * DEG;
	c = step_at(d, b, 1.0, &s);
	ck_assert_double_eq_tol(c.yaw, -PI / 2, 1e-12);
	d->destroy(b);
	vs_plugin_close(&lp);
}
END_TEST

/* Fewer than two waypoints: create fails, saying why. */
START_TEST(needs_a_route)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/pedestrian.so", &lp);
	const double wp[] = {0, 0, 0};
	const double v[] = {1.4};
	vs_actor_info a = walker(wp, 1, v, 1);
	double params[3];
	default_params(lp.desc, params, 3);
	fake_log_clear();
	void *b = NULL;
	vs_create_args args = {sizeof args, &a, params, NULL, &fake_host,
	                       NULL, lp.desc};
	ck_assert_int_eq(lp.desc->create(&args, &b), VS_ERROR);
	ck_assert_ptr_null(b);
	ck_assert_int_eq(fake_log_errors(), 1);
	ck_assert_ptr_nonnull(strstr(fake_log_text(), "needs waypoints"));
	vs_plugin_close(&lp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pedestrian");
	TCase *tc = tcase_create("pedestrian");
	tcase_add_test(tc, from_rest_and_to_a_stop);
	tcase_add_test(tc, speed_rules_and_the_end_of_the_walk);
	tcase_add_test(tc, turning_at_a_limited_rate);
	tcase_add_test(tc, needs_a_route);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
