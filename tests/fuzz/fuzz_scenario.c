/* libFuzzer target: the scenario reader and binder on arbitrary text. Any
 * input must end in a scenario or an error message, never a crash, leak or
 * undefined behaviour. */
#include "fuzz_common.h"

#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vs_error err = {{0}};
	vs_scenario *scn = vs_scenario_parse("fuzz.yaml", (const char *)data,
	                                     size, &err);
	if (scn)
		(void)vs_scenario_bind(scn, fuzz_registry(), &err);
	vs_scenario_destroy(scn);
	return 0;
}
