/* The values one property of a grid or random axis takes: value lists,
 * ranges, and the uniform, normal and choice distributions, each checked
 * against the property's domain over its whole support. Calls
 * sweep_values.c (one value, one number) and nothing above it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/sweep_axes.h"

typedef vs_sweep_ctx ctx;

const char *vs_dist_name(vs_dist_kind kind)
{
	static const char *const names[] = {"fixed", "values", "a range",
	                                    "a uniform", "a normal", "a choice"};
	return names[kind];
}

static int is_one_number(const vs_propkey *pk)
{
	return pk->def->shape == VS_SHAPE_NUMBER || pk->def->shape == VS_SHAPE_SPEED;
}

/* A list of values (grid values:, choice values:), each read as in a list
 * change. label names the values in messages. */
int vs_sweep_read_values(ctx *c, const vs_propkey *pk, const vs_ynode *list,
                         const char *label, vs_axis_prop *p)
{
	if (vs_y_nonempty_seq(c->doc, list, "values", "value", c->err))
		return -1;
	p->n_values = list->n;
	p->off = vs_xcalloc((size_t)list->n + 1, sizeof *p->off);
	p->marks = vs_xcalloc((size_t)list->n, sizeof *p->marks);
	size_t cap = 0;
	for (int k = 0; k < list->n; k++) {
		double *v;
		int n;
		if (vs_sweep_read_value(c, pk, list->kids[k], label, &v, &n))
			return -1;
		if ((size_t)p->off[k] + (size_t)n > cap) {
			cap = 2 * cap + (size_t)n;
			p->vals = vs_xrealloc(p->vals, cap * sizeof *p->vals);
		}
		memcpy(p->vals + p->off[k], v, (size_t)n * sizeof *v);
		free(v);
		p->off[k + 1] = p->off[k] + n;
		p->marks[k] = list->kids[k]->mark;
	}
	return 0;
}

/* ---- distributions ---------------------------------------------------- */

/* The numbers a distribution over a one-number property reads: the
 * property's name labels them, except a param's (its message names the
 * param itself). */
static const char *num_label(const vs_propkey *pk, const char *key)
{
	return pk->param ? key : pk->name;
}

static int one_number_only(ctx *c, const vs_propkey *pk, const vs_ynode *at,
                           const char *form)
{
	if (is_one_number(pk))
		return 0;
	vs_error_at(c->err, c->doc->path, at->mark,
	            "%s: %s takes one-number properties; give %s its values "
	            "as a list (%s)", pk->name, form, pk->name,
	            !strcmp(form, "a range") ? "values: [...]"
	                                     : "choice: {values: [...]}");
	return -1;
}

static int parse_range(ctx *c, const vs_propkey *pk, const vs_ynode *m,
                       vs_axis_prop *p)
{
	const vs_ynode *fn, *tn, *sn;
	if (one_number_only(c, pk, m, "a range") ||
	    vs_y_check_keys(c->doc, m, "range", vs_keys_range, c->err) ||
	    vs_sweep_need(c, m, "from", "range", &fn) ||
	    vs_sweep_need(c, m, "to", "range", &tn) ||
	    vs_sweep_need(c, m, "step", "range", &sn) ||
	    vs_sweep_read_number(c, pk, fn, num_label(pk, "from"), &p->from) ||
	    vs_sweep_read_number(c, pk, tn, num_label(pk, "to"), &p->to) ||
	    vs_y_number(c->doc, sn, "step", VS_Y_POSITIVE, &p->step, c->err))
		return -1;
	if (p->to < p->from) {
		vs_error_at(c->err, c->doc->path, tn->mark,
		            "range: to (%g) must be >= from (%g); the step is "
		            "positive", p->to, p->from);
		return -1;
	}
	/* The quotient is checked before it becomes an integer: a huge or
	 * infinite one must not reach the conversion. */
	double q = (p->to - p->from) / p->step;
	if (!(q < (double)VS_MAX_VARIANTS)) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "range: more than %llu values", VS_MAX_VARIANTS);
		return -1;
	}
	/* Values from + k step round to doubles: a step under two of their
	 * spacings at the range's larger end makes some values equal, the
	 * same variant more than once. */
	double big = fmax(fabs(p->from), fabs(p->to));
	if (p->to > p->from && p->step < 2 * (nextafter(big, INFINITY) - big)) {
		vs_error_at(c->err, c->doc->path, sn->mark,
		            "range: step %g is below what doubles resolve at %g: "
		            "its values would repeat", p->step, big);
		return -1;
	}
	p->n_range = (uint64_t)floor(q + 1e-9) + 1;
	p->kind = VS_DIST_RANGE;
	return vs_sweep_actor_span(c, pk, p->from, p->to, m->mark);
}

