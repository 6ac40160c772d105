/* A test FMU in single precision, as FMI 3.0 models exported for embedded
 * targets are: a kinematic vehicle whose ports are Float32 and whose
 * arithmetic is float, except one Float64 output, so that a host must
 * get and set each with the function of its type. The test writes its
 * modelDescription.xml (tests/e2e/test_fmu_float32.py,
 * tests/unit/fmu/test_fmu.c):
 *
 *   vr 0 speed (m/s), 1 steering_wheel (rad)    Float32 inputs
 *   vr 2 x, 3 y (m), 4 yaw (rad), 5 vx, 6 vy    Float32 outputs
 *      (m/s), 7 speed_seen (m/s)
 *   vr 8 dist (m)                               Float64 output
 *   vr 10 x0, 11 y0 (m), 12 yaw0 (rad),         Float32 parameters
 *      13 ratio, 14 wheelbase (m)
 *   vr 15 ratio_seen                            Float32 output
 *
 * Each step of h from yaw, at the speed v it was given, turns at
 * w = v * steering_wheel / (ratio * wheelbase) along the arc (exact for a
 * constant w): x -= 2 v/w sin(w h/2) sin(yaw + w h/2), y += 2 v/w
 * sin(w h/2) cos(yaw + w h/2), yaw += w h (a straight line, x -= v h
 * sin yaw, y += v h cos yaw, when w is 0); vx, vy = v (-sin yaw, cos yaw);
 * speed_seen = v, the input as it arrived; ratio_seen = ratio, the
 * parameter as it was set; dist += v h in double.
 * It starts at (x0, y0) facing yaw0. A call with a value reference
 * that is not of the function's type is an Error, logged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu/fmi_decls.h"

#define TOKEN "{float32-7d2a}"
#define EXPORT __attribute__((visibility("default")))

enum {
	VR_SPEED, VR_SW, VR_X, VR_Y, VR_YAW, VR_VX, VR_VY, VR_SPEED_SEEN,
	VR_DIST, VR_X0 = 10, VR_Y0, VR_YAW0, VR_RATIO, VR_WHEELBASE,
	VR_RATIO_SEEN, N_VR
};

typedef struct inst {
	float v[N_VR]; /* every Float32, by value reference */
	double dist;   /* m, VR_DIST */
	void *env;
	fmi3_log_fn *log;
} inst;

static int is_float32(fmi3_vr vr)
{
	return vr < N_VR && vr != VR_DIST && vr != 9;
}

static fmi3_status wrong(inst *in, fmi3_vr vr, const char *type)
{
	char msg[96];
	snprintf(msg, sizeof msg, "value reference %u is not a %s",
	         (unsigned)vr, type);
	in->log(in->env, FMI3_ERROR, "float32", msg);
	return FMI3_ERROR;
}

EXPORT fmi3_instantiate_cs_fn fmi3InstantiateCoSimulation;
EXPORT fmi3_free_instance_fn fmi3FreeInstance;
EXPORT fmi3_enter_init_fn fmi3EnterInitializationMode;
EXPORT fmi3_mode_fn fmi3ExitInitializationMode, fmi3Terminate;
EXPORT fmi3_set_float64_fn fmi3SetFloat64;
EXPORT fmi3_get_float64_fn fmi3GetFloat64;
EXPORT fmi3_set_float32_fn fmi3SetFloat32;
EXPORT fmi3_get_float32_fn fmi3GetFloat32;
EXPORT fmi3_do_step_fn fmi3DoStep;

void *fmi3InstantiateCoSimulation(const char *name, const char *token,
                                  const char *resources, bool visible,
                                  bool logging_on, bool event_mode,
                                  bool early_return,
                                  const fmi3_vr *required, size_t n_required,
                                  void *env, fmi3_log_fn *log,
                                  fmi3_intermediate_update_fn *update)
{
	if (!log || strcmp(token, TOKEN))
		return NULL;
	inst *in = calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->env = env;
	in->log = log;
	in->v[VR_RATIO] = 15.0f;
	in->v[VR_WHEELBASE] = 3.0f;
	return in;
}

void fmi3FreeInstance(void *c)
{
	free(c);
}

fmi3_status fmi3EnterInitializationMode(void *c, bool tol_defined,
                                        double tol, double t0,
                                        bool stop_defined, double stop)
{
	return FMI3_OK;
}

fmi3_status fmi3ExitInitializationMode(void *c)
{
	inst *in = c;
	in->v[VR_X] = in->v[VR_X0];
	in->v[VR_Y] = in->v[VR_Y0];
	in->v[VR_YAW] = in->v[VR_YAW0];
	return FMI3_OK;
}

fmi3_status fmi3Terminate(void *c)
{
	return FMI3_OK;
}

fmi3_status fmi3SetFloat32(void *c, const fmi3_vr *vr, size_t n,
                           const float *x, size_t nx)
{
	for (size_t i = 0; i < n && nx == n; i++) {
		if (!is_float32(vr[i]))
			return wrong(c, vr[i], "Float32");
		((inst *)c)->v[vr[i]] = x[i];
	}
	return nx == n ? FMI3_OK : FMI3_ERROR;
}

fmi3_status fmi3GetFloat32(void *c, const fmi3_vr *vr, size_t n, float *x,
                           size_t nx)
{
	for (size_t i = 0; i < n && nx == n; i++) {
		if (!is_float32(vr[i]))
			return wrong(c, vr[i], "Float32");
		x[i] = ((inst *)c)->v[vr[i]];
	}
	return nx == n ? FMI3_OK : FMI3_ERROR;
}

fmi3_status fmi3SetFloat64(void *c, const fmi3_vr *vr, size_t n,
                           const double *x, size_t nx)
{
	/* dist is an output: nothing of this FMU is set as a Float64 */
	return n ? wrong(c, vr[0], "Float64 that can be set") : FMI3_OK;
}

fmi3_status fmi3GetFloat64(void *c, const fmi3_vr *vr, size_t n, double *x,
                           size_t nx)
{
	for (size_t i = 0; i < n && nx == n; i++) {
		if (vr[i] != VR_DIST)
			return wrong(c, vr[i], "Float64");
		x[i] = ((inst *)c)->dist;
	}
	return nx == n ? FMI3_OK : FMI3_ERROR;
}

fmi3_status fmi3DoStep(void *c, double t, double h, bool no_prior,
                       bool *event, bool *terminate, bool *early,
                       double *reached)
{
	inst *in = c;
	float *v = in->v;
	const float sp = v[VR_SPEED], hf = (float)h, yaw = v[VR_YAW];
	const float w = sp * v[VR_SW] / (v[VR_RATIO] * v[VR_WHEELBASE]);
	if (w == 0.0f) {
		v[VR_X] -= sp * hf * sinf(yaw);
		v[VR_Y] += sp * hf * cosf(yaw);
	} else {
		const float chord = 2.0f * sp / w * sinf(0.5f * w * hf);
		const float mid = yaw + 0.5f * w * hf;
		v[VR_X] -= chord * sinf(mid);
		v[VR_Y] += chord * cosf(mid);
		v[VR_YAW] = yaw + w * hf;
	}
	v[VR_VX] = -sp * sinf(v[VR_YAW]);
	v[VR_VY] = sp * cosf(v[VR_YAW]);
	v[VR_SPEED_SEEN] = sp;
	v[VR_RATIO_SEEN] = v[VR_RATIO];
	in->dist += (double)sp * h;
	*event = *terminate = *early = false;
	*reached = t + h;
	return FMI3_OK;
}
