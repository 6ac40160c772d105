/* The spatial index against a brute-force scan written here, in closed
 * form: straight lanes are rectangles in their road's frame, circle lanes
 * annuli. Random maps of 10,000 lanes (overlapping, climbing), random
 * points near lanes, anywhere and far away; and many threads reading one
 * map. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_map.h"

/* A lane as the brute force sees it, from the roads it was built from:
 * lateral range [lo, hi] (left > 0) of a straight road, or radii of a
 * circle. */
typedef struct bf_lane {
	const vs_map_road *road;
	int dir; /* +1 along the reference line, -1 against */
	double lo, hi;
} bf_lane;

typedef struct bf_map {
	int n_roads, n_lanes;
	vs_map_road *roads;
	double *store; /* points and widths */
	bf_lane *lanes;
} bf_map;

/* The lanes of road r, in the map's order: left 1..n, right -1..-n. */
static void bf_add_lanes(bf_map *b, const vs_map_road *r)
{
	double in_l = 0, in_r = 0;
	for (int k = 0; k < r->n_left + r->n_right; k++) {
		bf_lane *l = &b->lanes[b->n_lanes++];
		l->road = r;
		if (k < r->n_left) {
			l->dir = -1;
			l->lo = in_l;
			l->hi = in_l += r->widths[k];
		} else {
			l->dir = 1;
			l->hi = -in_r;
			l->lo = -(in_r += r->widths[k]);
		}
		if (r->is_circle) { /* radii: left is the inside */
			double lo = r->radius - l->hi;
			l->hi = r->radius - l->lo;
			l->lo = lo;
		}
	}
}

