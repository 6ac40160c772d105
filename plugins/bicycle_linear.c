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
 * Built against <vsweep/plugin.h> only, like any outside plugin (the shared
 * helpers in vehicle_common.h are header-only).
 */
#include "vehicle_common.h"

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
	[P_M] = VC_PARAM_M,
	[P_IZ] = {"Iz", 3000.0, 1.0, 1e8, "kg*m^2",
	          "yaw moment of inertia about the CG"},
	[P_LF] = VC_PARAM_LF,
	[P_KF] = VC_PARAM_KF,
	[P_KR] = VC_PARAM_KR,
	[P_STEERING_RATIO] = VC_PARAM_STEERING_RATIO,
	[P_MAX_STEER_DEG] = VC_PARAM_MAX_STEER_DEG,
};

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
	const double lf = args->params[P_LF]; /* m */
	if (!vc_check_vehicle(args) || !vc_check_cg(args, lf))
		return VS_ERROR;
	linear *b = vc_alloc(args, sizeof *b);
	if (!b)
		return VS_ERROR;
	const double l = args->actor->wheelbase; /* m */
	b->host_ctx = args->host_ctx;
	b->m = args->params[P_M];
	b->iz = args->params[P_IZ];
	b->l = l;
	b->lf = lf;
	b->lr = l - lf;
	b->kf = args->params[P_KF];
	b->kr = args->params[P_KR];
	b->cg_y = args->actor->front_axle_y - lf;
	b->A = vc_stability_factor(args, b->m, l, lf, b->kf, b->kr);
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
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
	vc_reset_straight(s);
	return VS_OK;
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
	const double delta = vc_road_wheel(control->steering_wheel,
	                                   b->steering_ratio,
	                                   b->max_steer); /* rad */
	const double v = control->speed; /* m/s, CG, signed */
	if (!vc_check_control(b->host_ctx, t, delta, control))
		return VS_ERROR;
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
	/* The CG moves at V along its course, heading + beta. The low-speed
	 * fallback sets beta at once: its course starts from the new beta, so
	 * that it is the kinematic arc exactly. Otherwise the arc runs from
	 * the old course to the new, exact once beta and r are steady. */
	const vc_motion mo = {.v = v,
	                      .dpsi = dpsi,
	                      .beta0 = kinematic ? b->beta : beta0,
	                      .beta1 = b->beta,
	                      .omega = b->r};
	vc_advance(s, b->cg_y, dt, &mo);
	s->steer = delta;
	if (!vc_check_state(b->host_ctx, t, control, s))
		return VS_ERROR;
	return VS_OK;
}

VC_VEHICLE_PLUGIN("bicycle_linear",
                  "linear two-wheel model with sideslip and yaw-rate "
                  "transient, CG reference",
                  linear_create, linear_reset, linear_step)
