/* Building the map: checking the roads, laying out their lanes (offsets,
 * mitres, lengths, UUIDs), the records the index points at; and the
 * read-only accessors that do not need the index. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"
#include "map/odr.h"

/* Consecutive polyline points closer than this in plan give a direction
 * too noisy to offset lanes from. */
#define MIN_SEGMENT 1e-3 /* m */

double map_wrap(double a)
{
	/* differences of two wrapped angles need one turn at most; anything
	 * else takes the exact, slower way */
	if (a > MAP_PI && a <= 3 * MAP_PI)
		a -= 2 * MAP_PI;
	else if (a <= -MAP_PI && a > -3 * MAP_PI)
		a += 2 * MAP_PI;
	else if (!(a > -MAP_PI && a <= MAP_PI))
		a = remainder(a, 2 * MAP_PI);
	return a <= -MAP_PI ? a + 2 * MAP_PI : a;
}

/* ---- messages --------------------------------------------------------- */

/* "road 'ID': message", at the mark in the file when there is one. */
static vs_map *fail(vs_error *err, const char *path, vs_mark mark,
                    const char *road, const char *fmt, ...) VS_PRINTF(5, 6);

static vs_map *fail(vs_error *err, const char *path, vs_mark mark,
                    const char *road, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (path)
		vs_error_at(err, path, mark, "road '%.64s': %s", road, msg);
	else
		vs_error_set(err, "road '%.64s': %s", road, msg);
	return NULL;
}

static vs_mark no_mark(void)
{
	vs_mark m = {0, 0};
	return m;
}

#define MARK(field) (marks ? marks[r].field : no_mark())
#define POINT_MARK(k) \
	(marks && marks[r].points ? marks[r].points[k] : MARK(geom))

static int coord_ok(double v)
{
	return isfinite(v) && fabs(v) <= VS_MAP_MAX_COORD;
}

/* ---- checks ----------------------------------------------------------- */

typedef struct id_ref {
	const char *id;
	int idx;
} id_ref;

