/* my_behaviour — a behaviour to make your own (from `vsweep new-plugin`).
 *
 * As shipped it asks for the route's first speed (m/s) and holds the
 * steering wheel at steering_wheel_deg. A behaviour sees the previous
 * step's world (its own state in `self`, others through
 * host->previous_state) and returns the control for this step.
 * Built against <vsweep/plugin.h> alone (pkg-config vsweep). */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846

enum { P_STEERING_WHEEL_DEG, N_PARAMS };

static const vs_param params[N_PARAMS] = {
	[P_STEERING_WHEEL_DEG] = {"steering_wheel_deg", 0.0, -1080.0, 1080.0,
	                          "deg", "steering-wheel angle, + = left"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct behaviour {
	vs_control control;
} behaviour;

static vs_status behaviour_create(const vs_create_args *args,
                                  void **instance)
{
	*instance = NULL;
	behaviour *b = calloc(1, sizeof *b);
	if (!b) {
		if (host && host->log)
			host->log(args->host_ctx, VS_LOG_ERROR, "out of memory");
		return VS_ERROR;
	}
	const vs_actor_info *a = args->actor;
	b->control.speed = a->n_speed > 0 ? a->speed[0] : 0.0;
	b->control.steering_wheel =
		args->params[P_STEERING_WHEEL_DEG] * PI / 180.0;  /* rad */
	b->control.accel = NAN; /* m/s^2; NaN: track the speed instead */
	*instance = b;
	return VS_OK;
}

static vs_status behaviour_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status behaviour_step(void *instance, double t, double dt,
                                const vs_state *self, vs_control *control)
{
	(void)t;
	(void)dt;
	(void)self;
	*control = ((const behaviour *)instance)->control;
	return VS_OK;
}

static void behaviour_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "my_behaviour",
	.version = "0.1.0",
	.doc = "the route's first speed, a fixed steering wheel (template)",
	.params = params,
	.n_params = N_PARAMS,
	.create = behaviour_create,
	.reset = behaviour_reset,
	.vehicle_step = NULL,
	.behaviour_step = behaviour_step,
	.destroy = behaviour_destroy,
	/* A behaviour that steers by the map services (map_location,
	 * lane_point, lane_link) sets .needs = VS_NEEDS_MAP: a scenario
	 * without a map is then refused when it is checked, not run. */
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
