/* libFuzzer target: the OpenDRIVE reader (core/map/odr_read.c) on
 * arbitrary bytes, and for a network it accepts, the map built from it
 * (odr_build.c) and the queries a lane behaviour makes of it: each lane
 * found by its UUID, its neighbours, successor and points, and a lookup
 * at each lane's middle. Any input must end in a map or an error
 * message, never a crash, leak or undefined behaviour; a lane not found
 * by its own UUID aborts (a wrong answer, not only a crash, is a find). */
#include <stdlib.h>

#include "fuzz_common.h"
#include "fuzz_file.h"

#include "common/error.h"
#include "map/map.h"
#include "map/odr.h"

static void query(const vs_map *m)
{
	int n = vs_map_lane_count(m);
	for (int i = 0; i < n && i < 200; i++) {
		const vs_lane *l = vs_map_lane(m, i);
		if (vs_map_find_lane(m, l->uuid) != i)
			abort();
		int succ = vs_map_lane_successor(m, i);
		(void)vs_map_lane_neighbour(m, i, 1);
		(void)vs_map_lane_neighbour(m, i, -1);
		(void)vs_map_lane_leads_into(m, i, succ);
		double xyz[3], h;
		if (vs_map_lane_point(m, i, 0.5, 0.0, xyz, &h) == 0) {
			vs_map_location loc;
			vs_map_locate(m, xyz[0], xyz[1], xyz[2], h, &loc);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fuzz_write_file("fuzz.xodr", data, size);
	if (!p)
		return 0;
	vs_error err = {{0}};
	odr_net *net = odr_read(p, &err);
	int read = net != NULL;
	odr_free(net);
	if (!read)
		return 0;
	vs_map *m = vs_map_load_opendrive(p, &err);
	if (m)
		query(m);
	vs_map_unref(m);
	return 0;
}
