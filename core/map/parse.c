/* The scenario's map: key, read from the YAML tree.
 *
 * Shapes and types are checked here, at the node that is wrong; the
 * geometry (unique ids, lanes that fit a circle, turns the lanes can
 * follow) in map_build, which gets the marks to point at. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/yamltree.h"
#include "map/map_internal.h"
#include "map/odr.h"

static const char *const map_keys[] = {"roads", "opendrive", NULL};
static const char *const road_keys[] = {"id", "circle", "polyline", "line",
                                        "lanes", NULL};
static const char *const circle_keys[] = {"center", "radius", "z", NULL};
static const char *const lanes_keys[] = {"left", "right", "width", NULL};
static const char *const geom_keys[] = {"circle", "polyline", "line", NULL};

/* What one road's parse allocates, freed after the build. */
typedef struct road_store {
	double *points;
	double *widths;
	vs_mark *marks;
} road_store;

static int missing(const vs_ydoc *doc, const vs_ynode *map, const char *what,
                   const char *key, vs_error *err)
{
	vs_error_at(err, doc->path, map->mark, "%s: missing required key '%s'",
	            what, key);
	return -1;
}

static int parse_circle(const vs_ydoc *doc, const vs_ynode *n,
                        const char *road, vs_map_road *rd, vs_error *err)
{
	char what[128], key[160];
	snprintf(what, sizeof what, "%s: circle", road);
	if (vs_y_check_keys(doc, n, what, circle_keys, err))
		return -1;
	const vs_ynode *c = vs_ymap_get(n, "center");
	const vs_ynode *r = vs_ymap_get(n, "radius");
	const vs_ynode *z = vs_ymap_get(n, "z");
	if (!c)
		return missing(doc, n, what, "center", err);
	if (!r)
		return missing(doc, n, what, "radius", err);
	rd->is_circle = 1;
	snprintf(key, sizeof key, "%s: center", what);
	if (vs_y_vec(doc, c, key, 2, rd->center, err))
		return -1;
	snprintf(key, sizeof key, "%s: radius", what);
	if (vs_y_number(doc, r, key, VS_Y_POSITIVE, &rd->radius, err))
		return -1;
	snprintf(key, sizeof key, "%s: z", what);
	return z ? vs_y_number(doc, z, key, VS_Y_ANY, &rd->z, err) : 0;
}

static int parse_points(const vs_ydoc *doc, const vs_ynode *n,
                        const char *road, const char *kind, vs_map_road *rd,
                        road_store *st, vs_error *err)
{
	char what[160];
	snprintf(what, sizeof what, "%s: %s", road, kind);
	int rows;
	if (vs_y_rows(doc, n, what, 3, 2, VS_Y_DISTINCT, &st->points, &rows,
	              err))
		return -1;
	if (strcmp(kind, "line") == 0 && rows != 2) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: needs exactly 2 points, got %d (a polyline "
		            "takes more)", what, rows);
		return -1;
	}
	st->marks = vs_xcalloc((size_t)rows, sizeof *st->marks);
	for (int i = 0; i < rows; i++)
		st->marks[i] = n->kids[i]->mark;
	rd->points = st->points;
	rd->n_points = rows;
	return 0;
}

