/* lane_common.h — lane keeping, lane changes and the lead ahead, shared by
 * the shipped behaviours that drive on the map (lane_follow, idm, cut_in).
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
 * starts the offset from that lane's centre at the distance between the
 * centres, taking it to 0 along a quintic 10 u^3 - 15 u^4 + 6 u^5 (no
 * jump in lateral speed or acceleration) over its duration. */
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

/* Starts the lane change when its time or s has come. */
static inline void lc_maybe_change(lc_lane *lc, double t, double s)
{
	if (lc->changing || !lc->change_side)
		return;
	int due = (lc->change_time >= 0 && t >= lc->change_time) ||
	          (lc->change_s >= 0 && s >= lc->change_s);
	if (!due)
		return;
	const char *to = lc->host->lane_link(
		lc->ctx, lc->lane, lc->change_side > 0 ? VS_LANE_LEFT
		                                       : VS_LANE_RIGHT);
	vs_lane_point a, b;
	lc->changing = 2; /* no neighbour: the change is over before it began */
	if (!to || lc->host->lane_point(lc->ctx, lc->lane, s, &a) ||
	    lc->host->lane_point(lc->ctx, to, s, &b))
		return;
	lc->changing = 1;
	lc->change_t0 = t;
	/* From the new lane's centre, the old one is on the other side. */
	lc->offset0 = -lc->change_side * hypot(b.x - a.x, b.y - a.y);
	snprintf(lc->lane, sizeof lc->lane, "%s", to);
}

/* The lateral offset (m, + = left) of the path from the reference lane's
 * centre at time t (s). */
static inline double lc_offset(lc_lane *lc, double t)
{
	if (lc->changing != 1)
		return 0.0;
	double u = (t - lc->change_t0) / lc->change_dur;
	if (u >= 1.0) {
		lc->changing = 2;
		return 0.0;
	}
	u = u > 0 ? u : 0;
	return lc->offset0 * (1.0 - u * u * u * (10.0 - 15.0 * u + 6.0 * u * u));
}

/* The steering-wheel angle (rad) that keeps the lane this step, from the
 * actor's previous state self and MapLocation loc at time t (s). Sets
 * *s_out to s on the reference lane (NAN off the map: then 0 is
 * returned). */
static inline double lc_steer(lc_lane *lc, double t, const vs_state *self,
                              const vs_lane_location *loc, double *s_out)
{
	double s = lc_track(lc, loc);
	*s_out = s;
	if (!isfinite(s))
		return 0.0;
	lc_maybe_change(lc, t, s);
	double off = lc_offset(lc, t); /* m */
	double v = fabs(self->speed);
	double look = fmax(lc->look_min, v * lc->look_time); /* m */
	vs_lane_point p, q;
	lc_point_ahead(lc, lc->lane, s + look, &p);
	lc_point_ahead(lc, lc->lane, s + look + 1.0, &q);
	double kappa = lc_wrap(q.heading - p.heading) / 1.0; /* 1/m */
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

/* Whether actor id, whose MapLocation *o is in a neighbour of the
 * reference lane (length m), has its body (width m) over that lane's
 * edge: a car cutting in counts as soon as it reaches into the lane. */
static inline int lc_reaches_in(const lc_lane *lc, int64_t id,
                                const vs_lane_location *o, double width,
                                double length)
{
	const char *l = lc->host->lane_link(lc->ctx, lc->lane, VS_LANE_LEFT);
	const char *r = lc->host->lane_link(lc->ctx, lc->lane, VS_LANE_RIGHT);
	if (!((l && strcmp(o->lane, l) == 0) || (r && strcmp(o->lane, r) == 0)))
		return 0;
	vs_lane_point c;
	const vs_state *st = lc->host->previous_state(lc->ctx, id);
	if (!st || lc->host->lane_point(lc->ctx, lc->lane,
	                                o->position * length, &c))
		return 0;
	double d = -(st->x - c.x) * sin(c.heading) +
	           (st->y - c.y) * cos(c.heading); /* m, + = left */
	return fabs(d) < 0.5 * (c.width + width);
}

/* The lead: the nearest other actor ahead whose MapLocation is in the
 * reference lane or the lane after it, or in a neighbour lane with its
 * body reaching into this one, travelling its way (|angle| < 90 deg) —
 * or a character (a pedestrian) on such a lane whichever way it walks,
 * crossing too, while its origin is on the lane (at the kerb it is not in
 * the way). *gap is bumper to bumper along s (m): the centres' distance
 * minus half of each length; *v_lead its speed along the lane (m/s; a
 * character's speed times cos angle, 0 across the lane). Returns its ID,
 * or 0 when the lane ahead is free (within the lane and its successor). */
static inline int64_t lc_lead(const lc_lane *lc, int64_t self_id, double s,
                              double length, double *gap, double *v_lead)
{
	const int64_t *ids;
	size_t n = lc->host->actor_ids(lc->ctx, &ids);
	vs_lane_point here;
	if (!lc->lane[0] || lc->host->lane_point(lc->ctx, lc->lane, 0, &here))
		return 0;
	const char *next = lc->host->lane_link(lc->ctx, lc->lane,
	                                       VS_LANE_SUCCESSOR);
	int64_t best = 0;
	double best_ds = HUGE_VAL, best_along = 1.0;
	for (size_t i = 0; i < n; i++) {
		if (ids[i] == self_id)
			continue;
		vs_lane_location o;
		if (lc->host->map_location(lc->ctx, ids[i], &o))
			continue;
		const vs_actor_attr *a = lc->host->actor_attr(lc->ctx, ids[i]);
		if (!a || a->parent_id)
			continue; /* a trailer is behind its tractor */
		int person = a->kind && strcmp(a->kind, "character") == 0;
		if (person ? !o.is_on_lane : fabs(o.angle) >= LC_PI / 2)
			continue;
		double ds; /* m, centre to centre along s */
		if (strcmp(o.lane, lc->lane) == 0) {
			ds = o.s - s;
			if (ds <= 0 && next && strcmp(next, lc->lane) == 0)
				ds += here.length; /* a ring: ahead, round */
		} else if (next && strcmp(o.lane, next) == 0) {
			ds = here.length - s + o.s;
		} else if (lc_reaches_in(lc, ids[i], &o, a->width,
		                         here.length)) {
			ds = o.position * here.length - s;
		} else {
			continue;
		}
		if (ds > 0 && ds < best_ds) {
			best_ds = ds;
			best = ids[i];
			*gap = ds - 0.5 * (length + a->length);
			best_along = person ? cos(o.angle) : 1.0;
		}
	}
	if (best) {
		const vs_state *st = lc->host->previous_state(lc->ctx, best);
		*v_lead = st ? st->speed * best_along : 0.0;
	}
	return best;
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
	};                                                                 \
	VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)   \
	{                                                                  \
		host = h;                                                  \
		return &descriptor;                                        \
	}

#endif
