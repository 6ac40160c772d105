/* bicycle_steady — the seed article's steady-state two-wheel model.
 *
 * The article (seeds/003) drives its car with the steady-state cornering
 * radius of the linear two-wheel (bicycle) model,
 *
 *     rho = (1 - m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr) V^2) l / delta
 *         = (1 + A V^2) l / delta,
 *     A   = -m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr)      (stability factor),
 *
 * and integrates yaw from psi' = V / rho and the position from
 * (V cos psi, V sin psi): the centre of gravity moves along its heading at V
 * with no sideslip. Kf and Kr are cornering powers per tyre, two tyres to an
 * axle (that is where the 2 in m/(2 l^2) comes from).
 *
 * The sign of A classifies the set-up: A > 0 understeer (the radius grows
 * with speed), A = 0 neutral steer (lf Kf = lr Kr, radius l / delta at any
 * speed), A < 0 oversteer (the radius shrinks, and reaches zero at the
 * critical speed 1 / sqrt(-A)). At or above the critical speed the formula
 * gives a negative radius — no steady state exists — so the variant fails
 * with the critical speed in its reason rather than store nonsense.
 *
 * The commanded speed is the CG's speed, reached at once (no longitudinal
 * dynamics). The CG lies lf behind the front axle; the stored state is the
 * actor origin's, as the design's coordinate contract asks.
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin.
 */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

enum {
	P_M,
	P_LF,
	P_KF,
	P_KR,
	P_STEERING_RATIO,
	P_MAX_STEER_DEG,
	N_PARAMS
};

/* Defaults are the article's ("えいや" values): a 2-tonne sedan whose CG is
 * 1.4 m behind the front axle of its 3.0 m wheelbase. */
static const vs_param params[N_PARAMS] = {
	[P_M] = {"m", 2000.0, 1.0, 1e6, "kg", "vehicle mass"},
	/* The range only bounds the number; create() checks 0 < lf < l
	 * against the actor's wheelbase and says so if not. */
	[P_LF] = {"lf", 1.4, 0.0, 100.0, "m",
	          "CG to front axle; lr = wheelbase - lf"},
	[P_KF] = {"Kf", 30e3, 1.0, 1e7, "N/rad",
	          "front cornering power per tyre (two tyres per axle)"},
	[P_KR] = {"Kr", 30e3, 1.0, 1e7, "N/rad",
	          "rear cornering power per tyre (two tyres per axle)"},
	/* The design contract: every vehicle model takes steering_ratio. */
	[P_STEERING_RATIO] = {"steering_ratio", 15.0, 0.1, 100.0, "",
	                      "steering-wheel angle : road-wheel angle"},
	[P_MAX_STEER_DEG] = {"max_steer_deg", 45.0, 0.0, 89.0, "deg",
	                     "road-wheel angle limit, either side"},
};

/* Set once at entry, read-only afterwards (instances on many threads). */
static const vs_host *host;

typedef struct steady {
	void *host_ctx;
	double wheelbase;      /* m, l */
	double cg_y;           /* m, CG in the actor frame: front_axle_y - lf */
	double A;              /* s^2/m^2, stability factor */
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
} steady;

/* The host tags each message with the variant, the actor and this
 * plugin's name, so messages do not repeat them. */
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

static vs_status steady_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	const vs_actor_info *a = args->actor;
	const char *name = a->name ? a->name : "?";
	if (a->n_axles < 2 || !(a->wheelbase > 0.0) || !isfinite(a->wheelbase)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "actor %s (ID %lld) is not a vehicle (%u axles, "
		    "wheelbase %g m): it needs two axles and a wheelbase "
		    "> 0; give it a vehicle asset or another model",
		    name, (long long)a->id, (unsigned)a->n_axles, a->wheelbase);
		return VS_ERROR;
	}
	const double l = a->wheelbase;
	const double m = args->params[P_M];
	const double lf = args->params[P_LF];
	const double kf = args->params[P_KF], kr = args->params[P_KR];
	/* The CG must lie between the axles, or lr <= 0 and the model's
	 * moment balance means nothing. */
	if (!(lf > 0.0 && lf < l)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "lf = %g m puts the CG outside the wheelbase of "
		    "actor %s (ID %lld): it must lie in (0, %g) m",
		    lf, name, (long long)a->id, l);
		return VS_ERROR;
	}
	steady *b = calloc(1, sizeof *b);
	if (!b) {
		LOG(args->host_ctx, VS_LOG_ERROR, "out of memory");
		return VS_ERROR;
	}
	const double lr = l - lf;
	b->host_ctx = args->host_ctx;
	b->wheelbase = l;
	b->cg_y = a->front_axle_y - lf;
	/* + 0.0: a neutral set-up's -0 would print as "-0.0e+00". */
	b->A = -m / (2.0 * l * l) * (lf * kf - lr * kr) / (kf * kr) + 0.0;
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	LOG(args->host_ctx, VS_LOG_DEBUG,
	    "%s set-up, stability factor A = %.3e s^2/m^2",
	    b->A > 0.0 ? "understeer" : b->A < 0.0 ? "oversteer" : "neutral",
	    b->A);
	*instance = b;
	return VS_OK;
}

