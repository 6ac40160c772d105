/* Reading the values of a sweep file: the reader's context, the actor a
 * change names, a property key resolved to its row of the property table
 * (and, for a param, to the plugin's param), and one value of a property
 * in its list form, checked against the property's domain.
 *
 * Layer 2 of the sweep loader, above sweep_props.c; used by the rules
 * (sweep_rules.c), the distributions (sweep_dists.c), list blocks
 * (sweep_list.c) and grid and random blocks (sweep_blocks.c). Calls
 * nothing above it. */
#ifndef VS_SWEEP_VALUES_H
#define VS_SWEEP_VALUES_H

#include "input/sweep_props.h"
#include "plugin/registry.h"
#include "yaml/yamltree.h"

#define VS_MAX_VARIANTS 1000000000ULL /* docs/sweep.md limits */
/* Changes in one variant: far more than a real variant needs, and it keeps
 * the quadratic rule checks on one variant cheap. */
#define VS_MAX_CHANGES 1000

typedef struct vs_sweep_ctx {
	const vs_ydoc *doc;
	const vs_scenario *seed;
	vs_error *err;
	int max_changes; /* the most changes one variant has, so far */
	int block;       /* the block being read, from 1 (for messages) */
	int n_labels, cap_labels; /* list entries' labels so far, for
	                             the check */
	struct vs_label_ref {  /* that they are unique (malloc'd) */
		const char *label; /* the set's */
		vs_mark mark;      /* where it is written */
	} *labels;
} vs_sweep_ctx;

/* A property key resolved: its row, and what names it. */
typedef struct vs_propkey {
	const vs_prop_def *def; /* its row: prop, shape, sign */
	const char *field;    /* as vs_change.field; points into the tree or
	                         the table */
	const char *name;     /* for messages: "speed", "dimension.length",
	                         "vehicle_model.lf" */
	const vs_param *param; /* VS_PROP_PARAM: its range and unit */
	const vs_actor_spec *actor; /* the actor it changes (the seed's) */
	vs_mark mark;         /* the key */
} vs_propkey;

/* The actor a change or axis m names with actor: ID (what names m in the
 * messages). Returns 0, or -1 with c->err set. */
int vs_sweep_actor(vs_sweep_ctx *c, const vs_ynode *m, const char *what,
                   const vs_actor_spec **a);

/* Resolves the property key (a name of the property table; pn is param's
 * value, the plugin param's path) for actor a. Returns 0, or -1 with
 * c->err set. */
int vs_sweep_propkey(vs_sweep_ctx *c, const vs_actor_spec *a,
                     const vs_ynode *key, const vs_ynode *pn,
                     vs_propkey *pk);

/* Reads one value of the property in its list form into a malloc'd *v of
 * *n numbers, checked against the property's domain; what names it in
 * messages. Returns 0, or -1 with c->err set. */
int vs_sweep_read_value(vs_sweep_ctx *c, const vs_propkey *pk,
                        const vs_ynode *val, const char *what, double **v,
                        int *n);

/* Reads one number of a one-number property (a range bound, a uniform's
 * bound, a normal's min or max), checked against its domain. */
int vs_sweep_read_number(vs_sweep_ctx *c, const vs_propkey *pk,
                         const vs_ynode *node, const char *what, double *x);

/* Whether x lies in the property's domain, as far as its sign or the
 * param's range says (vs_sweep_actor_domain adds the actor's part). */
int vs_sweep_in_domain(const vs_propkey *pk, double x);

/* The part of a one-number property's domain that depends on the actor:
 * start.s and start.offset keep the start on its road and lane (s within
 * the road's length), attach.heading and attach.slope lie in [-180, 180]
 * deg and a trailer's slope is 0, an overhang is >= 0 m or, when the
 * seed's asset has that axle outside its box, >= the asset's own. Returns 0 when x lies in it, or -1
 * with why (a message naming the actor). */
int vs_sweep_actor_domain(vs_sweep_ctx *c, const vs_propkey *pk, double x,
                          char *why, size_t why_size);

/* The same for every value in [lo, hi] (a range, a uniform, a truncated
 * normal), reported at mark; the ends were read with
 * vs_sweep_read_number. Returns 0, or -1 with c->err set. */
int vs_sweep_actor_span(vs_sweep_ctx *c, const vs_propkey *pk, double lo,
                        double hi, vs_mark mark);

/* What an unbounded normal misses in the actor's part of the domain,
 * for "give the normal a min" and "... a max": into buf (the domain in
 * words) when x (-DBL_MAX or DBL_MAX) lies outside it; returns 1 then,
 * else 0. */
int vs_sweep_actor_bound(vs_sweep_ctx *c, const vs_propkey *pk, double x,
                         char *buf, size_t size);

/* Fails with "WHAT: missing required key 'KEY'" when m lacks key. */
int vs_sweep_need(vs_sweep_ctx *c, const vs_ynode *m, const char *key,
                  const char *what, const vs_ynode **out);

#endif
