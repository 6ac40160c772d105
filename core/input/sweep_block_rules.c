/* The rules over a whole grid or random block (sweep_block_rules.h):
 * which properties change, checked once on a template; yaw counts; the
 * geometry's and the bodies' rules over every value a block can give,
 * worst cases searched over the axes' ends and a random block's
 * supports. Calls the layers below it (sweep_rules.c, sweep_values.c,
 * variant_build.c, sweep_props.c), nothing above. */
#include "input/sweep_block_rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/sweep_axes.h"
#include "input/sweep_rules.h"
#include "input/variant_build.h"

typedef vs_sweep_ctx ctx;

/* ---- the rules over a whole block ------------------------------------- */

typedef struct prop_ref {
	const vs_axis *ax;
	const vs_axis_prop *p;
} prop_ref;

static prop_ref find_prop(const vs_block *b, int64_t actor, vs_prop prop,
                          const char *field)
{
	for (int j = 0; j < b->n_axes; j++)
		for (int i = 0; i < b->axes[j].n_props; i++) {
			const vs_axis_prop *p = &b->axes[j].props[i];
			if (p->proto.actor == actor && p->proto.prop == prop &&
			    (!field || !strcmp(p->proto.field, field)))
				return (prop_ref){&b->axes[j], p};
		}
	return (prop_ref){NULL, NULL};
}

static int entry_len(const vs_axis_prop *p, int k)
{
	return p->off[k + 1] - p->off[k];
}

/* One yaw per waypoint, in every variant: value by value on one axis,
 * every value against every value across axes. */
static int check_yaw_counts(ctx *c, const vs_block *b, prop_ref y)
{
	const vs_axis_prop *yp = y.p;
	prop_ref w = find_prop(b, yp->proto.actor, VS_PROP_WAYPOINTS, NULL);
	const vs_axis_prop *wp = w.p; /* the rules made sure there is one */
	int paired = y.ax == w.ax && yp->kind != VS_DIST_FIXED &&
	             wp->kind != VS_DIST_FIXED;
	int wmin = entry_len(wp, 0) / 3, wmax = wmin;
	for (int k = 1; k < wp->n_values; k++) {
		int rows = entry_len(wp, k) / 3;
		wmin = rows < wmin ? rows : wmin;
		wmax = rows > wmax ? rows : wmax;
	}
	for (int k = 0; k < yp->n_values; k++) {
		int n = entry_len(yp, k);
		int rows = paired ? entry_len(wp, k) / 3 : n != wmin ? wmin : wmax;
		if (n == rows)
			continue;
		vs_error_at(c->err, c->doc->path, yp->marks[k],
		            "actor %lld: yaw has %d values for %d waypoints; give "
		            "one per waypoint%s", (long long)yp->proto.actor, n,
		            rows, paired ? "" : " (yaw and waypoints on separate "
		            "axes combine every way; vary them on one axis to pair "
		            "them)");
		return -1;
	}
	return 0;
}

/* The smallest sum of sign[t] * (term t's value) over the variants of one
 * axis, for the terms t on it (FIXED ones included). */
static double axis_min(const vs_axis *ax, const vs_axis_prop *const *t,
                       const double *sign, int n)
{
	if (!ax->n_choice) { /* grid, or a uniform or normal draw */
		const vs_axis_prop *drawn = NULL;
		for (int i = 0; i < ax->n_props; i++)
			if (ax->props[i].kind == VS_DIST_UNIFORM ||
			    ax->props[i].kind == VS_DIST_NORMAL)
				drawn = &ax->props[i];
		if (drawn) { /* one drawn value and fixed ones */
			double sum = 0;
			for (int i = 0; i < n; i++)
				sum += t[i] != drawn ? sign[i] * vs_axis_number(t[i], 0)
				       : sign[i] > 0 ? sign[i] * drawn->lo
				                     : sign[i] * drawn->hi;
			return sum;
		}
	}
	/* Discrete: every position, unless only ranges vary (sums of them
	 * are linear in the position, so the ends hold the minimum). */
	int linear = 1;
	for (int i = 0; i < n; i++)
		linear &= t[i]->kind == VS_DIST_FIXED || t[i]->kind == VS_DIST_RANGE;
	double best = HUGE_VAL;
	for (uint64_t k = 0; k < ax->count; k++) {
		if (linear && k > 0 && k + 1 < ax->count)
			k = ax->count - 1;
		if (ax->cum && ax->cum[k] == (k ? ax->cum[k - 1] : 0))
			continue; /* weight 0: never drawn */
		double sum = 0;
		for (int i = 0; i < n; i++)
			sum += sign[i] * vs_axis_number(t[i], k);
		best = sum < best ? sum : best;
	}
	return best;
}

