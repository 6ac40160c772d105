/* OpenDRIVE roads as map lanes: each lane of each lane section whose type
 * is a lane for MapLocation becomes a lane (UUID from road id, section
 * index and lane id), its centre line sampled at the section's stations,
 * and its area the patches between consecutive stations (map_internal.h).
 * Stations are the section's ends, every geometry joint and width or
 * laneOffset record start inside it, and enough points between them that
 * no lane edge strays more than SAG_TOL from its chord nor a lane's
 * direction more than HEADING_TOL from its tangent. Also the road
 * surface under a point (vs_map_surface) and loading a .xodr as a map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"
#include "map/odr.h"

#define SAG_TOL 0.02    /* m: a lane edge's chord to curve distance
                           (bent back to the curve, map_internal.h) */
#define RESIDUAL_TOL 5e-4 /* m: what the bent chords leave */
#define HEADING_TOL 2.5e-4 /* rad: a lane's travel direction, taken as
                              linear between stations (map_slane h0,
                              dh), from its tangent: a quarter of the
                              1e-3 rad promised for MapLocation Angle */
#define MAX_PIECE 100.0 /* m: the longest patch, even on a straight */
#define MAX_STATIONS 200000 /* per section: a bound on bad geometry */

typedef struct dvec {
	double *v;
	int n, cap;
} dvec;

static void dpush(dvec *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->v = vs_xrealloc(d->v, (size_t)d->cap * sizeof *d->v);
	}
	d->v[d->n++] = x;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* How sharply any lane edge of section sec bends over [a, b] (1/m): the
 * largest reference curvature seen from the edge, plus the edge's t''
 * (c2); and how fast that changes (c3, 1/m²). */
static void bend(const odr_road *r, int sec, double a, double b, double *c2,
                 double *c3)
{
	const int m = 16;
	const odr_section *q = &r->sec[sec];
	enum { MAX_B = 2 * VS_MAP_MAX_LANES + 1 };
	double prev_dt[MAX_B] = {0}, prev_c[MAX_B] = {0};
	int nb = q->n_lanes + 1 < MAX_B ? q->n_lanes + 1 : MAX_B;
	double h = (b - a) / m;
	*c2 = *c3 = 0;
	/* [a, b] lies between two record starts; the records at b are the
	 * next piece's (its curvature, its width slope): the last sample
	 * is taken just short of b, on this piece */
	double last = b - 1e-9 * (1 + fabs(b));
	for (int i = 0; i <= m; i++) {
		double s = i < m ? a + h * i : fmax(last, a), x, y, hd, k;
		odr_ref(r, s, &x, &y, &hd, &k);
		for (int j = 0; j < nb; j++) {
			double dt, t = odr_boundary(r, sec, j - 1, s, &dt);
			double c = k / fmax(1 - k * t, 0.1);
			if (i)
				c += (dt - prev_dt[j]) / h;
			if (i > 1)
				*c3 = fmax(*c3, fabs(c - prev_c[j]) / h);
			prev_dt[j] = dt;
			prev_c[j] = c;
			*c2 = fmax(*c2, fabs(c));
		}
	}
}

/* The stations of section sec of road r, ascending. */
static void stations(const odr_road *r, int sec, dvec *st)
{
	const odr_section *q = &r->sec[sec];
	double a = q->s, b = sec + 1 < r->n_sec ? r->sec[sec + 1].s : r->length;
	dvec br = {0};
	dpush(&br, a);
	dpush(&br, b);
	for (int i = 0; i < r->n_geom; i++)
		if (r->geom[i].s > a && r->geom[i].s < b)
			dpush(&br, r->geom[i].s);
	for (int i = 0; i < r->n_offset; i++)
		if (r->offset[i].s0 > a && r->offset[i].s0 < b)
			dpush(&br, r->offset[i].s0);
	for (int k = 0; k < q->n_lanes; k++)
		for (int i = 0; i < q->lanes[k].n_width; i++) {
			double s = a + q->lanes[k].width[i].s0;
			if (s > a && s < b)
				dpush(&br, s);
		}
	qsort(br.v, (size_t)br.n, sizeof *br.v, dcmp);
	st->n = 0;
	dpush(st, a);
	for (int i = 1; i < br.n; i++) {
		double u = st->v[st->n - 1], v = br.v[i];
		if (v - u < 1e-9 * (1 + fabs(v)))
			continue;
		double c2, c3;
		bend(r, sec, u, v, &c2, &c3);
		double step = MAX_PIECE;
		if (c2 > 0)
			step = fmin(step, sqrt(8 * SAG_TOL / c2));
		if (c3 > 0) /* what the bent chords leave: ~ c3·step³/24 */
			step = fmin(step, cbrt(24 * RESIDUAL_TOL / c3));
		/* The heading θ(s) (rad) of an edge, drawn as the straight
		 * line from its value at one station to the next, is off by
		 * at most max|θ''|·step²/8 (linear interpolation's
		 * remainder), and θ'' is the edge's curvature rate, c3
		 * (1/m²): step = sqrt(8·HEADING_TOL/c3) m keeps it within
		 * HEADING_TOL. A clothoid of k0 -> k1 (1/m) over L (m)
		 * has c3 = |k1 - k0|/L: -0.02 -> 0.02 over 0.5 m was one
		 * piece, off by 2.5e-3 rad; now four. */
		if (c3 > 0)
			step = fmin(step, sqrt(8 * HEADING_TOL / c3));
		double n = ceil((v - u) / step);
		if (n > MAX_STATIONS - st->n)
			n = MAX_STATIONS - st->n > 1 ? MAX_STATIONS - st->n : 1;
		for (int j = 1; j < (int)n; j++)
			dpush(st, u + (v - u) * j / n);
		dpush(st, v);
	}
	free(br.v);
}

