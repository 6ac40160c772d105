/* Attached actors: placement, fixed children, trailer kinematics. The
 * transforms and the trailer's equation are stated once, in attach.h.
 *
 * Called by sim.c only: vs_attach_plan_init once per variant (the
 * variant's dimensions move hitches and axles, sim/actor.h), then
 * vs_attach_place at step 0 and vs_attach_step at every step k, after the
 * unattached actors' vehicle models have written step k.
 *
 * Invariants: the plan's links are sorted parents first (by the number of
 * attached ancestors), so when a link is stepped its parent's state at
 * step k is final; a link's hitches, relative rotation and tow length are
 * fixed for the variant; a trailer's tow length exceeds VS_GEOM_MIN_TOW,
 * so its yaw rate is finite. Nothing here keeps state between calls but
 * the plan: a trailer's articulation is read back from its previous
 * state. */
#include "sim/attach.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sim/actor.h"

/* ---- small 3-D algebra: 3x3 matrices row-major in double[9] ----------- */

static void mat_vec(const double *R, const double v[3], double out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] +
		         R[3 * i + 2] * v[2];
}

static void mat_mul(const double *A, const double *B, double *out)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			out[3 * i + j] = A[3 * i] * B[j] +
			                 A[3 * i + 1] * B[3 + j] +
			                 A[3 * i + 2] * B[6 + j];
}

static void cross(const double a[3], const double b[3], double out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Rz(yaw) Rx(pitch) Ry(roll) (docs/conventions.md "Pose"):
 * heading, then pitch about the actor's X (right) axis, nose up positive,
 * then roll about its Y (forward) axis. */
static void euler_rot(double yaw, double pitch, double roll, double *R)
{
	double cy = cos(yaw), sy = sin(yaw);
	double cp = cos(pitch), sp = sin(pitch);
	double cr = cos(roll), sr = sin(roll);
	R[0] = cy * cr - sy * sp * sr;
	R[1] = -sy * cp;
	R[2] = cy * sr + sy * sp * cr;
	R[3] = sy * cr + cy * sp * sr;
	R[4] = cy * cp;
	R[5] = sy * sr - cy * sp * cr;
	R[6] = -cp * sr;
	R[7] = sp;
	R[8] = cp * cr;
}

void vs_state_rotation(const vs_state *s, double R[9])
{
	euler_rot(s->yaw, s->pitch, s->roll, R);
}

/* The ZXY angles of R, the inverse of euler_rot: R[7] = sin pitch. At
 * pitch +-90 deg yaw and roll turn about the same axis; roll is then 0 by
 * choice. */
static void rot_euler(const double *R, double *yaw, double *pitch,
                      double *roll)
{
	double c = hypot(R[6], R[8]);
	*pitch = atan2(R[7], c);
	if (c > 1e-12) {
		*yaw = vs_wrap_angle(atan2(-R[1], R[4]));
		*roll = atan2(-R[6], R[8]);
	} else {
		*yaw = vs_wrap_angle(atan2(R[3], R[0]));
		*roll = 0;
	}
}

/* A point fixed at q (parent frame) of the parent in state s: its world
 * position x and velocity v = v_s + w_s x (R q). */
static void body_point(const vs_state *s, const double q[3], double x[3],
                       double v[3])
{
	double R[9], rq[3], wxr[3];
	const double w[3] = {s->wx, s->wy, s->wz};
	vs_state_rotation(s, R);
	mat_vec(R, q, rq);
	cross(w, rq, wxr);
	x[0] = s->x + rq[0];
	x[1] = s->y + rq[1];
	x[2] = s->z + rq[2];
	v[0] = s->vx + wxr[0];
	v[1] = s->vy + wxr[1];
	v[2] = s->vz + wxr[2];
}

/* ---- the plan ----------------------------------------------------------- */

typedef struct order_key {
	int depth, child; /* attached ancestors; actor index */
	int link;
} order_key;

static int order_cmp(const void *pa, const void *pb)
{
	const order_key *a = pa, *b = pb;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return (a->child > b->child) - (a->child < b->child);
}

static int parent_of(const vs_scenario *scn, int i)
{
	const vs_attach *at = &scn->actors[i].attach;
	if (at->parent >= 0 && at->parent < scn->n_actors &&
	    scn->actors[at->parent].id == at->parent_id)
		return at->parent;
	return vs_scenario_find_actor(scn, at->parent_id);
}

static void set_link(vs_attach_link *l, const vs_scenario *scn, int i,
                     int parent)
{
	const vs_attach *at = &scn->actors[i].attach;
	double rz[9], rx[9], rc[3];
	l->child = i;
	l->parent = parent;
	l->type = at->type;
	vs_sim_point_pos(scn, parent, &at->parent_point, l->hitch_p);
	for (int k = 0; k < 3; k++)
		l->hitch_p[k] += at->offset[k];
	vs_sim_point_pos(scn, i, &at->child_point, l->hitch_c);
	/* heading about +Z, then the slope as a pitch about the child's X */
	euler_rot(at->heading, 0, 0, rz);
	euler_rot(0, at->slope, 0, rx);
	mat_mul(rz, rx, l->rel);
	mat_vec(l->rel, l->hitch_c, rc);
	for (int k = 0; k < 3; k++)
		l->fixed_t[k] = l->hitch_p[k] - rc[k];
}

int vs_attach_plan_init(vs_attach_plan *p, const vs_scenario *scn,
                        vs_error *err)
{
	memset(p, 0, sizeof *p);
	int n = scn->n_actors, count = 0;
	for (int i = 0; i < n; i++)
		count += scn->actors[i].attach.present != 0;
	if (!count)
		return 0;
	p->attached = vs_xcalloc((size_t)n, 1);
	p->links = vs_xcalloc((size_t)count, sizeof *p->links);
	order_key *keys = vs_xcalloc((size_t)count, sizeof *keys);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		const vs_actor_spec *a = &scn->actors[i];
		if (!a->attach.present)
			continue;
		int parent = parent_of(scn, i);
		/* Depth by walking up: vs_attach_check refused cycles in
		 * files; a hand-built scenario still must not hang us. */
		int depth = 0;
		for (int j = i; !rc && scn->actors[j].attach.present; depth++) {
			j = parent_of(scn, j);
			if (j < 0 || j == i || depth > n) {
				vs_error_set(err, "actor %lld (%s): attach: "
				             "parent %lld %s", (long long)a->id,
				             a->name,
				             (long long)a->attach.parent_id,
				             j < 0 ? "is not in this scenario"
				                   : "leads back to this actor");
				rc = -1;
			}
		}
		if (rc)
			break;
		vs_attach_link *l = &p->links[p->n];
		set_link(l, scn, i, parent);
		if (l->type == VS_ATTACH_TRAILER) {
			double axle_y[VS_MAX_AXLES];
			int na = vs_sim_axles(scn, i, axle_y);
			double centre =
				na ? vs_geom_axle_centre(axle_y, na) : 0;
			l->tow = l->hitch_c[1] - centre;
			if (!(na > 0 && l->tow > VS_GEOM_MIN_TOW)) {
				vs_error_set(err, "actor %lld (%s): attach: a "
				             "trailer's contact point must lie "
				             "ahead of its axles' centre (y = %g "
				             "m); %s is at y = %g m",
				             (long long)a->id, a->name, centre,
				             a->attach.child_point.name,
				             l->hitch_c[1]);
				rc = -1;
				break;
			}
		}
		keys[p->n] = (order_key){depth, i, p->n};
		p->attached[i] = 1;
		p->n++;
	}
	if (!rc) {
		/* Parents first: an actor's depth exceeds its parent's. */
		qsort(keys, (size_t)p->n, sizeof *keys, order_cmp);
		vs_attach_link *sorted = vs_xcalloc((size_t)count,
		                                    sizeof *sorted);
		for (int k = 0; k < p->n; k++)
			sorted[k] = p->links[keys[k].link];
		free(p->links);
		p->links = sorted;
	}
	free(keys);
	if (rc)
		vs_attach_plan_finish(p);
	return rc;
}

