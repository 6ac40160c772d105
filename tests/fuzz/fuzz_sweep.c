/* libFuzzer target: the sweep reader (every variant of every block is
 * validated while reading) against a fixed bound seed scenario. */
#include "fuzz_common.h"

#include "common/error.h"
#include "input/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("fuzz.yaml", (const char *)data, size,
	                              fuzz_seed(), &err);
	vs_sweep_destroy(sw);
	return 0;
}
