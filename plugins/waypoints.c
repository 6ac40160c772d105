/* waypoints — follows the actor's route: its waypoints at its speeds.
 *
 * Path. The waypoints are positions of the actor ORIGIN (as in RoadRunner).
 * Without yaw the path is the polyline through them; with a yaw for each
 * waypoint, each piece is the cubic Hermite curve whose end tangents point
 * along the given headings (heading = yaw + pi/2) with magnitude equal to the
 * chord, sampled into PIECES straight pieces. Only x and y are used: the
 * vehicle model is planar and the host puts actors on the ground.
 *
 * Speed (varyActorProperties' rules). P speed values against M waypoints:
 * P = M one each; P < M the last value repeats; P > M the extras are
 * ignored; a scalar (P = 1) applies everywhere. Between waypoints i and i+1
 * the speed runs linearly in arc length from v_i to v_{i+1}. Past the last
 * waypoint the actor stops: the last step's speed is cut to the distance
 * left / dt, so it stops at the last waypoint.
 *
 * Steering. Pure pursuit from the rear axle, whose kinematics it inverts
 * exactly: the arc tangent to the heading through the rear axle and a target
 * point at chord d and bearing alpha has curvature 2 sin(alpha) / d, which a
 * kinematic bicycle of wheelbase l reaches at delta = atan(2 l sin(alpha) /
 * d). On a straight or a circle the rear axle converges onto the path
 * (the origin then runs rear_axle_y^2 / 2R outside a circle of radius R),
 * a lateral error decaying about as exp(-s / Ld) in distance travelled.
 *
 * Progress. The origin's arc-length position along the path only grows:
 * each step it is projected onto the path only forward of the last
 * projection and within a window, so a path that crosses itself or closes
 * on its start is followed in order instead of jumping to the nearest leg.
 *
 * The behaviour uses only the previous-step state it is given (self).
 * Built against <vsweep/plugin.h> only (and the header-only
 * angle_common.h), like any outside plugin.
 */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#include "angle_common.h"

#define PI 3.14159265358979323846

/* Straight pieces per Hermite segment: at 32 the chord of a 90 deg turn
 * sags from the curve by well under a centimetre for 50 m segments. */
#define PIECES 32
/* Lookahead Ld = max(LD_MIN_WHEELBASES * l, LD_TIME * v), from the origin
 * along the path. A shorter one cuts corners less but corrects harder (at
 * low speed it would chase every wiggle of the path); with these values a
 * 4.8 m car at 8-10 m/s keeps within 0.25 m of a 90 deg corner of 30 m
 * radius and settles a 1 m offset to 1 mm within 60 m. */
#define LD_MIN_WHEELBASES 2.0
#define LD_TIME 0.6 /* s */
/* Where the route's speed falls below this, a piece whose end speeds are
 * not both zero is crept along at up to this speed: a speed linear in arc
 * length that starts at 0 would never leave the waypoint (ds/dt = k s, so
 * s stays 0), and one that ends at 0 would never arrive. m/s. */
#define CREEP_SPEED 0.5
/* The road-wheel limit a route's curvature is checked against, deg: the
 * shipped vehicle models' default max_steer_deg (a behaviour cannot read
 * its model's params). */
#define MAX_STEER_DEG 45.0
/* Tracking distance of a rear-axle path, in wheelbases (track()). */
#define TRACK_L 2.0
/* Waypoints closer than this to the previous one are merged (m). */
#define MIN_SEGMENT 1e-6
/* At reset a later part of the path must be this much nearer (m) to beat
 * an earlier one, so that a closed path starts at its start. */
