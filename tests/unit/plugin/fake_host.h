/* A tiny stand-in for the simulation module's host table, and helpers to
 * open the real built plugins and drive them through their descriptors. */
#ifndef VS_TEST_FAKE_HOST_H
#define VS_TEST_FAKE_HOST_H

#include <vsweep/plugin.h>

#include "plugin/registry.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* Logs every message into one buffer; counts VS_LOG_ERROR messages. */
extern const vs_host fake_host;
void fake_log_clear(void);
const char *fake_log_text(void);
int fake_log_errors(void);

/* $VSWEEP_BUILD_ROOT/rel (malloc'd); fails the test if the variable is
 * not set (meson test sets it). */
char *build_path(const char *rel);

/* Opens $VSWEEP_BUILD_ROOT/rel with the fake host, failing the test with
 * the loader's message if it does not load. */
void open_built(const char *rel, vs_loaded_plugin *out);

/* A sedan like the design's: 4.8 m long, wheelbase 3.0 m, front overhang
 * 0.9 m, so the axles are at y = +1.5 and -1.5 m; steering ratio 15;
 * step 0.01 s; start at the world origin facing +Y at rest. */
vs_actor_info sedan_info(void);

/* Fills params (capacity n) with the descriptor's defaults. */
void default_params(const vs_plugin *d, double *params, size_t n);
/* Sets one param by name; fails the test for an unknown name. */
void set_param(const vs_plugin *d, double *params, const char *name,
               double value);

/* Creates an instance, failing the test on error. */
void *create_ok(const vs_plugin *d, const vs_actor_info *a,
                const double *params);

/* Rear-axle position of a state (origin + rear_axle_y * forward). */
void rear_axle(const vs_state *s, double rear_axle_y, double *x, double *y);

#endif
