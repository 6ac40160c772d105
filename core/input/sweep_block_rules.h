/* The rules over a whole grid or random block of a sweep file, checked
 * once for every variant the block can make.
 *
 * Layer 5 of the sweep loader, under the blocks (sweep_blocks.c): calls
 * the rules (sweep_rules.c), the values (sweep_values.c), the variant
 * builder's body rules (variant_build.c) and the property table. */
#ifndef VS_SWEEP_BLOCK_RULES_H
#define VS_SWEEP_BLOCK_RULES_H

#include "input/sweep_values.h"

/* varyActorProperties' rules over every variant of grid or random block
 * b, whose axes make n_changes changes a variant. Return 0, or -1 with
 * c->err set (FILE:LINE:COL: what). */
int vs_sweep_check_block(vs_sweep_ctx *c, const vs_block *b, int n_changes);

#endif
