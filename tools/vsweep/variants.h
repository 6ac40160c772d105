/* vsweep's commands that read a sweep without running it (variants.c,
 * export.c). */
#ifndef VS_CLI_VARIANTS_H
#define VS_CLI_VARIANTS_H

#include "input/sweep.h"
#include "plugin/registry.h"

/* `vsweep variants SCENARIO --sweep SWEEP [--format csv|json]
 * [--plugin-path DIR]`: the variant table on stdout. Returns an exit
 * status. */
int cli_variants(int argc, char **argv);

/* The inputs of a command that reads a sweep: the seed scenario bound to
 * the plugins (--plugin-path dirs first) and the sweep checked against
 * it. On error returns NULL with err set; *reg and *seed are then NULL or
 * for the caller to destroy all the same. */
vs_sweep *cli_load_sweep(const char *scenario, const char *sweep,
                         const char *const *plugin_path, int n_plugin_path,
                         vs_registry **reg, vs_scenario **seed,
                         vs_error *err);

#endif
