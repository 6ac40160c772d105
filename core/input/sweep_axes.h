/* Grid and random axes: the values and distributions one property of an
 * axis takes (read by sweep_dists.c) and the axes that hold them (read by
 * sweep_blocks.c, which also turns them into variant i's changes).
 *
 * Layer 3 of the sweep loader: sweep_dists.c calls sweep_values.c and
 * sweep_props.c below it, nothing above. */
#ifndef VS_SWEEP_AXES_H
#define VS_SWEEP_AXES_H

#include "input/rng.h"
#include "input/sweep_values.h"

typedef enum vs_dist_kind {
	VS_DIST_FIXED,   /* a list-form value: every variant gets it */
	VS_DIST_VALUES,  /* grid: {values: [...]} */
	VS_DIST_RANGE,   /* grid: {from, to, step} */
	VS_DIST_UNIFORM, /* random: {uniform: [a, b]} */
	VS_DIST_NORMAL,  /* random: {normal: {mean, sd, min, max}} */
	VS_DIST_CHOICE   /* random: {choice: {values: [...], weights: [...]}} */
} vs_dist_kind;

typedef struct vs_axis_prop {
	vs_change proto;   /* actor, prop, field (owned), mark; no values */
	vs_dist_kind kind;
	vs_mark at;        /* the value or distribution */
	int n_values;      /* FIXED (1), VALUES, CHOICE */
	int *off;          /* value k: vals[off[k]] .. vals[off[k + 1] - 1] */
	double *vals;
	vs_mark *marks;    /* where value k is */
	double from, step, to; /* RANGE */
	uint64_t n_range;
	double a, b;       /* UNIFORM */
	vs_truncnorm tn;   /* NORMAL */
	double *cum;       /* CHOICE: running sums of the weights, or NULL */
	double lo, hi;     /* UNIFORM, NORMAL: the support */
} vs_axis_prop;

typedef struct vs_axis vs_axis;

struct vs_axis {
	vs_mark mark;
	int n_props;
	vs_axis_prop *props;
	uint64_t count;    /* grid: positions along the axis */
	uint64_t stride;   /* grid: variants per step of this axis */
	int n_choice;      /* random: values the drawn index picks from, or 0
	                      when one uniform or normal is drawn instead */
	const double *cum; /* random: the index's weights, NULL for equal */
	int last_pos;      /* random: the last index with a positive weight */
};

/* "a range", "a uniform", ...: what a property is, for messages. */
const char *vs_dist_name(vs_dist_kind kind);

/* How many values the property takes (a range's count). */
static inline uint64_t vs_axis_positions(const vs_axis_prop *p)
{
	return p->kind == VS_DIST_RANGE ? p->n_range : (uint64_t)p->n_values;
}

/* Value k of a range: from + k step, by multiplication so that no error
 * accumulates; a last value within 1e-9 step of `to` is `to` itself, so a
 * range that should end on its upper limit does so exactly. */
static inline double vs_range_value(const vs_axis_prop *p, uint64_t k)
{
	double v = p->from + (double)k * p->step;
	if (k + 1 == p->n_range && v > p->to - 1e-9 * p->step)
		v = p->to;
	return v;
}

/* The first number of value k (one-number properties have only it). */
static inline double vs_axis_number(const vs_axis_prop *p, uint64_t k)
{
	switch (p->kind) {
	case VS_DIST_FIXED:
		return p->vals[p->off[0]];
	case VS_DIST_RANGE:
		return vs_range_value(p, k);
	default: /* VS_DIST_VALUES, VS_DIST_CHOICE */
		return p->vals[p->off[k]];
	}
}


/* A list of values (grid values:, a param axis's values:), each read as
 * in a list change, into p; label names them in messages. */
int vs_sweep_read_values(vs_sweep_ctx *c, const vs_propkey *pk,
                         const vs_ynode *list, const char *label,
                         vs_axis_prop *p);

/* A property's value in an axis of a block of the given kind into p: a
 * mapping gives the values it takes (sweep.h lists the forms), anything
 * else is one fixed value read as in a list change. Returns 0, or -1 with
 * c->err set. */
int vs_sweep_parse_dist(vs_sweep_ctx *c, const vs_propkey *pk,
                        const vs_ynode *vn, vs_block_kind kind,
                        vs_axis_prop *p);

#endif
