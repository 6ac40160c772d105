/* The scenario: what one seed file says, after validation. */
#ifndef VS_SCENARIO_H
#define VS_SCENARIO_H

#include <stdint.h>

#include "common/error.h"
#include "input/attach.h"

struct vs_registry;
struct vs_map;

#define VS_MAX_AXLES 8
#define VS_MAX_POINTS 16

typedef struct vs_named_point {
	char *name;  /* "hitch" or "attach..." */
	double p[3]; /* m, actor frame */
} vs_named_point;

/* What an asset is (its kind: key). */
typedef enum vs_asset_kind {
	VS_ASSET_VEHICLE = 0,  /* the default: axles, or a static object
	                          without them */
	VS_ASSET_CHARACTER = 1 /* a person: no axles, no vehicle model; a
	                          behaviour moves it as a point mass */
} vs_asset_kind;

typedef struct vs_asset {
	char *name;
	vs_asset_kind kind;
	double length, width, height; /* m */
	double front_overhang;        /* m, front bumper to front axle */
	double track;                 /* m */
	double wheel_radius;          /* m */
	int n_axles;                  /* 0: not a vehicle */
	double axle_y[VS_MAX_AXLES];  /* m, actor frame, front first */
	int n_points;
	vs_named_point points[VS_MAX_POINTS];
	vs_mark mark;
} vs_asset;

/* A plugin named by an actor, with the params the file set. */
typedef struct vs_plugin_use {
	char *plugin;          /* NULL: none named (the default applies) */
	int n_set;             /* params the file set */
	char **set_names;
	double *set_values;
	vs_mark *set_marks;    /* where each value is */
	vs_mark mark;          /* the plugin: (or fmu:) key */
	char *fmu;             /* fmu: PATH, resolved; NULL: a plugin */
	int n_vars;            /* variables: renamings (use_fmu.h) */
	char **var_from, **var_to;
	/* Filled by vs_scenario_bind: */
	const struct vs_loaded_plugin *loaded;
	double *params;        /* every param in descriptor order */
} vs_plugin_use;

typedef struct vs_actor_spec {
	int64_t id;
	char *name;                   /* "actor<ID>" when the file has none */
	int asset;                    /* index into vs_scenario.assets */
	double length, width, height; /* m, from the asset unless varied */
	double front_overhang;        /* m */
	double rear_overhang;         /* m, derived from axles unless varied */
	int has_start;
	double start_pos[3];          /* m, actor origin, world */
	double start_yaw;             /* rad */
	const char *start_road;       /* start in lane coordinates:
	                                 the road id (owned by the map), or
	                                 NULL; then start_lane, start_s (m),
	                                 start_offset (m), which the sweep
	                                 axes start.s, start.offset vary */
	int start_lane;
	double start_s, start_offset;
	int n_speed;
	double *speed;                /* m/s */
	int n_waypoints;
	double *waypoints;            /* m, n_waypoints rows of x y z */
	int n_yaw;
	double *yaw;                  /* rad, one per waypoint */
	vs_plugin_use vehicle_model;
	vs_plugin_use behaviour;
	vs_attach attach;             /* present 0: not attached */
	vs_mark mark;
} vs_actor_spec;

typedef struct vs_scenario {
	char *path;           /* as given, for messages */
	char *text;           /* the whole file, stored with the results */
	size_t text_len;
	int version;          /* the vsweep: key */
	char *name;
	double step;          /* s */
	double duration;      /* s */
	int stop_at_collision; /* end a variant at its first collision */
	double near_miss_ttc; /* s: a near_miss event when the TTC to the
	                         lead falls below it; 0: none */
	int n_assets;
	vs_asset *assets;
	int n_actors;
	vs_actor_spec *actors;
	struct vs_map *map;   /* NULL: no roads. Read-only and reference
	                         counted: clones share it (map/map.h) */
} vs_scenario;

/* Reads and validates a scenario file. Plugins are not looked up yet.
 * On error returns NULL and sets err to "FILE:LINE:COL: message". */
vs_scenario *vs_scenario_load(const char *path, vs_error *err);

/* Same, from text in memory; path is used in messages. */
vs_scenario *vs_scenario_parse(const char *path, const char *text, size_t len,
                               vs_error *err);

/* Resolves every plugin use against the registry: plugin found and of the
 * right kind, every param known and in range, defaults filled. Actors with
 * no vehicle model get kinematic_bicycle; attached actors get no plugins
 * (their parent moves them). Returns 0, or -1 with err set to
 * "FILE:LINE:COL: message". */
int vs_scenario_bind(vs_scenario *scn, const struct vs_registry *reg,
                     vs_error *err);

/* A deep copy (bound plugins included), for building one variant; the
 * copy has no file text (text NULL). */
vs_scenario *vs_scenario_clone(const vs_scenario *scn);

void vs_scenario_destroy(vs_scenario *scn);

/* 1 when actor i's asset is a character (kind: character). */
int vs_actor_is_character(const vs_scenario *scn, int i);

/* actor_info's kind of actor i: "vehicle" (an asset with axles),
 * "character", or "object" (neither: a static obstacle, or a body moved
 * by its parent or its own model). */
const char *vs_actor_kind_name(const vs_scenario *scn, int i);

/* Index of the actor with this ID, or -1. */
int vs_scenario_find_actor(const vs_scenario *scn, int64_t id);

/* Index of a param in a bound plugin use, or -1. */
int vs_plugin_use_param(const vs_plugin_use *use, const char *name);

/* Sets start_pos and start_yaw from the first two waypoints: the first
 * one, facing the second, or with yaw[0] when the route has yaws
 * (RoadRunner yaw, in (-pi, pi]). Used when the file
 * gives no start (has_start 0), also when a variant changes the waypoints.
 * Does nothing with fewer than two waypoints. */
void vs_actor_spec_start_from_waypoints(vs_actor_spec *a);

/* Number of steps stored: duration / step, rounded, plus step 0. */
int64_t vs_scenario_steps(const vs_scenario *scn);

#endif
