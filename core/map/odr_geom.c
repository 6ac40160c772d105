/* Exact geometry of OpenDRIVE roads: the reference line of each planView
 * record (line, arc, clothoid spiral, poly3, paramPoly3), cubic records
 * (laneOffset, widths, elevation, superelevation) and lane boundaries.
 *
 * The clothoid's position is the integral of (cos, sin) of its heading,
 * a quadratic in the distance along it. It is integrated by 8-point
 * Gauss-Legendre panels, each spanning at most 0.25 of heading "scale"
 * h·(|k|max + sqrt|k'|) <= 0.25. The integrand's 16th derivative is then
 * bounded by (|k|max + sqrt|k'|)^16 (up to a small constant), and the
 * Gauss-Legendre remainder (n!)^4 / ((2n+1) ((2n)!)^3) · h^17 · f^(16)
 * gives below 1e-25 relative per panel: far below the 1e-9 asked. poly3's
 * arc length uses the same rule. */
#include <math.h>
#include <string.h>

#include "map/odr.h"
#include "common/error.h"

/* 8-point Gauss-Legendre nodes and weights on [-1, 1]. */
static const double gl_x[4] = {0.1834346424956498, 0.5255324099163290,
                               0.7966664774136267, 0.9602898564975363};
static const double gl_w[4] = {0.3626837833783620, 0.3137066458778873,
                               0.2223810344533745, 0.1012285362903763};

/* ∫ (cos, sin)(h0 + k0·t + c·t²/2) dt over [0, len]. */
static void clothoid_integral(double h0, double k0, double c, double len,
                              double *ix, double *iy)
{
	double scale = fabs(k0) + fabs(c) * len + sqrt(fabs(c));
	int n = (int)ceil(len * scale / 0.25);
	n = n < 1 ? 1 : n > 100000 ? 100000 : n;
	double h = len / n, sx = 0, sy = 0;
	for (int p = 0; p < n; p++) {
		double mid = (p + 0.5) * h;
		for (int k = 0; k < 8; k++) {
			double t = mid + (k < 4 ? -1 : 1) * gl_x[k % 4] * h / 2;
			double th = h0 + k0 * t + c * t * t / 2;
			sx += gl_w[k % 4] * cos(th);
			sy += gl_w[k % 4] * sin(th);
		}
	}
	*ix = sx * h / 2;
	*iy = sy * h / 2;
}

static double cubic(const double c[4], double d)
{
	return c[0] + d * (c[1] + d * (c[2] + d * c[3]));
}

static double cubic_d(const double c[4], double d)
{
	return c[1] + d * (2 * c[2] + d * 3 * c[3]);
}

static double cubic_dd(const double c[4], double d)
{
	return 2 * c[2] + 6 * c[3] * d;
}

/* poly3 arc length from u0 to u1 (one Gauss-Legendre panel: the table
 * keeps spans short). */
static double poly3_arc(const double a[4], double u0, double u1)
{
	double h = u1 - u0, mid = (u0 + u1) / 2, sum = 0;
	for (int k = 0; k < 8; k++) {
		double u = mid + (k < 4 ? -1 : 1) * gl_x[k % 4] * h / 2;
		double d = cubic_d(a, u);
		sum += gl_w[k % 4] * sqrt(1 + d * d);
	}
	return sum * h / 2;
}

/* u at arc length ds along a poly3, by Newton from the table. */
static double poly3_u(const odr_geom *g, double ds)
{
	double step = g->len / ODR_POLY3_TABLE;
	int i = step > 0 ? (int)floor(ds / step) : 0;
	i = i < 0 ? 0 : i > ODR_POLY3_TABLE - 1 ? ODR_POLY3_TABLE - 1 : i;
	double u0 = g->u_of_s ? g->u_of_s[i] : 0, s0 = i * step;
	double u = u0 + (ds - s0); /* slope of s(u) is >= 1 */
	for (int it = 0; it < 50; it++) {
		double d = cubic_d(g->a, u);
		double f = s0 + poly3_arc(g->a, u0, u) - ds;
		double du = f / sqrt(1 + d * d);
		u -= du;
		if (fabs(du) < 1e-13 * (1 + fabs(u)))
			break;
	}
	return u;
}

void odr_geom_prepare(odr_geom *g)
{
	if (g->kind != ODR_POLY3)
		return;
	double *t = vs_xcalloc(ODR_POLY3_TABLE + 1, sizeof *t);
	/* march u so that each entry is at i·len/N of arc length */
	double step = g->len / ODR_POLY3_TABLE, u = 0;
	for (int i = 1; i <= ODR_POLY3_TABLE; i++) {
		double target = step, un = u + step;
		for (int it = 0; it < 50; it++) {
			double d = cubic_d(g->a, un);
			double du = (poly3_arc(g->a, u, un) - target) /
			            sqrt(1 + d * d);
			un -= du;
			if (fabs(du) < 1e-13 * (1 + fabs(un)))
				break;
		}
		t[i] = u = un;
	}
	g->u_of_s = t;
}

