/* See fuzz_common.h. Failures to set up abort: a fuzz run without its
 * plugins or seed would test nothing. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"
#include "sim/sim.h"

const vs_registry *fuzz_registry(void)
{
	static vs_registry *reg;
	if (!reg) {
		const char *dir = VS_FUZZ_PLUGINDIR;
		/* the host vsweep gives plugins, as the targets may simulate */
		reg = vs_registry_create(&dir, 1, vs_sim_host());
		if (!reg || !vs_registry_find(reg, "kinematic_bicycle")) {
			fprintf(stderr, "fuzz: no plugins in %s\n", dir);
			abort();
		}
	}
	return reg;
}

const vs_scenario *fuzz_seed(void)
{
	static vs_scenario *seed;
	if (!seed) {
		vs_error err = {{0}};
		seed = vs_scenario_load(VS_FUZZ_SEED, &err);
		if (!seed || vs_scenario_bind(seed, fuzz_registry(), &err)) {
			fprintf(stderr, "fuzz: seed: %s\n", err.msg);
			abort();
		}
	}
	return seed;
}
