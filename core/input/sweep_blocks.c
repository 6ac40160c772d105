/* Grid and random blocks (sweep_blocks.h; forms: sweep.h): axes whose
 * properties move together, and the pure map from a variant index to its
 * changes: mixed radix for a grid, counter-based draws for random. Which
 * keys an axis takes comes from the property table; the rules every
 * variant of a block must keep are sweep_block_rules.c's. Calls the
 * layers below it (sweep_block_rules.c, sweep_dists.c, sweep_rules.c,
 * sweep_values.c, sweep_props.c), nothing above. */
#include "input/sweep_blocks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/sweep_block_rules.h"
#include "input/sweep_axes.h"
#include "input/sweep_rules.h"
#include "input/variant_build.h"

typedef vs_sweep_ctx ctx;

/* ---- axes ------------------------------------------------------------- */

static int check_value_keys(ctx *c, const vs_ynode *m, const char *what,
                            vs_block_kind kind)
{
	const vs_ynode *value = vs_ymap_get(m, "value");
	const vs_ynode *values = vs_ymap_get(m, "values");
	const vs_ynode *bad = value ? value : values;
	if (bad && !vs_ymap_get(m, "param")) {
		vs_error_at(c->err, c->doc->path, bad->mark,
		            "%s: only a param axis takes %s (param: "
		            "vehicle_model.NAME or behaviour.NAME)",
		            value ? "value" : "values", value ? "a value" : "values");
		return -1;
	}
	if (value && values) {
		vs_error_at(c->err, c->doc->path, values->mark,
		            "%s: give value or values, not both", what);
		return -1;
	}
	if (values && kind == VS_BLOCK_RANDOM) {
		vs_error_at(c->err, c->doc->path, values->mark,
		            "values: a random axis draws its param from value: "
		            "{uniform|normal|choice: ...}");
		return -1;
	}
	return 0;
}

/* The key a property was given as: "speed", "start.x", "vehicle_model.lf". */
static const char *prop_label(const vs_axis_prop *p)
{
	const vs_change *ch = &p->proto;
	return ch->prop == VS_PROP_PARAM ? ch->field : vs_prop_def_of(ch)->name;
}

/* The varied properties of an axis move together, value by value: one
 * index for all of them (the grid position, or a drawn choice). */
static int link_props(ctx *c, const vs_ynode *m, const char *what,
                      vs_block_kind kind, vs_axis *ax)
{
	const vs_axis_prop *first = NULL, *weighted = NULL;
	int varied = 0;
	for (int i = 0; i < ax->n_props; i++)
		varied += ax->props[i].kind != VS_DIST_FIXED;
	for (int i = 0; i < ax->n_props; i++) {
		const vs_axis_prop *p = &ax->props[i];
		if (p->kind == VS_DIST_FIXED)
			continue;
		if (varied > 1 && kind == VS_BLOCK_RANDOM &&
		    p->kind != VS_DIST_CHOICE) {
			vs_error_at(c->err, c->doc->path, p->at,
			            "%s: several properties vary on this axis, so "
			            "one index is drawn for all: each must be a "
			            "choice, and %s is %s", what, prop_label(p),
			            vs_dist_name(p->kind));
			return -1;
		}
		if (!first)
			first = p;
		if (vs_axis_positions(p) != vs_axis_positions(first)) {
			vs_error_at(c->err, c->doc->path, p->at,
			            "%s: %s has %llu values but %s has %llu; the "
			            "properties varied on one axis move together, "
			            "value by value", what, prop_label(p),
			            (unsigned long long)vs_axis_positions(p),
			            prop_label(first),
			            (unsigned long long)vs_axis_positions(first));
			return -1;
		}
		if (p->cum && weighted) {
			vs_error_at(c->err, c->doc->path, p->at,
			            "%s: weights are given on two choices; give "
			            "them on one (they weight the index all the "
			            "choices share)", what);
			return -1;
		}
		if (p->cum)
			weighted = p;
	}
	if (!first) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: nothing varies; give a property the values it "
		            "takes as a mapping, e.g. speed: {%s} (a plain value "
		            "such as speed: [5, 10] is one value, here a speed "
		            "vector, that every variant gets)", what,
		            kind == VS_BLOCK_GRID ? "values: [5, 10]"
		                                  : "uniform: [5, 10]");
		return -1;
	}
	ax->count = vs_axis_positions(first);
	if (first->kind == VS_DIST_CHOICE) {
		ax->n_choice = first->n_values;
		ax->cum = weighted ? weighted->cum : NULL;
		ax->last_pos = ax->n_choice - 1;
		while (ax->cum && ax->last_pos > 0 &&
		       ax->cum[ax->last_pos] == ax->cum[ax->last_pos - 1])
			ax->last_pos--;
	}
	return 0;
}

