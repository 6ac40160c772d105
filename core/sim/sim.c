/* Simulating one variant: the stepping loop of docs/conventions.md ("Step
 * semantics"), and the host side of the plugin boundary.
 *
 * Called by run/runner.c's workers, one variant per call (and by the unit
 * tests). A call owns everything it touches (the scenario is read-only and
 * the result the caller's), so variants run on any number of threads with
 * no locks and the same rows.
 *
 * Step 0: every actor's plugins are created and reset (the vehicle model
 * completes the start state), then attached children are placed on their
 * parents. Each step k = 1 .. steps - 1:
 *   1. every behaviour reads step k-1 (prev) and writes its control;
 *   2. every unattached actor's vehicle model moves it to step k (cur);
 *      an actor without one goes straight at its start speed, but a
 *      character, which its behaviour moves as a point mass
 *      (character.h);
 *   3. attached children follow their parents, parents first (attach.c);
 *   4. wheel accumulators, map locations and the monitor observe step k;
 *   5. step k is recorded when k is a multiple of record_every, and at a
 *      collision that ends the variant: the actors' rows, their signals
 *      and the pairs within reach (--record pairs); with a sink
 *      (opts->sink), the rows held go to it once they fill a chunk
 *      (whole steps).
 *
 * Invariants:
 *   - prev and cur are two arrays swapped each step: throughout step k,
 *     prev is step k-1, which is all a behaviour or the host's
 *     previous_state sees, so the order of actors never matters;
 *   - every plugin call goes through the call_* wrappers: they record the
 *     instance's worst status, and a bad status or an output the host
 *     cannot use fails the variant with one message, formatted in one
 *     place: "actor ID (NAME): PLUGIN: what" (an ERROR the plugin logged
 *     before is the message instead);
 *   - the first failure wins, and the rows recorded before it are kept;
 *   - a plugin's host_ctx is its instance struct, which leads back to the
 *     variant and the actor; instances of one variant live as long as the
 *     call (create ... destroy), their vs_actor_info and outputs arrays
 *     as long;
 *   - every instance's outputs are registered (signals.h) before any is
 *     created, and recorded with the states of each recorded step; plugin
 *     messages at or above the run's level become log rows tagged with
 *     the actor and the time of the step being computed. */
#include "sim/sim.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/hugemem.h"
#include "common/quota.h"
#include "common/util.h"
#include "map/map.h"
#include "plugin/registry.h"
#include "sim/actor.h"
#include "sim/attach.h"
#include "sim/character.h"
#include "sim/monitor.h"
#include "sim/route_z.h"
#include "sim/safety.h"
#include "sim/signals.h"
#include "sim/wheels.h"
#include "sim/world.h"

struct sim;

/* One plugin instance of one actor: the plugin boundary as an object.
 * Native plugins and FMUs (which plugin/ wraps as vs_plugin descriptors)
 * alike are called through the call_* wrappers below; an ABI 1.1
 * plugin's outputs array travels with its instance. */
/* s: steps slower than this (each, on average since the last reading)
 * make the wall-clock limit be read at every step (vs_sim_run). */
#define CLOCK_SLOW 0.003

typedef struct instance {
	const vs_plugin *desc;   /* NULL: no plugin in this role */
	vs_kind role;            /* which step function the host calls */
	void *inst;              /* the plugin's, from create */
	double *outputs;         /* ABI 1.1: one double per descriptor output,
	                            owned by S->sig; NULL when it has none */
	struct sim *sim;         /* the host context is this struct */
	int actor;               /* actor index in the scenario */
	vs_status worst;         /* worst status any call returned */
	/* the field its last step left non-finite ("x", "steering_wheel"),
	 * and its value, for the failure's reason; NULL: none */
	const char *bad_field;
	double bad_value;
} instance;

/* One actor of the variant: what stays with it for the whole run. */
typedef struct actor {
	vs_actor_info info;      /* as plugins see it; create args point here */
	instance vm, bh;         /* vehicle model, behaviour */
	vs_control ctl;          /* the behaviour's control for step k */
	vs_wheel_acc wacc;       /* wheel accumulators at step k */
	vs_wheel_speeds wspeed;  /* step k's rolling speeds, for step k+1 */
	vs_route_z rz;           /* height along a 3-D route */
	int character;           /* kind: character, moved by its behaviour */
} actor;

