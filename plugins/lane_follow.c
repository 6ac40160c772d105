/* lane_follow — keeps a lane's centre at a set speed (ABI 1.1 behaviour).
 *
 * Steers by pure pursuit of the lane's centre line through lane sections
 * and successors (lane_common.h), optionally changing once to the left or
 * right neighbour at a given time or s. The speed is the `speed`
 * parameter, or the route's first speed when it is -1, tracked as a
 * vehicle model tracks speed (no accel). Needs a map: off every lane it
 * drives straight on.
 */
#include <stdio.h>

#include "lane_common.h"

enum { P_SPEED, P_LC0, N_PARAMS = P_LC0 + LC_N_PARAMS };

static const vs_param params[N_PARAMS] = {
	{"speed", -1.0, -1.0, 100.0, "m/s",
	 "speed to keep; -1: the route's first speed"},
	LC_PARAMS,
};

typedef struct follow {
	lc_lane lc;
	int64_t id;
	double speed; /* m/s */
} follow;

static vs_status follow_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (!lc_host_ok(args->host)) {
		host->log(args->host_ctx, VS_LOG_ERROR,
		          "needs an ABI 1.1 host (map services)");
		return VS_ERROR;
	}
	follow *f = calloc(1, sizeof *f);
	if (!f)
		return VS_ERROR;
	const vs_actor_info *a = args->actor;
	lc_init(&f->lc, args, args->params + P_LC0);
	f->id = a->id;
	f->speed = args->params[P_SPEED] >= 0 ? args->params[P_SPEED]
	           : a->n_speed                 ? a->speed[0]
	                                        : 0.0;
	*instance = f;
	return VS_OK;
}

static vs_status follow_reset(void *instance, vs_state *state)
{
	(void)state;
	follow *f = instance;
	f->lc.lane[0] = '\0';
	f->lc.changing = 0;
	return VS_OK;
}

static vs_status follow_step(void *instance, double t, double dt,
                             const vs_state *self, vs_control *control)
{
	follow *f = instance;
	vs_lane_location loc;
	double s = NAN;
	control->steering_wheel = 0.0;
	if (host->map_location(f->lc.ctx, f->id, &loc) == 0)
		control->steering_wheel = lc_steer(&f->lc, t, dt, self, &loc, &s);
	control->speed = f->speed;
	control->accel = NAN;
	return VS_OK;
}

LC_BEHAVIOUR_PLUGIN("lane_follow",
                    "keeps a lane's centre at a set speed, with an optional "
                    "lane change",
                    follow_create, follow_reset, follow_step)
