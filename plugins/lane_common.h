/* lane_common.h — lane keeping and lane changes, shared by the shipped
 * behaviours that drive on the map (lane_follow, idm, cut_in); idm's lead
 * search is lane_lead.h.
 *
 * Header-only, like vehicle_common.h, so each behaviour stays one shared
 * object built against <vsweep/plugin.h> alone. Everything here reads the
 * world through the ABI 1.1 host services (previous step only).
 *
 * Lane keeping is pure pursuit of the rear axle: the target is the lane's
 * centre line (shifted by the lane change's offset) a lookahead distance
 * ahead along s, continuing into the lane's successor past its end; the
 * road-wheel angle that puts the rear axle's arc through it is
 * atan(2 l sin(alpha) / ld). On a circle that arc is the lane's own only
 * when the rear axle runs on the centre line, so the target is moved
 * inwards by kappa ry^2 / 2 (kappa the lane's curvature, ry the rear
 * axle's distance behind the origin): then the origin, which MapLocation
 * reports, runs on the centre line instead.
 *
 * A lane change moves the reference to the neighbour lane at once and
 * starts the origin's offset from that lane's centre at the distance
 * between the centres across the road, taking it to 0 along a quintic
 * 10 u^3 - 15 u^4 + 6 u^5 in time (no jump in lateral speed or
 * acceleration) over its duration; the target is then put on the arc the
 * rear axle must drive for that (lc_offset). */
#ifndef VSWEEP_PLUGINS_LANE_COMMON_H
#define VSWEEP_PLUGINS_LANE_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <vsweep/plugin.h>

#include "angle_common.h"

#define LC_PI 3.14159265358979323846

/* Set once at entry, read-only afterwards (instances on many threads). */
static const vs_host *host;

/* The lane-keeping and lane-change parameters, as vs_param initialisers. */
#define LC_PARAMS                                                          \
	{"lookahead_time", 0.8, 0.05, 10.0, "s",                           \
	 "pure-pursuit lookahead: speed times this ..."},                  \
	{"min_lookahead", 6.0, 0.5, 100.0, "m",                            \
	 "... but never less than this"},                                  \
	{"change_time", -1.0, -1.0, 1e6, "s",                              \
	 "start a lane change at this time; -1: never"},                   \
	{"change_s", -1.0, -1.0, 1e7, "m",                                 \
	 "start a lane change when s along the lane reaches this; -1: "    \
	 "never"},                                                         \
	{"change_side", 0.0, -1.0, 1.0, "",                                \
	 "lane change to the left (1) or right (-1) neighbour; 0: none"},  \
	{"change_duration", 4.0, 0.1, 60.0, "s",                           \
	 "time the lateral move of a lane change takes"}
#define LC_N_PARAMS 6

typedef struct lc_lane {
	const vs_host *host;
	void *ctx;
	double wheelbase;      /* m */
	double rear_y;         /* m, rear axle in the actor frame (< 0) */
	double ratio;          /* steering wheel : road wheel */
	double look_time;      /* s */
	double look_min;       /* m */
	double change_time;    /* s, < 0: none */
	double change_s;       /* m, < 0: none */
	int change_side;       /* +1 left, -1 right, 0 none */
	double change_dur;     /* s */
	char lane[40];         /* the reference lane; "" until the first step */
	int changing;          /* 0: not yet, 1: moving, 2: done */
	double change_t0;      /* s, when it began */
	double offset0;        /* m, the offset from the new lane's centre
	                          when it began, + = left */
	int64_t self_id;       /* the actor's ID */
	char from[40];         /* during a change: the old lane while the
	                          body is still over it, else "" */
	double from_s;         /* m, the actor's s on it at the last look */
} lc_lane;

/* ABI 1.1 host with the services this needs. */
static inline int lc_host_ok(const vs_host *h)
{
	return h && h->struct_size >= offsetof(vs_host, actor_attr) +
	                                  sizeof h->actor_attr;
}

/* Sets up from create's args; p: the LC_PARAMS values in order. */
static inline void lc_init(lc_lane *lc, const vs_create_args *args,
                           const double *p)
{
	const vs_actor_info *a = args->actor;
	memset(lc, 0, sizeof *lc);
	lc->host = args->host;
	lc->ctx = args->host_ctx;
	lc->self_id = a->id;
	lc->wheelbase = a->wheelbase;
	lc->rear_y = a->rear_axle_y;
	lc->ratio = a->steering_ratio;
	lc->look_time = p[0];
	lc->look_min = p[1];
	lc->change_time = p[2];
	lc->change_s = p[3];
	lc->change_side = (int)lround(p[4]);
	lc->change_dur = p[5];
}

