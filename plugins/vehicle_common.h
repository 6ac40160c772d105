/* vehicle_common.h — what the shipped vehicle models share.
 *
 * Header-only (static inline) so that each plugin stays one shared object
 * built against <vsweep/plugin.h> and libc/libm alone, as an outside author
 * would build it: nothing here is linked, and nothing here is exported (each
 * .so exports only vsweep_plugin_entry).
 *
 * Coordinates follow the SDK: yaw 0 faces +Y, so the heading measured from
 * +X is yaw + pi/2. Each model tracks one reference point on the actor's
 * centre line (rear axle, CG) that lies ref_y metres ahead of the actor
 * origin in the actor frame; the stored state is the origin's.
 */
#ifndef VSWEEP_PLUGINS_VEHICLE_COMMON_H
#define VSWEEP_PLUGINS_VEHICLE_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include <vsweep/plugin.h>

#include "angle_common.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* Set once at entry, read-only afterwards (instances on many threads).
 * Each plugin that includes this header gets its own copy. */
static const vs_host *host;

/* The host tags each message with the variant, the actor and this
 * plugin's name, so messages do not repeat them. */
#define LOG(ctx, level, ...)                                               \
	do {                                                               \
		if (host && host->log)                                     \
			host->log((ctx), (level), __VA_ARGS__);            \
	} while (0)

/* The parameters every vehicle model here takes, as vs_param
 * initialisers. steering_ratio is the design contract; it is meant as
 * (0.1, 100], but vs_param ranges are closed and 0.1 is as harmless as
 * anything just above it. max_steer_deg stays below 90 deg so that
 * tan(delta) stays finite. */
#define VC_PARAM_STEERING_RATIO                                            \
	{"steering_ratio", 15.0, 0.1, 100.0, "",                           \
	 "steering-wheel angle : road-wheel angle"}
#define VC_PARAM_MAX_STEER_DEG                                             \
	{"max_steer_deg", 45.0, 0.0, 89.0, "deg",                          \
	 "road-wheel angle limit, either side"}

/* The linear two-wheel models' parameters; defaults are a
 * 2-tonne sedan with its CG 1.4 m behind the front axle. The lf
 * range only bounds the number: vc_check_cg() checks 0 < lf < l against
 * the actor's wheelbase. */
#define VC_PARAM_M {"m", 2000.0, 1.0, 1e6, "kg", "vehicle mass"}
#define VC_PARAM_LF                                                        \
	{"lf", 1.4, 0.0, 100.0, "m", "CG to front axle; lr = wheelbase - lf"}
#define VC_PARAM_KF                                                        \
	{"Kf", 30e3, 1.0, 1e7, "N/rad",                                    \
	 "front cornering power per tyre (two tyres per axle)"}
#define VC_PARAM_KR                                                        \
	{"Kr", 30e3, 1.0, 1e7, "N/rad",                                    \
	 "rear cornering power per tyre (two tyres per axle)"}

/* ABI 1.1 longitudinal control (vs_control.accel): the limits a model
 * applies to a commanded acceleration. Speed tracking (accel NaN) stays
 * as in 1.0, reached at once. */
#define VC_PARAM_MAX_ACCEL                                                 \
	{"max_accel", 5.0, 0.0, 100.0, "m/s^2",                            \
	 "largest forward acceleration accepted from a behaviour's accel"}
#define VC_PARAM_MAX_DECEL                                                 \
	{"max_decel", 10.0, 0.0, 100.0, "m/s^2",                           \
	 "largest deceleration (positive) accepted from a behaviour's accel"}

/* The longitudinal state a model keeps between steps. */
typedef struct vc_long {
	double v;         /* m/s, speed of the reference point at the step end */
	double max_accel; /* m/s^2, > = 0 */
	double max_decel; /* m/s^2, > = 0, a magnitude */
} vc_long;

/* The speeds of one step of dt (s) under control: *v_mean (m/s), the
 * distance over the step divided by dt, which the path integration uses,
 * and the return value, the speed at the step's end. With accel NaN both
 * are control->speed (1.0 semantics). With a finite accel, clamped to
 * [-max_decel, max_accel], the speed changes linearly and stops at 0: a
 * car stopping within the step covers v^2 / (2 |a|) exactly, so that
 * distances match the closed form v0 t + a t^2 / 2. */
