/* nan_model — a test vehicle model that goes wrong on purpose.
 *
 * Moves the origin straight along its heading at the commanded speed (no
 * steering); at step nan_step (t = nan_step * dt) it writes NaN into x and
 * still returns VS_OK, so the host's own check for non-finite states is
 * what the simulation tests exercise. nan_step = -1 never does. */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846

static const vs_param params[] = {
	/* Every vehicle model takes steering_ratio; unused. */
	{"steering_ratio", 15.0, 0.1, 100.0, "", "steering-wheel : road-wheel"},
	{"nan_step", -1.0, -1.0, 1e9, "", "step index to write NaN x at"},
};

typedef struct nan_model {
	long long nan_step;
} nan_model;

static vs_status nm_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	nan_model *m = calloc(1, sizeof *m);
	if (!m)
		return VS_ERROR;
	m->nan_step = llround(args->params[1]);
	*instance = m;
	return VS_OK;
}

static vs_status nm_reset(void *instance, vs_state *s)
{
	(void)instance;
	double h = s->yaw + PI / 2.0; /* heading from +X */
	s->vx = s->speed * cos(h);
	s->vy = s->speed * sin(h);
	s->vz = s->wx = s->wy = s->wz = s->steer = 0.0;
	return VS_OK;
}

static vs_status nm_step(void *instance, double t, double dt,
                         const vs_control *control, vs_state *s)
{
	const nan_model *m = instance;
	double h = s->yaw + PI / 2.0;
	s->speed = control->speed;
	s->vx = control->speed * cos(h);
	s->vy = control->speed * sin(h);
	s->x += s->vx * dt;
	s->y += s->vy * dt;
	if (llround(t / dt) == m->nan_step)
		s->x = NAN;
	return VS_OK;
}

static void nm_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "nan_model",
	.version = "0.0.1",
	.doc = "test vehicle model: straight ahead, NaN x at step nan_step",
	.params = params,
	.n_params = 2,
	.create = nm_create,
	.reset = nm_reset,
	.vehicle_step = nm_step,
	.destroy = nm_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	(void)h;
	return &descriptor;
}