double odr_pp3_arc_length(const odr_geom *g)
{
	/* 64 panels of 8-point Gauss-Legendre: the speed is the root of a
	 * quartic in p, smooth unless it nearly stops */
	const int n = 64;
	double p1 = g->normalized ? 1 : g->len, h = p1 / n, sum = 0;
	for (int i = 0; i < n; i++) {
		double mid = (i + 0.5) * h;
		for (int k = 0; k < 8; k++) {
			double p = mid + (k < 4 ? -1 : 1) * gl_x[k % 4] * h / 2;
			sum += gl_w[k % 4] * hypot(cubic_d(g->a, p),
			                           cubic_d(g->b, p));
		}
	}
	return sum * h / 2;
}

/* Position, heading and curvature at ds along one record. */
static void geom_eval(const odr_geom *g, double ds, double *x, double *y,
                      double *hdg, double *k)
{
	double lx = ds, ly = 0, lh = 0, kk = 0;
	double ch = cos(g->hdg), sh = sin(g->hdg);
	switch (g->kind) {
	case ODR_ARC:
		kk = g->k0;
		if (fabs(kk) > 1e-12) {
			lx = sin(kk * ds) / kk;
			ly = (1 - cos(kk * ds)) / kk;
			lh = kk * ds;
		}
		break;
	case ODR_SPIRAL: {
		double c = g->len > 0 ? (g->k1 - g->k0) / g->len : 0;
		clothoid_integral(0, g->k0, c, ds, &lx, &ly);
		lh = g->k0 * ds + c * ds * ds / 2;
		kk = g->k0 + c * ds;
		break;
	}
	case ODR_POLY3: {
		double u = poly3_u(g, ds), d = cubic_d(g->a, u);
		lx = u;
		ly = cubic(g->a, u);
		lh = atan(d);
		kk = cubic_dd(g->a, u) / pow(1 + d * d, 1.5);
		break;
	}
	case ODR_PARAM_POLY3: {
		double p = g->normalized ? (g->len > 0 ? ds / g->len : 0) : ds;
		double du = cubic_d(g->a, p), dv = cubic_d(g->b, p);
		lx = cubic(g->a, p);
		ly = cubic(g->b, p);
		lh = atan2(dv, du);
		double n2 = du * du + dv * dv;
		kk = n2 > 0 ? (du * cubic_dd(g->b, p) - dv * cubic_dd(g->a, p)) /
		                      pow(n2, 1.5)
		            : 0;
		break;
	}
	default:
		break;
	}
	*x = g->x + lx * ch - ly * sh;
	*y = g->y + lx * sh + ly * ch;
	*hdg = g->hdg + lh;
	if (k)
		*k = kk;
}

void odr_ref(const odr_road *r, double s, double *x, double *y, double *hdg,
             double *k)
{
	s = s < 0 ? 0 : s > r->length ? r->length : s;
	int lo = 0, hi = r->n_geom - 1; /* the last record with s0 <= s */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (r->geom[mid].s <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	const odr_geom *g = &r->geom[lo];
	double ds = s - g->s;
	ds = ds < 0 ? 0 : ds > g->len ? g->len : ds;
	geom_eval(g, ds, x, y, hdg, k);
}

double odr_poly_at(const odr_poly *p, int n, double s, double *deriv)
{
	if (deriv)
		*deriv = 0;
	if (n <= 0)
		return 0;
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (p[mid].s0 <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	double d = s - p[lo].s0;
	if (deriv)
		*deriv = cubic_d(p[lo].c, d);
	return cubic(p[lo].c, d);
}

int odr_section_at(const odr_road *r, double s)
{
	int lo = 0, hi = r->n_sec - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (r->sec[mid].s <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

double odr_boundary(const odr_road *r, int sec, int k, double s, double *dt)
{
	double d0;
	double t = odr_poly_at(r->offset, r->n_offset, s, &d0);
	*dt = d0;
	if (k < 0)
		return t;
	const odr_section *q = &r->sec[sec];
	int left = k < q->n_left;
	int from = left ? 0 : q->n_left;
	double sign = left ? 1 : -1, rel = s - q->s;
	for (int j = from; j <= k; j++) {
		const odr_lane *l = &q->lanes[j];
		double d, w = odr_poly_at(l->width, l->n_width, rel, &d);
		if (l->is_border) { /* the outer edge's t itself (ASAM:
		                       the lane's outer limit, whatever the
		                       lanes inside it) */
			t = w;
			*dt = d;
		} else {
			t += sign * w;
			*dt += sign * d;
		}
	}
	return t;
}

int odr_type_is_lane(const char *type)
{
	static const char *const not_lanes[] = {"none", "border", "curb",
	                                        "median", NULL};
	for (int i = 0; not_lanes[i]; i++)
		if (strcmp(type, not_lanes[i]) == 0)
			return 0;
	return 1;
}