static int parse_uniform(ctx *c, const vs_propkey *pk, const vs_ynode *n,
                         vs_axis_prop *p)
{
	double ab[2];
	if (one_number_only(c, pk, n, "uniform") ||
	    vs_y_vec(c->doc, n, "uniform", 2, ab, c->err) ||
	    vs_sweep_read_number(c, pk, n->kids[0], num_label(pk, "uniform"),
	                         &p->a) ||
	    vs_sweep_read_number(c, pk, n->kids[1], num_label(pk, "uniform"),
	                         &p->b))
		return -1;
	if (!(p->a <= p->b) || !isfinite(p->b - p->a)) {
		vs_error_at(c->err, c->doc->path, n->mark,
		            "uniform: expected [a, b] with a <= b (and b - a "
		            "finite), got [%g, %g]", p->a, p->b);
		return -1;
	}
	p->lo = p->a;
	p->hi = p->b;
	p->kind = VS_DIST_UNIFORM;
	return vs_sweep_actor_span(c, pk, p->a, p->b, n->mark);
}

/* The bounds a normal must have so that no draw leaves the property's
 * domain (an unbounded normal reaches every number). */
static int normal_bounds(ctx *c, const vs_propkey *pk, const vs_ynode *m,
                         int has_min, int has_max)
{
	const vs_param *pd = pk->param;
	if (pd && ((isfinite(pd->min) && !has_min) ||
	           (isfinite(pd->max) && !has_max))) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: give the normal min and max within [%g, %g]%s%s, "
		            "the param's range", pk->name, pd->min, pd->max,
		            pd->unit && *pd->unit ? " " : "",
		            pd->unit ? pd->unit : "");
		return -1;
	}
	if (!pd && pk->def->sign != VS_Y_ANY && !has_min) {
		const char *op = pk->def->sign == VS_Y_POSITIVE ? ">" : ">=";
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: give the normal a min %s 0: %s must be %s 0 and "
		            "an unbounded normal is not", pk->name, op, pk->name,
		            op);
		return -1;
	}
	/* The actor's part of the domain: a road's length, an angle's
	 * [-180, 180] deg. */
	char dom[512];
	for (int side = 0; !pd && side < 2; side++) {
		if ((side ? has_max : has_min) ||
		    !vs_sweep_actor_bound(c, pk, side ? DBL_MAX : -DBL_MAX, dom,
		                          sizeof dom))
			continue;
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: give the normal a %s: %s, and an unbounded "
		            "normal does not", pk->name, side ? "max" : "min", dom);
		return -1;
	}
	return 0;
}

static int parse_normal(ctx *c, const vs_propkey *pk, const vs_ynode *m,
                        vs_axis_prop *p)
{
	const vs_ynode *mn, *sn, *lo = NULL, *hi = NULL;
	double mean, sd;
	p->lo = -HUGE_VAL;
	p->hi = HUGE_VAL;
	if (one_number_only(c, pk, m, "normal") ||
	    vs_y_map(c->doc, m, "normal", c->err) ||
	    vs_y_check_keys(c->doc, m, "normal", vs_keys_normal, c->err) ||
	    vs_sweep_need(c, m, "mean", "normal", &mn) ||
	    vs_sweep_need(c, m, "sd", "normal", &sn) ||
	    vs_y_number(c->doc, mn, "mean", VS_Y_ANY, &mean, c->err) ||
	    vs_y_number(c->doc, sn, "sd", VS_Y_POSITIVE, &sd, c->err))
		return -1;
	if (((lo = vs_ymap_get(m, "min")) &&
	     vs_sweep_read_number(c, pk, lo, num_label(pk, "min"), &p->lo)) ||
	    ((hi = vs_ymap_get(m, "max")) &&
	     vs_sweep_read_number(c, pk, hi, num_label(pk, "max"), &p->hi)) ||
	    normal_bounds(c, pk, m, lo != NULL, hi != NULL))
		return -1;
	if (lo && hi && !(p->lo < p->hi)) {
		vs_error_at(c->err, c->doc->path, hi->mark,
		            "normal: min (%g) must be less than max (%g)", p->lo,
		            p->hi);
		return -1;
	}
	/* Draws reach about 40 sd: keep them finite. */
	if (!isfinite(fabs(mean) + 40 * sd)) {
		vs_error_at(c->err, c->doc->path, sn->mark,
		            "normal: sd = %g is too large", sd);
		return -1;
	}
	if (vs_truncnorm_init(&p->tn, mean, sd, p->lo, p->hi)) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "normal: [min, max] lies so far in the tail that it "
		            "holds almost none (< 1e-280) of the distribution");
		return -1;
	}
	p->kind = VS_DIST_NORMAL;
	return vs_sweep_actor_span(c, pk, p->lo, p->hi, m->mark);
}

