/* Scenario files: YAML tree -> validated vs_scenario (plugin binding:
 * scenario_bind.c), copies and look-ups.
 *
 * Every rule here reports "FILE:LINE:COL: message" at the node that breaks
 * it, and unknown keys are errors: a misspelt key silently ignored would
 * run thousands of variants of the wrong scenario. */
#include "input/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "input/keys.h"
#include "input/use_fmu.h"
#include "map/map.h"
#include "yaml/yamltree.h"

#define MAX_STEPS 1e8 /* duration / step, so one variant stays tractable */
#define MAX_ACTORS 4096 /* actor pairs are checked every step */

/* A name and where it is in an array, for sorted look-ups. */
typedef struct name_ref {
	const char *name;
	int idx;
} name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
	return strcmp(((const name_ref *)a)->name, ((const name_ref *)b)->name);
}

static int missing(const vs_ydoc *doc, const vs_ynode *map, const char *what,
                   const char *key, vs_error *err)
{
	vs_error_at(err, doc->path, map->mark, "%s: missing required key '%s'",
	            what, key);
	return -1;
}

/* map[key] as a number with flags (VS_Y_POSITIVE...). Returns 0 when set,
 * 1 when absent and optional (out untouched), -1 on error. */
static int num_key(const vs_ydoc *doc, const vs_ynode *map, const char *what,
                   const char *key, int flags, int required, double *out,
                   vs_error *err)
{
	const vs_ynode *n = vs_ymap_get(map, key);
	if (!n)
		return required ? missing(doc, map, what, key, err) : 1;
	return vs_y_number(doc, n, key, flags, out, err);
}

/* RoadRunner yaw facing from a towards b: 0 faces +Y, so the yaw is the
 * heading from +X minus pi/2, wrapped to (-pi, pi]. */
static double yaw_towards(const double *a, const double *b)
{
	return vs_wrap_angle(atan2(b[1] - a[1], b[0] - a[0]) - VS_PI / 2);
}

void vs_actor_spec_start_from_waypoints(vs_actor_spec *a)
{
	if (a->n_waypoints < 2)
		return;
	memcpy(a->start_pos, a->waypoints, sizeof a->start_pos);
	/* With yaws the actor starts with heading yaw[0] (docs/sweep.md). */
	a->start_yaw = a->n_yaw >= 1 ? vs_wrap_angle(a->yaw[0])
	                             : yaw_towards(a->waypoints, a->waypoints + 3);
}

/* ---- assets ----------------------------------------------------------- */

static int parse_points(const vs_ydoc *doc, const vs_ynode *m, vs_asset *a,
                        vs_error *err)
{
	if (vs_y_map(doc, m, "points", err))
		return -1;
	if (m->n > VS_MAX_POINTS) {
		vs_error_at(err, doc->path, m->mark,
		            "points: at most %d points per asset, got %d",
		            VS_MAX_POINTS, m->n);
		return -1;
	}
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i);
		if (strcmp(k->str, "hitch") != 0 &&
		    strncmp(k->str, "attach", 6) != 0) {
			vs_error_at(err, doc->path, k->mark,
			            "point '%s': names must be 'hitch' or begin "
			            "with 'attach'", k->str);
			return -1;
		}
		vs_named_point *p = &a->points[a->n_points];
		if (vs_y_vec(doc, vs_ymap_value(m, i), k->str, 3, p->p, err))
			return -1;
		p->name = vs_strdup(k->str);
		a->n_points++;
	}
	return 0;
}

static int parse_axles(const vs_ydoc *doc, const vs_ynode *n, vs_asset *a,
                       vs_error *err)
{
	double *y;
	int count;
	if (vs_y_numbers(doc, n, "axles", VS_Y_ANY, &y, &count, err))
		return -1;
	int rc = -1;
	if (count > VS_MAX_AXLES) {
		vs_error_at(err, doc->path, n->mark,
		            "axles: at most %d axles, got %d", VS_MAX_AXLES, count);
		goto out;
	}
	for (int i = 1; i < count; i++) {
		if (!(y[i] < y[i - 1])) {
			vs_error_at(err, doc->path, n->kids[i]->mark,
			            "axles: list them front first, each behind "
			            "the one before (y strictly decreasing)");
			goto out;
		}
	}
	memcpy(a->axle_y, y, (size_t)count * sizeof *y);
	a->n_axles = count;
	/* The front axle's position is the overhang, by definition. */
	a->front_overhang = a->length / 2 - y[0];
	rc = 0;
out:
	free(y);
	return rc;
}