#define START_TIE 0.01

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct follower {
	void *host_ctx;
	size_t n;        /* path points */
	double *x, *y;   /* m, world, path points */
	double *s;       /* m, arc length at each point */
	double *v;       /* m/s, speed at each point */
	double *th;      /* rad, path tangent from +X at each point */
	double *k;       /* 1/m, curvature of each piece (+ = left) */
	double l;        /* m, wheelbase */
	double ry;       /* m, rear axle y in the actor frame */
	double ratio;    /* steering wheel : road wheel of its vehicle model */
	int rear_path;   /* 1: the path is the rear axle's (yaw given) */
	double s_prog;   /* m, progress of the origin along the path */
	size_t seg;      /* piece index holding s_prog */
} follower;

#define LOG(ctx, level, ...)                                               \
	do {                                                               \
		if (host && host->log)                                     \
			host->log((ctx), (level), __VA_ARGS__);            \
	} while (0)

static void follower_free(follower *f)
{
	if (!f)
		return;
	free(f->x);
	free(f->y);
	free(f->s);
	free(f->v);
	free(f->th);
	free(f->k);
	free(f);
}

static void add_point(follower *f, double x, double y, double v)
{
	size_t i = f->n++;
	f->x[i] = x;
	f->y[i] = y;
	f->s[i] = i ? f->s[i - 1] + hypot(x - f->x[i - 1], y - f->y[i - 1]) : 0;
	f->v[i] = v;
	f->th[i] = i ? atan2(y - f->y[i - 1], x - f->x[i - 1]) : 0.0;
	f->k[i] = 0.0;
}

/* The exact tangent angle th (rad, from +X) and curvature k (1/m) of the
 * Hermite curve at u (the tracking controller steers by them, not by the
 * chords). */
static void hermite_frame(double u, const double *pa, const double *pb,
                          double m0x, double m0y, double m1x, double m1y,
                          double *th, double *k)
{
	double u2 = u * u;
	double d00 = 6 * u2 - 6 * u, d10 = 3 * u2 - 4 * u + 1;
	double d01 = -6 * u2 + 6 * u, d11 = 3 * u2 - 2 * u;
	double e00 = 12 * u - 6, e10 = 6 * u - 4, e01 = -12 * u + 6,
	       e11 = 6 * u - 2;
	double dx = d00 * pa[0] + d10 * m0x + d01 * pb[0] + d11 * m1x;
	double dy = d00 * pa[1] + d10 * m0y + d01 * pb[1] + d11 * m1y;
	double ex = e00 * pa[0] + e10 * m0x + e01 * pb[0] + e11 * m1x;
	double ey = e00 * pa[1] + e10 * m0y + e01 * pb[1] + e11 * m1y;
	double sp = hypot(dx, dy);
	*th = atan2(dy, dx);
	*k = sp > 0 ? (dx * ey - dy * ex) / (sp * sp * sp) : 0.0;
}

/* Appends the piece from waypoint a to b (a already on the path). */
static void add_segment(follower *f, const double *pa, const double *pb,
                        double va, double vb, const double *yaw_a,
                        const double *yaw_b)
{
	size_t first = f->n - 1; /* index of a */
	if (!yaw_a) {
		add_point(f, pb[0], pb[1], vb);
		return;
	}
	double c = hypot(pb[0] - pa[0], pb[1] - pa[1]); /* m, chord */
	/* Tangents along the headings (yaw + pi/2), magnitude = chord. */
	double m0x = -c * sin(*yaw_a), m0y = c * cos(*yaw_a);
	double m1x = -c * sin(*yaw_b), m1y = c * cos(*yaw_b);
	for (int k = 1; k <= PIECES; k++) {
		double u = (double)k / PIECES;
		double u2 = u * u, u3 = u2 * u;
		double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
		double h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
		double x = h00 * pa[0] + h10 * m0x + h01 * pb[0] + h11 * m1x;
		double y = h00 * pa[1] + h10 * m0y + h01 * pb[1] + h11 * m1y;
		if (k == PIECES) { /* land exactly on the waypoint */
			x = pb[0];
			y = pb[1];
		}
		add_point(f, x, y, 0.0);
		/* the tangent at both ends of the piece (at a waypoint both
		 * segments have it: the curve is C1), the curvature at its
		 * middle (it jumps at a waypoint: no piece mixes two) */
		double unused;
		hermite_frame(u, pa, pb, m0x, m0y, m1x, m1y, &f->th[f->n - 1],
		              &unused);
		hermite_frame(u - 0.5 / PIECES, pa, pb, m0x, m0y, m1x, m1y,
		              &unused, &f->k[f->n - 2]);
		if (k == 1)
			hermite_frame(0.0, pa, pb, m0x, m0y, m1x, m1y,
			              &f->th[first], &unused);
	}
	/* Speeds linear in the arc length of the sampled curve. */
	double s0 = f->s[first], len = f->s[f->n - 1] - s0;
	for (size_t i = first + 1; i < f->n; i++)
		f->v[i] = len > 0 ? va + (vb - va) * (f->s[i] - s0) / len : vb;
}

