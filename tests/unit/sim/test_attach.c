/* Check suite for attached actors in the stepping loop (sim/attach.h),
 * against closed forms: a trailer's steady circle and its straight-line
 * tractrix, a fixed child's constant transform, placement at start for
 * every kind of contact point, a road train that stays connected.
 *
 * Scenarios are YAML text parsed by the real parser and bound against a
 * registry holding two plugins defined here: "arc", an exact kinematic
 * bicycle (road-wheel angle = the control's steering_wheel), and "drive",
 * a steer held or swept sinusoidally. Poses are rebuilt here from the
 * states, independently of the code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/scenario.h"
#include "plugin/registry.h"
#include "sim/attach.h"
#include "sim/sim.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

/* ---- plugins ------------------------------------------------------------ */

typedef struct arc {
	double l, ry; /* m: wheelbase, rear axle group y */
	double p[4];  /* drive: speed, steer0, amplitude, period */
} arc;

static vs_status t_create(const vs_create_args *a, void **out)
{
	arc *p = calloc(1, sizeof *p);
	p->l = a->actor->wheelbase;
	p->ry = a->actor->rear_axle_y;
	*out = p;
	return VS_OK;
}

/* drive: the same, with its 4 params (arc has none) */
static vs_status drive_create(const vs_create_args *a, void **out)
{
	t_create(a, out);
	arc *p = *out;
	for (int k = 0; k < 4; k++)
		p->p[k] = a->params[k];
	return VS_OK;
}

static vs_status arc_reset(void *i, vs_state *s)
{
	(void)i;
	s->vx = -sin(s->yaw) * s->speed;
	s->vy = cos(s->yaw) * s->speed;
	return VS_OK;
}

static vs_status drive_reset(void *i, vs_state *s)
{
	(void)i;
	(void)s;
	return VS_OK;
}

static void t_destroy(void *i)
{
	free(i);
}

/* The rear axle runs exactly on the arc of radius l / tan(delta); the
 * step is its chord. */
static vs_status arc_step(void *i, double t, double dt, const vs_control *c,
                          vs_state *s)
{
	arc *p = i;
	double v = c->speed, d = c->steering_wheel;
	double w = v * tan(d) / p->l, dpsi = w * dt;
	double h0 = s->yaw + PI / 2;
	double rx = s->x + p->ry * cos(h0), ry = s->y + p->ry * sin(h0);
	double chord = fabs(dpsi) > 1e-12 ? 2 * v / w * sin(dpsi / 2) : v * dt;
	rx += chord * cos(h0 + dpsi / 2);
	ry += chord * sin(h0 + dpsi / 2);
	s->yaw += dpsi;
	double fx = -sin(s->yaw), fy = cos(s->yaw);
	s->x = rx - p->ry * fx;
	s->y = ry - p->ry * fy;
	s->vx = v * fx + w * p->ry * fy;
	s->vy = v * fy - w * p->ry * fx;
	s->wz = w;
	s->speed = v;
	s->steer = d;
	return VS_OK;
}

static vs_status drive_step(void *i, double t, double dt,
                            const vs_state *self, vs_control *c)
{
	arc *p = i;
	c->speed = p->p[0];
	c->steering_wheel = p->p[1];
	if (p->p[3] > 0)
		c->steering_wheel += p->p[2] * sin(2 * PI * t / p->p[3]);
	return VS_OK;
}

static const vs_param drive_params[] = {
	{"speed", 5, 0, 100, "m/s", ""},
	{"steer", 0, -1, 1, "rad", "road-wheel angle"},
	{"amp", 0, 0, 1, "rad", "sine amplitude"},
	{"period", 0, 0, 1e3, "s", "sine period; 0: none"},
};
static const vs_plugin arc_d = {
	VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), VS_KIND_VEHICLE_MODEL,
	"arc", "1", "", NULL, 0, t_create, arc_reset, arc_step, NULL,
	t_destroy, NULL, 0, 0, 0, 0};
