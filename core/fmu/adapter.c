/* An FMU instance behind the vs_plugin functions (fmu_adapter.h): one FMI
 * instance per actor per variant, driven per DESIGN.md's contract.
 *
 * Each step sets the inputs speed and steering_wheel, calls
 * doStep(t - dt, dt) and reads x, y, yaw and whatever of the other state
 * fields the FMU has; the rest are derived from differences over the
 * step. An FMU with x0, y0, yaw0 works in the world frame; any other
 * works in the actor's start frame, which is placed into the world here:
 * world = p0 + Rz(yaw0) local, yaw = yaw0 + local yaw.
 *
 * Status: Warning is logged; Discard, Error and Fatal fail the variant
 * with the FMU's own last message (the FMU's logger routes its messages
 * to the host's log, errors becoming the variant's reason). After Error
 * only the instance is freed, after Fatal nothing more is called. */
#include "fmu/fmu_adapter.h"
#include "common/util.h"

#include <math.h>
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
	int fatal;             /* a Fatal status: call nothing more */
	int broken;            /* Error: free only */
	int logged_error;      /* the FMU logged an error message */
	long n_msgs;           /* messages the FMU logged */
	char last[512];        /* the FMU's last message */
} fmu_inst;

static void host_say(fmu_inst *in, vs_log_level level, const char *msg)
{
	if (in->host && in->host->log)
		in->host->log(in->host_ctx, level, "%s", msg);
}

/* Both FMI versions' messages: kept, and passed to the host's log at the
 * matching level. */
static void take_message(fmu_inst *in, int status, const char *category,
                         const char *msg)
{
	snprintf(in->last, sizeof in->last, "%s", msg ? msg : "");
	in->n_msgs++;
	vs_log_level level = status >= FMI2_ERROR ? VS_LOG_ERROR
	                     : status == FMI2_WARNING ? VS_LOG_WARNING
	                                              : VS_LOG_INFO;
	if (level == VS_LOG_ERROR)
		in->logged_error = 1;
	char line[600];
	snprintf(line, sizeof line, "%s%s%s", category && *category ? category
	                                                            : "",
	         category && *category ? ": " : "", in->last);
	host_say(in, level, line);
}

