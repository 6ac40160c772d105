/* See fuzz_common.h. Failures to set up abort: a fuzz run without its
 * plugins or seed would test nothing. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"

static void no_log(void *ctx, vs_log_level level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

static size_t no_ids(void *ctx, const int64_t **ids)
{
	(void)ctx;
	*ids = NULL;
	return 0;
}

static const vs_state *no_state(void *ctx, int64_t id)
{
	(void)ctx;
	(void)id;
	return NULL;
}

static const vs_host host = {
	.abi_major = VS_ABI_MAJOR, .abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_host), .log = no_log, .actor_ids = no_ids,
	.previous_state = no_state,
};

const vs_registry *fuzz_registry(void)
{
	static vs_registry *reg;
	if (!reg) {
		const char *dir = VS_FUZZ_PLUGINDIR;
		reg = vs_registry_create(&dir, 1, &host);
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