typedef struct sim {
	const vs_scenario *scn;
	vs_result *res;
	int n;                  /* actors */
	actor *actors;
	int64_t *ids;           /* actor IDs in scenario order (actor_ids) */
	vs_state *prev, *cur;   /* step k-1, step k */
	const struct vs_map *map; /* NULL: no map */
	vs_map_row *loc;        /* map location at step k; lane -1 without */
	vs_monitor *monitor;    /* events and summary */
	vs_safety *safety;      /* TTC, headway, deceleration, jerk */
	vs_attach_plan att;     /* attached actors, parents first */
	/* A plugin (an FMU's logger above all) may log from threads of its
	 * own while the host is inside one of its calls: error and res's
	 * log rows are written under this lock. */
	pthread_mutex_t log_mu;
	char error[1024];       /* the first ERROR a plugin logged */
	vs_error att_err;       /* why attach.c stopped the variant */
	vs_signals sig;         /* plugin outputs (ABI 1.1) */
	vs_sim_world world;     /* what behaviours may ask (ABI 1.1) */
	double t;               /* s, the step being computed, for messages */
	int log_level;          /* plugin messages at or above it are kept */
	int no_wheels;          /* record no wheel accumulators */
	int no_state;           /* record no rows (--record summary) */
	/* Store no map location (--record without map). The location is
	 * still worked out: host services, the road's height under an
	 * actor, lane events and lane KPIs need it, and leaving map out
	 * of what is stored must not change what is simulated. */
	int no_map_rows;
	/* 1: advance the wheel accumulators, which only the stored rows
	 * read (tan, atan2, sin and cos per steered wheel and step: 12-15 %
	 * of a summary-only run's CPU, docs/results.md) */
	int rolling;
	double pair_range;      /* m; < 0: no pair rows */
	const vs_row_sink *sink; /* where rows go as they are made, or NULL */
	int64_t rows_hint;      /* state rows the result will hold at most
	                           at once: its first array's size */
	double waited;          /* s spent in sink->flush: not the variant's */
} sim;

/* ---- failing a variant -------------------------------------------------- */

static void fail(sim *S, const char *fmt, ...) VS_PRINTF(2, 3);

/* Marks the variant failed with this reason, unless it failed already; a
 * plugin's logged ERROR, if any, is the reason instead. */
static void fail(sim *S, const char *fmt, ...)
{
	vs_result *r = S->res;
	if (r->status == VS_VARIANT_FAILED)
		return;
	r->status = VS_VARIANT_FAILED;
	pthread_mutex_lock(&S->log_mu);
	snprintf(r->error, sizeof r->error, "%s", S->error);
	pthread_mutex_unlock(&S->log_mu);
	if (r->error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

/* "actor ID (NAME): PLUGIN: what" into buf: how every message about an
 * instance reads. */
static void instance_message(const instance *in, char *buf, size_t size,
                             const char *what)
{
	const vs_actor_spec *a = &in->sim->scn->actors[in->actor];
	snprintf(buf, size, "actor %lld (%s): %s: %s", (long long)a->id,
	         a->name, in->desc->name, what);
}

/* ---- host services ------------------------------------------------------ */

/* The instance whose plugin this thread is calling (calling() .. called()),
 * NULL outside a call: whom a service called with a NULL host_ctx is
 * for. A plugin that forgot to keep args->host_ctx (the template once
 * logged with NULL) still has its message tied to its variant and actor,
 * its ERROR still the failed variant's reason. Thread-local: workers call
 * plugins side by side. */
static _Thread_local instance *in_call;

/* host_ctx, or when it is NULL the instance being called on this thread;
 * NULL when neither (a thread of the plugin's own, or its entry point). */
static instance *ctx_instance(void *host_ctx)
{
	return host_ctx ? host_ctx : in_call;
}

/* A message no instance can be found for: on vsweep's stderr, under the
 * run's cap on plugin lines, rather than lost. */
static void log_unplaced(int level, const char *msg)
{
	int say = vs_quota_take(VS_QUOTA_PLUGIN);
	FILE *out = vs_own_stderr();
	if (say < 0)
		fprintf(out, "%s\n", vs_quota_notice(VS_QUOTA_PLUGIN));
	else if (say)
		fprintf(out, "vsweep: a plugin logged with no host_ctx and "
		        "not on the thread vsweep calls it on (tied to no "
		        "variant): %s: %s\n", vs_log_level_name(level), msg);
}

static void host_log(void *host_ctx, vs_log_level level, const char *fmt,
                     ...) VS_PRINTF(3, 4);

static void host_log(void *host_ctx, vs_log_level level, const char *fmt,
                     ...)
{
	instance *in = ctx_instance(host_ctx);
	/* What a log row keeps and one byte more, to see whether a cut
	 * there splits a character; the rest is only counted. */
	char text[VS_LOG_MESSAGE_MAX + 2];
	size_t at = 0;
	/* A level that is none of vs_log_level's: kept as an error (it may
	 * be the plugin's worst news), saying so. Every level stored is one
	 * of the four, contained or not (level 4 is the log view's
	 * 'output', a contained plugin's printed lines). */
	if ((int)level < (int)VS_LOG_DEBUG || (int)level > (int)VS_LOG_ERROR) {
		at = (size_t)snprintf(text, sizeof text,
		                      "logged at unknown level %d: ",
		                      (int)level);
		level = VS_LOG_ERROR;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text + at, sizeof text - at, fmt, ap);
	va_end(ap);
	if (n < 0) { /* an encoding error: the prefix alone */
		n = 0;
		text[at] = '\0';
	}
	/* a plugin's text reaches the terminal and the results file
	 * escaped, and cut (marked) where it is longer than a row keeps */
	char *msg = vs_log_text(text, at + (size_t)n, 1);
	if (!in || !in->sim) {
		log_unplaced((int)level, msg);
		free(msg);
		return;
	}
	sim *S = in->sim;
	pthread_mutex_lock(&S->log_mu);
	if (level >= VS_LOG_ERROR && !S->error[0])
		instance_message(in, S->error, sizeof S->error, msg);
	if ((int)level >= S->log_level)
		vs_log_add(S->res, S->scn->actors[in->actor].id, S->t,
		           (int)level, in->desc->name, msg);
	pthread_mutex_unlock(&S->log_mu);
	free(msg);
}

/* The other services answer "none" for a host_ctx that leads nowhere
 * (ctx_instance), as for an unknown ID, rather than crash. */
static size_t host_actor_ids(void *host_ctx, const int64_t **ids)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim) {
		*ids = NULL;
		return 0;
	}
	*ids = in->sim->ids;
	return (size_t)in->sim->n;
}