/* The road's surface height at (s, t) in section sec (m). */
static double surface_z(const odr_road *r, int sec, double s, double t)
{
	double dzds, dzdt;
	return odr_surface(r, sec, s, t, &dzds, &dzdt);
}

/* The point at (s, t) in plan. */
static void st_point(double x, double y, double h, double t, double *px,
                     double *py)
{
	*px = x - t * sin(h);
	*py = y + t * cos(h);
}

typedef struct layout {
	map_odr_out *o;
	int cap_lanes, cap_patches, cap_slanes;
} layout;

/* The rows of T (edge offsets, row 0 the centre lane) of lane k's right
 * (lower t) and left edges. */
static void lane_rows(const odr_section *q, int k, int *lo, int *hi)
{
	int inner = (k == 0 || k == q->n_left) ? 0 : k, outer = k + 1;
	*lo = k < q->n_left ? inner : outer;
	*hi = k < q->n_left ? outer : inner;
}

/* One lane (index k of section sec of road ri) over the stations, whose
 * reference points (x y h k rows) and edge offsets are given; returns its
 * index among the layout's lanes. */
static int add_lane(layout *ly, const odr_net *net, int ri, int sec, int k,
                    const dvec *st, const double *ref, const double *T,
                    const double *DT)
{
	const odr_road *r = &net->roads[ri];
	const odr_lane *ol = &r->sec[sec].lanes[k];
	map_odr_out *o = ly->o;
	int n = st->n, in, out;
	lane_rows(&r->sec[sec], k, &in, &out);
	int dir = (ol->id < 0) != r->lht ? 1 : -1;
	if (o->n_lanes == ly->cap_lanes) {
		ly->cap_lanes = ly->cap_lanes ? 2 * ly->cap_lanes : 64;
		o->lanes = vs_xrealloc(o->lanes, (size_t)ly->cap_lanes *
		                                         sizeof *o->lanes);
		o->geo = vs_xrealloc(o->geo, (size_t)ly->cap_lanes *
		                                     sizeof *o->geo);
	}
	int li = o->n_lanes++;
	vs_lane *l = &o->lanes[li];
	map_lane *g = &o->geo[li];
	memset(l, 0, sizeof *l);
	memset(g, 0, sizeof *g);
	g->dir = dir;
	g->n_st = n;
	g->st = vs_xcalloc((size_t)n, sizeof *g->st);
	double *cum = vs_xcalloc((size_t)n, sizeof *cum), wint = 0;
	for (int j = 0; j < n; j++) {
		const double *rf = ref + 4 * j;
		double ti = T[in * n + j], to = T[out * n + j];
		double tc = (ti + to) / 2;
		double dtc = (DT[in * n + j] + DT[out * n + j]) / 2;
		map_station *p = &g->st[dir > 0 ? j : n - 1 - j];
		st_point(rf[0], rf[1], rf[2], tc, &p->x, &p->y);
		p->z = surface_z(r, sec, st->v[j], tc);
		p->half = fabs(to - ti) / 2;
		p->heading = map_wrap(rf[2] + atan2(dtc, 1 - rf[3] * tc) +
		                      (dir > 0 ? 0 : MAP_PI));
	}
	/* The mean width over s: every width, border and laneOffset record
	 * starts at a station, so between two the width is one cubic and
	 * Simpson's rule its exact integral (m²). */
	for (int j = 0; j + 1 < n; j++) {
		double s0 = st->v[j], s1 = st->v[j + 1], sm = (s0 + s1) / 2, d;
		double wm = odr_boundary(r, sec, out - 1, sm, &d) -
		            odr_boundary(r, sec, in - 1, sm, &d);
		wint += (s1 - s0) / 6 *
		        (fabs(T[out * n + j] - T[in * n + j]) + 4 * fabs(wm) +
		         fabs(T[out * n + j + 1] - T[in * n + j + 1]));
	}
	for (int j = 1; j < n; j++) {
		/* the arc through both stations with their headings: the
		 * chord times (d/2) / sin(d/2), exact on circles and within
		 * a micrometre on a clothoid's short piece */
		const map_station *a = &g->st[j - 1], *b = &g->st[j];
		double d = fabs(map_wrap(b->heading - a->heading)) / 2;
		double plan = hypot(b->x - a->x, b->y - a->y) *
		              (d > 1e-8 ? d / sin(d) : 1);
		cum[j] = cum[j - 1] + hypot(plan, b->z - a->z);
	}
	double len = cum[n - 1];
	for (int j = 0; j < n; j++)
		g->st[j].p = len > 0 ? cum[j] / len : (double)j / (n - 1);
	free(cum);
	/* the whole id: two ids alike in their first 200 bytes were one
	 * UUID (and the results file's lane_id is unique) */
	size_t size = strlen(r->id) + 64;
	char *name = vs_xcalloc(size, 1);
	snprintf(name, size, "vsweep:odr:%s:%d:%d", r->id, sec, ol->id);
	map_uuid5(name, l->uuid);
	free(name);
	l->road = r->id;
	l->road_index = -1;
	l->lane = ol->id;
	l->length = len;
	l->width = n > 1 && st->v[n - 1] > st->v[0]
	                   ? wint / (st->v[n - 1] - st->v[0])
	                   : fabs(T[out * n] - T[in * n]);
	l->inner = k < r->sec[sec].n_left ? T[in * n] : T[out * n];
	l->outer = k < r->sec[sec].n_left ? T[out * n] : T[in * n];
	l->section = sec;
	l->type = ol->type;
	return li;
}