static inline double vc_long_step(vc_long *lg, const vs_control *control,
                                  double dt, double *v_mean)
{
	if (isnan(control->accel)) {
		lg->v = control->speed;
		*v_mean = lg->v;
		return lg->v;
	}
	double a = control->accel; /* m/s^2 */
	if (a > lg->max_accel)
		a = lg->max_accel;
	if (a < -lg->max_decel)
		a = -lg->max_decel;
	const double v0 = lg->v > 0.0 ? lg->v : 0.0; /* m/s, never reversing */
	double v1 = v0 + a * dt;
	if (v1 > 0.0) {
		*v_mean = 0.5 * (v0 + v1);
	} else {
		v1 = 0.0;
		*v_mean = a < 0.0 ? v0 * v0 / (-2.0 * a) / dt : 0.0;
	}
	lg->v = v1;
	return v1;
}

/* After a step integrated at v_mean (m/s): the state's speed and velocity
 * at the step's end, v_end (m/s). Both are >= 0 under accel, and v_mean
 * is 0 only when both are. */
static inline void vc_long_finish(vs_state *s, double v_mean, double v_end)
{
	if (v_mean == v_end)
		return;
	const double k = v_mean != 0.0 ? v_end / v_mean : 0.0;
	s->vx *= k;
	s->vy *= k;
	s->speed *= k;
}

/* Wraps an angle into (-pi, pi], the stored yaw convention. */
static inline double vc_wrap_angle(double a)
{
	a = ac_rem_2pi(a); /* [-pi, pi] */
	if (a <= -PI)
		a += 2.0 * PI;
	return a;
}

/* sin(x)/x, accurate near 0 where the quotient loses digits. */
static inline double vc_sinc(double x)
{
	if (fabs(x) < 1e-4)
		return 1.0 - x * x / 6.0 * (1.0 - x * x / 20.0);
	return sin(x) / x;
}

/* Steering geometry needs a front and a rear axle some distance apart; a
 * pedestrian or a box has neither. Returns 0 (and logs why) if the actor
 * is not a vehicle. */
static inline int vc_check_vehicle(const vs_create_args *args)
{
	const vs_actor_info *a = args->actor;
	if (a->n_axles < 2 || !(a->wheelbase > 0.0) || !isfinite(a->wheelbase)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "actor %s (ID %lld) is not a vehicle (%u axles, "
		    "wheelbase %g m): it needs two axles and a wheelbase "
		    "> 0; give it a vehicle asset or another model",
		    a->name ? a->name : "?", (long long)a->id,
		    (unsigned)a->n_axles, a->wheelbase);
		return 0;
	}
	return 1;
}

/* The CG, lf (m) behind the front axle, must lie between the axles, or
 * lr <= 0 and the model's moment balance means nothing. Returns 0 (and
 * logs why) if not. */
static inline int vc_check_cg(const vs_create_args *args, double lf)
{
	const vs_actor_info *a = args->actor;
	const double l = a->wheelbase; /* m */
	if (!(lf > 0.0 && lf < l)) {
		LOG(args->host_ctx, VS_LOG_ERROR,
		    "lf = %g m puts the CG outside the wheelbase of "
		    "actor %s (ID %lld): it must lie in (0, %g) m",
		    lf, a->name ? a->name : "?", (long long)a->id, l);
		return 0;
	}
	return 1;
}

/* The instance, zeroed; logs and returns NULL when memory runs out. */
static inline void *vc_alloc(const vs_create_args *args, size_t size)
{
	void *p = calloc(1, size);
	if (!p)
		LOG(args->host_ctx, VS_LOG_ERROR, "out of memory");
	return p;
}

/* The stability factor (s^2/m^2) of the linear two-wheel
 * model, A = -m/(2 l^2) (lf Kf - lr Kr)/(Kf Kr), with m in kg, l and lf in
 * m, Kf and Kr in N/rad per tyre (two tyres per axle: the 2 in 2 l^2).
 * Logs the set-up's class at debug level. */
