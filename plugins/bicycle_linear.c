/* bicycle_linear — the linear two-wheel model with its transient: the
 * extension the seed article (seeds/003) ends by proposing, a state-space
 * model that handles the transient response too (状態方程式を用いて
 * 過渡応答まで扱える構成への拡張).
 *
 * States: sideslip beta (rad) of the CG and yaw rate r (rad/s), at a speed V
 * that the control sets for each step. With Kf, Kr cornering powers PER
 * TYRE and two tyres to an axle (the convention of the article's formula),
 * the axle side forces are
 *
 *     Yf = -2 Kf (beta + lf r / V - delta),   Yr = -2 Kr (beta - lr r / V),
 *
 * and the equations of motion
 *
 *     m V (beta' + r) = Yf + Yr,              Iz r' = lf Yf - lr Yr,
 *
 * i.e. x' = M x + b delta with x = (beta, r),
 *
 *     M = [ -2(Kf+Kr)/(m V)          -1 - 2(lf Kf - lr Kr)/(m V^2) ]
 *         [ -2(lf Kf - lr Kr)/Iz     -2(lf^2 Kf + lr^2 Kr)/(Iz V)  ]
 *     b = ( 2 Kf/(m V), 2 lf Kf/Iz ).
 *
 * Its steady state is the article's: r = V delta / ((1 + A V^2) l), so the
 * CG circles on rho = V / r = (1 + A V^2) l / delta with
 * A = -m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr), exactly bicycle_steady's radius.
 * det M = 4 Kf Kr l^2 (1 + A V^2) / (m Iz V^2): an oversteering car
 * (A < 0) at or above the critical speed 1 / sqrt(-A) diverges, so such a
 * control fails the variant with the critical speed in its reason.
 *
 * Integration: delta and V are held over each step, so x is advanced with
 * the 2x2 matrix exponential in closed form (exact, however stiff the
 * system is at low speed), and the heading psi' = r by the exact integral
 * of r. The CG moves at V along its course psi + beta; over the step it is
 * moved along the arc from the old to the new course, which is exact once
 * beta and r are steady (the circle) and second order in the transient.
 *
 * Low speed: below V_LOW (and reversing) the model is singular (1/V terms)
 * and tyre slip means nothing, so it falls back to the kinematic limit of
 * the steady state, beta = lr/l delta and r = V delta / l, reached at once.
 *
 * The stored state is the actor origin's, as the design's contract asks;
 * the CG lies lf behind the front axle.
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin.
 */
#include <math.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
/* m/s: below this the kinematic fallback runs. At 0.5 m/s the tyre-slip
 * time constants m V / (2 (Kf + Kr)) are a few ms; lower still, they say
 * nothing about a car that is parking. */
#define V_LOW 0.5

enum {
	P_M,
	P_IZ,
	P_LF,
	P_KF,
	P_KR,
	P_STEERING_RATIO,
	P_MAX_STEER_DEG,
	N_PARAMS
};

/* Defaults are the article's; it has no yaw inertia, so Iz is a typical
 * value for a 2-tonne sedan (m lf lr would give 4480 kg m^2). */
