/* List blocks of a sweep file: one entry per variant, each a list of
 * changes checked with all of varyActorProperties' rules.
 *
 * Layer 4 of the sweep loader: calls sweep_values.c, sweep_rules.c,
 * sweep_props.c and variant_build.c (a variant's geometry) below it;
 * called by the sweep root, sweep.c. */
#ifndef VS_SWEEP_LIST_H
#define VS_SWEEP_LIST_H

#include "input/sweep_values.h"

/* Parses a list: block body into b (kind already set). Returns 0, or -1
 * with c->err set. */
int vs_sweep_parse_list(vs_sweep_ctx *c, const vs_ynode *body, vs_block *b);

/* Frees a list block's change sets. */
void vs_sweep_list_free(vs_block *b);

#endif
