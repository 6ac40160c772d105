/* Sweep files: blocks of variants of the seed scenario, validated against
 * it with varyActorProperties' rules, and the pure map from a variant index
 * to its scenario. */
#include "input/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/yamltree.h"
#include "plugin/registry.h"

#define MAX_VARIANTS 1000000000ULL /* DESIGN.md input limits */
/* Changes in one variant: far more than a real variant needs, and it keeps
 * the quadratic rule checks on one variant cheap. */
#define MAX_CHANGES 1000

typedef struct ctx {
	const vs_ydoc *doc;
	const vs_scenario *seed;
	vs_error *err;
} ctx;

static const char *const sweep_keys[] = {"vsweep", "seed", "blocks", NULL};
static const char *const change_keys[] = {
	"actor", "speed", "waypoints", "yaw", "dimension", "dimension.length",
	"dimension.width", "dimension.height", "dimension.front_overhang",
	"dimension.rear_overhang", "start", "start.position", "start.yaw",
	"param", "value", NULL};
static const char *const dim_fields[] = {
	"length", "width", "height", "front_overhang", "rear_overhang", NULL};
static const char *const start_fields[] = {"position", "yaw", NULL};

/* ---- changes ---------------------------------------------------------- */

/* Appends a change, taking ownership of values (malloc'd, n of them). */
static void add_change(vs_change_set *set, int64_t actor, vs_prop prop,
                       const char *field, vs_mark mark, double *values,
                       int n)
{
	set->changes = vs_xrealloc(set->changes, (size_t)(set->n + 1) *
	                                             sizeof *set->changes);
	set->changes[set->n++] =
		(vs_change){actor, prop, vs_strdup(field), n, values, mark};
}

static double *dup_values(const double *p, int n)
{
	double *v = vs_xcalloc((size_t)n, sizeof *v);
	memcpy(v, p, (size_t)n * sizeof *v);
	return v;
}

/* One field of dimension (a size or overhang, m, > 0) or of start (a
 * position, m, or a yaw, rad). */
static int add_field(ctx *c, vs_change_set *set, int64_t actor, vs_prop prop,
                     const char *field, const vs_ynode *key,
                     const vs_ynode *val)
{
	double p[3];
	int n = prop == VS_PROP_START && !strcmp(field, "position") ? 3 : 1;
	int flags = prop == VS_PROP_DIMENSION ? VS_Y_POSITIVE : VS_Y_ANY;
	if (n == 3 ? vs_y_vec(c->doc, val, key->str, 3, p, c->err)
	           : vs_y_number(c->doc, val, key->str, flags, p, c->err))
		return -1;
	add_change(set, actor, prop, field, key->mark, dup_values(p, n), n);
	return 0;
}

/* dimension: {...} or start: {...}: one change per field given. */
static int add_fields(ctx *c, vs_change_set *set, int64_t actor,
                      vs_prop prop, const vs_ynode *key, const vs_ynode *m,
                      const char *const *fields)
{
	if (vs_y_check_keys(c->doc, m, key->str, fields, c->err))
		return -1;
	if (m->n == 0) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: give at least one field", key->str);
		return -1;
	}
	for (int i = 0; i < m->n; i++)
		if (add_field(c, set, actor, prop, vs_ymap_key(m, i)->str,
		              vs_ymap_key(m, i), vs_ymap_value(m, i)))
			return -1;
	return 0;
}

