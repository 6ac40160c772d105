/* linear_track.h — the linear single-track (two-wheel) model's physics,
 * shared by the bicycle_linear plugin and the test FMU built from the same
 * equations (tests/fmu), so that the two are the same model by
 * construction. Equations, integration and conventions: bicycle_linear.c.
 *
 * Header-only: each user stays one shared object of its own.
 */
#ifndef VSWEEP_PLUGINS_LINEAR_TRACK_H
#define VSWEEP_PLUGINS_LINEAR_TRACK_H

#include "vehicle_common.h"

/* m/s: below this the kinematic fallback runs. At 0.5 m/s the tyre-slip
 * time constants m V / (2 (Kf + Kr)) are a few ms; lower still, they say
 * nothing about a car that is parking. */
#define LT_V_LOW 0.5

/* What the model reports each step besides its state (ABI 1.1 outputs). */
enum {
	LT_OUT_BETA,  /* rad, CG sideslip */
	LT_OUT_R,     /* rad/s, yaw rate */
	LT_OUT_AY,    /* m/s^2, lateral acceleration of the CG */
	LT_OUT_ALPHA_F, /* rad, front slip angle */
	LT_OUT_ALPHA_R, /* rad, rear slip angle */
	LT_OUT_FYF,   /* N, front axle side force */
	LT_OUT_FYR,   /* N, rear axle side force */
	LT_N_OUT
};

#define LT_OUTPUTS                                                         \
	{"beta", "rad", "CG sideslip angle (course - heading)"},           \
	{"yaw_rate", "rad/s", "yaw rate r"},                               \
	{"ay", "m/s^2", "lateral acceleration of the CG, (Yf + Yr) / m"},  \
	{"alpha_f", "rad", "front slip angle, beta + lf r / V - delta"},   \
	{"alpha_r", "rad", "rear slip angle, beta - lr r / V"},            \
	{"Fyf", "N", "front axle side force, -2 Kf alpha_f"},              \
	{"Fyr", "N", "rear axle side force, -2 Kr alpha_r"}

typedef struct lt_model {
	double m;              /* kg */
	double iz;             /* kg m^2 */
	double lf, lr, l;      /* m */
	double kf, kr;         /* N/rad, per tyre */
	double cg_y;           /* m, CG in the actor frame: front_axle_y - lf */
	double A;              /* s^2/m^2, stability factor */
	double beta;           /* rad, CG sideslip, state */
	double r;              /* rad/s, yaw rate, state */
	double v, delta;       /* m/s, rad: the last step's control */
	ac_sincos heading;     /* the last heading's cosine and sine */
} lt_model;

/* For z = w^2 t^2 (either sign): *c = cosh(w t) and *sh = sinh(w t)/(w t),
 * which for z < 0 are cos and sin(.)/(.) of sqrt(-z); continuous through
 * z = 0, where the roots of a critically damped system meet. */
static inline void lt_cosh_sinhc(double z, double *c, double *sh)
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

/* Advances (beta, r) over dt at speed v >= LT_V_LOW and road-wheel angle
 * delta, exactly: x(dt) = xs + e^{M dt} (x0 - xs), xs = -M^-1 b delta.
 * *dpsi receives the integral of r over the step (rad). Returns 0 when
 * det M <= 0 (at or above the critical speed), leaving the state alone. */
static inline int lt_advance_dynamic(lt_model *b, double v, double delta,
                                     double dt, double *dpsi)
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
	lt_cosh_sinhc((sm * sm - det) * dt * dt, &c, &sh);
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

/* One step of dt (s) at CG speed v (m/s) and road-wheel angle delta
 * (rad), both held over the step: advances (beta, r) and the actor state
 * s (the origin's, planar). Returns 0, or -1 when v is at or above an
 * oversteering set-up's critical speed (nothing moved). */
static inline int lt_step(lt_model *b, double v, double delta, double dt,
                          vs_state *s)
{
	const double beta0 = b->beta; /* rad, course = heading + beta */
	const int kinematic = v < LT_V_LOW;
	double dpsi;                  /* rad, heading change over the step */
	if (kinematic) {
		/* Kinematic limit (V -> 0 of the steady state). */
		b->beta = b->lr / b->l * delta;
		b->r = v * delta / b->l;
		dpsi = b->r * dt;
	} else {
		/* Checked on the control, before anything moves: 1 + A V^2
		 * <= 0 means det M <= 0, a root in the right half-plane.
		 * lt_advance_dynamic() checks det M itself too, in case
		 * rounding disagrees just below the critical speed. */
		int stable = !(b->A < 0.0 && v * v * -b->A >= 1.0) &&
		             lt_advance_dynamic(b, v, delta, dt, &dpsi);
		if (!stable)
			return -1;
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
	vc_advance(s, b->cg_y, dt, &mo, &b->heading);
	s->steer = delta;
	b->v = v;
	b->delta = delta;
	return 0;
}

/* The outputs (LT_OUT_*) after a step. Below LT_V_LOW slip means nothing:
 * the side forces are those that hold the kinematic circle, split by the
 * moment balance lf Yf = lr Yr, and the slip angles those forces imply. */
static inline void lt_outputs(const lt_model *b, double *out)
{
	const double v = b->v, r = b->r; /* m/s, rad/s */
	double af, ar, yf, yr;           /* rad, rad, N, N */
	if (v < LT_V_LOW) {
		yf = b->m * v * r * b->lr / b->l;
		yr = b->m * v * r * b->lf / b->l;
		af = -yf / (2.0 * b->kf);
		ar = -yr / (2.0 * b->kr);
	} else {
		af = b->beta + b->lf * r / v - b->delta;
		ar = b->beta - b->lr * r / v;
		yf = -2.0 * b->kf * af;
		yr = -2.0 * b->kr * ar;
	}
	out[LT_OUT_BETA] = b->beta;
	out[LT_OUT_R] = r;
	out[LT_OUT_AY] = (yf + yr) / b->m;
	out[LT_OUT_ALPHA_F] = af;
	out[LT_OUT_ALPHA_R] = ar;
	out[LT_OUT_FYF] = yf;
	out[LT_OUT_FYR] = yr;
}

#endif