/* kind: vehicle | character. A character is a person: the keys that
 * place wheels mean nothing for it, so each is refused where it stands
 * rather than ignored. */
static int parse_kind(const vs_ydoc *doc, const vs_ynode *m, const char *what,
                      vs_asset *a, vs_error *err)
{
	static const char *const wheel_keys[] = {
		"axles", "wheelbase", "track", "wheel_radius", "front_overhang",
		NULL};
	const vs_ynode *n = vs_ymap_get(m, "kind");
	const char *s;
	a->kind = VS_ASSET_VEHICLE;
	if (!n)
		return 0;
	if (vs_y_string(doc, n, "kind", &s, err))
		return -1;
	if (strcmp(s, "character") == 0) {
		a->kind = VS_ASSET_CHARACTER;
	} else if (strcmp(s, "vehicle") != 0) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: kind must be 'vehicle' or 'character', got '%s'",
		            what, s);
		return -1;
	}
	for (int k = 0; a->kind == VS_ASSET_CHARACTER && wheel_keys[k]; k++) {
		const vs_ynode *w = vs_ymap_get(m, wheel_keys[k]);
		if (w) {
			vs_error_at(err, doc->path, w->mark,
			            "%s: %s: a character (kind: character) has "
			            "no axles or wheels; remove it, or make the "
			            "asset a vehicle", what, wheel_keys[k]);
			return -1;
		}
	}
	return 0;
}

static int parse_asset(const vs_ydoc *doc, const vs_ynode *key,
                       const vs_ynode *m, vs_asset *a, vs_error *err)
{
	char what[96];
	snprintf(what, sizeof what, "asset '%.64s'", key->str);
	a->name = vs_strdup(key->str);
	a->mark = key->mark;
	if (vs_y_check_keys(doc, m, what, vs_keys_asset, err) ||
	    parse_kind(doc, m, what, a, err) ||
	    num_key(doc, m, what, "length", VS_Y_POSITIVE, 1, &a->length, err) ||
	    num_key(doc, m, what, "width", VS_Y_POSITIVE, 1, &a->width, err) ||
	    num_key(doc, m, what, "height", VS_Y_POSITIVE, 1, &a->height, err))
		return -1;
	a->track = 0.85 * a->width; /* a typical car's track/width ratio */
	a->wheel_radius = 0.3;      /* m, a typical car wheel */
	if (num_key(doc, m, what, "track", VS_Y_POSITIVE, 0, &a->track,
	            err) < 0 ||
	    num_key(doc, m, what, "wheel_radius", VS_Y_POSITIVE, 0,
	            &a->wheel_radius, err) < 0)
		return -1;

	const vs_ynode *wb = vs_ymap_get(m, "wheelbase");
	const vs_ynode *axles = vs_ymap_get(m, "axles");
	const vs_ynode *fo = vs_ymap_get(m, "front_overhang");
	if (wb && axles) {
		vs_error_at(err, doc->path, axles->mark,
		            "%s: give either wheelbase or axles, not both", what);
		return -1;
	}
	if (axles && fo) {
		vs_error_at(err, doc->path, fo->mark,
		            "%s: front_overhang is not used with axles (the front "
		            "axle's y sets it)", what);
		return -1;
	}
	if (axles) {
		if (parse_axles(doc, axles, a, err))
			return -1;
	} else {
		/* Without axles the overhang still places a wheelbase. */
		a->front_overhang = wb ? 0.2 * a->length : 0;
		if (num_key(doc, m, what, "front_overhang", VS_Y_NONNEG, 0,
		            &a->front_overhang, err) < 0)
			return -1;
		if (fo && a->front_overhang >= a->length) {
			vs_error_at(err, doc->path, fo->mark,
			            "front_overhang must be less than length "
			            "(%g m), got %s", a->length, fo->str);
			return -1;
		}
	}
	if (wb) {
		double w;
		if (vs_y_number(doc, wb, "wheelbase", VS_Y_POSITIVE, &w, err))
			return -1;
		a->n_axles = 2;
		a->axle_y[0] = a->length / 2 - a->front_overhang;
		a->axle_y[1] = a->axle_y[0] - w;
	}
	const vs_ynode *points = vs_ymap_get(m, "points");
	return points ? parse_points(doc, points, a, err) : 0;
}