static const vs_state *host_previous_state(void *host_ctx, int64_t id)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim)
		return NULL;
	int i = vs_sim_world_index(&in->sim->world, id);
	return i < 0 ? NULL : &in->sim->prev[i];
}

static int host_map_location(void *host_ctx, int64_t id,
                             vs_lane_location *out)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim)
		return -1;
	return vs_sim_world_location(&in->sim->world, id, out);
}

static int host_lane_point(void *host_ctx, const char *lane, double s,
                           vs_lane_point *out)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim)
		return -1;
	return vs_sim_world_lane_point(&in->sim->world, lane, s, out);
}

static const char *host_lane_link(void *host_ctx, const char *lane,
                                  int relation)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim)
		return NULL;
	return vs_sim_world_lane_link(&in->sim->world, lane, relation);
}

static const vs_actor_attr *host_actor_attr(void *host_ctx, int64_t id)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim)
		return NULL;
	return vs_sim_world_attr(&in->sim->world, id);
}

static size_t host_lane_actors(void *host_ctx, const char *lane,
                               const int64_t **ids, const double **s)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim) {
		*ids = NULL;
		*s = NULL;
		return 0;
	}
	return vs_sim_world_lane_actors(&in->sim->world, lane, ids, s);
}

static size_t host_actors_near(void *host_ctx, double x, double y,
                               double radius, const int64_t **ids)
{
	instance *in = ctx_instance(host_ctx);
	if (!in || !in->sim) {
		*ids = NULL;
		return 0;
	}
	return vs_sim_world_actors_near(&in->sim->world, x, y, radius, ids);
}

static double host_actor_reach(void *host_ctx)
{
	instance *in = ctx_instance(host_ctx);
	return in && in->sim ? vs_sim_world_reach(&in->sim->world) : INFINITY;
}

static const vs_host host_table = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_host),
	.log = host_log,
	.actor_ids = host_actor_ids,
	.previous_state = host_previous_state,
	.map_location = host_map_location,
	.lane_point = host_lane_point,
	.lane_link = host_lane_link,
	.actor_attr = host_actor_attr,
	.lane_actors = host_lane_actors,
	.actors_near = host_actors_near,
	.actor_reach = host_actor_reach,
};

const vs_host *vs_sim_host(void)
{
	return &host_table;
}

/* ---- calling a plugin --------------------------------------------------- */

_Thread_local volatile sig_atomic_t vs_sim_calling;
_Thread_local volatile sig_atomic_t vs_sim_step;
volatile sig_atomic_t *vs_sim_mirror;

static void set_step(sig_atomic_t v)
{
	vs_sim_step = v;
	if (vs_sim_mirror)
		vs_sim_mirror[1] = v;
}

/* Marks the start of a call into in's plugin (sim.h, and in_call above),
 * and its end. */