static int lane_count(const vs_ydoc *doc, const vs_ynode *lanes,
                      const char *what, const char *side, int *out,
                      vs_error *err)
{
	const vs_ynode *n = vs_ymap_get(lanes, side);
	char key[160];
	snprintf(key, sizeof key, "%s: %s", what, side);
	int64_t v = 0;
	if (n && vs_y_int(doc, n, key, &v, err))
		return -1;
	if (v < 0 || v > VS_MAP_MAX_LANES) {
		vs_error_at(err, doc->path, n->mark,
		            "%s must be 0 to %d lanes, got %lld", key,
		            VS_MAP_MAX_LANES, (long long)v);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_lanes(const vs_ydoc *doc, const vs_ynode *n,
                       const char *road, vs_map_road *rd, road_store *st,
                       vs_error *err)
{
	char what[128], key[160];
	snprintf(what, sizeof what, "%s: lanes", road);
	if (vs_y_check_keys(doc, n, what, lanes_keys, err) ||
	    lane_count(doc, n, what, "left", &rd->n_left, err) ||
	    lane_count(doc, n, what, "right", &rd->n_right, err))
		return -1;
	int lanes = rd->n_left + rd->n_right;
	if (lanes < 1) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: a road needs at least one lane (left + right "
		            ">= 1)", what);
		return -1;
	}
	const vs_ynode *w = vs_ymap_get(n, "width");
	if (!w)
		return missing(doc, n, what, "width", err);
	snprintf(key, sizeof key, "%s: width", what);
	double *v;
	int count;
	if (vs_y_numbers(doc, w, key, VS_Y_POSITIVE | VS_Y_SCALAR_OK, &v,
	                 &count, err))
		return -1;
	if (w->kind == VS_Y_SCALAR) { /* one width for every lane */
		st->widths = vs_xcalloc((size_t)lanes, sizeof *st->widths);
		for (int k = 0; k < lanes; k++)
			st->widths[k] = v[0];
		free(v);
	} else if (count != lanes) {
		free(v);
		vs_error_at(err, doc->path, w->mark,
		            "%s: %d widths for %d lanes; give one width, or "
		            "one per lane: left 1..%d, then right -1..-%d",
		            key, count, lanes, rd->n_left, rd->n_right);
		return -1;
	} else {
		st->widths = v;
	}
	rd->widths = st->widths;
	return 0;
}

static int parse_road(const vs_ydoc *doc, const vs_ynode *n, vs_map_road *rd,
                      map_marks *mk, road_store *st, vs_error *err)
{
	if (vs_y_check_keys(doc, n, "road", road_keys, err))
		return -1;
	mk->road = n->mark;
	const vs_ynode *id = vs_ymap_get(n, "id");
	if (!id)
		return missing(doc, n, "road", "id", err);
	mk->id = id->mark;
	if (vs_y_string(doc, id, "road: id", &rd->id, err))
		return -1;
	char road[96];
	snprintf(road, sizeof road, "road '%.64s'", rd->id);

	const vs_ynode *geom = NULL;
	const char *kind = NULL;
	for (int i = 0; i < n->n; i++) {
		const vs_ynode *k = vs_ymap_key(n, i);
		for (int g = 0; geom_keys[g]; g++) {
			if (strcmp(k->str, geom_keys[g]) != 0)
				continue;
			if (geom) {
				vs_error_at(err, doc->path, k->mark,
				            "%s: has both '%s' and '%s'; "
				            "give one of circle, polyline "
				            "or line", road, kind, k->str);
				return -1;
			}
			geom = vs_ymap_value(n, i);
			kind = geom_keys[g];
		}
	}
	if (!geom) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: needs a circle, polyline or line", road);
		return -1;
	}
	mk->geom = geom->mark;
	if (strcmp(kind, "circle") == 0 ? parse_circle(doc, geom, road, rd, err)
	                                : parse_points(doc, geom, road, kind,
	                                               rd, st, err))
		return -1;
	mk->points = st->marks;
	const vs_ynode *lanes = vs_ymap_get(n, "lanes");
	if (!lanes)
		return missing(doc, n, road, "lanes", err);
	mk->lanes = lanes->mark;
	return parse_lanes(doc, lanes, road, rd, st, err);
}

/* `opendrive: FILE`: the network, read from FILE relative to the
 * scenario file's directory; *net stays NULL without the key. */
