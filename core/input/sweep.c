/* Sweep files: the blocks of variants of the seed scenario, the changes
 * they make, validated against the seed with varyActorProperties' rules,
 * and list blocks. Grid and random blocks are in sweep_blocks.c, building
 * a variant in sweep_variant.c. */
#include "input/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/sweep_internal.h"

typedef vs_sweep_ctx ctx;

static const char *const sweep_keys[] = {"vsweep", "seed", "blocks", NULL};
static const char *const change_keys[] = {
	"actor", "speed", "waypoints", "yaw", "dimension", "dimension.length",
	"dimension.width", "dimension.height", "dimension.front_overhang",
	"dimension.rear_overhang", "start", "start.position", "start.yaw",
	"start.x", "start.y", "start.z", "param", "value", NULL};
static const char *const dim_fields[] = {
	"length", "width", "height", "front_overhang", "rear_overhang", NULL};
static const char *const start_fields[] = {"position", "yaw", "x", "y", "z",
                                           NULL};

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* ---- properties ------------------------------------------------------- */

int vs_sweep_actor(ctx *c, const vs_ynode *m, const char *what,
                   const vs_actor_spec **a)
{
	const vs_ynode *an = vs_ymap_get(m, "actor");
	int64_t id;
	if (!an) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: missing required key 'actor'", what);
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
	*a = &c->seed->actors[idx];
	return 0;
}

/* param: vehicle_model.NAME or behaviour.NAME, a param of the plugin the
 * actor's seed binds. */
static int param_key(ctx *c, const vs_actor_spec *a, const vs_ynode *pn,
                     vs_propkey *pk)
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
	pk->prop = VS_PROP_PARAM;
	pk->field = pk->name = path;
	pk->param = &d->params[j];
	return 0;
}

int vs_sweep_propkey(ctx *c, const vs_actor_spec *a, const vs_ynode *key,
                     const vs_ynode *pn, vs_propkey *pk)
{
	const char *k = key->str;
	*pk = (vs_propkey){.name = k, .shape = VS_SHAPE_NUMBER,
	                   .sign = VS_Y_ANY, .mark = key->mark};
	if (!strcmp(k, "speed")) {
		pk->prop = VS_PROP_SPEED;
		pk->shape = VS_SHAPE_SPEED;
		pk->sign = VS_Y_NONNEG;
	} else if (!strcmp(k, "waypoints")) {
		pk->prop = VS_PROP_WAYPOINTS;
		pk->shape = VS_SHAPE_ROWS;
	} else if (!strcmp(k, "yaw")) {
		pk->prop = VS_PROP_YAW;
		pk->shape = VS_SHAPE_LIST;
	} else if (!strncmp(k, "dimension.", 10) && in_list(k + 10, dim_fields)) {
		pk->prop = VS_PROP_DIMENSION;
		pk->field = k + 10;
		pk->sign = VS_Y_POSITIVE;
	} else if (!strncmp(k, "start.", 6) && in_list(k + 6, start_fields)) {
		pk->prop = VS_PROP_START;
		pk->field = k + 6;
		if (!strcmp(pk->field, "position"))
			pk->shape = VS_SHAPE_VEC3;
	} else if (!strcmp(k, "param")) {
		return param_key(c, a, pn, pk);
	} else { /* the callers' key checks let nothing else through */
		vs_error_at(c->err, c->doc->path, key->mark,
		            "'%s' is not a property", k);
		return -1;
	}
	return 0;
}

int vs_sweep_in_domain(const vs_propkey *pk, double x)
{
	if (pk->param)
		return x >= pk->param->min && x <= pk->param->max;
	if (pk->sign == VS_Y_POSITIVE)
		return x > 0;
	if (pk->sign == VS_Y_NONNEG)
		return x >= 0;
	return 1;
}

int vs_sweep_read_number(ctx *c, const vs_propkey *pk, const vs_ynode *node,
                         const char *what, double *x)
{
	if (vs_y_number(c->doc, node, what, pk->sign, x, c->err))
		return -1;
	if (pk->param && !vs_sweep_in_domain(pk, *x)) {
		const vs_param *p = pk->param;
		vs_error_at(c->err, c->doc->path, node->mark,
		            "%s: %s = %g is outside [%g, %g]%s%s", what, pk->name,
		            *x, p->min, p->max, p->unit && *p->unit ? " " : "",
		            p->unit ? p->unit : "");
		return -1;
	}
	return 0;
}

