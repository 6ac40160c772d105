/* bicycle_steady and bicycle_linear, the real built plugins driven through
 * their descriptors, against closed forms written out here:
 *
 * - the seed article's steady-state radius
 *   rho = (1 - m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr) V^2) l / delta,
 *   whose stability factor A = -m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr) says
 *   understeer (A > 0), neutral (A = 0) or oversteer (A < 0);
 * - the linear two-wheel model's yaw-rate step response as a second-order
 *   system (Abe, "Vehicle Handling Dynamics"): gain V / ((1 + A V^2) l),
 *   natural frequency omega_n^2 = 4 Kf Kr l^2 (1 + A V^2) / (m Iz V^2),
 *   2 zeta omega_n = 2 (Kf + Kr)/(m V) + 2 (lf^2 Kf + lr^2 Kr)/(Iz V),
 *   numerator time constant T_r = m lf V / (2 l Kr);
 * - an RK4 integration of the force equations at a tiny step, written here
 *   independently of the plugin's matrix exponential;
 * - the critical speed 1 / sqrt(-A) of an oversteering car.
 *
 * Kf and Kr are per-tyre cornering powers, two tyres to an axle. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fake_host.h"

/* One vehicle set-up. */
typedef struct setup {
	double m, lf, l, kf, kr; /* kg, m, m, N/rad, N/rad */
	double iz;               /* kg m^2 (bicycle_linear only) */
} setup;

static const setup ARTICLE = {2000.0, 1.4, 3.0, 30e3, 30e3, 3000.0};

/* The article's formula, literally; delta in rad. */
static double article_rho(const setup *p, double v, double delta)
{
	double lr = p->l - p->lf;
	return (1.0 - p->m / (2.0 * p->l * p->l) *
	                      (p->lf * p->kf - lr * p->kr) / (p->kf * p->kr) *
	                      v * v) *
	       p->l / delta;
}

static double stability_factor(const setup *p)
{
	double lr = p->l - p->lf;
	return -p->m / (2.0 * p->l * p->l) * (p->lf * p->kf - lr * p->kr) /
	       (p->kf * p->kr);
}

/* Steady sideslip of the CG (Abe): beta / delta =
 * (1 - m lf V^2 / (2 l lr Kr)) / (1 + A V^2) * lr / l. */
static double steady_beta(const setup *p, double v, double delta)
{
	double lr = p->l - p->lf;
	return (1.0 - p->m * p->lf * v * v / (2.0 * p->l * lr * p->kr)) /
	       (1.0 + stability_factor(p) * v * v) * lr / p->l * delta;
}

/* A car with this set-up's wheelbase, axles placed so that the CG sits
 * off the origin (front axle at 0.6 l): the origin-to-CG conversion
 * matters. */
static vs_actor_info car_info(const setup *p)
{
	vs_actor_info a = sedan_info();
	a.wheelbase = p->l;
	a.front_axle_y = 0.6 * p->l;
	a.rear_axle_y = -0.4 * p->l;
	return a;
}

static void set_setup(const vs_plugin *d, double *params, const setup *p)
{
	set_param(d, params, "m", p->m);
	set_param(d, params, "lf", p->lf);
	set_param(d, params, "Kf", p->kf);
	set_param(d, params, "Kr", p->kr);
	if (strcmp(d->name, "bicycle_linear") == 0)
		set_param(d, params, "Iz", p->iz);
}

/* The CG: front_axle_y - lf ahead of the origin along the heading. */
static void cg_of(const vs_state *s, double cg_y, double *x, double *y)
{
	double h = s->yaw + PI / 2.0;
	*x = s->x + cg_y * cos(h);
	*y = s->y + cg_y * sin(h);
}

static vs_state start_state(double v)
{
	vs_state s;
	memset(&s, 0, sizeof s);
	s.x = 12.0;
	s.y = -7.0;
	s.yaw = 0.3;
	s.speed = v;
	return s;
}

