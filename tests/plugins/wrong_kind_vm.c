/* wrong_kind_vm — a valid BEHAVIOUR whose name suggests a vehicle model:
 * tests name it as an actor's vehicle_model to check that the scenario
 * binder refuses a plugin of the wrong kind (the loader accepts it). */
#include <stddef.h>

#include <vsweep/plugin.h>

static vs_status wk_create(const vs_create_args *args, void **instance)
{
	(void)args;
	static int dummy; /* no state: every instance may share it */
	*instance = &dummy;
	return VS_OK;
}

static vs_status wk_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status wk_step(void *instance, double t, double dt,
                         const vs_state *self, vs_control *control)
{
	(void)instance;
	(void)t;
	(void)dt;
	(void)self;
	control->speed = 0.0;
	control->steering_wheel = 0.0;
	return VS_OK;
}

static void wk_destroy(void *instance)
{
	(void)instance;
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "wrong_kind_vm",
	.version = "0.0.1",
	.doc = "test behaviour to be misused as a vehicle model",
	.params = NULL,
	.n_params = 0,
	.create = wk_create,
	.reset = wk_reset,
	.behaviour_step = wk_step,
	.destroy = wk_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	(void)h;
	return &descriptor;
}