/* front_overhang + rear_overhang < length in every variant of the block,
 * for a vehicle (2 axles or more). Without a rear_overhang change a
 * length change moves the rear bumper with it (variant_build.c), so the
 * margin is the seed's length - rear_overhang - front_overhang; with one
 * it is length - front_overhang - rear_overhang. Each is a sum of terms,
 * and terms on different axes vary independently, so the smallest margin
 * is the sum over axes of each axis's smallest part. */
static int check_geometry(ctx *c, const vs_block *b, int64_t actor)
{
	const vs_actor_spec *a =
		&c->seed->actors[vs_scenario_find_actor(c->seed, actor)];
	int n_axles = c->seed->assets[a->asset].n_axles;
	if (n_axles < 2)
		return 0;
	prop_ref len = find_prop(b, actor, VS_PROP_DIMENSION, "length");
	prop_ref fo = find_prop(b, actor, VS_PROP_DIMENSION, "front_overhang");
	prop_ref ro = find_prop(b, actor, VS_PROP_DIMENSION, "rear_overhang");
	prop_ref terms[3];
	double signs[3], margin = 0;
	int n = 0;
	if (ro.p) {
		terms[n] = ro, signs[n++] = -1;
		if (len.p)
			terms[n] = len, signs[n++] = 1;
		else
			margin += a->length;
	} else {
		margin += a->length - a->rear_overhang;
	}
	if (fo.p)
		terms[n] = fo, signs[n++] = -1;
	else
		margin -= a->front_overhang;
	if (n == 0)
		return 0; /* the seed's margin, which the scenario checked */
	for (int j = 0; j < b->n_axes; j++) {
		const vs_axis_prop *t[3];
		double s[3];
		int m = 0;
		for (int i = 0; i < n; i++)
			if (terms[i].ax == &b->axes[j])
				t[m] = terms[i].p, s[m++] = signs[i];
		if (m)
			margin += axis_min(&b->axes[j], t, s, m);
	}
	if (margin > 0)
		return 0;
	vs_error_at(c->err, c->doc->path, terms[0].p->proto.mark,
	            "actor %lld: front_overhang + rear_overhang must be less "
	            "than length for a vehicle with %d axles, but in this block "
	            "length - front_overhang - rear_overhang can be as low as "
	            "%g m", (long long)actor, n_axles, margin);
	return -1;
}

/* ---- impossible bodies over a block ------------------------------------ */

/* Dimension fields an actor has (length, width, height and the two
 * overhangs); the rules let a block change each at most once. */
#define BODY_FIELDS 5

/* The axes of a block that change an actor's dimensions, and for each
 * the positions that can hold its worst values: a range's values are
 * affine in the position, so only its ends; listed values and a
 * choice's, all of them (but a choice's of weight 0, never drawn); a
 * uniform or normal, the two ends of its support, end[0] and end[1]. */
typedef struct body_axis {
	const vs_axis *ax;
	uint64_t pos[2];   /* ends, when n_pos <= 2 and ends_only */
	uint64_t n_pos;
	int ends_only;
	const vs_axis_prop *drawn; /* the actor's dimension drawn from a
	                              uniform or normal, or NULL */
	double end[2];     /* its value at positions 0 and 1 */
} body_axis;

static uint64_t body_pos(const body_axis *x, uint64_t i)
{
	return x->ends_only ? x->pos[i] : i;
}

/* Property p's value at position k of its axis x. */
static double body_value(const body_axis *x, const vs_axis_prop *p,
                         uint64_t k)
{
	return p == x->drawn ? x->end[k] : vs_axis_number(p, k);
}

/* Whether a variant can have position k of x: a choice's value of
 * weight 0 is never drawn. */
static int body_drawn(const body_axis *x, uint64_t k)
{
	const double *cum = x->drawn ? NULL : x->ax->cum;
	return !cum || cum[k] > (k ? cum[k - 1] : 0);
}

/* The axes of b that change the actor's dimensions into xs (at most
 * BODY_FIELDS), how many properties they change into *n_props. */
