/* Variant scenarios from change sets (variant_build.h): each change is
 * applied where its row of the property table says, and written to the
 * params JSON under the key and group the row gives. Calls only
 * sweep_props.c of the sweep loader. */
#include "input/variant_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/geometry.h"
#include "input/sweep_props.h"
#include "map/map.h"

/* The doubles of a that row d sets (d->member is an offset into it). */
static double *member(vs_actor_spec *a, const vs_prop_def *d)
{
	return (double *)(void *)((char *)a + d->member);
}

/* The body rules' margins of a as it stands (m), in the order
 * vs_sweep_body_margins gives them: 0 the overhangs, 1 the track, 2 the
 * wheelbase, 3 a trailer's tow (its contact point ahead of its axles'
 * centre), then each axle's distance to the front and rear faces, then
 * each imported point's to the front, rear, right and left ones. axle_y
 * receives the axles' y. Returns how many: the same for every a on as. */
enum { M_OVERHANGS, M_TRACK, M_WHEELBASE, M_TOW = VS_BODY_MARGIN_TOW,
       M_AXLES };

/* The body a's dimensions give asset as's axles. */
static vs_geom_body body_of(const vs_actor_spec *a, const vs_asset *as)
{
	return (vs_geom_body){.length = a->length,
	                      .front_overhang = a->front_overhang,
	                      .rear_overhang = a->rear_overhang,
	                      .asset_length = as->length,
	                      .n_axles = as->n_axles,
	                      .asset_axle_y = as->axle_y};
}

/* Whether a is towed as a trailer: it turns about its axles' centre,
 * which its contact point must lie ahead of (input/attach.c checks the
 * seed, sim/attach.c every variant it runs). */
static int towed(const vs_actor_spec *a, const vs_asset *as)
{
	return a->attach.present && a->attach.type == VS_ATTACH_TRAILER &&
	       as->n_axles > 0;
}

/* y (m, actor frame) of a's contact point on body b. */
static double contact_y(const vs_actor_spec *a, const vs_asset *as,
                        const vs_geom_body *b)
{
	const vs_attach_point *pt = &a->attach.child_point;
	const double *p = pt->kind == VS_POINT_IMPORTED && pt->index >= 0 &&
	                          pt->index < as->n_points
	                      ? as->points[pt->index].p
	                      : NULL;
	double q[3];
	vs_geom_point_pos(b, (vs_geom_point)pt->kind, p, q);
	return q[1];
}

static int margins(const vs_actor_spec *a, const vs_asset *as,
                   double m[VS_MAX_BODY_MARGINS], double *axle_y)
{
	vs_geom_body b = body_of(a, as);
	double half = a->length / 2;
	int n = vs_geom_axles(&b, axle_y), k = 0;
	m[k++] = n >= 2 ? a->length - a->front_overhang - a->rear_overhang : 1;
	m[k++] = n >= 1 ? a->width - as->track : 1;
	m[k++] = n >= 2 ? a->length - (axle_y[0] - axle_y[n - 1]) : 1;
	/* the contact point's lead over the centre, past the least the
	 * trailer's yaw rate needs */
	m[k++] = towed(a, as) ? contact_y(a, as, &b) -
	                            vs_geom_axle_centre(axle_y, n) -
	                            VS_GEOM_MIN_TOW
	                      : 1;
	for (int i = 0; i < n; i++) {
		m[k++] = half - axle_y[i];
		m[k++] = half + axle_y[i];
	}
	for (int i = 0; i < as->n_points; i++) {
		double q[3];
		vs_geom_point_pos(&b, VS_GEOM_IMPORTED, as->points[i].p, q);
		m[k++] = half - q[1];
		m[k++] = half + q[1];
		m[k++] = a->width / 2 - q[0];
		m[k++] = a->width / 2 + q[0];
	}
	return k;
}

/* The overhangs, track and wheelbase need their margin positive; an axle
 * or point may touch the box (0). */
static int held(int r, double m)
{
	return r < M_AXLES ? m > 0 : m >= 0;
}

/* How far (m) a margin the seed already breaks may drop below the seed's
 * own: rounding only, as the axles' y are recomputed from the overhangs
 * (a front_overhang change alone leaves the rear axle where it was, give
 * or take the last bit). */
#define BODY_SLACK 1e-9