static const vs_plugin drive_d = {
	VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), VS_KIND_BEHAVIOUR,
	"drive", "1", "", drive_params, 4, drive_create, drive_reset, NULL,
	drive_step, t_destroy, NULL, 0, 0, 0, 0};
static vs_loaded_plugin loaded[2] = {{"arc.so", NULL, &arc_d, NULL},
                                     {"drive.so", NULL, &drive_d, NULL}};
static vs_loaded_plugin *loaded_ptrs[2] = {&loaded[0], &loaded[1]};
static const vs_registry reg = {.n = 2, .plugins = loaded_ptrs};

/* ---- scenarios ---------------------------------------------------------- */

/* A semi tractor (steer axle, tandem centre at y = -2.25: wheelbase 4.35
 * m; fifth wheel 0.3 m ahead of the tandem centre), trailers, a crate. */
#define ASSETS                                                               \
	"assets:\n"                                                          \
	"  truck: {length: 6.2, width: 2.5, height: 3.6, axles: [2.1, -1.6, " \
	"-2.9], track: 2.05, wheel_radius: 0.5, points: {attach_fifth_wheel: " \
	"[0, -1.95, 1.2], attach_roof: [0.1, 1.5, 3.6]}}\n"                  \
	"  single: {length: 13.6, width: 2.5, height: 4, axles: [-5.2], "    \
	"points: {hitch: [0, 5.6, 1.2]}}\n"                                  \
	"  tandem: {length: 13.6, width: 2.5, height: 4, axles: [-4.2, "     \
	"-5.5], points: {hitch: [0, 5.6, 1.2]}}\n"                           \
	"  pup: {length: 8, width: 2.5, height: 3.5, axles: [-1.5, -2.8]}\n" \
	"  crate: {length: 2, width: 1, height: 1, points: {attach_top: "    \
	"[0.2, 0.3, 1.0]}}\n"

#define TRUCK(id, x, y, yaw, speed, steer, amp, period)                     \
	"  - {id: " #id ", asset: truck, start: {position: [" #x ", " #y     \
	", 0], yaw: " #yaw "}, speed: " #speed ", vehicle_model: {plugin: "  \
	"arc}, behaviour: {plugin: drive, params: {speed: " #speed           \
	", steer: " #steer ", amp: " #amp ", period: " #period "}}}\n"

static vs_scenario *load(const char *text)
{
	vs_error err = {{0}};
	vs_scenario *s = vs_scenario_parse("t.yaml", text, strlen(text), &err);
	ck_assert_msg(s, "%s\n%s", err.msg, text);
	ck_assert_msg(vs_scenario_bind(s, &reg, &err) == 0, "%s", err.msg);
	return s;
}

static void run(const vs_scenario *s, vs_result *r)
{
	vs_sim_opts o = {.record_every = 1};
	memset(r, 0, sizeof *r);
	ck_assert_int_eq(vs_sim_run(s, &o, r), 0);
	ck_assert_msg(r->status == VS_VARIANT_DONE, "%s", r->error);
}

static const vs_state *state(const vs_result *r, int64_t id, int64_t step)
{
	/* Rows are step-major in scenario order. */
	int n = r->n_actors;
	for (int i = 0; i < n; i++) {
		const vs_state_row *row = &r->rows[step * n + i];
		if (row->actor_id == id && row->step == step)
			return &row->s;
	}
	ck_abort_msg("no row for actor %lld step %lld", (long long)id,
	             (long long)step);
	return NULL;
}

/* ---- poses, rebuilt from docs/conventions.md ---------------------------- */

typedef struct pose {
	double R[3][3];
	double t[3];
} pose;

static pose make_pose(double x, double y, double z, double yaw,
                      double pitch, double roll)
{
	double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch);
	double cr = cos(roll), sr = sin(roll);
	/* Rz(yaw) Rx(pitch) Ry(roll), multiplied out by hand */
	pose p = {{{cy * cr - sy * sp * sr, -sy * cp, cy * sr + sy * sp * cr},
	           {sy * cr + cy * sp * sr, cy * cp, sy * sr - cy * sp * cr},
	           {-cp * sr, sp, cp * cr}},
	          {x, y, z}};
	return p;
}