static int add_param(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                     const vs_ynode *key, const vs_ynode *pn,
                     const vs_ynode *val)
{
	const char *path;
	if (vs_y_string(c->doc, pn, "param", &path, c->err))
		return -1;
	const char *dot = strchr(path, '.');
	size_t plen = dot ? (size_t)(dot - path) : 0;
	const vs_plugin_use *use = NULL;
	if (dot && plen == 13 && !strncmp(path, "vehicle_model", plen))
		use = &a->vehicle_model;
	else if (dot && plen == 9 && !strncmp(path, "behaviour", plen))
		use = &a->behaviour;
	if (!use || !dot[1]) {
		vs_error_at(c->err, c->doc->path, pn->mark,
		            "param: expected vehicle_model.NAME or "
		            "behaviour.NAME, got '%s'", path);
		return -1;
	}
	if (!use->loaded) {
		vs_error_at(c->err, c->doc->path, pn->mark,
		            "param %s: actor %lld has no %.*s plugin", path,
		            (long long)a->id, (int)plen, path);
		return -1;
	}
	const vs_plugin *d = use->loaded->desc;
	int j = vs_plugin_use_param(use, dot + 1);
	if (j < 0) {
		char list[512] = "";
		for (size_t k = 0; k < d->n_params; k++)
			vs_y_join(list, sizeof list, d->params[k].name);
		vs_error_at(c->err, c->doc->path, pn->mark,
		            "param %s: actor %lld's plugin '%s' has no param "
		            "'%s'; %s%s", path, (long long)a->id, d->name,
		            dot + 1, d->n_params ? "its params: " : "it takes none",
		            list);
		return -1;
	}
	if (!val) {
		vs_error_at(c->err, c->doc->path, key->mark,
		            "param %s needs a value (value: NUMBER)", path);
		return -1;
	}
	double v;
	if (vs_y_number(c->doc, val, "value", VS_Y_ANY, &v, c->err))
		return -1;
	const vs_param *pd = &d->params[j];
	if (!(v >= pd->min && v <= pd->max)) {
		vs_error_at(c->err, c->doc->path, val->mark,
		            "value: %s = %g is outside [%g, %g]%s%s", path, v,
		            pd->min, pd->max, pd->unit && *pd->unit ? " " : "",
		            pd->unit ? pd->unit : "");
		return -1;
	}
	add_change(set, a->id, VS_PROP_PARAM, path, key->mark,
	           dup_values(&v, 1), 1);
	return 0;
}

/* One property key of a change mapping (anything but actor and value). */
static int add_prop(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                    const vs_ynode *m, const vs_ynode *key,
                    const vs_ynode *val)
{
	const char *k = key->str;
	if (!strcmp(k, "speed") || !strcmp(k, "yaw")) {
		int speed = k[0] == 's';
		double *v;
		int n;
		if (vs_y_numbers(c->doc, val, k,
		                 speed ? VS_Y_SCALAR_OK | VS_Y_NONNEG : VS_Y_ANY,
		                 &v, &n, c->err))
			return -1;
		add_change(set, a->id, speed ? VS_PROP_SPEED : VS_PROP_YAW, NULL,
		           key->mark, v, n);
		return 0;
	}
	if (!strcmp(k, "waypoints")) {
		double *v;
		int rows;
		if (vs_y_rows(c->doc, val, k, 3, 2, VS_Y_DISTINCT, &v, &rows,
		              c->err))
			return -1;
		add_change(set, a->id, VS_PROP_WAYPOINTS, NULL, key->mark, v,
		           3 * rows); /* n counts values, not rows */
		return 0;
	}
	if (!strcmp(k, "dimension"))
		return add_fields(c, set, a->id, VS_PROP_DIMENSION, key, val,
		                  dim_fields);
	if (!strcmp(k, "start"))
		return add_fields(c, set, a->id, VS_PROP_START, key, val,
		                  start_fields);
	if (!strncmp(k, "dimension.", 10))
		return add_field(c, set, a->id, VS_PROP_DIMENSION, k + 10, key,
		                 val);
	if (!strncmp(k, "start.", 6))
		return add_field(c, set, a->id, VS_PROP_START, k + 6, key, val);
	/* only param is left: vs_y_check_keys let nothing else through */
	return add_param(c, set, a, key, val, vs_ymap_get(m, "value"));
}

/* A change mapping: actor: ID plus one or more properties; each property
 * (each field of dimension and start) becomes one vs_change. */
static int parse_change(ctx *c, const vs_ynode *m, vs_change_set *set)
{
	if (vs_y_check_keys(c->doc, m, "change", change_keys, c->err))
		return -1;
	const vs_ynode *an = vs_ymap_get(m, "actor");
	int64_t id;
	if (!an) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "change: missing required key 'actor'");
		return -1;
	}
	if (vs_y_int(c->doc, an, "actor", &id, c->err))
		return -1;
	if (id <= 0) {
		vs_error_at(c->err, c->doc->path, an->mark,
		            "actor: expected a positive integer actor ID, got %s",
		            an->str);
		return -1;
	}
	int idx = vs_scenario_find_actor(c->seed, id);
	if (idx < 0) {
		char ids[256] = "", id_text[24];
		for (int i = 0; i < c->seed->n_actors; i++) {
			snprintf(id_text, sizeof id_text, "%lld",
			         (long long)c->seed->actors[i].id);
			vs_y_join(ids, sizeof ids, id_text);
		}
		vs_error_at(c->err, c->doc->path, an->mark,
		            "actor %lld: no such actor in the seed scenario "
		            "(its IDs: %s)", (long long)id, ids);
		return -1;
	}
	const vs_ynode *value = vs_ymap_get(m, "value");
	if (value && !vs_ymap_get(m, "param")) {
		vs_error_at(c->err, c->doc->path, value->mark,
		            "value: only a param change takes a value (param: "
		            "vehicle_model.NAME or behaviour.NAME)");
		return -1;
	}
	int props = 0;
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i);
		if (!strcmp(k->str, "actor") || !strcmp(k->str, "value"))
			continue;
		props++;
		if (add_prop(c, set, &c->seed->actors[idx], m, k,
		             vs_ymap_value(m, i)))
			return -1;
	}
	if (!props) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "change: actor %lld: give a property to change "
		            "(speed, waypoints, yaw, dimension, start or param)",
		            (long long)id);
		return -1;
	}
	return 0;
}

