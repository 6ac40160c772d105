/* constant_steer — holds the steering wheel at one angle and the route's
 * first speed: the classic steady-circle test.
 *
 * With wheelbase l = 3.0 m, steering ratio 15 and 45 deg at the wheel, the
 * road wheel is at delta = 3 deg and a kinematic bicycle's rear axle runs on
 * the radius l / tan(delta) = 57.24 m (the small-angle l / delta = 57.3 m).
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin.
 */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846

enum { P_STEERING_WHEEL_DEG, N_PARAMS };

static const vs_param params[N_PARAMS] = {
	/* Three turns either way: more than any road car's lock to lock. */
	[P_STEERING_WHEEL_DEG] = {"steering_wheel_deg", 0.0, -1080.0, 1080.0,
	                          "deg", "steering-wheel angle, + = left"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct steer {
	vs_control control; /* the same every step */
} steer;

static vs_status steer_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	steer *c = calloc(1, sizeof *c);
	if (!c) {
		if (host && host->log)
			host->log(args->host_ctx, VS_LOG_ERROR,
			          "constant_steer: out of memory");
		return VS_ERROR;
	}
	const vs_actor_info *a = args->actor;
	/* The route's first speed; no route means standing still. */
	c->control.speed = (a->speed && a->n_speed > 0) ? a->speed[0] : 0.0;
	c->control.steering_wheel =
		args->params[P_STEERING_WHEEL_DEG] * (PI / 180.0); /* rad */
	c->control.accel = NAN; /* track the speed (ABI 1.1) */
	*instance = c;
	return VS_OK;
}

static vs_status steer_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status steer_step(void *instance, double t, double dt,
                            const vs_state *self, vs_control *control)
{
	(void)t;
	(void)dt;
	(void)self;
	*control = ((const steer *)instance)->control;
	return VS_OK;
}

static void steer_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "constant_steer",
	.version = "1.0.0",
	.doc = "fixed steering-wheel angle at the route's first speed",
	.params = params,
	.n_params = N_PARAMS,
	.create = steer_create,
	.reset = steer_reset,
	.vehicle_step = NULL,
	.behaviour_step = steer_step,
	.destroy = steer_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
