/* The loaded FMU (fmu.c) as the adapter's instances (adapter.c) see it. */
#ifndef VS_FMU_ADAPTER_H
#define VS_FMU_ADAPTER_H

#include <stdatomic.h>

#include "fmu/fmi_decls.h"
#include "fmu/fmu.h"
#include "fmu/fmu_internal.h"

/* vsweep's names for what an FMU vehicle model exchanges. */
enum {
	IN_SPEED, IN_STEERING_WHEEL, IN_ACCEL,
	OUT_X, OUT_Y, OUT_YAW, OUT_Z, OUT_ROLL, OUT_PITCH,
	OUT_VX, OUT_VY, OUT_VZ, OUT_WX, OUT_WY, OUT_WZ, OUT_SPEED, OUT_STEER,
	START_X0, START_Y0, START_YAW0,
	N_ROLES
};
extern const char *const vs_fmu_role_names[N_ROLES];

/* Variables got or set together (exchange.c): FMI 3.0 has a function
 * per type, so the Float64s (every Real of an FMI 2.0 FMU) go in one
 * call and the Float32s in another. */
typedef struct fmu_batch {
	size_t n, n64;           /* variables; the first n64 are Float64 */
	uint32_t *vr;            /* value references, the Float64s' first */
	size_t *at;              /* each one's index in the caller's values */
	const fmu_var **var;     /* each one, for messages */
} fmu_batch;

/* An instance's room for one batch's values on the FMU's side. */
typedef struct fmu_scratch {
	double *d;
	float *s;
} fmu_scratch;

/* What the instances of one FMU share in a process, changed while they
 * run (the vs_fmu itself is read-only once open). */
typedef struct vs_fmu_live {
	atomic_int fatal;        /* an instance returned Fatal: call nothing */
	atomic_int instances;    /* alive, for canBeInstantiatedOnlyOnce... */
} vs_fmu_live;

struct vs_fmu {
	vs_plugin desc;          /* first: create() finds the FMU from it */
	char *path;              /* the .fmu, as given */
	char *dir;               /* unpacked, removed at close */
	char *resource_uri;      /* FMI 2: file:/// URI of resources, the
	                            absolute path percent-encoded */
	char *resource_path;     /* FMI 3: absolute path of resources/,
	                            ending '/' */
	fmu_md md;
	void *so;                /* dlopen handle of the binary */
	int world;               /* x0, y0, yaw0 all present */
	const fmu_var *role[N_ROLES]; /* NULL: the FMU lacks it */
	/* The role's value in SI units from the FMU's: factor * v + offset
	 * (its unit's BaseUnit; 1 and 0 without a unit). */
	double unit_factor[N_ROLES], unit_offset[N_ROLES];
	vs_fmu_live *live;       /* owned */
	vs_param *params;        /* desc.params */
	fmu_batch param_batch;   /* their variables, at: index in params */
	vs_output *outputs;      /* desc.outputs */
	fmu_batch output_batch;  /* their variables, at: index in outputs */
	fmu_batch state_batch;   /* the roles OUT_X .. OUT_STEER it has,
	                            at: role - OUT_X */
	size_t max_batch;        /* the largest batch's n */
	char version[96], doc[256];
	/* The binary's functions; those of the other FMI version NULL. */
	struct {
		fmi2_instantiate_fn *instantiate;
		fmi2_free_instance_fn *free_instance;
		fmi2_setup_experiment_fn *setup;
		fmi2_mode_fn *enter_init, *exit_init, *terminate;
		fmi2_set_real_fn *set_real;
		fmi2_get_real_fn *get_real;
		fmi2_do_step_fn *do_step;
	} f2;
	struct {
		fmi3_instantiate_cs_fn *instantiate;
		fmi3_free_instance_fn *free_instance;
		fmi3_enter_init_fn *enter_init;
		fmi3_mode_fn *exit_init, *terminate;
		fmi3_set_float64_fn *set_float64;
		fmi3_get_float64_fn *get_float64;
		/* only looked up when a variable vsweep exchanges is a
		 * Float32 */
		fmi3_set_float32_fn *set_float32;
		fmi3_get_float32_fn *get_float32;
		fmi3_do_step_fn *do_step;
	} f3;
};

/* exchange.c. A batch of the n variables vars, whose values are at
 * at[i] in the caller's arrays (at NULL: i). */
void vs_fmu_batch_make(fmu_batch *b, const fmu_var *const *vars,
                       const size_t *at, size_t n);
void vs_fmu_batch_free(fmu_batch *b);
/* Whether x, rounded to the nearest float, is a float it means: not a
 * finite x whose nearest float is infinite. */
int vs_fmu_f32_holds(double x);
/* The largest double whose nearest float is at most f, and the least
 * whose nearest float is at least f (f finite): a Float32 param whose
 * range is [lo, hi] as floats takes exactly the doubles between
 * vs_fmu_f32_lower(lo) and vs_fmu_f32_upper(hi), the values it is set
 * to being their nearest floats. */
double vs_fmu_f32_upper(float f);
double vs_fmu_f32_lower(float f);
/* What the set functions return, instead of an FMI status, for a value
 * a Float32 cannot hold (vs_fmu_f32_holds); nothing is set then. */
#define VS_FMU_F32_RANGE (-1)
/* Into v[at[k]], Float32s widened: the FMI status (same numbers in 2.0
 * and 3.0); v untouched on Discard or worse. sc has room for b->n. */
int vs_fmu_get_batch(const vs_fmu *f, void *c, const fmu_batch *b,
                     double *v, fmu_scratch *sc);
/* From v[at[k]], Float32s rounded to nearest: the FMI status, or
 * VS_FMU_F32_RANGE with *bad the index (into b->var, b->at) of the
 * value a Float32 cannot hold. */
int vs_fmu_set_batch(const vs_fmu *f, void *c, const fmu_batch *b,
                     const double *v, fmu_scratch *sc, size_t *bad);
/* One variable, as vs_fmu_set_batch. */
int vs_fmu_set_one(const vs_fmu *f, void *c, const fmu_var *var, double x);

/* The descriptor's functions (adapter.c). */
vs_status vs_fmu_create(const vs_create_args *args, void **instance);
vs_status vs_fmu_reset(void *instance, vs_state *state);
vs_status vs_fmu_step(void *instance, double t, double dt,
                      const vs_control *control, vs_state *state);
void vs_fmu_destroy(void *instance);

#endif