static void calling(instance *in)
{
	in_call = in;
	vs_sim_calling = (sig_atomic_t)(1 + 2 * in->actor +
	                                (in->role == VS_KIND_BEHAVIOUR));
	if (vs_sim_mirror)
		vs_sim_mirror[0] = vs_sim_calling;
}

static void called(void)
{
	in_call = NULL;
	vs_sim_calling = 0;
	if (vs_sim_mirror)
		vs_sim_mirror[0] = 0;
}

/* Whether st is one of the vs_status values: a plugin may return any
 * int, and one outside VS_OK..VS_FATAL says nothing the host can rank
 * (as an unsigned enum, -1 would outrank VS_FATAL). */
static int status_known(vs_status st)
{
	return (int)st >= (int)VS_OK && (int)st <= (int)VS_FATAL;
}

static int status_bad(vs_status st)
{
	return st == VS_DISCARD || st == VS_ERROR || st == VS_FATAL;
}

static const char *status_name(vs_status st)
{
	switch (st) {
	case VS_OK: return "OK";
	case VS_WARNING: return "WARNING";
	case VS_DISCARD: return "DISCARD";
	case VS_ERROR: return "ERROR";
	case VS_FATAL: return "FATAL";
	}
	return "?"; /* not a vs_status: judge says so with its number */
}

typedef enum call_kind { CALL_CREATE, CALL_RESET, CALL_STEP } call_kind;

/* Where every plugin call ends: records st as the instance's worst if it
 * is, and fails the variant when the call went wrong (a bad status, a
 * status that is none, or usable 0: an output the host cannot use). k is
 * the step of a step call. Returns 0, or -1 when the variant failed. */
static int judge(instance *in, call_kind call, vs_status st, int usable,
                 int64_t k)
{
	int known = status_known(st);
	/* worst stays a severity: a plugin that answers out of the
	 * contract is broken, as with VS_FATAL */
	vs_status sev = known ? st : VS_FATAL;
	if (sev > in->worst)
		in->worst = sev;
	if (known && !status_bad(in->worst) && usable)
		return 0;
	char what[256], bad[96] = "", msg[1024];
	if (!known)
		snprintf(bad, sizeof bad,
		         "returned status %d, which is not a vs_status",
		         (int)st);
	switch (call) {
	case CALL_CREATE:
		if (!known)
			snprintf(what, sizeof what, "create %s", bad);
		else if (status_bad(st))
			snprintf(what, sizeof what, "create failed (%s)",
			         status_name(st));
		else
			snprintf(what, sizeof what,
			         "create returned %s but no instance",
			         status_name(st));
		break;
	case CALL_RESET:
		if (!known)
			snprintf(what, sizeof what, "reset %s", bad);
		else
			snprintf(what, sizeof what, "reset failed");
		break;
	case CALL_STEP:
		if (known && !status_bad(st) && in->bad_field)
			/* which field, so the author knows where to look */
			snprintf(bad, sizeof bad, "non-finite %s: %s = %g",
			         in->role == VS_KIND_BEHAVIOUR ? "control"
			                                       : "state",
			         in->bad_field, in->bad_value);
		snprintf(what, sizeof what, "%s%s at step %lld (t = %g s)",
		         !known ? bad
		         : status_bad(st) ? status_name(st)
		         : in->bad_field ? bad
		         : in->role == VS_KIND_BEHAVIOUR ? "non-finite control"
		                                         : "non-finite state",
		         !known ? "," : "", (long long)k, (double)k * in->sim->scn->step);
		break;
	}
	instance_message(in, msg, sizeof msg, what);
	fail(in->sim, "%s", msg);
	return -1;
}

/* Creates actor i's instance of a bound plugin use in a role. */
static int call_create(sim *S, instance *in, int i, vs_kind role,
                       const vs_plugin_use *use)
{
	actor *a = &S->actors[i];
	const vs_plugin *p = use->loaded->desc;
	double *outputs = vs_signals_buffer(&S->sig, S->scn->actors[i].id, p);
	*in = (instance){.desc = p, .role = role, .sim = S, .actor = i,
	                 .outputs = outputs};
	vs_create_args args = {sizeof args, &a->info, use->params, in,
	                       &host_table, in->outputs, p};
	calling(in);
	vs_status st = in->desc->create(&args, &in->inst);
	called();
	return judge(in, CALL_CREATE, st, in->inst != NULL, 0);
}

static int call_reset(instance *in, vs_state *s)
{
	calling(in);
	vs_status st = in->desc->reset(in->inst, s);
	called();
	return judge(in, CALL_RESET, st, 1, 0);
}