/* Distance-squared from (px, py) to piece i, and the arc length of the
 * nearest point on it not before s_min. */
static double piece_nearest(const follower *f, size_t i, double px,
                            double py, double s_min, double *s_out)
{
	double ax = f->x[i], ay = f->y[i];
	double dx = f->x[i + 1] - ax, dy = f->y[i + 1] - ay;
	double len = f->s[i + 1] - f->s[i];
	double u = len > 0 ? ((px - ax) * dx + (py - ay) * dy) / (len * len)
	                   : 0.0;
	double u_min = len > 0 ? (s_min - f->s[i]) / len : 0.0;
	if (u < u_min)
		u = u_min;
	if (u < 0)
		u = 0;
	if (u > 1)
		u = 1;
	double qx = ax + u * dx - px, qy = ay + u * dy - py;
	*s_out = f->s[i] + u * len;
	return qx * qx + qy * qy;
}

/* Projects (px, py) onto the pieces from index first whose start lies
 * before s_max, not before s_min; ties (within tie m) go to the earlier. */
static void project(follower *f, double px, double py, size_t first,
                    double s_min, double s_max, double tie)
{
	double best = INFINITY, best_s = f->s_prog;
	size_t best_i = first;
	for (size_t i = first; i + 1 < f->n && f->s[i] <= s_max; i++) {
		double s;
		double d2 = piece_nearest(f, i, px, py, s_min, &s);
		double d = sqrt(d2);
		if (d < best - tie) {
			best = d;
			best_s = s;
			best_i = i;
		}
	}
	/* best_s >= s_min: the nearest point is sought only ahead. */
	if (isfinite(best)) {
		f->s_prog = best_s;
		f->seg = best_i;
	}
}

/* Index of the piece holding arc length s, searching from i. */
static size_t piece_at(const follower *f, size_t i, double s)
{
	while (i + 2 < f->n && f->s[i + 1] <= s)
		i++;
	return i;
}

/* Point at arc length s, clamped to the path's ends. Near the end the
 * pursuit target is the last waypoint itself: a rear axle on a circular
 * path keeps to it while aiming at any point of it, whereas a target on
 * the end's tangent would straighten the actor off the curve before it
 * stops. */
static void point_at(const follower *f, size_t i, double s, double *x,
                     double *y)
{
	i = piece_at(f, i, s);
	double len = f->s[i + 1] - f->s[i];
	double u = len > 0 ? (s - f->s[i]) / len : 0.0;
	u = u < 0 ? 0 : (u > 1 ? 1 : u);
	*x = f->x[i] + u * (f->x[i + 1] - f->x[i]);
	*y = f->y[i] + u * (f->y[i + 1] - f->y[i]);
}

/* Route speed at arc length s: linear between points. */
static double speed_at(const follower *f, size_t i, double s)
{
	i = piece_at(f, i, s);
	double len = f->s[i + 1] - f->s[i];
	double u = len > 0 ? (s - f->s[i]) / len : 0.0;
	u = u < 0 ? 0 : (u > 1 ? 1 : u);
	double v = f->v[i] + u * (f->v[i + 1] - f->v[i]);
	/* Never above what the route asks for at either end: a route at
	 * 0.2 m/s throughout stays at 0.2 m/s. */
	double creep = fmin(CREEP_SPEED, fmax(f->v[i], f->v[i + 1]));
	return v > creep ? v : creep;
}