/* Whether a variant's margin m of rule r keeps the rule (docs/sweep.md,
 * "Dimension changes"): a change must not leave an impossible vehicle.
 * A rule the seed keeps (its margin s) the variant must keep; one the
 * seed's asset already breaks, as a trailer's axle behind its box, the
 * variant may break by as much but no more. */
static int keeps(int r, double m, double s)
{
	return held(r, s) ? held(r, m) : m >= s - BODY_SLACK;
}

/* The message's tail for rule r, into buf: "" when the seed's asset
 * keeps the rule, else by how much the asset breaks it (m), which the
 * variant may match but not pass ("outside it by no more than ..."). */
static const char *asset_was(char *buf, size_t size, int r, const double *s,
                             const char *how)
{
	if (held(r, s[r]))
		return "";
	snprintf(buf, size, ", or %s by no more than the asset's %g m", how,
	         -s[r]);
	return buf;
}

/* A trailer's contact point ahead of its axles' centre: a rule the seed
 * keeps (the scenario refuses one that does not), so every variant must.
 * m are a's margins, axle_y its axles. 0, or -1 with err set at mark in
 * the words of input/attach.c. */
static int check_tow(const vs_actor_spec *a, const vs_asset *as,
                     const double *m, const double *axle_y, vs_mark mark,
                     const char *path, vs_error *err)
{
	if (held(M_TOW, m[M_TOW]))
		return 0;
	vs_geom_body b = body_of(a, as);
	vs_error_at(err, path ? path : "<sweep>", mark,
	            "actor %lld: attach: a trailer's contact point must lie "
	            "ahead of its axles' centre (y = %g m); child_point %s is "
	            "at y = %g m", (long long)a->id,
	            vs_geom_axle_centre(axle_y, as->n_axles),
	            a->attach.child_point.name, contact_y(a, as, &b));
	return -1;
}

/* The rules a varied body must keep (docs/sweep.md, "Rules"): every
 * axle and imported point inside the box, the track narrower than the
 * width, the length longer than the wheelbase; each as keeps() reads it
 * against the seed's body; then a trailer's contact point ahead of its
 * axles' centre. 0, or -1 with err set at mark naming the actor and the
 * rule. */
static int check_body(const vs_actor_spec *a, const vs_actor_spec *seed,
                      const vs_asset *as, vs_mark mark, const char *path,
                      vs_error *err)
{
	long long id = (long long)a->id;
	const char *file = path ? path : "<sweep>";
	double m[VS_MAX_BODY_MARGINS], s[VS_MAX_BODY_MARGINS];
	double axle_y[VS_MAX_AXLES], seed_y[VS_MAX_AXLES];
	int n = as->n_axles;
	margins(a, as, m, axle_y);
	margins(seed, as, s, seed_y);
	char was[96];
	if (!keeps(M_WHEELBASE, m[M_WHEELBASE], s[M_WHEELBASE])) {
		vs_error_at(err, file, mark,
		            "actor %lld: length (%g m) must be longer than the "
		            "wheelbase (%g m)%s", id, a->length,
		            axle_y[0] - axle_y[n - 1],
		            asset_was(was, sizeof was, M_WHEELBASE, s,
		                      "short of it"));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int r = M_AXLES + 2 * i;
		if (!keeps(r, m[r], s[r]) || !keeps(r + 1, m[r + 1], s[r + 1])) {
			r += !keeps(r + 1, m[r + 1], s[r + 1]);
			vs_error_at(err, file, mark,
			            "actor %lld: axle %d (y = %g m) lies outside "
			            "the body (length %g m): an axle must be "
			            "inside the body%s", id, i + 1, axle_y[i],
			            a->length,
			            asset_was(was, sizeof was, r, s, "outside it"));
			return -1;
		}
	}
	vs_geom_body b = body_of(a, as);
	for (int i = 0; i < as->n_points; i++) {
		int r = M_AXLES + 2 * n + 4 * i, bad = -1;
		for (int j = 3; j >= 0; j--)
			if (!keeps(r + j, m[r + j], s[r + j]))
				bad = r + j;
		if (bad < 0)
			continue;
		double q[3];
		vs_geom_point_pos(&b, VS_GEOM_IMPORTED, as->points[i].p, q);
		vs_error_at(err, file, mark,
		            "actor %lld: point %s (%g, %g m) lies outside "
		            "the body (length %g m, width %g m): an "
		            "imported point must be inside the body%s", id,
		            as->points[i].name, q[0], q[1], a->length,
		            a->width,
		            asset_was(was, sizeof was, bad, s, "outside it"));
		return -1;
	}
	if (!keeps(M_TRACK, m[M_TRACK], s[M_TRACK])) {
		vs_error_at(err, file, mark,
		            "actor %lld: track (%g m) must be narrower than the "
		            "width (%g m)%s", id, as->track, a->width,
		            asset_was(was, sizeof was, M_TRACK, s, "wider"));
		return -1;
	}
	return check_tow(a, as, m, axle_y, mark, path, err);
}

