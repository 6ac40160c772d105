/* A test FMU for what the host must do around the model rather than the
 * model itself: a straight-line kinematic vehicle (y += speed * h, x 0,
 * yaw, wx and wy set by parameters, vx 0, vy = speed), FMI 2.0 or 3.0
 * (-DFMI_MAJOR), whose modelDescription.xml the test writes
 * (tests/e2e/test_fmu_calls.py), declaring what it wants of:
 *
 *   vr 0 speed, 1 steering_wheel          inputs
 *   vr 2 x, 3 y, 4 yaw, 5 wx, 6 wy,       outputs (in whatever units
 *      7 vx, 8 vy                          the description declares)
 *   vr 10 mode, 11 when (s), 12 yaw_out,  parameters
 *      13 wx_out, 14 wy_out, 15 n_log
 *
 * mode: 0 plain; 1 the step reaching `when` returns Fatal; 2 (FMI 3) it
 * sets terminateSimulation; 3 (FMI 3) it returns early (earlyReturn,
 * lastSuccessfulTime half way); 4 every step logs n_log warnings from a
 * second thread and n_log from the calling one, the two in lockstep; 5
 * the step reaching `when` logs one warning of n_log bytes, the digits
 * 0123456789 over and over (FMI 2 through the logger's format, "%s").
 *
 * At instantiation the resource location is read as the standard says
 * (FMI 2: a file: URI, percent-decoded, host empty or localhost, cut at
 * '?' or '#'; FMI 3: an absolute path ending in '/') and
 * resources/data.txt must be there: otherwise instantiation fails
 * saying what it got.
 *
 * After a Fatal, every further call into this binary in the process
 * appends a line to $PROBE_TRACE: a host must make none. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmu/fmi_decls.h"

#ifndef FMI_MAJOR
#error "build with -DFMI_MAJOR=2 or 3"
#endif

#define TOKEN "{probe-5e1f}"
#define EXPORT __attribute__((visibility("default")))

enum {
	VR_SPEED, VR_SW, VR_X, VR_Y, VR_YAW, VR_WX, VR_WY, VR_VX, VR_VY,
	VR_MODE = 10, VR_WHEN, VR_YAW_OUT, VR_WX_OUT, VR_WY_OUT, VR_N_LOG,
	N_VR
};

typedef struct inst {
	double v[N_VR];
	char name[64];
	void *env;
#if FMI_MAJOR == 2
	const fmi2_callbacks *cb;
#else
	fmi3_log_fn *log;
#endif
	pthread_barrier_t lockstep; /* mode 4 */
} inst;

static int fatal_seen; /* this binary returned Fatal in this process */

/* A call after a Fatal: recorded for the test to find. */
static void after_fatal(const char *call)
{
	const char *p = getenv("PROBE_TRACE");
	if (!fatal_seen || !p)
		return;
	char line[128];
	int n = snprintf(line, sizeof line, "%d %s after Fatal\n",
	                 (int)getpid(), call);
	int fd = open(p, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			n = 0;
		close(fd);
	}
}

static void say(inst *in, int status, const char *msg)
{
#if FMI_MAJOR == 2
	in->cb->logger(in->env, in->name, (fmi2_status)status, "probe", "%s",
	               msg);
#else
	in->log(in->env, (fmi3_status)status, "probe", msg);
#endif
}

#if FMI_MAJOR == 2
static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}
#endif

/* The directory the resource location names, or "" when it is not one
 * the standard allows. */
static void resource_dir(const char *loc, char *dir, size_t cap)
{
	dir[0] = 0;
	if (!loc)
		return;
#if FMI_MAJOR == 2
	/* RFC 3986/8089: file:///path or file://localhost/path */
	if (strncmp(loc, "file:", 5))
		return;
	const char *p = loc + 5;
	if (!strncmp(p, "//", 2)) {
		p += 2;
		const char *slash = strchr(p, '/');
		if (!slash || !(slash == p || (slash - p == 9 &&
		                               !strncmp(p, "localhost", 9))))
			return;
		p = slash;
	}
	size_t n = 0;
	for (; *p && *p != '?' && *p != '#' && n + 1 < cap; p++) {
		if (*p == '%') {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
			if (lo < 0) {
				dir[0] = 0;
				return;
			}
			dir[n++] = (char)(hi * 16 + lo);
			p += 2;
		} else {
			dir[n++] = *p;
		}
	}
	dir[n] = 0;
#else
	size_t n = strlen(loc);
	if (loc[0] != '/' || !n || loc[n - 1] != '/' || n >= cap)
		return;
	memcpy(dir, loc, n + 1);
#endif
}

static void *make(const char *name, const char *token, void *env,
                  inst **out)
{
	after_fatal("instantiate");
	*out = NULL;
	if (strcmp(token, TOKEN))
		return NULL;
	inst *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	snprintf(in->name, sizeof in->name, "%s", name);
	in->env = env;
	in->v[VR_WHEN] = 1e9;
	in->v[VR_WX_OUT] = 0;
	pthread_barrier_init(&in->lockstep, NULL, 2);
	*out = in;
	return in;
}