int vs_sweep_read_value(ctx *c, const vs_propkey *pk, const vs_ynode *val,
                        const char *what, double **v, int *n)
{
	const vs_ydoc *doc = c->doc;
	*v = NULL;
	*n = 0;
	switch (pk->shape) {
	case VS_SHAPE_SPEED:
		return vs_y_numbers(doc, val, what, VS_Y_SCALAR_OK | pk->sign, v,
		                    n, c->err);
	case VS_SHAPE_LIST:
		return vs_y_numbers(doc, val, what, pk->sign, v, n, c->err);
	case VS_SHAPE_ROWS:
		if (vs_y_rows(doc, val, what, 3, 2, VS_Y_DISTINCT, v, n, c->err))
			return -1;
		*n *= 3; /* n counts values, not rows */
		return 0;
	case VS_SHAPE_VEC3:
		*v = vs_xcalloc(3, sizeof **v);
		*n = 3;
		break;
	case VS_SHAPE_NUMBER:
		*v = vs_xcalloc(1, sizeof **v);
		*n = 1;
		break;
	}
	if (*n == 3 ? vs_y_vec(doc, val, what, 3, *v, c->err)
	            : vs_sweep_read_number(c, pk, val, what, *v)) {
		free(*v);
		*v = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

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

/* One property of a change (val its value, what its name in messages). */
static int add_value(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                     const vs_propkey *pk, const vs_ynode *val,
                     const char *what)
{
	double *v;
	int n;
	if (vs_sweep_read_value(c, pk, val, what, &v, &n))
		return -1;
	add_change(set, a->id, pk->prop, pk->field, pk->mark, v, n);
	return 0;
}

/* dimension: {...} or start: {...}: one change per field given, each read
 * as dimension.FIELD or start.FIELD is. */
static int add_fields(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                      const vs_ynode *key, const vs_ynode *m,
                      const char *const *fields)
{
	if (vs_y_check_keys(c->doc, m, key->str, fields, c->err))
		return -1;
	if (m->n == 0) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "%s: give at least one field", key->str);
		return -1;
	}
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *fk = vs_ymap_key(m, i);
		char name[64];
		snprintf(name, sizeof name, "%s.%s", key->str, fk->str);
		vs_ynode dotted = *fk; /* the field's key, under its full name */
		dotted.str = name;
		vs_propkey pk;
		if (vs_sweep_propkey(c, a, &dotted, NULL, &pk))
			return -1;
		pk.field = fk->str; /* name is on the stack */
		pk.name = fk->str;
		if (add_value(c, set, a, &pk, vs_ymap_value(m, i), fk->str))
			return -1;
	}
	return 0;
}

/* One property key of a change mapping (anything but actor and value). */
static int add_prop(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                    const vs_ynode *m, const vs_ynode *key,
                    const vs_ynode *val)
{
	if (!strcmp(key->str, "dimension"))
		return add_fields(c, set, a, key, val, dim_fields);
	if (!strcmp(key->str, "start"))
		return add_fields(c, set, a, key, val, start_fields);
	vs_propkey pk;
	int param = !strcmp(key->str, "param");
	if (vs_sweep_propkey(c, a, key, param ? val : NULL, &pk))
		return -1;
	if (!param)
		return add_value(c, set, a, &pk, val, key->str);
	const vs_ynode *value = vs_ymap_get(m, "value");
	if (!value) {
		vs_error_at(c->err, c->doc->path, key->mark,
		            "param %s needs a value (value: NUMBER)", pk.name);
		return -1;
	}
	return add_value(c, set, a, &pk, value, "value");
}

/* A change mapping: actor: ID plus one or more properties; each property
 * (each field of dimension and start) becomes one vs_change. */