/* The first field of c the host cannot use (a vehicle's: speed,
 * steering_wheel, an infinite accel; a character's: vx, vy, an infinite
 * x, y or yaw), its value in *v; NULL when there is none. */
static const char *control_bad_field(const vs_control *c, int character,
                                     double *v)
{
	struct { const char *name; double v; int nan_ok; } f[] = {
		{"speed", c->speed, 0}, {"steering_wheel", c->steering_wheel, 0},
		{"accel", c->accel, 1}, {"vx", c->vx, 0}, {"vy", c->vy, 0},
		{"x", c->x, 1}, {"y", c->y, 1}, {"yaw", c->yaw, 1}};
	int from = character ? 3 : 0, to = character ? 8 : 3;
	for (int i = from; i < to; i++)
		if (f[i].nan_ok ? isinf(f[i].v) : !isfinite(f[i].v)) {
			*v = f[i].v;
			return f[i].name;
		}
	return NULL;
}

/* Step k of a behaviour: control for step k from self at step k-1. */
static int call_behaviour(instance *in, int64_t k, const vs_state *self,
                          vs_control *c)
{
	double dt = in->sim->scn->step;
	c->accel = NAN; /* ABI 1.1: "none", unless the behaviour sets it */
	vs_character_control_clear(c);
	calling(in);
	vs_status st = in->desc->behaviour_step(in->inst, (double)k * dt, dt,
	                                        self, c);
	called();
	if (in->desc->abi_minor < 1) {
		c->accel = NAN; /* a 1.0 behaviour does not know the field */
		vs_character_control_clear(c);
	}
	int usable = in->sim->actors[in->actor].character
		? vs_character_control_ok(c)
		: isfinite(c->speed) && isfinite(c->steering_wheel) &&
		          !isinf(c->accel);
	if (!usable)
		in->bad_field = control_bad_field(
			c, in->sim->actors[in->actor].character,
			&in->bad_value);
	return judge(in, CALL_STEP, st, usable, k);
}

/* Step k of a vehicle model: s holds step k-1 and receives step k. */
static int call_vehicle(instance *in, int64_t k, const vs_control *c,
                        vs_state *s)
{
	double dt = in->sim->scn->step;
	calling(in);
	vs_status st = in->desc->vehicle_step(in->inst, (double)k * dt, dt, c,
	                                      s);
	called();
	in->bad_field = vs_state_bad_field(s, &in->bad_value);
	return judge(in, CALL_STEP, st, !in->bad_field, k);
}

static void call_destroy(instance *in)
{
	if (!in->desc)
		return;
	calling(in);
	in->desc->destroy(in->inst);
	called();
}

/* ---- results ------------------------------------------------------------ */

void vs_result_finish(vs_result *r)
{
	if (!r)
		return;
	free(r->params_json);
	free(r->actors);
	free(r->wheels);
	free(r->events);
	vs_huge_free(r->rows); /* malloc's, or the parent's received ones */
	for (int i = 0; i < r->n_signal_names; i++) {
		free(r->signal_names[i]);
		if (r->signal_units)
			free(r->signal_units[i]);
	}
	free(r->signal_names);
	free(r->signal_units);
	free(r->signals);
	int64_t kept = r->n_logs < VS_LOG_ROWS_KEPT ? r->n_logs
	                                            : VS_LOG_ROWS_KEPT;
	for (int64_t j = 0; j < kept && r->logs; j++)
		free(r->logs[j].message);
	free(r->logs);
	free(r->pairs);
	memset(r, 0, sizeof *r);
}

/* Hands the rows held to the sink once they fill a chunk. Returns 0, or
 * -1 when the sink says stop. */
static int flush_full(sim *S)
{
	const vs_result *r = S->res;
	size_t held = (size_t)r->n_rows * sizeof *r->rows +
	              (size_t)r->n_signals * sizeof *r->signals +
	              (size_t)r->n_pairs * sizeof *r->pairs; /* bytes */
	if (!S->sink || held < S->sink->chunk_bytes)
		return 0;
	double t0 = vs_now();
	int rc = S->sink->flush(S->sink->ctx, S->res);
	S->waited += vs_now() - t0;
	return rc ? -1 : 0;
}

/* Records step into the result; returns 0, or -1 when the sink says
 * stop. */
