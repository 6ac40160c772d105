/* bicycle_linear — the linear two-wheel model with its transient: the
 * state-space form of bicycle_steady's model, which also gives the
 * response between steady states (sideslip and yaw rate settle on
 * bicycle_steady's circle).
 *
 * States: sideslip beta (rad) of the CG and yaw rate r (rad/s), at a speed V
 * that the control sets for each step. With Kf, Kr cornering powers PER
 * TYRE and two tyres to an axle (bicycle_steady's convention),
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
 * Its steady state is bicycle_steady's: r = V delta / ((1 + A V^2) l), so the
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
 * Low speed: below LT_V_LOW (and reversing) the model is singular (1/V terms)
 * and tyre slip means nothing, so it falls back to the kinematic limit of
 * the steady state, beta = lr/l delta and r = V delta / l, reached at once.
 *
 * The stored state is the actor origin's, as the design's contract asks;
 * the CG lies lf behind the front axle.
 *
 * Outputs (ABI 1.1, stored as signals bicycle_linear.NAME): beta, yaw_rate,
 * ay, the slip angles alpha_f and alpha_r and the axle side forces Fyf and
 * Fyr, each step.
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin (the
 * physics, in linear_track.h, and the helpers in vehicle_common.h are
 * header-only).
 */
#include "linear_track.h"

enum {
	P_M,
	P_IZ,
	P_LF,
	P_KF,
	P_KR,
	P_STEERING_RATIO,
	P_MAX_STEER_DEG,
	P_MAX_ACCEL,
	P_MAX_DECEL,
	N_PARAMS
};

/* Defaults are bicycle_steady's; that model has no yaw inertia, so Iz
 * is a typical value for a 2-tonne sedan (m lf lr would give 4480 kg m^2). */
static const vs_param params[N_PARAMS] = {
	[P_M] = VC_PARAM_M,
	[P_IZ] = {"Iz", 3000.0, 1.0, 1e8, "kg*m^2",
	          "yaw moment of inertia about the CG"},
	[P_LF] = VC_PARAM_LF,
	[P_KF] = VC_PARAM_KF,
	[P_KR] = VC_PARAM_KR,
	[P_STEERING_RATIO] = VC_PARAM_STEERING_RATIO,
	[P_MAX_STEER_DEG] = VC_PARAM_MAX_STEER_DEG,
	[P_MAX_ACCEL] = VC_PARAM_MAX_ACCEL,
	[P_MAX_DECEL] = VC_PARAM_MAX_DECEL,
};

typedef struct linear {
	void *host_ctx;
	lt_model lt;
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
	vc_long lg;            /* CG speed under accel (ABI 1.1) */
	double *out;           /* LT_N_OUT host-owned outputs, or NULL */
} linear;

static const vs_output outputs[LT_N_OUT] = {LT_OUTPUTS};

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
	lt_model *m = &b->lt;
	b->host_ctx = args->host_ctx;
	m->m = args->params[P_M];
	m->iz = args->params[P_IZ];
	m->l = l;
	m->lf = lf;
	m->lr = l - lf;
	m->kf = args->params[P_KF];
	m->kr = args->params[P_KR];
	m->cg_y = args->actor->front_axle_y - lf;
	m->A = vc_stability_factor(args, m->m, l, lf, m->kf, m->kr);
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	b->lg.max_accel = args->params[P_MAX_ACCEL];
	b->lg.max_decel = args->params[P_MAX_DECEL];
	b->out = vc_outputs(args);
	*instance = b;
	return VS_OK;
}

/* Step 0: the host's start pose and speed, moving straight ahead with no
 * sideslip and no yaw rate. */
static vs_status linear_reset(void *instance, vs_state *s)
{
	linear *b = instance;
	b->lt.beta = 0.0;
	b->lt.r = 0.0;
	b->lt.v = s->speed;
	b->lg.v = s->speed;
	b->lt.delta = 0.0;
	vc_reset_straight(s);
	if (b->out)
		lt_outputs(&b->lt, b->out);
	return VS_OK;
}

static vs_status linear_step(void *instance, double t, double dt,
                             const vs_control *control, vs_state *s)
{
	linear *b = instance;
	const double delta = vc_road_wheel(control->steering_wheel,
	                                   b->steering_ratio,
	                                   b->max_steer); /* rad */
	if (!vc_check_control(b->host_ctx, t, delta, control))
		return VS_ERROR;
	double v; /* m/s, CG, signed; the step's mean under accel */
	const double v1 = vc_long_step(&b->lg, control, dt, &v); /* at t */
	if (lt_step(&b->lt, v, delta, dt, s)) {
		const double A = b->lt.A;
		double vcrit = A < 0.0 ? 1.0 / sqrt(-A) : HUGE_VAL; /* m/s */
		LOG(b->host_ctx, VS_LOG_ERROR,
		    "speed %.1f m/s is at or above the critical speed "
		    "%.1f m/s of this oversteering set-up (stability "
		    "factor A = %.1e s^2/m^2) at t = %g s: the linear "
		    "model diverges",
		    v, vcrit, A, t);
		return VS_ERROR;
	}
	vc_long_finish(s, v, v1);
	if (!vc_check_state(b->host_ctx, t, control, s))
		return VS_ERROR;
	if (b->out)
		lt_outputs(&b->lt, b->out);
	return VS_OK;
}

VC_VEHICLE_PLUGIN_OUT("bicycle_linear",
                  "linear two-wheel model with sideslip and yaw-rate "
                  "transient, CG reference",
                  linear_create, linear_reset, linear_step,
                      outputs, LT_N_OUT)
