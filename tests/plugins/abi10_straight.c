/* abi10_straight — a vehicle model built against the FROZEN ABI 1.0 header
 * (tests/plugins/abi10/vsweep/plugin.h), to show that a 1.1 host still
 * loads and runs a 1.0 plugin: its descriptor and create args are the
 * smaller 1.0 structs, which the host must not read past.
 *
 * It drives straight along its start heading at the commanded speed, so
 * the pose after t seconds is start + v t (cos h, sin h), h = yaw + pi/2.
 * With warn_every = N > 0 it logs a warning every N steps ("step K") and
 * an info message at create, for the plugin-message tests. */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

_Static_assert(VS_ABI_MINOR == 0, "built against the frozen 1.0 header");

static const vs_param params[] = {
	{"warn_every", 0.0, 0.0, 1e9, "", "log a warning every N steps; 0: "
	 "never"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct straight {
	void *host_ctx;
	long long warn_every;
} straight;

static vs_status st_create(const vs_create_args *args, void **instance)
{
	straight *s = calloc(1, sizeof *s);
	*instance = s;
	if (!s)
		return VS_ERROR;
	s->host_ctx = args->host_ctx;
	s->warn_every = llround(args->params[0]);
	if (s->warn_every > 0)
		host->log(s->host_ctx, VS_LOG_INFO, "created");
	return VS_OK;
}

static vs_status st_reset(void *instance, vs_state *s)
{
	(void)instance;
	const double h = s->yaw + 3.14159265358979323846 / 2; /* rad */
	s->vx = s->speed * cos(h);
	s->vy = s->speed * sin(h);
	return VS_OK;
}

static vs_status st_step(void *instance, double t, double dt,
                         const vs_control *c, vs_state *s)
{
	straight *p = instance;
	long long k = llround(t / dt);
	if (p->warn_every > 0 && k % p->warn_every == 0)
		host->log(p->host_ctx, VS_LOG_WARNING, "step %lld", k);
	const double h = s->yaw + 3.14159265358979323846 / 2; /* rad */
	s->speed = c->speed;
	s->vx = c->speed * cos(h);
	s->vy = c->speed * sin(h);
	s->x += s->vx * dt;
	s->y += s->vy * dt;
	return VS_OK;
}

static void st_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "abi10_straight",
	.version = "1.0.0",
	.doc = "straight ahead at the commanded speed (ABI 1.0 build)",
	.params = params,
	.n_params = 1,
	.create = st_create,
	.reset = st_reset,
	.vehicle_step = st_step,
	.behaviour_step = NULL,
	.destroy = st_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