static int record(sim *S, int64_t step)
{
	vs_result *r = S->res;
	if (S->no_state)
		return 0;
	if (r->n_rows + S->n > r->cap_rows) {
		/* Sized once for the whole variant (or chunk): growing by
		 * doubling copied 1.3 MB a 2-actor variant. malloc's, not
		 * hugemem.h's: a 2 MiB block would make a contained child
		 * (--variant-memory) and each queued chunk that much
		 * bigger; pages are touched only as rows are written. */
		int64_t cap = r->cap_rows ? r->cap_rows * 2 : S->rows_hint;
		while (cap < r->n_rows + S->n)
			cap *= 2;
		r->rows = vs_xrealloc(r->rows, (size_t)cap * sizeof *r->rows);
		r->cap_rows = cap;
	}
	for (int i = 0; i < S->n; i++) {
		vs_state_row *row = &r->rows[r->n_rows++];
		row->actor_id = S->ids[i];
		row->step = step;
		row->s = S->cur[i];
		if (S->no_map_rows)
			row->m = (vs_map_row){.lane = -1};
		else
			row->m = S->loc[i];
		if (!S->no_wheels)
			row->w = S->actors[i].wacc;
		else
			memset(&row->w, 0, sizeof row->w);
	}
	vs_signals_record(&S->sig, step, r);
	if (S->pair_range >= 0)
		vs_monitor_pairs(S->monitor, step, S->cur, S->pair_range, r);
	return flush_full(S);
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
		vs_actor_row *row = &r->actors[i];
		row->actor_id = a->id;
		row->name = a->name;
		row->kind = vs_actor_kind_name(scn, i);
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

/* ---- the loop ----------------------------------------------------------- */

/* Creates and resets every instance; fills step 0 into cur. */
static int start(sim *S)
{
	/* Every instance's outputs before any is created, so that every
	 * variant numbers its signal names alike (signals.h). */
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
		actor *ac = &S->actors[i];
		vs_sim_actor_info(S->scn, i, &ac->info);
		ac->character = vs_actor_is_character(S->scn, i);
		S->cur[i] = ac->info.start;
		if (!a->vehicle_model.loaded && !a->attach.present) {
			/* Nothing moves it: a static object, at rest. */
			S->cur[i].speed = S->cur[i].vx = S->cur[i].vy = 0;
		}
		if (a->vehicle_model.loaded &&
		    call_create(S, &ac->vm, i, VS_KIND_VEHICLE_MODEL,
		                &a->vehicle_model))
			return -1;
		if (a->behaviour.loaded &&
		    call_create(S, &ac->bh, i, VS_KIND_BEHAVIOUR,
		                &a->behaviour))
			return -1;
	}
	for (int i = 0; i < S->n; i++) {
		const vs_actor_spec *a = &S->scn->actors[i];
		actor *ac = &S->actors[i];
		if (ac->vm.desc && call_reset(&ac->vm, &S->cur[i]))
			return -1;
		/* Nothing else moves a character: its behaviour completes
		 * the start state, as a vehicle model does (plugin.h). */
		if (ac->character && ac->bh.desc &&
		    call_reset(&ac->bh, &S->cur[i]))
			return -1;
		vs_route_z_init(&ac->rz, a,
		                a->behaviour.loaded &&
		                    vs_plugin_follows_route(
		                        a->behaviour.loaded->desc));
		vs_route_z_apply(&ac->rz, a, &S->cur[i]);
		if (ac->bh.desc && !ac->character) {
			vs_state s0 = S->cur[i]; /* a behaviour only reads it */
			if (call_reset(&ac->bh, &s0))
				return -1;
		}
		double v;
		const char *f = vs_state_bad_field(&S->cur[i], &v);
		if (f) {
			/* the vehicle model's reset sets the start state */
			const vs_plugin *vm = ac->vm.desc;
			fail(S, "actor %lld (%s): non-finite start state: %s = "
			     "%g%s%s%s", (long long)a->id, a->name, f, v,
			     vm ? " (after " : "", vm ? vm->name : "",
			     vm ? "'s reset)" : "");
			return -1;
		}
	}
	/* Attached children take their step-0 pose from their parents. */
	if (vs_attach_plan_init(&S->att, S->scn, &S->att_err)) {
		fail(S, "%s", S->att_err.msg);
		return -1;
	}
	vs_attach_place(&S->att, S->cur);
	return 0;
}