static inline double vc_stability_factor(const vs_create_args *args,
                                         double m, double l, double lf,
                                         double kf, double kr)
{
	const double lr = l - lf; /* m, CG to rear axle */
	/* + 0.0: a neutral set-up's -0 would print as "-0.0e+00". */
	const double A = -m / (2.0 * l * l) * (lf * kf - lr * kr) / (kf * kr) +
	                 0.0;
	LOG(args->host_ctx, VS_LOG_DEBUG,
	    "%s set-up, stability factor A = %.3e s^2/m^2",
	    A > 0.0 ? "understeer" : A < 0.0 ? "oversteer" : "neutral", A);
	return A;
}

/* The road-wheel angle (rad) for a steering-wheel angle (rad), limited to
 * +-max_steer (rad). */
static inline double vc_road_wheel(double steering_wheel,
                                   double steering_ratio, double max_steer)
{
	double delta = steering_wheel / steering_ratio;
	if (delta > max_steer)
		delta = max_steer;
	else if (delta < -max_steer)
		delta = -max_steer;
	return delta;
}

/* Step 0: the host's start pose and speed, moving straight ahead. */
static inline void vc_reset_straight(vs_state *s)
{
	double heading = s->yaw + PI / 2.0; /* from +X; yaw 0 faces +Y */
	s->yaw = vc_wrap_angle(s->yaw);
	s->vx = s->speed * cos(heading);
	s->vy = s->speed * sin(heading);
	s->vz = 0.0;
	s->wx = s->wy = s->wz = 0.0;
	s->steer = 0.0;
}

/* Logs that the control or the state (what) is not finite at time t
 * (s), with the control that led there. */
static inline void vc_log_non_finite(void *host_ctx, const char *what,
                                     double t, const vs_control *control)
{
	LOG(host_ctx, VS_LOG_ERROR,
	    "non-finite %s at t = %g s (speed %g m/s, steering wheel %g "
	    "rad, accel %g m/s^2)",
	    what, t, control->speed, control->steering_wheel, control->accel);
}

/* Returns 0 (and logs why) if the commanded speed or the road-wheel angle
 * delta is not finite; the models check before anything moves, so that
 * the reason names the control, not its consequence. */
static inline int vc_check_control(void *host_ctx, double t, double delta,
                                   const vs_control *control)
{
	if (!isfinite(control->speed) || !isfinite(delta) ||
	    isinf(control->accel)) {
		vc_log_non_finite(host_ctx, "control", t, control);
		return 0;
	}
	return 1;
}

/* Returns 0 (and logs why) if any field of the state the step produced is
 * not finite: the host must not store it. */
static inline int vc_check_state(void *host_ctx, double t,
                                 const vs_control *control,
                                 const vs_state *s)
{
	const double v[] = {s->x,  s->y,  s->z,  s->roll, s->pitch,
	                    s->yaw, s->vx, s->vy, s->vz,   s->wx,
	                    s->wy, s->wz, s->speed, s->steer};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (!isfinite(v[i])) {
			vc_log_non_finite(host_ctx, "state", t, control);
			return 0;
		}
	}
	return 1;
}

/* How the reference point moves over one step. Its course (direction of
 * travel) is the heading plus beta, the sideslip; a model without slip
 * passes beta0 = beta1 = 0. */
typedef struct vc_motion {
	double v;     /* m/s, speed of the reference point, signed */
	double dpsi;  /* rad, heading change over the step */
	double beta0; /* rad, course - heading where the arc starts */
	double beta1; /* rad, course - heading at the end of the step */
	double omega; /* rad/s, yaw rate at the end of the step */
} vc_motion;

/* Advances the planar state by one step of dt (s): the reference point,
 * ref_y (m) ahead of the origin on the centre line, moves along the arc
 * whose course turns from heading + beta0 by dpsi + (beta1 - beta0), so
 * the step is the arc's chord, of length v dt sin(dchi/2) / (dchi/2), in
 * the direction halfway between the old and the new course. That is exact
 * for a steady turn (constant speed, course and yaw rate over the step),
 * where Euler would spiral outwards.
 *
 * The origin is then placed back at reference point - R(yaw)(0, ref_y, 0),
 * and its velocity is the reference point's plus omega x r, with
 * r = origin - reference = -ref_y * forward: a point off the reference
 * also swings sideways (lateral to the heading). The model is planar: z,
 * roll and pitch are left as they were; steer is the caller's. heading:
 * the instance's memory of its last heading's cosine and sine (or NULL). */