static void fmi2_logger(void *env, const char *instance_name,
                        fmi2_status status, const char *category,
                        const char *message, ...)
{
	(void)instance_name;
	char buf[512];
	va_list ap;
	va_start(ap, message);
	/* FMI 2's logger takes the FMU's printf format: it cannot be a
	 * literal here (clang's -Wformat-nonliteral says so). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	vsnprintf(buf, sizeof buf, message ? message : "", ap);
#pragma GCC diagnostic pop
	va_end(ap);
	take_message(env, (int)status, category, buf);
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

/* Maps an FMI status (same numbers in 2 and 3) to the plugin's; on
 * Discard or worse makes sure the variant's reason says what failed. */
static vs_status check(fmu_inst *in, int st, const char *call, double t)
{
	if (st == FMI2_OK)
		return VS_OK;
	if (st == FMI2_WARNING)
		return VS_WARNING;
	if (st == FMI2_FATAL)
		in->fatal = 1;
	in->broken = 1;
	if (!in->logged_error) {
		char msg[700];
		snprintf(msg, sizeof msg, "%s returned %s at t = %g s%s%s", call,
		         status_name(st), t, in->last[0] ? ": " : "", in->last);
		host_say(in, VS_LOG_ERROR, msg);
	}
	return st == FMI2_DISCARD ? VS_DISCARD
	       : st == FMI2_FATAL ? VS_FATAL
	                          : VS_ERROR;
}

/* FMI 2 value references are unsigned int, FMI 3's uint32_t: the same
 * 32-bit type on the platforms FMUs ship binaries for, so one array
 * serves both. */
_Static_assert(sizeof(fmi2_vr) == sizeof(uint32_t),
               "FMI 2 and 3 value references differ in size");

static int set_reals(fmu_inst *in, const uint32_t *vr, size_t n,
                     const double *v)
{
	const vs_fmu *f = in->f;
	if (n == 0)
		return FMI2_OK;
	return f->md.fmi == 2
	               ? (int)f->f2.set_real(in->c, (const fmi2_vr *)vr, n, v)
	               : (int)f->f3.set_float64(in->c, vr, n, v, n);
}

static int get_reals(fmu_inst *in, const uint32_t *vr, size_t n, double *v)
{
	const vs_fmu *f = in->f;
	if (n == 0)
		return FMI2_OK;
	return f->md.fmi == 2
	               ? (int)f->f2.get_real(in->c, (const fmi2_vr *)vr, n, v)
	               : (int)f->f3.get_float64(in->c, vr, n, v, n);
}

/* Sets one role's variable when the FMU has it. */
static int set_role(fmu_inst *in, int role, double v)
{
	const fmu_var *var = in->f->role[role];
	return var ? set_reals(in, &var->vr, 1, &v) : FMI2_OK;
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
	vs_status st = check(in, set_reals(in, f->param_vr, f->desc.n_params,
	                                   args->params),
	                     "setting parameters", 0);
	if (st >= VS_DISCARD)
		return st;
	if (f->world) {
		int w = set_role(in, START_X0, s0->x);
		int w2 = set_role(in, START_Y0, s0->y);
		int w3 = set_role(in, START_YAW0, s0->yaw);
		w = w > w2 ? w : w2;
		if ((st = check(in, w > w3 ? w : w3, "setting x0, y0, yaw0", 0)) >=
		    VS_DISCARD)
			return st;
	}
	int w = set_role(in, IN_SPEED, s0->speed);
	int w2 = set_role(in, IN_STEERING_WHEEL, 0.0);
	if ((st = check(in, w > w2 ? w : w2, "setting inputs", 0)) >=
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
	const vs_state *s0 = &args->actor->start;
	in->x0 = s0->x;
	in->y0 = s0->y;
	in->z0 = s0->z;
	in->yaw0 = s0->yaw;
	in->steering_ratio = args->actor->steering_ratio;
	char name[96];
	snprintf(name, sizeof name, "actor%lld", (long long)args->actor->id);
	in->c = instantiate(in, name);
	if (!in->c) {
		char msg[700];
		snprintf(msg, sizeof msg, "cannot instantiate FMU %s%s%s",
		         f->md.model_id, in->last[0] ? ": " : "", in->last);
		if (!in->logged_error)
			host_say(in, VS_LOG_ERROR, msg);
		free(in);
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
	uint32_t vr[N_ROLES];
	int idx[N_ROLES], n = 0;
	for (int r = OUT_X; r <= OUT_STEER; r++) {
		v[r - OUT_X] = NAN;
		if (f->role[r]) {
			vr[n] = f->role[r]->vr;
			idx[n++] = r - OUT_X;
		}
	}
	double got[N_ROLES];
	int st = get_reals(in, vr, (size_t)n, got);
	for (int i = 0; i < n; i++)
		v[idx[i]] = got[i];
	if (in->out && f->desc.n_outputs) {
		int st2 = get_reals(in, f->output_vr, f->desc.n_outputs,
		                    in->out);
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
	if (HAS(OUT_WX))
		s->wx = V(OUT_WX);
	if (HAS(OUT_WY))
		s->wy = V(OUT_WY);
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

vs_status vs_fmu_step(void *instance, double t, double dt,
                      const vs_control *control, vs_state *s)
{
	fmu_inst *in = instance;
	const vs_fmu *f = in->f;
	int w = set_role(in, IN_SPEED, control->speed);
	int w2 = set_role(in, IN_STEERING_WHEEL, control->steering_wheel);
	/* An FMU with an accel input gets the behaviour's accel; 0 when
	 * the behaviour gives none (NaN is no value to hand an FMU), and
	 * then the speed input is what to follow. */
	int w3 = set_role(in, IN_ACCEL,
	                  isfinite(control->accel) ? control->accel : 0.0);
	w = w > w2 ? w : w2;
	vs_status st = check(in, w > w3 ? w : w3, "setting inputs", t);
	if (st >= VS_DISCARD)
		return st;
	long before = in->n_msgs;
	int ds;
	if (f->md.fmi == 2) {
		ds = (int)f->f2.do_step(in->c, t - dt, dt, 1);
	} else {
		bool event = false, term = false, early = false;
		double reached = t;
		ds = (int)f->f3.do_step(in->c, t - dt, dt, true, &event, &term,
		                        &early, &reached);
	}
	const char *call = f->md.fmi == 2 ? "fmi2DoStep" : "fmi3DoStep";
	vs_status st2 = check(in, ds, call, t);
	if (st2 == VS_WARNING && in->n_msgs == before) {
		/* A Warning is logged even when the FMU said nothing. */
		char msg[96];
		snprintf(msg, sizeof msg, "%s returned Warning at t = %g s", call,
		         t);
		host_say(in, VS_LOG_WARNING, msg);
	}
	if (st2 >= VS_DISCARD)
		return st2;
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
	free(in);
}
