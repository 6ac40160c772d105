/* pedestrian — walks a character (asset kind: character) along its route
 * as a point mass (ABI 1.1 behaviour that drives characters).
 *
 * Route. The waypoints are positions of the character's origin; it walks
 * the straight legs between them (x and y; the host lifts z along a 3-D
 * route). speed follows varyActorProperties' rules, as for the waypoints
 * behaviour: P values against M waypoints, P = M one each, P < M the last
 * repeats, P > M the extras are ignored, one number everywhere. The speed
 * is the speed AT each waypoint; along a leg it changes at a constant
 * acceleration (linear in time), so a leg of length L from speed va to vb
 * takes 2 L / (va + vb) s and a point mass can start from or stop at 0.
 * A leg with 0 at both ends is never walked: the walk ends before it.
 *
 * Time. The character stands at the first waypoint for start_delay s,
 * then walks; at each waypoint between the first and the last it stands
 * for wait s (its speed drops to 0 there, then picks up that waypoint's
 * speed); after the last it stands. Its position at any time is the
 * closed form of that schedule, written as the step's end position, so
 * it is exact at every step whatever the step (no corner is cut).
 *
 * Heading. The body faces the walking direction (the current leg's, or
 * the last leg's while standing): at once when max_yaw_rate_deg is 0,
 * else turning towards it at most that fast.
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin. */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846
/* Waypoints closer than this to the previous one make no leg (m). */
#define MIN_LEG 1e-9

static const vs_host *host; /* set at entry, read-only afterwards */

enum { P_START_DELAY, P_WAIT, P_MAX_YAW_RATE, N_PARAMS };

static const vs_param params[N_PARAMS] = {
	{"start_delay", 0.0, 0.0, 1e6, "s",
	 "time standing at the first waypoint before walking"},
	{"wait", 0.0, 0.0, 1e6, "s",
	 "time standing at each waypoint between the first and the last"},
	{"max_yaw_rate_deg", 0.0, 0.0, 1e5, "deg/s",
	 "fastest turn of the body towards the walking direction; 0: at once"},
};

/* One leg: from point (x, y) along unit (ux, uy) for len metres. */
typedef struct leg {
	double x, y;     /* m, world, its start */
	double ux, uy;   /* its direction */
	double len;      /* m */
	double va, vb;   /* m/s, speed at its start and end */
	double acc;      /* m/s^2, constant along it */
	double t0, dur;  /* s, when it starts, how long it takes */
} leg;

typedef struct walker {
	void *ctx;
	int n;           /* legs walked */
	leg *legs;
	double x0, y0;   /* m, the first waypoint */
	double max_rate; /* rad/s; 0: turn at once */
	int at;          /* the leg of the last walk_at: time only moves on,
	                    so the next call looks from there, not from the
	                    first leg (a long route cost a scan per step) */
} walker;

static void log_error(void *ctx, const char *msg)
{
	if (host && host->log)
		host->log(ctx, VS_LOG_ERROR, "%s", msg);
}

/* The route's speed at waypoint i (varyActorProperties' rules). */
static double speed_at(const vs_actor_info *a, size_t i)
{
	if (a->n_speed == 0)
		return 0.0;
	return a->speed[i < a->n_speed ? i : a->n_speed - 1];
}

static vs_status ped_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	const vs_actor_info *a = args->actor;
	if (a->n_waypoints < 2) {
		log_error(args->host_ctx, "pedestrian: needs waypoints (at "
		                          "least two) to walk");
		return VS_ERROR;
	}
	walker *w = calloc(1, sizeof *w);
	leg *legs = calloc(a->n_waypoints, sizeof *legs);
	if (!w || !legs) {
		free(w);
		free(legs);
		log_error(args->host_ctx, "pedestrian: out of memory");
		return VS_ERROR;
	}
	w->ctx = args->host_ctx;
	w->legs = legs;
	w->x0 = a->waypoints[0];
	w->y0 = a->waypoints[1];
	w->max_rate = args->params[P_MAX_YAW_RATE] * PI / 180.0;
	double t = args->params[P_START_DELAY];
	double ux = 0.0, uy = 1.0; /* facing +Y until a leg says otherwise */
	for (size_t i = 0; i + 1 < a->n_waypoints; i++) {
		const double *p = a->waypoints + 3 * i, *q = p + 3;
		double dx = q[0] - p[0], dy = q[1] - p[1];
		double len = hypot(dx, dy);
		double va = speed_at(a, i), vb = speed_at(a, i + 1);
		if (len > MIN_LEG && va + vb <= 0)
			break; /* 0 at both ends: never walked, the walk ends */
		if (len > MIN_LEG) {
			ux = dx / len;
			uy = dy / len;
		}
		leg *l = &legs[w->n++];
		*l = (leg){p[0], p[1], ux, uy, len, va, vb, 0.0, t, 0.0};
		if (len > MIN_LEG) {
			/* vb^2 = va^2 + 2 acc len; mean speed (va + vb) / 2 */
			l->acc = (vb * vb - va * va) / (2 * len);
			l->dur = 2 * len / (va + vb);
		}
		t += l->dur;
		if (i + 2 < a->n_waypoints)
			t += args->params[P_WAIT];
	}
	if (w->n == 0) { /* the first leg is never walked: face it */
		const double *p = a->waypoints, *q = p + 3;
		double len = hypot(q[0] - p[0], q[1] - p[1]);
		if (len > MIN_LEG) {
			ux = (q[0] - p[0]) / len;
			uy = (q[1] - p[1]) / len;
		}
		legs[0] = (leg){p[0], p[1], ux, uy, 0.0, 0.0, 0.0, 0.0,
		                INFINITY, 0.0};
		w->n = 1;
	}
	*instance = w;
	return VS_OK;
}

