/* kinematic_bicycle — the default vehicle model.
 *
 * The two-wheel (bicycle) model without tyre slip: both wheels of an axle
 * are lumped into one on the centre line, the rear wheel rolls along its own
 * heading, and the front wheel is steered by delta. With no slip the
 * instantaneous centre of rotation lies on the rear-axle line at distance
 * l / tan(delta) to the side, so the rear axle runs on a circle of that
 * radius; this is the limit of bicycle_steady's steady-state formula
 * rho = (1 - m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr) V^2) l/delta as the cornering
 * stiffnesses grow (a neutral-steer car at any speed).
 *
 * Speed follows RoadRunner's semantics: the commanded speed is the rear
 * axle's speed, reached at once (no longitudinal dynamics). A behaviour's
 * accel (ABI 1.1) instead integrates the rear axle's speed, limited by
 * max_accel and max_decel and to >= 0 (vc_long_step).
 *
 * Built against <vsweep/plugin.h> only, like any outside plugin (the shared
 * helpers in vehicle_common.h are header-only).
 */
#include "vehicle_common.h"

enum { P_STEERING_RATIO, P_MAX_STEER_DEG, P_MAX_ACCEL, P_MAX_DECEL,
       N_PARAMS };

static const vs_param params[N_PARAMS] = {
	[P_STEERING_RATIO] = VC_PARAM_STEERING_RATIO,
	[P_MAX_STEER_DEG] = VC_PARAM_MAX_STEER_DEG,
	[P_MAX_ACCEL] = VC_PARAM_MAX_ACCEL,
	[P_MAX_DECEL] = VC_PARAM_MAX_DECEL,
};

typedef struct bicycle {
	void *host_ctx;
	double wheelbase;      /* m, l: front axle to rear axle (group) */
	double rear_axle_y;    /* m, rear axle in the actor frame (< 0 usually) */
	double steering_ratio; /* steering wheel : road wheel */
	double max_steer;      /* rad, road-wheel limit */
	vc_long lg;            /* rear-axle speed under accel (ABI 1.1) */
	ac_sincos heading;     /* the last heading's cosine and sine */
} bicycle;

static vs_status bicycle_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (!vc_check_vehicle(args))
		return VS_ERROR;
	bicycle *b = vc_alloc(args, sizeof *b);
	if (!b)
		return VS_ERROR;
	b->host_ctx = args->host_ctx;
	b->wheelbase = args->actor->wheelbase;
	b->rear_axle_y = args->actor->rear_axle_y;
	b->steering_ratio = args->params[P_STEERING_RATIO];
	b->max_steer = args->params[P_MAX_STEER_DEG] * DEG;
	b->lg.max_accel = args->params[P_MAX_ACCEL];
	b->lg.max_decel = args->params[P_MAX_DECEL];
	*instance = b;
	return VS_OK;
}

static vs_status bicycle_reset(void *instance, vs_state *s)
{
	bicycle *b = instance;
	b->lg.v = s->speed;
	vc_reset_straight(s);
	return VS_OK;
}

/* Exact for constant speed and steer over the step: the rear axle moves
 * along the arc of radius l / tan(delta) (vc_advance). The rear axle runs
 * along its own heading (no slip), and the origin ahead of it swings into
 * the turn. */
static vs_status bicycle_step(void *instance, double t, double dt,
                              const vs_control *control, vs_state *s)
{
	bicycle *b = instance;
	const double delta = vc_road_wheel(control->steering_wheel,
	                                   b->steering_ratio,
	                                   b->max_steer); /* rad */
	if (!vc_check_control(b->host_ctx, t, delta, control))
		return VS_ERROR;
	double v;                                   /* m/s, rear axle, mean */
	const double v1 = vc_long_step(&b->lg, control, dt, &v); /* at t */
	/* once, both rates use it; tan(+-0) is +-0 without libm */
	const double td = delta == 0.0 ? delta : tan(delta);
	const double omega = v * td / b->wheelbase; /* rad/s, yaw rate */
	const vc_motion mo = {.v = v, .dpsi = omega * dt, .beta0 = 0.0,
	                      .beta1 = 0.0, .omega = omega};
	vc_advance(s, b->rear_axle_y, dt, &mo, &b->heading);
	vc_long_finish(s, v, v1);
	s->wz = v1 * td / b->wheelbase;
	s->steer = delta;
	if (!vc_check_state(b->host_ctx, t, control, s))
		return VS_ERROR;
	return VS_OK;
}

VC_VEHICLE_PLUGIN("kinematic_bicycle",
                  "kinematic two-wheel model, rear-axle reference, no slip",
                  bicycle_create, bicycle_reset, bicycle_step)
