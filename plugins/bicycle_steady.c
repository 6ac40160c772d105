/* bicycle_steady — the steady-state linear two-wheel model.
 *
 * The car follows the steady-state cornering radius of the linear
 * two-wheel (bicycle) model, as vehicle-dynamics textbooks write it,
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
 * Built against <vsweep/plugin.h> only, like any outside plugin (the shared
 * helpers in vehicle_common.h are header-only).
 */
#include "vehicle_common.h"

enum {
	P_M,
	P_LF,
	P_KF,
	P_KR,
	P_STEERING_RATIO,
	P_MAX_STEER_DEG,
	P_MAX_ACCEL,
	P_MAX_DECEL,
	N_PARAMS
};

/* Defaults are round, plausible values: a 2-tonne sedan whose CG is
 * 1.4 m behind the front axle of its 3.0 m wheelbase. */
static const vs_param params[N_PARAMS] = {
	[P_M] = VC_PARAM_M,
	[P_LF] = VC_PARAM_LF,
	[P_KF] = VC_PARAM_KF,
	[P_KR] = VC_PARAM_KR,
	[P_STEERING_RATIO] = VC_PARAM_STEERING_RATIO,
	[P_MAX_STEER_DEG] = VC_PARAM_MAX_STEER_DEG,
	[P_MAX_ACCEL] = VC_PARAM_MAX_ACCEL,
	[P_MAX_DECEL] = VC_PARAM_MAX_DECEL,
};

typedef struct steady {
	void *host_ctx;
	double wheelbase;      /* m, l */
	double cg_y;           /* m, CG in the actor frame: front_axle_y - lf */
	double A;              /* s^2/m^2, stability factor */
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
	vc_long lg;            /* CG speed under accel (ABI 1.1) */
	double *out;           /* host-owned outputs (ABI 1.1), or NULL */
	ac_sincos heading;     /* the last heading's cosine and sine */
} steady;

/* Stored as signals bicycle_steady.A and bicycle_steady.radius. */
enum { OUT_A, OUT_RADIUS, N_OUT };
static const vs_output outputs[N_OUT] = {
	[OUT_A] = {"A", "s^2/m^2", "stability factor of the set-up"},
	[OUT_RADIUS] = {"radius", "m",
	                "CG path radius (1 + A V^2) l / delta, + = left; "
	                "infinite when straight"},
};

/* Writes the outputs for speed v (m/s) and road-wheel angle delta (rad). */
static void steady_outputs(const steady *b, double v, double delta)
{
	if (!b->out)
		return;
	b->out[OUT_A] = b->A;
	b->out[OUT_RADIUS] = delta != 0.0 ? (1.0 + b->A * v * v) *
	                                            b->wheelbase / delta
	                                  : HUGE_VAL;
}

static vs_status steady_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	const double lf = args->params[P_LF]; /* m */
	if (!vc_check_vehicle(args) || !vc_check_cg(args, lf))
		return VS_ERROR;
	steady *b = vc_alloc(args, sizeof *b);
	if (!b)
		return VS_ERROR;
	const double l = args->actor->wheelbase; /* m */
	b->host_ctx = args->host_ctx;
	b->wheelbase = l;
	b->cg_y = args->actor->front_axle_y - lf;
	b->A = vc_stability_factor(args, args->params[P_M], l, lf,
	                           args->params[P_KF], args->params[P_KR]);
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	b->lg.max_accel = args->params[P_MAX_ACCEL];
	b->lg.max_decel = args->params[P_MAX_DECEL];
	b->out = vc_outputs(args);
	*instance = b;
	return VS_OK;
}

static vs_status steady_reset(void *instance, vs_state *s)
{
	((steady *)instance)->lg.v = s->speed;
	vc_reset_straight(s);
	steady_outputs(instance, s->speed, 0.0);
	return VS_OK;
}

/* Exact for constant speed and steer over the step: the CG moves along the
 * arc of radius rho (vc_advance), with no sideslip: the integrals of
 * psi' = V / rho and (V cos psi, V sin psi), without a numerical
 * integrator's discretisation error. */
static vs_status steady_step(void *instance, double t, double dt,
                             const vs_control *control, vs_state *s)
{
	steady *b = instance;
	const double delta = vc_road_wheel(control->steering_wheel,
	                                   b->steering_ratio,
	                                   b->max_steer); /* rad */
	if (!vc_check_control(b->host_ctx, t, delta, control))
		return VS_ERROR;
	double v; /* m/s, CG, signed; the step's mean under accel */
	const double v1 = vc_long_step(&b->lg, control, dt, &v); /* at t */
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
	const vc_motion mo = {.v = v, .dpsi = omega * dt, .beta0 = 0.0,
	                      .beta1 = 0.0, .omega = omega};
	vc_advance(s, b->cg_y, dt, &mo, &b->heading);
	s->steer = delta;
	vc_long_finish(s, v, v1);
	if (!vc_check_state(b->host_ctx, t, control, s))
		return VS_ERROR;
	steady_outputs(b, v, delta);
	return VS_OK;
}

VC_VEHICLE_PLUGIN_OUT("bicycle_steady",
                  "steady-state two-wheel model: radius (1 + A V^2) l / "
                  "delta, CG reference",
                  steady_create, steady_reset, steady_step, outputs,
                  N_OUT)
