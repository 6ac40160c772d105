/* The key arrays of keys.h. A key added here is accepted by its reader;
 * the docs test then asks for it in docs/. */
#include "input/keys.h"

#include <stddef.h>

const char *const vs_keys_scenario[] = {
	"vsweep", "name", "step", "duration", "stop_at_collision",
	"near_miss_ttc", "map",
	"assets", "actors", NULL};
const char *const vs_keys_asset[] = {
	"kind", "length", "width", "height", "wheelbase", "track",
	"wheel_radius", "front_overhang", "axles", "points", NULL};
const char *const vs_keys_actor[] = {
	"id", "name", "asset", "start", "speed", "waypoints", "yaw",
	"vehicle_model", "behaviour", "attach", NULL};
const char *const vs_keys_start[] = {"position", "yaw", NULL};
const char *const vs_keys_plugin_use[] = {"plugin", "params", "fmu",
                                          "variables", NULL};
const char *const vs_keys_attach[] = {
	"name", "parent", "type", "offset", "heading", "slope",
	"child_point", "parent_point", NULL};
const char *const vs_keys_sweep[] = {"vsweep", "seed", "blocks", NULL};
const char *const vs_keys_entry[] = {"label", "changes", NULL};
const char *const vs_keys_random[] = {"count", "axes", NULL};
const char *const vs_keys_grid_dist[] = {"values", "from", "to", "step",
                                         NULL};
const char *const vs_keys_random_dist[] = {"uniform", "normal", "choice",
                                           NULL};
const char *const vs_keys_range[] = {"from", "to", "step", NULL};
const char *const vs_keys_normal[] = {"mean", "sd", "min", "max", NULL};
const char *const vs_keys_choice[] = {"values", "weights", NULL};

const vs_key_table vs_input_key_tables[] = {
	{"scenario", vs_keys_scenario},
	{"assets.NAME", vs_keys_asset},
	{"actors[]", vs_keys_actor},
	{"actors[].start", vs_keys_start},
	{"actors[].vehicle_model, actors[].behaviour", vs_keys_plugin_use},
	{"actors[].attach", vs_keys_attach},
	{"sweep", vs_keys_sweep},
	{"blocks[].list[]", vs_keys_entry},
	{"blocks[].random", vs_keys_random},
	{"grid axis property", vs_keys_grid_dist},
	{"random axis property", vs_keys_random_dist},
	{"range", vs_keys_range},
	{"normal", vs_keys_normal},
	{"choice", vs_keys_choice},
	{NULL, NULL},
};
