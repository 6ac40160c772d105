/* Variant i of a sweep: its changes (a pure function of the sweep and i),
 * the scenario they make from the seed, and the params JSON stored with
 * its results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/sweep_internal.h"

static const vs_change *find_change(const vs_change_set *set, int64_t actor,
                                    vs_prop prop)
{
	for (int i = 0; i < set->n; i++)
		if (set->changes[i].actor == actor && set->changes[i].prop == prop)
			return &set->changes[i];
	return NULL;
}

/* Applies an actor's dimension changes to a: sizes first, then overhangs,
 * so an overhang given in the same variant wins over the one a length
 * change implies. A length change keeps the axles where they are relative
 * to the front bumper (front_overhang and the axle spacing stay, so the
 * wheelbase stays): the rear bumper moves, and rear_overhang grows by the
 * change in length. In the actor frame every axle's y shifts by
 * dlength / 2, since the origin stays at the middle of the box. */
int vs_sweep_apply_dimensions(vs_actor_spec *a, int n_axles,
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

/* ---- building the variant ---------------------------------------------- */

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
		/* A start given in part keeps the rest of the one the seed
		 * gave or the waypoints imply (applied before this). */
		if (!strcmp(ch->field, "yaw"))
			a->start_yaw = ch->values[0];
		else if (!strcmp(ch->field, "position"))
			memcpy(a->start_pos, ch->values, sizeof a->start_pos);
		else /* "x", "y" or "z" */
			a->start_pos[ch->field[0] - 'x'] = ch->values[0];
		a->has_start = 1;
		return 0;
	case VS_PROP_DIMENSION: /* all of the actor's at once, in order */
		if (find_change(set, ch->actor, ch->prop) != ch)
			return 0;
		return vs_sweep_apply_dimensions(a, v->assets[a->asset].n_axles,
		                                 set, path, err);
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
		return vs_sweep_prop_name(ch->prop);
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


/* ---- variant i -------------------------------------------------------- */

void vs_change_buf_init(vs_change_buf *b, const vs_sweep *sw)
{
	b->cap = sw->max_changes;
	b->set = (vs_change_set){0, NULL, {0, 0}};
	b->set.changes = vs_xcalloc((size_t)b->cap + 1, sizeof *b->set.changes);
	b->draws = vs_xcalloc((size_t)b->cap + 1, sizeof *b->draws);
}

void vs_change_buf_finish(vs_change_buf *b)
{
	free(b->set.changes);
	free(b->draws);
	*b = (vs_change_buf){{0, NULL, {0, 0}}, NULL, 0};
}

int vs_sweep_changes(const vs_sweep *sw, uint64_t i, vs_change_buf *b,
                     vs_error *err)
{
	if (i >= sw->count) {
		vs_error_at(err, sw->path ? sw->path : "<sweep>", (vs_mark){0, 0},
		            "variant %llu is out of range: the sweep has %llu",
		            (unsigned long long)i, (unsigned long long)sw->count);
		return -1;
	}
	/* The last block that starts at or before i. */
	int lo = 0, hi = sw->n_blocks - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (sw->blocks[mid].first <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	const vs_block *bl = &sw->blocks[lo];
	if (bl->kind != VS_BLOCK_LIST) {
		vs_sweep_axes_changes(sw, bl, i, b);
		return 0;
	}
	/* The changes are the sweep's own; the set only points at them. */
	const vs_change_set *set = &bl->sets[i - bl->first];
	if (set->n) /* an empty set may have no array at all */
		memcpy(b->set.changes, set->changes,
		       (size_t)set->n * sizeof *set->changes);
	b->set.n = set->n;
	b->set.mark = set->mark;
	return 0;
}

vs_scenario *vs_sweep_variant(const vs_sweep *sw, const vs_scenario *seed,
                              uint64_t i, char **json, vs_error *err)
{
	if (json)
		*json = NULL;
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	vs_scenario *v = NULL;
	if (vs_sweep_changes(sw, i, &b, err))
		goto out;
	v = vs_scenario_clone(seed);
	if (apply_set(v, &b.set, sw->path ? sw->path : "<sweep>", err)) {
		vs_scenario_destroy(v);
		v = NULL;
		goto out;
	}
	if (json)
		*json = params_json(&b.set);
out:
	vs_change_buf_finish(&b);
	return v;
}
