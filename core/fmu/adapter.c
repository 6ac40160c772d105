/* An FMU instance behind the vs_plugin functions (fmu_adapter.h): one FMI
 * instance per actor per variant, driven per docs/plugins.md's contract.
 *
 * Each step sets the inputs speed and steering_wheel, calls
 * doStep(t - dt, dt) and reads x, y, yaw and whatever of the other state
 * fields the FMU has; the rest are derived from differences over the
 * step. An FMU with x0, y0, yaw0 works in the world frame; any other
 * works in the actor's start frame, which is placed into the world here:
 * world = p0 + Rz(yaw0) local, yaw = yaw0 + local yaw, and every vector
 * (velocity, angular velocity) turned by the same Rz(yaw0). Values pass
 * through the unit conversion of their role (fmu.c): SI on vsweep's
 * side, the FMU's declared units on its side; an FMI 3 Float32 is got
 * and set as a float (exchange.c), and a value it cannot hold fails the
 * variant.
 *
 * Status: Warning is logged; Discard, Error and Fatal fail the variant
 * with the FMU's own last message (the FMU's logger routes its messages
 * to the host's log, errors becoming the variant's reason). After Error
 * only the instance is freed. After Fatal no function of that FMU is
 * called again in this process, on any instance (FMI 2.0 and 3.0: all its
 * instances are corrupted): its instances are leaked, later variants
 * refuse it, and vs_fmu_process_spoiled() tells run/contain.c to replace
 * the process. An FMI 3 FMU that sets terminateSimulation fails the
 * variant at that step and is terminated and freed as usual; one that
 * returns early although vsweep does not allow it is an error of the FMU.
 *
 * The FMU may call its logger from any thread while it is inside one of
 * its functions: an instance's message state is under its own mutex, and
 * the host's log takes the simulation's (sim.c). */
#include "fmu/fmu_adapter.h"
#include "common/util.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fmu_inst {
	const vs_fmu *f;
	void *c;               /* the FMI instance */
	void *host_ctx;
	const vs_host *host;
	double *out;           /* host-owned outputs, or NULL */
	double x0, y0, z0, yaw0; /* m, rad: the start pose (start frame) */
	double steering_ratio; /* for steer when the FMU has none */
	fmu_scratch sc;        /* the FMU's side of a batch (exchange.c) */
	int fatal;             /* this FMU returned Fatal: call nothing more */
	int broken;            /* Error: free only */
	int counted;           /* in f->live->instances */
	pthread_mutex_t mu;    /* the three below: the FMU's logger may be
	                          called from any of its threads */
	int logged_error;      /* the FMU logged an error message */
	long n_msgs;           /* messages the FMU logged */
	char last[512];        /* the FMU's last message */
} fmu_inst;

/* Set once any FMU returned Fatal in this process (fmu.h). */
static atomic_int process_spoiled;

int vs_fmu_process_spoiled(void)
{
	return atomic_load(&process_spoiled);
}

/* FMI instances left after a Fatal (vs_fmu_destroy): FMI allows not even
 * their freeing, so they are kept here, for the process's life — held,
 * not lost (a leak checker sees memory still pointed to). */
static pthread_mutex_t abandoned_mu = PTHREAD_MUTEX_INITIALIZER;
static void **abandoned;
static size_t n_abandoned;

static void abandon(void *c)
{
	pthread_mutex_lock(&abandoned_mu);
	void **a = realloc(abandoned, (n_abandoned + 1) * sizeof *a);
	if (a) {
		abandoned = a;
		abandoned[n_abandoned++] = c;
	}
	pthread_mutex_unlock(&abandoned_mu);
}

static void host_say(fmu_inst *in, vs_log_level level, const char *msg)
{
	if (in->host && in->host->log)
		in->host->log(in->host_ctx, level, "%s", msg);
}

/* msg into last (its size n), whole when it fits; else the whole UTF-8
 * characters that fit before a "..." mark: last goes into a failure
 * reason, where a cut must show. */