/* Where the walker is at time t (s): position (m), velocity (m/s), and
 * the walking direction's heading from +X (rad). */
static void walk_at(walker *w, double t, double *x, double *y,
                    double *vx, double *vy, double *heading)
{
	/* the last leg of those begun by t: from the last call's when t
	 * has not gone back before its start (reset goes back to 0) */
	int i = w->at >= 0 && w->at < w->n && w->legs[w->at].t0 <= t ? w->at
	                                                              : 0;
	while (i + 1 < w->n && w->legs[i + 1].t0 <= t)
		i++;
	w->at = i;
	const leg *l = &w->legs[i];
	*heading = atan2(l->uy, l->ux);
	*vx = *vy = 0.0;
	if (t < l->t0) { /* before the first leg: the start delay */
		*x = l->x;
		*y = l->y;
		return;
	}
	double tau = t - l->t0, s = l->len, v = 0.0;
	if (tau < l->dur) {
		s = l->va * tau + 0.5 * l->acc * tau * tau;
		v = l->va + l->acc * tau;
		if (s > l->len)
			s = l->len;
	}
	*x = l->x + l->ux * s;
	*y = l->y + l->uy * s;
	*vx = l->ux * v;
	*vy = l->uy * v;
}

/* RoadRunner yaw facing heading h (from +X), wrapped to (-pi, pi]. */
static double yaw_of(double h)
{
	double a = h - PI / 2;
	while (a <= -PI)
		a += 2 * PI;
	while (a > PI)
		a -= 2 * PI;
	return a;
}

/* The body's yaw after dt, from yaw towards target (rad). */
static double turn(const walker *w, double yaw, double target, double dt)
{
	double d = target - yaw;
	while (d <= -PI)
		d += 2 * PI;
	while (d > PI)
		d -= 2 * PI;
	if (w->max_rate <= 0 || fabs(d) <= w->max_rate * dt)
		return target;
	return yaw_of(yaw + PI / 2 + (d > 0 ? 1 : -1) * w->max_rate * dt);
}

static vs_status ped_reset(void *instance, vs_state *state)
{
	walker *w = instance;
	double h;
	walk_at(w, 0.0, &state->x, &state->y, &state->vx, &state->vy, &h);
	/* turning at once, it faces its walk from the start; else the
	 * start's yaw (start: yaw, or facing the second waypoint) */
	if (w->max_rate <= 0)
		state->yaw = yaw_of(h);
	state->speed = -sin(state->yaw) * state->vx + cos(state->yaw) *
	                                                 state->vy;
	state->wz = 0.0;
	state->steer = 0.0;
	return VS_OK;
}

static vs_status ped_step(void *instance, double t, double dt,
                          const vs_state *self, vs_control *control)
{
	walker *w = instance;
	double h;
	walk_at(w, t, &control->x, &control->y, &control->vx, &control->vy,
	        &h);
	control->yaw = turn(w, self->yaw, yaw_of(h), dt);
	return VS_OK;
}

static void ped_destroy(void *instance)
{
	walker *w = instance;
	if (!w)
		return;
	free(w->legs);
	free(w);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "pedestrian",
	.version = "1.0.0",
	.doc = "walks a character along its route's waypoints at their "
	       "speeds (point mass)",
	.params = params,
	.n_params = N_PARAMS,
	.create = ped_create,
	.reset = ped_reset,
	.behaviour_step = ped_step,
	.destroy = ped_destroy,
	.follows_route = 1,
	.drives = VS_DRIVES_CHARACTER,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
