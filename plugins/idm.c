/* idm — the Intelligent Driver Model on top of lane keeping (ABI 1.1).
 *
 * Treiber's IDM: dv/dt = a (1 - (v/v0)^delta - (s_star / s)^2), with
 * s_star = s0 + max(0, v T + v dv / (2 sqrt(a b))), s the bumper-to-bumper
 * gap along the lane to the lead and dv = v - v_lead; without a lead the
 * last term is 0 (free road). The lead is the nearest actor ahead whose
 * footprint, at the previous step, overlaps this actor's lane or the
 * lanes after it within a reach (lane_lead.h), whatever its heading (one
 * stopped across the lane is in the way), so a car changing into the gap
 * is followed as soon as it reaches into the lane, and one parked off the
 * road is not; the gap runs to the rear of a tractor's trailer, and
 * during a lane change the car ahead in the old lane stays a lead until
 * the body has left that lane. The result goes out as vs_control.accel;
 * the vehicle model clamps it (max_accel, max_decel) and keeps the speed
 * >= 0. At or below a zero gap it asks for the hardest braking.
 */
#include <stdio.h>

#include "lane_lead.h"

enum { P_V0, P_T, P_S0, P_A, P_B, P_DELTA, P_LC0,
       N_PARAMS = P_LC0 + LC_N_PARAMS };

static const vs_param params[N_PARAMS] = {
	[P_V0] = {"v0", 30.0, 0.1, 100.0, "m/s", "desired speed"},
	[P_T] = {"T", 1.5, 0.0, 10.0, "s", "desired time headway"},
	[P_S0] = {"s0", 2.0, 0.0, 100.0, "m", "jam distance (minimum gap)"},
	[P_A] = {"a", 1.0, 0.01, 20.0, "m/s^2", "maximum acceleration"},
	[P_B] = {"b", 1.5, 0.01, 20.0, "m/s^2", "comfortable deceleration"},
	[P_DELTA] = {"delta", 4.0, 0.1, 20.0, "", "acceleration exponent"},
	LC_PARAMS,
};

typedef struct idm {
	lc_lane lc;
	int64_t id;
	double length; /* m, this actor's */
	double v0, T, s0, a, b, delta;
} idm;

static vs_status idm_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (!lc_host_ok(args->host)) {
		host->log(args->host_ctx, VS_LOG_ERROR,
		          "needs an ABI 1.1 host (map services)");
		return VS_ERROR;
	}
	idm *m = calloc(1, sizeof *m);
	if (!m)
		return VS_ERROR;
	const double *p = args->params;
	lc_init(&m->lc, args, p + P_LC0);
	m->id = args->actor->id;
	m->length = args->actor->length;
	m->v0 = p[P_V0];
	m->T = p[P_T];
	m->s0 = p[P_S0];
	m->a = p[P_A];
	m->b = p[P_B];
	m->delta = p[P_DELTA];
	*instance = m;
	return VS_OK;
}

static vs_status idm_reset(void *instance, vs_state *state)
{
	(void)state;
	idm *m = instance;
	m->lc.lane[0] = '\0';
	m->lc.from[0] = '\0';
	m->lc.changing = 0;
	return VS_OK;
}

/* The IDM acceleration (m/s^2) at speed v (m/s); gap (m) and v_lead
 * (m/s) of the lead, or gap infinite without one. */
static double idm_accel(const idm *m, double v, double gap, double v_lead)
{
	double free_term = 1.0 - pow(v / m->v0, m->delta);
	if (isinf(gap))
		return m->a * free_term;
	if (!(gap > 0.0))
		return -HUGE_VAL; /* touching: brake as hard as the car can */
	double s_star = m->s0 + fmax(0.0, v * m->T + v * (v - v_lead) /
	                                              (2.0 * sqrt(m->a * m->b)));
	double r = s_star / gap;
	return m->a * (free_term - r * r);
}

/* How far ahead (m) the lanes after the next are searched for a lead at
 * speed v (m/s): twice the desired gap to a stopped car, s0 + v T +
 * v^2 / (2 sqrt(a b)), so that one coming into the search adds at most
 * a / 4 of braking at once; at least 200 m. */
static double idm_reach(const idm *m, double v)
{
	double s_star = m->s0 + v * m->T + v * v / (2.0 * sqrt(m->a * m->b));
	return fmax(200.0, 2.0 * s_star);
}

static vs_status idm_step(void *instance, double t, double dt,
                          const vs_state *self, vs_control *control)
{
	idm *m = instance;
	vs_lane_location loc;
	double s = NAN, gap = HUGE_VAL, v_lead = 0.0;
	control->steering_wheel = 0.0;
	if (host->map_location(m->lc.ctx, m->id, &loc) == 0)
		control->steering_wheel = lc_steer(&m->lc, t, dt, self, &loc, &s);
	double v = self->speed > 0 ? self->speed : 0.0;
	if (isfinite(s))
		lc_lead(&m->lc, m->id, s, m->length, idm_reach(m, v), &gap,
		        &v_lead);
	double acc = idm_accel(m, v, gap, v_lead);
	/* The model clamps; -HUGE_VAL would be an infinite control. */
	control->accel = acc > -1e3 ? acc : -1e3;
	control->speed = v; /* for a model that ignores accel: hold it */
	return VS_OK;
}

/* The tests build a copy that considers every actor (LL_EXHAUSTIVE) under
 * another name, to compare with this one's broad phase. */
#ifndef IDM_NAME
#define IDM_NAME "idm"
#endif

LC_BEHAVIOUR_PLUGIN(IDM_NAME,
                    "Intelligent Driver Model behind the lead in its lane, with "
                    "lane keeping",
                    idm_create, idm_reset, idm_step)