static pose pose_of(const vs_state *s)
{
	return make_pose(s->x, s->y, s->z, s->yaw, s->pitch, s->roll);
}

static pose mul(const pose *a, const pose *b)
{
	pose c;
	for (int i = 0; i < 3; i++) {
		c.t[i] = a->t[i];
		for (int j = 0; j < 3; j++) {
			c.R[i][j] = 0;
			for (int k = 0; k < 3; k++)
				c.R[i][j] += a->R[i][k] * b->R[k][j];
			c.t[i] += a->R[i][j] * b->t[j];
		}
	}
	return c;
}

static pose inv(const pose *a)
{
	pose c;
	for (int i = 0; i < 3; i++) {
		c.t[i] = 0;
		for (int j = 0; j < 3; j++)
			c.R[i][j] = a->R[j][i];
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			c.t[i] -= a->R[j][i] * a->t[j];
	return c;
}

static void apply(const pose *a, const double q[3], double out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = a->t[i] + a->R[i][0] * q[0] + a->R[i][1] * q[1] +
		         a->R[i][2] * q[2];
}

static double pose_diff(const pose *a, const pose *b)
{
	double m = 0;
	for (int i = 0; i < 3; i++) {
		m = fmax(m, fabs(a->t[i] - b->t[i]));
		for (int j = 0; j < 3; j++)
			m = fmax(m, fabs(a->R[i][j] - b->R[i][j]));
	}
	return m;
}

static double wrap(double a)
{
	return remainder(a, 2 * PI);
}

/* World velocity of the point q (actor frame) of an actor in state s. */
static void point_vel(const vs_state *s, const double q[3], double v[3])
{
	pose p = pose_of(s);
	double r[3] = {0, 0, 0};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			r[i] += p.R[i][j] * q[j];
	v[0] = s->vx + s->wy * r[2] - s->wz * r[1];
	v[1] = s->vy + s->wz * r[0] - s->wx * r[2];
	v[2] = s->vz + s->wx * r[1] - s->wy * r[0];
}

/* ---- tests -------------------------------------------------------------- */

/* Steady circle: the truck's rear axle on radius R1, the hitch c off that
 * axle along the truck, the single trailer axle L2 behind the hitch: the
 * trailer axle settles on sqrt(R1^2 + c^2 - L2^2) about the same centre. */
START_TEST(trailer_steady_circle)
{
	const double delta = 0.15, l = 4.35, c = -0.3, L2 = 5.6 + 5.2;
	vs_scenario *s = load("vsweep: 1\nstep: 0.01\nduration: 90\n" ASSETS
	                      "actors:\n" TRUCK(1, 0, 0, 0, 5, 0.15, 0, 0)
	                      "  - {id: 2, asset: single, attach: {parent: 1, "
	                      "type: trailer, parent_point: "
	                      "attach_fifth_wheel}}\n");
	vs_result r;
	run(s, &r);
	double R1 = l / tan(delta);
	double want = sqrt(R1 * R1 + c * c - L2 * L2);
	/* The truck starts at the origin facing +Y with its rear axle at
	 * y = -2.25 and turns left: the centre is R1 to its left. */
	double cx = -R1, cy = -2.25, worst = 0;
	const double axle[3] = {0, -5.2, 0};
	for (int64_t k = 6000; k <= 9000; k++) {
		const vs_state *t = state(&r, 2, k);
		pose p = pose_of(t);
		double a[3];
		apply(&p, axle, a);
		double rad = hypot(a[0] - cx, a[1] - cy);
		worst = fmax(worst, fabs(rad / want - 1));
		/* settled: turning with the truck */
		ck_assert_double_eq_tol(t->wz, state(&r, 1, k)->wz, 1e-9);
	}
	printf("trailer steady circle: R1 %.4f m, axle radius want %.6f m, "
	       "worst relative error %.3g\n", R1, want, worst);
	ck_assert_double_lt(worst, 0.01);
	ck_assert_double_lt(worst, 1e-6); /* what it achieves */
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* Straight ahead from an articulation theta0, the hitch draws the trailer
 * along a tractrix: tan(theta / 2) = tan(theta0 / 2) exp(-s / L2). */
START_TEST(trailer_tractrix)
{
	vs_scenario *s = load("vsweep: 1\nstep: 0.02\nduration: 20\n" ASSETS
	                      "actors:\n" TRUCK(1, 3, 4, 0.4, 5, 0, 0, 0)
	                      "  - {id: 2, asset: single, attach: {parent: 1, "
	                      "type: trailer, heading: 30, parent_point: "
	                      "attach_fifth_wheel}}\n");
	vs_result r;
	run(s, &r);
	const double L2 = 10.8, v = 5;
	double worst = 0;
	for (int64_t k = 0; k <= 1000; k++) {
		double th = wrap(state(&r, 2, k)->yaw - state(&r, 1, k)->yaw);
		double want = 2 * atan(tan(15 * DEG) * exp(-v * 0.02 * k / L2));
		worst = fmax(worst, fabs(th - want));
	}
	printf("trailer tractrix: worst articulation error %.3g rad\n", worst);
	ck_assert_double_lt(worst, 1e-9);
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* A fixed child keeps parent^-1 child = T(p + o) Rz(h) Rx(s) T(-c) at
 * every step, moves as a point of the parent's body, turns with it. */
START_TEST(fixed_keeps_its_transform)
{
	vs_scenario *s = load(
		"vsweep: 1\nstep: 0.01\nduration: 20\n" ASSETS "actors:\n"
		"  - {id: 7, asset: crate, attach: {parent: 1, type: fixed, "
		"offset: [0.3, -1, 0.2], heading: 30, slope: 10, child_point: "
		"attach_top, parent_point: attach_roof}}\n"
		TRUCK(1, 10, -5, 0.7, 8, 0.05, 0.1, 6));
	vs_result r;
	run(s, &r);
	/* C = T(p + o) Rz(30 deg) Rx(10 deg) T(-c); make_pose's last
	 * angle is the Rx factor */
	const double pp[3] = {0.1 + 0.3, 1.5 - 1, 3.6 + 0.2};
	const double cp[3] = {0.2, 0.3, 1.0};
	pose rot = make_pose(0, 0, 0, 30 * DEG, 10 * DEG, 0);
	pose back = make_pose(-cp[0], -cp[1], -cp[2], 0, 0, 0);
	pose C = mul(&rot, &back);
	for (int i = 0; i < 3; i++)
		C.t[i] += pp[i];
	double worst = 0, worst_v = 0, fd = 0;
	for (int64_t k = 0; k <= 2000; k++) {
		const vs_state *ps = state(&r, 1, k), *cs = state(&r, 7, k);
		pose P = pose_of(ps), Q = pose_of(cs), Pi = inv(&P);
		pose rel = mul(&Pi, &Q);
		worst = fmax(worst, pose_diff(&rel, &C));
		/* velocity of the parent's body point where the child's
		 * origin is; the same angular velocity */
		double v[3];
		point_vel(ps, C.t, v);
		worst_v = fmax(worst_v, fmax(fabs(v[0] - cs->vx),
		                             fmax(fabs(v[1] - cs->vy),
		                                  fabs(v[2] - cs->vz))));
		ck_assert_double_eq(cs->wz, ps->wz);
		/* and the velocity is the motion's: trapezoid over a step
		 * (from step 2: the parent's step-0 state has no yaw rate
		 * yet, its steer jumps at step 1) */
		if (k > 1) {
			const vs_state *c0 = state(&r, 7, k - 1);
			fd = fmax(fd, fabs((cs->x - c0->x) / 0.01 -
			                   (cs->vx + c0->vx) / 2));
		}
	}
	printf("fixed child: worst |parent^-1 child - C| %.3g, velocity "
	       "%.3g m/s, finite-difference mismatch %.3g m/s\n", worst,
	       worst_v, fd);
	ck_assert_double_lt(worst, 1e-9);
	ck_assert_double_lt(worst_v, 1e-9);
	/* The parent's yaw rate is constant within a step and jumps
	 * between steps (its steer does), so the trapezoid is off by about
	 * d(omega) |r| / 2, a few mm/s here; a wrong omega x r would be off
	 * by omega |r|, about 1 m/s. */
	ck_assert_double_lt(fd, 1e-2);
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* The slope is a pitch about the child's X (right) axis, nose up
 * positive (RoadRunner): on a level parent a fixed child with slope +-10
 * deg and heading 0 has its forward axis (0, 1, 0) at world
 * (-sin yaw cos s, cos yaw cos s, sin s), yaw the parent's, at every step
 * while the parent drives a curve. */
START_TEST(fixed_slope_is_a_pitch)
{
	const double slope = (_i ? -10 : 10) * DEG;
	char text[4096];
	snprintf(text, sizeof text,
	         "vsweep: 1\nstep: 0.1\nduration: 2\n" ASSETS "actors:\n"
	         TRUCK(1, 10, -5, 0.7, 3, 0.1, 0, 0)
	         "  - {id: 2, asset: crate, attach: {parent: 1, type: fixed, "
	         "heading: 0, slope: %d, child_point: Origin, parent_point: "
	         "attach_roof}}\n", _i ? -10 : 10);
	vs_scenario *s = load(text);
	vs_result r;
	run(s, &r);
	for (int64_t k = 0; k <= 20; k++) {
		const vs_state *ps = state(&r, 1, k);
		pose Q = pose_of(state(&r, 2, k));
		ck_assert_double_eq_tol(ps->pitch, 0, 1e-15);
		ck_assert_double_eq_tol(ps->roll, 0, 1e-15);
		ck_assert_double_eq_tol(Q.R[0][1], -sin(ps->yaw) * cos(slope),
		                        1e-12);
		ck_assert_double_eq_tol(Q.R[1][1], cos(ps->yaw) * cos(slope),
		                        1e-12);
		ck_assert_double_eq_tol(Q.R[2][1], sin(slope), 1e-12);
		/* the right axis stays level: a pitch, not a bank */
		ck_assert_double_eq_tol(Q.R[2][0], 0, 1e-12);
	}
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* The pose turns heading, then pitch about the actor's X (right) axis,
 * then roll about its Y (forward) axis (results format 2). So the
 * forward axis R (0, 1, 0) = (-sin y cos p, cos y cos p, sin p) whatever
 * the roll, nose up for p > 0, and the right axis R (1, 0, 0) dips by
 * -cos p sin r; the former order Rz Ry(pitch) Rx(roll) fails both. */
START_TEST(pose_axes_heading_pitch_roll)
{
	static const double a[][3] = {{0, 0.3, 0}, {0, 0, 0.3},
	                              {0.7, 0.2, -0.5}, {-2.1, -0.4, 1.1},
	                              {3.0, 1.2, 0.25}};
	for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
		vs_state st = {0};
		st.yaw = a[i][0];
		st.pitch = a[i][1];
		st.roll = a[i][2];
		double R[9];
		vs_state_rotation(&st, R);
		double y = a[i][0], p = a[i][1], r = a[i][2];
		ck_assert_double_eq_tol(R[1], -sin(y) * cos(p), 1e-15);
		ck_assert_double_eq_tol(R[4], cos(y) * cos(p), 1e-15);
		ck_assert_double_eq_tol(R[7], sin(p), 1e-15);
		ck_assert_double_eq_tol(R[6], -cos(p) * sin(r), 1e-15);
		ck_assert_double_eq_tol(R[8], cos(p) * cos(r), 1e-15);
		/* the right axis is level in the heading's plane when the
		 * roll is 0, whatever the pitch */
		if (r == 0)
			ck_assert_double_eq_tol(R[6], 0, 1e-15);
	}
}
END_TEST

/* Placement at start, fixed: every pair of (Front, Origin, Rear,
 * imported) points, with an offset, heading and slope: the child's point
 * lands on the parent's plus the offset, turned by Rz(h) Rx(s). */
START_TEST(placement_fixed_all_points)
{
	static const char *const cps[] = {"Front", "Origin", "Rear",
	                                  "attach_top"};
	static const char *const pps[] = {"Front", "Origin", "Rear",
	                                  "attach_roof"};
	static const double cpos[4][3] = {
		{0, 1, 0}, {0, 0, 0}, {0, -1, 0}, {0.2, 0.3, 1.0}};
	static const double ppos[4][3] = {
		{0, 3.1, 0}, {0, 0, 0}, {0, -3.1, 0}, {0.1, 1.5, 3.6}};
	int ci = _i / 4, pi = _i % 4;
	char text[4096];
	snprintf(text, sizeof text,
	         "vsweep: 1\nstep: 0.1\nduration: 0.1\n" ASSETS "actors:\n"
	         TRUCK(1, 10, -5, 0.7, 3, 0.1, 0, 0)
	         "  - {id: 2, asset: crate, start: {position: [99, 99, 9]}, "
	         "attach: {parent: 1, type: fixed, offset: [0.5, -0.25, 0.75], "
	         "heading: -120, slope: 35, child_point: %s, parent_point: "
	         "%s}}\n", cps[ci], pps[pi]);
	vs_scenario *s = load(text);
	vs_result r;
	run(s, &r);
	pose P = pose_of(state(&r, 1, 0)), Q = pose_of(state(&r, 2, 0));
	double want[3], got[3];
	const double q[3] = {ppos[pi][0] + 0.5, ppos[pi][1] - 0.25,
	                     ppos[pi][2] + 0.75};
	apply(&P, q, want);
	apply(&Q, cpos[ci], got);
	for (int k = 0; k < 3; k++)
		ck_assert_double_eq_tol(got[k], want[k], 1e-9);
	pose rot = make_pose(0, 0, 0, -120 * DEG, 35 * DEG, 0);
	pose PR = mul(&P, &rot);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			ck_assert_double_eq_tol(Q.R[i][j], PR.R[i][j], 1e-12);
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* Placement at start, trailer: its point's (x, y) on the parent's plus
 * the offset, its yaw the parent's plus the heading, on the ground. */
START_TEST(placement_trailer_points)
{
	static const char *const cps[] = {"Front", "hitch"};
	static const char *const pps[] = {"Front", "Origin", "Rear",
	                                  "attach_fifth_wheel"};
	static const double cpos[2][3] = {{0, 6.8, 0}, {0, 5.6, 1.2}};
	static const double ppos[4][3] = {
		{0, 3.1, 0}, {0, 0, 0}, {0, -3.1, 0}, {0, -1.95, 1.2}};
	int ci = _i / 4, pi = _i % 4;
	char text[4096];
	snprintf(text, sizeof text,
	         "vsweep: 1\nstep: 0.1\nduration: 0.1\n" ASSETS "actors:\n"
	         TRUCK(1, 10, -5, 0.7, 3, 0.1, 0, 0)
	         "  - {id: 2, asset: tandem, attach: {parent: 1, type: trailer, "
	         "offset: [0.2, -0.5, 0], heading: 25, child_point: %s, "
	         "parent_point: %s}}\n", cps[ci], pps[pi]);
	vs_scenario *s = load(text);
	vs_result r;
	run(s, &r);
	const vs_state *ps = state(&r, 1, 0), *cs = state(&r, 2, 0);
	pose P = pose_of(ps), Q = pose_of(cs);
	double want[3], got[3];
	const double q[3] = {ppos[pi][0] + 0.2, ppos[pi][1] - 0.5,
	                     ppos[pi][2]};
	apply(&P, q, want);
	apply(&Q, cpos[ci], got);
	ck_assert_double_eq_tol(got[0], want[0], 1e-9);
	ck_assert_double_eq_tol(got[1], want[1], 1e-9);
	ck_assert_double_eq_tol(wrap(cs->yaw - ps->yaw - 25 * DEG), 0, 1e-12);
	ck_assert_double_eq(cs->z, ps->z);
	ck_assert_double_eq(cs->pitch, 0);
	ck_assert_double_eq(cs->roll, 0);
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* Truck, semi-trailer, a second trailer on the first one's rear, a crate
 * on the second; listed children first, so order comes from the plan. */
#define ROAD_TRAIN                                                          \
	"vsweep: 1\nstep: 0.01\nduration: 40\n" ASSETS "actors:\n"           \
	"  - {id: 4, asset: crate, attach: {parent: 3, type: fixed, "        \
	"parent_point: Origin, child_point: Origin, offset: [0, 0, 3.5]}}\n" \
	"  - {id: 3, asset: pup, attach: {parent: 2, type: trailer, "        \
	"offset: [0, -1.2, 0]}}\n"                                            \
	"  - {id: 2, asset: tandem, attach: {parent: 1, type: trailer, "     \
	"parent_point: attach_fifth_wheel}}\n"                               \
	TRUCK(1, 0, 0, 0, 8, 0.04, 0.12, 8)

/* Lateral velocity of the axle group centre y_a (actor frame). */
static double axle_slip(const vs_state *s, double ya)
{
	const double q[3] = {0, ya, 0};
	double v[3];
	point_vel(s, q, v);
	return cos(s->yaw) * v[0] + sin(s->yaw) * v[1];
}

START_TEST(road_train_stays_connected)
{
	vs_scenario *s = load(ROAD_TRAIN);
	vs_result r;
	run(s, &r);
	/* hitch 1: the truck's fifth wheel and the semi's hitch (both at
	 * 1.2 m); hitch 2: 1.2 m behind the semi's rear and the pup's Front
	 * (both on the ground) */
	const double fw[3] = {0, -1.95, 1.2}, hi[3] = {0, 5.6, 1.2};
	const double rear[3] = {0, -6.8 - 1.2, 0}, front[3] = {0, 4, 0};
	double worst = 0, slip = 0, fd = 0, art_lo = 1, art_hi = -1;
	for (int64_t k = 0; k <= 4000; k++) {
		const vs_state *a = state(&r, 1, k), *b = state(&r, 2, k);
		const vs_state *c = state(&r, 3, k);
		pose A = pose_of(a), B = pose_of(b), C = pose_of(c);
		double x1[3], x2[3], y1[3], y2[3];
		apply(&A, fw, x1);
		apply(&B, hi, x2);
		apply(&B, rear, y1);
		apply(&C, front, y2);
		for (int i = 0; i < 3; i++)
			worst = fmax(worst, fmax(fabs(x1[i] - x2[i]),
			                         fabs(y1[i] - y2[i])));
		/* no lateral slip at either trailer's axle group centre */
		slip = fmax(slip, fmax(fabs(axle_slip(b, -4.85)),
		                       fabs(axle_slip(c, -2.15))));
		/* velocities and yaw rates are the motion's (trapezoid;
		 * from step 2, as in fixed_keeps_its_transform) */
		if (k > 1) {
			const vs_state *b0 = state(&r, 2, k - 1);
			const vs_state *c0 = state(&r, 3, k - 1);
			fd = fmax(fd, fabs((b->x - b0->x) / 0.01 -
			                   (b->vx + b0->vx) / 2));
			fd = fmax(fd, fabs((c->y - c0->y) / 0.01 -
			                   (c->vy + c0->vy) / 2));
			fd = fmax(fd, fabs(wrap(c->yaw - c0->yaw) / 0.01 -
			                   (c->wz + c0->wz) / 2));
		}
		double art = wrap(b->yaw - a->yaw);
		art_lo = fmin(art_lo, art);
		art_hi = fmax(art_hi, art);
		/* the crate rides 3.5 m above the pup's origin */
		const vs_state *d = state(&r, 4, k);
		ck_assert_double_eq_tol(d->z - c->z, 3.5, 1e-12);
		ck_assert_double_eq_tol(wrap(d->yaw - c->yaw), 0, 1e-12);
	}
	printf("road train: worst hitch gap %.3g m, axle slip %.3g m/s, "
	       "finite-difference mismatch %.3g, articulation [%.1f, %.1f] "
	       "deg\n", worst, slip, fd, art_lo / DEG, art_hi / DEG);
	ck_assert_double_lt(worst, 1e-9);
	ck_assert_double_lt(slip, 1e-9);
	ck_assert_double_lt(fd, 1e-3);
	/* off-tracking: the articulation is not a constant */
	ck_assert_double_gt(art_hi - art_lo, 5 * DEG);

	/* actor_info rows */
	ck_assert_int_eq(r.n_actors, 4);
	const vs_actor_row *row = r.actors;
	ck_assert_int_eq(row[0].parent_id, 3);
	ck_assert_str_eq(row[0].attach_type, "fixed");
	ck_assert_str_eq(row[0].kind, "object");
	ck_assert_int_eq(row[1].parent_id, 2);
	ck_assert_str_eq(row[1].attach_type, "trailer");
	ck_assert_str_eq(row[1].kind, "vehicle");
	ck_assert_int_eq(row[1].wheel_count, 4);
	ck_assert_ptr_null(row[1].vehicle_model);
	ck_assert_ptr_null(row[1].behaviour);
	ck_assert_int_eq(row[3].parent_id, 0);
	ck_assert_ptr_null(row[3].attach_type);
	ck_assert_str_eq(row[3].vehicle_model, "arc");
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* A variant can move a trailer's axles ahead of its hitch; it then fails
 * with the reason, rather than integrate a yaw rate of 1 / 0. */
START_TEST(variant_with_hitch_behind_axles_fails)
{
	vs_scenario *s = load(ROAD_TRAIN);
	int i = vs_scenario_find_actor(s, 2);
	/* front axle at 6.8 - 0.5, rear at -6.8 + 11.8: centre 5.65 m */
	s->actors[i].front_overhang = 0.5;
	s->actors[i].rear_overhang = 11.8;
	vs_result r = {0};
	vs_sim_opts o = {.record_every = 1};
	ck_assert_int_eq(vs_sim_run(s, &o, &r), 0);
	ck_assert_int_eq(r.status, VS_VARIANT_FAILED);
	ck_assert_str_eq(r.error, "actor 2 (actor2): attach: a trailer's "
	                          "contact point must lie ahead of its "
	                          "axles' centre (y = 5.65 m); hitch is at "
	                          "y = 5.6 m");
	vs_result_finish(&r);
	vs_scenario_destroy(s);
}
END_TEST

/* Changing the parent's start carries the children along. */
START_TEST(children_follow_a_moved_parent)
{
	vs_scenario *s = load(ROAD_TRAIN);
	vs_result r0, r1;
	s->duration = 1;
	run(s, &r0);
	int i = vs_scenario_find_actor(s, 1);
	s->actors[i].start_pos[0] += 100;
	run(s, &r1);
	for (int64_t k = 0; k <= 100; k++)
		for (int64_t id = 1; id <= 4; id++)
			ck_assert_double_eq_tol(state(&r1, id, k)->x -
			                        state(&r0, id, k)->x, 100, 1e-9);
	vs_result_finish(&r0);
	vs_result_finish(&r1);
	vs_scenario_destroy(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attach");
	TCase *tc = tcase_create("attach");
	tcase_add_test(tc, trailer_steady_circle);
	tcase_add_test(tc, trailer_tractrix);
	tcase_add_test(tc, fixed_keeps_its_transform);
	tcase_add_loop_test(tc, fixed_slope_is_a_pitch, 0, 2);
	tcase_add_test(tc, pose_axes_heading_pitch_roll);
	tcase_add_loop_test(tc, placement_fixed_all_points, 0, 16);
	tcase_add_loop_test(tc, placement_trailer_points, 0, 8);
	tcase_add_test(tc, road_train_stays_connected);
	tcase_add_test(tc, variant_with_hitch_behind_axles_fails);
	tcase_add_test(tc, children_follow_a_moved_parent);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
