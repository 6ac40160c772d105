/* A test FMU: the linear single-track model of plugins/bicycle_linear.c
 * (the same equations and integration, plugins/linear_track.h) as an FMI
 * 2.0 or FMI 3.0 co-simulation FMU, so that vsweep's FMU adapter can be
 * checked against the native plugin to rounding.
 *
 * Built several ways (tests/fmu/meson.build):
 *   -DFMI_MAJOR=2 or 3   the interface;
 *   -DWITH_START         parameters x0, y0, yaw0: it works in the world
 *                        frame; without, it starts at the origin facing
 *                        +Y and vsweep places it by the start pose;
 *   -DWITH_FAIL          parameters fail_time and warn_time (s): the step
 *                        that reaches fail_time logs an error and returns
 *                        Error, the one that reaches warn_time (once)
 *                        logs a warning and returns Warning;
 *   -DONCE               refuses a second live instance in the process
 *                        (canBeInstantiatedOnlyOncePerProcess);
 *   -DWITH_ACCEL         an input accel (m/s^2), echoed each step as the
 *                        output accel_seen, so a test sees what the host
 *                        passed;
 *   -DFAIL_SEGV, -DFAIL_EXIT  (with WITH_FAIL) the step that reaches
 *                        fail_time dereferences NULL or calls exit(0)
 *                        instead, as a careless FMU does (crash
 *                        containment, core/run/contain.c);
 *   -DWITH_RESOURCE      (FMI 2) instantiation reads resources/data.txt
 *                        through the resource URI it is given and fails
 *                        without it, as an FMU with a table does.
 * The variables and value references are those make_fmu.py writes into
 * modelDescription.xml. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu/fmi_decls.h"
#include "linear_track.h"

#ifndef FMI_MAJOR
#error "build with -DFMI_MAJOR=2 or 3"
#endif

#define TOKEN "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
#define EXPORT __attribute__((visibility("default")))

/* Value references: the index into the instance's values. */
enum {
	VR_SPEED, VR_STEERING_WHEEL,                      /* inputs */
	VR_X, VR_Y, VR_YAW, VR_VX, VR_VY, VR_WZ, VR_STEER, /* state */
	VR_OUT,                        /* LT_N_OUT outputs: beta ... Fyr */
	VR_M = VR_OUT + LT_N_OUT, VR_IZ, VR_LF, VR_KF, VR_KR, VR_RATIO,
	VR_MAX_STEER_DEG, VR_L, VR_CG_Y, VR_X0, VR_Y0, VR_YAW0, VR_FAIL_TIME,
	VR_WARN_TIME, VR_ACCEL, VR_ACCEL_SEEN, N_VR
};

static int exists(unsigned vr)
{
#ifndef WITH_START
	if (vr == VR_X0 || vr == VR_Y0 || vr == VR_YAW0)
		return 0;
#endif
#ifndef WITH_FAIL
	if (vr == VR_FAIL_TIME || vr == VR_WARN_TIME)
		return 0;
#endif
#ifndef WITH_ACCEL
	if (vr == VR_ACCEL || vr == VR_ACCEL_SEEN)
		return 0;
#endif
	return vr < N_VR;
}

typedef struct inst {
	double v[N_VR];
	lt_model lt;
	vs_state s;
	char name[64];
	void *env;
#if FMI_MAJOR == 2
	const fmi2_callbacks *cb;
#else
	fmi3_log_fn *log;
#endif
} inst;

static int live; /* instances alive, for -DONCE */