static inline double lc_wrap(double a)
{
	a = ac_rem_2pi(a);
	return a <= -LC_PI ? a + 2.0 * LC_PI : a;
}

/* The point of the lane chain starting at lane (UUID) at s (m) from its
 * start, into its successors past its end. Returns 0, or -1 when the
 * chain ends first: then the point is on the straight line on from the
 * last lane's end, so that a car driving off a dead end keeps straight
 * instead of turning back to it. */
static inline int lc_point_ahead(const lc_lane *lc, const char *lane,
                                 double s, vs_lane_point *out)
{
	for (int hop = 0; hop < 8; hop++) {
		if (lc->host->lane_point(lc->ctx, lane, s, out))
			return -1;
		if (s <= out->length)
			return 0;
		const char *next = lc->host->lane_link(lc->ctx, lane,
		                                       VS_LANE_SUCCESSOR);
		if (!next || !(out->length > 0)) {
			double past = s - out->length; /* m */
			out->x += past * cos(out->heading);
			out->y += past * sin(out->heading);
			return -1;
		}
		s -= out->length;
		lane = next;
	}
	return -1;
}

/* The reference lane and the actor's s on it this step (m), from its
 * MapLocation *loc: the first lane it is on, then the successor when the
 * map puts it there; on any other lane (a neighbour during a lane change,
 * or an overlapping one) it keeps the reference, with s at the same
 * normalised position. Returns s, or NAN without a lane. */
static inline double lc_track(lc_lane *lc, const vs_lane_location *loc)
{
	if (!loc->lane[0])
		return NAN;
	const char *next = lc->lane[0] ? lc->host->lane_link(
		lc->ctx, lc->lane, VS_LANE_SUCCESSOR) : NULL;
	if (!lc->lane[0] || (next && strcmp(loc->lane, next) == 0))
		snprintf(lc->lane, sizeof lc->lane, "%s", loc->lane);
	if (strcmp(loc->lane, lc->lane) == 0)
		return loc->s;
	vs_lane_point p;
	if (lc->host->lane_point(lc->ctx, lc->lane, 0.0, &p))
		return loc->s;
	return loc->position * p.length;
}

/* The signed distance (m, + = left of its travel direction) of point
 * (x, y) from the centre line at lane point c, across the lane. */
static inline double lc_across(const vs_lane_point *c, double x, double y)
{
	return -(x - c->x) * sin(c->heading) + (y - c->y) * cos(c->heading);
}

/* The point *b of lane `to` across the road from point *a of another
 * lane: the foot of the perpendicular from *a on to's centre line. Starts
 * at a's normalised position (sa m along a lane of a->length m; exact on
 * a circle, where lanes of different radii have different lengths) and
 * slides along to's tangent twice, for lanes whose widths vary. Returns
 * to's s (m), or NAN when the host has no such point. */
static inline double lc_across_point(const lc_lane *lc, const char *to,
                                     const vs_lane_point *a, double sa,
                                     vs_lane_point *b)
{
	if (lc->host->lane_point(lc->ctx, to, 0.0, b) || !(a->length > 0))
		return NAN;
	double sb = sa / a->length * b->length; /* m */
	for (int i = 0; i < 3; i++) {
		if (lc->host->lane_point(lc->ctx, to, sb, b))
			return NAN;
		if (i == 2)
			break;
		sb += (a->x - b->x) * cos(b->heading) +
		      (a->y - b->y) * sin(b->heading);
		sb = fmin(fmax(sb, 0.0), b->length);
	}
	return sb;
}

/* Starts the lane change when its time or s (m, on the reference lane)
 * has come. Returns s on the reference lane afterwards: on the new one,
 * across the road from the old s, when the change began. The old lane is
 * kept in from (at from_s): the body is still in it, and so is what is
 * ahead there (lane_lead.h). */
static inline double lc_maybe_change(lc_lane *lc, double t, double s)
{
	if (lc->changing || !lc->change_side)
		return s;
	int due = (lc->change_time >= 0 && t >= lc->change_time) ||
	          (lc->change_s >= 0 && s >= lc->change_s);
	if (!due)
		return s;
	const char *to = lc->host->lane_link(
		lc->ctx, lc->lane, lc->change_side > 0 ? VS_LANE_LEFT
		                                       : VS_LANE_RIGHT);
	vs_lane_point a, b;
	lc->changing = 2; /* no neighbour: the change is over before it began */
	if (!to || lc->host->lane_point(lc->ctx, lc->lane, s, &a))
		return s;
	/* Across the road, not at the same s: on a curve the lanes differ
	 * in length, and the same s on the other lane lies metres ahead or
	 * behind (on a 57 m ring 300 m on, 17 m), which the path would then
	 * swerve to. */
	double sb = lc_across_point(lc, to, &a, s, &b); /* m */
	if (!isfinite(sb))
		return s;
	lc->changing = 1;
	lc->change_t0 = t;
	lc->offset0 = lc_across(&b, a.x, a.y); /* the old centre, from the new */
	snprintf(lc->from, sizeof lc->from, "%s", lc->lane);
	lc->from_s = s;
	snprintf(lc->lane, sizeof lc->lane, "%s", to);
	return sb;
}

