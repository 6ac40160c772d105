/* kinematic_bicycle and constant_steer, the real built plugins driven
 * through their descriptors, against closed forms: under constant steer a
 * kinematic bicycle's rear axle runs on the circle of radius l / tan(delta)
 * about the instantaneous centre, and any body point (the origin) on the
 * circle of radius sqrt((l / tan(delta))^2 + rear_axle_y^2). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fake_host.h"
/* the shipped plugins' own header-only helper, tested here directly */
#include "../../../plugins/angle_common.h"

#define REL_TOL 1e-9

static double wrap(double a)
{
	a = remainder(a, 2.0 * PI);
	return a <= -PI ? a + 2.0 * PI : a;
}

/* Constant-steer cases: steering wheel (deg), speed (m/s), and the
 * road-wheel angle expected after the ratio-15 division and the 45 deg
 * clamp. */
static const struct {
	double wheel_deg, speed, delta_deg;
} circle_cases[] = {
	{45.0, 10.0, 3.0},    /* the seed article: l / delta = 57.3 m */
	{-90.0, 5.0, -6.0},   /* right turn */
	{45.0, -3.0, 3.0},    /* reversing */
	{720.0, 4.0, 45.0},   /* 48 deg asked, clamped to max_steer_deg */
	{-900.0, 2.0, -45.0}, /* clamped the other way */
};

START_TEST(bicycle_constant_steer_circle)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/kinematic_bicycle.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[8];
	default_params(d, params, 8);
	void *m = create_ok(d, &a, params);

	const double l = a.wheelbase, ry = a.rear_axle_y, dt = a.step;
	const double v = circle_cases[_i].speed;
	const double delta = circle_cases[_i].delta_deg * DEG;
	const double R = l / tan(delta);   /* m, signed: + = centre on the left */
	const double omega = v / R;        /* rad/s, yaw rate */
	const double r_origin = hypot(R, ry);

	vs_state s;
	memset(&s, 0, sizeof s);
	s.x = 12.0;
	s.y = -7.0;
	s.yaw = 0.3;
	s.speed = v;
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	/* step 0: straight ahead at the start speed */
	double h0 = 0.3 + PI / 2.0;
	ck_assert_double_eq_tol(s.vx, v * cos(h0), 1e-12);
	ck_assert_double_eq_tol(s.vy, v * sin(h0), 1e-12);
	ck_assert_double_eq(s.steer, 0.0);
	ck_assert_double_eq(s.wz, 0.0);

	/* The centre: R to the left of the rear axle. */
	double rx, rye;
	rear_axle(&s, ry, &rx, &rye);
	double cx = rx - R * sin(h0), cy = rye + R * cos(h0);

	vs_control c = {.speed = v, .steering_wheel = circle_cases[_i].wheel_deg * DEG,
	                .accel = NAN};
	const int n = 20000; /* 200 s: several laps even at the slowest */
	for (int k = 1; k <= n; k++) {
		ck_assert_int_eq(d->vehicle_step(m, k * dt, dt, &c, &s), VS_OK);
		rear_axle(&s, ry, &rx, &rye);
		double er = hypot(rx - cx, rye - cy) / fabs(R) - 1.0;
		double eo = hypot(s.x - cx, s.y - cy) / r_origin - 1.0;
		ck_assert_msg(fabs(er) < REL_TOL && fabs(eo) < REL_TOL,
		              "step %d: rear %g, origin %g off the circle", k,
		              er, eo);
		/* yaw: yaw0 + omega t, wrapped to (-pi, pi] */
		ck_assert(s.yaw > -PI && s.yaw <= PI);
		ck_assert_double_eq_tol(wrap(s.yaw - (0.3 + omega * k * dt)),
		                        0.0, 1e-9);
		ck_assert_double_eq_tol(s.wz, omega, 1e-12);
		ck_assert_double_eq_tol(s.steer, delta, 1e-12);
		ck_assert_double_eq_tol(s.speed, v, 1e-12);
		/* Origin velocity: tangent to its circle, |omega| r long. */
		double ox = s.x - cx, oy = s.y - cy;
		ck_assert_double_eq_tol(s.vx * ox + s.vy * oy, 0.0,
		                        1e-9 * r_origin * fabs(v));
		ck_assert_double_eq_tol(hypot(s.vx, s.vy),
		                        fabs(omega) * r_origin, 1e-9 * fabs(v));
		/* The rear axle moves along the heading (yaw + pi/2): its
		 * velocity is the origin's minus omega x (origin - rear). */
		double vrx = s.vx + omega * (s.y - rye);
		double vry = s.vy - omega * (s.x - rx);
		double h = s.yaw + PI / 2.0;
		ck_assert_double_eq_tol(vrx, v * cos(h), 1e-9 * fabs(v));
		ck_assert_double_eq_tol(vry, v * sin(h), 1e-9 * fabs(v));
	}
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