static double urand(unsigned *s, double a, double b)
{
	*s = *s * 1103515245u + 12345u;
	return a + (b - a) * ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

/* Straight roads and rings scattered over 2 km, n_lanes lanes in all,
 * some overlapping others, some climbing. With apart > 0, every other
 * road is moved to (-apart, -apart) and the rest to (apart, apart) (m):
 * two towns far from each other. */
static void bf_make(bf_map *b, int n_lanes, unsigned seed, double apart)
{
	memset(b, 0, sizeof *b);
	b->roads = calloc((size_t)n_lanes, sizeof *b->roads);
	b->store = calloc((size_t)n_lanes * 16, sizeof *b->store);
	b->lanes = calloc((size_t)n_lanes, sizeof *b->lanes);
	double *st = b->store;
	char **ids = calloc((size_t)n_lanes, sizeof *ids);
	while (b->n_lanes < n_lanes) {
		vs_map_road *r = &b->roads[b->n_roads];
		ids[b->n_roads] = malloc(16);
		snprintf(ids[b->n_roads], 16, "r%d", b->n_roads);
		r->id = ids[b->n_roads];
		int left = (int)urand(&seed, 0, 3);
		int right = 1 + (int)urand(&seed, 0, 3);
		if (left + right > n_lanes - b->n_lanes) {
			left = 0;
			right = n_lanes - b->n_lanes;
		}
		r->n_left = left;
		r->n_right = right;
		double *w = st;
		st += left + right;
		double wl = 0;
		for (int k = 0; k < left + right; k++) {
			w[k] = urand(&seed, 2.5, 4.5);
			wl += k < left ? w[k] : 0;
		}
		r->widths = w;
		double town = b->n_roads % 2 ? apart : -apart;
		double cx = town + urand(&seed, 0, 2000);
		double cy = town + urand(&seed, 0, 2000);
		if (urand(&seed, 0, 1) < 0.2) {
			r->is_circle = 1;
			r->center[0] = cx;
			r->center[1] = cy;
			r->radius = wl + urand(&seed, 5, 150);
			r->z = urand(&seed, -5, 5);
		} else {
			double h = urand(&seed, -PI, PI);
			double len = urand(&seed, 20, 300);
			double *p = st;
			st += 6;
			p[0] = cx;
			p[1] = cy;
			p[2] = urand(&seed, -5, 5);
			p[3] = cx + len * cos(h);
			p[4] = cy + len * sin(h);
			p[5] = p[2] + urand(&seed, -10, 10);
			r->n_points = 2;
			r->points = p;
		}
		bf_add_lanes(b, r);
		b->n_roads++;
	}
	free(ids); /* the strings are freed in bf_free through the roads */
}

static void bf_free(bf_map *b)
{
	for (int i = 0; i < b->n_roads; i++)
		free((char *)b->roads[i].id);
	free(b->roads);
	free(b->store);
	free(b->lanes);
}

/* The closed-form answer for one lane: inside?, distance, position,
 * angle, z. */
static void bf_eval(const bf_lane *l, double x, double y, double h, int *in,
                    double *dist, double *pos, double *ang, double *z)
{
	const vs_map_road *r = l->road;
	if (r->is_circle) {
		double dx = x - r->center[0], dy = y - r->center[1];
		double d = hypot(dx, dy);
		*in = d >= l->lo && d <= l->hi;
		*dist = fmax(fmax(l->lo - d, d - l->hi), 0);
		double th = atan2(dy, dx);
		if (th < 0)
			th += 2 * PI;
		*pos = l->dir > 0 ? th / (2 * PI) : fmod(1 - th / (2 * PI), 1);
		*ang = wrap(h - th - l->dir * PI / 2);
		*z = r->z;
		return;
	}
	const double *p = r->points;
	double L = hypot(p[3] - p[0], p[4] - p[1]);
	double ux = (p[3] - p[0]) / L, uy = (p[4] - p[1]) / L;
	double lx = (x - p[0]) * ux + (y - p[1]) * uy;
	double ly = (y - p[1]) * ux - (x - p[0]) * uy;
	*in = lx >= 0 && lx <= L && ly >= l->lo && ly <= l->hi;
	*dist = hypot(fmax(fmax(-lx, lx - L), 0),
	              fmax(fmax(l->lo - ly, ly - l->hi), 0));
	double t = fmin(fmax(lx / L, 0), 1);
	*pos = l->dir > 0 ? t : 1 - t;
	*ang = wrap(h - atan2(uy, ux) - (l->dir > 0 ? 0 : PI));
	*z = p[2] + t * (p[5] - p[2]);
}

static vs_map_location bf_locate(const bf_map *b, double x, double y,
                                 double z, double h)
{
	int on = -1, near = -1;
	double on_a = 0, on_dz = 0, near_d = 0;
	vs_map_location out = {0, -1, 0, 0, 0};
	for (int i = 0; i < b->n_lanes; i++) {
		int in;
		double d, p, a, zl;
		bf_eval(&b->lanes[i], x, y, h, &in, &d, &p, &a, &zl);
		double dz = fabs(z - zl);
		if (in && (on < 0 || fabs(a) < on_a ||
		           (fabs(a) == on_a && dz < on_dz))) {
			on = i;
			on_a = fabs(a);
			on_dz = dz;
		}
		if (near < 0 || d < near_d) {
			near = i;
			near_d = d;
		}
	}
	int i = on >= 0 ? on : near;
	int in;
	double d, zl;
	bf_eval(&b->lanes[i], x, y, h, &in, &d, &out.position, &out.angle,
	        &zl);
	out.lane = i;
	out.is_on_lane = on >= 0;
	out.distance = on >= 0 ? 0 : d;
	return out;
}

/* Compares lookups with the brute force at n random points: near lanes
 * (odd k), anywhere over [lo, hi]^2 (m), and in far (m) around the origin;
 * returns how many were on a lane. */
static int compare(const bf_map *b, const vs_map *m, int n, unsigned seed,
                   double lo, double hi, double far)
{
	int on = 0;
	for (int k = 0; k < n; k++) {
		double x, y;
		if (k % 2) { /* near a lane */
			int i = (int)urand(&seed, 0, b->n_lanes);
			double p[3];
			double w = vs_map_lane(m, i)->width;
			vs_map_lane_point(m, i, urand(&seed, 0, 1),
			                  urand(&seed, -w, w), p, NULL);
			x = p[0];
			y = p[1];
		} else if (k % 10 == 4) {
			x = urand(&seed, -far, far);
			y = urand(&seed, -far, far);
		} else {
			x = urand(&seed, lo, hi);
			y = urand(&seed, lo, hi);
		}
		double z = urand(&seed, -5, 5), h = urand(&seed, -PI, PI);
		vs_map_location got, want = bf_locate(b, x, y, z, h);
		vs_map_locate(m, x, y, z, h, &got);
		on += want.is_on_lane;
		ck_assert_msg(got.lane == want.lane &&
		                  got.is_on_lane == want.is_on_lane,
		              "(%.17g, %.17g): lane %d on %d, brute force %d "
		              "on %d", x, y, got.lane, got.is_on_lane,
		              want.lane, want.is_on_lane);
		/* rounding: relative to the distance, and to the coordinates
		 * (an ulp of 9e6 m is 2e-9 m) */
		double tol = 1e-9 * fmax(1, want.distance) +
		             1e-15 * (fabs(x) + fabs(y));
		ck_assert_double_eq_tol(got.distance, want.distance, tol);
		ck_assert_double_eq_tol(got.position, want.position, 1e-9);
		ck_angle_eq(got.angle, want.angle, 1e-9);
	}
	return on;
}

START_TEST(index_matches_brute_force)
{
	bf_map b;
	bf_make(&b, 10000, 12345, 0);
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 10000);
	int on = compare(&b, m, 3000, 777, -100, 2100, 2e4);
	ck_assert_int_gt(on, 1000); /* both rules were exercised */
	ck_assert_int_lt(on, 2500);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

/* Two towns 2e7 m apart: a grid too large for the occupancy bitmap, and
 * points in the empty space between them. */
START_TEST(index_sparse_map)
{
	bf_map b;
	bf_make(&b, 400, 4242, 9e6);
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	compare(&b, m, 1000, 31, -9.1e6, 9.1e6, 9.9e6);
	compare(&b, m, 1000, 32, 9e6 - 500, 9e6 + 2500, 1e5);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

/* 70,000 roads through one point: more records in a cell than a slot's
 * count field holds. */
START_TEST(index_crowded_cell)
{
	enum { N = 70000 };
	bf_map b = {0, 0, calloc(N, sizeof(vs_map_road)),
	            calloc(7 * N, sizeof(double)), calloc(N, sizeof(bf_lane))};
	for (int k = 0; k < N; k++) {
		vs_map_road *r = &b.roads[b.n_roads++];
		double *p = b.store + 7 * k, h = 2 * PI * k / N;
		p[0] = -5 * cos(h);
		p[1] = -5 * sin(h);
		p[3] = 5 * cos(h);
		p[4] = 5 * sin(h);
		p[6] = 0.5;
		char *id = malloc(16);
		snprintf(id, 16, "s%d", k);
		*r = (vs_map_road){.id = id, .n_points = 2, .points = p,
		                   .n_right = 1, .widths = p + 6};
		bf_add_lanes(&b, r);
	}
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	compare(&b, m, 24, 5, -8, 8, 30);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

/* One lane 9000 km wide (a width in mm taken for m, say) among 400
 * ordinary ones, its road at 45 degrees: on a grid fitted to the others
 * its box covers some 10^11 cells, and filling them never ended. The
 * cells grow until the boxes cover a bounded number (grid.c); lookups
 * stay exact. */
START_TEST(index_one_huge_lane)
{
	bf_map b;
	bf_make(&b, 401, 999, 0);
	/* the last road, rebuilt: one lane, 2 km long, 9e6 m wide */
	vs_map_road *r = &b.roads[b.n_roads - 1];
	b.n_lanes -= r->n_left + r->n_right;
	static double p[6] = {1000, 1000, 0, 2414.2, 2414.2, 0};
	static double w[1] = {9e6};
	*r = (vs_map_road){.id = r->id, .n_points = 2, .points = p,
	                   .n_right = 1, .widths = w};
	bf_add_lanes(&b, r);
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	compare(&b, m, 2000, 4711, -100, 2100, 2e4);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

/* Does a footprint (centre (x, y), half extents hw, hl along the actor's
 * X and Y, RoadRunner yaw) overlap lane l, touching not counting? In the
 * road's frame a straight lane is the box [0, L] x [lo, hi]: separating
 * axes of two rectangles. A ring lane: the rectangle's nearest and
 * farthest points from the centre, by clamping in its own frame. */
static int bf_straddles(const bf_lane *l, double x, double y, double hw,
                        double hl, double yaw)
{
	const vs_map_road *r = l->road;
	double ax[2] = {cos(yaw), sin(yaw)}, ay[2] = {-sin(yaw), cos(yaw)};
	double c[4][2];
	for (int i = 0; i < 4; i++) {
		double sx = i < 2 ? 1 : -1, sy = i % 2 ? 1 : -1;
		c[i][0] = x + sx * hw * ax[0] + sy * hl * ay[0];
		c[i][1] = y + sx * hw * ax[1] + sy * hl * ay[1];
	}
	if (r->is_circle) {
		double dx = r->center[0] - x, dy = r->center[1] - y;
		double u = dx * ax[0] + dy * ax[1], v = dx * ay[0] + dy * ay[1];
		double nu = u - fmax(-hw, fmin(hw, u));
		double nv = v - fmax(-hl, fmin(hl, v));
		double near = hypot(nu, nv), far = 0;
		for (int i = 0; i < 4; i++)
			far = fmax(far, hypot(c[i][0] - r->center[0],
			                      c[i][1] - r->center[1]));
		return near < l->hi && far > l->lo;
	}
	const double *p = r->points;
	double L = hypot(p[3] - p[0], p[4] - p[1]);
	double ux = (p[3] - p[0]) / L, uy = (p[4] - p[1]) / L;
	/* the lane's corners in the world */
	double q[4][2];
	for (int i = 0; i < 4; i++) {
		double lx = i < 2 ? 0 : L, ly = i % 2 ? l->hi : l->lo;
		q[i][0] = p[0] + lx * ux - ly * uy;
		q[i][1] = p[1] + lx * uy + ly * ux;
	}
	const double axes[4][2] = {{ux, uy}, {-uy, ux}, {ax[0], ax[1]},
	                           {ay[0], ay[1]}};
	for (int a = 0; a < 4; a++) {
		double plo = INFINITY, phi = -INFINITY;
		double qlo = INFINITY, qhi = -INFINITY;
		for (int i = 0; i < 4; i++) {
			double t = c[i][0] * axes[a][0] + c[i][1] * axes[a][1];
			plo = fmin(plo, t);
			phi = fmax(phi, t);
			t = q[i][0] * axes[a][0] + q[i][1] * axes[a][1];
			qlo = fmin(qlo, t);
			qhi = fmax(qhi, t);
		}
		if (phi <= qlo || qhi <= plo)
			return 0;
	}
	return 1;
}

/* The map location rule (docs/conventions.md) by brute force: among the
 * lanes holding the point or straddled by the footprint, the smallest
 * |angle|, then a lane holding the point, then the smaller |dz|, then
 * the lower index; else the
 * nearest lane. */
static vs_map_location bf_locate_fp(const bf_map *b, double x, double y,
                                    double z, double h, double hw,
                                    double hl, double yaw)
{
	int best = -1, near = -1, any_in = 0, best_in = 0;
	double best_a = 0, best_dz = 0, best_d = 0, near_d = 0;
	vs_map_location out = {0, -1, 0, 0, 0};
	for (int i = 0; i < b->n_lanes; i++) {
		int in;
		double d, p, a, zl;
		bf_eval(&b->lanes[i], x, y, h, &in, &d, &p, &a, &zl);
		any_in |= in;
		if (near < 0 || d < near_d) {
			near = i;
			near_d = d;
		}
		if (!in && !bf_straddles(&b->lanes[i], x, y, hw, hl, yaw))
			continue;
		double dz = fabs(z - zl);
		int better = best < 0 || fabs(a) < best_a;
		if (best >= 0 && fabs(a) == best_a)
			better = in != best_in ? in : dz < best_dz;
		if (better) {
			best = i;
			best_in = in;
			best_a = fabs(a);
			best_dz = dz;
			best_d = in ? 0 : d;
		}
	}
	int i = best >= 0 ? best : near;
	int in;
	double d, zl;
	bf_eval(&b->lanes[i], x, y, h, &in, &d, &out.position, &out.angle,
	        &zl);
	out.lane = i;
	out.is_on_lane = any_in;
	out.distance = best >= 0 ? best_d : near_d;
	return out;
}

/* The footprint rule against the brute force: cars, trucks and a few
 * footprints spanning many cells, near lanes and anywhere. */
START_TEST(footprint_matches_brute_force)
{
	bf_map b;
	bf_make(&b, 2000, 2024, 0);
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	unsigned seed = 88;
	int straddled = 0;
	for (int k = 0; k < 1500; k++) {
		double x, y;
		if (k % 4) {
			int i = (int)urand(&seed, 0, b.n_lanes);
			double p[3], w = vs_map_lane(m, i)->width;
			vs_map_lane_point(m, i, urand(&seed, 0, 1),
			                  urand(&seed, -w, w), p, NULL);
			x = p[0];
			y = p[1];
		} else {
			x = urand(&seed, -100, 2100);
			y = urand(&seed, -100, 2100);
		}
		double z = urand(&seed, -5, 5), h = urand(&seed, -PI, PI);
		double yaw = urand(&seed, -PI, PI);
		double hw = urand(&seed, 0.3, 1.5), hl = urand(&seed, 1, 8);
		if (k % 97 == 0)
			hl = urand(&seed, 50, 400); /* many cells, a coarse grid */
		vs_map_footprint fp = {hw, hl, yaw};
		vs_map_location got, point;
		vs_map_location want = bf_locate_fp(&b, x, y, z, h, hw, hl, yaw);
		vs_map_locate_footprint(m, x, y, z, h, &fp, &got);
		vs_map_locate(m, x, y, z, h, &point);
		straddled += point.lane != want.lane;
		ck_assert_msg(got.lane == want.lane &&
		                  got.is_on_lane == want.is_on_lane,
		              "(%.17g, %.17g) %g x %g yaw %g: lane %d on %d, "
		              "brute force %d on %d", x, y, hw, hl, yaw,
		              got.lane, got.is_on_lane, want.lane,
		              want.is_on_lane);
		ck_assert_double_eq_tol(got.distance, want.distance,
		                        1e-9 * fmax(1, want.distance));
		ck_assert_double_eq_tol(got.position, want.position, 1e-9);
		ck_angle_eq(got.angle, want.angle, 1e-9);
	}
	/* the footprint changed the answer often enough to matter */
	ck_assert_int_gt(straddled, 50);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

/* Many threads reading one map see what one thread sees. */
typedef struct job {
	const vs_map *m;
	int n;
	const double *pts;       /* x y h */
	vs_map_location *out;
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	for (int i = 0; i < j->n; i++)
		vs_map_locate(j->m, j->pts[3 * i], j->pts[3 * i + 1], 0,
		              j->pts[3 * i + 2], &j->out[i]);
	return NULL;
}

START_TEST(concurrent_readers)
{
	bf_map b;
	bf_make(&b, 1000, 99, 0);
	vs_error err = {{0}};
	vs_map *m = vs_map_create(b.roads, b.n_roads, &err);
	ck_assert_msg(m, "%s", err.msg);
	enum { N = 2000, T = 4 };
	double *pts = malloc(3 * N * sizeof *pts);
	unsigned seed = 5;
	for (int i = 0; i < 3 * N; i += 3) {
		pts[i] = urand(&seed, 0, 2000);
		pts[i + 1] = urand(&seed, 0, 2000);
		pts[i + 2] = urand(&seed, -PI, PI);
	}
	vs_map_location *ref = malloc(N * sizeof *ref);
	job one = {m, N, pts, ref};
	run_job(&one);
	vs_map_location *outs = malloc(T * N * sizeof *outs);
	pthread_t th[T];
	job jobs[T];
	for (int t = 0; t < T; t++) {
		jobs[t] = (job){vs_map_ref(m), N, pts, outs + t * N};
		int rc = pthread_create(&th[t], NULL, run_job, &jobs[t]);
		ck_assert_int_eq(rc, 0);
	}
	for (int t = 0; t < T; t++) {
		pthread_join(th[t], NULL);
		vs_map_unref((vs_map *)jobs[t].m);
		ck_assert_int_eq(memcmp(outs + t * N, ref, N * sizeof *ref), 0);
	}
	free(outs);
	free(ref);
	free(pts);
	vs_map_unref(m);
	bf_free(&b);
}
END_TEST

TCase *index_tcase(void)
{
	TCase *tc = tcase_create("index");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, index_matches_brute_force);
	tcase_add_test(tc, index_sparse_map);
	tcase_add_test(tc, index_crowded_cell);
	tcase_add_test(tc, concurrent_readers);
	tcase_add_test(tc, footprint_matches_brute_force);
	tcase_add_test(tc, index_one_huge_lane);
	return tc;
}