static int parse_assets(const vs_ydoc *doc, const vs_ynode *n,
                        vs_scenario *scn, vs_error *err)
{
	if (vs_y_is_null(n))
		return 0;
	if (vs_y_map(doc, n, "assets", err))
		return -1;
	scn->assets = vs_xcalloc((size_t)n->n, sizeof *scn->assets);
	for (int i = 0; i < n->n; i++) {
		scn->n_assets++;
		if (vs_y_map(doc, vs_ymap_value(n, i), vs_ymap_key(n, i)->str,
		             err) ||
		    parse_asset(doc, vs_ymap_key(n, i), vs_ymap_value(n, i),
		                &scn->assets[i], err))
			return -1;
	}
	return 0;
}

/* ---- actors ----------------------------------------------------------- */

static int parse_use(const vs_ydoc *doc, const vs_ynode *m, const char *what,
                     vs_plugin_use *use, vs_error *err)
{
	const char *name;
	const vs_ynode *pn = vs_ymap_get(m, "plugin");
	if (vs_y_check_keys(doc, m, what, vs_keys_plugin_use, err))
		return -1;
	int fmu = vs_use_parse_fmu(doc, m, use, err);
	if (fmu < 0)
		return -1;
	if (!pn && !fmu)
		return missing(doc, m, what, "plugin", err);
	if (pn) {
		if (vs_y_string(doc, pn, "plugin", &name, err))
			return -1;
		use->plugin = vs_strdup(name);
		use->mark = pn->mark;
	}
	const vs_ynode *params = vs_ymap_get(m, "params");
	if (vs_y_is_null(params))
		return 0;
	if (vs_y_map(doc, params, "params", err))
		return -1;
	use->set_names = vs_xcalloc((size_t)params->n, sizeof *use->set_names);
	use->set_values = vs_xcalloc((size_t)params->n, sizeof *use->set_values);
	use->set_marks = vs_xcalloc((size_t)params->n, sizeof *use->set_marks);
	for (int i = 0; i < params->n; i++) {
		const vs_ynode *k = vs_ymap_key(params, i);
		const vs_ynode *v = vs_ymap_value(params, i);
		if (vs_y_number(doc, v, k->str, VS_Y_ANY, &use->set_values[i],
		                err))
			return -1;
		use->set_names[i] = vs_strdup(k->str);
		use->set_marks[i] = v->mark;
		use->n_set++;
	}
	return 0;
}

static int find_asset(const vs_ydoc *doc, const vs_ynode *n,
                      const vs_scenario *scn, const name_ref *sorted,
                      vs_error *err)
{
	const char *name;
	if (vs_y_string(doc, n, "asset", &name, err))
		return -1;
	name_ref key = {name, 0};
	const name_ref *hit = scn->n_assets
		? bsearch(&key, sorted, (size_t)scn->n_assets, sizeof *sorted,
		          name_ref_cmp)
		: NULL;
	if (hit)
		return hit->idx;
	char list[512] = "";
	for (int i = 0; i < scn->n_assets; i++)
		vs_y_join(list, sizeof list, scn->assets[i].name);
	vs_error_at(err, doc->path, n->mark, "unknown asset '%s'; defined: %s",
	            name, scn->n_assets ? list : "none (add an assets: map)");
	return -1;
}