static void keep_last(char *last, size_t n, const char *msg)
{
	size_t len = strlen(msg);
	if (len < n) {
		memcpy(last, msg, len + 1);
		return;
	}
	size_t k = n - 4; /* room for "..." and the NUL */
	while (k > 0 && ((unsigned char)msg[k] & 0xC0) == 0x80)
		k--; /* msg[k] begins a character: cut before it */
	memcpy(last, msg, k);
	memcpy(last + k, "...", 4);
}

/* Both FMI versions' messages: kept, and passed whole to the host's log
 * at the matching level (host_log is thread-safe, and keeps or cuts a
 * long message as every plugin's). */
static void take_message(fmu_inst *in, int status, const char *category,
                         const char *msg)
{
	vs_log_level level = status >= FMI2_ERROR ? VS_LOG_ERROR
	                     : status == FMI2_WARNING ? VS_LOG_WARNING
	                                              : VS_LOG_INFO;
	int cat = category && *category;
	pthread_mutex_lock(&in->mu);
	keep_last(in->last, sizeof in->last, msg ? msg : "");
	in->n_msgs++;
	if (level == VS_LOG_ERROR)
		in->logged_error = 1;
	pthread_mutex_unlock(&in->mu);
	if (in->host && in->host->log)
		in->host->log(in->host_ctx, level, "%s%s%s", cat ? category : "",
		              cat ? ": " : "", msg ? msg : "");
}

/* The message state, read under its lock: last (size 512) may be NULL. */
static long messages(fmu_inst *in, int *logged_error, char *last)
{
	pthread_mutex_lock(&in->mu);
	long n = in->n_msgs;
	if (logged_error)
		*logged_error = in->logged_error;
	if (last)
		memcpy(last, in->last, sizeof in->last);
	pthread_mutex_unlock(&in->mu);
	return n;
}

