/* Lane coordinates {road, lane, s, offset} on the roads a scenario writes
 * by hand (circle and polyline roads, map_internal.h), as OpenDRIVE roads
 * take them (odr_build.c, vs_map_odr_point): s (m) along the road's
 * reference line in plan from its start, the lane by its signed index
 * (1.. left, -1.. right of the reference line), offset (m) from the
 * lane's centre, to the left of the reference line > 0.
 *
 * A circle's reference line starts at centre + (R, 0) and runs
 * counter-clockwise, its left lanes inside: the point at (s, t), t the
 * lateral offset, is centre + (R - t)(cos s/R, sin s/R), for s in
 * [0, 2 pi R]. A polyline's reference line is its points in order; s
 * picks a segment and the fraction along it, and the lateral line there
 * is the one the lane edges use (the mitre lines at the vertices), so a
 * point at a lane's edge lies on the edge the map draws. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "map/map_internal.h"

/* Plan length of a polyline road's reference line. */
static double ref_length(const map_road *g)
{
	double len = 0;
	for (int i = 0; i + 1 < g->n_points; i++)
		len += g->segs[i].len;
	return len;
}

static void list_roads(const vs_map *m, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < m->n_roads && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s'%.64s'",
		                 i ? ", " : "", m->roads[i].id);
		len += w > 0 ? (size_t)w : 0;
	}
}

double map_yaml_road_length(const vs_map *m, const char *road)
{
	for (int r = 0; m && r < m->n_roads; r++) {
		const map_road *g = &m->roads[r];
		if (!strcmp(g->id, road))
			return g->is_circle ? 2 * MAP_PI * g->radius
			                    : ref_length(g);
	}
	return NAN;
}

int map_yaml_lane_point(const vs_map *m, const char *road, int lane,
                        double s, double offset, double xyz[3],
                        double *heading, char *why, size_t why_size)
{
	if (!m || m->n_roads == 0)
		return 1;
	int r = 0;
	while (r < m->n_roads && strcmp(m->roads[r].id, road) != 0)
		r++;
	if (r == m->n_roads) {
		if (m->odr)
			return 1; /* perhaps one of its OpenDRIVE roads */
		char list[256];
		list_roads(m, list, sizeof list);
		snprintf(why, why_size, "road '%.64s' is not on the map (its "
		         "roads: %s)", road, list);
		return -1;
	}
	const map_road *g = &m->roads[r];
	double len = g->is_circle ? 2 * MAP_PI * g->radius : ref_length(g);
	if (!(s >= 0 && s <= len) || !isfinite(offset)) {
		snprintf(why, why_size, "s = %g m is off road '%.64s' (0 to %g "
		         "m)", s, road, len);
		return -1;
	}
	const vs_lane *l = NULL;
	for (int k = 0; k < g->n_lanes && !l; k++)
		if (m->lanes[g->first_lane + k].lane == lane)
			l = &m->lanes[g->first_lane + k];
	if (!l) {
		int n_left = 0;
		for (int k = 0; k < g->n_lanes; k++)
			n_left += m->lanes[g->first_lane + k].lane > 0;
		snprintf(why, why_size, "road '%.64s' has no lane %d (lanes "
		         "%d to %d)", road, lane,
		         g->n_lanes > n_left ? n_left - g->n_lanes : 1,
		         n_left ? n_left : -1);
		return -1;
	}
	int dir = l->lane < 0 ? 1 : -1; /* right lanes run along the line */
	double t = (l->inner + l->outer) / 2 + offset, h;
	if (g->is_circle) {
		double a = s / g->radius, rad = g->radius - t;
		if (!(rad > 0)) {
			snprintf(why, why_size, "offset %g m puts the point past "
			         "the centre of road '%.64s'", offset, road);
			return -1;
		}
		xyz[0] = g->cx + rad * cos(a);
		xyz[1] = g->cy + rad * sin(a);
		xyz[2] = g->z;
		h = a + dir * MAP_PI / 2;
	} else {
		int i = 0;
		double at = 0; /* reference length before segment i */
		while (i + 2 < g->n_points && at + g->segs[i].len < s)
			at += g->segs[i++].len;
		const map_seg *sg = &g->segs[i];
		const double *p = g->points + 3 * i;
		double f = (s - at) / sg->len;
		f = f > 0 ? (f < 1 ? f : 1) : 0;
		double x = sg->ks * t + f * (sg->len + (sg->ke - sg->ks) * t);
		xyz[0] = p[0] + x * sg->ux - t * sg->uy;
		xyz[1] = p[1] + x * sg->uy + t * sg->ux;
		xyz[2] = p[2] + f * sg->dz;
		h = atan2(sg->uy, sg->ux) + (dir > 0 ? 0 : MAP_PI);
	}
	*heading = map_wrap(h);
	return 0;
}