static inline void vc_advance(vs_state *s, double ref_y, double dt,
                              const vc_motion *mo, ac_sincos *heading)
{
	/* Reference point = origin + R(yaw)(0, ref_y, 0) = + ref_y forward. */
	double h0 = s->yaw + PI / 2.0; /* rad, heading from +X */
	double c0, s0;
	ac_cos_sin(heading, h0, &c0, &s0);
	double px = s->x + ref_y * c0; /* m, world */
	double py = s->y + ref_y * s0;

	double chi0 = h0 + mo->beta0;                      /* rad, course */
	double dchi = mo->dpsi + (mo->beta1 - mo->beta0); /* rad */
	double chord = mo->v * dt * vc_sinc(0.5 * dchi);   /* m, signed */
	double cm, sm; /* the chord's direction: h0 again when going straight */
	ac_cos_sin(heading, chi0 + 0.5 * dchi, &cm, &sm);
	px += chord * cm;
	py += chord * sm;

	double yaw1 = vc_wrap_angle(s->yaw + mo->dpsi);
	double h1 = yaw1 + PI / 2.0;
	double fx, fy; /* forward unit vector, world */
	ac_cos_sin(heading, h1, &fx, &fy);
	/* no sideslip (beta1 = +-0, the kinematic models): cos = 1 and
	 * sin = beta1, as libm returns them */
	double cb = 1.0, sb = mo->beta1;
	if (mo->beta1 != 0.0) {
		cb = cos(mo->beta1);
		sb = sin(mo->beta1);
	}
	/* Reference-point velocity (m/s): v along the course h1 + beta1, i.e.
	 * v (cos beta f + sin beta left) with left = (-fy, fx). */
	double vpx = mo->v * (cb * fx - sb * fy);
	double vpy = mo->v * (cb * fy + sb * fx);

	s->x = px - ref_y * fx;
	s->y = py - ref_y * fy;
	s->yaw = yaw1;
	s->vx = vpx + mo->omega * ref_y * fy;
	s->vy = vpy - mo->omega * ref_y * fx;
	s->vz = 0.0;
	s->wx = s->wy = 0.0;
	s->wz = mo->omega;
	/* omega x r is lateral: the forward part is the reference point's. */
	s->speed = mo->v * cb;
}

/* Every instance is one calloc'd block. */
static inline void vc_destroy(void *instance)
{
	free(instance);
}

/* The host's outputs array (ABI 1.1), or NULL from a 1.0 host whose
 * vs_create_args ends before it. */
static inline double *vc_outputs(const vs_create_args *args)
{
	size_t need = offsetof(vs_create_args, outputs) + sizeof(double *);
	return args->struct_size >= need ? args->outputs : NULL;
}

/* The descriptor of a vehicle model with outputs (ABI 1.1) and the
 * plugin's one export, which keeps the host table for LOG. */
#define VC_VEHICLE_PLUGIN_OUT(NAME, DOC, CREATE, RESET, STEP, OUTS, N_OUTS) \
	static const vs_plugin descriptor = {                              \
		.abi_major = VS_ABI_MAJOR,                                 \
		.abi_minor = VS_ABI_MINOR,                                 \
		.struct_size = sizeof(vs_plugin),                          \
		.kind = VS_KIND_VEHICLE_MODEL,                             \
		.name = (NAME),                                            \
		.version = "1.0.0",                                        \
		.doc = (DOC),                                              \
		.params = params,                                          \
		.n_params = N_PARAMS,                                      \
		.create = (CREATE),                                        \
		.reset = (RESET),                                          \
		.vehicle_step = (STEP),                                    \
		.behaviour_step = NULL,                                    \
		.destroy = vc_destroy,                                     \
		.outputs = (OUTS),                                         \
		.n_outputs = (N_OUTS),                                     \
	};                                                                 \
	VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)   \
	{                                                                  \
		host = h;                                                  \
		return &descriptor;                                        \
	}

/* The same without outputs. */
#define VC_VEHICLE_PLUGIN(NAME, DOC, CREATE, RESET, STEP)                  \
	VC_VEHICLE_PLUGIN_OUT(NAME, DOC, CREATE, RESET, STEP, NULL, 0)

#endif