static int parse_choice(ctx *c, const vs_propkey *pk, const vs_ynode *m,
                        vs_axis_prop *p)
{
	const vs_ynode *vn, *wn;
	if (vs_y_map(c->doc, m, "choice", c->err) ||
	    vs_y_check_keys(c->doc, m, "choice", vs_keys_choice, c->err) ||
	    vs_sweep_need(c, m, "values", "choice", &vn) ||
	    vs_sweep_read_values(c, pk, vn, num_label(pk, "values"), p))
		return -1;
	p->kind = VS_DIST_CHOICE;
	if (!(wn = vs_ymap_get(m, "weights")))
		return 0;
	double *w;
	int n;
	if (vs_y_numbers(c->doc, wn, "weights", VS_Y_NONNEG, &w, &n, c->err))
		return -1;
	p->cum = w; /* summed in place, in file order */
	for (int k = 1; k < n; k++)
		w[k] += w[k - 1];
	if (n != p->n_values) {
		vs_error_at(c->err, c->doc->path, wn->mark,
		            "choice: %d weights for %d values; give one per "
		            "value", n, p->n_values);
		return -1;
	}
	if (!(w[n - 1] > 0) || !isfinite(w[n - 1])) {
		vs_error_at(c->err, c->doc->path, wn->mark,
		            "choice: the weights must have a positive, finite "
		            "sum, got %g", w[n - 1]);
		return -1;
	}
	return 0;
}

/* A property's value in an axis: a mapping gives the values it takes (the
 * forms of kind's blocks), anything else is one fixed value read as in a
 * list change. */
int vs_sweep_parse_dist(ctx *c, const vs_propkey *pk, const vs_ynode *vn,
                        vs_block_kind kind, vs_axis_prop *p)
{
	const char *label = pk->param ? "value" : pk->name;
	int grid = kind == VS_BLOCK_GRID;
	p->at = vn->mark;
	if (vn->kind != VS_Y_MAP) {
		if (vn->kind == VS_Y_SEQ && pk->def->shape == VS_SHAPE_NUMBER) {
			vs_error_at(c->err, c->doc->path, vn->mark,
			            "%s: a list is not a set of values here; write "
			            "%s: {%s: [...]}", pk->name, label,
			            grid ? "values" : "choice: {values");
			return -1;
		}
		p->kind = VS_DIST_FIXED;
		p->n_values = 1;
		p->off = vs_xcalloc(2, sizeof *p->off);
		p->marks = vs_xcalloc(1, sizeof *p->marks);
		p->marks[0] = vn->mark;
		return vs_sweep_read_value(c, pk, vn, label, &p->vals, &p->off[1]);
	}
	const char *const *grid_keys = vs_keys_grid_dist;
	const char *const *random_keys = vs_keys_random_dist;
	const char *const *other = grid ? random_keys : grid_keys;
	for (int i = 0; vn->n && other[i]; i++) {
		const vs_ynode *k0 = vs_ymap_key(vn, 0);
		if (strcmp(k0->str, other[i]))
			continue;
		vs_error_at(c->err, c->doc->path, k0->mark,
		            "%s: %s is for %s blocks; a %s axis takes %s", label,
		            k0->str, grid ? "random" : "grid",
		            grid ? "grid" : "random",
		            grid ? "{values: [...]} or {from, to, step}"
		                 : "{uniform: [a, b]}, {normal: {...}} or "
		                   "{choice: {values: [...]}}");
		return -1;
	}
	if (vs_y_check_keys(c->doc, vn, label, grid ? grid_keys : random_keys,
	                    c->err))
		return -1;
	if (vn->n == 0) {
		vs_error_at(c->err, c->doc->path, vn->mark,
		            "%s: give the values it takes (%s)", label,
		            grid ? "{values: [...]} or {from, to, step}"
		                 : "{uniform: [a, b]}, {normal: {...}} or "
		                   "{choice: {values: [...]}}");
		return -1;
	}
	if (grid) {
		if (vs_ymap_get(vn, "values")) {
			if (vn->n != 1) {
				vs_error_at(c->err, c->doc->path, vn->mark,
				            "%s: give values or a range {from, to, "
				            "step}, not both", label);
				return -1;
			}
			p->kind = VS_DIST_VALUES;
			return vs_sweep_read_values(c, pk,
			                            vs_ymap_get(vn, "values"),
			                            num_label(pk, "values"), p);
		}
		return parse_range(c, pk, vn, p);
	}
	if (vn->n != 1) {
		vs_error_at(c->err, c->doc->path, vs_ymap_key(vn, 1)->mark,
		            "%s: give one distribution", label);
		return -1;
	}
	const vs_ynode *k = vs_ymap_key(vn, 0), *v = vs_ymap_value(vn, 0);
	if (!strcmp(k->str, "uniform"))
		return parse_uniform(c, pk, v, p);
	if (!strcmp(k->str, "normal"))
		return parse_normal(c, pk, v, p);
	return parse_choice(c, pk, v, p);
}