static int id_ref_cmp(const void *a, const void *b)
{
	const id_ref *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The first road (in the given order) whose id an earlier road has, and
 * that earlier road; returns 0 when the ids are unique. */
static int find_duplicate_id(const vs_map_road *roads, int n, int *dup,
                             int *first)
{
	id_ref *refs = vs_xcalloc((size_t)n, sizeof *refs);
	for (int i = 0; i < n; i++)
		refs[i] = (id_ref){roads[i].id, i};
	/* sorted by (id, index): a group's first entry is where the id first
	 * appears, its second the first repeat */
	qsort(refs, (size_t)n, sizeof *refs, id_ref_cmp);
	*dup = -1;
	for (int i = 1, g = 0; i < n; i++) {
		if (strcmp(refs[i].id, refs[g].id) != 0) {
			g = i;
			continue;
		}
		if (i == g + 1 && (*dup < 0 || refs[i].idx < *dup)) {
			*dup = refs[i].idx;
			*first = refs[g].idx;
		}
	}
	free(refs);
	return *dup >= 0;
}

static double side_width(const vs_map_road *rd, int left)
{
	double w = 0;
	int from = left ? 0 : rd->n_left;
	int n = left ? rd->n_left : rd->n_right;
	for (int k = 0; k < n; k++)
		w += rd->widths[from + k];
	return w;
}

/* Everything about one road that does not need its neighbours. */
static int check_road(const vs_map_road *roads, int r, const map_marks *marks,
                      const char *path, vs_error *err)
{
	const vs_map_road *rd = &roads[r];
	const char *id = rd->id;
	if (!id || !id[0]) {
		fail(err, path, MARK(id), "", "id: must not be empty");
		return -1;
	}
	if (rd->n_left < 0 || rd->n_right < 0 ||
	    rd->n_left > VS_MAP_MAX_LANES || rd->n_right > VS_MAP_MAX_LANES ||
	    rd->n_left + rd->n_right < 1) {
		fail(err, path, MARK(lanes), id,
		     "lanes: left %d, right %d: each side takes 0 to %d lanes, "
		     "and a road needs at least one", rd->n_left, rd->n_right,
		     VS_MAP_MAX_LANES);
		return -1;
	}
	for (int k = 0; k < rd->n_left + rd->n_right; k++)
		if (!(rd->widths[k] > 0) || !coord_ok(rd->widths[k])) {
			fail(err, path, MARK(lanes), id,
			     "lanes: width %d is %g; widths must be > 0 and at "
			     "most %g m", k + 1, rd->widths[k],
			     VS_MAP_MAX_COORD);
			return -1;
		}
	if (rd->is_circle) {
		if (!coord_ok(rd->center[0]) || !coord_ok(rd->center[1]) ||
		    !coord_ok(rd->z) || !coord_ok(rd->radius) ||
		    !(rd->radius > 0)) {
			fail(err, path, MARK(geom), id,
			     "circle: the radius must be > 0 and coordinates "
			     "within +-%g m", VS_MAP_MAX_COORD);
			return -1;
		}
		double inside = side_width(rd, 1);
		if (!(inside < rd->radius)) {
			fail(err, path, MARK(lanes), id,
			     "lanes: the left lanes reach %g m inside the "
			     "reference circle of radius %g m; on a circle the "
			     "left side is the inside, and its lanes must stop "
			     "short of the centre", inside, rd->radius);
			return -1;
		}
		return 0;
	}
	if (rd->n_points < 2) {
		fail(err, path, MARK(geom), id,
		     "polyline: needs at least 2 points, got %d", rd->n_points);
		return -1;
	}
	for (int k = 0; k < rd->n_points; k++) {
		const double *p = rd->points + 3 * k;
		if (!coord_ok(p[0]) || !coord_ok(p[1]) || !coord_ok(p[2])) {
			fail(err, path, POINT_MARK(k), id,
			     "polyline: point %d: coordinates must be within "
			     "+-%g m", k + 1, VS_MAP_MAX_COORD);
			return -1;
		}
		if (k && hypot(p[0] - p[-3], p[1] - p[-2]) < MIN_SEGMENT) {
			fail(err, path, POINT_MARK(k), id,
			     "polyline: point %d is within %g m of point %d in "
			     "x-y; consecutive points must differ", k + 1,
			     MIN_SEGMENT, k);
			return -1;
		}
	}
	return 0;
}

/* ---- geometry --------------------------------------------------------- */

/* Directions and mitres of a polyline road. The mitre vector at an
 * interior point is (n1 + n2) / (1 + n1·n2): its component along either
 * normal is 1, so the point at lateral offset y on both neighbouring
 * segments' edges is the vertex + y·mitre. Fails when a turn folds the
 * outermost lane edges back on themselves. */
static int road_segments(const vs_map_road *rd, map_road *g, int r,
                         const map_marks *marks, const char *path,
                         vs_error *err)
{
	int n = rd->n_points - 1;
	g->segs = vs_xcalloc((size_t)n, sizeof *g->segs);
	for (int i = 0; i < n; i++) {
		const double *a = rd->points + 3 * i, *b = a + 3;
		map_seg *s = &g->segs[i];
		s->len = hypot(b[0] - a[0], b[1] - a[1]);
		s->ux = (b[0] - a[0]) / s->len;
		s->uy = (b[1] - a[1]) / s->len;
		s->dz = b[2] - a[2];
	}
	double ymin = -side_width(rd, 0), ymax = side_width(rd, 1);
	for (int i = 1; i < n; i++) {
		map_seg *s0 = &g->segs[i - 1], *s1 = &g->segs[i];
		/* normals n = (-uy, ux) */
		double dot = s0->ux * s1->ux + s0->uy * s1->uy; /* = n0·n1 */
		if (1 + dot < 1e-9) {
			fail(err, path, POINT_MARK(i), rd->id,
			     "polyline: point %d turns the road back on itself",
			     i + 1);
			return -1;
		}
		double mx = (-s0->uy - s1->uy) / (1 + dot);
		double my = (s0->ux + s1->ux) / (1 + dot);
		s0->ke = mx * s0->ux + my * s0->uy;
		s1->ks = mx * s1->ux + my * s1->uy;
	}
	for (int i = 0; i < n; i++) {
		const map_seg *s = &g->segs[i];
		/* The edge at offset y runs len + (ke - ks)·y along the
		 * segment: linear in y, so the outermost edges decide. */
		for (int side = 0; side < 2; side++) {
			double y = side ? ymax : ymin;
			if (s->len + (s->ke - s->ks) * y > 1e-9 * s->len)
				continue;
			int k = fabs(s->ke) >= fabs(s->ks) ? i + 1 : i;
			fail(err, path, POINT_MARK(k), rd->id,
			     "polyline: the turn at point %d is too sharp for "
			     "lanes reaching %g m from the reference line: "
			     "their edges would fold over (add points to round "
			     "the corner, or lengthen the segments)", k + 1,
			     fabs(y));
			return -1;
		}
	}
	return 0;
}

/* Lays out the lanes of road r, and its records. */
static void road_lanes(vs_map *m, int r, const vs_map_road *rd,
                       int *n_quads, int *n_rings, int *n_across)
{
	map_road *g = &m->roads[r];
	int n = rd->n_left + rd->n_right;
	double in_l = 0, in_r = 0;
	for (int k = 0; k < n; k++) {
		int li = g->first_lane + k;
		vs_lane *l = &m->lanes[li];
		map_lane *q = &m->geo[li];
		double w = rd->widths[k];
		l->road = g->id;
		l->road_index = r;
		l->width = w;
		l->type = "driving";
		if (k < rd->n_left) {
			l->lane = k + 1;
			l->inner = in_l;
			l->outer = in_l + w;
			in_l += w;
			q->dir = -1;
		} else {
			l->lane = -(k - rd->n_left + 1);
			l->inner = -in_r;
			l->outer = -in_r - w;
			in_r += w;
			q->dir = 1;
		}
		double c = (l->inner + l->outer) / 2;
		size_t size = strlen(g->id) + 32;
		char *name = vs_xcalloc(size, 1);
		snprintf(name, size, "vsweep:%s:%d", g->id, l->lane);
		map_uuid5(name, l->uuid);
		free(name);
		if (g->is_circle) {
			/* left is the inside: radius = R - lateral offset */
			q->centre = g->radius - c;
			l->length = 2 * MAP_PI * q->centre;
			l->closed = 1;
			continue;
		}
		q->centre = c;
		q->seg_s = vs_xcalloc((size_t)g->n_points, sizeof *q->seg_s);
		for (int i = 0; i + 1 < g->n_points; i++) {
			const map_seg *s = &g->segs[i];
			double plan = s->len + c * (s->ke - s->ks);
			q->seg_s[i + 1] = q->seg_s[i] + hypot(plan, s->dz);
		}
		l->length = q->seg_s[g->n_points - 1];
	}
	if (g->is_circle) {
		int id = m->n_quads + (*n_rings)++;
		m->rings[id - m->n_quads] = (map_ring){
			g->cx, g->cy, g->radius - in_l, g->radius + in_r};
		m->info[id] = (map_info){0, g->z, 0, g->first_lane, n,
		                         rd->n_left, -1, *n_across, 0, 0, 0};
		/* left is the inside: radius = R - offset */
		for (int k = 0; k < n; k++) {
			const vs_lane *l = &m->lanes[g->first_lane + k];
			m->across[(*n_across)++] = (map_across){
				g->radius - fmax(l->inner, l->outer),
				g->radius - fmin(l->inner, l->outer), 0, 0};
		}
		return;
	}
	/* one quad a segment, its frame on the road's right edge (y = -in_r
	 * from the reference line) at the start mitre line */
	for (int i = 0; i + 1 < g->n_points; i++) {
		const map_seg *s = &g->segs[i];
		const double *p = g->points + 3 * i;
		double lo = -in_r;
		int id = (*n_quads)++;
		map_quad *c = &m->quads[id];
		c->ox = p[0] + s->ks * lo * s->ux - lo * s->uy;
		c->oy = p[1] + s->ks * lo * s->uy + lo * s->ux;
		c->ux = s->ux;
		c->uy = s->uy;
		c->len = s->len + (s->ke - s->ks) * lo;
		c->ks = s->ks;
		c->ke = s->ke;
		c->w = in_l + in_r;
		m->info[id] = (map_info){atan2(s->uy, s->ux), p[2], s->dz,
		                         g->first_lane, n, rd->n_left, i,
		                         *n_across, 0, 0, 0};
		/* each lane: across the quad from its right edge, and its
		 * positions at the segment's ends, in its travel order */
		for (int k = 0; k < n; k++) {
			const vs_lane *l = &m->lanes[g->first_lane + k];
			const double *ss = m->geo[g->first_lane + k].seg_s;
			double L = l->length;
			int along = m->geo[g->first_lane + k].dir > 0;
			m->across[(*n_across)++] = (map_across){
				fmin(l->inner, l->outer) + in_r,
				fmax(l->inner, l->outer) + in_r,
				(along ? ss[i] : L - ss[i]) / L,
				(along ? ss[i + 1] : L - ss[i + 1]) / L};
		}
	}
}

static void *alloc_lines(size_t n)
{
	/* whole cache lines: a lookup reads whole records */
	n = (n + 63) / 64 * 64 + 64;
	void *p = aligned_alloc(64, n);
	if (!p) { /* as vs_xcalloc does: nothing to recover */
		fputs("vsweep: out of memory\n", vs_own_stderr());
		abort();
	}
	return memset(p, 0, n);
}

/* Appends the OpenDRIVE lanes and patches after the roads' own. */
static void add_odr(vs_map *m, map_odr_out *o, int first_lane, int first_rec)
{
	if (!o->n_lanes) { /* no network, or one without lanes */
		free(o->lanes);
		free(o->geo);
		return;
	}
	memcpy(m->lanes + first_lane, o->lanes,
	       (size_t)o->n_lanes * sizeof *o->lanes);
	memcpy(m->geo + first_lane, o->geo,
	       (size_t)o->n_lanes * sizeof *o->geo);
	/* lanes of no width anywhere have lanes but no patches, and
	 * memcpy from NULL is undefined even for 0 bytes */
	if (o->n_patches) {
		memcpy(m->patches, o->patches,
		       (size_t)o->n_patches * sizeof *o->patches);
		memcpy(m->psurf, o->psurf,
		       (size_t)o->n_patches * sizeof *o->psurf);
	}
	for (int k = 0; k < o->n_patches; k++) {
		map_info *f = &m->info[first_rec + k];
		*f = o->info[k];
		f->first_lane += first_lane;
	}
	for (int k = 0; k < o->n_slanes; k++)
		o->slanes[k].lane += first_lane;
	m->slanes = o->slanes; /* the map takes it over */
	free(o->lanes);
	free(o->geo);
	free(o->patches);
	free(o->psurf);
	free(o->info);
}

vs_map *map_build(const vs_map_road *roads, int n_roads,
                  const map_marks *marks, const char *path, odr_net *odr,
                  vs_error *err)
{
	if (n_roads < 0)
		n_roads = 0;
	int n_lanes = 0, n_quads = 0, n_rings = 0, n_across = 0;
	for (int r = 0; r < n_roads; r++) {
		if (check_road(roads, r, marks, path, err)) {
			odr_free(odr);
			return NULL;
		}
		int n = roads[r].n_left + roads[r].n_right;
		n_lanes += n;
		int n_recs = roads[r].is_circle ? 1 : roads[r].n_points - 1;
		if (roads[r].is_circle)
			n_rings++;
		else
			n_quads += n_recs;
		n_across += n * n_recs;
	}
	int dup, first;
	if (n_roads > 1 && find_duplicate_id(roads, n_roads, &dup, &first)) {
		int r = dup;
		odr_free(odr);
		if (marks)
			return fail(err, path, MARK(id), roads[dup].id,
			            "the id is used twice (first at line %d)",
			            marks[first].id.line);
		return fail(err, path, MARK(id), roads[dup].id,
		            "the id is used twice (first by road %d)",
		            first + 1);
	}

	map_odr_out o;
	memset(&o, 0, sizeof o);
	if (odr)
		map_odr_layout(odr, &o);
	int road_lanes_n = n_lanes, road_recs = n_quads + n_rings;
	vs_map *m = vs_xcalloc(1, sizeof *m);
	atomic_init(&m->refs, 1);
	m->odr = odr;
	m->n_roads = n_roads;
	m->roads = vs_xcalloc((size_t)n_roads, sizeof *m->roads);
	m->n_lanes = n_lanes + o.n_lanes;
	m->lanes = vs_xcalloc((size_t)m->n_lanes + 1, sizeof *m->lanes);
	m->geo = vs_xcalloc((size_t)m->n_lanes + 1, sizeof *m->geo);
	m->n_quads = n_quads;
	m->n_patches = o.n_patches;
	m->n_recs = n_quads + n_rings + o.n_patches;
	m->quads = alloc_lines((size_t)n_quads * sizeof *m->quads);
	m->rings = alloc_lines((size_t)n_rings * sizeof *m->rings);
	m->patches = alloc_lines((size_t)o.n_patches * sizeof *m->patches);
	m->psurf = vs_xcalloc((size_t)o.n_patches + 1, sizeof *m->psurf);
	m->info = vs_xcalloc((size_t)m->n_recs + 1, sizeof *m->info);
	m->across = vs_xcalloc((size_t)n_across + 1, sizeof *m->across);
	m->n_across = (size_t)n_across + 1;
	m->n_slanes = (size_t)o.n_slanes;
	add_odr(m, &o, road_lanes_n, road_recs);
	int lane = 0;
	for (int r = 0; r < n_roads; r++) {
		const vs_map_road *rd = &roads[r];
		map_road *g = &m->roads[r];
		g->id = vs_strdup(rd->id);
		g->is_circle = rd->is_circle;
		g->first_lane = lane;
		g->n_lanes = rd->n_left + rd->n_right;
		lane += g->n_lanes;
		if (rd->is_circle) {
			g->cx = rd->center[0];
			g->cy = rd->center[1];
			g->radius = rd->radius;
			g->z = rd->z;
		} else {
			g->n_points = rd->n_points;
			g->points = vs_xcalloc((size_t)rd->n_points * 3,
			                       sizeof *g->points);
			memcpy(g->points, rd->points,
			       (size_t)rd->n_points * 3 * sizeof *g->points);
			if (road_segments(rd, g, r, marks, path, err)) {
				m->n_roads = r + 1;
				vs_map_unref(m);
				return NULL;
			}
		}
	}
	n_quads = n_rings = n_across = 0;
	for (int r = 0; r < n_roads; r++)
		road_lanes(m, r, &roads[r], &n_quads, &n_rings, &n_across);
	map_index_build(m);
	map_names_build(m);
	return m;
}

vs_map *vs_map_create(const vs_map_road *roads, int n_roads, vs_error *err)
{
	return map_build(roads, n_roads, NULL, NULL, NULL, err);
}

/* ---- life cycle and accessors ----------------------------------------- */

vs_map *vs_map_ref(const vs_map *map)
{
	/* The count is the one mutable part of a map; const here means the
	 * geometry, which nobody changes after building. */
	vs_map *m = (vs_map *)map;
	if (m)
		atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	return m;
}

void vs_map_unref(vs_map *m)
{
	if (!m || atomic_fetch_sub_explicit(&m->refs, 1,
	                                    memory_order_acq_rel) != 1)
		return;
	for (int i = 0; i < m->n_lanes; i++) {
		free(m->geo[i].seg_s);
		free(m->geo[i].st);
	}
	for (int r = 0; r < m->n_roads; r++) {
		free(m->roads[r].id);
		free(m->roads[r].points);
		free(m->roads[r].segs);
	}
	map_index_free(m);
	map_names_free(m);
	free(m->quads);
	free(m->rings);
	free(m->patches);
	free(m->psurf);
	free(m->slanes);
	odr_free(m->odr);
	free(m->info);
	free(m->across);
	free(m->geo);
	free(m->lanes);
	free(m->roads);
	free(m);
}

int vs_map_lane_count(const vs_map *map)
{
	return map ? map->n_lanes : 0;
}

const vs_lane *vs_map_lane(const vs_map *map, int i)
{
	return map && i >= 0 && i < map->n_lanes ? &map->lanes[i] : NULL;
}

const char *vs_map_opendrive(const vs_map *map, const char **digest)
{
	const odr_net *net = map ? map->odr : NULL;
	*digest = net ? net->digest : NULL;
	return net ? net->path : NULL;
}

double vs_map_travel_heading(double vx, double vy, double yaw)
{
	/* hypot(vx, vy) >= VS_MAP_SLOW_SPEED, with hypot (slow, once per
	 * actor and step) taken only when the squared speed is within 1e-9
	 * of the threshold's square: farther away the squares, whose
	 * rounding is some 1e-16, decide alike (a NaN falls through to
	 * hypot; a square that overflows is of a speed far above) */
	const double t = VS_MAP_SLOW_SPEED, t2 = t * t;
	double s2 = vx * vx + vy * vy;
	int moving = s2 > t2 * (1 + 1e-9)   ? 1
	             : s2 < t2 * (1 - 1e-9) ? 0
	                                    : hypot(vx, vy) >= t;
	if (moving)
		return atan2(vy, vx);
	return map_wrap(yaw + MAP_PI / 2);
}

/* ---- sampling lanes --------------------------------------------------- */

/* The point at fraction t along segment i of road g, on the lateral line
 * at offset y (m, left of the reference > 0). */
static void seg_point(const map_road *g, int i, double t, double y,
                      double xyz[3])
{
	const map_seg *s = &g->segs[i];
	const double *a = g->points + 3 * i;
	double x = s->ks * y + t * (s->len + (s->ke - s->ks) * y);
	xyz[0] = a[0] + x * s->ux - y * s->uy;
	xyz[1] = a[1] + x * s->uy + y * s->ux;
	xyz[2] = a[2] + t * s->dz;
}

/* An OpenDRIVE lane's centre line at p, offset lateral to the left of
 * its travel direction: linear between its stations. */
static void station_point(const map_lane *q, double p, double lateral,
                          double xyz[3], double *heading)
{
	int lo = 0, hi = q->n_st - 2; /* the last station with p <= p */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (q->st[mid].p <= p)
			lo = mid;
		else
			hi = mid - 1;
	}
	const map_station *a = &q->st[lo], *b = &q->st[lo + 1];
	double t = b->p > a->p ? (p - a->p) / (b->p - a->p) : 0;
	t = t > 0 ? (t < 1 ? t : 1) : 0;
	double h = a->heading + t * map_wrap(b->heading - a->heading);
	xyz[0] = a->x + t * (b->x - a->x) - lateral * sin(h);
	xyz[1] = a->y + t * (b->y - a->y) + lateral * cos(h);
	xyz[2] = a->z + t * (b->z - a->z);
	*heading = map_wrap(h);
}

