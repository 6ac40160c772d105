/* load_keeps.so: a behaviour whose entry point installs a SIGFPE
 * handler, as a language runtime or a crash reporter loaded with a
 * plugin does, and whose create fails if it is gone by then: the loader,
 * which guards the entry point with handlers of its own, must give back
 * only those (tests/e2e/test_messages.py, without containment: a child
 * process resets its handlers itself). Drives straight at its first
 * speed. */
#include <signal.h>
#include <string.h>

#include <vsweep/plugin.h>

static const vs_host *host;

/* Its own handler: the default action again, and the signal raised. */
static void keeper(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static vs_status k_create(const vs_create_args *args, void **instance)
{
	struct sigaction now;
	*instance = NULL;
	if (sigaction(SIGFPE, NULL, &now) != 0 || now.sa_handler != keeper) {
		if (host && host->log)
			host->log(args->host_ctx, VS_LOG_ERROR,
			          "load_keeps: my SIGFPE handler is gone");
		return VS_ERROR;
	}
	static double speed; /* m/s, the route's first */
	speed = args->actor->n_speed > 0 ? args->actor->speed[0] : 0.0;
	*instance = &speed;
	return VS_OK;
}

static vs_status k_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status k_step(void *instance, double t, double dt,
                        const vs_state *self, vs_control *control)
{
	(void)t;
	(void)dt;
	(void)self;
	control->speed = *(const double *)instance;
	control->steering_wheel = 0.0;
	return VS_OK;
}

static void k_destroy(void *instance)
{
	(void)instance;
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "load_keeps",
	.version = "0.0.1",
	.doc = "test behaviour: keeps a signal handler it installs at load",
	.create = k_create,
	.reset = k_reset,
	.behaviour_step = k_step,
	.destroy = k_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = keeper;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGFPE, &sa, NULL);
	return &descriptor;
}
