/* kinematic_bicycle — the default vehicle model.
 *
 * The two-wheel (bicycle) model without tyre slip: both wheels of an axle
 * are lumped into one on the centre line, the rear wheel rolls along its own
 * heading, and the front wheel is steered by delta. With no slip the
 * instantaneous centre of rotation lies on the rear-axle line at distance
 * l / tan(delta) to the side, so the rear axle runs on a circle of that
 * radius; this is the limit of the seed article's steady-state formula
 * rho = (1 - m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr) V^2) l/delta as the cornering
 * stiffnesses grow (a neutral-steer car at any speed).
 *
 * Speed follows RoadRunner's semantics: the commanded speed is the rear
 * axle's speed, reached at once (no longitudinal dynamics).
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin.
 */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

enum { P_STEERING_RATIO, P_MAX_STEER_DEG, N_PARAMS };

static const vs_param params[N_PARAMS] = {
	/* The design contract: every vehicle model takes steering_ratio.
	 * Meant as (0.1, 100]; vs_param ranges are closed, and 0.1 is as
	 * harmless as anything just above it. */
	[P_STEERING_RATIO] = {"steering_ratio", 15.0, 0.1, 100.0, "",
	                      "steering-wheel angle : road-wheel angle"},
	/* Below 90 deg so that tan(delta) stays finite. */
	[P_MAX_STEER_DEG] = {"max_steer_deg", 45.0, 0.0, 89.0, "deg",
	                     "road-wheel angle limit, either side"},
};

/* Set once at entry, read-only afterwards (instances on many threads). */
static const vs_host *host;

typedef struct bicycle {
	void *host_ctx;
	double wheelbase;      /* m, l: front axle to rear axle (group) */
	double rear_axle_y;    /* m, rear axle in the actor frame (< 0 usually) */
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
} bicycle;

#define LOG(ctx, level, ...)                                               \
	do {                                                               \
		if (host && host->log)                                     \
			host->log((ctx), (level), __VA_ARGS__);            \
	} while (0)

/* Wraps an angle into (-pi, pi], the stored yaw convention. */
static double wrap_angle(double a)
{
	a = remainder(a, 2.0 * PI); /* [-pi, pi] */
	if (a <= -PI)
		a += 2.0 * PI;
	return a;
}

/* sin(x)/x, accurate near 0 where the quotient loses digits. */
static double sinc(double x)
{
	if (fabs(x) < 1e-4)
		return 1.0 - x * x / 6.0 * (1.0 - x * x / 20.0);
	return sin(x) / x;
}

static vs_status bicycle_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	const vs_actor_info *a = args->actor;
	/* Steering geometry needs a front and a rear axle some distance
	 * apart; a pedestrian or a box has neither. */
	if (a->n_axles < 2 || !(a->wheelbase > 0.0) || !isfinite(a->wheelbase)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "actor %s (ID %lld) is not a vehicle "
		    "(%u axles, wheelbase %g m): it needs two axles and a "
		    "wheelbase > 0; give it a vehicle asset or another model",
		    a->name ? a->name : "?", (long long)a->id,
		    (unsigned)a->n_axles, a->wheelbase);
		return VS_ERROR;
	}
	bicycle *b = calloc(1, sizeof *b);
	if (!b) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "out of memory");
		return VS_ERROR;
	}
	b->host_ctx = args->host_ctx;
	b->wheelbase = a->wheelbase;
	b->rear_axle_y = a->rear_axle_y;
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	*instance = b;
	return VS_OK;
}

/* Step 0: the host's start pose and speed, moving straight ahead. */
static vs_status bicycle_reset(void *instance, vs_state *s)
{
	(void)instance;
	double heading = s->yaw + PI / 2.0; /* from +X; yaw 0 faces +Y */
	s->yaw = wrap_angle(s->yaw);
	s->vx = s->speed * cos(heading);
	s->vy = s->speed * sin(heading);
	s->vz = 0.0;
	s->wx = s->wy = s->wz = 0.0;
	s->steer = 0.0;
	return VS_OK;
}

static int state_finite(const vs_state *s)
{
	const double v[] = {s->x,  s->y,  s->z,  s->roll, s->pitch,
	                    s->yaw, s->vx, s->vy, s->vz,   s->wx,
	                    s->wy, s->wz, s->speed, s->steer};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* Exact for constant speed and steer over the step: the rear axle moves
 * along the arc of radius l / tan(delta), so the step is the arc's chord,
 * of length s * sin(dpsi/2) / (dpsi/2), in the direction halfway between
 * the old and the new heading. Euler would spiral outwards. */
static vs_status bicycle_step(void *instance, double t, double dt,
                              const vs_control *control, vs_state *s)
{
	bicycle *b = instance;
	double delta = control->steering_wheel / b->steering_ratio; /* rad */
	if (delta > b->max_steer)
		delta = b->max_steer;
	else if (delta < -b->max_steer)
		delta = -b->max_steer;
	double v = control->speed;                           /* m/s, rear axle */
	double omega = v * tan(delta) / b->wheelbase;        /* rad/s, yaw rate */
	double ry = b->rear_axle_y;                          /* m */

	/* Rear axle from the origin: R(yaw) (0, ry, 0) = ry * forward. */
	double h0 = s->yaw + PI / 2.0; /* heading from +X */
	double rx0 = s->x + ry * cos(h0);
	double ry0 = s->y + ry * sin(h0);

	double dpsi = omega * dt;                 /* rad, heading change */
	double chord = v * dt * sinc(0.5 * dpsi); /* m, signed with v */
	double hm = h0 + 0.5 * dpsi;
	double rx1 = rx0 + chord * cos(hm);
	double ry1 = ry0 + chord * sin(hm);

	double yaw1 = wrap_angle(s->yaw + dpsi);
	double h1 = yaw1 + PI / 2.0;
	double fx = cos(h1), fy = sin(h1); /* forward unit vector, world */

	/* Origin = rear + R(yaw)(0, -ry, 0); its velocity is the rear axle's
	 * plus omega x r, r = origin - rear = -ry * forward: a point ahead of
	 * the rear axle also swings sideways, into the turn. */
	s->x = rx1 - ry * fx;
	s->y = ry1 - ry * fy;
	s->yaw = yaw1;
	s->vx = v * fx + omega * ry * fy;
	s->vy = v * fy - omega * ry * fx;
	s->vz = 0.0;
	s->wx = s->wy = 0.0;
	s->wz = omega;
	s->speed = v; /* omega x r is lateral: the forward part is v */
	s->steer = delta;
	/* The model is planar: z, roll and pitch are left as they were. */
	if (!state_finite(s)) {
		LOG(b->host_ctx, VS_LOG_ERROR,
		    "non-finite state at t = %g s (speed %g "
		    "m/s, steering wheel %g rad)",
		    t, control->speed, control->steering_wheel);
		return VS_ERROR;
	}
	return VS_OK;
}

static void bicycle_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "kinematic_bicycle",
	.version = "1.0.0",
	.doc = "kinematic two-wheel model, rear-axle reference, no slip",
	.params = params,
	.n_params = N_PARAMS,
	.create = bicycle_create,
	.reset = bicycle_reset,
	.vehicle_step = bicycle_step,
	.behaviour_step = NULL,
	.destroy = bicycle_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