static const vs_param params[N_PARAMS] = {
	[P_M] = {"m", 2000.0, 1.0, 1e6, "kg", "vehicle mass"},
	[P_IZ] = {"Iz", 3000.0, 1.0, 1e8, "kg*m^2",
	          "yaw moment of inertia about the CG"},
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

typedef struct linear {
	void *host_ctx;
	double m;              /* kg */
	double iz;             /* kg m^2 */
	double lf, lr, l;      /* m */
	double kf, kr;         /* N/rad, per tyre */
	double cg_y;           /* m, CG in the actor frame: front_axle_y - lf */
	double A;              /* s^2/m^2, stability factor */
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
	double beta;           /* rad, CG sideslip, state */
	double r;              /* rad/s, yaw rate, state */
} linear;

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

/* For z = w^2 t^2 (either sign): *c = cosh(w t) and *sh = sinh(w t)/(w t),
 * which for z < 0 are cos and sin(.)/(.) of sqrt(-z); continuous through
 * z = 0, where the roots of a critically damped system meet. */
static void cosh_sinhc(double z, double *c, double *sh)
{
	if (fabs(z) < 1e-6) {
		*c = 1.0 + z / 2.0 * (1.0 + z / 12.0);
		*sh = 1.0 + z / 6.0 * (1.0 + z / 20.0);
	} else if (z > 0.0) {
		double u = sqrt(z);
		*c = cosh(u);
		*sh = sinh(u) / u;
	} else {
		double u = sqrt(-z);
		*c = cos(u);
		*sh = sin(u) / u;
	}
}

static vs_status linear_create(const vs_create_args *args, void **instance)
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
	const double lf = args->params[P_LF];
	/* The CG must lie between the axles, or lr <= 0 and the moment
	 * balance means nothing. */
	if (!(lf > 0.0 && lf < l)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "lf = %g m puts the CG outside the wheelbase of "
		    "actor %s (ID %lld): it must lie in (0, %g) m",
		    lf, name, (long long)a->id, l);
		return VS_ERROR;
	}
	linear *b = calloc(1, sizeof *b);
	if (!b) {
		LOG(args->host_ctx, VS_LOG_ERROR, "out of memory");
		return VS_ERROR;
	}
	b->host_ctx = args->host_ctx;
	b->m = args->params[P_M];
	b->iz = args->params[P_IZ];
	b->l = l;
	b->lf = lf;
	b->lr = l - lf;
	b->kf = args->params[P_KF];
	b->kr = args->params[P_KR];
	b->cg_y = a->front_axle_y - lf;
	/* + 0.0: a neutral set-up's -0 would print as "-0.0e+00". */
	b->A = -b->m / (2.0 * l * l) * (lf * b->kf - b->lr * b->kr) /
	               (b->kf * b->kr) +
	       0.0;
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	LOG(args->host_ctx, VS_LOG_DEBUG,
	    "%s set-up, stability factor A = %.3e s^2/m^2",
	    b->A > 0.0 ? "understeer" : b->A < 0.0 ? "oversteer" : "neutral",
	    b->A);
	*instance = b;
	return VS_OK;
}

/* Step 0: the host's start pose and speed, moving straight ahead with no
 * sideslip and no yaw rate. */