static int parse_axis(ctx *c, const vs_ynode *m, vs_block_kind kind,
                      vs_axis *ax, int *n_changes)
{
	const char *what = kind == VS_BLOCK_GRID ? "grid axis" : "random axis";
	const vs_actor_spec *a;
	ax->mark = m->mark;
	if (vs_y_map(c->doc, m, what, c->err))
		return -1;
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i);
		if (!vs_prop_is_group(k->str))
			continue;
		vs_error_at(c->err, c->doc->path, k->mark,
		            "%s: in an axis, give each field on its own, as "
		            "%s.FIELD", k->str, k->str);
		return -1;
	}
	const char *axis_keys[VS_PROP_MAX_KEYS]; /* a list change's, with
	                                            dotted names only, plus
	                                            values */
	vs_prop_keys(VS_KEYS_AXIS, NULL, axis_keys);
	if (vs_y_check_keys(c->doc, m, what, axis_keys, c->err) ||
	    vs_sweep_actor(c, m, what, &a) ||
	    check_value_keys(c, m, what, kind))
		return -1;
	ax->props = vs_xcalloc((size_t)m->n, sizeof *ax->props);
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i), *v = vs_ymap_value(m, i);
		if (!strcmp(k->str, "actor") || !strcmp(k->str, "value") ||
		    !strcmp(k->str, "values"))
			continue;
		if (++*n_changes > VS_MAX_CHANGES) {
			vs_error_at(c->err, c->doc->path, k->mark,
			            "a variant changes at most %d properties",
			            VS_MAX_CHANGES);
			return -1;
		}
		vs_axis_prop *p = &ax->props[ax->n_props++];
		int param = !strcmp(k->str, "param");
		vs_propkey pk;
		if (vs_sweep_propkey(c, a, k, param ? v : NULL, &pk))
			return -1;
		p->proto = (vs_change){a->id, pk.def->prop, vs_strdup(pk.field), 0,
		                       NULL, k->mark};
		if (param) {
			const vs_ynode *values = vs_ymap_get(m, "values");
			if (values) { /* {values: [...]} */
				p->kind = VS_DIST_VALUES;
				p->at = values->mark;
				if (vs_sweep_read_values(c, &pk, values, "values", p))
					return -1;
				continue;
			}
			if (!(v = vs_ymap_get(m, "value"))) {
				vs_error_at(c->err, c->doc->path, k->mark,
				            "param %s needs its values (%s)", pk.name,
				            kind == VS_BLOCK_GRID
				                ? "values: [...] or value: {from, "
				                  "to, step}"
				                : "value: {uniform|normal|choice: "
				                  "...}");
				return -1;
			}
		}
		if (vs_sweep_parse_dist(c, &pk, v, kind, p))
			return -1;
	}
	return link_props(c, m, what, kind, ax);
}

void vs_sweep_axes_free(vs_block *b)
{
	for (int j = 0; j < b->n_axes; j++) {
		vs_axis *ax = &b->axes[j];
		for (int i = 0; i < ax->n_props; i++) {
			vs_axis_prop *p = &ax->props[i];
			free(p->proto.field);
			free(p->off);
			free(p->vals);
			free(p->marks);
			free(p->cum);
		}
		free(ax->props);
	}
	free(b->axes);
	b->axes = NULL;
	b->n_axes = 0;
}

/* ---- blocks ----------------------------------------------------------- */

static int parse_axes(ctx *c, const vs_ynode *list, vs_block *b,
                      int *n_changes)
{
	const char *what = b->kind == VS_BLOCK_GRID ? "grid" : "axes";
	if (vs_y_nonempty_seq(c->doc, list, what, "axis", c->err))
		return -1;
	b->axes = vs_xcalloc((size_t)list->n, sizeof *b->axes);
	for (int j = 0; j < list->n; j++)
		if (parse_axis(c, list->kids[j], b->kind, &b->axes[b->n_axes++],
		               n_changes))
			return -1;
	return 0;
}

