/* The sweep: which variants of the seed scenario to run.
 *
 * Variant index i in [0, count) maps to its changes by a pure function of
 * (sweep, i), so any process can build variant i alone (resume, shards):
 * blocks are found by binary search over their first indices, a grid
 * index is decomposed in mixed radix, random draws hash (seed, i, axis).
 * Nothing ever holds the list of variants, and no cost grows with their
 * number: vs_sweep_changes is O(axes) (list: O(changes)) per variant.
 *
 * File format (docs/sweep.md):
 *
 *   vsweep: 1
 *   seed: 42                 # random blocks' seed (default 0)
 *   blocks:                  # concatenated: indices run through them
 *     - list: ...            # in order
 *     - grid: ...
 *     - random: ...
 *
 * list: one entry per variant, each a list of changes, or a mapping
 * {label: NAME, changes: [...]} that names the variant (a string of 1 to
 * 200 characters, no control characters, unique in the sweep; stored in
 * variant_info.label). A change is
 * {actor: ID, PROPERTY: VALUE, ...}, PROPERTY one of
 *   speed: 10 | [10, 15]             m/s, >= 0; a list is a speed vector
 *   waypoints: [[x,y,z], ...]        m, >= 2 rows, consecutive rows differ;
 *                                    a row may be {road, lane, s, offset}
 *                                    on the seed's OpenDRIVE map
 *   yaw: [y1, ..., yM]               rad, one per waypoint
 *   dimension: {length: 5, ...}      m, > 0: length width height
 *   dimension.length: 5              front_overhang rear_overhang
 *   start: {position: [x,y,z], yaw: 0}
 *   start.position: [x,y,z] | start.yaw: 0 | start.x | start.y | start.z
 *   param: vehicle_model.NAME | behaviour.NAME, with value: 1.5
 *
 * grid: a list of axes; the variants are their cartesian product, the
 * LAST axis varying fastest. An axis is one actor's properties:
 *   {actor: 1, speed: {values: [5, 10, [8, 12]]}}    entries as in list
 *   {actor: 1, speed: {from: 5, to: 30, step: 5}}    5, 10, ..., 30
 *   {actor: 1, param: vehicle_model.lf, values: [1.4, 1.5, 1.6]}
 *   {actor: 1, param: vehicle_model.lf, value: {from: 1.2, to: 1.6,
 *                                               step: 0.1}}
 *   {actor: 2, waypoints: {values: [[[0,0,0],[60,0,0]],
 *                                   [[0,0,0],[80,0,0],[90,5,0]]]},
 *              yaw: {values: [[0, 0], [0, 0, 0.2]]}, speed: 10}
 * A property's value in an axis is either a mapping (the values it takes)
 * or anything else, read exactly as in a list change: a value every
 * variant of the block gets. So speed: [5, 10] is ONE speed vector; to
 * vary a speed write speed: {values: [5, 10]}. The varied properties of
 * one axis move together (value k of each; they need the same number of
 * values), so a route can carry its own yaws. An axis must vary
 * something. Properties take dotted names in axes (dimension.length,
 * start.yaw); dimension: and start: mappings are list-only. A param
 * axis's value: takes the values mapping (or one number), and values:
 * [...] is short for value: {values: [...]}.
 *   A range {from, to, step} (numbers; step > 0, to >= from) holds
 * floor((to - from)/step + 1e-9) + 1 values from + k*step, computed by
 * multiplication (no drift); it includes its upper limit, as OpenSCENARIO's
 * DistributionRange does, and a last value within 1e-9 step of `to` is
 * `to` exactly. Ranges take one-number properties only (speed as a
 * scalar, dimension.*, start.yaw/x/y/z, params).
 *
 * random: {count: N, axes: [...]}: N variants, each axis drawn anew for
 * every variant from one of
 *   {actor: 2, speed: {uniform: [5, 25]}}                      [a, b]
 *   {actor: 2, dimension.length: {normal: {mean: 4.5, sd: 0.3,
 *                                          min: 3.5, max: 6}}}
 *   {actor: 1, param: vehicle_model.lf, value: {uniform: [1.2, 1.6]}}
 *   {actor: 2, waypoints: {choice: {values: [ROUTE1, ROUTE2],
 *                                   weights: [3, 1]}}, speed: 10}
 * uniform and normal take one-number properties; choice takes entries as
 * in list, with optional weights (>= 0, summing to > 0; default equal).
 * A normal's min and max are optional and truncate it: draws come from
 * the truncated distribution (by inverting its distribution function),
 * never from clamping. Several varied properties in one random axis must
 * all be choices over the same number of values: one index is drawn for
 * all of them, weighted by the one of them that gives weights (at most
 * one).
 *   Draws are a pure function of (seed, variant index in the whole sweep,
 * axis position in the block): see rng.h.
 *
 * Every block obeys varyActorProperties' rules over all of its variants
 * (a waypoints change needs a speed change for the same actor, yaw needs
 * both, one yaw per waypoint, front + rear overhang < length), and values
 * are checked against their property's domain at load time: every value
 * of a list or range, a distribution's whole support (a uniform speed
 * with a < 0, or a normal speed without min >= 0, is an error; a normal
 * param needs min and max within the param's range; start.s stays on the
 * seed start's road, within its length). A change that would have no
 * effect is refused (a speed vector without a route-following behaviour,
 * a speed on a static actor, an overhang without its axle). At most 10^9
 * variants in all. */
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
	VS_PROP_START,      /* field: "position" (3 values, m), "yaw" (rad),
	                       or one coordinate "x", "y", "z" (m) */
	VS_PROP_ATTACH      /* field: "offset" (3 values, m), "heading" or
	                       "slope" (deg, as in the scenario) */
} vs_prop;

