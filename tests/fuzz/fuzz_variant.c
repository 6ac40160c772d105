/* libFuzzer target: variant expansion. The first 8 bytes choose variant
 * indices, the rest is a sweep file; a sweep that reads must build its
 * first, last and chosen variants (scenario and params JSON) without a
 * crash, and an out-of-range index must be an error. */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/sweep.h"

static void build(const vs_sweep *sw, uint64_t i)
{
	vs_error err = {{0}};
	char *json = NULL;
	vs_scenario *v = vs_sweep_variant(sw, fuzz_seed(), i, &json, &err);
	vs_scenario_destroy(v);
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pick = 0;
	if (size < sizeof pick)
		return 0;
	memcpy(&pick, data, sizeof pick);
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("fuzz.yaml", (const char *)data + 8,
	                              size - 8, fuzz_seed(), &err);
	if (sw) {
		uint64_t n = sw->count;
		build(sw, 0);
		build(sw, n - 1);
		build(sw, pick % n);
		build(sw, n + (pick & 7)); /* out of range: an error */
	}
	vs_sweep_destroy(sw);
	return 0;
}