static int body_axes(const vs_block *b, int64_t actor, body_axis *xs,
                     int *n_props)
{
	int n = 0;
	*n_props = 0;
	for (int j = 0; j < b->n_axes; j++) {
		const vs_axis *ax = &b->axes[j];
		const vs_axis_prop *drawn = NULL;
		int mine = 0, ends = 1;
		for (int i = 0; i < ax->n_props; i++) {
			const vs_axis_prop *p = &ax->props[i];
			if (p->proto.actor != actor ||
			    p->proto.prop != VS_PROP_DIMENSION)
				continue;
			mine++;
			ends &= p->kind == VS_DIST_FIXED || p->kind == VS_DIST_RANGE;
			if (p->kind == VS_DIST_UNIFORM || p->kind == VS_DIST_NORMAL)
				drawn = p;
		}
		if (!mine)
			continue;
		if (n == BODY_FIELDS)
			break; /* each field once per block: never reached */
		*n_props += mine;
		body_axis *x = &xs[n++];
		*x = (body_axis){ax, {0, ax->count - 1}, ax->count, ends, drawn,
		                 {0, 0}};
		if (drawn) {
			*x = (body_axis){ax, {0, 1}, 2, 0, drawn,
			                 {drawn->lo, drawn->hi}};
		} else if (ends) {
			x->n_pos = ax->count > 1 ? 2 : 1;
		}
	}
	return n;
}

/* The actor's dimension changes of the axes in xs, axis j at position
 * k[j], into set (changes and values have room for every property). */
static void body_set(int64_t actor, const body_axis *xs, int n,
                     const uint64_t *k, vs_change_set *set, double *values)
{
	set->n = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < xs[j].ax->n_props; i++) {
			const vs_axis_prop *p = &xs[j].ax->props[i];
			if (p->proto.actor != actor ||
			    p->proto.prop != VS_PROP_DIMENSION)
				continue;
			vs_change *ch = &set->changes[set->n];
			*ch = p->proto;
			values[set->n] = body_value(&xs[j], p, k[j]);
			ch->values = &values[set->n++];
			ch->n = 1;
		}
}

/* "axis 2 (dimension.length = 3, dimension.width = 1.5)" for each axis of
 * the worst variant, into buf; *at receives where the value of the axis
 * that lowers the margin most (the culprit) is written. */
static void body_where(int64_t actor, const body_axis *xs, int n,
                       const uint64_t *k, int culprit, const vs_block *b,
                       char *buf, size_t size, vs_mark *at)
{
	size_t len = 0;
	buf[0] = 0;
	for (int j = 0; j < n && len < size; j++) {
		int w = snprintf(buf + len, size - len, "%saxis %d (",
		                 j ? ", " : "", (int)(xs[j].ax - b->axes) + 1);
		len += w > 0 ? (size_t)w : 0;
		int first = 1;
		for (int i = 0; i < xs[j].ax->n_props && len < size; i++) {
			const vs_axis_prop *p = &xs[j].ax->props[i];
			if (p->proto.actor != actor ||
			    p->proto.prop != VS_PROP_DIMENSION)
				continue;
			w = snprintf(buf + len, size - len, "%s%s = %g",
			             first ? "" : ", ", vs_prop_def_of(&p->proto)->name,
			             body_value(&xs[j], p, k[j]));
			len += w > 0 ? (size_t)w : 0;
			first = 0;
			if (j == culprit)
				*at = p->kind == VS_DIST_VALUES ||
				              p->kind == VS_DIST_CHOICE
				          ? p->marks[k[j]]
				          : p->at;
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, ")");
	}
}

/* A normal without a min or a max reaches every number on that side:
 * the trailer rule's margin, affine in the drawn value, then falls
 * without bound unless it does not fall that way (a length change of a
 * trailer towed at a point that moves with its axles). Refuses such a
 * normal; otherwise takes the missing end as the other (or the mean),
 * where the margin is no larger. k holds every axis's first position. */