static void fmi2_logger(void *env, const char *instance_name,
                        fmi2_status status, const char *category,
                        const char *message, ...)
{
	(void)instance_name;
	char small[512], *buf = small;
	va_list ap, again;
	va_start(ap, message);
	va_copy(again, ap);
	/* FMI 2's logger takes the FMU's printf format: it cannot be a
	 * literal here (clang's -Wformat-nonliteral says so). A message
	 * longer than small is formatted again, whole, into the heap: the
	 * host's log keeps up to its own limit and marks a cut. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	int n = vsnprintf(small, sizeof small, message ? message : "", ap);
	if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1)))
		vsnprintf(buf, (size_t)n + 1, message ? message : "", again);
	else
		buf = small;
#pragma GCC diagnostic pop
	va_end(again);
	va_end(ap);
	take_message(env, (int)status, category, buf);
	if (buf != small)
		free(buf);
}

static void fmi3_logger(void *env, fmi3_status status, const char *category,
                        const char *message)
{
	take_message(env, (int)status, category, message);
}

static const char *status_name(int st)
{
	static const char *const n[] = {"OK", "Warning", "Discard", "Error",
	                                 "Fatal", "Pending"};
	return st >= 0 && st <= 5 ? n[st] : "unknown";
}

/* Marks the FMU (every instance in this process) as beyond calling. */
static void spoil(fmu_inst *in)
{
	in->fatal = 1;
	atomic_store(&in->f->live->fatal, 1);
	atomic_store(&process_spoiled, 1);
}

/* Maps an FMI status (same numbers in 2 and 3) to the plugin's; on
 * Discard or worse makes sure the variant's reason says what failed. */
static vs_status check(fmu_inst *in, int st, const char *call, double t)
{
	if (st == FMI2_OK)
		return VS_OK;
	if (st == FMI2_WARNING)
		return VS_WARNING;
	if (st == FMI2_FATAL)
		spoil(in);
	in->broken = 1;
	int logged;
	char last[sizeof in->last];
	messages(in, &logged, last);
	if (!logged) {
		char msg[700];
		snprintf(msg, sizeof msg, "%s returned %s at t = %g s%s%s", call,
		         status_name(st), t, last[0] ? ": " : "", last);
		host_say(in, VS_LOG_ERROR, msg);
	}
	return st == FMI2_DISCARD ? VS_DISCARD
	       : st == FMI2_FATAL ? VS_FATAL
	                          : VS_ERROR;
}

/* Whether another instance of this FMU returned Fatal (in this variant,
 * or on another thread): then this one may not be called either, and the
 * variant fails saying so. */
static int others_fatal(fmu_inst *in, double t)
{
	if (in->fatal)
		return 1;
	if (!atomic_load(&in->f->live->fatal))
		return 0;
	in->fatal = 1;
	char msg[700];
	snprintf(msg, sizeof msg, "%s: another instance of this FMU returned "
	         "Fatal at t <= %g s, after which FMI allows no further call "
	         "to any of its instances in this process", in->f->path, t);
	host_say(in, VS_LOG_ERROR, msg);
	return 1;
}

/* FMI 2 value references are unsigned int, FMI 3's uint32_t: the same
 * 32-bit type on the platforms FMUs ship binaries for, so one array
 * serves both. */
_Static_assert(sizeof(fmi2_vr) == sizeof(uint32_t),
               "FMI 2 and 3 value references differ in size");

/* A value x (in v's own unit) that the Float32 v cannot hold: rounded
 * to the nearest float it would be infinite, a value the model was never
 * given. Nothing is set; the variant fails saying what and where (the
 * host's log names the actor). what: "vsweep's speed", "a param". */
static vs_status f32_refused(fmu_inst *in, const fmu_var *v, double x,
                             const char *what, double t)
{
	char msg[900];
	snprintf(msg, sizeof msg, "%s: variable '%s' (%s) is a Float32 and "
	         "cannot take %.17g%s%s at t = %g s: its nearest float is "
	         "infinite (a Float32 holds at most %.9g in magnitude); not "
	         "set, the variant fails", in->f->path, v->name, what, x,
	         *v->unit ? " " : "", v->unit, t, (double)FLT_MAX);
	host_say(in, VS_LOG_ERROR, msg);
	return VS_ERROR;
}

/* Sets the variables of the n roles that the FMU has to v[i], given in
 * SI units and handed over in the variable's own (the inverse of factor
 * * x + offset). call names them in a failure's message. */
static vs_status set_roles(fmu_inst *in, const int *roles, const double *v,
                           int n, const char *call, double t)
{
	const vs_fmu *f = in->f;
	int worst = FMI2_OK;
	for (int i = 0; i < n && worst < FMI2_DISCARD; i++) {
		int r = roles[i];
		const fmu_var *var = f->role[r];
		if (!var)
			continue;
		double x = (v[i] - f->unit_offset[r]) / f->unit_factor[r];
		int st = vs_fmu_set_one(f, in->c, var, x);
		if (st == VS_FMU_F32_RANGE) {
			char what[64];
			snprintf(what, sizeof what, "vsweep's %s",
			         vs_fmu_role_names[r]);
			return f32_refused(in, var, x, what, t);
		}
		worst = st > worst ? st : worst;
	}
	return check(in, worst, call, t);
}

static void *instantiate(fmu_inst *in, const char *name)
{
	const vs_fmu *f = in->f;
	if (f->md.fmi == 2) {
		static const fmi2_callbacks cb_template = {
			fmi2_logger, calloc, free, NULL, NULL};
		/* The FMU keeps the pointer: one table per instance, freed
		 * with it (it lives in the instance's own block below). */
		fmi2_callbacks *cb = (fmi2_callbacks *)(in + 1);
		*cb = cb_template;
		cb->env = in;
		return f->f2.instantiate(name, FMI2_CO_SIMULATION, f->md.token,
		                         f->resource_uri, cb, 0, 1);
	}
	return f->f3.instantiate(name, f->md.token, f->resource_path, false,
	                         true, false, false, NULL, 0, in, fmi3_logger,
	                         NULL);
}

/* Parameters, start pose and first inputs, then initialisation. */
static vs_status initialise(fmu_inst *in, const vs_create_args *args)
{
	const vs_fmu *f = in->f;
	const vs_state *s0 = &args->actor->start;
	size_t bad = 0;
	int ps = f->param_batch.n ? vs_fmu_set_batch(f, in->c, &f->param_batch,
	                                             args->params, &in->sc,
	                                             &bad)
	                          : FMI2_OK;
	if (ps == VS_FMU_F32_RANGE)
		return f32_refused(in, f->param_batch.var[bad],
		                   args->params[f->param_batch.at[bad]],
		                   "a param", 0);
	vs_status st = check(in, ps, "setting parameters", 0);
	if (st >= VS_DISCARD)
		return st;
	if (f->world) {
		static const int pose[] = {START_X0, START_Y0, START_YAW0};
		const double at[] = {s0->x, s0->y, s0->yaw};
		if ((st = set_roles(in, pose, at, 3, "setting x0, y0, yaw0",
		                    0)) >= VS_DISCARD)
			return st;
	}
	static const int first[] = {IN_SPEED, IN_STEERING_WHEEL};
	const double u0[] = {s0->speed, 0.0};
	if ((st = set_roles(in, first, u0, 2, "setting inputs", 0)) >=
	    VS_DISCARD)
		return st;
	if (f->md.fmi == 2) {
		if ((st = check(in, (int)f->f2.setup(in->c, 0, 0.0, 0.0, 0, 0.0),
		                "fmi2SetupExperiment", 0)) >= VS_DISCARD ||
		    (st = check(in, (int)f->f2.enter_init(in->c),
		                "fmi2EnterInitializationMode", 0)) >=
		            VS_DISCARD)
			return st;
		return check(in, (int)f->f2.exit_init(in->c),
		             "fmi2ExitInitializationMode", 0);
	}
	if ((st = check(in, (int)f->f3.enter_init(in->c, false, 0.0, 0.0,
	                                          false, 0.0),
	                "fmi3EnterInitializationMode", 0)) >= VS_DISCARD)
		return st;
	return check(in, (int)f->f3.exit_init(in->c),
	             "fmi3ExitInitializationMode", 0);
}

/* Whether this process may instantiate the FMU: not after a Fatal of it
 * (an earlier variant's, when variants run in this process one after
 * another), nor a second live instance of one that may be instantiated
 * only once per process. On refusal, says why. */
static int may_instantiate(fmu_inst *in)
{
	const vs_fmu *f = in->f;
	char msg[900];
	if (atomic_load(&f->live->fatal)) {
		snprintf(msg, sizeof msg, "%s: an earlier variant's call to this "
		         "FMU returned Fatal in this process, after which FMI "
		         "allows no further call to it; run with containment "
		         "(without VSWEEP_NO_CONTAINMENT), which replaces the "
		         "process after such a variant", f->path);
		host_say(in, VS_LOG_ERROR, msg);
		return 0;
	}
	if (!f->md.once)
		return 1;
	if (atomic_fetch_add(&f->live->instances, 1) > 0) {
		atomic_fetch_sub(&f->live->instances, 1);
		snprintf(msg, sizeof msg, "%s may be instantiated only once per "
		         "process (canBeInstantiatedOnlyOncePerProcess), and an "
		         "instance of it is alive in this process", f->path);
		host_say(in, VS_LOG_ERROR, msg);
		return 0;
	}
	in->counted = 1;
	return 1;
}

vs_status vs_fmu_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	/* The host passes the descriptor (ABI 1.1); its first member makes
	 * it the FMU. */
	if (args->struct_size < sizeof *args || !args->plugin ||
	    args->plugin->create != vs_fmu_create)
		return VS_FATAL;
	const vs_fmu *f = (const vs_fmu *)args->plugin;
	/* The instance and, behind it, its FMI 2 callback table. */
	fmu_inst *in = calloc(1, sizeof *in + sizeof(fmi2_callbacks));
	if (!in)
		return VS_ERROR;
	in->f = f;
	in->host_ctx = args->host_ctx;
	in->host = args->host;
	in->out = args->outputs;
	pthread_mutex_init(&in->mu, NULL);
	const vs_state *s0 = &args->actor->start;
	in->x0 = s0->x;
	in->y0 = s0->y;
	in->z0 = s0->z;
	in->yaw0 = s0->yaw;
	in->steering_ratio = args->actor->steering_ratio;
	in->sc.d = calloc(f->max_batch + 1, sizeof *in->sc.d);
	in->sc.s = calloc(f->max_batch + 1, sizeof *in->sc.s);
	if (!in->sc.d || !in->sc.s) {
		vs_fmu_destroy(in);
		return VS_ERROR;
	}
	if (!may_instantiate(in)) {
		vs_fmu_destroy(in);
		return VS_ERROR;
	}
	char name[96];
	snprintf(name, sizeof name, "actor%lld", (long long)args->actor->id);
	in->c = instantiate(in, name);
	if (!in->c) {
		int logged;
		char last[sizeof in->last], msg[700];
		messages(in, &logged, last);
		snprintf(msg, sizeof msg, "cannot instantiate FMU %s%s%s",
		         f->md.model_id, last[0] ? ": " : "", last);
		if (!logged)
			host_say(in, VS_LOG_ERROR, msg);
		vs_fmu_destroy(in);
		return VS_ERROR;
	}
	vs_status st = initialise(in, args);
	if (st >= VS_DISCARD) {
		vs_fmu_destroy(in);
		return st;
	}
	*instance = in;
	return VS_OK;
}

