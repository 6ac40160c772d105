#include "sim/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/registry.h"
#include "sim/attach.h"
#include "map/map.h"
#include "sim/monitor.h"
#include "sim/signals.h"
#include "sim/wheels.h"

/* What a plugin instance's host_ctx points at. */
typedef struct actor_ctx {
	struct sim *sim;
	int index;              /* actor index in the scenario */
	const char *plugin;     /* its name, for messages */
} actor_ctx;

typedef struct sim {
	const vs_scenario *scn;
	vs_result *res;
	int n;                  /* actors */
	int64_t *ids;
	int64_t *parent;        /* parent actor IDs, 0: the world */
	vs_monitor *monitor;    /* events and summary */
	const struct vs_map *map; /* NULL: no map, or not recorded */
	vs_map_row *loc;        /* map location at step k */
	vs_lane_pos *lanes;     /* the same, for the monitor */
	vs_state *prev, *cur;   /* step k-1, step k */
	vs_wheel_acc *wacc;     /* wheel accumulators, at step k */
	vs_control *ctl;
	vs_actor_info *info;
	actor_ctx *vm_ctx, *bh_ctx;
	void **vm, **bh;        /* instances */
	const vs_plugin **vm_p, **bh_p;
	char error[1024];       /* first error logged */
	int no_wheels;          /* record no wheel accumulators */
	vs_attach_plan att;     /* attached actors, parents first */
	vs_signals sig;         /* plugin outputs (ABI 1.1) */
	double t;               /* s, the step being computed, for messages */
	int log_level;          /* messages at or above it are kept */
} sim;

static void host_log(void *host_ctx, vs_log_level level, const char *fmt,
                     ...) VS_PRINTF(3, 4);

static void host_log(void *host_ctx, vs_log_level level, const char *fmt,
                     ...)
{
	actor_ctx *c = host_ctx;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!c || !c->sim)
		return;
	const vs_actor_spec *a = &c->sim->scn->actors[c->index];
	if (level >= VS_LOG_ERROR && !c->sim->error[0])
		snprintf(c->sim->error, sizeof c->sim->error,
		         "actor %lld (%s): %s: %s", (long long)a->id, a->name,
		         c->plugin, msg);
	if ((int)level >= c->sim->log_level)
		vs_log_add(c->sim->res, a->id, c->sim->t, (int)level,
		           c->plugin, msg);
}

static size_t host_actor_ids(void *host_ctx, const int64_t **ids)
{
	actor_ctx *c = host_ctx;
	*ids = c->sim->ids;
	return (size_t)c->sim->n;
}

static const vs_state *host_previous_state(void *host_ctx, int64_t id)
{
	actor_ctx *c = host_ctx;
	for (int i = 0; i < c->sim->n; i++)
		if (c->sim->ids[i] == id)
			return &c->sim->prev[i];
	return NULL;
}

static const vs_host host_table = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_host),
	.log = host_log,
	.actor_ids = host_actor_ids,
	.previous_state = host_previous_state,
};

const vs_host *vs_sim_host(void)
{
	return &host_table;
}

void vs_result_finish(vs_result *r)
{
	if (!r)
		return;
	free(r->params_json);
	free(r->actors);
	free(r->wheels);
	free(r->events);
	free(r->rows);
	for (int i = 0; i < r->n_signal_names; i++)
		free(r->signal_names[i]);
	free(r->signal_names);
	free(r->signals);
	free(r->logs);
	memset(r, 0, sizeof *r);
}

int vs_sim_axles(const vs_scenario *scn, int i, double *axle_y)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_asset *as = &scn->assets[a->asset];
	if (as->n_axles <= 0)
		return 0;
	/* The front axle sits front_overhang behind the front bumper and the
	 * rearmost rear_overhang ahead of the rear bumper; the axles between
	 * keep their relative spacing from the asset. Unvaried, this
	 * reproduces the asset's axles exactly. */
	double front = a->length / 2 - a->front_overhang;
	double rear = -a->length / 2 + a->rear_overhang;
	double af = as->axle_y[0], ar = as->axle_y[as->n_axles - 1];
	axle_y[0] = front;
	for (int k = 1; k < as->n_axles; k++) {
		double f = af != ar ? (af - as->axle_y[k]) / (af - ar) : 0;
		axle_y[k] = front + f * (rear - front);
	}
	return as->n_axles;
}

