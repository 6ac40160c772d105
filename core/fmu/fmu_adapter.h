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
	uint32_t *param_vr;
	vs_output *outputs;      /* desc.outputs */
	uint32_t *output_vr;
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
		fmi3_do_step_fn *do_step;
	} f3;
};

/* The descriptor's functions (adapter.c). */
vs_status vs_fmu_create(const vs_create_args *args, void **instance);
vs_status vs_fmu_reset(void *instance, vs_state *state);
vs_status vs_fmu_step(void *instance, double t, double dt,
                      const vs_control *control, vs_state *state);
void vs_fmu_destroy(void *instance);

#endif
