/* A registry filled by hand with static descriptors, standing in for
 * loaded plugins: binding only reads desc, so no dlopen is needed. */
#ifndef VS_TEST_FAKE_REGISTRY_H
#define VS_TEST_FAKE_REGISTRY_H

#include <string.h>

#include "plugin/registry.h"

static const vs_param fake_kin_params[] = {
	{"steering_ratio", 15, 1, 100, "", "steering wheel : road wheel"},
};
static const vs_param fake_bicycle_params[] = {
	{"m", 1500, 100, 50000, "kg", "mass"},
	{"lf", 1.2, 0.1, 10, "m", "CG to front axle"},
	{"Kf", 80e3, 1e3, 1e6, "N/rad", "front cornering stiffness"},
	{"Kr", 80e3, 1e3, 1e6, "N/rad", "rear cornering stiffness"},
	{"steering_ratio", 15, 1, 100, "", "steering wheel : road wheel"},
};
static const vs_param fake_steer_params[] = {
	{"steering_wheel_deg", 0, -720, 720, "deg", "held angle"},
};

#define FAKE_PLUGIN_NEEDS(kind, name, params, n, route, drives, needs)   \
	{VS_ABI_MAJOR, VS_ABI_MINOR, sizeof(vs_plugin), kind, name, "1.0", "", \
	 params, n, NULL, NULL, NULL, NULL, NULL, NULL, 0, route, drives,  \
	 needs}
#define FAKE_PLUGIN_DRIVES(kind, name, params, n, route, drives)          \
	FAKE_PLUGIN_NEEDS(kind, name, params, n, route, drives, 0)
#define FAKE_PLUGIN(kind, name, params, n, route)                          \
	FAKE_PLUGIN_DRIVES(kind, name, params, n, route, 0)

static const vs_plugin fake_descs[] = {
	FAKE_PLUGIN(VS_KIND_VEHICLE_MODEL, "kinematic_bicycle", fake_kin_params,
	            1, 0),
	FAKE_PLUGIN(VS_KIND_VEHICLE_MODEL, "bicycle_steady", fake_bicycle_params,
	            5, 0),
	FAKE_PLUGIN(VS_KIND_BEHAVIOUR, "waypoints", NULL, 0, 1),
	FAKE_PLUGIN(VS_KIND_BEHAVIOUR, "constant_steer", fake_steer_params, 1,
	            0),
	FAKE_PLUGIN_DRIVES(VS_KIND_BEHAVIOUR, "pedestrian", NULL, 0, 1,
	                   VS_DRIVES_CHARACTER),
	/* plugins that need a map (vs_plugin.needs) */
	FAKE_PLUGIN_NEEDS(VS_KIND_BEHAVIOUR, "lane_keep", NULL, 0, 0, 0,
	                  VS_NEEDS_MAP),
	FAKE_PLUGIN_NEEDS(VS_KIND_VEHICLE_MODEL, "road_model", NULL, 0, 0, 0,
	                  VS_NEEDS_MAP),
};
#define FAKE_N_PLUGINS 7

static vs_loaded_plugin fake_loaded[FAKE_N_PLUGINS];
static vs_loaded_plugin *fake_loaded_ptrs[FAKE_N_PLUGINS];
static char fake_paths[FAKE_N_PLUGINS][64];
static vs_registry fake_reg;

/* The fake registry, holding the first n of fake_descs (n = 7: all). */
static vs_registry *fake_registry(int n)
{
	for (int i = 0; i < FAKE_N_PLUGINS; i++) {
		strcpy(fake_paths[i], "fake/");
		strcat(fake_paths[i], fake_descs[i].name);
		strcat(fake_paths[i], ".so");
		fake_loaded[i] = (vs_loaded_plugin){fake_paths[i], NULL,
		                                    &fake_descs[i], NULL};
		fake_loaded_ptrs[i] = &fake_loaded[i];
	}
	memset(&fake_reg, 0, sizeof fake_reg);
	fake_reg.n = n;
	fake_reg.plugins = fake_loaded_ptrs;
	return &fake_reg;
}

#endif