/* After the logger is known: the resource check, which logs. */
static inst *check_resources(inst *in, const char *res)
{
	char dir[4096], file[4200];
	struct stat st;
	resource_dir(res, dir, sizeof dir);
	snprintf(file, sizeof file, "%s%sdata.txt", dir,
	         dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "");
	if (dir[0] && stat(file, &st) == 0)
		return in;
	char msg[4400];
	snprintf(msg, sizeof msg, "resource location \"%s\" does not name "
	         "the resources directory (read as \"%s\")", res ? res : "",
	         dir);
	say(in, 3, msg);
	pthread_barrier_destroy(&in->lockstep);
	free(in);
	return NULL;
}

typedef struct talk {
	inst *in;
	const char *text;
} talk;

static void *chatter(void *p)
{
	talk *t = p;
	for (int i = 0; i < (int)t->in->v[VR_N_LOG]; i++) {
		pthread_barrier_wait(&t->in->lockstep);
		say(t->in, 1, t->text);
	}
	return NULL;
}

/* One step from t to t + h: 0 OK, 4 Fatal; *term and *early (FMI 3). */
static int step(inst *in, double t, double h, int *term, int *early)
{
	after_fatal("doStep");
	double *v = in->v;
	int at = t + h >= v[VR_WHEN] - 1e-9;
	int mode = (int)v[VR_MODE];
	if (at && mode == 1) {
		say(in, 4, "probe: fatal failure");
		fatal_seen = 1;
		return 4;
	}
	if (mode == 4) {
		pthread_t th;
		talk other = {in, "from the second thread"};
		talk mine = {in, "from the calling thread"};
		if (pthread_create(&th, NULL, chatter, &other) == 0) {
			chatter(&mine);
			pthread_join(th, NULL);
		}
	}
	if (at && mode == 5 && v[VR_N_LOG] >= 0) {
		size_t n = (size_t)v[VR_N_LOG];
		char *long_msg = malloc(n + 1);
		if (long_msg) {
			for (size_t i = 0; i < n; i++)
				long_msg[i] = (char)('0' + i % 10);
			long_msg[n] = 0;
			say(in, 1, long_msg);
			free(long_msg);
		}
		v[VR_WHEN] = 1e300; /* once */
	}
	v[VR_Y] += v[VR_SPEED] * h;
	v[VR_X] = 0;
	v[VR_YAW] = v[VR_YAW_OUT];
	v[VR_WX] = v[VR_WX_OUT];
	v[VR_WY] = v[VR_WY_OUT];
	v[VR_VX] = 0;
	v[VR_VY] = v[VR_SPEED];
	*term = at && mode == 2;
	*early = at && mode == 3;
	return 0;
}

static int set(inst *in, const unsigned *vr, size_t n, const double *x)
{
	after_fatal("set");
	for (size_t i = 0; i < n; i++) {
		if (vr[i] >= N_VR)
			return 3;
		in->v[vr[i]] = x[i];
	}
	return 0;
}

static int get(inst *in, const unsigned *vr, size_t n, double *x)
{
	after_fatal("get");
	for (size_t i = 0; i < n; i++) {
		if (vr[i] >= N_VR)
			return 3;
		x[i] = in->v[vr[i]];
	}
	return 0;
}

static void drop(inst *in)
{
	after_fatal("freeInstance");
	if (!in)
		return;
	pthread_barrier_destroy(&in->lockstep);
	free(in);
}

#if FMI_MAJOR == 2

EXPORT fmi2_instantiate_fn fmi2Instantiate;
EXPORT fmi2_free_instance_fn fmi2FreeInstance;
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
	inst *in;
	if (type != FMI2_CO_SIMULATION || !cb || !cb->logger ||
	    !make(name, guid, cb->env, &in))
		return NULL;
	in->cb = cb;
	return check_resources(in, resources);
}

void fmi2FreeInstance(void *c)
{
	drop(c);
}

fmi2_status fmi2SetupExperiment(void *c, fmi2_bool tol_defined, double tol,
                                double t0, fmi2_bool stop_defined,
                                double stop)
{
	after_fatal("setupExperiment");
	return FMI2_OK;
}

fmi2_status fmi2EnterInitializationMode(void *c)
{
	after_fatal("enterInitializationMode");
	return FMI2_OK;
}

fmi2_status fmi2ExitInitializationMode(void *c)
{
	after_fatal("exitInitializationMode");
	return FMI2_OK;
}

fmi2_status fmi2Terminate(void *c)
{
	after_fatal("terminate");
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
	int term, early;
	return (fmi2_status)step(c, t, h, &term, &early);
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
	inst *in;
	if (!log || !make(name, token, env, &in))
		return NULL;
	in->log = log;
	return check_resources(in, resources);
}

void fmi3FreeInstance(void *c)
{
	drop(c);
}

fmi3_status fmi3EnterInitializationMode(void *c, bool tol_defined,
                                        double tol, double t0,
                                        bool stop_defined, double stop)
{
	after_fatal("enterInitializationMode");
	return FMI3_OK;
}

fmi3_status fmi3ExitInitializationMode(void *c)
{
	after_fatal("exitInitializationMode");
	return FMI3_OK;
}

fmi3_status fmi3Terminate(void *c)
{
	after_fatal("terminate");
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
	int term = 0, ret = 0;
	int st = step(c, t, h, &term, &ret);
	*event = false;
	*terminate = term;
	*early = ret;
	*reached = ret ? t + h / 2 : t + h;
	return (fmi3_status)st;
}

#endif
