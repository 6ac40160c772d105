/* The values of a sweep file (sweep_values.h): the actor a change names,
 * property keys resolved through the property table, and one value of a
 * property read and checked against its domain. Calls only
 * sweep_props.c of the sweep loader. */
#include "input/sweep_values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "map/map.h"

typedef vs_sweep_ctx ctx;

/* start.s and start.offset: a start in lane coordinates, moved. */
static int lane_prop(const vs_prop_def *d)
{
	return d->prop == VS_PROP_START &&
	       (!strcmp(d->field, "s") || !strcmp(d->field, "offset"));
}

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
	pk->field = pk->name = path;
	pk->param = &d->params[j];
	return 0;
}

int vs_sweep_propkey(ctx *c, const vs_actor_spec *a, const vs_ynode *key,
                     const vs_ynode *pn, vs_propkey *pk)
{
	const vs_prop_def *d = vs_prop_def_find(key->str);
	*pk = (vs_propkey){.def = d, .name = key->str, .actor = a,
	                   .mark = key->mark};
	if (!d) { /* the callers' key checks let nothing else through */
		vs_error_at(c->err, c->doc->path, key->mark,
		            "'%s' is not a property", key->str);
		return -1;
	}
	if (d->prop == VS_PROP_PARAM)
		return param_key(c, a, pn, pk);
	pk->field = d->field;
	if (lane_prop(d) && !a->start_road) {
		/* Every variant would fail when it is built. */
		vs_error_at(c->err, c->doc->path, key->mark,
		            "actor %lld: %s needs a start position in lane "
		            "coordinates ({road, lane, s, offset}); the "
		            "scenario gives this actor's start %s", (long long)a->id,
		            d->name, a->has_start ? "in x y z"
		                                  : "by its waypoints");
		return -1;
	}
	return 0;
}

/* m: how far an overhang may go below the asset's own negative one,
 * rounding only: that one is worked out from the asset's box and axles
 * (6 - 6.6 m is -0.5999999999999996), a sweep writes it as -0.6. The
 * body rules allow the same (BODY_SLACK, variant_build.c). */
#define OVERHANG_SLACK 1e-9

/* dimension.front_overhang and rear_overhang: each places one axle
 * (geom/geometry.c), its own distance from its end of the box, so it is
 * that axle's margin in the body rule "every axle inside the body"
 * (variant_build.c): >= 0 (an axle may touch the box), or, when the
 * seed's asset puts that axle outside its box (a trailer's rear axle
 * behind it), no further out than the asset's. That bound, m, into *lo;
 * 0 for other properties. */
static int overhang_prop(const vs_prop_def *d, const vs_actor_spec *a,
                         double *lo)
{
	if (d->prop != VS_PROP_DIMENSION || !strstr(d->field, "overhang"))
		return 0;
	double own = !strcmp(d->field, "front_overhang") ? a->front_overhang
	                                                 : a->rear_overhang;
	*lo = own < 0 ? own : 0;
	return 1;
}

/* "must be >= -0.6 m (the rearmost axle inside the body, or behind it
 * by no more than the asset's 0.6 m)" for overhang row d, into buf. */
static void overhang_rule(char *buf, size_t size, const vs_prop_def *d,
                          const vs_actor_spec *a, double lo)
{
	int front = !strcmp(d->field, "front_overhang");
	char asset[96] = "";
	if (lo < 0)
		snprintf(asset, sizeof asset, ", or %s it by no more than the "
		         "asset's %g m", front ? "ahead of" : "behind", -lo);
	snprintf(buf, size, "actor %lld: %s must be >= %g m (the %s axle "
	         "inside the body%s)", (long long)a->id, d->name, lo,
	         front ? "front" : "rearmost", asset);
}

int vs_sweep_actor_domain(ctx *c, const vs_propkey *pk, double x,
                          char *why, size_t why_size)
{
	const vs_prop_def *d = pk->def;
	const vs_actor_spec *a = pk->actor;
	long long id = (long long)a->id;
	double lo;
	if (overhang_prop(d, a, &lo)) {
		if (x >= (lo < 0 ? lo - OVERHANG_SLACK : 0))
			return 0;
		char rule[256];
		overhang_rule(rule, sizeof rule, d, a, lo);
		snprintf(why, why_size, "%s, got %g", rule, x);
		return -1;
	}
	if (lane_prop(d)) {
		int s = !strcmp(d->field, "s");
		double len;
		char m[400];
		if (!vs_map_lane_span(c->seed->map, a->start_road, a->start_lane,
		                      s ? x : a->start_s, s ? x : a->start_s,
		                      s ? a->start_offset : x, &len, m,
		                      sizeof m))
			return 0;
		snprintf(why, why_size, "actor %lld: %s: %s", id, d->name, m);
		return -1;
	}
	if (d->prop != VS_PROP_ATTACH || !strcmp(d->field, "offset") ||
	    !a->attach.present) /* the rules refuse attach.* then */
		return 0;
	/* degrees, as the scenario's attach: takes them */
	if (!(x >= -180 && x <= 180)) {
		snprintf(why, why_size, "actor %lld: %s must be in [-180, 180] "
		         "deg, got %g", id, d->name, x);
		return -1;
	}
	if (!strcmp(d->field, "slope") && x != 0 &&
	    a->attach.type == VS_ATTACH_TRAILER) {
		snprintf(why, why_size, "actor %lld: attach.slope: a trailer's "
		         "wheels stay on the ground, so its slope must be 0", id);
		return -1;
	}
	return 0;
}