/* In the actor frame a length change moves every axle's y by dlength / 2,
 * since the origin stays at the middle of the box: that follows from
 * rear_overhang, which VS_PROPF_MOVES_REAR keeps in step. Returns the
 * last of a's dimension changes applied, or NULL for none. */
static const vs_change *apply_sizes(vs_actor_spec *a, const vs_asset *as,
                                    const vs_change_set *set)
{
	int n_axles = as->n_axles;
	const vs_change *last = NULL;
	for (int apply = VS_APPLY_SIZE; apply <= VS_APPLY_OVERHANG; apply++) {
		for (int i = 0; i < set->n; i++) {
			const vs_change *ch = &set->changes[i];
			if (ch->actor != a->id || ch->prop != VS_PROP_DIMENSION)
				continue;
			const vs_prop_def *d = vs_prop_def_of(ch);
			if (d->apply != apply)
				continue;
			double v = ch->values[0], *m = member(a, d);
			last = ch;
			if ((d->flags & VS_PROPF_MOVES_REAR) && n_axles > 0)
				a->rear_overhang += v - *m;
			*m = v;
		}
	}
	return last;
}

int vs_sweep_body_margins(const vs_actor_spec *seed, const vs_asset *as,
                          const vs_change_set *set,
                          double m[VS_MAX_BODY_MARGINS])
{
	vs_actor_spec a = *seed; /* numbers only: nothing it owns is touched */
	double s[VS_MAX_BODY_MARGINS], y[VS_MAX_AXLES];
	apply_sizes(&a, as, set);
	int k = margins(&a, as, m, y);
	margins(seed, as, s, y);
	/* a rule the seed breaks: how much the variant breaks it less */
	for (int r = 0; r < k; r++)
		if (!held(r, s[r]))
			m[r] -= s[r];
	return k;
}

int vs_sweep_check_tow(const vs_actor_spec *seed, const vs_asset *as,
                       const vs_change_set *set, const char *path,
                       vs_error *err)
{
	vs_actor_spec a = *seed; /* numbers only, as above */
	double m[VS_MAX_BODY_MARGINS], y[VS_MAX_AXLES];
	const vs_change *last = apply_sizes(&a, as, set);
	margins(&a, as, m, y);
	return last ? check_tow(&a, as, m, y, last->mark, path, err) : 0;
}

int vs_sweep_apply_dimensions(vs_actor_spec *a, const vs_asset *as,
                              const vs_change_set *set, const char *path,
                              vs_error *err)
{
	int n_axles = as->n_axles;
	vs_actor_spec seed = *a; /* numbers only, as above */
	const vs_change *last = apply_sizes(a, as, set);
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
	return last ? check_body(a, &seed, as, last->mark, path, err) : 0;
}

/* ---- applying a change set --------------------------------------------- */

static void replace(double **dst, int *n_dst, const double *src, int n)
{
	free(*dst);
	*dst = vs_xcalloc((size_t)n, sizeof **dst);
	memcpy(*dst, src, (size_t)n * sizeof *src);
	*n_dst = n;
}

/* start.s or start.offset (just set): the seed's start in lane
 * coordinates, moved along or across its lane (the yaw stays the
 * seed's). */
static int lane_start(const vs_scenario *v, vs_actor_spec *a,
                      const vs_change *ch, const char *path, vs_error *err)
{
	double heading;
	char why[512];
	if (!a->start_road) {
		vs_error_at(err, path, ch->mark,
		            "actor %lld: start.%s needs a start position in lane "
		            "coordinates ({road, lane, s, offset})",
		            (long long)ch->actor, ch->field);
		return -1;
	}
	if (vs_map_odr_point(v->map, a->start_road, a->start_lane, a->start_s,
	                     a->start_offset, a->start_pos, &heading, why,
	                     sizeof why)) {
		vs_error_at(err, path, ch->mark, "actor %lld: start.%s: %s",
		            (long long)ch->actor, ch->field, why);
		return -1;
	}
	return 0;
}