static void say(inst *in, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(inst *in, int status, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
#if FMI_MAJOR == 2
	/* FMI 2's logger takes a format: pass the text through "%s". */
	in->cb->logger(in->env, in->name, (fmi2_status)status, "single_track",
	               "%s", buf);
#else
	in->log(in->env, (fmi3_status)status, "single_track", buf);
#endif
}

static void *make(const char *name, const char *token, void *env)
{
	if (strcmp(token, TOKEN))
		return NULL;
#ifdef ONCE
	if (live > 0)
		return NULL;
#endif
	inst *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	live++;
	snprintf(in->name, sizeof in->name, "%s", name);
	in->env = env;
	static const double defaults[] = {
		[VR_M] = 2000, [VR_IZ] = 3000, [VR_LF] = 1.4, [VR_KF] = 30e3,
		[VR_KR] = 30e3, [VR_RATIO] = 15, [VR_MAX_STEER_DEG] = 45,
		[VR_L] = 3.0, [VR_CG_Y] = 0.1, [VR_FAIL_TIME] = -1,
		[VR_WARN_TIME] = -1};
	memcpy(in->v, defaults, sizeof defaults);
	return in;
}

/* Leaves initialisation: the model from the parameters, the state at the
 * start pose (the origin without WITH_START). */
static void start(inst *in)
{
	lt_model *m = &in->lt;
	const double *v = in->v;
	memset(m, 0, sizeof *m);
	m->m = v[VR_M];
	m->iz = v[VR_IZ];
	m->l = v[VR_L];
	m->lf = v[VR_LF];
	m->lr = m->l - m->lf;
	m->kf = v[VR_KF];
	m->kr = v[VR_KR];
	m->cg_y = v[VR_CG_Y];
	m->A = -m->m / (2.0 * m->l * m->l) * (m->lf * m->kf - m->lr * m->kr) /
	       (m->kf * m->kr);
	m->v = v[VR_SPEED];
	memset(&in->s, 0, sizeof in->s);
	in->s.x = v[VR_X0];
	in->s.y = v[VR_Y0];
	in->s.yaw = vc_wrap_angle(v[VR_YAW0]);
	in->v[VR_X] = in->s.x;
	in->v[VR_Y] = in->s.y;
	in->v[VR_YAW] = in->s.yaw;
	lt_outputs(m, in->v + VR_OUT);
}

#if defined(FAIL_SEGV)
/* Volatile: the compiler keeps a fault it could prove. */
static int *volatile null_ptr;
#endif

/* One step from t to t + h; 0 OK, 3 Error (logged). */
static int step(inst *in, double t, double h)
{
	double *v = in->v;
	if (exists(VR_FAIL_TIME) && v[VR_FAIL_TIME] >= 0 &&
	    t + h >= v[VR_FAIL_TIME] - 1e-9) {
#if defined(FAIL_SEGV)
		*null_ptr = 1;
#elif defined(FAIL_EXIT)
		exit(0);
#endif
		say(in, 3, "simulated failure at t = %g s (fail_time)", t + h);
		return 3;
	}
	const double delta = vc_road_wheel(v[VR_STEERING_WHEEL], v[VR_RATIO],
	                                   v[VR_MAX_STEER_DEG] * DEG);
	if (lt_step(&in->lt, v[VR_SPEED], delta, h, &in->s)) {
		say(in, 3, "speed %g m/s is at or above the critical speed",
		    v[VR_SPEED]);
		return 3;
	}
	v[VR_X] = in->s.x;
	v[VR_Y] = in->s.y;
	v[VR_YAW] = in->s.yaw;
	v[VR_VX] = in->s.vx;
	v[VR_VY] = in->s.vy;
	v[VR_WZ] = in->s.wz;
	v[VR_STEER] = in->s.steer;
	lt_outputs(&in->lt, v + VR_OUT);
	/* the accel input, echoed: what the host passed this step */
	v[VR_ACCEL_SEEN] = v[VR_ACCEL];
	if (exists(VR_WARN_TIME) && v[VR_WARN_TIME] >= 0 &&
	    fabs(t + h - v[VR_WARN_TIME]) < 0.5 * h) {
		say(in, 1, "simulated warning at t = %g s (warn_time)", t + h);
		return 1;
	}
	return 0;
}

static int set(inst *in, const unsigned *vr, size_t n, const double *x)
{
	for (size_t i = 0; i < n; i++) {
		if (!exists(vr[i])) {
			say(in, 3, "no variable with value reference %u", vr[i]);
			return 3;
		}
		in->v[vr[i]] = x[i];
	}
	return 0;
}

static int get(inst *in, const unsigned *vr, size_t n, double *x)
{
	for (size_t i = 0; i < n; i++) {
		if (!exists(vr[i])) {
			say(in, 3, "no variable with value reference %u", vr[i]);
			return 3;
		}
		x[i] = in->v[vr[i]];
	}
	return 0;
}

static void drop(inst *in)
{
	if (in)
		live--;
	free(in);
}

#if FMI_MAJOR == 2

EXPORT fmi2_instantiate_fn fmi2Instantiate;
EXPORT fmi2_free_instance_fn fmi2FreeInstance;

#ifdef WITH_RESOURCE
/* Whether resources/data.txt, under the file:// URI of the resources
 * directory (%XX escapes decoded), can be read. */
static int resource_readable(const char *uri)
{
	if (!uri || strncmp(uri, "file://", 7) != 0)
		return 0;
	char path[4096];
	size_t n = 0;
	for (const char *s = uri + 7; *s && n + 1 < sizeof path; s++) {
		if (s[0] == '%' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};
			path[n++] = (char)strtol(hex, NULL, 16);
			s += 2;
		} else {
			path[n++] = *s;
		}
	}
	path[n] = 0;
	char file[4200];
	snprintf(file, sizeof file, "%s%sdata.txt", path,
	         n && path[n - 1] == '/' ? "" : "/");
	FILE *f = fopen(file, "r");
	char line[64] = "";
	int ok = f && fgets(line, sizeof line, f) != NULL;
	if (f)
		fclose(f);
	return ok;
}
#endif
EXPORT fmi2_setup_experiment_fn fmi2SetupExperiment;
EXPORT fmi2_mode_fn fmi2EnterInitializationMode, fmi2ExitInitializationMode,
	fmi2Terminate;