int vs_sweep_parse_grid(ctx *c, const vs_ynode *body, vs_block *b)
{
	int n_changes = 0;
	if (parse_axes(c, body, b, &n_changes))
		return -1;
	/* The product, refused as soon as it passes the limit, so that it
	 * cannot overflow; then the strides, the last axis varying fastest. */
	uint64_t count = 1;
	for (int j = 0; j < b->n_axes; j++) {
		const vs_axis *ax = &b->axes[j];
		if (ax->count > VS_MAX_VARIANTS / count) {
			vs_error_at(c->err, c->doc->path, ax->mark,
			            "grid: more than %llu variants (%llu from the "
			            "axes before this one, times %llu)",
			            VS_MAX_VARIANTS, (unsigned long long)count,
			            (unsigned long long)ax->count);
			return -1;
		}
		count *= ax->count;
	}
	uint64_t stride = 1;
	for (int j = b->n_axes - 1; j >= 0; j--) {
		b->axes[j].stride = stride;
		stride *= b->axes[j].count;
	}
	b->count = count;
	return vs_sweep_check_block(c, b, n_changes);
}

int vs_sweep_parse_random(ctx *c, const vs_ynode *body, vs_block *b)
{
	const vs_ynode *cn, *an;
	int64_t count;
	int n_changes = 0;
	if (vs_y_map(c->doc, body, "random", c->err) ||
	    vs_y_check_keys(c->doc, body, "random", vs_keys_random,
	                    c->err) ||
	    vs_sweep_need(c, body, "count", "random", &cn) ||
	    vs_sweep_need(c, body, "axes", "random", &an) ||
	    vs_y_int(c->doc, cn, "count", &count, c->err))
		return -1;
	if (count < 1 || (uint64_t)count > VS_MAX_VARIANTS) {
		vs_error_at(c->err, c->doc->path, cn->mark,
		            "count: expected 1 to %llu variants, got %s",
		            VS_MAX_VARIANTS, cn->str);
		return -1;
	}
	b->count = (uint64_t)count;
	if (parse_axes(c, an, b, &n_changes))
		return -1;
	return vs_sweep_check_block(c, b, n_changes);
}

/* ---- variant i -------------------------------------------------------- */

/* The index a random axis draws: the first whose running weight exceeds
 * u * total, found by bisection. */
static int pick(const vs_axis *ax, double u)
{
	if (!ax->cum) {
		uint64_t k = (uint64_t)(u * ax->n_choice);
		/* u * n can round up to n when u is within 2^-53 of 1 */
		return k < (uint64_t)ax->n_choice ? (int)k : ax->n_choice - 1;
	}
	double t = u * ax->cum[ax->n_choice - 1];
	int lo = 0, hi = ax->n_choice - 1;
	if (!(t < ax->cum[hi]))
		return ax->last_pos; /* rounding again */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (t < ax->cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void vs_sweep_axes_changes(const vs_sweep *sw, const vs_block *b, uint64_t i,
                           vs_change_buf *buf)
{
	uint64_t local = i - b->first;
	int nc = 0;
	for (int j = 0; j < b->n_axes; j++) {
		const vs_axis *ax = &b->axes[j];
		uint64_t k = 0;
		double u = 0;
		if (b->kind == VS_BLOCK_GRID) {
			k = local / ax->stride % ax->count;
		} else {
			/* A pure function of (seed, i, axis): nothing carries
			 * over from the variants before. */
			u = vs_rng_unit(vs_rng_bits(sw->seed, i, (uint64_t)j, 0));
			if (ax->n_choice)
				k = (uint64_t)pick(ax, u);
		}
		for (int n = 0; n < ax->n_props; n++, nc++) {
			const vs_axis_prop *p = &ax->props[n];
			vs_change *ch = &buf->set.changes[nc];
			double *x = &buf->draws[nc];
			*ch = p->proto;
			uint64_t kp = p->kind == VS_DIST_FIXED ? 0 : k;
			switch (p->kind) {
			case VS_DIST_FIXED:
			case VS_DIST_VALUES:
			case VS_DIST_CHOICE: /* the sweep's own numbers */
				ch->values = p->vals + p->off[kp];
				ch->n = p->off[kp + 1] - p->off[kp];
				continue;
			case VS_DIST_RANGE:
				*x = vs_range_value(p, k);
				break;
			case VS_DIST_UNIFORM: /* clamped against rounding only */
				*x = p->a + (p->b - p->a) * u;
				*x = *x > p->b ? p->b : *x;
				break;
			case VS_DIST_NORMAL:
				*x = vs_truncnorm_sample(&p->tn, u);
				break;
			}
			ch->values = x;
			ch->n = 1;
		}
	}
	buf->set.n = nc;
	buf->set.mark = b->mark;
	buf->set.label = NULL;
}

