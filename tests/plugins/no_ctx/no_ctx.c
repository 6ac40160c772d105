/* no_ctx — a test behaviour that never keeps args->host_ctx: it calls
 * the host's services with NULL, as the plugin template once did, for
 * tests/e2e/test_failures.py. It drives straight ahead at the route's
 * first speed. At step warn_step it logs a warning naming the count
 * actor_ids(NULL, ...) returned and whether previous_state(NULL, own ID)
 * found its own state; at step fail_step it logs an error and returns
 * VS_ERROR. With `thread` 1, the warning is logged instead from a thread
 * of its own (joined before the step returns), where the host cannot
 * tell whose it is. -1: never. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"warn_step", -1.0, -1.0, 1e9, "", "step to warn at; -1: never"},
	{"fail_step", -1.0, -1.0, 1e9, "", "step to fail at; -1: never"},
	{"thread", 0.0, 0.0, 1.0, "", "1: warn from a thread of its own"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct no_ctx {
	int64_t id;
	long long warn_step, fail_step;
	int thread;
	double speed; /* m/s */
} no_ctx;

static vs_status n_create(const vs_create_args *args, void **instance)
{
	no_ctx *n = calloc(1, sizeof *n);
	if (!n)
		return VS_ERROR;
	const vs_actor_info *a = args->actor;
	n->id = a->id;
	n->warn_step = llround(args->params[0]);
	n->fail_step = llround(args->params[1]);
	n->thread = args->params[2] > 0;
	n->speed = a->speed && a->n_speed > 0 ? a->speed[0] : 0.0;
	*instance = n;
	return VS_OK;
}

static vs_status n_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static void *warn(void *arg)
{
	const no_ctx *n = arg;
	const int64_t *ids = NULL;
	size_t count = host->actor_ids(NULL, &ids);
	const vs_state *self = host->previous_state(NULL, n->id);
	host->log(NULL, VS_LOG_WARNING, "no_ctx: %zu actors, own state %s",
	          count, self ? "found" : "not found");
	return NULL;
}

static vs_status n_step(void *instance, double t, double dt,
                        const vs_state *self, vs_control *control)
{
	(void)self;
	no_ctx *n = instance;
	long long step = llround(t / dt);
	control->speed = n->speed;
	control->steering_wheel = 0;
	if (step == n->warn_step) {
		pthread_t th;
		if (!n->thread)
			warn(n);
		else if (pthread_create(&th, NULL, warn, n) == 0)
			pthread_join(th, NULL);
	}
	if (step == n->fail_step) {
		host->log(NULL, VS_LOG_ERROR, "no_ctx: failing at step %lld",
		          step);
		return VS_ERROR;
	}
	return VS_OK;
}

static void n_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "no_ctx",
	.version = "1.0.0",
	.doc = "test: calls the host's services with a NULL host_ctx",
	.params = params,
	.n_params = 3,
	.create = n_create,
	.reset = n_reset,
	.behaviour_step = n_step,
	.destroy = n_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
