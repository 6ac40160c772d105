/* The lanes of the stored scenario's map, as polylines to draw. The only
 * part of `vsweep plot` that knows the map module (map/map.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "input/scenario.h"
#include "map/map.h"
#include "plot.h"

/* Chord tolerance for arcs, relative to the lane's length: about 180
 * chords per ring whatever its size, finer than a pixel at any scale that
 * shows the whole ring, and never below 5 mm. */
#define TOL_REL 2e-5
#define TOL_MIN 0.005 /* m */

static plot_line *add_line(plot_lanes *out, int kind, int n)
{
	out->lines = vs_xrealloc(out->lines,
	                         (size_t)(out->n + 1) * sizeof *out->lines);
	plot_line *l = &out->lines[out->n++];
	l->kind = kind;
	l->n = n;
	l->xy = vs_xcalloc((size_t)(n > 0 ? n : 1) * 2, sizeof *l->xy);
	return l;
}

/* Plan view of rows of x y z. */
static void copy_xy(double *dst, const double *xyz, int n, int reverse)
{
	for (int k = 0; k < n; k++) {
		const double *p = &xyz[3 * (reverse ? n - 1 - k : k)];
		dst[2 * k] = p[0];
		dst[2 * k + 1] = p[1];
	}
}

int plot_map_lanes(const vs_scenario *scn, plot_lanes *out)
{
	memset(out, 0, sizeof *out);
	const vs_map *map = scn ? scn->map : NULL;
	int n = vs_map_lane_count(map);
	for (int i = 0; i < n; i++) {
		const vs_lane *lane = vs_map_lane(map, i);
		double tol = fmax(TOL_MIN, TOL_REL * lane->length);
		double half = lane->width / 2;
		/* left edge (+half, left of travel), right edge, centre */
		double *left = NULL, *right = NULL, *mid = NULL;
		int nl = vs_map_lane_polyline(map, i, half, tol, &left);
		int nr = vs_map_lane_polyline(map, i, -half, tol, &right);
		int nm = vs_map_lane_polyline(map, i, 0, tol, &mid);
		if (nl >= 2 && nr >= 2) {
			/* The area: along the left edge, back along the right.
			 * A ring is an annulus: two rings with a NaN row
			 * between them, filled even-odd. */
			int gap = lane->closed ? 1 : 0;
			plot_line *a = add_line(out, PLOT_LANE_SURFACE,
			                        nl + gap + nr);
			copy_xy(a->xy, left, nl, 0);
			if (gap)
				a->xy[2 * nl] = a->xy[2 * nl + 1] = NAN;
			copy_xy(a->xy + 2 * (nl + gap), right, nr, 1);
			copy_xy(add_line(out, PLOT_LANE_BOUNDARY, nl)->xy, left,
			        nl, 0);
			copy_xy(add_line(out, PLOT_LANE_BOUNDARY, nr)->xy, right,
			        nr, 0);
			out->n_lanes++;
		}
		if (nm >= 2)
			copy_xy(add_line(out, PLOT_LANE_CENTRE, nm)->xy, mid, nm,
			        0);
		free(left);
		free(right);
		free(mid);
	}
	return 0;
}

void plot_lanes_finish(plot_lanes *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->lines[i].xy);
	free(l->lines);
	memset(l, 0, sizeof *l);
}

int plot_map_lane_count(const vs_scenario *scn)
{
	return scn ? vs_map_lane_count(scn->map) : 0;
}

void plot_lateral(const vs_scenario *scn, double x, double y, double z,
                  double vx, double vy, double yaw, double out[2])
{
	out[0] = out[1] = NAN;
	const vs_map *map = scn ? scn->map : NULL;
	vs_map_location loc;
	vs_map_locate(map, x, y, z, vs_map_travel_heading(vx, vy, yaw), &loc);
	const vs_lane *lane = loc.lane >= 0 ? vs_map_lane(map, loc.lane) : NULL;
	double c[3], h;
	if (!lane || vs_map_lane_point(map, loc.lane, loc.position, 0, c, &h))
		return;
	/* left of the lane's travel direction, from its centre line */
	double off = -sin(h) * (x - c[0]) + cos(h) * (y - c[1]);
	double mid = (lane->inner + lane->outer) / 2;  /* left of the line */
	/* right lanes run along the reference line, left lanes against it */
	int along = lane->lane < 0;
	out[0] = (along ? loc.position : 1 - loc.position) * lane->length;
	out[1] = along ? mid + off : mid - off;
}

int plot_lateral_lanes(const vs_scenario *scn, plot_lanes *out)
{
	memset(out, 0, sizeof *out);
	const vs_map *map = scn ? scn->map : NULL;
	int n = vs_map_lane_count(map);
	for (int i = 0; i < n; i++) {
		const vs_lane *lane = vs_map_lane(map, i);
		double edge[2] = {lane->inner, lane->outer};
		for (int k = 0; k < 2; k++) {
			plot_line *l = add_line(out, PLOT_LANE_BOUNDARY, 2);
			l->xy[0] = 0;
			l->xy[1] = l->xy[3] = edge[k];
			l->xy[2] = lane->length;
		}
		plot_line *c = add_line(out, PLOT_LANE_CENTRE, 2);
		c->xy[0] = 0;
		c->xy[1] = c->xy[3] = (lane->inner + lane->outer) / 2;
		c->xy[2] = lane->length;
		out->n_lanes++;
	}
	return 0;
}