/* One step k: behaviours see step k-1 (prev), then vehicle models move. */
static int step(sim *S, int64_t k)
{
	double dt = S->scn->step;
	S->t = (double)k * dt;
	for (int i = 0; i < S->n; i++) {
		actor *ac = &S->actors[i];
		if (!ac->bh.desc) {
			/* No behaviour: hold the start speed and go straight. */
			ac->ctl.speed = ac->info.start.speed;
			ac->ctl.steering_wheel = 0;
			ac->ctl.accel = NAN;
			continue;
		}
		if (call_behaviour(&ac->bh, k, &S->prev[i], &ac->ctl))
			return -1;
	}
	for (int i = 0; i < S->n; i++) {
		actor *ac = &S->actors[i];
		S->cur[i] = S->prev[i];
		if (S->att.attached && S->att.attached[i])
			continue; /* moved below, after its parent */
		if (ac->vm.desc &&
		    call_vehicle(&ac->vm, k, &ac->ctl, &S->cur[i]))
			return -1;
		if (ac->character && ac->bh.desc)
			vs_character_step(&S->prev[i], &ac->ctl, dt, &S->cur[i]);
		vs_route_z_apply(&ac->rz, &S->scn->actors[i], &S->cur[i]);
		if (S->rolling)
			vs_wheels_advance(&ac->wacc, &ac->wspeed, &ac->info,
			                  &S->prev[i], &S->cur[i], dt);
	}
	/* Attached children follow their parents (sim/attach.h). */
	if (vs_attach_step(&S->att, S->scn, S->prev, S->cur, dt,
	                   &S->att_err)) {
		fail(S, "%s at step %lld (t = %g s)", S->att_err.msg,
		     (long long)k, (double)k * dt);
		return -1;
	}
	for (int j = 0; S->rolling && j < S->att.n; j++) {
		int i = S->att.links[j].child;
		vs_wheels_advance(&S->actors[i].wacc, &S->actors[i].wspeed,
		                  &S->actors[i].info, &S->prev[i], &S->cur[i],
		                  dt);
	}
	return 0;
}

/* What the host derives after step k: events and the summary. Returns the
 * number of collisions that began at this step. */
static int observe(sim *S, int64_t k)
{
	if (S->map) {
		for (int i = 0; i < S->n; i++) {
			vs_map_settle(S->map, &S->cur[i]); /* on the road */
			const vs_state *s = &S->cur[i];
			/* the most aligned of the lanes its footprint
			 * straddles */
			const vs_actor_info *in = &S->actors[i].info;
			vs_map_footprint fp = {in->width / 2, in->length / 2,
			                       s->yaw};
			vs_map_location l;
			vs_map_locate_footprint(
				S->map, s->x, s->y, s->z,
				vs_map_travel_heading(s->vx, s->vy, s->yaw), &fp,
				&l);
			S->loc[i] = (vs_map_row){l.lane, l.is_on_lane,
			                         l.position, l.angle};
		}
	}
	vs_safety_step(S->safety, k, S->cur, S->map ? S->loc : NULL, S->res);
	return vs_monitor_step(S->monitor, k, S->cur, S->map ? S->loc : NULL,
	                       S->res);
}

static void watch(sim *S)
{
	double *length = vs_xcalloc((size_t)S->n + 1, sizeof *length);
	for (int i = 0; i < S->n; i++)
		length[i] = S->actors[i].info.length;
	S->safety = vs_safety_create(S->n, S->ids, length, S->scn->step,
	                             S->map, S->scn->near_miss_ttc);
	free(length);
	for (int i = 0; i < S->n; i++)
		if (S->actors[i].character)
			vs_safety_set_character(S->safety, i);
	for (int k = 0; k < S->att.n; k++)
		vs_safety_attach(S->safety, S->att.links[k].child,
		                 S->att.links[k].parent);
	S->monitor = vs_monitor_create(S->n, S->map);
	for (int i = 0; i < S->n; i++) {
		const vs_attach *at = &S->scn->actors[i].attach;
		vs_monitor_actor(S->monitor, i, &S->actors[i].info,
		                 at->present ? at->parent_id : 0);
	}
}

static void teardown(sim *S)
{
	for (int i = 0; i < S->n; i++) {
		call_destroy(&S->actors[i].vm);
		call_destroy(&S->actors[i].bh);
	}
	vs_signals_free(&S->sig);
	vs_sim_world_free(&S->world);
	free(S->actors);
	free(S->ids);
	free(S->loc);
	free(S->prev);
	free(S->cur);
	vs_attach_plan_finish(&S->att);
}

