/* List blocks (sweep_list.h): change mappings read into change sets, one
 * per variant, each checked with all of varyActorProperties' rules. Which
 * keys a change takes comes from the property table. Calls the layers
 * below it (sweep_values.c, sweep_rules.c, sweep_props.c,
 * variant_build.c), nothing above. */
#include "input/sweep_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/sweep_rules.h"
#include "input/variant_build.h"

typedef vs_sweep_ctx ctx;

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
	add_change(set, a->id, pk->def->prop, pk->field, pk->mark, v, n);
	return 0;
}

/* dimension: {...} or start: {...}: one change per field given, each read
 * as dimension.FIELD or start.FIELD is. */
static int add_fields(ctx *c, vs_change_set *set, const vs_actor_spec *a,
                      const vs_ynode *key, const vs_ynode *m)
{
	const char *fields[VS_PROP_MAX_KEYS];
	vs_prop_keys(VS_KEYS_GROUP, key->str, fields);
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
	if (vs_prop_is_group(key->str))
		return add_fields(c, set, a, key, val);
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
	const char *keys[VS_PROP_MAX_KEYS];
	const vs_actor_spec *a;
	vs_prop_keys(VS_KEYS_CHANGE, NULL, keys);
	if (vs_y_check_keys(c->doc, m, "change", keys, c->err) ||
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
		char kinds[128];
		vs_prop_kinds_text(kinds, sizeof kinds);
		vs_error_at(c->err, c->doc->path, m->mark,
		            "change: actor %lld: give a property to change (%s)",
		            (long long)a->id, kinds);
		return -1;
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
		const vs_change *wp = vs_change_find(set, ch->actor,
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
		    vs_change_find(set, ch->actor, VS_PROP_DIMENSION) != ch)
			continue;
		int idx = vs_scenario_find_actor(c->seed, ch->actor);
		vs_actor_spec tmp = c->seed->actors[idx];
		if (vs_sweep_apply_dimensions(&tmp, &c->seed->assets[tmp.asset],
		                              set, path, c->err))
			return -1;
	}
	return 0;
}

/* The longest label, bytes: a name, not a note. */
#define VS_LABEL_MAX 200

/* {label: NAME, changes: [...]}: the label into set, *changes to the
 * list of changes. */

/* Printable only, so that every output (CSV, JSON, a terminal) shows a
 * label as written, on one line: no C0 control or DEL, no C1 control
 * (U+0080-U+009F, NEL among them) and no U+2028 / U+2029, which break a
 * line for a Unicode reader. libyaml has checked the UTF-8; the position
 * is counted in characters. */
static int check_label_text(ctx *c, const vs_ynode *ln, const char *label)
{
	const unsigned char *s = (const unsigned char *)label;
	size_t chars = 0;
	for (size_t k = 0; s[k]; k++) {
		if ((s[k] & 0xc0) == 0x80)
			continue; /* a continuation byte: same character */
		chars++;
		const char *what = NULL;
		unsigned code = 0;
		if (s[k] < 0x20 || s[k] == 0x7f) {
			vs_error_at(c->err, c->doc->path, ln->mark,
			            "label: control character (code %d) at "
			            "character %zu; a label is one line of "
			            "printable text", s[k], chars);
			return -1;
		}
		if (s[k] == 0xc2 && s[k + 1] >= 0x80 && s[k + 1] <= 0x9f) {
			what = "control character";
			code = s[k + 1];
		} else if (s[k] == 0xe2 && s[k + 1] == 0x80 &&
		           (s[k + 2] == 0xa8 || s[k + 2] == 0xa9)) {
			what = s[k + 2] == 0xa8 ? "line separator"
			                        : "paragraph separator";
			code = 0x2000 + s[k + 2] - 0x80;
		}
		if (what) {
			vs_error_at(c->err, c->doc->path, ln->mark,
			            "label: %s U+%04X at character %zu; a label "
			            "is one line of printable text", what, code,
			            chars);
			return -1;
		}
	}
	return 0;
}

static int parse_entry(ctx *c, const vs_ynode *e, vs_change_set *set,
                       const vs_ynode **changes)
{
	const vs_ynode *ln = vs_ymap_get(e, "label");
	const char *label = NULL;
	if (vs_ymap_get(e, "actor") && !vs_ymap_get(e, "changes")) {
		/* a change written where its list belongs */
		vs_error_at(c->err, c->doc->path, e->mark,
		            "list entry (one variant: a list of changes, or "
		            "{label: NAME, changes: [...]}): expected a list, "
		            "got a mapping of a change; write [{actor: ...}]");
		return -1;
	}
	if (vs_y_check_keys(c->doc, e, "list entry", vs_keys_entry, c->err) ||
	    vs_sweep_need(c, e, "changes", "list entry", changes))
		return -1;
	if (!ln)
		return 0;
	if (ln->kind != VS_Y_SCALAR || vs_y_is_null(ln)) {
		char got[64];
		vs_error_at(c->err, c->doc->path, ln->mark,
		            "label: expected a string, got %s",
		            vs_y_describe(ln, got, sizeof got));
		return -1;
	}
	if (vs_y_string(c->doc, ln, "label", &label, c->err))
		return -1;
	size_t len = strlen(label);
	if (check_label_text(c, ln, label))
		return -1;
	if (len > VS_LABEL_MAX) {
		vs_error_at(c->err, c->doc->path, ln->mark,
		            "label: %zu bytes long; at most %d", len,
		            VS_LABEL_MAX);
		return -1;
	}
	set->label = vs_strdup(label);
	if (c->n_labels == c->cap_labels) {
		c->cap_labels = c->cap_labels ? 2 * c->cap_labels : 16;
		c->labels = vs_xrealloc(c->labels, (size_t)c->cap_labels *
		                                       sizeof *c->labels);
	}
	c->labels[c->n_labels++] = (struct vs_label_ref){set->label, ln->mark};
	return 0;
}

int vs_sweep_parse_list(ctx *c, const vs_ynode *body, vs_block *b)
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
		if (e->kind == VS_Y_MAP && parse_entry(c, e, set, &e))
			return -1;
		if (vs_y_seq(c->doc, e, "list entry (one variant: a list of "
		                        "changes, or {label: NAME, changes: "
		                        "[...]})", c->err))
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

void vs_sweep_list_free(vs_block *b)
{
	for (int s = 0; s < b->n_sets; s++) {
		vs_change_set *set = &b->sets[s];
		for (int i = 0; i < set->n; i++) {
			free(set->changes[i].field);
			free(set->changes[i].values);
		}
		free(set->changes);
		free(set->label);
	}
	free(b->sets);
	b->sets = NULL;
	b->n_sets = 0;
}