static int parse_start(const vs_ydoc *doc, const vs_ynode *m,
                       const vs_map *map, vs_actor_spec *a, vs_error *err)
{
	if (vs_y_check_keys(doc, m, "start", vs_keys_start, err))
		return -1;
	const vs_ynode *pos = vs_ymap_get(m, "position");
	if (!pos)
		return missing(doc, m, "start", "position", err);
	/* [x, y, z], or lane coordinates on an OpenDRIVE map, whose travel
	 * direction is the default yaw (RoadRunner's: 0 faces +Y) */
	double heading;
	if (vs_map_parse_point(doc, pos, map, "position", a->start_pos,
	                       &heading, err))
		return -1;
	a->start_yaw = isnan(heading) ? 0 : vs_wrap_angle(heading - VS_PI / 2);
	if (!isnan(heading) &&
	    vs_map_lane_coords(map, pos, &a->start_road, &a->start_lane,
	                       &a->start_s, &a->start_offset))
		return -1; /* not reached: the point was just read */
	if (num_key(doc, m, "start", "yaw", VS_Y_ANY, 0, &a->start_yaw,
	            err) < 0)
		return -1;
	a->has_start = 1;
	return 0;
}

/* The route: speed, waypoints, yaw (varyActorProperties' properties). */
static int parse_route(const vs_ydoc *doc, const vs_ynode *m,
                       const vs_map *map, vs_actor_spec *a, vs_error *err)
{
	const vs_ynode *speed = vs_ymap_get(m, "speed");
	const vs_ynode *wp = vs_ymap_get(m, "waypoints");
	const vs_ynode *yaw = vs_ymap_get(m, "yaw");
	if (speed && vs_y_numbers(doc, speed, "speed",
	                          VS_Y_SCALAR_OK | VS_Y_NONNEG, &a->speed,
	                          &a->n_speed, err))
		return -1;
	if (wp && vs_map_parse_points(doc, wp, map, "waypoints", 2,
	                              &a->waypoints, &a->n_waypoints, err))
		return -1;
	if (yaw && vs_y_numbers(doc, yaw, "yaw", VS_Y_ANY, &a->yaw, &a->n_yaw,
	                        err))
		return -1;
	if (yaw && !wp) {
		vs_error_at(err, doc->path, yaw->mark,
		            "yaw needs waypoints (one yaw per waypoint)");
		return -1;
	}
	if (yaw && a->n_yaw != a->n_waypoints) {
		vs_error_at(err, doc->path, yaw->mark,
		            "yaw has %d values for %d waypoints; give one per "
		            "waypoint", a->n_yaw, a->n_waypoints);
		return -1;
	}
	if (wp && !speed) {
		vs_error_at(err, doc->path, wp->mark,
		            "waypoints need a speed (one number, or one per "
		            "waypoint)");
		return -1;
	}
	if (!speed) { /* standing still */
		a->speed = vs_xcalloc(1, sizeof *a->speed);
		a->n_speed = 1;
	}
	return 0;
}

