/* long_log — a test behaviour that says long things: at step log_step it
 * logs two warnings of short_bytes and long_bytes bytes, and prints a
 * line of print_bytes bytes on stdout (0: none), so that the end-to-end
 * tests can check what the log view keeps of each. It drives straight
 * ahead at the route's first speed.
 *
 * Every text of n bytes is "a", then as many two-byte 'é' (U+00E9) as
 * fit before a last byte, then "z" up to n bytes: for an even n,
 * "a" + "é" * ((n - 2) / 2) + "z", so that a cut at an even byte count
 * falls inside a character. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"log_step", 1.0, -1.0, 1e9, "", "step to log at; -1: never"},
	{"short_bytes", 300.0, 2.0, 1e6, "", "bytes of the first message"},
	{"long_bytes", 10000.0, 2.0, 1e6, "", "bytes of the second message"},
	{"print_bytes", 0.0, 0.0, 1e6, "", "bytes of the printed line; below 2: none"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct long_log {
	void *host_ctx;
	long long log_step;
	size_t bytes[3]; /* short, long, printed */
	double speed;    /* m/s */
} long_log;

/* The text of n bytes (n >= 2) described above; owned, or NULL. */
static char *text_of(size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	size_t k = 0;
	s[k++] = 'a';
	while (k + 2 < n) {
		s[k++] = (char)0xc3; /* 'é' in UTF-8 */
		s[k++] = (char)0xa9;
	}
	while (k < n)
		s[k++] = 'z';
	s[n] = '\0';
	return s;
}

static vs_status ll_create(const vs_create_args *args, void **instance)
{
	long_log *l = calloc(1, sizeof *l);
	if (!l)
		return VS_ERROR;
	l->host_ctx = args->host_ctx;
	l->log_step = llround(args->params[0]);
	for (int k = 0; k < 3; k++)
		l->bytes[k] = (size_t)llround(args->params[1 + k]);
	const vs_actor_info *a = args->actor;
	l->speed = a->speed && a->n_speed > 0 ? a->speed[0] : 0.0;
	*instance = l;
	return VS_OK;
}

static vs_status ll_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status ll_step(void *instance, double t, double dt,
                         const vs_state *self, vs_control *control)
{
	(void)self;
	long_log *l = instance;
	control->speed = l->speed;
	control->steering_wheel = 0.0;
	if (llround(t / dt) != l->log_step) /* step k is at t = k * dt */
		return VS_OK;
	for (int k = 0; k < 2; k++) {
		char *s = text_of(l->bytes[k]);
		if (!s)
			return VS_ERROR;
		host->log(l->host_ctx, VS_LOG_WARNING, "%s", s);
		free(s);
	}
	if (l->bytes[2] >= 2) {
		char *s = text_of(l->bytes[2]);
		if (!s)
			return VS_ERROR;
		printf("%s\n", s);
		free(s);
	}
	return VS_OK;
}

static void ll_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "long_log",
	.version = "0.0.1",
	.doc = "test behaviour: straight ahead, logs two long messages",
	.params = params,
	.n_params = 4,
	.create = ll_create,
	.reset = ll_reset,
	.behaviour_step = ll_step,
	.destroy = ll_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
