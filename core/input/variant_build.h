/* A variant scenario from a change set: the seed's clone with the changes
 * applied, and the params JSON stored with its results
 * (vs_change_set_json, declared in sweep.h). Every change is applied and
 * written as its row of the property table says (sweep_props.h).
 *
 * Below the sweep readers: it calls only sweep_props.c; the list reader
 * (sweep_list.c) checks a variant's geometry with
 * vs_sweep_apply_dimensions, the sweep root (sweep.c) builds variants. */
#ifndef VS_VARIANT_BUILD_H
#define VS_VARIANT_BUILD_H

#include "input/sweep.h"

/* Applies an actor's dimension changes in set to a: sizes first, then
 * overhangs, so an overhang given in the same variant wins over the one a
 * length change implies (see VS_PROPF_MOVES_REAR). Returns 0, or -1 with
 * err set (path names the sweep) when the body is impossible: the
 * overhangs no longer fit the length of a vehicle with 2 or more axles,
 * an axle or imported point of the asset as lies outside the box, the
 * track is not narrower than the width, or the length not longer than
 * the wheelbase; or when a trailer's contact point no longer lies ahead
 * of its axles' centre. a holds the seed's numbers on entry: a body rule
 * its body already breaks (a trailer's axle behind the box) the variant
 * may break by as much, not more. */
int vs_sweep_apply_dimensions(vs_actor_spec *a, const vs_asset *as,
                              const vs_change_set *set, const char *path,
                              vs_error *err);

/* The body rules' margins, each affine in the dimensions (m): what
 * length - front_overhang - rear_overhang, width - track, length -
 * wheelbase, a trailer's contact point's lead over its axles' centre
 * (index VS_BODY_MARGIN_TOW, less VS_GEOM_MIN_TOW), and each axle's and
 * imported point's distances to the box's sides come to once the
 * actor's dimension changes in set are applied to a copy of seed
 * (nothing is checked; seed is not changed); for a rule the seed itself
 * breaks, less the seed's own margin, so that a variant breaking it no
 * more than the seed gives 0 or more. A body keeps the rules when all
 * are positive (axles and points may touch the box, and the variant
 * match a seed's broken rule: 0). Being affine, their smallest values
 * over a block's variants lie at each axis's own worst value
 * (sweep_blocks.c relies on it). Returns how many: the same for every
 * set on one asset. */
#define VS_MAX_BODY_MARGINS (4 + 2 * VS_MAX_AXLES + 4 * VS_MAX_POINTS)
#define VS_BODY_MARGIN_TOW 3
int vs_sweep_body_margins(const vs_actor_spec *seed, const vs_asset *as,
                          const vs_change_set *set,
                          double m[VS_MAX_BODY_MARGINS]);

/* The trailer rule alone, on a copy of seed with the actor's dimension
 * changes in set applied: 0, or -1 with err set at the last change as
 * vs_sweep_apply_dimensions sets it. A random block's draws are held to
 * it when the sweep is read (the other body rules fail a draw when it
 * is built). */
int vs_sweep_check_tow(const vs_actor_spec *seed, const vs_asset *as,
                       const vs_change_set *set, const char *path,
                       vs_error *err);

/* Applies set to v (a clone of the seed): routes first, then what depends
 * on them (yaws, a derived start), dimensions, params. Returns 0, or -1
 * with err set when a change does not fit v (an actor or param v lacks,
 * which only a seed other than the sweep's can cause). */
int vs_variant_apply(vs_scenario *v, const vs_change_set *set,
                     const char *path, vs_error *err);

#endif