static int parse_actor(const vs_ydoc *doc, const vs_ynode *m,
                       const vs_scenario *scn, const name_ref *assets,
                       vs_actor_spec *a, vs_error *err)
{
	a->mark = m->mark;
	if (vs_y_check_keys(doc, m, "actor", vs_keys_actor, err))
		return -1;
	const vs_ynode *n = vs_ymap_get(m, "id");
	if (!n)
		return missing(doc, m, "actor", "id", err);
	if (vs_y_int(doc, n, "id", &a->id, err))
		return -1;
	if (a->id <= 0) {
		vs_error_at(err, doc->path, n->mark,
		            "id must be a positive integer, got %s", n->str);
		return -1;
	}
	char what[64];
	snprintf(what, sizeof what, "actor %lld", (long long)a->id);
	const char *name = NULL;
	if ((n = vs_ymap_get(m, "name")) && vs_y_string(doc, n, "name", &name,
	                                                err))
		return -1;
	if (name) {
		a->name = vs_strdup(name);
	} else {
		char buf[32];
		snprintf(buf, sizeof buf, "actor%lld", (long long)a->id);
		a->name = vs_strdup(buf);
	}

	if (!(n = vs_ymap_get(m, "asset")))
		return missing(doc, m, what, "asset", err);
	if ((a->asset = find_asset(doc, n, scn, assets, err)) < 0)
		return -1;
	const vs_asset *as = &scn->assets[a->asset];
	a->length = as->length;
	a->width = as->width;
	a->height = as->height;
	a->front_overhang = as->front_overhang;
	/* Rearmost axle to rear bumper (negative if the axle sits behind). */
	a->rear_overhang =
		as->n_axles ? as->length / 2 + as->axle_y[as->n_axles - 1] : 0;

	if ((n = vs_ymap_get(m, "start")) &&
	    parse_start(doc, n, scn->map, a, err))
		return -1;
	if (parse_route(doc, m, scn->map, a, err))
		return -1;
	if ((n = vs_ymap_get(m, "vehicle_model")) &&
	    parse_use(doc, n, "vehicle_model", &a->vehicle_model, err))
		return -1;
	if ((n = vs_ymap_get(m, "behaviour")) &&
	    parse_use(doc, n, "behaviour", &a->behaviour, err))
		return -1;
	/* An attached actor takes its pose from its parent, so it needs no
	 * start (input/attach.h). */
	const vs_ynode *attach = vs_ymap_get(m, "attach");
	if (attach && vs_attach_parse(doc, m, attach, scn, a, err))
		return -1;

	/* has_start says the file gave start:; otherwise start_pos/start_yaw
	 * derive from the waypoints (and are re-derived when a variant
	 * changes them). */
	if (!a->has_start && a->n_waypoints >= 2) {
		vs_actor_spec_start_from_waypoints(a);
	} else if (!a->has_start && !attach) {
		vs_error_at(err, doc->path, m->mark,
		            "%s needs a start (start: {position: [x, y, z], "
		            "yaw: ...}) or waypoints", what);
		return -1;
	}
	return 0;
}

typedef struct id_ref {
	int64_t id;
	int idx;
} id_ref;