void vs_sim_actor_info(const vs_scenario *scn, int i, vs_actor_info *info)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_asset *as = &scn->assets[a->asset];
	memset(info, 0, sizeof *info);
	info->struct_size = sizeof *info;
	info->id = a->id;
	info->name = a->name;
	info->length = a->length;
	info->width = a->width;
	info->height = a->height;
	info->front_overhang = a->front_overhang;
	info->rear_overhang = a->rear_overhang;
	info->track = as->track;
	info->wheel_radius = as->wheel_radius;
	double axle_y[VS_MAX_AXLES];
	int n_axles = vs_sim_axles(scn, i, axle_y);
	info->n_axles = (uint32_t)n_axles;
	if (n_axles > 0) {
		/* The rear reference is the centre of the axles behind the
		 * front one (a tandem turns about its middle); a single axle
		 * is its own reference. */
		double sum = 0;
		for (int k = 1; k < n_axles; k++)
			sum += axle_y[k];
		info->front_axle_y = axle_y[0];
		info->rear_axle_y = n_axles > 1 ? sum / (n_axles - 1)
		                                : axle_y[0];
		info->wheelbase = info->front_axle_y - info->rear_axle_y;
	}
	const vs_plugin_use *vm = &a->vehicle_model;
	int ratio = vm->loaded ? vs_plugin_use_param(vm, "steering_ratio") : -1;
	info->steering_ratio = ratio >= 0 ? vm->params[ratio] : 15.0;
	info->speed = a->speed;
	info->n_speed = (size_t)a->n_speed;
	info->waypoints = a->waypoints;
	info->n_waypoints = (size_t)a->n_waypoints;
	info->yaw = a->n_yaw ? a->yaw : NULL;
	info->n_yaw = (size_t)a->n_yaw;
	info->step = scn->step;
	vs_state *s = &info->start;
	s->x = a->start_pos[0];
	s->y = a->start_pos[1];
	s->z = a->start_pos[2];
	s->yaw = a->start_yaw;
	s->speed = a->n_speed > 0 ? a->speed[0] : 0.0;
	/* Heading from +X is yaw + pi/2: forward = (-sin yaw, cos yaw). */
	s->vx = -sin(s->yaw) * s->speed;
	s->vy = cos(s->yaw) * s->speed;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int state_finite(const vs_state *s)
{
	const double *v = &s->x;
	for (size_t i = 0; i < sizeof *s / sizeof(double); i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static void fail(sim *S, const char *fmt, ...) VS_PRINTF(2, 3);

static void fail(sim *S, const char *fmt, ...)
{
	vs_result *r = S->res;
	if (r->status == VS_VARIANT_FAILED)
		return;
	r->status = VS_VARIANT_FAILED;
	if (S->error[0]) {
		snprintf(r->error, sizeof r->error, "%s", S->error);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

static void record(sim *S, int64_t step)
{
	vs_result *r = S->res;
	if (r->n_rows + S->n > r->cap_rows) {
		r->cap_rows = r->cap_rows ? r->cap_rows * 2 : 1024;
		while (r->cap_rows < r->n_rows + S->n)
			r->cap_rows *= 2;
		r->rows = vs_xrealloc(r->rows,
		                      (size_t)r->cap_rows * sizeof *r->rows);
	}
	for (int i = 0; i < S->n; i++) {
		vs_state_row *row = &r->rows[r->n_rows++];
		row->actor_id = S->ids[i];
		row->step = step;
		row->s = S->cur[i];
		row->m = S->loc[i];
		if (!S->no_wheels)
			row->w = S->wacc[i];
		else
			memset(&row->w, 0, sizeof row->w);
	}
	vs_signals_record(&S->sig, step, r);
}

static int status_bad(vs_status st)
{
	return st == VS_DISCARD || st == VS_ERROR || st == VS_FATAL;
}

static const char *status_name(vs_status st)
{
	switch (st) {
	case VS_DISCARD: return "DISCARD";
	case VS_ERROR: return "ERROR";
	case VS_FATAL: return "FATAL";
	default: return "OK";
	}
}

static void fill_actor_rows(sim *S)
{
	const vs_scenario *scn = S->scn;
	vs_result *r = S->res;
	r->n_actors = S->n;
	r->actors = vs_xcalloc((size_t)S->n, sizeof *r->actors);
	r->wheels = vs_xcalloc((size_t)S->n * 2 * VS_MAX_AXLES,
	                       sizeof *r->wheels);
	for (int i = 0; i < S->n; i++) {
		const vs_actor_spec *a = &scn->actors[i];
		const vs_asset *as = &scn->assets[a->asset];
		vs_actor_row *row = &r->actors[i];
		row->actor_id = a->id;
		row->name = a->name;
		row->kind = as->n_axles > 0 ? "vehicle" : "object";
		row->parent_id = a->attach.present ? a->attach.parent_id : 0;
		row->attach_type = vs_attach_type_name(a->attach.type);
		row->length = a->length;
		row->width = a->width;
		row->height = a->height;
		double axle_y[VS_MAX_AXLES];
		int n_axles = vs_sim_axles(scn, i, axle_y);
		vs_actor_info info;
		vs_sim_actor_info(scn, i, &info);
		row->wheel_count = vs_wheels_geometry(
			&info, axle_y, n_axles, r->wheels + r->n_wheels,
			2 * VS_MAX_AXLES);
		r->n_wheels += row->wheel_count;
		row->vehicle_model = a->vehicle_model.loaded
		                         ? a->vehicle_model.loaded->desc->name
		                         : NULL;
		row->behaviour = a->behaviour.loaded
		                     ? a->behaviour.loaded->desc->name
		                     : NULL;
	}
}

/* Creates and resets every instance; fills step 0 into cur. */
static int start(sim *S)
{
	for (int i = 0; i < S->n; i++) {
		const vs_actor_spec *a = &S->scn->actors[i];
		if (a->vehicle_model.loaded)
			vs_signals_add(&S->sig, S->res, a->id,
			               a->vehicle_model.loaded->desc);
		if (a->behaviour.loaded)
			vs_signals_add(&S->sig, S->res, a->id,
			               a->behaviour.loaded->desc);
	}
	for (int i = 0; i < S->n; i++) {
		const vs_actor_spec *a = &S->scn->actors[i];
		vs_sim_actor_info(S->scn, i, &S->info[i]);
		S->cur[i] = S->info[i].start;
		if (!a->vehicle_model.loaded && !a->attach.present) {
			/* Nothing moves it: a static object, at rest. */
			S->cur[i].speed = S->cur[i].vx = S->cur[i].vy = 0;
		}
		struct {
			const vs_plugin_use *use;
			const vs_plugin **p;
			void **inst;
			actor_ctx *ctx;
		} u[2] = {{&a->vehicle_model, &S->vm_p[i], &S->vm[i],
		           &S->vm_ctx[i]},
		          {&a->behaviour, &S->bh_p[i], &S->bh[i],
		           &S->bh_ctx[i]}};
		for (int k = 0; k < 2; k++) {
			if (!u[k].use->loaded)
				continue;
			const vs_plugin *p = u[k].use->loaded->desc;
			*u[k].p = p;
			*u[k].ctx = (actor_ctx){S, i, p->name};
			vs_create_args args = {
				sizeof args, &S->info[i], u[k].use->params,
				u[k].ctx, &host_table,
				vs_signals_buffer(&S->sig, a->id, p), p};
			vs_status st = p->create(&args, u[k].inst);
			if (status_bad(st) || !*u[k].inst) {
				fail(S, "actor %lld (%s): %s: create failed "
				     "(%s)", (long long)a->id, a->name,
				     p->name, status_name(st));
				return -1;
			}
		}
	}
	for (int i = 0; i < S->n; i++) {
		const vs_actor_spec *a = &S->scn->actors[i];
		if (S->vm_p[i]) {
			vs_status st = S->vm_p[i]->reset(S->vm[i], &S->cur[i]);
			if (status_bad(st)) {
				fail(S, "actor %lld (%s): %s: reset failed",
				     (long long)a->id, a->name,
				     S->vm_p[i]->name);
				return -1;
			}
		}
		if (S->bh_p[i]) {
			vs_state s0 = S->cur[i];
			vs_status st = S->bh_p[i]->reset(S->bh[i], &s0);
			if (status_bad(st)) {
				fail(S, "actor %lld (%s): %s: reset failed",
				     (long long)a->id, a->name,
				     S->bh_p[i]->name);
				return -1;
			}
		}
		if (!state_finite(&S->cur[i])) {
			fail(S, "actor %lld (%s): non-finite start state",
			     (long long)a->id, a->name);
			return -1;
		}
	}
	/* Attached children take their step-0 pose from their parents. */
	char why[512];
	if (vs_attach_plan_init(&S->att, S->scn, why, sizeof why)) {
		fail(S, "%s", why);
		return -1;
	}
	vs_attach_place(&S->att, S->cur);
	return 0;
}

/* One step k: behaviours see step k-1 (prev), then vehicle models move. */
static int step(sim *S, int64_t k)
{
	double dt = S->scn->step;
	double t = (double)k * dt;
	S->t = t;
	for (int i = 0; i < S->n; i++) {
		if (!S->bh_p[i]) {
			/* No behaviour: hold the start speed and go straight. */
			S->ctl[i].speed = S->info[i].start.speed;
			S->ctl[i].steering_wheel = 0;
			continue;
		}
		vs_status st = S->bh_p[i]->behaviour_step(S->bh[i], t, dt,
		                                          &S->prev[i],
		                                          &S->ctl[i]);
		if (status_bad(st) || !isfinite(S->ctl[i].speed) ||
		    !isfinite(S->ctl[i].steering_wheel)) {
			const vs_actor_spec *a = &S->scn->actors[i];
			fail(S, "actor %lld (%s): %s: %s at step %lld (t = %g s)",
			     (long long)a->id, a->name, S->bh_p[i]->name,
			     status_bad(st) ? status_name(st)
			                    : "non-finite control",
			     (long long)k, t);
			return -1;
		}
	}
	for (int i = 0; i < S->n; i++) {
		S->cur[i] = S->prev[i];
		if (S->att.attached && S->att.attached[i])
			continue; /* moved below, after its parent */
		if (!S->vm_p[i]) {
			vs_wheels_advance(&S->wacc[i], &S->info[i], &S->prev[i],
			                  &S->cur[i], dt);
			continue;
		}
		vs_status st = S->vm_p[i]->vehicle_step(S->vm[i], t, dt,
		                                        &S->ctl[i], &S->cur[i]);
		if (status_bad(st) || !state_finite(&S->cur[i])) {
			const vs_actor_spec *a = &S->scn->actors[i];
			fail(S, "actor %lld (%s): %s: %s at step %lld (t = %g s)",
			     (long long)a->id, a->name, S->vm_p[i]->name,
			     status_bad(st) ? status_name(st)
			                    : "non-finite state",
			     (long long)k, t);
			return -1;
		}
		vs_wheels_advance(&S->wacc[i], &S->info[i], &S->prev[i],
		                  &S->cur[i], dt);
	}
	/* Attached children follow their parents (sim/attach.h). */
	char why[512];
	if (vs_attach_step(&S->att, S->scn, S->prev, S->cur, dt, why,
	                   sizeof why)) {
		fail(S, "%s at step %lld (t = %g s)", why, (long long)k, t);
		return -1;
	}
	for (int j = 0; j < S->att.n; j++) {
		int i = S->att.links[j].child;
		vs_wheels_advance(&S->wacc[i], &S->info[i], &S->prev[i],
		                  &S->cur[i], dt);
	}
	return 0;
}

/* What the host derives after step k: events and the summary. Returns the
 * number of collisions that began at this step. */
static int observe(sim *S, int64_t k)
{
	if (S->map) {
		for (int i = 0; i < S->n; i++) {
			const vs_state *s = &S->cur[i];
			vs_map_location l;
			vs_map_locate(S->map, s->x, s->y, s->z,
			              vs_map_travel_heading(s->vx, s->vy, s->yaw),
			              &l);
			S->loc[i] = (vs_map_row){l.lane, l.is_on_lane,
			                         l.position, l.angle};
			S->lanes[i] = (vs_lane_pos){l.lane, l.is_on_lane};
		}
	}
	return vs_monitor_step(S->monitor, k, S->cur,
	                       S->map ? S->lanes : NULL, S->res);
}

static void teardown(sim *S)
{
	for (int i = 0; i < S->n; i++) {
		if (S->vm_p[i])
			S->vm_p[i]->destroy(S->vm[i]);
		if (S->bh_p[i])
			S->bh_p[i]->destroy(S->bh[i]);
	}
	vs_signals_free(&S->sig);
	free(S->ids);
	free(S->parent);
	free(S->loc);
	free(S->lanes);
	free(S->prev);
	free(S->wacc);
	free(S->cur);
	free(S->ctl);
	free(S->info);
	free(S->vm_ctx);
	free(S->bh_ctx);
	free(S->vm);
	free(S->bh);
	free(S->vm_p);
	free(S->bh_p);
	vs_attach_plan_finish(&S->att);
}

int vs_sim_run(const vs_scenario *scn, const vs_sim_opts *opts,
               vs_result *res)
{
	sim S = {0};
	S.scn = scn;
	S.res = res;
	S.n = scn->n_actors;
	size_t n = (size_t)S.n;
	S.ids = vs_xcalloc(n, sizeof *S.ids);
	S.parent = vs_xcalloc(n, sizeof *S.parent);
	S.loc = vs_xcalloc(n, sizeof *S.loc);
	S.lanes = vs_xcalloc(n, sizeof *S.lanes);
	for (int i = 0; i < S.n; i++)
		S.loc[i].lane = -1;
	S.map = opts && opts->no_map ? NULL : scn->map;
	S.prev = vs_xcalloc(n, sizeof *S.prev);
	S.wacc = vs_xcalloc(n, sizeof *S.wacc);
	S.cur = vs_xcalloc(n, sizeof *S.cur);
	S.ctl = vs_xcalloc(n, sizeof *S.ctl);
	S.info = vs_xcalloc(n, sizeof *S.info);
	S.vm_ctx = vs_xcalloc(n, sizeof *S.vm_ctx);
	S.bh_ctx = vs_xcalloc(n, sizeof *S.bh_ctx);
	S.vm = vs_xcalloc(n, sizeof *S.vm);
	S.bh = vs_xcalloc(n, sizeof *S.bh);
	S.vm_p = vs_xcalloc(n, sizeof *S.vm_p);
	S.bh_p = vs_xcalloc(n, sizeof *S.bh_p);
	for (int i = 0; i < S.n; i++) {
		S.ids[i] = scn->actors[i].id;
		S.parent[i] = scn->actors[i].attach.present
		                      ? scn->actors[i].attach.parent_id : 0;
	}
	res->status = VS_VARIANT_DONE;
	S.no_wheels = opts && opts->no_wheels;
	S.sig.select = opts ? opts->signals : NULL;
	S.log_level = opts && opts->plugin_log ? opts->plugin_log - 1
	                                       : VS_LOG_WARNING;
	res->owner = (void *)scn;

	int every = opts && opts->record_every > 0 ? opts->record_every : 1;
	double timeout = opts ? opts->timeout : 0;
	double t_end = timeout > 0 ? now() + timeout : 0;
	int64_t steps = vs_scenario_steps(scn);
	int stopped = 0;
	if (start(&S) == 0) {
		S.monitor = vs_monitor_create(S.n, S.info, S.parent, S.map);
		observe(&S, 0);
		record(&S, 0);
		for (int64_t k = 1; k < steps; k++) {
			if (opts && opts->stop && *opts->stop) {
				stopped = 1;
				break;
			}
			/* The clock is read every 16 steps: cheap (a vDSO
			 * call), and a limit is overrun by at most 16 steps'
			 * time. */
			if (t_end > 0 && (k & 15) == 0 && now() > t_end) {
				fail(&S, "exceeded the wall-clock limit of %g s "
				     "at step %lld (t = %g s)", timeout,
				     (long long)k, (double)k * scn->step);
				break;
			}
			vs_state *tmp = S.prev;
			S.prev = S.cur;
			S.cur = tmp;
			if (step(&S, k))
				break;
			int collided = observe(&S, k);
			if (k % every == 0 || (collided && scn->stop_at_collision))
				record(&S, k);
			if (collided && scn->stop_at_collision)
				break;
		}
	}
	vs_monitor_finish(S.monitor, res);
	fill_actor_rows(&S);
	if (opts && opts->no_wheels)
		res->n_wheels = 0;
	teardown(&S);
	return stopped ? -1 : 0;
}