EXPORT fmi2_set_real_fn fmi2SetReal;
EXPORT fmi2_get_real_fn fmi2GetReal;
EXPORT fmi2_do_step_fn fmi2DoStep;

void *fmi2Instantiate(const char *name, fmi2_type type, const char *guid,
                      const char *resources, const fmi2_callbacks *cb,
                      fmi2_bool visible, fmi2_bool logging_on)
{
	if (type != FMI2_CO_SIMULATION || !cb || !cb->logger)
		return NULL;
#ifdef WITH_RESOURCE
	if (!resource_readable(resources))
		return NULL;
#endif
	inst *in = make(name, guid, cb->env);
	if (in)
		in->cb = cb;
	return in;
}

void fmi2FreeInstance(void *c)
{
	drop(c);
}

fmi2_status fmi2SetupExperiment(void *c, fmi2_bool tol_defined, double tol,
                                double t0, fmi2_bool stop_defined,
                                double stop)
{
	return FMI2_OK;
}

fmi2_status fmi2EnterInitializationMode(void *c)
{
	return FMI2_OK;
}

fmi2_status fmi2ExitInitializationMode(void *c)
{
	start(c);
	return FMI2_OK;
}

fmi2_status fmi2Terminate(void *c)
{
	return FMI2_OK;
}

fmi2_status fmi2SetReal(void *c, const fmi2_vr *vr, size_t n,
                        const double *v)
{
	return (fmi2_status)set(c, vr, n, v);
}

fmi2_status fmi2GetReal(void *c, const fmi2_vr *vr, size_t n, double *v)
{
	return (fmi2_status)get(c, vr, n, v);
}

fmi2_status fmi2DoStep(void *c, double t, double h, fmi2_bool no_prior)
{
	return (fmi2_status)step(c, t, h);
}

#else

EXPORT fmi3_instantiate_cs_fn fmi3InstantiateCoSimulation;
EXPORT fmi3_free_instance_fn fmi3FreeInstance;
EXPORT fmi3_enter_init_fn fmi3EnterInitializationMode;
EXPORT fmi3_mode_fn fmi3ExitInitializationMode, fmi3Terminate;
EXPORT fmi3_set_float64_fn fmi3SetFloat64;
EXPORT fmi3_get_float64_fn fmi3GetFloat64;
EXPORT fmi3_do_step_fn fmi3DoStep;

void *fmi3InstantiateCoSimulation(const char *name, const char *token,
                                  const char *resources, bool visible,
                                  bool logging_on, bool event_mode,
                                  bool early_return,
                                  const fmi3_vr *required, size_t n_required,
                                  void *env, fmi3_log_fn *log,
                                  fmi3_intermediate_update_fn *update)
{
	if (!log)
		return NULL;
	inst *in = make(name, token, env);
	if (in)
		in->log = log;
	return in;
}

void fmi3FreeInstance(void *c)
{
	drop(c);
}

fmi3_status fmi3EnterInitializationMode(void *c, bool tol_defined,
                                        double tol, double t0,
                                        bool stop_defined, double stop)
{
	return FMI3_OK;
}

fmi3_status fmi3ExitInitializationMode(void *c)
{
	start(c);
	return FMI3_OK;
}

fmi3_status fmi3Terminate(void *c)
{
	return FMI3_OK;
}

fmi3_status fmi3SetFloat64(void *c, const fmi3_vr *vr, size_t n,
                           const double *v, size_t nv)
{
	return nv == n ? (fmi3_status)set(c, vr, n, v) : FMI3_ERROR;
}

fmi3_status fmi3GetFloat64(void *c, const fmi3_vr *vr, size_t n, double *v,
                           size_t nv)
{
	return nv == n ? (fmi3_status)get(c, vr, n, v) : FMI3_ERROR;
}

fmi3_status fmi3DoStep(void *c, double t, double h, bool no_prior,
                       bool *event, bool *terminate, bool *early,
                       double *reached)
{
	*event = *terminate = *early = false;
	int st = step(c, t, h);
	*reached = st ? t : t + h;
	return (fmi3_status)st;
}

#endif
