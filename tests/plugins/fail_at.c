/* fail_at — a test behaviour that fails on purpose at one step.
 *
 * Drives straight at the route's first speed; at step fail_step (the step
 * whose time is fail_step * dt) it logs an error and returns VS_ERROR, so
 * the simulation tests can check that one variant fails with this reason
 * and the others are unaffected. fail_step = -1 never fails.
 *
 * For the host's checks of what a plugin hands it: `status` is what that
 * step returns instead of VS_ERROR (any int: -1 or 7 are not vs_status
 * values), `log_level` the level it logs at instead of VS_LOG_ERROR (4 is
 * not a vs_log_level), and `create_status`, when 0 or more, what create
 * returns while leaving the instance NULL. */
#include <math.h>
#include <time.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"fail_step", -1.0, -1.0, 1e9, "", "step index to fail at; -1: never"},
	{"sleep_ms", 0.0, 0.0, 1e4, "ms", "wall time to waste per step"},
	{"raw_bytes", 0.0, 0.0, 1.0, "",
	 "1: the failure's message carries ESC, BEL and bytes not UTF-8"},
	{"status", 3.0, -1e9, 1e9, "", "returned at fail_step (3: VS_ERROR)"},
	{"log_level", 3.0, -1e9, 1e9, "",
	 "level of the message at fail_step (3: VS_LOG_ERROR)"},
	{"create_status", -1.0, -1.0, 1e9, "",
	 "create returns it without an instance; -1: a normal create"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct fail_at {
	void *host_ctx;
	long long fail_step;
	double sleep_ms; /* ms per step, to test wall-clock limits */
	int raw_bytes;   /* a message a terminal must not see raw */
	int status;      /* returned at fail_step */
	int log_level;   /* of the message at fail_step */
	double speed; /* m/s */
} fail_at;

static vs_status fa_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (args->params[5] >= 0)
		return (vs_status)llround(args->params[5]);
	fail_at *f = calloc(1, sizeof *f);
	if (!f)
		return VS_ERROR;
	f->host_ctx = args->host_ctx;
	f->fail_step = llround(args->params[0]);
	f->sleep_ms = args->params[1];
	f->raw_bytes = args->params[2] > 0;
	f->status = (int)llround(args->params[3]);
	f->log_level = (int)llround(args->params[4]);
	const vs_actor_info *a = args->actor;
	f->speed = a->speed && a->n_speed > 0 ? a->speed[0] : 0.0;
	*instance = f;
	return VS_OK;
}

static vs_status fa_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status fa_step(void *instance, double t, double dt,
                         const vs_state *self, vs_control *control)
{
	(void)self;
	fail_at *f = instance;
	long long k = llround(t / dt); /* step k is at t = k * dt */
	if (f->sleep_ms > 0) {
		long ns = (long)(fmod(f->sleep_ms, 1000.0) * 1e6);
		struct timespec ts = {(time_t)(f->sleep_ms / 1000), ns};
		nanosleep(&ts, NULL);
	}
	control->speed = f->speed;
	control->steering_wheel = 0.0;
	if (k == f->fail_step) {
		if (host && host->log)
			host->log(f->host_ctx, (vs_log_level)f->log_level,
			          "fail_at: failing at step %lld as asked%s", k,
			          f->raw_bytes ? " \x1b[31m\x07\xff\xfe" : "");
		return (vs_status)f->status;
	}
	return VS_OK;
}

static void fa_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "fail_at",
	.version = "0.0.1",
	.doc = "test behaviour: straight ahead, fails at step fail_step",
	.params = params,
	.n_params = 6,
	.create = fa_create,
	.reset = fa_reset,
	.behaviour_step = fa_step,
	.destroy = fa_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