typedef struct vs_change {
	int64_t actor;  /* actor ID */
	vs_prop prop;
	char *field;    /* see vs_prop; NULL for speed, waypoints, yaw */
	int n;          /* number of values */
	double *values;
	vs_mark mark;
} vs_change;

/* One variant's changes, applied together. */
typedef struct vs_change_set {
	int n;
	vs_change *changes;
	vs_mark mark;
	char *label;    /* a list entry's label (owned by the sweep), or NULL */
} vs_change_set;

typedef enum vs_block_kind {
	VS_BLOCK_LIST = 1,  /* variants listed one by one */
	VS_BLOCK_GRID = 2,  /* cartesian product of axes */
	VS_BLOCK_RANDOM = 3 /* seeded draws */
} vs_block_kind;

struct vs_axis; /* a grid or random axis; private to the loader */

typedef struct vs_block {
	vs_block_kind kind;
	uint64_t count;         /* variants in this block */
	uint64_t first;         /* sweep index of its first variant */
	int n_sets;             /* list: one change set per variant */
	vs_change_set *sets;
	int n_axes;             /* grid, random */
	struct vs_axis *axes;
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
	uint64_t count;   /* total variants, the sum over blocks */
	int max_changes;  /* the most changes any one variant has */
} vs_sweep;

/* "list", "grid" or "random" (for "block 2 (grid): 18 variants"). */
const char *vs_block_kind_name(vs_block_kind kind);

/* Reads and validates a sweep file against a bound seed scenario: actors
 * exist, params exist on the actor's plugins and are in range, waypoint
 * changes come with a speed change, yaw changes with waypoints and speed
 * (one yaw per waypoint), for every variant of every block. On error
 * returns NULL and sets err to "FILE:LINE:COL: message". */
vs_sweep *vs_sweep_load(const char *path, const vs_scenario *seed,
                        vs_error *err);
vs_sweep *vs_sweep_parse(const char *path, const char *text, size_t len,
                         const vs_scenario *seed, vs_error *err);

/* The sweep of a run without --sweep: one variant, the seed itself. */
vs_sweep *vs_sweep_single(void);

/* Room for the changes of any one variant of a sweep. */
typedef struct vs_change_buf {
	vs_change_set set; /* filled by vs_sweep_changes */
	double *draws;     /* computed values (ranges, draws) set points at */
	int cap;           /* changes (and draws) it has room for */
} vs_change_buf;

/* Sizes b for sw (sw->max_changes); vs_change_buf_finish frees it. */
void vs_change_buf_init(vs_change_buf *b, const vs_sweep *sw);
void vs_change_buf_finish(vs_change_buf *b);

/* Computes variant i's changes into b->set without building a scenario:
 * O(axes) time, no allocation. The changes point into sw and b, valid
 * until the next call with b or until sw is destroyed; do not free them.
 * Returns 0, or -1 with err set when i is out of range. */
int vs_sweep_changes(const vs_sweep *sw, uint64_t i, vs_change_buf *b,
                     vs_error *err);

/* A change set as the params JSON object stored with a variant's results
 * (malloc'd), e.g. {"actor1":{"speed":10,"vehicle_model":{"lf":1.5}}};
 * "{}" for no changes. With vs_sweep_changes, the params of variant i
 * without building it. */
char *vs_change_set_json(const vs_change_set *set);

/* Variant i's label (a list entry's label: the sweep's own string), or
 * NULL for an unlabelled entry, a grid or random variant, or i out of
 * range. O(log blocks). */
const char *vs_sweep_label(const vs_sweep *sw, uint64_t i);

/* Builds variant i: a clone of the seed with the variant's changes applied.
 * *params_json receives (malloc'd) the changes as a JSON object, e.g.
 * {"actor1":{"speed":10,"vehicle_model":{"lf":1.5}}}; "{}" for the seed;
 * the same shape for every block kind. On error returns NULL with err
 * set; *params_json is still set when the changes were drawn but make an
 * invalid scenario (the variant fails with what it changed), NULL when
 * they could not be drawn (an index out of range). */
vs_scenario *vs_sweep_variant(const vs_sweep *sw, const vs_scenario *seed,
                              uint64_t i, char **params_json, vs_error *err);

void vs_sweep_destroy(vs_sweep *sw);

#endif
