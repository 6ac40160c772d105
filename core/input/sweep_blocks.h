/* Grid and random blocks of a sweep file: their axes, the rules checked
 * once for every variant a block can make, and variant i's changes.
 *
 * Layer 5 of the sweep loader: calls the distributions (sweep_dists.c),
 * the rules (sweep_rules.c), the values (sweep_values.c) and the property
 * table below it; called by the sweep root, sweep.c. */
#ifndef VS_SWEEP_BLOCKS_H
#define VS_SWEEP_BLOCKS_H

#include "input/sweep_values.h"

/* Parse a grid: / random: block body into b (kind already set). Return
 * 0, or -1 with c->err set. */
int vs_sweep_parse_grid(vs_sweep_ctx *c, const vs_ynode *body, vs_block *b);
int vs_sweep_parse_random(vs_sweep_ctx *c, const vs_ynode *body,
                          vs_block *b);

/* Frees a grid or random block's axes. */
void vs_sweep_axes_free(vs_block *b);

/* Variant i (sweep index) of grid or random block b, into buf->set. */
void vs_sweep_axes_changes(const vs_sweep *sw, const vs_block *b, uint64_t i,
                           vs_change_buf *buf);

#endif