/* ---- variant rules ---------------------------------------------------- */

static const vs_change *find_change(const vs_change_set *set, int64_t actor,
                                    vs_prop prop)
{
	for (int i = 0; i < set->n; i++)
		if (set->changes[i].actor == actor && set->changes[i].prop == prop)
			return &set->changes[i];
	return NULL;
}

static int same_field(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static const char *prop_name(vs_prop p)
{
	static const char *const names[] = {"speed", "waypoints", "yaw",
	                                    "dimension", "param", "start"};
	return names[p];
}

/* Applies an actor's dimension changes to a: sizes first, then overhangs,
 * so an overhang given in the same variant wins over the one a length
 * change implies. A length change keeps the axles where they are relative
 * to the front bumper (front_overhang and the axle spacing stay, so the
 * wheelbase stays): the rear bumper moves, and rear_overhang grows by the
 * change in length. In the actor frame every axle's y shifts by
 * dlength / 2, since the origin stays at the middle of the box. */
static int apply_dimensions(vs_actor_spec *a, int n_axles,
                            const vs_change_set *set, const char *path,
                            vs_error *err)
{
	const vs_change *last = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < set->n; i++) {
			const vs_change *ch = &set->changes[i];
			if (ch->actor != a->id || ch->prop != VS_PROP_DIMENSION)
				continue;
			int overhang = strstr(ch->field, "overhang") != NULL;
			if (overhang != pass)
				continue;
			double v = ch->values[0];
			last = ch;
			if (!strcmp(ch->field, "length")) {
				if (n_axles > 0)
					a->rear_overhang += v - a->length;
				a->length = v;
			} else if (!strcmp(ch->field, "width")) {
				a->width = v;
			} else if (!strcmp(ch->field, "height")) {
				a->height = v;
			} else if (!strcmp(ch->field, "front_overhang")) {
				a->front_overhang = v;
			} else {
				a->rear_overhang = v;
			}
		}
	}
	if (last && n_axles >= 2 &&
	    !(a->front_overhang + a->rear_overhang < a->length)) {
		vs_error_at(err, path ? path : "<sweep>", last->mark,
		            "actor %lld: front_overhang + rear_overhang (%g m) "
		            "must be less than length (%g m) for a vehicle with "
		            "%d axles", (long long)a->id,
		            a->front_overhang + a->rear_overhang, a->length,
		            n_axles);
		return -1;
	}
	return 0;
}