void vs_attach_plan_finish(vs_attach_plan *p)
{
	if (!p)
		return;
	free(p->links);
	free(p->attached);
	memset(p, 0, sizeof *p);
}

/* ---- fixed -------------------------------------------------------------- */

/* child = P C: origin P t_C, axes R_P rel; moving with the parent. */
static void fixed_follow(const vs_attach_link *l, const vs_state *ps,
                         vs_state *cs)
{
	double Rp[9], Rc[9], fwd[3];
	double v[3], x[3];
	body_point(ps, l->fixed_t, x, v);
	vs_state_rotation(ps, Rp);
	mat_mul(Rp, l->rel, Rc);
	cs->x = x[0];
	cs->y = x[1];
	cs->z = x[2];
	rot_euler(Rc, &cs->yaw, &cs->pitch, &cs->roll);
	cs->vx = v[0];
	cs->vy = v[1];
	cs->vz = v[2];
	cs->wx = ps->wx;
	cs->wy = ps->wy;
	cs->wz = ps->wz;
	fwd[0] = Rc[1];
	fwd[1] = Rc[4];
	fwd[2] = Rc[7];
	cs->speed = fwd[0] * v[0] + fwd[1] * v[1] + fwd[2] * v[2];
	cs->steer = 0;
}

/* ---- trailer ------------------------------------------------------------ */

/* d yaw / dt of a trailer at yaw psi under hitch velocity vh (world x, y):
 * the axle centre's lateral velocity, r . (V_H + w x (A - H)), is zero. */
static double trailer_rate(const vs_attach_link *l, double psi,
                           const double vh[2])
{
	return -(cos(psi) * vh[0] + sin(psi) * vh[1]) / l->tow;
}

/* The trailer at yaw psi with its contact point under the hitch h (world)
 * moving at vh, standing on the ground at height z. */
