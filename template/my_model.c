/* my_model — a vehicle model to make your own (from `vsweep new-plugin`).
 *
 * As shipped it is the simplest steerable car: the actor origin moves at
 * the commanded speed v (m/s) on an arc of radius L / tan(delta), L being
 * the actor's wheelbase (m) and delta = steering wheel / steering_ratio the
 * road-wheel angle (rad). Each step integrates that arc exactly, so a
 * constant steer drives a circle of exactly that radius.
 *
 * Coordinates (vsweep's docs/conventions.md): world X east, Y north; yaw 0
 * faces +Y, so the heading from +X is yaw + pi/2. Replace model_step() with
 * your dynamics; keep the life cycle: create (parameters), reset (start
 * state), step, destroy.
 * Built against <vsweep/plugin.h> alone (pkg-config vsweep). */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846

enum { P_STEERING_RATIO, N_PARAMS };

/* Every parameter: name, default, min, max, unit, doc. Scenarios set them
 * under vehicle_model.params; sweeps vary them as
 * {param: vehicle_model.NAME}. */
static const vs_param params[N_PARAMS] = {
	[P_STEERING_RATIO] = {"steering_ratio", 15.0, 0.1, 100.0, "",
	                      "steering wheel : road wheel"},
};

static const vs_host *host; /* set at entry, read-only afterwards */

typedef struct model {
	void *host_ctx;        /* args->host_ctx: the first argument of every
	                          host service, in every call */
	double wheelbase;      /* m */
	double steering_ratio;
} model;

static vs_status model_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	model *m = calloc(1, sizeof *m);
	if (!m) {
		if (host && host->log)
			host->log(args->host_ctx, VS_LOG_ERROR, "out of memory");
		return VS_ERROR;
	}
	m->host_ctx = args->host_ctx;
	m->wheelbase = args->actor->wheelbase;
	m->steering_ratio = args->params[P_STEERING_RATIO];
	if (!(m->wheelbase > 0)) {
		if (host && host->log)
			host->log(args->host_ctx, VS_LOG_ERROR, "my_model needs "
			          "an asset with a wheelbase > 0");
		free(m);
		return VS_ERROR;
	}
	*instance = m;
	return VS_OK;
}

/* The host's start state holds the pose and the first speed (m/s, along
 * the actor's forward axis); complete it: step 0 moves at that speed,
 * straight ahead (setting speed 0 here would make step 1 jump to the
 * behaviour's speed: an absurd deceleration and jerk in the KPIs). */
static vs_status model_reset(void *instance, vs_state *state)
{
	(void)instance;
	double heading = state->yaw + PI / 2;  /* rad from +X; yaw 0 faces +Y */
	state->vx = state->speed * cos(heading);  /* m/s */
	state->vy = state->speed * sin(heading);
	state->vz = state->wx = state->wy = state->wz = 0;
	state->steer = 0;
	return VS_OK;
}

static vs_status model_step(void *instance, double t, double dt,
                            const vs_control *c, vs_state *s)
{
	const model *m = instance;
	(void)t;
	double delta = c->steering_wheel / m->steering_ratio;  /* rad */
	double v = c->speed;                                    /* m/s */
	double r = v * tan(delta) / m->wheelbase;               /* rad/s */
	double h0 = s->yaw + PI / 2, h1 = h0 + r * dt;          /* heading */
	if (fabs(r * dt) > 1e-12) {  /* the exact arc */
		s->x += v / r * (sin(h1) - sin(h0));
		s->y -= v / r * (cos(h1) - cos(h0));
	} else {                     /* straight on */
		s->x += v * dt * cos(h0);
		s->y += v * dt * sin(h0);
	}
	s->yaw = h1 - PI / 2;
	s->vx = v * cos(h1);
	s->vy = v * sin(h1);
	s->wz = r;
	s->speed = v;
	s->steer = delta;
	if (!isfinite(s->x) || !isfinite(s->y)) {
		if (host && host->log)
			host->log(m->host_ctx, VS_LOG_ERROR,
			          "state is not finite");
		return VS_ERROR;
	}
	return VS_OK;
}

static void model_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "my_model",
	.version = "0.1.0",
	.doc = "arc at the commanded speed and steer (template)",
	.params = params,
	.n_params = N_PARAMS,
	.create = model_create,
	.reset = model_reset,
	.vehicle_step = model_step,
	.behaviour_step = NULL,
	.destroy = model_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