static vs_status wp_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	const vs_actor_info *a = args->actor;
	void *ctx = args->host_ctx;
	const char *who = a->name ? a->name : "?";
	size_t m = a->waypoints ? a->n_waypoints : 0;
	if (m < 2) {
		LOG(ctx, VS_LOG_ERROR,
		    "waypoints: actor %s (ID %lld) has %zu waypoints; it needs "
		    "at least 2",
		    who, (long long)a->id, m);
		return VS_ERROR;
	}
	if (!a->speed || a->n_speed == 0) {
		LOG(ctx, VS_LOG_ERROR,
		    "waypoints: actor %s (ID %lld) has waypoints but no speed",
		    who, (long long)a->id);
		return VS_ERROR;
	}
	const double *yaw = a->yaw && a->n_yaw > 0 ? a->yaw : NULL;
	if (yaw && a->n_yaw != m) {
		LOG(ctx, VS_LOG_ERROR,
		    "waypoints: actor %s (ID %lld) has %zu yaw values for %zu "
		    "waypoints; give one per waypoint or none",
		    who, (long long)a->id, a->n_yaw, m);
		return VS_ERROR;
	}
	if (!(a->wheelbase > 0) || !(a->steering_ratio > 0) ||
	    !isfinite(a->wheelbase) || !isfinite(a->steering_ratio)) {
		LOG(ctx, VS_LOG_ERROR,
		    "waypoints: actor %s (ID %lld) needs a vehicle (wheelbase "
		    "%g m, steering ratio %g): pure pursuit steers by them",
		    who, (long long)a->id, a->wheelbase, a->steering_ratio);
		return VS_ERROR;
	}
	for (size_t i = 0; i < m && i < a->n_speed; i++)
		if (!isfinite(a->speed[i]) || a->speed[i] < 0) {
			LOG(ctx, VS_LOG_ERROR,
			    "waypoints: actor %s (ID %lld): speed %g at "
			    "waypoint %zu; waypoints needs speeds >= 0",
			    who, (long long)a->id, a->speed[i], i + 1);
			return VS_ERROR;
		}

	follower *f = calloc(1, sizeof *f);
	size_t cap = (m - 1) * (yaw ? PIECES : 1) + 1;
	if (f) {
		f->x = malloc(cap * sizeof *f->x);
		f->y = malloc(cap * sizeof *f->y);
		f->s = malloc(cap * sizeof *f->s);
		f->v = malloc(cap * sizeof *f->v);
		f->th = malloc(cap * sizeof *f->th);
		f->k = malloc(cap * sizeof *f->k);
	}
	if (!f || !f->x || !f->y || !f->s || !f->v || !f->th || !f->k) {
		follower_free(f);
		LOG(ctx, VS_LOG_ERROR, "waypoints: out of memory");
		return VS_ERROR;
	}
	f->host_ctx = ctx;
	f->l = a->wheelbase;
	f->ry = a->rear_axle_y;
	f->ratio = a->steering_ratio;

	size_t p = a->n_speed;
	size_t last = 0; /* the waypoint at the path's end so far */
	const double *w = a->waypoints;
	double *shift = NULL;
	if (yaw) {
		/* With yaws the path is the rear axle's: through R_i = W_i +
		 * ry (-sin yaw_i, cos yaw_i) along the headings. A rear axle
		 * on it has the path's heading (it has no lateral slip), so
		 * the origin passes W_i heading yaw_i. */
		shift = malloc(3 * m * sizeof *shift);
		if (!shift) {
			follower_free(f);
			LOG(ctx, VS_LOG_ERROR, "waypoints: out of memory");
			return VS_ERROR;
		}
		for (size_t i = 0; i < m; i++) {
			shift[3 * i] = w[3 * i] - f->ry * sin(yaw[i]);
			shift[3 * i + 1] = w[3 * i + 1] + f->ry * cos(yaw[i]);
			shift[3 * i + 2] = w[3 * i + 2];
		}
		w = shift;
		f->rear_path = 1;
	}
	add_point(f, w[0], w[1], a->speed[0]);
	for (size_t i = 1; i < m; i++) {
		/* v_i = speed[min(i, P - 1)]: P < M repeats the last value,
		 * P > M leaves the extras unused, P = 1 is a scalar. */
		double vb = a->speed[i < p ? i : p - 1];
		double va = f->v[f->n - 1];
		const double *pa = w + 3 * last, *pb = w + 3 * i;
		if (hypot(pb[0] - pa[0], pb[1] - pa[1]) < MIN_SEGMENT)
			continue; /* a repeated waypoint adds no path */
		size_t from = f->n - 1;
		add_segment(f, pa, pb, va, vb, yaw ? yaw + last : NULL,
		            yaw ? yaw + i : NULL);
		double k_max = 0; /* 1/m, the tightest bend of the piece */
		for (size_t j = from; yaw && j + 1 < f->n; j++)
			k_max = fmax(k_max, fabs(f->k[j]));
		double k_reach = tan(MAX_STEER_DEG * PI / 180) / f->l;
		if (k_max > k_reach) {
			LOG(ctx, VS_LOG_ERROR,
			    "waypoints: actor %s (ID %lld): waypoint %zu cannot "
			    "be met with its yaw: the path from waypoint %zu "
			    "bends to a radius of %.3g m, tighter than the "
			    "vehicle's %.3g m (wheelbase %g m, steer %g deg)",
			    who, (long long)a->id, i + 1, last + 1, 1 / k_max,
			    1 / k_reach, f->l, MAX_STEER_DEG);
			free(shift);
			follower_free(f);
			return VS_ERROR;
		}
		last = i;
	}
	free(shift);
	if (f->n < 2) {
		LOG(ctx, VS_LOG_ERROR,
		    "waypoints: actor %s (ID %lld): all waypoints are at the "
		    "same place",
		    who, (long long)a->id);
		follower_free(f);
		return VS_ERROR;
	}
	*instance = f;
	return VS_OK;
}

