/* Shared by the sweep loader's files, not by other modules: sweep.c (the
 * file, changes and their rules, list blocks), sweep_blocks.c (grid and
 * random blocks) and sweep_variant.c (variant i's changes, the variant,
 * its params JSON). */
#ifndef VS_SWEEP_INTERNAL_H
#define VS_SWEEP_INTERNAL_H

#include "input/sweep.h"
#include "yaml/yamltree.h"
#include "plugin/registry.h"

#define VS_MAX_VARIANTS 1000000000ULL /* DESIGN.md input limits */
/* Changes in one variant: far more than a real variant needs, and it keeps
 * the quadratic rule checks on one variant cheap. */
#define VS_MAX_CHANGES 1000

typedef struct vs_sweep_ctx {
	const vs_ydoc *doc;
	const vs_scenario *seed;
	vs_error *err;
	int max_changes; /* the most changes one variant has, so far */
} vs_sweep_ctx;

/* How a property's value reads in a list change. */
typedef enum vs_shape {
	VS_SHAPE_NUMBER, /* one number: dimension.*, start.yaw/x/y/z, params */
	VS_SHAPE_SPEED,  /* a number, or a list of numbers (a speed vector) */
	VS_SHAPE_LIST,   /* a list of numbers: yaw */
	VS_SHAPE_VEC3,   /* three numbers: start.position */
	VS_SHAPE_ROWS    /* rows of x y z: waypoints */
} vs_shape;

/* A property key resolved: what it changes and which numbers it takes. */
typedef struct vs_propkey {
	vs_prop prop;
	const char *field;    /* as vs_change.field; points into the tree */
	const char *name;     /* for messages: "speed", "dimension.length",
	                         "vehicle_model.lf" */
	vs_shape shape;
	int sign;             /* VS_Y_ANY, VS_Y_NONNEG or VS_Y_POSITIVE */
	const vs_param *param; /* VS_PROP_PARAM: its range and unit */
	vs_mark mark;         /* the key */
} vs_propkey;

/* ---- sweep.c ---------------------------------------------------------- */

/* The actor a change or axis m names with actor: ID (what names m in the
 * messages). Returns 0, or -1 with c->err set. */
int vs_sweep_actor(vs_sweep_ctx *c, const vs_ynode *m, const char *what,
                   const vs_actor_spec **a);

/* Resolves the property key (speed, waypoints, yaw, dimension.F, start.F
 * or param; pn is param's value, the plugin param's path) for actor a.
 * Returns 0, or -1 with c->err set. */
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

/* Whether x lies in the property's domain. */
int vs_sweep_in_domain(const vs_propkey *pk, double x);

/* varyActorProperties' rules that need only which properties change, not
 * their values: nothing changed twice, waypoints with speed (and someone
 * to follow them), yaw with waypoints and speed, start.position not with
 * start.x/y/z. scope ("variant", "block") says what the set covers.
 * Returns 0, or -1 with c->err set at the offending change. */
int vs_sweep_check_rules(vs_sweep_ctx *c, const vs_change_set *set,
                         const char *scope);

const char *vs_sweep_prop_name(vs_prop p);

/* ---- sweep_blocks.c --------------------------------------------------- */

/* Parse a grid: / random: block body into b (kind already set). */
int vs_sweep_parse_grid(vs_sweep_ctx *c, const vs_ynode *body, vs_block *b);
int vs_sweep_parse_random(vs_sweep_ctx *c, const vs_ynode *body,
                          vs_block *b);

/* Frees a grid or random block's axes. */
void vs_sweep_axes_free(vs_block *b);

/* Variant i (sweep index) of grid or random block b, into buf->set. */
void vs_sweep_axes_changes(const vs_sweep *sw, const vs_block *b, uint64_t i,
                           vs_change_buf *buf);

/* ---- sweep_variant.c -------------------------------------------------- */

/* Applies an actor's dimension changes in set to a (see the definition
 * for the order and what a length change does to the axles). Returns 0, or
 * -1 with err set when the overhangs no longer fit the length. */
int vs_sweep_apply_dimensions(vs_actor_spec *a, int n_axles,
                              const vs_change_set *set, const char *path,
                              vs_error *err);

#endif