static void trailer_place(const vs_attach_link *l, double psi, double z,
                          const double h[3], const double vh[3],
                          vs_state *cs)
{
	double c = cos(psi), s = sin(psi);
	const double *q = l->hitch_c;
	/* origin - H = -Rz(psi) (q_x, q_y), in the ground plane */
	double dx = -(c * q[0] - s * q[1]);
	double dy = -(s * q[0] + c * q[1]);
	double w = trailer_rate(l, psi, vh);
	cs->x = h[0] + dx;
	cs->y = h[1] + dy;
	cs->z = z;
	cs->roll = cs->pitch = 0;
	cs->yaw = vs_wrap_angle(psi);
	/* V_o = V_H + w z x (origin - H), in the plane: the trailer is
	 * level, so its vertical speed is the ground's, 0 here. */
	cs->vx = vh[0] - w * dy;
	cs->vy = vh[1] + w * dx;
	cs->vz = 0;
	cs->wx = cs->wy = 0;
	cs->wz = w;
	cs->speed = -s * cs->vx + c * cs->vy; /* along +Y = (-sin, cos) */
	cs->steer = 0;
}

/* The hitch's velocity at tau in [0, 1] of a step of dt along the cubic
 * Hermite curve through (h0, v0) and (h1, v1): only x and y matter. */
static void hermite_vel(const double h0[3], const double v0[3],
                        const double h1[3], const double v1[3], double dt,
                        double tau, double out[2])
{
	double t2 = tau * tau;
	double a = 6 * t2 - 6 * tau;     /* d/dtau of 2t^3 - 3t^2 + 1 */
	double b = 3 * t2 - 4 * tau + 1; /* of t^3 - 2t^2 + t */
	double c = 3 * t2 - 2 * tau;     /* of t^3 - t^2 */
	for (int k = 0; k < 2; k++)
		out[k] = (a * (h0[k] - h1[k])) / dt + b * v0[k] + c * v1[k];
}

static void trailer_follow(const vs_attach_link *l, const vs_state *pa,
                           const vs_state *pb, const vs_state *ca,
                           vs_state *cs, double dt)
{
	double h0[3], v0[3], h1[3], v1[3], vh[2];
	body_point(pa, l->hitch_p, h0, v0);
	body_point(pb, l->hitch_p, h1, v1);
	/* RK4 on d psi / dt = f(tau, psi) across the step. */
	double psi = ca->yaw, hs = dt / VS_ATTACH_SUBSTEPS;
	for (int k = 0; k < VS_ATTACH_SUBSTEPS; k++) {
		double t0 = (double)k / VS_ATTACH_SUBSTEPS;
		double tm = (k + 0.5) / VS_ATTACH_SUBSTEPS;
		double t1 = (double)(k + 1) / VS_ATTACH_SUBSTEPS;
		double k1, k2, k3, k4;
		hermite_vel(h0, v0, h1, v1, dt, t0, vh);
		k1 = trailer_rate(l, psi, vh);
		hermite_vel(h0, v0, h1, v1, dt, tm, vh);
		k2 = trailer_rate(l, psi + 0.5 * hs * k1, vh);
		k3 = trailer_rate(l, psi + 0.5 * hs * k2, vh);
		hermite_vel(h0, v0, h1, v1, dt, t1, vh);
		k4 = trailer_rate(l, psi + hs * k3, vh);
		psi += hs / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
	}
	trailer_place(l, psi, pb->z, h1, v1, cs);
}

/* Step 0: the start articulation is the heading, relative to the parent:
 * the yaw of R_P Rz(h)'s forward axis, flattened onto the ground. */
static void trailer_start(const vs_attach_link *l, const vs_state *ps,
                          vs_state *cs)
{
	double Rp[9], Rc[9], h[3], vh[3];
	vs_state_rotation(ps, Rp);
	mat_mul(Rp, l->rel, Rc);
	double psi = atan2(-Rc[1], Rc[4]);
	body_point(ps, l->hitch_p, h, vh);
	trailer_place(l, psi, ps->z, h, vh, cs);
}

/* ---- stepping ----------------------------------------------------------- */

void vs_attach_place(const vs_attach_plan *p, vs_state *s)
{
	for (int k = 0; k < p->n; k++) {
		const vs_attach_link *l = &p->links[k];
		if (l->type == VS_ATTACH_TRAILER)
			trailer_start(l, &s[l->parent], &s[l->child]);
		else
			fixed_follow(l, &s[l->parent], &s[l->child]);
	}
}

int vs_attach_step(const vs_attach_plan *p, const vs_scenario *scn,
                   const vs_state *prev, vs_state *cur, double dt,
                   vs_error *err)
{
	for (int k = 0; k < p->n; k++) {
		const vs_attach_link *l = &p->links[k];
		if (l->type == VS_ATTACH_TRAILER)
			trailer_follow(l, &prev[l->parent], &cur[l->parent],
			               &prev[l->child], &cur[l->child], dt);
		else
			fixed_follow(l, &cur[l->parent], &cur[l->child]);
		if (!vs_state_finite(&cur[l->child])) {
			const vs_actor_spec *a = &scn->actors[l->child];
			vs_error_set(err, "actor %lld (%s): attach: non-finite "
			             "state following actor %lld",
			             (long long)a->id, a->name,
			             (long long)a->attach.parent_id);
			return -1;
		}
	}
	return 0;
}
