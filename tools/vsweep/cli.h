/* Pieces of the vsweep command line shared between its files. */
#ifndef VS_CLI_H
#define VS_CLI_H

#include "plugin/registry.h"

/* Exit statuses of DESIGN.md. */
enum {
	EXIT_OK = 0,
	EXIT_SOME_FAILED = 1,
	EXIT_BAD_INPUT = 2,
	EXIT_INTERNAL = 3,
	EXIT_INTERRUPTED = 130
};

/* Loads plugins from --plugin-path dirs, then VSWEEP_PLUGIN_PATH, then the
 * build or install plugin directory. */
vs_registry *cli_registry(const char *const *extra, int n_extra);

/* `vsweep plugins`: what is found, with params. */
int cli_plugins(const vs_registry *reg);

#endif