/* Step 0: the host's start pose and speed, moving straight ahead. */
static vs_status steady_reset(void *instance, vs_state *s)
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

/* Exact for constant speed and steer over the step: the CG moves along the
 * arc of radius rho, so the step is the arc's chord, of length
 * V dt sin(dpsi/2) / (dpsi/2), in the direction halfway between the old
 * and the new heading (the article's Simulink integrators, without their
 * discretisation error). */
static vs_status steady_step(void *instance, double t, double dt,
                             const vs_control *control, vs_state *s)
{
	steady *b = instance;
	double delta = control->steering_wheel / b->steering_ratio; /* rad */
	if (delta > b->max_steer)
		delta = b->max_steer;
	else if (delta < -b->max_steer)
		delta = -b->max_steer;
	const double v = control->speed; /* m/s, CG, signed */
	if (!isfinite(v) || !isfinite(delta)) {
		LOG(b->host_ctx, VS_LOG_ERROR,
		    "non-finite control at t = %g s (speed %g m/s, "
		    "steering wheel %g rad)",
		    t, control->speed, control->steering_wheel);
		return VS_ERROR;
	}
	/* 1 + A V^2 <= 0: the oversteering car has no steady circle (the
	 * linear model diverges); the formula's negative radius would turn
	 * the car the wrong way. */
	const double gain = 1.0 + b->A * v * v; /* rho = gain * l / delta */
	if (!(gain > 0.0)) {
		LOG(b->host_ctx, VS_LOG_ERROR,
		    "speed %.1f m/s is at or above the critical speed %.1f "
		    "m/s of this oversteering set-up (stability factor A = "
		    "%.1e s^2/m^2) at t = %g s: it has no steady circle",
		    fabs(v), 1.0 / sqrt(-b->A), b->A, t);
		return VS_ERROR;
	}
	/* r = V / rho, written so that delta = 0 (straight) needs no
	 * infinite radius. */
	const double omega = v * delta / (gain * b->wheelbase); /* rad/s */
	const double cy = b->cg_y; /* m */

	double h0 = s->yaw + PI / 2.0; /* heading from +X */
	double gx0 = s->x + cy * cos(h0); /* CG = origin + R(yaw)(0, cy, 0) */
	double gy0 = s->y + cy * sin(h0);

	double dpsi = omega * dt;                 /* rad, heading change */
	double chord = v * dt * sinc(0.5 * dpsi); /* m, signed with v */
	double hm = h0 + 0.5 * dpsi;
	double gx1 = gx0 + chord * cos(hm);
	double gy1 = gy0 + chord * sin(hm);

	double yaw1 = wrap_angle(s->yaw + dpsi);
	double h1 = yaw1 + PI / 2.0;
	double fx = cos(h1), fy = sin(h1); /* forward unit vector, world */

	/* Origin = CG - R(yaw)(0, cy, 0); its velocity is the CG's plus
	 * omega x (origin - CG) = omega z x (-cy f), which is lateral. */
	s->x = gx1 - cy * fx;
	s->y = gy1 - cy * fy;
	s->yaw = yaw1;
	s->vx = v * fx + omega * cy * fy;
	s->vy = v * fy - omega * cy * fx;
	s->vz = 0.0;
	s->wx = s->wy = 0.0;
	s->wz = omega;
	s->speed = v; /* omega x r is lateral: the forward part is V */
	s->steer = delta;
	/* The model is planar: z, roll and pitch are left as they were. */
	if (!state_finite(s)) {
		LOG(b->host_ctx, VS_LOG_ERROR,
		    "non-finite state at t = %g s (speed %g m/s, "
		    "steering wheel %g rad)",
		    t, control->speed, control->steering_wheel);
		return VS_ERROR;
	}
	return VS_OK;
}

static void steady_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "bicycle_steady",
	.version = "1.0.0",
	.doc = "steady-state two-wheel model: radius (1 + A V^2) l / delta, "
	       "CG reference",
	.params = params,
	.n_params = N_PARAMS,
	.create = steady_create,
	.reset = steady_reset,
	.vehicle_step = steady_step,
	.behaviour_step = NULL,
	.destroy = steady_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