int vs_map_lane_point(const vs_map *map, int i, double p, double lateral,
                      double xyz[3], double *heading)
{
	if (!vs_map_lane(map, i))
		return -1;
	if (map->geo[i].n_st) {
		double h;
		station_point(&map->geo[i], p > 0 ? (p < 1 ? p : 1) : 0,
		              lateral, xyz, &h);
		if (heading)
			*heading = h;
		return 0;
	}
	const vs_lane *l = &map->lanes[i];
	const map_lane *q = &map->geo[i];
	const map_road *g = &map->roads[l->road_index];
	p = p > 0 ? (p < 1 ? p : 1) : 0;
	double h;
	if (g->is_circle) {
		double th = 2 * MAP_PI * (q->dir > 0 ? p : 1 - p);
		double r = q->centre - q->dir * lateral;
		xyz[0] = g->cx + r * cos(th);
		xyz[1] = g->cy + r * sin(th);
		xyz[2] = g->z;
		h = th + q->dir * MAP_PI / 2;
	} else {
		double s = p * l->length;
		if (q->dir < 0)
			s = l->length - s;
		int lo = 0, hi = g->n_points - 2; /* last seg with seg_s <= s */
		while (lo < hi) {
			int mid = (lo + hi + 1) / 2;
			if (q->seg_s[mid] <= s)
				lo = mid;
			else
				hi = mid - 1;
		}
		double ds = q->seg_s[lo + 1] - q->seg_s[lo];
		double t = (s - q->seg_s[lo]) / ds;
		t = t > 0 ? (t < 1 ? t : 1) : 0;
		seg_point(g, lo, t, q->centre + q->dir * lateral, xyz);
		const map_seg *sg = &g->segs[lo];
		h = atan2(sg->uy, sg->ux) + (q->dir < 0 ? MAP_PI : 0);
	}
	if (heading)
		*heading = map_wrap(h);
	return 0;
}