/* The state fields the FMU provides, in roles OUT_X .. OUT_STEER order,
 * NaN where it has none; the other outputs into in->out. */
static int read_outputs(fmu_inst *in, double *v)
{
	const vs_fmu *f = in->f;
	double got[N_ROLES];
	int st = vs_fmu_get_batch(f, in->c, &f->state_batch, got, &in->sc);
	for (int r = OUT_X; r <= OUT_STEER; r++)
		v[r - OUT_X] = f->role[r] && st < FMI2_DISCARD
		                       ? f->unit_factor[r] * got[r - OUT_X] +
		                                 f->unit_offset[r]
		                       : NAN;
	if (in->out && f->desc.n_outputs && st < FMI2_DISCARD) {
		int st2 = vs_fmu_get_batch(f, in->c, &f->output_batch, in->out,
		                           &in->sc);
		st = st2 > st ? st2 : st;
	}
	return st;
}

/* The state from the FMU's outputs v (read_outputs); prev is the previous
 * step's state (for differences), or NULL at step 0. */
static void place(fmu_inst *in, const double *v, const vs_state *prev,
                  double dt, double steering_wheel, vs_state *s)
{
#define HAS(r) (!isnan(v[(r) - OUT_X]))
#define V(r) (v[(r) - OUT_X])
	const int world = in->f->world;
	double c = world ? 1.0 : cos(in->yaw0), sn = world ? 0.0 : sin(in->yaw0);
	double ox = world ? 0.0 : in->x0, oy = world ? 0.0 : in->y0;
	s->x = ox + c * V(OUT_X) - sn * V(OUT_Y);
	s->y = oy + sn * V(OUT_X) + c * V(OUT_Y);
	s->yaw = vs_wrap_angle(world ? V(OUT_YAW) : in->yaw0 + V(OUT_YAW));
	s->z = HAS(OUT_Z) ? (world ? 0.0 : in->z0) + V(OUT_Z) : s->z;
	if (HAS(OUT_ROLL))
		s->roll = V(OUT_ROLL);
	if (HAS(OUT_PITCH))
		s->pitch = V(OUT_PITCH);
	if (HAS(OUT_VX) && HAS(OUT_VY)) {
		s->vx = c * V(OUT_VX) - sn * V(OUT_VY);
		s->vy = sn * V(OUT_VX) + c * V(OUT_VY);
	} else if (prev) {
		s->vx = (s->x - prev->x) / dt;
		s->vy = (s->y - prev->y) / dt;
	}
	if (HAS(OUT_VZ))
		s->vz = V(OUT_VZ);
	else if (prev)
		s->vz = (s->z - prev->z) / dt;
	if (HAS(OUT_WX) || HAS(OUT_WY)) {
		/* A vector like the velocity: turned by Rz(yaw0) out of the
		 * start frame (the start frame is the world turned about Z
		 * only, so wz stays); the component the FMU lacks is 0 in its
		 * frame. */
		double wx = HAS(OUT_WX) ? V(OUT_WX) : 0.0;
		double wy = HAS(OUT_WY) ? V(OUT_WY) : 0.0;
		s->wx = c * wx - sn * wy;
		s->wy = sn * wx + c * wy;
	}
	if (HAS(OUT_WZ))
		s->wz = V(OUT_WZ);
	else if (prev)
		s->wz = vs_wrap_angle(s->yaw - prev->yaw) / dt;
	/* Forward is (-sin yaw, cos yaw): yaw 0 faces +Y. */
	s->speed = HAS(OUT_SPEED) ? V(OUT_SPEED)
	                          : -sin(s->yaw) * s->vx + cos(s->yaw) * s->vy;
	s->steer = HAS(OUT_STEER) ? V(OUT_STEER)
	                          : steering_wheel / in->steering_ratio;
#undef HAS
#undef V
}