static int body_unbounded(ctx *c, const vs_block *b, int64_t actor,
                          body_axis *xs, int n, uint64_t *k)
{
	const vs_actor_spec *a =
		&c->seed->actors[vs_scenario_find_actor(c->seed, actor)];
	const vs_asset *as = &c->seed->assets[a->asset];
	vs_change changes[BODY_FIELDS];
	double values[BODY_FIELDS], m[2][VS_MAX_BODY_MARGINS];
	vs_change_set set = {0, changes, b->mark, NULL};
	/* finite ends first: the others are held there below */
	for (int j = 0; j < n; j++) {
		const vs_axis_prop *p = xs[j].drawn;
		if (!p)
			continue;
		double x0 = isfinite(p->lo)   ? p->lo
		            : isfinite(p->hi) ? p->hi
		                              : p->tn.mean;
		xs[j].end[0] = isfinite(p->lo) ? p->lo : x0;
		xs[j].end[1] = isfinite(p->hi) ? p->hi : x0;
	}
	for (int j = 0; j < n; j++) {
		body_axis *x = &xs[j];
		const vs_axis_prop *p = x->drawn;
		double end[2] = {x->end[0], x->end[1]};
		for (int side = 0; p && side < 2; side++) {
			if (isfinite(side ? p->hi : p->lo))
				continue;
			/* the margin 1 m further towards the missing end */
			x->end[0] = end[side];
			x->end[1] = side ? end[side] + 1 : end[side] - 1;
			for (k[j] = 0; k[j] < 2; k[j]++) {
				body_set(actor, xs, n, k, &set, values);
				vs_sweep_body_margins(a, as, &set, m[k[j]]);
			}
			x->end[0] = end[0];
			x->end[1] = end[1];
			k[j] = 0;
			double m0 = m[0][VS_BODY_MARGIN_TOW];
			double m1 = m[1][VS_BODY_MARGIN_TOW];
			if (m1 - m0 >= -1e-9 * (fabs(m0) + 1))
				continue;
			vs_error_at(c->err, c->doc->path, p->at,
			            "block %d (random), axis %d: %s: give the "
			            "normal a %s: actor %lld: attach: a trailer's "
			            "contact point must lie ahead of its axles' "
			            "centre, and an unbounded normal does not",
			            c->block, (int)(x->ax - b->axes) + 1,
			            vs_prop_def_of(&p->proto)->name,
			            side ? "max" : "min", (long long)actor);
			return -1;
		}
	}
	return 0;
}

/* The body rules (an axle or imported point inside the body, the track
 * narrower than the width, the length longer than the wheelbase, a
 * trailer's contact point ahead of its axles' centre) in every variant
 * of a grid, for one actor; in every draw of a random block, the last
 * only (a draw breaking the others fails when it is built:
 * docs/sweep.md). Each rule's margin is affine in the dimensions and
 * each dimension sits on one axis, so a margin is a sum of one part per
 * axis: its smallest value over the block takes each axis at that axis's
 * own worst position, found with the others held (variant_build.h). That
 * worst variant is then built and checked as a list variant is, so the
 * message is the same, with the block and the axes' values in front.
 * Cost: the axes' positions times the margins, whatever the block's
 * size. */