int vs_map_lane_polyline(const vs_map *map, int i, double lateral,
                         double tolerance, double **xyz)
{
	*xyz = NULL;
	if (!vs_map_lane(map, i))
		return -1;
	const map_lane *q = &map->geo[i];
	if (q->n_st) {
		double *v = vs_xcalloc((size_t)q->n_st * 3, sizeof *v), h;
		double w = map->lanes[i].width;
		for (int k = 0; k < q->n_st; k++) /* edges where they are */
			station_point(q, q->st[k].p,
			              w > 0 ? lateral * q->st[k].half / (w / 2)
			                    : lateral,
			              v + 3 * k, &h);
		*xyz = v;
		return q->n_st;
	}
	const map_road *g = &map->roads[map->lanes[i].road_index];
	if (g->is_circle) {
		double r = fabs(q->centre - q->dir * lateral);
		double step = MAP_PI / 2; /* at most a quarter turn a chord */
		if (tolerance > 0 && tolerance < r)
			step = fmin(step, 2 * acos(1 - tolerance / r));
		double segs = ceil(2 * MAP_PI / step);
		int n = segs > (1 << 20) ? 1 << 20 : (int)segs;
		double *v = vs_xcalloc((size_t)(n + 1) * 3, sizeof *v);
		for (int k = 0; k <= n; k++)
			vs_map_lane_point(map, i, k == n ? 1 : (double)k / n,
			                  lateral, v + 3 * k, NULL);
		*xyz = v;
		return n + 1;
	}
	int n = g->n_points;
	double y = q->centre + q->dir * lateral;
	double *v = vs_xcalloc((size_t)n * 3, sizeof *v);
	for (int k = 0; k < n; k++) {
		double *out = v + 3 * (q->dir > 0 ? k : n - 1 - k);
		if (k < n - 1)
			seg_point(g, k, 0, y, out);
		else
			seg_point(g, k - 1, 1, y, out);
	}
	*xyz = v;
	return n;
}