static int parse_opendrive(const vs_ydoc *doc, const vs_ynode *node,
                           odr_net **net, vs_error *err)
{
	*net = NULL;
	const vs_ynode *n = vs_ymap_get(node, "opendrive");
	if (!n)
		return 0;
	const char *file;
	if (vs_y_string(doc, n, "map: opendrive", &file, err))
		return -1;
	const char *slash = strrchr(doc->path, '/');
	size_t dir = file[0] == '/' || !slash ? 0
	                                      : (size_t)(slash - doc->path) + 1;
	char *path = vs_xcalloc(dir + strlen(file) + 1, 1);
	memcpy(path, doc->path, dir);
	strcpy(path + dir, file);
	vs_error sub = {{0}};
	*net = odr_read(path, &sub);
	free(path);
	if (!*net) {
		/* the .xodr's own FILE:LINE:COL */
		vs_error_set(err, "%s", sub.msg);
		return -1;
	}
	return 0;
}

int vs_map_parse(const vs_ydoc *doc, const vs_ynode *node, vs_map **out,
                 vs_error *err)
{
	*out = NULL;
	if (vs_y_is_null(node))
		return 0;
	if (vs_y_check_keys(doc, node, "map", map_keys, err))
		return -1;
	odr_net *net;
	if (parse_opendrive(doc, node, &net, err))
		return -1;
	const vs_ynode *roads = vs_ymap_get(node, "roads");
	if (!vs_y_is_null(roads) && vs_y_seq(doc, roads, "roads", err)) {
		odr_free(net);
		return -1;
	}
	int n = vs_y_is_null(roads) ? 0 : roads->n;
	if (n == 0 && !net)
		return 0;
	if (n == 0) {
		*out = map_build(NULL, 0, NULL, doc->path, net, err);
		return *out ? 0 : -1;
	}
	vs_map_road *rd = vs_xcalloc((size_t)n, sizeof *rd);
	map_marks *mk = vs_xcalloc((size_t)n, sizeof *mk);
	road_store *st = vs_xcalloc((size_t)n, sizeof *st);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = parse_road(doc, roads->kids[i], &rd[i], &mk[i], &st[i],
		                err);
	if (!rc) {
		*out = map_build(rd, n, mk, doc->path, net, err);
		rc = *out ? 0 : -1;
	} else {
		odr_free(net);
	}
	for (int i = 0; i < n; i++) {
		free(st[i].points);
		free(st[i].widths);
		free(st[i].marks);
	}
	free(st);
	free(mk);
	free(rd);
	return rc;
}

/* ---- points in lane coordinates --------------------------------------- */

static const char *const lane_point_keys[] = {"road", "lane", "s", "offset",
                                              NULL};

int vs_map_parse_point(const vs_ydoc *doc, const vs_ynode *n,
                       const vs_map *map, const char *what, double xyz[3],
                       double *heading, vs_error *err)
{
	*heading = NAN;
	if (n->kind != VS_Y_MAP)
		return vs_y_vec(doc, n, what, 3, xyz, err);
	if (vs_y_check_keys(doc, n, what, lane_point_keys, err))
		return -1;
	static const char *const need[] = {"road", "lane", "s"};
	for (int i = 0; i < 3; i++)
		if (!vs_ymap_get(n, need[i]))
			return missing(doc, n, what, need[i], err);
	const vs_ynode *road = vs_ymap_get(n, "road");
	const vs_ynode *off = vs_ymap_get(n, "offset");
	int64_t lane;
	double s, offset = 0;
	char key[160];
	snprintf(key, sizeof key, "%s: road", what);
	if (road->kind != VS_Y_SCALAR || !road->str[0]) { /* "5" or 5 */
		vs_error_at(err, doc->path, road->mark,
		            "%s: expected a road id", key);
		return -1;
	}
	snprintf(key, sizeof key, "%s: lane", what);
	if (vs_y_int(doc, vs_ymap_get(n, "lane"), key, &lane, err))
		return -1;
	snprintf(key, sizeof key, "%s: s", what);
	if (vs_y_number(doc, vs_ymap_get(n, "s"), key, VS_Y_NONNEG, &s, err))
		return -1;
	snprintf(key, sizeof key, "%s: offset", what);
	if (off && vs_y_number(doc, off, key, VS_Y_ANY, &offset, err))
		return -1;
	char why[512];
	if (lane < -1000000 || lane > 1000000 ||
	    vs_map_odr_point(map, road->str, (int)lane, s, offset, xyz,
	                     heading, why, sizeof why)) {
		if (lane < -1000000 || lane > 1000000)
			snprintf(why, sizeof why, "lane %lld is no lane",
			         (long long)lane);
		vs_error_at(err, doc->path, n->mark, "%s: %s", what, why);
		return -1;
	}
	return 0;
}