/* The bend of each edge row (0..rows - 1; lo and hi are the run's
 * outer edges) of a patch between s0 and s1 (the stations j, j + 1 of
 * n): how far, in v, the true edge's midpoint is off
 * the chord, scaled to the parabola 4·b·u·(1 - u) (map_internal.h). The
 * chords are within SAG_TOL of the curve, and the parabolas within far
 * less: what is left is the curve's third-order change in a patch. */
static void bends(const odr_road *r, long sec, const map_patch *pt, double s0,
                  double s1, const double *T, int n, int j, int lo, int hi,
                  int rows, double *bend)
{
	double w0 = T[hi * n + j] - T[lo * n + j];
	double w1 = T[hi * n + j + 1] - T[lo * n + j + 1];
	double sm = (s0 + s1) / 2, x, y, h, dt;
	odr_ref(r, sm, &x, &y, &h, NULL);
	for (int row = 0; row < rows; row++) {
		bend[row] = 0;
		if (!(w0 > 1e-9 && w1 > 1e-9))
			continue; /* a run narrowing to a point: no v there */
		double t = odr_boundary(r, (int)sec, row - 1, sm, &dt), px, py;
		st_point(x, y, h, t, &px, &py);
		double u, v;
		if (!map_patch_uv(pt, px, py, INFINITY, &u, &v))
			continue;
		double v0 = (T[row * n + j] - T[lo * n + j]) / w0;
		double v1 = (T[row * n + j + 1] - T[lo * n + j + 1]) / w1;
		double k = 4 * u * (1 - u);
		if (k > 0.5) /* u near the middle, as it must be */
			bend[row] = (v - (v0 + u * (v1 - v0))) / k;
	}
}

static void grow_patches(layout *ly)
{
	map_odr_out *o = ly->o;
	if (o->n_patches < ly->cap_patches)
		return;
	int c = ly->cap_patches = ly->cap_patches ? 2 * ly->cap_patches : 256;
	o->patches = vs_xrealloc(o->patches, (size_t)c * sizeof *o->patches);
	o->psurf = vs_xrealloc(o->psurf, (size_t)c * sizeof *o->psurf);
	o->info = vs_xrealloc(o->info, (size_t)c * sizeof *o->info);
}

