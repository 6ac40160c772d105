/* libFuzzer target: the OpenDRIVE reader (core/map/odr_read.c) on
 * arbitrary bytes. Any input must end in a road network or an error
 * message, never a crash, leak or undefined behaviour. */
#include "fuzz_common.h"
#include "fuzz_file.h"

#include "common/error.h"
#include "map/odr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fuzz_write_file("fuzz.xodr", data, size);
	if (!p)
		return 0;
	vs_error err = {{0}};
	odr_net *net = odr_read(p, &err);
	odr_free(net);
	return 0;
}
