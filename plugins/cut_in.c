/* cut_in — drives beside the ego and changes into its lane when the gap
 * reaches a parameter (ABI 1.1 behaviour): the standard cut-in.
 *
 * Keeps its own lane at its speed (as lane_follow) until the longitudinal
 * gap from the ego's front bumper to its own rear bumper, along the
 * lanes (the ego's s mapped onto this lane at the same normalised
 * position), falls to `gap` metres — or, when `gap_time` >= 0, until that
 * gap divided by the ego's speed falls to `gap_time` seconds — with the
 * ego behind it; then it changes to its `change_side` neighbour over
 * `change_duration`. change_time and change_s start it earlier if set.
 */
#include <stdio.h>

#include "lane_common.h"

enum { P_EGO, P_GAP, P_GAP_TIME, P_SPEED, P_LC0,
       N_PARAMS = P_LC0 + LC_N_PARAMS };

static const vs_param params[N_PARAMS] = {
	[P_EGO] = {"ego", 1.0, 1.0, 1e9, "", "the ego's actor ID"},
	[P_GAP] = {"gap", 10.0, -100.0, 1000.0, "m",
	           "cut in when the ego's front bumper is this far behind "
	           "the rear bumper"},
	[P_GAP_TIME] = {"gap_time", -1.0, -1.0, 100.0, "s",
	                "cut in at this time gap (gap / ego speed) instead; "
	                "-1: use gap"},
	[P_SPEED] = {"speed", -1.0, -1.0, 100.0, "m/s",
	             "speed to keep; -1: the route's first speed"},
	LC_PARAMS,
};

typedef struct cut {
	lc_lane lc;
	int64_t id, ego;
	double length;    /* m */
	double gap, gap_time, speed;
} cut;

static vs_status cut_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (!lc_host_ok(args->host)) {
		host->log(args->host_ctx, VS_LOG_ERROR,
		          "needs an ABI 1.1 host (map services)");
		return VS_ERROR;
	}
	cut *c = calloc(1, sizeof *c);
	if (!c)
		return VS_ERROR;
	const vs_actor_info *a = args->actor;
	const double *p = args->params;
	lc_init(&c->lc, args, p + P_LC0);
	c->id = a->id;
	c->ego = (int64_t)llround(p[P_EGO]);
	c->length = a->length;
	c->gap = p[P_GAP];
	c->gap_time = p[P_GAP_TIME];
	c->speed = p[P_SPEED] >= 0 ? p[P_SPEED] : a->n_speed ? a->speed[0] : 0;
	*instance = c;
	return VS_OK;
}

static vs_status cut_reset(void *instance, vs_state *state)
{
	(void)state;
	cut *c = instance;
	c->lc.lane[0] = '\0';
	c->lc.changing = 0;
	return VS_OK;
}

/* Starts the change (now, t in s) when the ego has closed to the gap. */
static void cut_trigger(cut *c, double t, double s)
{
	vs_lane_location e;
	vs_lane_point here;
	const vs_actor_attr *ea = host->actor_attr(c->lc.ctx, c->ego);
	const vs_state *es = host->previous_state(c->lc.ctx, c->ego);
	if (c->lc.changing || !ea || !es ||
	    host->map_location(c->lc.ctx, c->ego, &e) ||
	    host->lane_point(c->lc.ctx, c->lc.lane, 0.0, &here))
		return;
	double gap = s - e.position * here.length -
	             0.5 * (c->length + ea->length); /* m */
	int due = c->gap_time >= 0
	                  ? es->speed > 0 && gap / es->speed <= c->gap_time
	                  : gap <= c->gap;
	if (due)
		c->lc.change_time = t;
}

static vs_status cut_step(void *instance, double t, double dt,
                          const vs_state *self, vs_control *control)
{
	cut *c = instance;
	vs_lane_location loc;
	double s = NAN;
	control->steering_wheel = 0.0;
	if (host->map_location(c->lc.ctx, c->id, &loc) == 0) {
		double s_now = lc_track(&c->lc, &loc);
		if (isfinite(s_now))
			cut_trigger(c, t, s_now);
		control->steering_wheel = lc_steer(&c->lc, t, dt, self, &loc, &s);
	}
	control->speed = c->speed;
	control->accel = NAN;
	return VS_OK;
}

LC_BEHAVIOUR_PLUGIN("cut_in",
                    "drives beside the ego and cuts into its lane at a "
                    "distance or time gap",
                    cut_create, cut_reset, cut_step)