/* varyActorProperties' rules across the changes of one variant. */
static int check_set(ctx *c, const vs_change_set *set)
{
	const char *path = c->doc->path;
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		long long id = (long long)ch->actor;
		for (int j = 0; j < i; j++) {
			const vs_change *o = &set->changes[j];
			if (o->actor != ch->actor || o->prop != ch->prop ||
			    !same_field(o->field, ch->field))
				continue;
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: %s%s%s is changed twice in this "
			            "variant (first at line %d)", id,
			            prop_name(ch->prop), ch->field ? " " : "",
			            ch->field ? ch->field : "", o->mark.line);
			return -1;
		}
		const vs_actor_spec *a =
			&c->seed->actors[vs_scenario_find_actor(c->seed, ch->actor)];
		if (ch->prop == VS_PROP_WAYPOINTS) {
			if (!find_change(set, ch->actor, VS_PROP_SPEED)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: a waypoints change needs a "
				            "speed change for the same actor in the "
				            "same variant", id);
				return -1;
			}
			if (!a->behaviour.plugin && a->n_waypoints == 0) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: has no behaviour to follow "
				            "waypoints (give it behaviour: {plugin: "
				            "waypoints} in the scenario)", id);
				return -1;
			}
		}
		if (ch->prop == VS_PROP_YAW) {
			const vs_change *wp =
				find_change(set, ch->actor, VS_PROP_WAYPOINTS);
			if (!wp || !find_change(set, ch->actor, VS_PROP_SPEED)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: a yaw change needs waypoints "
				            "and speed changes for the same actor in "
				            "the same variant", id);
				return -1;
			}
			if (ch->n != wp->n / 3) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: yaw has %d values for %d "
				            "waypoints; give one per waypoint", id,
				            ch->n, wp->n / 3);
				return -1;
			}
		}
	}
	/* Geometry, once per actor, on a scratch copy of the seed's numbers. */
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		if (ch->prop != VS_PROP_DIMENSION ||
		    find_change(set, ch->actor, VS_PROP_DIMENSION) != ch)
			continue;
		int idx = vs_scenario_find_actor(c->seed, ch->actor);
		vs_actor_spec tmp = c->seed->actors[idx];
		if (apply_dimensions(&tmp, c->seed->assets[tmp.asset].n_axles,
		                     set, path, c->err))
			return -1;
	}
	return 0;
}

/* ---- blocks ----------------------------------------------------------- */

static int parse_list(ctx *c, const vs_ynode *body, vs_block *b)
{
	if (vs_y_nonempty_seq(c->doc, body, "list", "variant", c->err))
		return -1;
	b->sets = vs_xcalloc((size_t)body->n, sizeof *b->sets);
	b->n_sets = body->n;
	b->count = (uint64_t)body->n;
	for (int i = 0; i < body->n; i++) {
		const vs_ynode *e = body->kids[i];
		vs_change_set *set = &b->sets[i];
		set->mark = e->mark;
		if (vs_y_seq(c->doc, e, "list entry (one variant: a list of "
		                        "changes)", c->err))
			return -1;
		for (int k = 0; k < e->n; k++) {
			if (vs_y_map(c->doc, e->kids[k], "change", c->err) ||
			    parse_change(c, e->kids[k], set))
				return -1;
			if (set->n > MAX_CHANGES) {
				vs_error_at(c->err, c->doc->path, e->kids[k]->mark,
				            "a variant changes at most %d "
				            "properties", MAX_CHANGES);
				return -1;
			}
		}
		if (check_set(c, set))
			return -1;
	}
	return 0;
}

typedef int (*block_parser)(ctx *c, const vs_ynode *body, vs_block *b);

/* The block kinds a sweep may hold. A kind without a parser is known but
 * not implemented yet: it gets a clear message instead of "unknown". */
static const struct {
	const char *key;
	vs_block_kind kind;
	block_parser parse;
} block_kinds[] = {
	{"list", VS_BLOCK_LIST, parse_list},
	{"grid", 0, NULL},   /* cartesian products */
	{"random", 0, NULL}, /* seeded draws */
};
#define N_BLOCK_KINDS (sizeof block_kinds / sizeof block_kinds[0])

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
		if (!block_kinds[i].parse) {
			vs_error_at(c->err, c->doc->path, key->mark,
			            "%s blocks are not supported yet; use list",
			            key->str);
			return -1;
		}
		b->kind = block_kinds[i].kind;
		return block_kinds[i].parse(c, vs_ymap_value(m, 0), b);
	}
	vs_error_at(c->err, c->doc->path, key->mark,
	            "unknown block kind '%s'; allowed: list, grid, random",
	            key->str);
	return -1;
}

