/* Shared set-up of the libFuzzer targets: the plugin registry (built-in
 * plugins, loaded once) and a bound seed scenario for the sweep targets.
 * Paths come from the build (VS_FUZZ_PLUGINDIR, VS_FUZZ_SEED). */
#ifndef VS_FUZZ_COMMON_H
#define VS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "input/scenario.h"
#include "plugin/registry.h"

/* The registry of the build's plugins; made on first use. */
const vs_registry *fuzz_registry(void);

/* The seed scenario the sweep targets vary, bound; made on first use. */
const vs_scenario *fuzz_seed(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
