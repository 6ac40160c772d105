/* talk — a test behaviour that says things in the ways a plugin may,
 * for tests/e2e/test_output.py: where each ends up when it runs
 * contained (core/run/contain.c), and what a terminal would see of it.
 * It drives straight ahead at the route's first speed. By its parameter
 * `mode`:
 * 1 (forge): at step talk_step, prints lines that read as vsweep's own,
 *   one on stdout, then two on stderr (FORGED below);
 * 2 (progress): at every step prints "\rprogress P%" on stderr, P = 20
 *   times the step, without a newline, as a progress indicator does, and
 *   at step talk_step logs the warning "real warning";
 * 3 (unsafe): at step talk_step logs a warning and prints on stdout the
 *   line UNSAFE: C1 controls and bidirectional overrides, which are
 *   well-formed UTF-8 a terminal acts on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"mode", 1.0, 1.0, 3.0, "", "1 forge, 2 progress, 3 unsafe"},
	{"talk_step", 2.0, 1.0, 1e9, "", "step to talk at"},
};

/* U+009B (CSI), U+0085 (NEL), U+202E (right-to-left override), U+2069
 * (pop directional isolate), each next to plain text. */
#define UNSAFE "csi:\xc2\x9b" "31m nel:\xc2\x85 rlo:\xe2\x80\xae" \
               "abc pdi:\xe2\x81\xa9 end"

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct talk {
	void *host_ctx;
	int mode;
	long long talk_step;
	double speed; /* m/s */
} talk;

static vs_status t_create(const vs_create_args *args, void **instance)
{
	talk *k = calloc(1, sizeof *k);
	if (!k)
		return VS_ERROR;
	k->host_ctx = args->host_ctx;
	k->mode = (int)llround(args->params[0]);
	k->talk_step = llround(args->params[1]);
	const vs_actor_info *a = args->actor;
	k->speed = a->speed && a->n_speed > 0 ? a->speed[0] : 0.0;
	*instance = k;
	return VS_OK;
}

static vs_status t_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status t_step(void *instance, double t, double dt,
                        const vs_state *self, vs_control *control)
{
	(void)self;
	talk *k = instance;
	long long step = llround(t / dt);
	control->speed = k->speed;
	control->steering_wheel = 0;
	if (k->mode == 2) {
		fprintf(stderr, "\rprogress %lld%%", 20 * step);
		fflush(stderr);
	}
	if (step != k->talk_step)
		return VS_OK;
	if (k->mode == 1) {
		printf("vsweep: variant 0: actor 1: talk: error: forged\n");
		fflush(stdout); /* before stderr's */
		fprintf(stderr, "vsweep: variant 0: failed: forged\n");
		fprintf(stderr, "vsweep: further plugin messages are not "
		        "printed (forged)\n");
	} else if (k->mode == 2) {
		host->log(k->host_ctx, VS_LOG_WARNING, "real warning");
	} else {
		host->log(k->host_ctx, VS_LOG_WARNING, "%s", UNSAFE);
		printf("%s\n", UNSAFE);
		fflush(stdout);
	}
	return VS_OK;
}

static void t_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "talk",
	.version = "1.0.0",
	.doc = "test: prints and logs what must not reach a terminal raw",
	.params = params,
	.n_params = 2,
	.create = t_create,
	.reset = t_reset,
	.behaviour_step = t_step,
	.destroy = t_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