/* A route's z is linear in horizontal distance along each leg, and its
 * pitch atan(dz / run): a leg with no run in plan has neither (z would
 * jump, vz be whatever the step makes of it), so, as for a road
 * polyline, consecutive points must be at least this far apart in x-y. */
#define MIN_LEG 1e-3 /* m */

static int check_legs(const vs_ydoc *doc, const vs_ynode *n,
                      const char *what, const double *v, int rows,
                      vs_error *err)
{
	for (int i = 1; i < rows; i++) {
		const double *p = v + 3 * i;
		if (hypot(p[0] - p[-3], p[1] - p[-2]) < MIN_LEG) {
			vs_error_at(err, doc->path, n->kids[i]->mark,
			            "%s: point %d is within %g m of point %d in "
			            "x-y; consecutive points must differ in plan "
			            "(z is linear in horizontal distance)",
			            what, i + 1, MIN_LEG, i);
			return -1;
		}
	}
	return 0;
}

int vs_map_parse_points(const vs_ydoc *doc, const vs_ynode *n,
                        const vs_map *map, const char *what, int min_rows,
                        double **out, int *rows, vs_error *err)
{
	int lanes = 0;
	for (int i = 0; n->kind == VS_Y_SEQ && i < n->n; i++)
		lanes += n->kids[i]->kind == VS_Y_MAP;
	if (!lanes) { /* plain rows: as they always were read */
		if (vs_y_rows(doc, n, what, 3, min_rows, VS_Y_DISTINCT, out,
		              rows, err))
			return -1;
		if (check_legs(doc, n, what, *out, *rows, err)) {
			free(*out);
			*out = NULL;
			return -1;
		}
		return 0;
	}
	if (n->n < min_rows) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: needs at least %d points, got %d", what,
		            min_rows, n->n);
		return -1;
	}
	double *v = vs_xcalloc((size_t)n->n * 3, sizeof *v), h;
	for (int i = 0; i < n->n; i++) {
		double *p = v + 3 * i;
		if (vs_map_parse_point(doc, n->kids[i], map, what, p, &h, err))
			goto fail;
		if (i && p[0] == p[-3] && p[1] == p[-2] && p[2] == p[-1]) {
			vs_error_at(err, doc->path, n->kids[i]->mark,
			            "%s: point %d equals the one before", what,
			            i + 1);
			goto fail;
		}
	}
	if (check_legs(doc, n, what, v, n->n, err))
		goto fail;
	*out = v;
	*rows = n->n;
	return 0;
fail:
	free(v);
	return -1;
}

int vs_map_lane_coords(const vs_map *map, const vs_ynode *n,
                       const char **road, int *lane, double *s,
                       double *offset)
{
	const vs_ynode *r = n->kind == VS_Y_MAP ? vs_ymap_get(n, "road") : NULL;
	const vs_ynode *o = r ? vs_ymap_get(n, "offset") : NULL;
	if (!r || !map)
		return -1;
	*road = NULL;
	for (int i = 0; map->odr && i < map->odr->n_roads && !*road; i++)
		if (strcmp(map->odr->roads[i].id, r->str) == 0)
			*road = map->odr->roads[i].id;
	for (int i = 0; i < map->n_roads && !*road; i++) /* hand-written */
		if (strcmp(map->roads[i].id, r->str) == 0)
			*road = map->roads[i].id;
	*lane = (int)strtol(vs_ymap_get(n, "lane")->str, NULL, 10);
	*s = strtod(vs_ymap_get(n, "s")->str, NULL);
	*offset = o ? strtod(o->str, NULL) : 0;
	return *road ? 0 : -1;
}