vs_status vs_fmu_reset(void *instance, vs_state *s)
{
	fmu_inst *in = instance;
	double v[N_ROLES];
	if (others_fatal(in, 0))
		return VS_ERROR;
	vs_status st = check(in, read_outputs(in, v), "reading outputs", 0);
	if (st >= VS_DISCARD)
		return st;
	/* Step 0: the pose from the FMU, the velocities the host's (the
	 * start speed along the heading): an FMU's velocity outputs need
	 * not mean anything before its first step. */
	for (int r = OUT_VX; r <= OUT_STEER; r++)
		v[r - OUT_X] = NAN;
	vs_state host = *s;
	place(in, v, NULL, 1.0, 0.0, s);
	s->vx = host.vx;
	s->vy = host.vy;
	s->vz = host.vz;
	s->wx = s->wy = s->wz = 0.0;
	s->speed = host.speed;
	s->steer = 0.0;
	return st;
}

/* The FMI 3 doStep's flags, which vsweep does not let the FMU use (it
 * asks for no early return and no event mode): a step that ended before
 * t, or terminateSimulation, fails the variant. Returns VS_OK, or
 * VS_ERROR after saying why. */
static vs_status step_flags(fmu_inst *in, double t, double dt, bool term,
                            bool early, double reached)
{
	const vs_fmu *f = in->f;
	char msg[900];
	long long k = llround(t / dt);
	/* lastSuccessfulTime is currentCommunicationPoint + step when the
	 * step is whole; an FMU that keeps its own clock may round it
	 * (1e-6 of a step is far below any meaningful early return). */
	double end = (t - dt) + dt;
	if (early || !(fabs(reached - end) <= 1e-6 * dt)) {
		in->broken = 1;
		snprintf(msg, sizeof msg, "%s: fmi3DoStep at step %lld (t = %g s) "
		         "returned early (earlyReturn %s, lastSuccessfulTime "
		         "%.17g s instead of %.17g s) although vsweep "
		         "instantiated it with earlyReturnAllowed = false: an "
		         "error of the FMU", f->path, k, t, early ? "true" : "false",
		         reached, end);
		host_say(in, VS_LOG_ERROR, msg);
		return VS_ERROR;
	}
	if (term) {
		/* Not an error status: the instance is terminated and freed
		 * as usual (vs_fmu_destroy). */
		snprintf(msg, sizeof msg, "%s: the FMU asked to terminate the "
		         "simulation (fmi3DoStep's terminateSimulation) at step "
		         "%lld (t = %g s); the variant ends there, failed, its "
		         "rows up to the step before", f->path, k, t);
		host_say(in, VS_LOG_ERROR, msg);
		return VS_ERROR;
	}
	return VS_OK;
}

