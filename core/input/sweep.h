/* The sweep: which variants of the seed scenario to run.
 *
 * Variant index i in [0, count) maps to its changes by a pure function of
 * (sweep, i), so any process can build variant i alone (resume, shards). */
#ifndef VS_SWEEP_H
#define VS_SWEEP_H

#include <stdint.h>

#include "common/error.h"
#include "input/scenario.h"

/* What one change sets on one actor (varyActorProperties, plus vsweep's). */
typedef enum vs_prop {
	VS_PROP_SPEED,      /* values: P speeds, m/s */
	VS_PROP_WAYPOINTS,  /* values: M rows of x y z, m */
	VS_PROP_YAW,        /* values: M yaws, rad */
	VS_PROP_DIMENSION,  /* field: length|width|height|front_overhang|
	                       rear_overhang; values[0], m */
	VS_PROP_PARAM,      /* field: "vehicle_model.X" or "behaviour.X" */
	VS_PROP_START       /* field: "position" (3 values, m) or "yaw" (rad) */
} vs_prop;

typedef struct vs_change {
	int64_t actor;  /* actor ID */
	vs_prop prop;
	char *field;    /* see vs_prop; NULL for speed, waypoints, yaw */
	int n;          /* number of values */
	double *values;
	vs_mark mark;
} vs_change;

/* One variant of a list block: the changes applied together. */
typedef struct vs_change_set {
	int n;
	vs_change *changes;
	vs_mark mark;
} vs_change_set;

typedef enum vs_block_kind {
	VS_BLOCK_LIST = 1
} vs_block_kind;

typedef struct vs_block {
	vs_block_kind kind;
	uint64_t count;         /* variants in this block */
	int n_sets;             /* list: one change set per variant */
	vs_change_set *sets;
	vs_mark mark;
} vs_block;

typedef struct vs_sweep {
	char *path;     /* NULL for the implicit one-variant sweep */
	char *text;     /* the whole file, stored with the results ("" if none) */
	size_t text_len;
	int version;
	uint64_t seed;
	int n_blocks;
	vs_block *blocks;
	uint64_t count; /* total variants, the sum over blocks */
} vs_sweep;

/* Reads and validates a sweep file against a bound seed scenario: actors
 * exist, params exist on the actor's plugins and are in range, waypoint
 * changes come with a speed change, yaw changes with waypoints and speed
 * (one yaw per waypoint). On error returns NULL and sets err to
 * "FILE:LINE:COL: message". */
vs_sweep *vs_sweep_load(const char *path, const vs_scenario *seed,
                        vs_error *err);
vs_sweep *vs_sweep_parse(const char *path, const char *text, size_t len,
                         const vs_scenario *seed, vs_error *err);

/* The sweep of a run without --sweep: one variant, the seed itself. */
vs_sweep *vs_sweep_single(void);

/* Builds variant i: a clone of the seed with the variant's changes applied.
 * *params_json receives (malloc'd) the changes as a JSON object, e.g.
 * {"actor1":{"speed":10,"vehicle_model":{"lf":1.5}}}; "{}" for the seed.
 * On error returns NULL with err set. */
vs_scenario *vs_sweep_variant(const vs_sweep *sw, const vs_scenario *seed,
                              uint64_t i, char **params_json, vs_error *err);

void vs_sweep_destroy(vs_sweep *sw);

#endif
