/* The sweep root: a sweep file's top level and its blocks, the implicit
 * one-variant sweep, and variant i (its changes, found by binary search
 * over the blocks, and the scenario they make).
 *
 * The top layer of the sweep loader. It calls the blocks' readers
 * (sweep_list.c, sweep_blocks.c) and variant_build.c; nothing in input/
 * calls back into it. The layers, each calling only those below it:
 *   sweep_props.c    the varied-property table
 *   variant_build.c  a change set applied to a scenario, its params JSON
 *   sweep_values.c   actors, property keys, one value   sweep_rules.c
 *   sweep_dists.c    an axis property's values and distributions
 *   sweep_list.c     list blocks
 *   sweep_block_rules.c  the rules over every variant of a grid or
 *                    random block
 *   sweep_blocks.c   grid and random blocks, variant i of them
 *   sweep.c          the file, the blocks, variant i */
#include "input/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/sweep_blocks.h"
#include "input/sweep_list.h"
#include "input/variant_build.h"

typedef vs_sweep_ctx ctx;

typedef int (*block_parser)(ctx *c, const vs_ynode *body, vs_block *b);

static const struct {
	const char *key;
	vs_block_kind kind;
	block_parser parse;
} block_kinds[] = {
	{"list", VS_BLOCK_LIST, vs_sweep_parse_list},
	{"grid", VS_BLOCK_GRID, vs_sweep_parse_grid},
	{"random", VS_BLOCK_RANDOM, vs_sweep_parse_random},
};
#define N_BLOCK_KINDS (sizeof block_kinds / sizeof block_kinds[0])

const char *vs_block_kind_name(vs_block_kind kind)
{
	for (size_t i = 0; i < N_BLOCK_KINDS; i++)
		if (block_kinds[i].kind == kind)
			return block_kinds[i].key;
	return "unknown";
}

static int parse_block(ctx *c, const vs_ynode *m, vs_block *b)
{
	b->mark = m->mark;
	if (vs_y_map(c->doc, m, "block", c->err))
		return -1;
	if (m->n != 1) {
		vs_mark at = m->n ? vs_ymap_key(m, 1)->mark : m->mark;
		vs_error_at(c->err, c->doc->path, at,
		            "a block holds exactly one of list, grid or random%s",
		            m->n ? " (start a new '- ' entry for each block)"
		                 : "");
		return -1;
	}
	const vs_ynode *key = vs_ymap_key(m, 0);
	for (size_t i = 0; i < N_BLOCK_KINDS; i++) {
		if (strcmp(block_kinds[i].key, key->str) != 0)
			continue;
		b->kind = block_kinds[i].kind;
		return block_kinds[i].parse(c, vs_ymap_value(m, 0), b);
	}
	vs_error_at(c->err, c->doc->path, key->mark,
	            "unknown block kind '%s'; allowed: list, grid, random",
	            key->str);
	return -1;
}

/* Label order, then file order: equal labels end up side by side, the
 * first written first. */
static int label_cmp(const void *pa, const void *pb)
{
	const struct vs_label_ref *a = pa, *b = pb;
	int d = strcmp(a->label, b->label);
	if (d)
		return d;
	if (a->mark.line != b->mark.line)
		return a->mark.line < b->mark.line ? -1 : 1;
	return (a->mark.col > b->mark.col) - (a->mark.col < b->mark.col);
}

/* Labels name variants, so no two list entries share one: sorted, in
 * O(n log n) for any number of entries. */
static int check_labels(ctx *c)
{
	if (c->n_labels < 2)
		return 0;
	qsort(c->labels, (size_t)c->n_labels, sizeof *c->labels, label_cmp);
	const struct vs_label_ref *dup = NULL;
	for (int i = 1; i < c->n_labels; i++) {
		const struct vs_label_ref *l = &c->labels[i];
		if (strcmp(l->label, c->labels[i - 1].label))
			continue;
		/* the second of a pair that comes first in the file */
		if (!dup || l->mark.line < dup->mark.line ||
		    (l->mark.line == dup->mark.line && l->mark.col < dup->mark.col))
			dup = l;
	}
	if (!dup)
		return 0;
	const struct vs_label_ref *first = dup - 1;
	while (first > c->labels && !strcmp(first[-1].label, dup->label))
		first--;
	vs_error_at(c->err, c->doc->path, dup->mark,
	            "label '%s' is already used (line %d); each labelled "
	            "variant needs its own label", dup->label, first->mark.line);
	return -1;
}

static int parse_root(ctx *c, vs_sweep *sw)
{
	const vs_ydoc *doc = c->doc;
	const vs_ynode *root = doc->root, *n;
	if (vs_y_version(doc, "sweep", c->err))
		return -1;
	sw->version = 1;
	if (vs_y_check_keys(doc, root, "sweep", vs_keys_sweep, c->err))
		return -1;
	if ((n = vs_ymap_get(root, "seed"))) {
		/* the generator's full 64 bits (vs_rng_bits) */
		if (vs_y_u64(doc, n, "seed", &sw->seed, c->err))
			return -1;
	}
	const vs_ynode *blocks = vs_ymap_get(root, "blocks");
	if (!blocks) {
		vs_error_at(c->err, doc->path, root->mark,
		            "sweep: missing required key 'blocks'");
		return -1;
	}
	if (vs_y_nonempty_seq(doc, blocks, "blocks", "block", c->err))
		return -1;
	sw->blocks = vs_xcalloc((size_t)blocks->n, sizeof *sw->blocks);
	for (int i = 0; i < blocks->n; i++) {
		vs_block *b = &sw->blocks[sw->n_blocks++];
		b->first = sw->count;
		c->block = i + 1;
		if (parse_block(c, blocks->kids[i], b))
			return -1;
		/* each block is at most VS_MAX_VARIANTS: no overflow */
		sw->count += b->count;
		if (sw->count > VS_MAX_VARIANTS) {
			vs_error_at(c->err, doc->path, b->mark,
			            "the sweep has more than %llu variants",
			            VS_MAX_VARIANTS);
			return -1;
		}
	}
	sw->max_changes = c->max_changes;
	return check_labels(c);
}