static int parse_root(ctx *c, vs_sweep *sw)
{
	const vs_ydoc *doc = c->doc;
	const vs_ynode *root = doc->root, *n;
	int64_t v;
	if (vs_y_version(doc, "sweep", c->err))
		return -1;
	sw->version = 1;
	if (vs_y_check_keys(doc, root, "sweep", sweep_keys, c->err))
		return -1;
	if ((n = vs_ymap_get(root, "seed"))) {
		if (vs_y_int(doc, n, "seed", &v, c->err))
			return -1;
		if (v < 0) {
			vs_error_at(c->err, doc->path, n->mark,
			            "seed must be >= 0, got %s", n->str);
			return -1;
		}
		sw->seed = (uint64_t)v;
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
		if (parse_block(c, blocks->kids[i], b))
			return -1;
		sw->count += b->count;
		if (sw->count > MAX_VARIANTS) {
			vs_error_at(c->err, doc->path, b->mark,
			            "the sweep has more than %llu variants",
			            MAX_VARIANTS);
			return -1;
		}
	}
	return 0;
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
	ctx c = {doc, seed, err};
	int rc = doc ? parse_root(&c, sw) : -1;
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
		vs_block *bl = &sw->blocks[b];
		for (int s = 0; s < bl->n_sets; s++) {
			vs_change_set *set = &bl->sets[s];
			for (int i = 0; i < set->n; i++) {
				free(set->changes[i].field);
				free(set->changes[i].values);
			}
			free(set->changes);
		}
		free(bl->sets);
	}
	free(sw->blocks);
	free(sw->text);
	free(sw->path);
	free(sw);
}

/* ---- variants --------------------------------------------------------- */

static void replace(double **dst, int *n_dst, const double *src, int n)
{
	free(*dst);
	*dst = vs_xcalloc((size_t)n, sizeof **dst);
	memcpy(*dst, src, (size_t)n * sizeof *src);
	*n_dst = n;
}

/* Applies one change to actor a of variant v. */
static int apply_change(vs_scenario *v, vs_actor_spec *a,
                        const vs_change_set *set, const vs_change *ch,
                        const char *path, vs_error *err)
{
	vs_plugin_use *use;
	int j;
	switch (ch->prop) {
	case VS_PROP_WAYPOINTS:
		replace(&a->waypoints, &a->n_waypoints, ch->values, ch->n);
		a->n_waypoints = ch->n / 3;
		free(a->yaw); /* the seed's yaws belonged to the old route */
		a->yaw = NULL;
		a->n_yaw = 0;
		if (!a->has_start)
			vs_actor_spec_start_from_waypoints(a);
		return 0;
	case VS_PROP_SPEED: /* kept as given; the behaviour applies P vs M */
		replace(&a->speed, &a->n_speed, ch->values, ch->n);
		return 0;
	case VS_PROP_YAW:
		replace(&a->yaw, &a->n_yaw, ch->values, ch->n);
		return 0;
	case VS_PROP_START:
		if (!strcmp(ch->field, "yaw"))
			a->start_yaw = ch->values[0];
		else
			memcpy(a->start_pos, ch->values, sizeof a->start_pos);
		a->has_start = 1;
		return 0;
	case VS_PROP_DIMENSION: /* all of the actor's at once, in order */
		if (find_change(set, ch->actor, ch->prop) != ch)
			return 0;
		return apply_dimensions(a, v->assets[a->asset].n_axles, set, path,
		                        err);
	case VS_PROP_PARAM:
		use = ch->field[0] == 'v' ? &a->vehicle_model : &a->behaviour;
		j = vs_plugin_use_param(use, strchr(ch->field, '.') + 1);
		if (j < 0) { /* only with a seed other than the sweep's */
			vs_error_at(err, path, ch->mark,
			            "actor %lld: %s is not a param of its bound "
			            "plugin", (long long)ch->actor, ch->field);
			return -1;
		}
		use->params[j] = ch->values[0];
		return 0;
	}
	return 0;
}

/* Applies one variant's changes to v (a clone of the seed): routes first,
 * then what depends on them (yaws, a derived start), dimensions, params. */
static int apply_set(vs_scenario *v, const vs_change_set *set,
                     const char *path, vs_error *err)
{
	static const vs_prop order[] = {VS_PROP_WAYPOINTS, VS_PROP_SPEED,
	                                VS_PROP_YAW, VS_PROP_START,
	                                VS_PROP_DIMENSION, VS_PROP_PARAM};
	for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
		for (int i = 0; i < set->n; i++) {
			const vs_change *ch = &set->changes[i];
			if (ch->prop != order[o])
				continue;
			int idx = vs_scenario_find_actor(v, ch->actor);
			if (idx < 0) {
				vs_error_at(err, path, ch->mark,
				            "actor %lld is not in this scenario",
				            (long long)ch->actor);
				return -1;
			}
			if (apply_change(v, &v->actors[idx], set, ch, path, err))
				return -1;
		}
	}
	return 0;
}