/* The patches of a run of side by side lanes (ks[0..n) in order of t,
 * their map indices li[]) over the stations. */
static void add_patches(layout *ly, const odr_road *r, const odr_section *q,
                        int ri, const int *ks, const int *li, int nk,
                        const dvec *st, const double *ref, const double *T)
{
	map_odr_out *o = ly->o;
	int n = st->n, rlo, rhi, dummy;
	double *bend = vs_xcalloc((size_t)q->n_lanes + 1, sizeof *bend);
	lane_rows(q, ks[0], &rlo, &dummy);
	lane_rows(q, ks[nk - 1], &dummy, &rhi);
	for (int j = 0; j + 1 < n; j++) {
		double lo0 = T[rlo * n + j], hi0 = T[rhi * n + j];
		double lo1 = T[rlo * n + j + 1], hi1 = T[rhi * n + j + 1];
		if (hi0 - lo0 < 1e-6 && hi1 - lo1 < 1e-6)
			continue; /* no area */
		grow_patches(ly);
		int pi = o->n_patches++;
		map_patch *pt = &o->patches[pi];
		const double *r0 = ref + 4 * j, *r1 = ref + 4 * (j + 1);
		st_point(r0[0], r0[1], r0[2], lo0, &pt->x[0], &pt->y[0]);
		st_point(r1[0], r1[1], r1[2], lo1, &pt->x[1], &pt->y[1]);
		st_point(r1[0], r1[1], r1[2], hi1, &pt->x[2], &pt->y[2]);
		st_point(r0[0], r0[1], r0[2], hi0, &pt->x[3], &pt->y[3]);
		o->psurf[pi] = (map_psurf){ri, st->v[j], st->v[j + 1],
		                           lo0, hi0, lo1, hi1};
		map_info *f = &o->info[pi];
		memset(f, 0, sizeof *f);
		f->seg = j;
		f->across = o->n_slanes;
		bends(r, q - r->sec, pt, st->v[j], st->v[j + 1], T, n, j, rlo,
		      rhi, q->n_lanes + 1, bend);
		f->blo = bend[rlo];
		f->bhi = bend[rhi];
		f->reach = fmax(fmax(-f->blo, f->bhi), 0) *
		                   fmax(hi0 - lo0, hi1 - lo1) +
		           1e-9;
		for (int i = 0; i < nk; i++) {
			int a, b;
			lane_rows(q, ks[i], &a, &b);
			double w0 = hi0 - lo0, w1 = hi1 - lo1;
			double la0 = T[a * n + j], lb0 = T[b * n + j];
			double la1 = T[a * n + j + 1], lb1 = T[b * n + j + 1];
			if (lb0 - la0 < 1e-9 && lb1 - la1 < 1e-9)
				continue; /* the lane has no area here */
			if (o->n_slanes == ly->cap_slanes) {
				ly->cap_slanes = ly->cap_slanes
				                         ? 2 * ly->cap_slanes
				                         : 256;
				o->slanes = vs_xrealloc(
					o->slanes, (size_t)ly->cap_slanes *
					                   sizeof *o->slanes);
			}
			const map_lane *g = &o->geo[li[i]];
			const map_station *sa = &g->st[g->dir > 0 ? j : n - 1 - j];
			const map_station *sb =
				&g->st[g->dir > 0 ? j + 1 : n - 2 - j];
			/* at an end where the run has no width, the lanes
			 * meet in a point: any v will do */
			map_slane *sl = &o->slanes[o->n_slanes++];
			*sl = (map_slane){
				w0 > 0 ? (la0 - lo0) / w0 : 0,
				w0 > 0 ? (lb0 - lo0) / w0 : 1,
				w1 > 0 ? (la1 - lo1) / w1 : 0,
				w1 > 0 ? (lb1 - lo1) / w1 : 1,
				sa->p, sb->p, sa->heading,
				map_wrap(sb->heading - sa->heading), bend[a],
				bend[b], sa->z, sb->z - sa->z, li[i]};
			f->n_lanes++;
		}
		f->first_lane = f->n_lanes ? o->slanes[f->across].lane : 0;
	}
	free(bend);
}