static int parse_change(ctx *c, const vs_ynode *m, vs_change_set *set)
{
	const vs_actor_spec *a;
	if (vs_y_check_keys(c->doc, m, "change", change_keys, c->err) ||
	    vs_sweep_actor(c, m, "change", &a))
		return -1;
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
		if (add_prop(c, set, a, m, k, vs_ymap_value(m, i)))
			return -1;
	}
	if (!props) {
		vs_error_at(c->err, c->doc->path, m->mark,
		            "change: actor %lld: give a property to change "
		            "(speed, waypoints, yaw, dimension, start or param)",
		            (long long)a->id);
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

const char *vs_sweep_prop_name(vs_prop p)
{
	static const char *const names[] = {"speed", "waypoints", "yaw",
	                                    "dimension", "param", "start"};
	return names[p];
}

/* A start coordinate (x, y, z) and the whole position overlap. */
static int start_overlap(const vs_change *a, const vs_change *b)
{
	if (a->prop != VS_PROP_START || b->prop != VS_PROP_START)
		return 0;
	int pa = !strcmp(a->field, "position"), pb = !strcmp(b->field, "position");
	return pa != pb && strcmp(a->field, "yaw") && strcmp(b->field, "yaw");
}

int vs_sweep_check_rules(ctx *c, const vs_change_set *set, const char *scope)
{
	const char *path = c->doc->path;
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		long long id = (long long)ch->actor;
		for (int j = 0; j < i; j++) {
			const vs_change *o = &set->changes[j];
			if (o->actor != ch->actor)
				continue;
			if (start_overlap(o, ch)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: start.%s and start.%s (at "
				            "line %d) both set the start position; "
				            "give one", id, ch->field, o->field,
				            o->mark.line);
				return -1;
			}
			if (o->prop != ch->prop || !same_field(o->field, ch->field))
				continue;
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: %s%s%s is changed twice in this "
			            "%s (first at line %d)", id,
			            vs_sweep_prop_name(ch->prop), ch->field ? " " : "",
			            ch->field ? ch->field : "", scope, o->mark.line);
			return -1;
		}
		const vs_actor_spec *a =
			&c->seed->actors[vs_scenario_find_actor(c->seed, ch->actor)];
		if (a->attach.present && ch->prop != VS_PROP_DIMENSION) {
			/* Its parent places and moves it: a route, start or
			 * plugin change would be stored but have no effect. */
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: is attached to actor %lld, which "
			            "moves it; only its dimension can vary", id,
			            (long long)a->attach.parent_id);
			return -1;
		}
		if (ch->prop == VS_PROP_WAYPOINTS) {
			if (!find_change(set, ch->actor, VS_PROP_SPEED)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: a waypoints change needs a "
				            "speed change for the same actor in the "
				            "same %s", id, scope);
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
		if (ch->prop == VS_PROP_YAW &&
		    (!find_change(set, ch->actor, VS_PROP_WAYPOINTS) ||
		     !find_change(set, ch->actor, VS_PROP_SPEED))) {
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: a yaw change needs waypoints and "
			            "speed changes for the same actor in the same "
			            "%s", id, scope);
			return -1;
		}
	}
	return 0;
}

/* All of varyActorProperties' rules on one list variant. */
static int check_set(ctx *c, const vs_change_set *set)
{
	const char *path = c->doc->path;
	if (vs_sweep_check_rules(c, set, "variant"))
		return -1;
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		const vs_change *wp = find_change(set, ch->actor,
		                                  VS_PROP_WAYPOINTS);
		if (ch->prop == VS_PROP_YAW && ch->n != wp->n / 3) {
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: yaw has %d values for %d "
			            "waypoints; give one per waypoint",
			            (long long)ch->actor, ch->n, wp->n / 3);
			return -1;
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
		if (vs_sweep_apply_dimensions(
			    &tmp, c->seed->assets[tmp.asset].n_axles, set, path,
			    c->err))
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
			if (set->n > VS_MAX_CHANGES) {
				vs_error_at(c->err, c->doc->path, e->kids[k]->mark,
				            "a variant changes at most %d "
				            "properties", VS_MAX_CHANGES);
				return -1;
			}
		}
		if (check_set(c, set))
			return -1;
		if (set->n > c->max_changes)
			c->max_changes = set->n;
	}
	return 0;
}

typedef int (*block_parser)(ctx *c, const vs_ynode *body, vs_block *b);

static const struct {
	const char *key;
	vs_block_kind kind;
	block_parser parse;
} block_kinds[] = {
	{"list", VS_BLOCK_LIST, parse_list},
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
		b->first = sw->count;
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
	ctx c = {doc, seed, err, 0};
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
		vs_sweep_axes_free(bl);
	}
	free(sw->blocks);
	free(sw->text);
	free(sw->path);
	free(sw);
}