static double lookahead(const follower *f, double v)
{
	double ld = LD_TIME * fabs(v);
	return ld > LD_MIN_WHEELBASES * f->l ? ld : LD_MIN_WHEELBASES * f->l;
}

/* The point the path is for: the rear axle (yaw given) or the origin. */
static void tracked_point(const follower *f, const vs_state *st, double *x,
                          double *y)
{
	double r = f->rear_path ? f->ry : 0.0;
	*x = st->x - r * sin(st->yaw);
	*y = st->y + r * cos(st->yaw);
}

/* Starts at the point of the whole path nearest the start position. */
static vs_status wp_reset(void *instance, vs_state *state)
{
	follower *f = instance;
	f->s_prog = 0;
	f->seg = 0;
	double px, py;
	tracked_point(f, state, &px, &py);
	project(f, px, py, 0, 0.0, INFINITY, START_TIE);
	return VS_OK;
}

/* Pure pursuit from the rear axle toward the path Ld ahead of the
 * origin's projection (so about Ld - ry from the rear axle), or the
 * last waypoint when that is nearer. Returns the road-wheel angle, rad. */
static double pursue(const follower *f, const vs_state *self, double v)
{
	double h = self->yaw + PI / 2.0; /* heading from +X */
	double fx = cos(h), fy = sin(h);
	double rx = self->x + f->ry * fx, ry = self->y + f->ry * fy;
	double tx, ty;
	point_at(f, f->seg, f->s_prog + lookahead(f, v), &tx, &ty);
	double dx = tx - rx, dy = ty - ry;
	double d = hypot(dx, dy); /* m */
	double delta = 0.0;       /* rad, road wheel */
	if (d > 1e-6) {
		double sin_alpha = (fx * dy - fy * dx) / d;
		/* A target behind (an actor started facing away) would give
		 * sin(alpha) ~ 0 and no turn at all: turn as for 90 deg. */
		if (fx * dx + fy * dy < 0)
			sin_alpha = sin_alpha < 0 ? -1.0 : 1.0;
		delta = atan(2.0 * f->l * sin_alpha / d);
	}
	return delta;
}