static int id_ref_cmp(const void *pa, const void *pb)
{
	const id_ref *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* IDs are unique; sorting keeps a large actor list at n log n. */
static int check_ids(const vs_ydoc *doc, const vs_ynode *list,
                     const vs_scenario *scn, vs_error *err)
{
	id_ref *r = vs_xcalloc((size_t)scn->n_actors, sizeof *r);
	for (int i = 0; i < scn->n_actors; i++)
		r[i] = (id_ref){scn->actors[i].id, i};
	qsort(r, (size_t)scn->n_actors, sizeof *r, id_ref_cmp);
	int rc = 0;
	for (int i = 1; i < scn->n_actors && !rc; i++) {
		if (r[i].id != r[i - 1].id)
			continue;
		const vs_ynode *n = vs_ymap_get(list->kids[r[i].idx], "id");
		vs_error_at(err, doc->path, n->mark,
		            "id %lld is already used by the actor at line %d",
		            (long long)r[i].id, scn->actors[r[i - 1].idx].mark.line);
		rc = -1;
	}
	free(r);
	return rc;
}

static int parse_actors(const vs_ydoc *doc, const vs_ynode *root,
                        vs_scenario *scn, vs_error *err)
{
	const vs_ynode *list = vs_ymap_get(root, "actors");
	if (!list)
		return missing(doc, root, "scenario", "actors", err);
	if (vs_y_nonempty_seq(doc, list, "actors", "actor", err))
		return -1;
	if (list->n > MAX_ACTORS) {
		/* Every pair is checked for contact at every step. */
		vs_error_at(err, doc->path, list->mark, "%d actors; at most %d "
		            "allowed", list->n, MAX_ACTORS);
		return -1;
	}
	name_ref *sorted = vs_xcalloc((size_t)scn->n_assets, sizeof *sorted);
	for (int i = 0; i < scn->n_assets; i++)
		sorted[i] = (name_ref){scn->assets[i].name, i};
	qsort(sorted, (size_t)scn->n_assets, sizeof *sorted, name_ref_cmp);
	scn->actors = vs_xcalloc((size_t)list->n, sizeof *scn->actors);
	int rc = 0;
	for (int i = 0; i < list->n && !rc; i++) {
		scn->n_actors++;
		rc = vs_y_map(doc, list->kids[i], "actor", err) ||
		     parse_actor(doc, list->kids[i], scn, sorted,
		                 &scn->actors[i], err) ? -1 : 0;
	}
	free(sorted);
	if (!rc)
		rc = check_ids(doc, list, scn, err);
	return rc ? rc : vs_attach_check(scn, err);
}

/* ---- the file --------------------------------------------------------- */

static int parse_root(const vs_ydoc *doc, vs_scenario *scn, vs_error *err)
{
	const vs_ynode *root = doc->root, *n;
	if (vs_y_version(doc, "scenario", err))
		return -1;
	scn->version = 1;
	if (vs_y_check_keys(doc, root, "scenario", vs_keys_scenario, err))
		return -1;

	const char *name = NULL;
	if ((n = vs_ymap_get(root, "name")) && vs_y_string(doc, n, "name",
	                                                   &name, err))
		return -1;
	if (!name) { /* the file name says what it is well enough */
		name = strrchr(scn->path, '/');
		name = name ? name + 1 : scn->path;
	}
	scn->name = vs_strdup(name);
	if (num_key(doc, root, "scenario", "step", VS_Y_POSITIVE, 1,
	            &scn->step, err) ||
	    num_key(doc, root, "scenario", "duration", VS_Y_POSITIVE, 1,
	            &scn->duration, err))
		return -1;
	if (scn->duration / scn->step > MAX_STEPS) {
		vs_error_at(err, doc->path, vs_ymap_get(root, "duration")->mark,
		            "duration / step = %.4g steps; at most %.0e allowed",
		            scn->duration / scn->step, MAX_STEPS);
		return -1;
	}
	if (num_key(doc, root, "scenario", "near_miss_ttc", VS_Y_NONNEG, 0,
	            &scn->near_miss_ttc, err) < 0)
		return -1;
	if ((n = vs_ymap_get(root, "stop_at_collision")) &&
	    vs_y_bool(doc, n, "stop_at_collision", &scn->stop_at_collision,
	              err))
		return -1;
	if (vs_map_parse(doc, vs_ymap_get(root, "map"), &scn->map, err))
		return -1;
	if (parse_assets(doc, vs_ymap_get(root, "assets"), scn, err))
		return -1;
	return parse_actors(doc, root, scn, err);
}

vs_scenario *vs_scenario_parse(const char *path, const char *text, size_t len,
                               vs_error *err)
{
	vs_scenario *scn = vs_xcalloc(1, sizeof *scn);
	scn->path = vs_strdup(path ? path : "<input>");
	scn->text = vs_xcalloc(len + 1, 1);
	if (len)
		memcpy(scn->text, text, len);
	scn->text_len = len;
	vs_ydoc *doc = vs_ydoc_parse(scn->path, text, len, err);
	int rc = doc ? parse_root(doc, scn, err) : -1;
	vs_ydoc_destroy(doc);
	if (rc) {
		vs_scenario_destroy(scn);
		return NULL;
	}
	return scn;
}

vs_scenario *vs_scenario_load(const char *path, vs_error *err)
{
	size_t len;
	char *text = vs_yaml_read_file(path, &len, err);
	if (!text)
		return NULL;
	vs_scenario *scn = vs_scenario_parse(path, text, len, err);
	free(text);
	return scn;
}

/* ---- copies and look-ups ---------------------------------------------- */

static void *memdup(const void *p, size_t n)
{
	if (!p)
		return NULL;
	void *q = vs_xcalloc(1, n);
	memcpy(q, p, n);
	return q;
}

static void copy_use(vs_plugin_use *d, const vs_plugin_use *s)
{
	size_t n = (size_t)s->n_set;
	*d = *s;
	d->plugin = vs_strdup(s->plugin);
	vs_use_copy_fmu(d, s);
	d->set_names = n ? vs_xcalloc(n, sizeof *d->set_names) : NULL;
	for (size_t i = 0; i < n; i++)
		d->set_names[i] = vs_strdup(s->set_names[i]);
	d->set_values = memdup(s->set_values, n * sizeof *s->set_values);
	d->set_marks = memdup(s->set_marks, n * sizeof *s->set_marks);
	d->params = s->loaded ? memdup(s->params, s->loaded->desc->n_params *
	                                              sizeof *s->params)
	                      : NULL;
}

static void free_use(vs_plugin_use *u)
{
	free(u->plugin);
	vs_use_free_fmu(u);
	for (int i = 0; i < u->n_set; i++)
		free(u->set_names[i]);
	free(u->set_names);
	free(u->set_values);
	free(u->set_marks);
	free(u->params);
}

vs_scenario *vs_scenario_clone(const vs_scenario *s)
{
	if (!s)
		return NULL;
	vs_scenario *c = vs_xcalloc(1, sizeof *c);
	*c = *s;
	c->path = vs_strdup(s->path);
	/* A variant never needs the file's text (only the seed's is stored);
	 * copying up to 64 MiB into every variant in flight would not do. */
	c->text = NULL;
	c->text_len = 0;
	c->name = vs_strdup(s->name);
	c->assets = memdup(s->assets, (size_t)s->n_assets * sizeof *s->assets);
	for (int i = 0; i < s->n_assets; i++) {
		vs_asset *a = &c->assets[i];
		a->name = vs_strdup(a->name);
		for (int k = 0; k < a->n_points; k++)
			a->points[k].name = vs_strdup(a->points[k].name);
	}
	c->map = vs_map_ref(s->map); /* read-only: shared, not copied */
	c->actors = memdup(s->actors, (size_t)s->n_actors * sizeof *s->actors);
	for (int i = 0; i < s->n_actors; i++) {
		const vs_actor_spec *sa = &s->actors[i];
		vs_actor_spec *a = &c->actors[i];
		a->name = vs_strdup(sa->name);
		a->speed = memdup(sa->speed, (size_t)sa->n_speed * sizeof *sa->speed);
		a->waypoints = memdup(sa->waypoints, (size_t)sa->n_waypoints * 3 *
		                                         sizeof *sa->waypoints);
		a->yaw = memdup(sa->yaw, (size_t)sa->n_yaw * sizeof *sa->yaw);
		copy_use(&a->vehicle_model, &sa->vehicle_model);
		copy_use(&a->behaviour, &sa->behaviour);
	}
	return c;
}

void vs_scenario_destroy(vs_scenario *scn)
{
	if (!scn)
		return;
	for (int i = 0; i < scn->n_actors; i++) {
		vs_actor_spec *a = &scn->actors[i];
		free(a->name);
		free(a->speed);
		free(a->waypoints);
		free(a->yaw);
		free_use(&a->vehicle_model);
		free_use(&a->behaviour);
	}
	free(scn->actors);
	vs_map_unref(scn->map);
	for (int i = 0; i < scn->n_assets; i++) {
		for (int k = 0; k < scn->assets[i].n_points; k++)
			free(scn->assets[i].points[k].name);
		free(scn->assets[i].name);
	}
	free(scn->assets);
	free(scn->name);
	free(scn->text);
	free(scn->path);
	free(scn);
}

int vs_actor_is_character(const vs_scenario *scn, int i)
{
	return scn->assets[scn->actors[i].asset].kind == VS_ASSET_CHARACTER;
}

const char *vs_actor_kind_name(const vs_scenario *scn, int i)
{
	if (vs_actor_is_character(scn, i))
		return "character";
	return scn->assets[scn->actors[i].asset].n_axles > 0 ? "vehicle"
	                                                      : "object";
}

int vs_scenario_find_actor(const vs_scenario *scn, int64_t id)
{
	for (int i = 0; i < scn->n_actors; i++)
		if (scn->actors[i].id == id)
			return i;
	return -1;
}

int vs_plugin_use_param(const vs_plugin_use *use, const char *name)
{
	if (!use->loaded)
		return -1;
	const vs_plugin *d = use->loaded->desc;
	for (size_t j = 0; j < d->n_params; j++)
		if (strcmp(d->params[j].name, name) == 0)
			return (int)j;
	return -1;
}

int64_t vs_scenario_steps(const vs_scenario *scn)
{
	return (int64_t)llround(scn->duration / scn->step) + 1;
}
