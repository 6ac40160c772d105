/* The parts of the FMI 2.0 and FMI 3.0 co-simulation interfaces vsweep
 * uses, declared here from the specifications' text (FMI 2.0.x section
 * 2.1 and 4; FMI 3.0 sections 2.2 and 4): the C types an FMU's functions
 * take and return, and the function types the host looks up by name in
 * the FMU's shared object. Only what the host calls is declared.
 *
 * Each function is declared as a function TYPE (fmi2_doStep_fn ...): the
 * host holds pointers to them, and a test FMU declares its exports with
 * them (`fmi2_doStep_fn fmi2DoStep;`) before defining them.
 */
#ifndef VS_FMI_DECLS_H
#define VS_FMI_DECLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- FMI 2.0 --------------------------------------------------------- */

/* What every FMI 2.0 function reports; Pending only from asynchronous
 * steps, which vsweep never asks for. */
typedef enum fmi2_status {
	FMI2_OK = 0,
	FMI2_WARNING = 1,
	FMI2_DISCARD = 2,
	FMI2_ERROR = 3,
	FMI2_FATAL = 4,
	FMI2_PENDING = 5
} fmi2_status;

/* The interface type asked of fmi2Instantiate. */
typedef enum fmi2_type {
	FMI2_MODEL_EXCHANGE = 0,
	FMI2_CO_SIMULATION = 1
} fmi2_type;

typedef unsigned int fmi2_vr;   /* a variable's valueReference */
typedef int fmi2_bool;          /* 0 false, 1 true */

/* Logger the FMU calls: env is the host's componentEnvironment, message a
 * printf format for the arguments that follow. */
typedef void fmi2_logger_fn(void *env, const char *instance_name,
                            fmi2_status status, const char *category,
                            const char *message, ...);

/* Services the host gives fmi2Instantiate; the FMU keeps the pointer. */
typedef struct fmi2_callbacks {
	fmi2_logger_fn *logger;
	void *(*allocate)(size_t n_objects, size_t size); /* calloc-like */
	void (*free)(void *p);
	void (*step_finished)(void *env, fmi2_status status); /* may be NULL */
	void *env; /* componentEnvironment, passed back to the logger */
} fmi2_callbacks;

/* Returns the instance, or NULL on failure (after logging why).
 * resource_uri is a file:// URI of the unpacked resources directory. */
typedef void *fmi2_instantiate_fn(const char *instance_name, fmi2_type type,
                                  const char *guid, const char *resource_uri,
                                  const fmi2_callbacks *callbacks,
                                  fmi2_bool visible, fmi2_bool logging_on);
typedef void fmi2_free_instance_fn(void *c);
typedef fmi2_status fmi2_setup_experiment_fn(void *c,
                                             fmi2_bool tolerance_defined,
                                             double tolerance,
                                             double start_time,
                                             fmi2_bool stop_time_defined,
                                             double stop_time);
typedef fmi2_status fmi2_mode_fn(void *c); /* Enter/ExitInitializationMode,
                                              Terminate */
typedef fmi2_status fmi2_set_real_fn(void *c, const fmi2_vr *vr, size_t n,
                                     const double *values);
typedef fmi2_status fmi2_get_real_fn(void *c, const fmi2_vr *vr, size_t n,
                                     double *values);
/* Advances from t to t + h; no_prior_state: the host will not roll back
 * to before t. */
typedef fmi2_status fmi2_do_step_fn(void *c, double t, double h,
                                    fmi2_bool no_prior_state);

/* ---- FMI 3.0 --------------------------------------------------------- */

typedef enum fmi3_status {
	FMI3_OK = 0,
	FMI3_WARNING = 1,
	FMI3_DISCARD = 2,
	FMI3_ERROR = 3,
	FMI3_FATAL = 4
} fmi3_status;

typedef uint32_t fmi3_vr; /* a variable's valueReference */

/* Logger the FMU calls with one finished message. */
typedef void fmi3_log_fn(void *env, fmi3_status status, const char *category,
                         const char *message);

/* Called by an FMU that supports intermediate updates; vsweep passes
 * NULL. Declared for the instantiate signature only. */
typedef void fmi3_intermediate_update_fn(void *env, double time,
                                         bool set_requested,
                                         bool get_allowed,
                                         bool step_finished,
                                         bool can_return_early,
                                         bool *early_return_requested,
                                         double *early_return_time);

/* Returns the instance, or NULL. resource_path is a directory path ending
 * in '/'. */
typedef void *fmi3_instantiate_cs_fn(const char *instance_name,
                                     const char *instantiation_token,
                                     const char *resource_path, bool visible,
                                     bool logging_on, bool event_mode_used,
                                     bool early_return_allowed,
                                     const fmi3_vr *required_intermediate,
                                     size_t n_required_intermediate,
                                     void *env, fmi3_log_fn *log,
                                     fmi3_intermediate_update_fn *update);
typedef void fmi3_free_instance_fn(void *c);
typedef fmi3_status fmi3_enter_init_fn(void *c, bool tolerance_defined,
                                       double tolerance, double start_time,
                                       bool stop_time_defined,
                                       double stop_time);
typedef fmi3_status fmi3_mode_fn(void *c); /* ExitInitializationMode,
                                              Terminate */
typedef fmi3_status fmi3_set_float64_fn(void *c, const fmi3_vr *vr,
                                        size_t n_vr, const double *values,
                                        size_t n_values);
typedef fmi3_status fmi3_get_float64_fn(void *c, const fmi3_vr *vr,
                                        size_t n_vr, double *values,
                                        size_t n_values);
/* The same for Float32 variables (IEEE single precision, C's float on
 * every platform FMUs ship binaries for). */
typedef fmi3_status fmi3_set_float32_fn(void *c, const fmi3_vr *vr,
                                        size_t n_vr, const float *values,
                                        size_t n_values);
typedef fmi3_status fmi3_get_float32_fn(void *c, const fmi3_vr *vr,
                                        size_t n_vr, float *values,
                                        size_t n_values);
/* Advances from t to t + h. The four outputs say whether the FMU wants an
 * event handled, wants the simulation ended, returned early, and the
 * time it reached. */
typedef fmi3_status fmi3_do_step_fn(void *c, double t, double h,
                                    bool no_prior_state,
                                    bool *event_handling_needed,
                                    bool *terminate_simulation,
                                    bool *early_return,
                                    double *last_successful_time);

#endif