/* "%.17g" so every double reads back to the same bits. */
static void json_values(FILE *f, const vs_change *ch)
{
	int scalar = ch->n == 1 && ch->prop != VS_PROP_YAW;
	int rows = ch->prop == VS_PROP_WAYPOINTS;
	fputs(scalar ? "" : "[", f);
	for (int i = 0; i < ch->n; i++) {
		if (rows && i % 3 == 0)
			fputs(i ? ",[" : "[", f);
		else if (i)
			fputc(',', f);
		fprintf(f, "%.17g", ch->values[i]);
		if (rows && i % 3 == 2)
			fputc(']', f);
	}
	fputs(scalar ? "" : "]", f);
}

/* The JSON object a change sits in under its actor, into g ("" for a
 * top-level key: speed, waypoints, yaw); returns the change's own key.
 * Names are [A-Za-z0-9_] (the registry checks param names), so they need
 * no escaping. */
static const char *json_key(const vs_change *ch, char g[16])
{
	const char *dot;
	g[0] = 0;
	switch (ch->prop) {
	case VS_PROP_DIMENSION:
		snprintf(g, 16, "dimension");
		return ch->field;
	case VS_PROP_START:
		snprintf(g, 16, "start");
		return ch->field;
	case VS_PROP_PARAM: /* vehicle_model.X or behaviour.X */
		dot = strchr(ch->field, '.');
		snprintf(g, 16, "%.*s", (int)(dot - ch->field), ch->field);
		return dot + 1;
	default:
		return prop_name(ch->prop);
	}
}

/* Whether change j belongs to actor id and JSON group g. */
static int in_group(const vs_change_set *set, int j, int64_t id,
                    const char *g)
{
	char g2[16];
	if (set->changes[j].actor != id)
		return 0;
	json_key(&set->changes[j], g2);
	return g2[0] && !strcmp(g, g2);
}

/* {"actor1":{"speed":10,"vehicle_model":{"lf":1.5}}}: actors in the order
 * they first appear, keys in the order of the changes, a group (dimension,
 * start, vehicle_model, behaviour) whole where its first change is. */
static char *params_json(const vs_change_set *set)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	if (!f) {
		fputs("vsweep: out of memory\n", stderr);
		abort();
	}
	fputc('{', f);
	int actors = 0;
	for (int i = 0; i < set->n; i++) {
		int64_t id = set->changes[i].actor;
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = set->changes[j].actor == id;
		if (seen)
			continue;
		fprintf(f, "%s\"actor%lld\":{", actors++ ? "," : "",
		        (long long)id);
		int keys = 0;
		for (int k = i; k < set->n; k++) {
			const vs_change *ch = &set->changes[k];
			char g[16];
			const char *key = json_key(ch, g);
			if (ch->actor != id)
				continue;
			if (!g[0]) {
				fprintf(f, "%s\"%s\":", keys++ ? "," : "", key);
				json_values(f, ch);
				continue;
			}
			int done = 0;
			for (int j = i; j < k && !done; j++)
				done = in_group(set, j, id, g);
			if (done)
				continue;
			fprintf(f, "%s\"%s\":{", keys++ ? "," : "", g);
			int inner = 0;
			for (int j = k; j < set->n; j++) {
				char g2[16];
				if (!in_group(set, j, id, g))
					continue;
				fprintf(f, "%s\"%s\":", inner++ ? "," : "",
				        json_key(&set->changes[j], g2));
				json_values(f, &set->changes[j]);
			}
			fputc('}', f);
		}
		fputc('}', f);
	}
	fputc('}', f);
	fclose(f);
	return text;
}

vs_scenario *vs_sweep_variant(const vs_sweep *sw, const vs_scenario *seed,
                              uint64_t i, char **json, vs_error *err)
{
	if (json)
		*json = NULL;
	const char *path = sw->path ? sw->path : "<sweep>";
	if (i >= sw->count) {
		vs_error_at(err, path, (vs_mark){0, 0},
		            "variant %llu is out of range: the sweep has %llu",
		            (unsigned long long)i, (unsigned long long)sw->count);
		return NULL;
	}
	const vs_block *b = sw->blocks;
	while (i >= b->count) /* the counts sum to sw->count */
		i -= (b++)->count;
	/* Each block kind maps its local index to a change set. */
	const vs_change_set *set = &b->sets[i]; /* VS_BLOCK_LIST */
	vs_scenario *v = vs_scenario_clone(seed);
	if (apply_set(v, set, path, err)) {
		vs_scenario_destroy(v);
		return NULL;
	}
	if (json)
		*json = params_json(set);
	return v;
}