int vs_sim_run(const vs_scenario *scn, const vs_sim_opts *opts,
               vs_result *res)
{
	sim S = {0};
	pthread_mutex_init(&S.log_mu, NULL);
	S.scn = scn;
	S.res = res;
	S.n = scn->n_actors;
	size_t n = (size_t)S.n;
	S.actors = vs_xcalloc(n, sizeof *S.actors);
	S.ids = vs_xcalloc(n, sizeof *S.ids);
	S.loc = vs_xcalloc(n, sizeof *S.loc);
	S.prev = vs_xcalloc(n, sizeof *S.prev);
	S.cur = vs_xcalloc(n, sizeof *S.cur);
	for (int i = 0; i < S.n; i++) {
		S.ids[i] = scn->actors[i].id;
		S.loc[i].lane = -1;
	}
	S.map = scn->map;
	S.no_map_rows = opts && opts->no_map;
	vs_sim_world_init(&S.world, scn);
	S.world.map = S.map;
	S.world.n = S.n;
	S.world.ids = S.ids;
	S.world.prev = &S.prev;
	S.world.loc = S.loc;
	res->status = VS_VARIANT_DONE;
	S.no_wheels = opts && opts->no_wheels;
	S.no_state = opts && opts->no_state;
	S.rolling = !S.no_wheels && !S.no_state;
	S.pair_range = !opts || !opts->pairs ? -1
	               : opts->pair_range > 0 ? opts->pair_range
	                                      : VS_PAIR_RANGE_DEFAULT;
	S.sig.select = opts ? opts->signals : NULL;
	S.sink = opts ? opts->sink : NULL;
	S.log_level = opts && opts->plugin_log ? opts->plugin_log - 1
	                                       : VS_LOG_WARNING;
	res->owner = (void *)scn;

	int every = opts && opts->record_every > 0 ? opts->record_every : 1;
	double timeout = opts ? opts->timeout : 0;
	double t_end = timeout > 0 ? vs_now() + timeout : 0;
	int64_t steps = vs_scenario_steps(scn);
	/* steps recorded: multiples of every, and a collision's */
	S.rows_hint = S.n * (steps / every + 2);
	if (S.sink) {
		/* a chunk goes once it holds chunk_bytes, a step at most over */
		int64_t chunk = (int64_t)(S.sink->chunk_bytes /
		                          sizeof(vs_state_row)) + 2 * S.n;
		if (chunk < S.rows_hint)
			S.rows_hint = chunk;
	}
	if (S.rows_hint < S.n)
		S.rows_hint = S.n > 0 ? S.n : 1;
	int stopped = 0;
	int64_t observed = 0; /* steps simulated, step 0 included */
	set_step(0);
	if (start(&S) == 0) {
		watch(&S);
		observe(&S, 0);
		observed = 1;
		if (record(&S, 0))
			stopped = 1;
		int64_t next_clock = 1, last_k = 1; /* steps: the next and
		                                      the last to read it */
		double last_clock = 0; /* s, at last_k */
		for (int64_t k = 1; k < steps && !stopped; k++) {
			if (opts && opts->stop && *opts->stop) {
				stopped = 1;
				break;
			}
			/* The clock is read every 16 steps while steps are
			 * quick (a vDSO call each, ~3 % of a 2-actor step),
			 * every step while they take over CLOCK_SLOW s: a
			 * plugin of 0.3 s a step would otherwise overrun
			 * the limit by 16 steps, into the containment's
			 * kill a second past it, and lose the rows this
			 * check keeps (a review). Time waiting for the sink
			 * is not counted. */
			if (t_end > 0 && k >= next_clock) {
				double now = vs_now();
				if (now > t_end + S.waited) {
					fail(&S, "exceeded the wall-clock limit "
					     "of %g s at step %lld (t = %g s)",
					     timeout, (long long)k,
					     (double)k * scn->step);
					break;
				}
				/* steps last_k .. k - 1 ran since the last
				 * reading: none at step 1 */
				int slow = k == last_k ||
				           now - last_clock >
				                   CLOCK_SLOW * (double)(k - last_k);
				next_clock = k + (slow ? 1 : 16);
				last_clock = now;
				last_k = k;
			}
			vs_state *tmp = S.prev;
			S.prev = S.cur;
			S.cur = tmp;
			S.world.gen++; /* what it memoised is of step k-2 */
			set_step(k < INT_MAX ? (sig_atomic_t)(k + 1) : 0);
			if (step(&S, k))
				break;
			int collided = observe(&S, k);
			observed++;
			if ((k % every == 0 ||
			     (collided && scn->stop_at_collision)) &&
			    record(&S, k)) {
				stopped = 1;
				break;
			}
			if (collided && scn->stop_at_collision)
				break;
		}
	}
	set_step(-1); /* teardown: destroy calls belong to no step */
	vs_monitor_finish(S.monitor, res);
	vs_safety_finish(S.safety, res);
	res->summary.actor_steps = observed * S.n;
	fill_actor_rows(&S);
	if (opts && opts->no_wheels)
		res->n_wheels = 0;
	teardown(&S);
	pthread_mutex_destroy(&S.log_mu);
	return stopped ? -1 : 0;
}