/* Tracking for a rear-axle path (yaw given): the curvature to command is
 * the path's (feedforward) corrected by the lateral error e (m, + = left
 * of the path) and the heading error (rad), c = kappa - e / L^2 -
 * 2 sin(err) / L: a critically damped approach in distance, L = TRACK_L
 * wheelbases. A kinematic bicycle turns its rear axle at curvature
 * tan(delta) / l. Returns the road-wheel angle, rad. */
static double track(const follower *f, const vs_state *self, double px,
                    double py)
{
	size_t i = f->seg;
	double len = f->s[i + 1] - f->s[i];
	double u = len > 0 ? (f->s_prog - f->s[i]) / len : 0.0;
	u = u < 0 ? 0 : (u > 1 ? 1 : u);
	double th = f->th[i] + u * ac_rem_2pi(f->th[i + 1] - f->th[i]);
	double kappa = f->k[i]; /* the piece's */
	double qx = f->x[i] + u * (f->x[i + 1] - f->x[i]);
	double qy = f->y[i] + u * (f->y[i + 1] - f->y[i]);
	double e = cos(th) * (py - qy) - sin(th) * (px - qx);
	double err = ac_rem_2pi(self->yaw + PI / 2.0 - th);
	double L = TRACK_L * f->l;
	double c = kappa - e / (L * L) - 2.0 * sin(err) / L;
	return atan(f->l * c);
}

static vs_status wp_step(void *instance, double t, double dt,
                         const vs_state *self, vs_control *control)
{
	follower *f = instance;
	double s_end = f->s[f->n - 1];
	/* Forward only, within what the actor can have covered since the
	 * last step plus the pursuit distance: far less than any loop. */
	double v_prev = fabs(self->speed);
	double window = 2.0 * lookahead(f, v_prev) + 2.0 * v_prev * dt +
	                fabs(f->ry) + 1.0; /* m */
	double px, py;
	tracked_point(f, self, &px, &py);
	project(f, px, py, f->seg, f->s_prog, f->s_prog + window, 0.0);

	double v = speed_at(f, f->seg, f->s_prog); /* m/s */
	double left = s_end - f->s_prog;           /* m, to the last waypoint */
	double v_cmd = v;
	if (left <= 1e-9)
		v_cmd = 0.0;
	else if (v * dt > left)
		v_cmd = left / dt; /* arrive at the end, not past it */

	double h = self->yaw + PI / 2.0; /* heading from +X */
	double delta = f->rear_path ? track(f, self, px, py)
	                            : pursue(f, self, v);
	control->speed = v_cmd;
	control->steering_wheel = delta * f->ratio;
	if (!isfinite(control->speed) || !isfinite(control->steering_wheel)) {
		LOG(f->host_ctx, VS_LOG_ERROR,
		    "waypoints: non-finite control at t = %g s (state x %g, "
		    "y %g, yaw %g, heading %g)",
		    t, self->x, self->y, self->yaw, h);
		return VS_ERROR;
	}
	return VS_OK;
}

static void wp_destroy(void *instance)
{
	follower_free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "waypoints",
	.version = "1.0.0",
	.doc = "follows the route's waypoints at its speeds (pure pursuit)",
	.params = NULL,
	.n_params = 0,
	.create = wp_create,
	.reset = wp_reset,
	.vehicle_step = NULL,
	.behaviour_step = wp_step,
	.destroy = wp_destroy,
	.follows_route = 1,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