int vs_sweep_actor_span(ctx *c, const vs_propkey *pk, double lo, double hi,
                        vs_mark mark)
{
	const vs_actor_spec *a = pk->actor;
	double len;
	char m[400];
	/* The other domains are intervals: their ends say it all. */
	if (!lane_prop(pk->def) || strcmp(pk->def->field, "s") ||
	    !vs_map_lane_span(c->seed->map, a->start_road, a->start_lane, lo,
	                      hi, a->start_offset, &len, m, sizeof m))
		return 0;
	vs_error_at(c->err, c->doc->path, mark, "actor %lld: start.s: for s "
	            "in [%g, %g] m: %s", (long long)a->id, lo, hi, m);
	return -1;
}

int vs_sweep_actor_bound(ctx *c, const vs_propkey *pk, double x, char *buf,
                         size_t size)
{
	const vs_prop_def *d = pk->def;
	const vs_actor_spec *a = pk->actor;
	long long id = (long long)a->id;
	char why[512];
	double len;
	if (!vs_sweep_actor_domain(c, pk, x, why, sizeof why))
		return 0;
	if (overhang_prop(d, a, &len))
		overhang_rule(buf, size, d, a, len);
	else if (!lane_prop(d)) /* an attach angle */
		snprintf(buf, size, "actor %lld: %s must be in [-180, 180] deg",
		         id, d->name);
	else if (!strcmp(d->field, "s") &&
	         (vs_map_lane_span(c->seed->map, a->start_road, a->start_lane,
	                           x, x, a->start_offset, &len, why,
	                           sizeof why), isfinite(len)))
		snprintf(buf, size, "actor %lld: start.s must keep the start on "
		         "road '%s' (s from 0 to %g m)", id, a->start_road, len);
	else
		snprintf(buf, size, "actor %lld: %s must keep the start on "
		         "road '%s'", id, d->name, a->start_road);
	return 1;
}

int vs_sweep_in_domain(const vs_propkey *pk, double x)
{
	if (pk->param)
		return x >= pk->param->min && x <= pk->param->max;
	if (pk->def->sign == VS_Y_POSITIVE)
		return x > 0;
	if (pk->def->sign == VS_Y_NONNEG)
		return x >= 0;
	return 1;
}

int vs_sweep_read_number(ctx *c, const vs_propkey *pk, const vs_ynode *node,
                         const char *what, double *x)
{
	if (vs_y_number(c->doc, node, what, pk->def->sign, x, c->err))
		return -1;
	if (pk->param && !vs_sweep_in_domain(pk, *x)) {
		const vs_param *p = pk->param;
		char lo[VS_NUM_CHARS], hi[VS_NUM_CHARS];
		vs_error_at(c->err, c->doc->path, node->mark,
		            "%s: %s = %.15g is outside [%s, %s]%s%s", what,
		            pk->name, *x, vs_num(p->min, lo), vs_num(p->max, hi),
		            p->unit && *p->unit ? " " : "",
		            p->unit ? p->unit : "");
		return -1;
	}
	char why[512];
	if (!pk->param && vs_sweep_actor_domain(c, pk, *x, why, sizeof why)) {
		vs_error_at(c->err, c->doc->path, node->mark, "%s", why);
		return -1;
	}
	return 0;
}

int vs_sweep_read_value(ctx *c, const vs_propkey *pk, const vs_ynode *val,
                        const char *what, double **v, int *n)
{
	const vs_ydoc *doc = c->doc;
	int sign = pk->def->sign;
	*v = NULL;
	*n = 0;
	switch (pk->def->shape) {
	case VS_SHAPE_SPEED:
		return vs_y_numbers(doc, val, what, VS_Y_SCALAR_OK | sign, v, n,
		                    c->err);
	case VS_SHAPE_LIST:
		return vs_y_numbers(doc, val, what, sign, v, n, c->err);
	case VS_SHAPE_ROWS:
		/* rows [x, y, z], or points in lane coordinates on the seed's
		 * map, resolved here as the scenario resolves its own */
		if (vs_map_parse_points(doc, val, c->seed->map, what, 2, v, n,
		                        c->err))
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

int vs_sweep_need(ctx *c, const vs_ynode *m, const char *key,
                  const char *what, const vs_ynode **out)
{
	*out = vs_ymap_get(m, key);
	if (*out)
		return 0;
	vs_error_at(c->err, c->doc->path, m->mark,
	            "%s: missing required key '%s'", what, key);
	return -1;
}