vs_status vs_fmu_step(void *instance, double t, double dt,
                      const vs_control *control, vs_state *s)
{
	fmu_inst *in = instance;
	const vs_fmu *f = in->f;
	if (others_fatal(in, t))
		return VS_ERROR;
	/* An FMU with an accel input gets the behaviour's accel; 0 when
	 * the behaviour gives none (NaN is no value to hand an FMU), and
	 * then the speed input is what to follow. */
	static const int inputs[] = {IN_SPEED, IN_STEERING_WHEEL, IN_ACCEL};
	const double u[] = {control->speed, control->steering_wheel,
	                    isfinite(control->accel) ? control->accel : 0.0};
	vs_status st = set_roles(in, inputs, u, 3, "setting inputs", t);
	if (st >= VS_DISCARD)
		return st;
	long before = messages(in, NULL, NULL);
	int ds;
	bool term = false, early = false;
	double reached = t - dt + dt;
	if (f->md.fmi == 2) {
		ds = (int)f->f2.do_step(in->c, t - dt, dt, 1);
	} else {
		/* eventHandlingNeeded: with eventModeUsed = false the FMU
		 * handles its events inside the step; the flag asks nothing
		 * of vsweep. */
		bool event = false;
		ds = (int)f->f3.do_step(in->c, t - dt, dt, true, &event, &term,
		                        &early, &reached);
	}
	const char *call = f->md.fmi == 2 ? "fmi2DoStep" : "fmi3DoStep";
	vs_status st2 = check(in, ds, call, t);
	if (st2 == VS_WARNING && messages(in, NULL, NULL) == before) {
		/* A Warning is logged even when the FMU said nothing. */
		char msg[96];
		snprintf(msg, sizeof msg, "%s returned Warning at t = %g s", call,
		         t);
		host_say(in, VS_LOG_WARNING, msg);
	}
	if (st2 >= VS_DISCARD)
		return st2;
	if (f->md.fmi == 3 && step_flags(in, t, dt, term, early, reached))
		return VS_ERROR;
	double v[N_ROLES];
	vs_state prev = *s;
	vs_status st3 = check(in, read_outputs(in, v), "reading outputs", t);
	if (st3 >= VS_DISCARD)
		return st3;
	place(in, v, &prev, dt, control->steering_wheel, s);
	return st > st2 ? (st > st3 ? st : st3) : (st2 > st3 ? st2 : st3);
}

void vs_fmu_destroy(void *instance)
{
	fmu_inst *in = instance;
	if (!in)
		return;
	const vs_fmu *f = in->f;
	/* After a Fatal of this FMU (this instance's or another's) nothing
	 * of it is called, not even fmi*FreeInstance: the instance leaks,
	 * and stays counted. */
	if (!in->fatal && atomic_load(&f->live->fatal))
		in->fatal = 1;
	if (in->c && !in->fatal) {
		if (f->md.fmi == 2) {
			if (!in->broken)
				f->f2.terminate(in->c);
			f->f2.free_instance(in->c);
		} else {
			if (!in->broken)
				f->f3.terminate(in->c);
			f->f3.free_instance(in->c);
		}
	}
	if (in->c && in->fatal)
		abandon(in->c);
	if (in->counted && !(in->c && in->fatal))
		atomic_fetch_sub(&f->live->instances, 1);
	pthread_mutex_destroy(&in->mu);
	free(in->sc.d);
	free(in->sc.s);
	free(in);
}