/* The lateral offset (m, + = left) of the origin's path from the
 * reference lane's centre at time t (s) during the change, offset0
 * (1 - q(u)), q = 10 u^3 - 15 u^4 + 6 u^5, u = (t - t0) / duration in
 * [0, 1), with its time derivatives 1 to 5 in dq[1..5] (m/s^k). */
static inline void lc_quintic(const lc_lane *lc, double t, double dq[6])
{
	double T = lc->change_dur, u = (t - lc->change_t0) / T;
	double w = u * (1.0 - u), k = -lc->offset0;
	dq[0] = lc->offset0 + k * u * u * u * (10.0 - 15.0 * u + 6.0 * u * u);
	dq[1] = k * 30.0 * w * w / T;
	dq[2] = k * 60.0 * w * (1.0 - 2.0 * u) / (T * T);
	dq[3] = k * 60.0 * (1.0 - 6.0 * w) / (T * T * T);
	dq[4] = k * 360.0 * (2.0 * u - 1.0) / (T * T * T * T);
	dq[5] = k * 720.0 / (T * T * T * T * T);
}

/* The rear axle's lateral offset from the reference lane's centre during
 * the change, at time t (s) and speed v (m/s), with its first two time
 * derivatives: y[0..2] in m, m/s, m/s^2. The origin, r = -rear_y ahead
 * of the rear axle along its heading psi, has offset d = y + r sin(psi)
 * and the rear axle moves sideways at v sin(psi), so y solves
 * y + rho dy/dt = d (rho = r / v, s): d smoothed over rho. That is exactly
 * the polynomial sum_n (-rho)^n d^(n) plus c exp(-(t - t0) / rho), c
 * making y = d at the start; after the end, what is left of it decays as
 * exp(-(t - t1) / rho). Returns 0 once that is below a nanometre. */
static inline int lc_rear_path(const lc_lane *lc, double t, double v,
                               double y[3])
{
	double T = lc->change_dur, tau = t - lc->change_t0; /* s */
	y[0] = lc->offset0;
	y[1] = y[2] = 0.0;
	if (!(tau > 0))
		return 1;
	double rho = -lc->rear_y / v, a = rho / T, k = -lc->offset0;
	if (!(rho > 1e-6)) { /* the origin on the rear axle (or behind it) */
		double d[6];
		lc_quintic(lc, t, d);
		memcpy(y, d, 3 * sizeof *y);
		return tau < T;
	}
	double c = k * a * a * a * (60.0 + a * (360.0 + a * 720.0)); /* m */
	if (tau < T) {
		double d[6];
		lc_quintic(lc, t, d);
		for (int j = 0; j < 3; j++) {
			double f = 1.0;
			y[j] = 0.0;
			for (int n = 0; j + n < 6; n++, f *= -rho)
				y[j] += f * d[j + n];
		}
		double e = c * exp(-tau / rho); /* m */
		y[0] += e;
		y[1] -= e / rho;
		y[2] += e / (rho * rho);
		return 1;
	}
	double y1 = k * a * a * a * (-60.0 + a * (360.0 - a * 720.0)) +
	            c * exp(-T / rho); /* m, at the end */
	y[0] = y1 * exp(-(tau - T) / rho);
	y[1] = -y[0] / rho;
	y[2] = y[0] / (rho * rho);
	return fabs(y[0]) >= 1e-9;
}

/* The lateral offset (m, + = left) from the reference lane's centre of
 * the pure-pursuit target `ahead` m ahead of the origin, for a state at
 * time t (s) moving at v (m/s) and a step of dt (s), that keeps the
 * origin on the quintic in time.
 *
 * Pure pursuit steers the rear axle on to the arc through the target, so
 * the target is put on the arc the rear axle should drive: from where it
 * should be (lc_rear_path), along its heading there (sin psi = y' / v),
 * with the curvature of its path in the middle of the step (the steering
 * holds over the step), kappa = y'' / (v^2 cos psi), at L = ahead +
 * r cos psi along the lane (ahead shortened by 1 - kl y on a lane curving
 * at kl, 1/m: the rear axle's own line is the inner or outer one). On
 * that circle the point L further along is
 * L (2 sin psi + kappa L) / (cos psi + sqrt(1 - (sin psi + kappa L)^2))
 * to the side. Chasing the quintic's own value L ahead instead lags: at t
 * (as before) by ahead / v, 0.8 s at 10 m/s; at t + L / v by pure
 * pursuit's lag behind a changing curvature, L^3 d''' / 6 (0.3 m for
 * 3.5 m in 4 s at 10 m/s). Returns 0 once the change is over. */
