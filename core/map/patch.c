/* Geometry of one patch (an OpenDRIVE lane between two stations,
 * map_internal.h): where a point is in it, by inverting its bilinear map
 * (a quadratic in v, solved in the form that does not cancel), and how
 * far a point outside is from it. */
#include <math.h>

#include "map/map_internal.h"


static double cross(double ax, double ay, double bx, double by)
{
	return ax * by - ay * bx;
}

/* u from v, by whichever coordinate is better conditioned. */
static double u_of_v(double hx, double hy, double ex, double ey, double fx,
                     double fy, double gx, double gy, double v)
{
	double dx = ex + gx * v, dy = ey + gy * v;
	return fabs(dx) >= fabs(dy) ? (hx - fx * v) / dx : (hy - fy * v) / dy;
}


/* How far (u, v) is outside the unit square, in either. */
static double outside(double u, double v)
{
	return vs_fmax(vs_fmax(-u, u - 1), 0) + vs_fmax(vs_fmax(-v, v - 1), 0);
}

int map_patch_uv(const map_patch *q, double px, double py, double reach,
                 double *u, double *v)
{
	/* most patches of a cell are nowhere near: their box says so */
	if (!map_patch_in_box(q, px, py, reach))
		return 0;
	double ex = q->x[1] - q->x[0], ey = q->y[1] - q->y[0];
	double fx = q->x[3] - q->x[0], fy = q->y[3] - q->y[0];
	double gx = q->x[0] - q->x[1] + q->x[2] - q->x[3];
	double gy = q->y[0] - q->y[1] + q->y[2] - q->y[3];
	double hx = px - q->x[0], hy = py - q->y[0];
	double k2 = cross(gx, gy, fx, fy);
	double k1 = cross(ex, ey, fx, fy) + cross(hx, hy, gx, gy);
	double k0 = cross(hx, hy, ex, ey);
	double scale = fabs(cross(ex, ey, fx, fy)) + 1e-300;
	*u = *v = -1;
	if (fabs(k2) < 1e-12 * scale) { /* a parallelogram: linear */
		if (k1 == 0)
			return 0;
		*v = -k0 / k1;
		*u = u_of_v(hx, hy, ex, ey, fx, fy, gx, gy, *v);
		return 1;
	}
	double w = k1 * k1 - 4 * k0 * k2;
	if (w < 0)
		return 0;
	w = sqrt(w);
	double qq = -0.5 * (k1 + (k1 >= 0 ? w : -w));
	double roots[2] = {qq / k2, qq != 0 ? k0 / qq : INFINITY};
	/* the root nearer the patch (the other is a fold of the bilinear
	 * map far outside it) */
	double best = INFINITY;
	for (int i = 0; i < 2; i++) {
		if (!isfinite(roots[i]))
			continue;
		double uu = u_of_v(hx, hy, ex, ey, fx, fy, gx, gy, roots[i]);
		double o = outside(uu, roots[i]);
		if (o < best) {
			best = o;
			*u = uu;
			*v = roots[i];
		}
	}
	return isfinite(best);
}

double map_patch_nearest(const map_patch *q, double px, double py, double *u,
                         double *v)
{
	if (map_patch_uv(q, px, py, 0, u, v) && map_in_unit(*u, *v)) {
		*u = vs_fmin(vs_fmax(*u, 0), 1);
		*v = vs_fmin(vs_fmax(*v, 0), 1);
		return 0;
	}
	/* outside: the nearest of the four edges a-b (v = 0), b-c (u = 1),
	 * c-d (v = 1), d-a (u = 0) */
	double best = INFINITY;
	for (int e = 0; e < 4; e++) {
		int a = e, b = (e + 1) % 4;
		double ex = q->x[b] - q->x[a], ey = q->y[b] - q->y[a];
		double l2 = ex * ex + ey * ey;
		double t = l2 > 0 ? ((px - q->x[a]) * ex + (py - q->y[a]) * ey) /
		                            l2
		                  : 0;
		t = t > 0 ? (t < 1 ? t : 1) : 0;
		double dx = px - (q->x[a] + t * ex), dy = py - (q->y[a] + t * ey);
		double d2 = dx * dx + dy * dy;
		if (d2 < best) {
			best = d2;
			*u = e == 0 ? t : e == 1 ? 1 : e == 2 ? 1 - t : 0;
			*v = e == 0 ? 0 : e == 1 ? t : e == 2 ? 1 : 1 - t;
		}
	}
	return sqrt(best);
}
