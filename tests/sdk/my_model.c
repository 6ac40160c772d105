/* An out-of-tree vehicle model, as a user writes one: built by
 * tests/e2e/test_sdk.py against the installed header found through
 * pkg-config, with the two commands of the README. It drives straight
 * ahead at the commanded speed (m/s). */
#include <math.h>
#include <stdlib.h>
#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"steering_ratio", 15, 1, 100, "", "steering wheel : road wheel"},
};

typedef struct straight {
	double yaw; /* rad */
} straight;

static vs_status create(const vs_create_args *a, void **out)
{
	*out = calloc(1, sizeof(straight));
	(void)a;
	return *out ? VS_OK : VS_ERROR;
}

static vs_status reset(void *i, vs_state *s)
{
	((straight *)i)->yaw = s->yaw;
	return VS_OK;
}

static vs_status step(void *i, double t, double dt, const vs_control *c,
                      vs_state *s)
{
	(void)t;
	double hx = -sin(((straight *)i)->yaw), hy = cos(((straight *)i)->yaw);
	s->vx = c->speed * hx;
	s->vy = c->speed * hy;
	s->x += s->vx * dt;
	s->y += s->vy * dt;
	s->speed = c->speed;
	return VS_OK;
}

static void destroy(void *i)
{
	free(i);
}

static const vs_plugin desc = {
	.abi_major = VS_ABI_MAJOR, .abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin), .kind = VS_KIND_VEHICLE_MODEL,
	.name = "my_model", .version = "0.1", .doc = "straight ahead",
	.params = params, .n_params = 1, .create = create, .reset = reset,
	.vehicle_step = step, .destroy = destroy};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *host)
{
	(void)host;
	return &desc;
}
