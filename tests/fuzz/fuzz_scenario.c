/* libFuzzer target: the scenario reader and binder on arbitrary text, and
 * for a scenario that binds, its first steps simulated with every view
 * recorded (pairs, map location, plugin outputs). Any input must end in a
 * scenario or an error message, and a simulation in rows or a failed
 * variant's reason, never a crash, leak or undefined behaviour. */
#include "fuzz_common.h"

#include <string.h>

#include "common/error.h"
#include "sim/sim.h"

/* steps simulated at most: enough to start every plugin, attach every
 * trailer and meet the monitor, cheap enough to fuzz */
#define FUZZ_STEPS 20

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vs_error err = {{0}};
	vs_scenario *scn = vs_scenario_parse("fuzz.yaml", (const char *)data,
	                                     size, &err);
	if (scn && vs_scenario_bind(scn, fuzz_registry(), &err) == 0) {
		if (scn->duration > FUZZ_STEPS * scn->step)
			scn->duration = FUZZ_STEPS * scn->step;
		vs_sim_opts opts;
		memset(&opts, 0, sizeof opts);
		opts.record_every = 1;
		opts.pairs = 1;
		opts.signals = "*";
		opts.plugin_log = VS_SIM_LOG_NONE;
		vs_result res;
		memset(&res, 0, sizeof res);
		(void)vs_sim_run(scn, &opts, &res);
		vs_result_finish(&res);
	}
	vs_scenario_destroy(scn);
	return 0;
}