static int check_bodies(ctx *c, const vs_block *b, int64_t actor)
{
	const vs_actor_spec *a =
		&c->seed->actors[vs_scenario_find_actor(c->seed, actor)];
	const vs_asset *as = &c->seed->assets[a->asset];
	int grid = b->kind == VS_BLOCK_GRID, n_props;
	body_axis xs[BODY_FIELDS];
	int n = body_axes(b, actor, xs, &n_props);
	if (!n || (!grid && !(a->attach.present &&
	                      a->attach.type == VS_ATTACH_TRAILER)))
		return 0;
	vs_change changes[BODY_FIELDS];
	double values[BODY_FIELDS];
	vs_change_set set = {0, changes, b->mark, NULL};
	uint64_t k[BODY_FIELDS], worst[BODY_FIELDS];
	double base[VS_MAX_BODY_MARGINS], m[VS_MAX_BODY_MARGINS];
	if (n_props > (int)(sizeof changes / sizeof changes[0]))
		return 0; /* each field once per block: never reached */
	for (int j = 0; j < n; j++)
		for (k[j] = body_pos(&xs[j], 0); !body_drawn(&xs[j], k[j]);)
			k[j]++; /* some weight is positive (sweep_dists.c) */
	if (!grid && body_unbounded(c, b, actor, xs, n, k))
		return -1;
	body_set(actor, xs, n, k, &set, values);
	int nm = vs_sweep_body_margins(a, as, &set, base);
	int r0 = grid ? 0 : VS_BODY_MARGIN_TOW;
	int r1 = grid ? nm : VS_BODY_MARGIN_TOW + 1;
	/* lowest[j][r]: axis j's smallest part of margin r, at where[j][r] */
	double (*lowest)[VS_MAX_BODY_MARGINS] =
		vs_xcalloc((size_t)n, sizeof *lowest);
	uint64_t (*where)[VS_MAX_BODY_MARGINS] =
		vs_xcalloc((size_t)n, sizeof *where);
	for (int j = 0; j < n; j++) {
		for (int r = 0; r < nm; r++)
			lowest[j][r] = 0, where[j][r] = k[j];
		for (uint64_t q = 0; q < xs[j].n_pos; q++) {
			uint64_t held = k[j];
			k[j] = body_pos(&xs[j], q);
			if (k[j] == held || !body_drawn(&xs[j], k[j])) {
				k[j] = held;
				continue;
			}
			body_set(actor, xs, n, k, &set, values);
			vs_sweep_body_margins(a, as, &set, m);
			for (int r = 0; r < nm; r++)
				if (m[r] - base[r] < lowest[j][r]) {
					lowest[j][r] = m[r] - base[r];
					where[j][r] = k[j];
				}
			k[j] = held;
		}
	}
	int rc = 0;
	for (int r = r0; r < r1 && !rc; r++) {
		double margin = base[r];
		int culprit = 0;
		for (int j = 0; j < n; j++) {
			margin += lowest[j][r];
			worst[j] = where[j][r];
			if (lowest[j][r] < lowest[culprit][r])
				culprit = j;
		}
		/* rounding aside, the margin says whether the worst variant
		 * breaks rule r; building it says for sure, and how */
		if (margin > 1e-9 * (fabs(base[r]) + 1))
			continue;
		body_set(actor, xs, n, worst, &set, values);
		vs_actor_spec tmp = *a;
		vs_error why = {{0}};
		if (grid ? !vs_sweep_apply_dimensions(&tmp, as, &set, NULL, &why)
		         : !vs_sweep_check_tow(a, as, &set, NULL, &why))
			continue;
		/* why reads "<sweep>:L:C: actor ...": keep from "actor" on */
		const char *rule = strstr(why.msg, "actor ");
		char axes[512];
		vs_mark at = b->mark;
		body_where(actor, xs, n, worst, culprit, b, axes, sizeof axes,
		           &at);
		vs_error_at(c->err, c->doc->path, at, "block %d (%s), %s: %s",
		            c->block, grid ? "grid" : "random", axes,
		            rule ? rule : why.msg);
		rc = -1;
	}
	free(lowest);
	free(where);
	return rc;
}

/* varyActorProperties' rules over every variant of a grid or random
 * block: every variant changes the same properties, so the rules on which
 * properties change are checked once on a template; counts and geometry
 * over all the values. */
int vs_sweep_check_block(vs_sweep_ctx *c, const vs_block *b, int n_changes)
{
	vs_change_set tmpl = {0, vs_xcalloc((size_t)n_changes + 1,
	                                    sizeof *tmpl.changes), b->mark, NULL};
	/* The template's n is the longest value's (a speed vector is a
	 * rule of its own); it holds no values, which the rules do not
	 * read. */
	for (int j = 0; j < b->n_axes; j++)
		for (int i = 0; i < b->axes[j].n_props; i++) {
			const vs_axis_prop *p = &b->axes[j].props[i];
			vs_change *t = &tmpl.changes[tmpl.n++];
			*t = p->proto;
			t->n = 1; /* a range or a draw: one number */
			for (int k = 0; p->off && k < p->n_values; k++)
				if (entry_len(p, k) > t->n)
					t->n = entry_len(p, k);
		}
	int rc = vs_sweep_check_rules(c, &tmpl, "block");
	for (int j = 0; !rc && j < b->n_axes; j++)
		for (int i = 0; !rc && i < b->axes[j].n_props; i++) {
			const vs_axis_prop *p = &b->axes[j].props[i];
			if (p->proto.prop == VS_PROP_YAW)
				rc = check_yaw_counts(c, b, (prop_ref){&b->axes[j], p});
			else if (p->proto.prop == VS_PROP_DIMENSION &&
			         find_prop(b, p->proto.actor, VS_PROP_DIMENSION,
			                   NULL).p == p) {
				rc = check_geometry(c, b, p->proto.actor);
				if (!rc)
					rc = check_bodies(c, b, p->proto.actor);
			}
		}
	free(tmpl.changes);
	if (n_changes > c->max_changes)
		c->max_changes = n_changes;
	return rc;
}