START_TEST(bicycle_straight)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/kinematic_bicycle.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[8];
	default_params(d, params, 8);
	void *m = create_ok(d, &a, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	s.yaw = -PI / 2; /* faces +X */
	s.speed = 0;
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	ck_assert_double_eq(s.vx, 0.0);
	vs_control c = {.speed = 20.0, .steering_wheel = 0.0,
	                .accel = NAN};
	for (int k = 1; k <= 1000; k++)
		ck_assert_int_eq(d->vehicle_step(m, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	ck_assert_double_eq_tol(s.x, 200.0, 1e-9);
	ck_assert_double_eq_tol(s.y, 0.0, 1e-9);
	ck_assert_double_eq_tol(s.vx, 20.0, 1e-12);
	ck_assert_double_eq_tol(s.vy, 0.0, 1e-12);
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* The ratio is the model's parameter: 30 deg at ratio 10 is 3 deg. */
START_TEST(bicycle_ratio_param)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/kinematic_bicycle.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[8];
	default_params(d, params, 8);
	set_param(d, params, "steering_ratio", 10.0);
	set_param(d, params, "max_steer_deg", 2.0);
	void *m = create_ok(d, &a, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	vs_control c = {.speed = 5.0, .steering_wheel = 15.0 * DEG,
	                .accel = NAN};
	ck_assert_int_eq(d->vehicle_step(m, 0.01, 0.01, &c, &s), VS_OK);
	ck_assert_double_eq_tol(s.steer, 1.5 * DEG, 1e-15);
	c.steering_wheel = 30.0 * DEG; /* 3 deg asked, 2 deg allowed */
	ck_assert_int_eq(d->vehicle_step(m, 0.02, 0.01, &c, &s), VS_OK);
	ck_assert_double_eq_tol(s.steer, 2.0 * DEG, 1e-15);
	ck_assert_double_eq_tol(s.wz, 5.0 * tan(2.0 * DEG) / 3.0, 1e-15);
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

START_TEST(bicycle_not_a_vehicle)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/kinematic_bicycle.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	a.n_axles = 0;
	a.wheelbase = 0;
	a.name = "cone";
	a.id = 7;
	double params[8];
	default_params(d, params, 8);
	vs_create_args args = {sizeof args, &a, params, NULL,
	                       &fake_host, NULL, NULL};
	void *m = (void *)&lp;
	fake_log_clear();
	ck_assert_int_eq(d->create(&args, &m), VS_ERROR);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(fake_log_errors(), 1);
	ck_assert_ptr_nonnull(strstr(fake_log_text(), "cone (ID 7)"));
	ck_assert_ptr_nonnull(strstr(fake_log_text(), "not a vehicle"));
	d->destroy(NULL);
	vs_plugin_close(&lp);
}
END_TEST

START_TEST(bicycle_non_finite)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/kinematic_bicycle.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[8];
	default_params(d, params, 8);
	void *m = create_ok(d, &a, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	vs_control c = {.speed = NAN, .steering_wheel = 0.0,
	                .accel = NAN};
	fake_log_clear();
	ck_assert_int_eq(d->vehicle_step(m, 0.01, 0.01, &c, &s), VS_ERROR);
	ck_assert_int_eq(fake_log_errors(), 1);
	ck_assert_ptr_nonnull(strstr(fake_log_text(), "non-finite"));
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* constant_steer hands on its setting and the route's first speed. */
START_TEST(constant_steer_control)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/constant_steer.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[1];
	default_params(d, params, 1);
	set_param(d, params, "steering_wheel_deg", -120.0);
	void *b = create_ok(d, &a, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	ck_assert_int_eq(d->reset(b, &s), VS_OK);
	vs_control c = {.speed = 0, .steering_wheel = 0,
	                .accel = NAN};
	ck_assert_int_eq(d->behaviour_step(b, 0.01, 0.01, &s, &c), VS_OK);
	ck_assert_double_eq(c.speed, 10.0);
	ck_assert_double_eq_tol(c.steering_wheel, -120.0 * PI / 180.0, 1e-15);
	d->destroy(b);
	/* no route speed: standing still */
	a.speed = NULL;
	a.n_speed = 0;
	b = create_ok(d, &a, params);
	ck_assert_int_eq(d->behaviour_step(b, 0.01, 0.01, &s, &c), VS_OK);
	ck_assert_double_eq(c.speed, 0.0);
	d->destroy(b);
	d->destroy(NULL);
	vs_plugin_close(&lp);
}
END_TEST

/* The seed article's set-up, closed loop: wheelbase 3.0 m, ratio 15,
 * 45 deg at the wheel gives delta = 3 deg and a rear-axle radius of
 * 3 / tan(3 deg) = 57.24 m (the article's l / delta = 57.3 m). */
START_TEST(constant_steer_article_circle)
{
	vs_loaded_plugin bl = {0}, ml = {0};
	open_built("plugins/constant_steer.so", &bl);
	open_built("plugins/kinematic_bicycle.so", &ml);
	const vs_plugin *bd = bl.desc, *md = ml.desc;
	vs_actor_info a = sedan_info();
	double bp[1], mp[4];
	default_params(bd, bp, 1);
	set_param(bd, bp, "steering_wheel_deg", 45.0);
	default_params(md, mp, 4);
	void *b = create_ok(bd, &a, bp);
	void *m = create_ok(md, &a, mp);

	const double R = 3.0 / tan(3.0 * DEG); /* m */
	ck_assert_double_eq_tol(R, 57.3, 0.1);
	vs_state s;
	memset(&s, 0, sizeof s);
	s.x = 57.3; /* the design's example: on the ring, facing +Y */
	s.speed = 10.0;
	ck_assert_int_eq(md->reset(m, &s), VS_OK);
	ck_assert_int_eq(bd->reset(b, &s), VS_OK);
	double cx, cy;
	rear_axle(&s, a.rear_axle_y, &cx, &cy);
	cx -= R; /* the centre is R to the left (-X) of the rear axle */

	const double dt = a.step;
	for (int k = 1; k <= 6000; k++) {
		vs_state prev = s;
		vs_control c;
		ck_assert_int_eq(bd->behaviour_step(b, k * dt, dt, &prev, &c),
		                 VS_OK);
		ck_assert_int_eq(md->vehicle_step(m, k * dt, dt, &c, &s), VS_OK);
		double rx, ry;
		rear_axle(&s, a.rear_axle_y, &rx, &ry);
		ck_assert_double_eq_tol(hypot(rx - cx, ry - cy) / R, 1.0,
		                        REL_TOL);
	}
	/* 60 s at 10 m/s on 57.24 m: yaw = 600 / R rad, counter-clockwise */
	ck_assert_double_eq_tol(wrap(s.yaw - 600.0 / R), 0.0, 1e-9);
	bd->destroy(b);
	md->destroy(m);
	vs_plugin_close(&bl);
	vs_plugin_close(&ml);
}
END_TEST

/* ABI 1.1 accel, in every shipped vehicle model, against the closed form
 * of constant acceleration on a straight (yaw 0 faces +Y): v(t) = v0 + a t
 * and distance v0 t + a t^2 / 2 while v > 0; braking stops at 0 after
 * v0^2 / (2 |a|) and stays there; accel beyond max_accel or max_decel is
 * clamped to them. */
static const char *const accel_models[] = {
	"plugins/kinematic_bicycle.so",
	"plugins/bicycle_steady.so",
	"plugins/bicycle_linear.so",
};

/* Drives model d from v0 (m/s) under accel a (m/s^2) for n steps of
 * 0.01 s with the given limits; returns the final state. */
static vs_state drive_accel(const vs_plugin *d, double v0, double a, int n,
                            double max_accel, double max_decel)
{
	vs_actor_info info = sedan_info();
	double params[16];
	default_params(d, params, 16);
	set_param(d, params, "max_accel", max_accel);
	set_param(d, params, "max_decel", max_decel);
	void *m = create_ok(d, &info, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	s.speed = v0;
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	/* speed is ignored when accel is given: a wrong one must not show */
	vs_control c = {.speed = 99.0, .steering_wheel = 0.0,
	                .accel = a};
	for (int k = 1; k <= n; k++)
		ck_assert_int_eq(d->vehicle_step(m, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	d->destroy(m);
	return s;
}

START_TEST(models_accel_closed_form)
{
	vs_loaded_plugin lp = {0};
	open_built(accel_models[_i], &lp);
	const vs_plugin *d = lp.desc;
	/* speeding up: 10 m/s + 2 m/s^2 for 5 s */
	vs_state s = drive_accel(d, 10.0, 2.0, 500, 5.0, 10.0);
	ck_assert_double_eq_tol(s.speed, 20.0, 1e-9);
	ck_assert_double_eq_tol(s.vy, 20.0, 1e-9);
	ck_assert_double_eq_tol(s.y, 10.0 * 5 + 0.5 * 2.0 * 25, 1e-9);
	ck_assert_double_eq_tol(s.x, 0.0, 1e-9);
	/* braking to a stop: 20 m/s at -4 m/s^2 stops after 5 s, 50 m; the
	 * stop falls inside a step when v0 / a is not a whole step count */
	s = drive_accel(d, 20.0, -4.0, 800, 5.0, 10.0);
	ck_assert_double_eq(s.speed, 0.0);
	ck_assert_double_eq_tol(s.y, 20.0 * 20.0 / (2 * 4.0), 1e-9);
	s = drive_accel(d, 13.0, -3.3, 800, 5.0, 10.0);
	ck_assert_double_eq(s.speed, 0.0);
	ck_assert_double_eq_tol(s.y, 13.0 * 13.0 / (2 * 3.3), 1e-9);
	/* limits: 8 m/s^2 asked, 3 given; -20 asked, 6 given */
	s = drive_accel(d, 0.0, 8.0, 200, 3.0, 6.0);
	ck_assert_double_eq_tol(s.speed, 6.0, 1e-9);
	ck_assert_double_eq_tol(s.y, 0.5 * 3.0 * 4.0, 1e-9);
	s = drive_accel(d, 30.0, -20.0, 600, 3.0, 6.0);
	ck_assert_double_eq(s.speed, 0.0);
	ck_assert_double_eq_tol(s.y, 30.0 * 30.0 / (2 * 6.0), 1e-9);
	vs_plugin_close(&lp);
}
END_TEST

/* The plugins' angle wrap gives libm's remainder(a, 2 pi) bit for bit:
 * at and next to the bounds of its two fast paths (+-pi, +-2 pi), on
 * signed zeros, subnormals, huge, infinite and NaN values, and on random
 * angles within four turns and random bit patterns. */
static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

START_TEST(rem_2pi_as_libm)
{
	const double P = 3.14159265358979323846, T = 2 * P;
	const double edges[] = {P, T, 3 * P, 4 * P, 0.5 * P, 1.5 * P};
	double v[256];
	int n = 0;
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
		double e = edges[i], lo = e, hi = e;
		for (int k = 0; k < 4; k++) {
			v[n++] = lo;
			v[n++] = -lo;
			v[n++] = hi;
			v[n++] = -hi;
			lo = nextafter(lo, 0);
			hi = nextafter(hi, INFINITY);
		}
	}
	const double special[] = {0.0, -0.0, 4.9e-324, -4.9e-324, 1e-300,
	                          1e300, -1e300, INFINITY, -INFINITY, NAN,
	                          -NAN, 1.0, -1.0, 7.0, -7.0};
	for (size_t i = 0; i < sizeof special / sizeof *special; i++)
		v[n++] = special[i];
	for (int i = 0; i < n; i++)
		ck_assert_msg(same_bits(ac_rem_2pi(v[i]), remainder(v[i], T)),
		              "%a: %a, libm %a", v[i], ac_rem_2pi(v[i]),
		              remainder(v[i], T));
	uint64_t x = 0x9E3779B97F4A7C15u; /* splitmix-style sequence */
	for (int i = 0; i < 1000000; i++) {
		x += 0x9E3779B97F4A7C15u;
		uint64_t z = x;
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
		z ^= z >> 31;
		double a;
		if (i % 2) {
			memcpy(&a, &z, sizeof a); /* any bits at all */
		} else {
			a = ((double)(z >> 11) / 9007199254740992.0 - 0.5) * 8 * T;
		}
		ck_assert_msg(same_bits(ac_rem_2pi(a), remainder(a, T)),
		              "%a: %a, libm %a", a, ac_rem_2pi(a),
		              remainder(a, T));
	}
}
END_TEST

/* The remembered cosine and sine are libm's for every angle asked, the
 * same angle again (a hit), a new one, and signed zeros told apart. */
START_TEST(cos_sin_remembered_as_libm)
{
	const double a[] = {1.5707963267948966, 1.5707963267948966, 0.3, -0.0,
	                    0.0, -0.0, 1e-310, 1e-310, 4.0, NAN, NAN, 3.0,
	                    -2.5, -2.5, INFINITY, 0.3};
	ac_sincos m = {0};
	for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
		double c, s;
		ac_cos_sin(&m, a[i], &c, &s);
		ck_assert_msg(same_bits(c, cos(a[i])) && same_bits(s, sin(a[i])),
		              "%a: %a %a, libm %a %a", a[i], c, s, cos(a[i]),
		              sin(a[i]));
		ac_cos_sin(NULL, a[i], &c, &s);
		ck_assert(same_bits(c, cos(a[i])) && same_bits(s, sin(a[i])));
	}
	/* kinematic_bicycle takes tan(+-0) to be +-0 without calling it */
	ck_assert(same_bits(tan(0.0), 0.0) && same_bits(tan(-0.0), -0.0));
	/* -0 after +0 is not a hit: its sine is -0 */
	double c, s;
	ac_cos_sin(&m, 0.0, &c, &s);
	ac_cos_sin(&m, -0.0, &c, &s);
	ck_assert(signbit(s));
}
END_TEST

static Suite *models_suite(void)
{
	Suite *s = suite_create("plugin_vehicle_models");
	TCase *tc = tcase_create("kinematic_bicycle");
	tcase_add_loop_test(tc, bicycle_constant_steer_circle, 0,
	                    (int)(sizeof circle_cases / sizeof circle_cases[0]));
	tcase_add_test(tc, bicycle_straight);
	tcase_add_test(tc, bicycle_ratio_param);
	tcase_add_test(tc, bicycle_not_a_vehicle);
	tcase_add_test(tc, bicycle_non_finite);
	tcase_add_loop_test(tc, models_accel_closed_form, 0,
	                    (int)(sizeof accel_models /
	                          sizeof accel_models[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("angles");
	tcase_add_test(tc, rem_2pi_as_libm);
	tcase_add_test(tc, cos_sin_remembered_as_libm);
	suite_add_tcase(s, tc);
	tc = tcase_create("constant_steer");
	tcase_add_test(tc, constant_steer_control);
	tcase_add_test(tc, constant_steer_article_circle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(models_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