vs_sweep *vs_sweep_parse(const char *path, const char *text, size_t len,
                         const vs_scenario *seed, vs_error *err)
{
	vs_sweep *sw = vs_xcalloc(1, sizeof *sw);
	sw->path = vs_strdup(path ? path : "<sweep>");
	sw->text = vs_xcalloc(len + 1, 1);
	if (len)
		memcpy(sw->text, text, len);
	sw->text_len = len;
	if (!seed) {
		vs_error_at(err, sw->path, (vs_mark){0, 0},
		            "no seed scenario to check the sweep against");
		vs_sweep_destroy(sw);
		return NULL;
	}
	vs_ydoc *doc = vs_ydoc_parse(sw->path, text, len, err);
	ctx c = {doc, seed, err, 0, 0, 0, 0, NULL};
	int rc = doc ? parse_root(&c, sw) : -1;
	free(c.labels);
	vs_ydoc_destroy(doc);
	if (rc) {
		vs_sweep_destroy(sw);
		return NULL;
	}
	return sw;
}

vs_sweep *vs_sweep_load(const char *path, const vs_scenario *seed,
                        vs_error *err)
{
	size_t len;
	char *text = vs_yaml_read_file(path, &len, err);
	if (!text)
		return NULL;
	vs_sweep *sw = vs_sweep_parse(path, text, len, seed, err);
	free(text);
	return sw;
}

vs_sweep *vs_sweep_single(void)
{
	vs_sweep *sw = vs_xcalloc(1, sizeof *sw);
	sw->text = vs_strdup("");
	sw->version = 1;
	sw->n_blocks = 1;
	sw->blocks = vs_xcalloc(1, sizeof *sw->blocks);
	sw->blocks[0].kind = VS_BLOCK_LIST;
	sw->blocks[0].count = 1;
	sw->blocks[0].n_sets = 1;
	sw->blocks[0].sets = vs_xcalloc(1, sizeof *sw->blocks[0].sets);
	sw->count = 1;
	return sw;
}

void vs_sweep_destroy(vs_sweep *sw)
{
	if (!sw)
		return;
	for (int b = 0; b < sw->n_blocks; b++) {
		vs_sweep_list_free(&sw->blocks[b]);
		vs_sweep_axes_free(&sw->blocks[b]);
	}
	free(sw->blocks);
	free(sw->text);
	free(sw->path);
	free(sw);
}

/* ---- variant i -------------------------------------------------------- */

void vs_change_buf_init(vs_change_buf *b, const vs_sweep *sw)
{
	b->cap = sw->max_changes;
	b->set = (vs_change_set){0, NULL, {0, 0}, NULL};
	b->set.changes = vs_xcalloc((size_t)b->cap + 1, sizeof *b->set.changes);
	b->draws = vs_xcalloc((size_t)b->cap + 1, sizeof *b->draws);
}

void vs_change_buf_finish(vs_change_buf *b)
{
	free(b->set.changes);
	free(b->draws);
	*b = (vs_change_buf){{0, NULL, {0, 0}, NULL}, NULL, 0};
}

/* The last block that starts at or before i (i < sw->count). */
static const vs_block *block_of(const vs_sweep *sw, uint64_t i)
{
	int lo = 0, hi = sw->n_blocks - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (sw->blocks[mid].first <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &sw->blocks[lo];
}

const char *vs_sweep_label(const vs_sweep *sw, uint64_t i)
{
	if (!sw || i >= sw->count)
		return NULL;
	const vs_block *bl = block_of(sw, i);
	return bl->kind == VS_BLOCK_LIST ? bl->sets[i - bl->first].label
	                                 : NULL;
}

int vs_sweep_changes(const vs_sweep *sw, uint64_t i, vs_change_buf *b,
                     vs_error *err)
{
	if (i >= sw->count) {
		vs_error_at(err, sw->path ? sw->path : "<sweep>", (vs_mark){0, 0},
		            "variant %llu is out of range: the sweep has %llu",
		            (unsigned long long)i, (unsigned long long)sw->count);
		return -1;
	}
	const vs_block *bl = block_of(sw, i);
	if (bl->kind != VS_BLOCK_LIST) {
		vs_sweep_axes_changes(sw, bl, i, b);
		return 0;
	}
	/* The changes are the sweep's own; the set only points at them. */
	const vs_change_set *set = &bl->sets[i - bl->first];
	if (set->n) /* an empty set may have no array at all */
		memcpy(b->set.changes, set->changes,
		       (size_t)set->n * sizeof *set->changes);
	b->set.n = set->n;
	b->set.mark = set->mark;
	b->set.label = set->label;
	return 0;
}

vs_scenario *vs_sweep_variant(const vs_sweep *sw, const vs_scenario *seed,
                              uint64_t i, char **json, vs_error *err)
{
	if (json)
		*json = NULL;
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	vs_scenario *v = NULL;
	if (vs_sweep_changes(sw, i, &b, err))
		goto out;
	/* before applying: a variant the changes make invalid is stored as
	 * failed with what it changed */
	if (json)
		*json = vs_change_set_json(&b.set);
	v = vs_scenario_clone(seed);
	if (vs_variant_apply(v, &b.set, sw->path ? sw->path : "<sweep>",
	                     err)) {
		vs_scenario_destroy(v);
		v = NULL;
	}
out:
	vs_change_buf_finish(&b);
	return v;
}