static vs_status linear_reset(void *instance, vs_state *s)
{
	linear *b = instance;
	b->beta = 0.0;
	b->r = 0.0;
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

/* Advances (beta, r) over dt at speed v >= V_LOW and road-wheel angle
 * delta, exactly: x(dt) = xs + e^{M dt} (x0 - xs), xs = -M^-1 b delta.
 * *dpsi receives the integral of r over the step (rad). Returns 0 when
 * det M <= 0 (at or above the critical speed), leaving the state alone. */
static int advance_dynamic(linear *b, double v, double delta, double dt,
                           double *dpsi)
{
	const double m = b->m, iz = b->iz, lf = b->lf, lr = b->lr;
	const double kf = b->kf, kr = b->kr;
	const double a11 = -2.0 * (kf + kr) / (m * v);
	const double a12 = -1.0 - 2.0 * (lf * kf - lr * kr) / (m * v * v);
	const double a21 = -2.0 * (lf * kf - lr * kr) / iz;
	const double a22 = -2.0 * (lf * lf * kf + lr * lr * kr) / (iz * v);
	const double b1 = 2.0 * kf / (m * v), b2 = 2.0 * lf * kf / iz;
	const double det = a11 * a22 - a12 * a21; /* 1/s^2, omega_n^2 */
	if (!(det > 0.0))
		return 0;
	/* Steady state, and the deviation from it that decays. */
	const double xs1 = -(a22 * b1 - a12 * b2) * delta / det; /* rad */
	const double xs2 = -(-a21 * b1 + a11 * b2) * delta / det; /* rad/s */
	const double e1 = b->beta - xs1, e2 = b->r - xs2;
	/* e^{M t} = e^{s t} (cosh(w t) I + sinh(w t)/w (M - s I)), with
	 * s = tr M / 2 and w^2 = s^2 - det M (Cayley-Hamilton for 2x2). */
	const double sm = 0.5 * (a11 + a22);
	double c, sh;
	cosh_sinhc((sm * sm - det) * dt * dt, &c, &sh);
	const double g = exp(sm * dt), S = sh * dt; /* S in s */
	const double E11 = g * (c + S * (a11 - sm)), E12 = g * S * a12;
	const double E21 = g * S * a21, E22 = g * (c + S * (a22 - sm));
	/* The integral of the deviation over the step, M^-1 (E - I) e. */
	const double f1 = (E11 - 1.0) * e1 + E12 * e2;
	const double f2 = E21 * e1 + (E22 - 1.0) * e2;
	const double int_r = (-a21 * f1 + a11 * f2) / det; /* rad */
	b->beta = xs1 + E11 * e1 + E12 * e2;
	b->r = xs2 + E21 * e1 + E22 * e2;
	*dpsi = xs2 * dt + int_r;
	return 1;
}

static vs_status linear_step(void *instance, double t, double dt,
                             const vs_control *control, vs_state *s)
{
	linear *b = instance;
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
	const double beta0 = b->beta; /* rad, course = heading + beta */
	const int kinematic = v < V_LOW;
	double dpsi;                  /* rad, heading change over the step */
	if (kinematic) {
		/* Kinematic limit (V -> 0 of the steady state). */
		b->beta = b->lr / b->l * delta;
		b->r = v * delta / b->l;
		dpsi = b->r * dt;
	} else {
		/* Checked on the control, before anything moves: 1 + A V^2
		 * <= 0 means det M <= 0, a root in the right half-plane.
		 * advance_dynamic() checks det M itself too, in case rounding
		 * disagrees just below the critical speed. */
		int stable = !(b->A < 0.0 && v * v * -b->A >= 1.0) &&
		             advance_dynamic(b, v, delta, dt, &dpsi);
		if (!stable) {
			double vcrit = /* m/s */
				b->A < 0.0 ? 1.0 / sqrt(-b->A) : HUGE_VAL;
			LOG(b->host_ctx, VS_LOG_ERROR,
			    "speed %.1f m/s is at or above the critical speed "
			    "%.1f m/s of this oversteering set-up (stability "
			    "factor A = %.1e s^2/m^2) at t = %g s: the linear "
			    "model diverges",
			    v, vcrit, b->A, t);
			return VS_ERROR;
		}
	}
	const double cy = b->cg_y; /* m */
	double h0 = s->yaw + PI / 2.0;    /* heading from +X */
	double gx0 = s->x + cy * cos(h0); /* CG = origin + R(yaw)(0, cy, 0) */
	double gy0 = s->y + cy * sin(h0);
	/* The low-speed fallback sets beta at once: its course starts from
	 * the new beta, so that it is the kinematic arc exactly. */
	double chi0 = h0 + (kinematic ? b->beta : beta0); /* rad, course */
	double dchi = dpsi + (kinematic ? 0.0 : b->beta - beta0);
	double chord = v * dt * sinc(0.5 * dchi); /* m, signed with v */
	double gx1 = gx0 + chord * cos(chi0 + 0.5 * dchi);
	double gy1 = gy0 + chord * sin(chi0 + 0.5 * dchi);

	double yaw1 = wrap_angle(s->yaw + dpsi);
	double h1 = yaw1 + PI / 2.0;
	double fx = cos(h1), fy = sin(h1); /* forward unit vector, world */
	double cb = cos(b->beta), sb = sin(b->beta);
	/* CG velocity: V along the course h1 + beta, i.e.
	 * V (cos beta f + sin beta left) with left = (-fy, fx). */
	double vgx = v * (cb * fx - sb * fy);
	double vgy = v * (cb * fy + sb * fx);

	/* Origin = CG - R(yaw)(0, cy, 0); its velocity is the CG's plus
	 * omega x (origin - CG) = r z x (-cy f), which is lateral. */
	s->x = gx1 - cy * fx;
	s->y = gy1 - cy * fy;
	s->yaw = yaw1;
	s->vx = vgx + b->r * cy * fy;
	s->vy = vgy - b->r * cy * fx;
	s->vz = 0.0;
	s->wx = s->wy = 0.0;
	s->wz = b->r;
	s->speed = v * cb; /* the forward part of the origin's velocity */
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

static void linear_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_VEHICLE_MODEL,
	.name = "bicycle_linear",
	.version = "1.0.0",
	.doc = "linear two-wheel model with sideslip and yaw-rate transient, "
	       "CG reference",
	.params = params,
	.n_params = N_PARAMS,
	.create = linear_create,
	.reset = linear_reset,
	.vehicle_step = linear_step,
	.behaviour_step = NULL,
	.destroy = linear_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