void map_odr_layout(const odr_net *net, map_odr_out *o)
{
	memset(o, 0, sizeof *o);
	layout ly = {o, 0, 0, 0};
	dvec st = {0};
	for (int ri = 0; ri < net->n_roads; ri++) {
		const odr_road *r = &net->roads[ri];
		for (int sec = 0; sec < r->n_sec; sec++) {
			const odr_section *q = &r->sec[sec];
			stations(r, sec, &st);
			int n = st.n, rows = q->n_lanes + 1;
			double *ref = vs_xcalloc((size_t)n * 4, sizeof *ref);
			double *T = vs_xcalloc((size_t)(n * rows), sizeof *T);
			double *DT = vs_xcalloc((size_t)(n * rows), sizeof *DT);
			int *ks = vs_xcalloc((size_t)q->n_lanes + 1, sizeof *ks);
			int *li = vs_xcalloc((size_t)q->n_lanes + 1, sizeof *li);
			for (int j = 0; j < n; j++) {
				double *rf = ref + 4 * j;
				odr_ref(r, st.v[j], &rf[0], &rf[1], &rf[2],
				        &rf[3]);
				for (int b = 0; b < rows; b++)
					T[b * n + j] = odr_boundary(
						r, sec, b - 1, st.v[j],
						&DT[b * n + j]);
			}
			/* lanes in order of t: right ones from the outside
			 * in, then left ones outward; runs of lanes for
			 * MapLocation make patches */
			int nk = 0;
			for (int i = 0; i <= q->n_lanes; i++) {
				int k = i < q->n_lanes - q->n_left
				                ? q->n_lanes - 1 - i
				                : i - (q->n_lanes - q->n_left);
				int end = i == q->n_lanes ||
				          !odr_type_is_lane(q->lanes[k].type);
				if (!end) {
					ks[nk] = k;
					li[nk++] = add_lane(&ly, net, ri, sec, k,
					                    &st, ref, T, DT);
					continue;
				}
				if (nk)
					add_patches(&ly, r, q, ri, ks, li, nk,
					            &st, ref, T);
				nk = 0;
			}
			free(ks);
			free(li);
			free(ref);
			free(T);
			free(DT);
		}
	}
	free(st.v);
}

/* ---- the surface ------------------------------------------------------ */

int vs_map_surface(const vs_map *m, double x, double y, double yaw,
                   double *z, double *pitch, double *roll)
{
	*z = *pitch = *roll = 0;
	if (!m || !m->odr || !isfinite(x) || !isfinite(y) || !isfinite(yaw))
		return 0;
	uint32_t id;
	double u, v;
	if (map_patch_find(m, x, y, &id, &u, &v))
		return 0;
	const map_psurf *ps = map_psurf_of(m, id);
	const odr_road *r = &m->odr->roads[ps->road];
	double s = ps->s0 + u * (ps->s1 - ps->s0);
	double lo = ps->lo0 + u * (ps->lo1 - ps->lo0);
	double hi = ps->hi0 + u * (ps->hi1 - ps->hi0);
	/* v from the bent right edge to the bent left edge is t from lo
	 * to hi */
	const map_info *f = &m->info[id];
	double bend = 4 * u * (1 - u);
	double vlo = bend * f->blo, vhi = 1 + bend * f->bhi;
	double t = lo + (v - vlo) / (vhi - vlo) * (hi - lo);
	double rx, ry, h, k, dzds, dzdt;
	odr_ref(r, s, &rx, &ry, &h, &k);
	/* the patch lies between two stations of one section: its middle
	 * is inside that section */
	int sec = odr_section_at(r, (ps->s0 + ps->s1) / 2);
	*z = odr_surface(r, sec, s, t, &dzds, &dzdt);
	/* the surface gradient: along the reference line per metre of plan
	 * at offset t, and across it */
	dzds /= fmax(1 - k * t, 1e-6);
	double gx = dzds * cos(h) - dzdt * sin(h);
	double gy = dzds * sin(h) + dzdt * cos(h);
	/* RoadRunner yaw: forward is Rz(yaw)·(0, 1, 0), right Rz(yaw)·(1,
	 * 0, 0). With R = Rz(yaw) Rx(pitch) Ry(roll) the forward axis is
	 * Rz(yaw)·(0, cos p, sin p): it lies on the surface when tan p is
	 * the slope ahead, mf. The right axis is Rz(yaw)·(cos r, sin r sin p,
	 * -sin r cos p); on the surface its rise equals mr cos r + mf sin r
	 * sin p, which gives tan r = -mr / sqrt(1 + mf^2): a road falling
	 * to the right (mr < 0) rolls the body right, roll > 0. */
	double mf = -gx * sin(yaw) + gy * cos(yaw);
	double mr = gx * cos(yaw) + gy * sin(yaw);
	*pitch = atan(mf);
	*roll = atan2(-mr, sqrt(1 + mf * mf));
	return 1;
}