/* Applies one change to actor a of variant v. */
static int apply_change(vs_scenario *v, vs_actor_spec *a,
                        const vs_change_set *set, const vs_change *ch,
                        const char *path, vs_error *err)
{
	const vs_prop_def *d = vs_prop_def_of(ch);
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
		if (!a->has_start) /* it starts with heading yaw[0] */
			vs_actor_spec_start_from_waypoints(a);
		return 0;
	case VS_PROP_START:
		/* A start given in part keeps the rest of the one the seed
		 * gave or the waypoints imply (applied before this). */
		memcpy(member(a, d), ch->values,
		       (size_t)ch->n * sizeof *ch->values);
		a->has_start = 1;
		if (!strcmp(d->field, "s") || !strcmp(d->field, "offset"))
			return lane_start(v, a, ch, path, err);
		return 0;
	case VS_PROP_ATTACH:
		/* offset in m; heading and slope in degrees, as the
		 * scenario's attach: takes them (input/attach.c) */
		memcpy(member(a, d), ch->values,
		       (size_t)ch->n * sizeof *ch->values);
		if (strcmp(d->field, "offset"))
			*member(a, d) *= VS_PI / 180;
		return 0;
	case VS_PROP_DIMENSION: /* all of the actor's at once, in order */
		if (vs_change_find(set, ch->actor, ch->prop) != ch)
			return 0;
		return vs_sweep_apply_dimensions(a, &v->assets[a->asset],
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

int vs_variant_apply(vs_scenario *v, const vs_change_set *set,
                     const char *path, vs_error *err)
{
	for (int apply = 0; apply < VS_N_APPLY; apply++) {
		for (int i = 0; i < set->n; i++) {
			const vs_change *ch = &set->changes[i];
			if (vs_prop_def_of(ch)->apply != apply)
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

/* ---- the params JSON ---------------------------------------------------- */

/* "%.17g" so every double reads back to the same bits. */
static void json_values(FILE *f, const vs_change *ch)
{
	const vs_prop_def *d = vs_prop_def_of(ch);
	int scalar = ch->n == 1 && d->shape != VS_SHAPE_LIST;
	int rows = d->shape == VS_SHAPE_ROWS;
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

/* s as a JSON string (RFC 8259 section 7): quote, backslash and the
 * control characters escaped, other bytes (UTF-8) as they are. A native
 * plugin's param names are [A-Za-z0-9_], but an FMU's come from its
 * modelDescription.xml and may hold any character. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The JSON object a change sits in under its actor, into g ("" for a
 * top-level key: speed, waypoints, yaw); returns the change's own key,
 * written with json_str. */
static const char *json_key(const vs_change *ch, char g[16])
{
	const vs_prop_def *d = vs_prop_def_of(ch);
	const char *dot;
	g[0] = 0;
	if (ch->prop == VS_PROP_PARAM) { /* vehicle_model.X or behaviour.X */
		dot = strchr(ch->field, '.');
		snprintf(g, 16, "%.*s", (int)(dot - ch->field), ch->field);
		return dot + 1;
	}
	if (d->group) {
		snprintf(g, 16, "%s", d->group);
		return d->field;
	}
	return d->name;
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

/* Actors in the order they first appear, keys in the order of the
 * changes, a group (dimension, start, vehicle_model, behaviour) whole
 * where its first change is. */
char *vs_change_set_json(const vs_change_set *set)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	if (!f) {
		fputs("vsweep: out of memory\n", vs_own_stderr());
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
				fputs(keys++ ? "," : "", f);
				json_str(f, key);
				fputc(':', f);
				json_values(f, ch);
				continue;
			}
			int done = 0;
			for (int j = i; j < k && !done; j++)
				done = in_group(set, j, id, g);
			if (done)
				continue;
			fputs(keys++ ? "," : "", f);
			json_str(f, g);
			fputs(":{", f);
			int inner = 0;
			for (int j = k; j < set->n; j++) {
				char g2[16];
				if (!in_group(set, j, id, g))
					continue;
				fputs(inner++ ? "," : "", f);
				json_str(f, json_key(&set->changes[j], g2));
				fputc(':', f);
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