static inline double lc_offset(lc_lane *lc, double t, double dt,
                               double ahead, double v, double kl)
{
	if (lc->changing != 1)
		return 0.0;
	if (!(v > 0.1)) {
		/* standing: no path to follow, the offset alone */
		double d[6], tau = t - lc->change_t0; /* s */
		if (tau >= lc->change_dur) {
			lc->changing = 2;
			return 0.0;
		}
		lc_quintic(lc, fmax(t, lc->change_t0), d);
		return d[0];
	}
	double y[3], mid[3];
	if (!lc_rear_path(lc, t, v, y)) {
		lc->changing = 2;
		return 0.0;
	}
	lc_rear_path(lc, t + 0.5 * dt, v, mid);
	double sp = fmax(-0.99, fmin(0.99, y[1] / v)); /* sin psi */
	double cp = sqrt(1.0 - sp * sp);
	double kappa = mid[2] / (v * v * cp); /* 1/m */
	double L = ahead * fmax(0.1, 1.0 - kl * y[0]) - lc->rear_y * cp; /* m */
	double m = fmax(-1.0, fmin(1.0, sp + kappa * L));
	return y[0] + L * (2.0 * sp + kappa * L) / (cp + sqrt(1.0 - m * m));
}

/* The steering-wheel angle (rad) that keeps the lane this step, from the
 * actor's previous state self and MapLocation loc at time t (s). Sets
 * *s_out to s on the reference lane (NAN off the map: then 0 is
 * returned). */
static inline double lc_steer(lc_lane *lc, double t, double dt,
                              const vs_state *self,
                              const vs_lane_location *loc, double *s_out)
{
	double s = lc_track(lc, loc);
	*s_out = s;
	if (!isfinite(s))
		return 0.0;
	s = lc_maybe_change(lc, t, s);
	*s_out = s;
	double v = fabs(self->speed);
	double look = fmax(lc->look_min, v * lc->look_time); /* m */
	vs_lane_point p, q;
	lc_point_ahead(lc, lc->lane, s + look, &p);
	lc_point_ahead(lc, lc->lane, s + look + 1.0, &q);
	double kappa = lc_wrap(q.heading - p.heading) / 1.0; /* 1/m */
	double off = lc_offset(lc, t - dt, dt, look, v, kappa); /* m */
	off += kappa * lc->rear_y * lc->rear_y / 2.0;
	double tx = p.x - off * sin(p.heading); /* left of heading h: */
	double ty = p.y + off * cos(p.heading); /* (-sin h, cos h) */
	double h = self->yaw + LC_PI / 2.0;     /* rad from +X */
	double rx = self->x + lc->rear_y * cos(h);
	double ry = self->y + lc->rear_y * sin(h);
	double ld = hypot(tx - rx, ty - ry);
	if (!(ld > 1e-6))
		return 0.0;
	double alpha = lc_wrap(atan2(ty - ry, tx - rx) - h);
	double delta = atan2(2.0 * lc->wheelbase * sin(alpha), ld);
	return delta * lc->ratio;
}

/* Every instance is one calloc'd block. */
static inline void lc_destroy(void *instance)
{
	free(instance);
}

/* The descriptor of a lane behaviour and the plugin's one export. */
#define LC_BEHAVIOUR_PLUGIN(NAME, DOC, CREATE, RESET, STEP)                \
	static const vs_plugin descriptor = {                              \
		.abi_major = VS_ABI_MAJOR,                                 \
		.abi_minor = VS_ABI_MINOR,                                 \
		.struct_size = sizeof(vs_plugin),                          \
		.kind = VS_KIND_BEHAVIOUR,                                 \
		.name = (NAME),                                            \
		.version = "1.0.0",                                        \
		.doc = (DOC),                                              \
		.params = params,                                          \
		.n_params = N_PARAMS,                                      \
		.create = (CREATE),                                        \
		.reset = (RESET),                                          \
		.behaviour_step = (STEP),                                  \
		.destroy = lc_destroy,                                     \
		.needs = VS_NEEDS_MAP,                                     \
	};                                                                 \
	VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)   \
	{                                                                  \
		host = h;                                                  \
		return &descriptor;                                        \
	}

#endif