int vs_map_odr_point(const vs_map *m, const char *road, int lane, double s,
                     double offset, double xyz[3], double *heading,
                     char *why, size_t why_size)
{
	const odr_net *net = m ? m->odr : NULL;
	const odr_road *r = NULL;
	for (int i = 0; net && i < net->n_roads && !r; i++)
		if (strcmp(net->roads[i].id, road) == 0)
			r = &net->roads[i];
	int yaml = r ? 1 : map_yaml_lane_point(m, road, lane, s, offset, xyz,
	                                       heading, why, why_size);
	if (yaml != 1) /* a hand-written road's (lane_coords.c) */
		return yaml;
	if (!net) {
		snprintf(why, why_size, "lane coordinates need a map with roads "
		         "(map: {roads: [...]} or {opendrive: FILE})");
		return -1;
	}
	if (!r) {
		snprintf(why, why_size, "road '%.64s' is not in %.300s", road,
		         net->path);
		return -1;
	}
	if (!(s >= 0 && s <= r->length) || !isfinite(offset)) {
		snprintf(why, why_size, "s = %g m is off road '%.64s' (0 to "
		         "%g m)", s, road, r->length);
		return -1;
	}
	int sec = odr_section_at(r, s);
	const odr_section *q = &r->sec[sec];
	int k = 0;
	while (k < q->n_lanes && q->lanes[k].id != lane)
		k++;
	if (lane == 0 || k == q->n_lanes) {
		snprintf(why, why_size, "road '%.64s' has no lane %d at s = %g "
		         "m (lane section %d: lanes %d to %d)", road, lane, s,
		         sec, q->n_lanes > q->n_left ? q->n_left - q->n_lanes
		                                     : 1,
		         q->n_left ? q->n_left : -1);
		return -1;
	}
	int lo, hi;
	lane_rows(q, k, &lo, &hi);
	double dlo, dhi, x, y, h, kk;
	double tc = (odr_boundary(r, sec, lo - 1, s, &dlo) +
	             odr_boundary(r, sec, hi - 1, s, &dhi)) / 2;
	double dtc = (dlo + dhi) / 2;
	odr_ref(r, s, &x, &y, &h, &kk);
	st_point(x, y, h, tc + offset, &xyz[0], &xyz[1]);
	xyz[2] = surface_z(r, sec, s, tc + offset);
	int dir = (lane < 0) != r->lht ? 1 : -1;
	*heading = map_wrap(h + atan2(dtc, 1 - kk * tc) +
	                    (dir > 0 ? 0 : MAP_PI));
	return 0;
}

int vs_map_lane_span(const vs_map *m, const char *road, int lane,
                     double s0, double s1, double offset, double *length,
                     char *why, size_t why_size)
{
	const odr_net *net = m ? m->odr : NULL;
	const odr_road *r = NULL;
	double xyz[3], heading;
	for (int i = 0; net && i < net->n_roads && !r; i++)
		if (strcmp(net->roads[i].id, road) == 0)
			r = &net->roads[i];
	*length = r ? r->length : map_yaml_road_length(m, road);
	if (vs_map_odr_point(m, road, lane, s0, offset, xyz, &heading, why,
	                     why_size) ||
	    vs_map_odr_point(m, road, lane, s1, offset, xyz, &heading, why,
	                     why_size))
		return -1;
	/* A hand-written road has the same lanes all along; an OpenDRIVE
	 * road's lane sections may drop the lane between s0 and s1. */
	for (int k = 0; r && k < r->n_sec; k++)
		if (r->sec[k].s > s0 && r->sec[k].s < s1 &&
		    vs_map_odr_point(m, road, lane, r->sec[k].s, offset, xyz,
		                     &heading, why, why_size))
			return -1;
	return 0;
}

void vs_map_settle(const vs_map *m, vs_state *s)
{
	if (m && m->odr)
		vs_map_surface(m, s->x, s->y, s->yaw, &s->z, &s->pitch,
		               &s->roll);
}

vs_map *vs_map_load_opendrive(const char *path, vs_error *err)
{
	odr_net *net = odr_read(path, err);
	if (!net)
		return NULL;
	return map_build(NULL, 0, NULL, NULL, net, err);
}