/* Kasa algebraic least-squares circle through n points: the radius. */
static double fit_radius(const double *x, const double *y, int n)
{
	double mx = 0, my = 0;
	for (int i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	double suu = 0, svv = 0, suv = 0, r1 = 0, r2 = 0;
	for (int i = 0; i < n; i++) {
		double u = x[i] - mx, v = y[i] - my;
		suu += u * u;
		svv += v * v;
		suv += u * v;
		r1 += 0.5 * (u * u * u + u * v * v);
		r2 += 0.5 * (v * v * v + v * u * u);
	}
	double det = suu * svv - suv * suv;
	double uc = (r1 * svv - r2 * suv) / det;
	double vc = (suu * r2 - suv * r1) / det;
	return sqrt(uc * uc + vc * vc + (suu + svv) / n);
}

/* Steady cases: speed, steering wheel, set-up, and the class the set-up
 * has by construction (+1 US: lf Kf < lr Kr; 0 NS; -1 OS). */
static const struct {
	double v, wheel_deg;
	setup p;
	int cls;
} steady_cases[] = {
	{10.0, 45.0, {2000, 1.4, 3.0, 30e3, 30e3, 3000}, +1}, /* article */
	{25.0, 45.0, {2000, 1.4, 3.0, 30e3, 30e3, 3000}, +1},
	{20.0, 45.0, {2000, 1.5, 3.0, 30e3, 30e3, 3000}, 0},
	{30.0, 45.0, {2000, 1.6, 3.0, 30e3, 30e3, 3000}, -1},
	{25.0, 60.0, {1500, 1.1, 2.8, 40e3, 60e3, 2500}, +1},
	/* lf Kf = lr Kr = 60 kN m/rad with unequal stiffnesses */
	{15.0, -30.0, {1800, 1.2, 2.7, 50e3, 40e3, 2800}, 0},
	/* lf Kf = 75e3 > lr Kr = 38.5e3: Vcrit = 19.0 m/s */
	{15.0, -90.0, {1800, 1.5, 2.6, 50e3, 35e3, 2800}, -1},
	{-5.0, 45.0, {2000, 1.6, 3.0, 30e3, 30e3, 3000}, -1}, /* reversing */
};

START_TEST(steady_radius)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/bicycle_steady.so", &lp);
	const vs_plugin *d = lp.desc;
	const setup *p = &steady_cases[_i].p;
	const double v = steady_cases[_i].v;
	const double delta = steady_cases[_i].wheel_deg * DEG / 15.0; /* rad */
	vs_actor_info a = car_info(p);
	double params[16];
	default_params(d, params, 16);
	set_setup(d, params, p);
	void *m = create_ok(d, &a, params);

	/* The class from the sign of A, and from lf Kf against lr Kr. */
	const double A = stability_factor(p);
	const double lr = p->l - p->lf;
	const double bal = p->lf * p->kf - lr * p->kr; /* N m/rad */
	int cls = fabs(bal) < 1e-9 * p->kf * p->l ? 0 : (A > 0.0 ? 1 : -1);
	ck_assert_int_eq(cls, steady_cases[_i].cls);
	ck_assert_int_eq(cls, bal < -1e-6 ? 1 : bal > 1e-6 ? -1 : 0);

	const double rho = article_rho(p, v, delta); /* m, + = centre left */
	const double omega = v / rho;                /* rad/s */
	const double cg_y = a.front_axle_y - p->lf;  /* m */
	vs_state s = start_state(v);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	double gx, gy;
	cg_of(&s, cg_y, &gx, &gy);
	const double h0 = s.yaw + PI / 2.0;
	const double cx = gx - rho * sin(h0), cy = gy + rho * cos(h0);

	vs_control c = {.speed = v, .steering_wheel = steady_cases[_i].wheel_deg * DEG,
	                .accel = NAN};
	const double dt = a.step;
	double worst = 0.0;
	for (int k = 1; k <= 6000; k++) {
		ck_assert_int_eq(d->vehicle_step(m, k * dt, dt, &c, &s), VS_OK);
		cg_of(&s, cg_y, &gx, &gy);
		double e = fabs(hypot(gx - cx, gy - cy) / fabs(rho) - 1.0);
		worst = fmax(worst, e);
		ck_assert_msg(e < 0.005, "step %d: CG %.3g off rho", k, e);
		ck_assert_double_eq_tol(s.wz, omega, 1e-12 * fabs(omega) + 1e-15);
		ck_assert_double_eq_tol(s.steer, delta, 1e-15);
		ck_assert_double_eq_tol(s.speed, v, 1e-12);
		/* Origin velocity: V f + r z x (origin - CG), origin - CG =
		 * -cg_y f, so V f - r cg_y left. */
		double h = s.yaw + PI / 2.0;
		double fx = cos(h), fy = sin(h);
		double wx = v * fx + omega * cg_y * fy;
		double wy = v * fy - omega * cg_y * fx;
		ck_assert_double_eq_tol(s.vx, wx, 1e-9);
		ck_assert_double_eq_tol(s.vy, wy, 1e-9);
	}
	/* The class shows in the radius against the neutral l / delta. */
	double rn = p->l / delta;
	if (cls > 0)
		ck_assert(fabs(rho) > fabs(rn) * 1.001);
	else if (cls < 0)
		ck_assert(fabs(rho) < fabs(rn) * 0.999);
	else
		ck_assert_double_eq_tol(rho / rn, 1.0, 1e-9);
	printf("bicycle_steady case %d: V %g, A %+.3e, rho %.3f m, worst CG "
	       "radius error %.1e\n",
	       _i, v, A, rho, worst);
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* The model's right-hand side from the forces, for the RK4 reference. */
static void linear_rhs(const setup *p, double v, double delta,
                       const double x[5], double dx[5])
{
	/* x: beta, r, psi, X, Y (the CG) */
	double lr = p->l - p->lf;
	double yf = -2.0 * p->kf * (x[0] + p->lf * x[1] / v - delta); /* N */
	double yr = -2.0 * p->kr * (x[0] - lr * x[1] / v);            /* N */
	dx[0] = (yf + yr) / (p->m * v) - x[1];
	dx[1] = (p->lf * yf - lr * yr) / p->iz;
	dx[2] = x[1];
	dx[3] = v * cos(x[2] + x[0]);
	dx[4] = v * sin(x[2] + x[0]);
}

static void rk4(const setup *p, double v, double delta, double x[5],
                double h)
{
	double k1[5], k2[5], k3[5], k4[5], t[5];
	linear_rhs(p, v, delta, x, k1);
	for (int i = 0; i < 5; i++)
		t[i] = x[i] + 0.5 * h * k1[i];
	linear_rhs(p, v, delta, t, k2);
	for (int i = 0; i < 5; i++)
		t[i] = x[i] + 0.5 * h * k2[i];
	linear_rhs(p, v, delta, t, k3);
	for (int i = 0; i < 5; i++)
		t[i] = x[i] + h * k3[i];
	linear_rhs(p, v, delta, t, k4);
	for (int i = 0; i < 5; i++)
		x[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

/* Yaw-rate step response of K omega_n^2 (1 + T s) / (s^2 + 2 zeta
 * omega_n s + omega_n^2) from rest, under-, over- or critically damped. */
static double second_order_step(double K, double wn, double zeta, double T,
                                double t)
{
	double sigma = zeta * wn;
	double d = (zeta * zeta - 1.0) * wn * wn; /* (1/s)^2 */
	double C, S;                               /* cosh-like, sinh/w-like */
	if (fabs(d) < 1e-12) {
		C = 1.0;
		S = t;
	} else if (d > 0) {
		double w = sqrt(d);
		C = cosh(w * t);
		S = sinh(w * t) / w;
	} else {
		double w = sqrt(-d);
		C = cos(w * t);
		S = sin(w * t) / w;
	}
	return K * (1.0 - exp(-sigma * t) * (C + (sigma - T * wn * wn) * S));
}

static const struct {
	double v, wheel_deg;
	setup p;
} linear_cases[] = {
	{10.0, 45.0, {2000, 1.4, 3.0, 30e3, 30e3, 3000}}, /* article */
	{30.0, 45.0, {2000, 1.4, 3.0, 30e3, 30e3, 3000}}, /* zeta < 1 */
	{20.0, 45.0, {2000, 1.5, 3.0, 30e3, 30e3, 3000}}, /* NS */
	{20.0, 45.0, {2000, 1.6, 3.0, 30e3, 30e3, 3000}}, /* OS, zeta > 1 */
	{30.0, 45.0, {2000, 1.6, 3.0, 30e3, 30e3, 4500}}, /* OS, 1+AV^2 1/3 */
	{25.0, -60.0, {1500, 1.1, 2.8, 40e3, 60e3, 2200}},
	{15.0, 90.0, {1800, 1.5, 2.6, 50e3, 35e3, 2800}}, /* OS, Vcrit 19 */
	{2.0, 45.0, {2000, 1.4, 3.0, 30e3, 30e3, 3000}},  /* slow, stiff */
};

/* Step steer from straight running: r(t) against the second-order closed
 * form and an RK4 reference; then the settled circle against the
 * article's radius, and the origin's velocity direction against
 * yaw + pi/2 + its body slip. */
START_TEST(linear_step_and_circle)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/bicycle_linear.so", &lp);
	const vs_plugin *d = lp.desc;
	const setup *p = &linear_cases[_i].p;
	const double v = linear_cases[_i].v;
	const double delta = linear_cases[_i].wheel_deg * DEG / 15.0; /* rad */
	vs_actor_info a = car_info(p);
	double params[16];
	default_params(d, params, 16);
	set_setup(d, params, p);
	void *m = create_ok(d, &a, params);

	const double lr = p->l - p->lf, A = stability_factor(p);
	const double rho = article_rho(p, v, delta);      /* m */
	const double r_ss = v / rho;                      /* rad/s */
	const double b_ss = steady_beta(p, v, delta);     /* rad */
	const double wn = sqrt(4.0 * p->kf * p->kr * p->l * p->l *
	                       (1.0 + A * v * v) / (p->m * p->iz * v * v));
	const double zeta = (2.0 * (p->kf + p->kr) / (p->m * v) +
	                     2.0 * (p->lf * p->lf * p->kf + lr * lr * p->kr) /
	                             (p->iz * v)) /
	                    (2.0 * wn);
	const double T = p->m * p->lf * v / (2.0 * p->l * p->kr); /* s */
	const double cg_y = a.front_axle_y - p->lf;                /* m */

	vs_state s = start_state(v);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	double ref[5] = {0.0, 0.0, s.yaw + PI / 2.0, 0.0, 0.0};
	cg_of(&s, cg_y, &ref[3], &ref[4]);

	vs_control c = {.speed = v, .steering_wheel = linear_cases[_i].wheel_deg * DEG,
	                .accel = NAN};
	const double dt = a.step;
	const int n = 4000, sub = 1000; /* 40 s; RK4 at dt / 1000 */
	const int tail = 1000;          /* the last 10 s: the circle */
	double *gx = malloc(sizeof(double) * tail);
	double *gy = malloc(sizeof(double) * tail);
	ck_assert(gx && gy);
	double worst_cf = 0.0, worst_rk = 0.0, worst_beta = 0.0;
	double worst_pos = 0.0, beta_peak = 0.0, last_beta = 0.0;
	for (int k = 1; k <= n; k++) {
		ck_assert_int_eq(d->vehicle_step(m, k * dt, dt, &c, &s), VS_OK);
		for (int j = 0; j < sub; j++)
			rk4(p, v, delta, ref, dt / sub);
		double cf = second_order_step(r_ss, wn, zeta, T, k * dt);
		worst_cf = fmax(worst_cf, fabs(s.wz - cf) / fabs(r_ss));
		worst_rk = fmax(worst_rk, fabs(s.wz - ref[1]) / fabs(r_ss));
		/* beta from the origin's velocity: the CG's is the origin's
		 * minus r z x (origin - CG) = minus (-r cg_y left). */
		double h = s.yaw + PI / 2.0;
		double fx = cos(h), fy = sin(h);
		double vgx = s.vx - s.wz * cg_y * fy;
		double vgy = s.vy + s.wz * cg_y * fx;
		double beta = atan2(-fy * vgx + fx * vgy, fx * vgx + fy * vgy);
		worst_beta = fmax(worst_beta, fabs(beta - ref[0]));
		beta_peak = fmax(beta_peak, fabs(ref[0]));
		last_beta = beta;
		double x, y;
		cg_of(&s, cg_y, &x, &y);
		worst_pos = fmax(worst_pos, hypot(x - ref[3], y - ref[4]));
		ck_assert_double_eq_tol(s.steer, delta, 1e-15);
		ck_assert_double_eq_tol(s.speed, v * cos(beta), 1e-9);
		if (k > n - tail) {
			gx[k - (n - tail) - 1] = x;
			gy[k - (n - tail) - 1] = y;
		}
	}
	ck_assert_msg(worst_cf < 0.02 && worst_rk < 0.02,
	              "yaw rate off the closed form by %.3g, RK4 by %.3g of "
	              "the steady value",
	              worst_cf, worst_rk);
	/* beta may settle near 0 (its sign turns at V^2 = 2 l lr Kr /
	 * (m lf)), so it is measured against its peak. */
	worst_beta /= beta_peak;
	ck_assert_msg(worst_beta < 0.02, "beta off RK4 by %.3g", worst_beta);
	/* The slowest case (OS, zeta 1.7) still creeps by ~1e-7 rad. */
	ck_assert_double_eq_tol(last_beta, b_ss, 1e-5 * fabs(b_ss) + 1e-12);
	/* The CG path: the arc from the old to the new course per step is
	 * second order in the transient, exact on the circle. */
	ck_assert_msg(worst_pos < 1e-3, "CG %.3g m off RK4", worst_pos);
	/* Settled: the article's circle. */
	double rfit = fit_radius(gx, gy, tail);
	double erad = fabs(rfit / fabs(rho) - 1.0);
	ck_assert_msg(erad < 0.01, "radius %.4f m, article %.4f m", rfit, rho);
	ck_assert_double_eq_tol(s.wz, r_ss, 1e-6 * fabs(r_ss));
	/* actor_pose convention: the origin moves along yaw + pi/2 plus its
	 * body slip atan2(V sin beta - r cg_y, V cos beta). */
	double slip = atan2(v * sin(b_ss) - r_ss * cg_y, v * cos(b_ss));
	double dir = atan2(s.vy, s.vx);
	double e = remainder(dir - (s.yaw + PI / 2.0 + slip), 2.0 * PI);
	ck_assert_double_eq_tol(e, 0.0, 1e-6);
	printf("bicycle_linear case %d: V %g, wn %.3f rad/s, zeta %.3f; r vs "
	       "closed form %.1e, vs RK4 %.1e, beta vs RK4 %.1e of peak; CG "
	       "vs RK4 %.1e m; radius error %.1e\n",
	       _i, v, wn, zeta, worst_cf, worst_rk, worst_beta, worst_pos, erad);
	free(gx);
	free(gy);
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* bicycle_steady's pose convention alone: the origin moves along
 * yaw + pi/2 + atan(-cg_y / rho) at every step. */
START_TEST(steady_origin_slip)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/bicycle_steady.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = car_info(&ARTICLE); /* CG 0.4 m ahead of origin */
	double params[16];
	default_params(d, params, 16);
	void *m = create_ok(d, &a, params);
	const double v = 15.0, delta = 3.0 * DEG;
	const double rho = article_rho(&ARTICLE, v, delta);
	const double cg_y = a.front_axle_y - ARTICLE.lf;
	ck_assert_double_eq_tol(cg_y, 0.4, 1e-12);
	vs_state s = start_state(v);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	/* step 0: straight ahead */
	ck_assert_double_eq_tol(atan2(s.vy, s.vx), s.yaw + PI / 2.0, 1e-12);
	vs_control c = {.speed = v, .steering_wheel = 45.0 * DEG,
	                .accel = NAN};
	for (int k = 1; k <= 1000; k++) {
		ck_assert_int_eq(d->vehicle_step(m, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
		double e = remainder(atan2(s.vy, s.vx) -
		                             (s.yaw + PI / 2.0 + atan(-cg_y / rho)),
		                     2.0 * PI);
		ck_assert_double_eq_tol(e, 0.0, 1e-12);
		ck_assert(s.yaw > -PI && s.yaw <= PI);
	}
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* At or above the critical speed of an oversteering set-up, both models
 * fail the variant naming the critical speed, and leave the state as it
 * was (no NaN, no negative radius stored). Just below, they run. */
static const struct {
	const char *so;
	double v;
	int ok;
} crit_cases[] = {
	{"plugins/bicycle_steady.so", 40.0, 0},
	{"plugins/bicycle_steady.so", -40.0, 0}, /* reversing too */
	{"plugins/bicycle_steady.so", 36.7, 1},
	{"plugins/bicycle_linear.so", 40.0, 0},
	{"plugins/bicycle_linear.so", 36.75, 0}, /* Vcrit = 36.742 m/s */
	{"plugins/bicycle_linear.so", 36.7, 1},
};

START_TEST(critical_speed)
{
	vs_loaded_plugin lp = {0};
	open_built(crit_cases[_i].so, &lp);
	const vs_plugin *d = lp.desc;
	setup p = ARTICLE;
	p.lf = 1.6; /* lf Kf > lr Kr: oversteer */
	vs_actor_info a = car_info(&p);
	double params[16];
	default_params(d, params, 16);
	set_setup(d, params, &p);
	void *m = create_ok(d, &a, params);
	const double A = stability_factor(&p);
	ck_assert(A < 0.0);
	const double vcrit = 1.0 / sqrt(-A); /* m/s, 36.74 */
	ck_assert_double_eq_tol(vcrit, 36.742, 1e-3);
	vs_state s = start_state(10.0);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	vs_control c = {.speed = 10.0, .steering_wheel = 45.0 * DEG,
	                .accel = NAN};
	ck_assert_int_eq(d->vehicle_step(m, 0.01, 0.01, &c, &s), VS_OK);
	vs_state before = s;
	c.speed = crit_cases[_i].v;
	fake_log_clear();
	vs_status st = d->vehicle_step(m, 0.02, 0.01, &c, &s);
	if (crit_cases[_i].ok) {
		ck_assert_int_eq(st, VS_OK);
		ck_assert_int_eq(fake_log_errors(), 0);
	} else {
		ck_assert_int_eq(st, VS_ERROR);
		ck_assert_int_eq(fake_log_errors(), 1);
		char want[64];
		snprintf(want, sizeof want, "critical speed %.1f m/s", vcrit);
		ck_assert_msg(strstr(fake_log_text(), want), "log: %s",
		              fake_log_text());
		snprintf(want, sizeof want, "speed %.1f m/s",
		         fabs(crit_cases[_i].v));
		ck_assert_msg(strstr(fake_log_text(), want), "log: %s",
		              fake_log_text());
		ck_assert_ptr_nonnull(strstr(fake_log_text(), "oversteer"));
		ck_assert_int_eq(memcmp(&before, &s, sizeof s), 0);
	}
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* lf must put the CG strictly between the axles. */
START_TEST(lf_outside_wheelbase)
{
	static const char *const so[] = {"plugins/bicycle_steady.so",
	                                 "plugins/bicycle_linear.so"};
	static const double lfs[] = {0.0, 3.0, 4.2};
	for (int i = 0; i < 2; i++) {
		vs_loaded_plugin lp = {0};
		open_built(so[i], &lp);
		const vs_plugin *d = lp.desc;
		vs_actor_info a = sedan_info(); /* wheelbase 3.0 m */
		for (int j = 0; j < 3; j++) {
			double params[16];
			default_params(d, params, 16);
			set_param(d, params, "lf", lfs[j]);
			vs_create_args args = {sizeof args, &a, params, NULL,
			                       &fake_host, NULL, NULL};
			void *m = (void *)&lp;
			fake_log_clear();
			ck_assert_int_eq(d->create(&args, &m), VS_ERROR);
			ck_assert_ptr_null(m);
			ck_assert_int_eq(fake_log_errors(), 1);
			ck_assert_ptr_nonnull(strstr(fake_log_text(),
			                             "outside the wheelbase"));
			ck_assert_ptr_nonnull(strstr(fake_log_text(), "(0, 3)"));
		}
		/* and a box is not a vehicle */
		a.n_axles = 0;
		a.wheelbase = 0.0;
		double params[16];
		default_params(d, params, 16);
		vs_create_args args = {sizeof args, &a, params, NULL,
		                       &fake_host, NULL, NULL};
		void *m = NULL;
		fake_log_clear();
		ck_assert_int_eq(d->create(&args, &m), VS_ERROR);
		ck_assert_ptr_nonnull(strstr(fake_log_text(), "not a vehicle"));
		d->destroy(NULL);
		vs_plugin_close(&lp);
	}
}
END_TEST

/* Below 0.5 m/s bicycle_linear is the kinematic limit: beta = lr/l delta,
 * r = V delta / l, with the CG on the circle of radius l / delta. */
START_TEST(linear_low_speed)
{
	vs_loaded_plugin lp = {0};
	open_built("plugins/bicycle_linear.so", &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = car_info(&ARTICLE);
	double params[16];
	default_params(d, params, 16);
	void *m = create_ok(d, &a, params);
	const double v = 0.3, delta = 3.0 * DEG, l = ARTICLE.l;
	const double beta = (l - ARTICLE.lf) / l * delta;
	const double cg_y = a.front_axle_y - ARTICLE.lf;
	vs_state s = start_state(0.0);
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	double gx, gy;
	cg_of(&s, cg_y, &gx, &gy);
	vs_control c = {.speed = v, .steering_wheel = 45.0 * DEG,
	                .accel = NAN};
	ck_assert_int_eq(d->vehicle_step(m, 0.01, 0.01, &c, &s), VS_OK);
	/* The first step starts on the course heading + beta: the centre is
	 * l / delta to its left. */
	double chi = 0.3 + PI / 2.0 + beta;
	double R = l / delta;
	double cx = gx - R * sin(chi), cy = gy + R * cos(chi);
	for (int k = 2; k <= 3000; k++) {
		ck_assert_int_eq(d->vehicle_step(m, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
		ck_assert_double_eq_tol(s.wz, v * delta / l, 1e-15);
		ck_assert_double_eq_tol(s.speed, v * cos(beta), 1e-15);
		cg_of(&s, cg_y, &gx, &gy);
		ck_assert_double_eq_tol(hypot(gx - cx, gy - cy) / R, 1.0, 1e-9);
	}
	/* Just below and just above 0.5 m/s: the dynamic model starts from
	 * the kinematic state, close to its own steady state, so the yaw
	 * rate does not jump; it then settles on V delta / ((1 + A V^2) l). */
	c.speed = 0.49;
	ck_assert_int_eq(d->vehicle_step(m, 30.01, 0.01, &c, &s), VS_OK);
	c.speed = 0.51;
	const double r1 = 0.51 * delta /
	                  ((1.0 + stability_factor(&ARTICLE) * 0.51 * 0.51) * l);
	ck_assert_int_eq(d->vehicle_step(m, 30.02, 0.01, &c, &s), VS_OK);
	ck_assert_double_eq_tol(s.wz, r1, 0.05 * r1);
	for (int k = 3; k <= 200; k++)
		ck_assert_int_eq(d->vehicle_step(m, 30 + k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	ck_assert_double_eq_tol(s.wz, r1, 1e-6 * r1);
	/* Reversing is kinematic too. */
	c.speed = -2.0;
	ck_assert_int_eq(d->vehicle_step(m, 32.01, 0.01, &c, &s), VS_OK);
	ck_assert_double_eq_tol(s.wz, -2.0 * delta / l, 1e-15);
	ck_assert_double_eq_tol(s.speed, -2.0 * cos(beta), 1e-15);
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

/* Straight ahead: delta = 0 moves both models along the heading at V. */
START_TEST(straight)
{
	static const char *const so[] = {"plugins/bicycle_steady.so",
	                                 "plugins/bicycle_linear.so"};
	vs_loaded_plugin lp = {0};
	open_built(so[_i], &lp);
	const vs_plugin *d = lp.desc;
	vs_actor_info a = sedan_info();
	double params[16];
	default_params(d, params, 16);
	void *m = create_ok(d, &a, params);
	vs_state s;
	memset(&s, 0, sizeof s);
	s.yaw = -PI / 2; /* faces +X */
	ck_assert_int_eq(d->reset(m, &s), VS_OK);
	vs_control c = {.speed = 20.0, .steering_wheel = 0.0,
	                .accel = NAN};
	for (int k = 1; k <= 1000; k++)
		ck_assert_int_eq(d->vehicle_step(m, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	ck_assert_double_eq_tol(s.x, 200.0, 1e-9);
	ck_assert_double_eq_tol(s.y, 0.0, 1e-9);
	ck_assert_double_eq_tol(s.vx, 20.0, 1e-12);
	ck_assert_double_eq_tol(s.vy, 0.0, 1e-12);
	ck_assert_double_eq(s.wz, 0.0);
	c.speed = NAN;
	fake_log_clear();
	ck_assert_int_eq(d->vehicle_step(m, 10.01, 0.01, &c, &s), VS_ERROR);
	ck_assert_ptr_nonnull(strstr(fake_log_text(), "non-finite"));
	d->destroy(m);
	vs_plugin_close(&lp);
}
END_TEST

static Suite *dynamics_suite(void)
{
	Suite *s = suite_create("plugin_dynamics");
	TCase *tc = tcase_create("bicycle_steady");
	tcase_add_loop_test(tc, steady_radius, 0,
	                    (int)(sizeof steady_cases / sizeof steady_cases[0]));
	tcase_add_test(tc, steady_origin_slip);
	suite_add_tcase(s, tc);
	tc = tcase_create("bicycle_linear");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, linear_step_and_circle, 0,
	                    (int)(sizeof linear_cases / sizeof linear_cases[0]));
	tcase_add_test(tc, linear_low_speed);
	suite_add_tcase(s, tc);
	tc = tcase_create("both");
	tcase_add_loop_test(tc, critical_speed, 0,
	                    (int)(sizeof crit_cases / sizeof crit_cases[0]));
	tcase_add_test(tc, lf_outside_wheelbase);
	tcase_add_loop_test(tc, straight, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dynamics_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
