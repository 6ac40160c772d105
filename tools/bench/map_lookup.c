/* MapLocation lookups on maps of 10, 1,000 and 10,000 lanes: the spatial
 * index should make a lookup cost about the same whatever the map's size.
 * Each map is tiles of 300 m, each holding a 4-lane road that bends
 * gently (SEGS segments of 20 m, as map data come; a different heading per
 * tile) or a 4-lane ring (radius 60 m). Points are
 * drawn near lanes (a random lane, position, and lateral offset up to 1 m
 * past its edges), so most are on a lane and some just off; a second run
 * draws points anywhere over the map's area (mostly off the road).
 *
 *   map_lookup [LOOKUPS]      near-lane lookups per run (default
 *                             1,000,000; a quarter of it anywhere),
 *                             best of RUNS runs, CPU time
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "map/map.h"

#define PI 3.14159265358979323846
#define TILE 300.0   /* m */
#define SEGS 10      /* per bending road */
#define N_POINTS (1 << 18)
#define RUNS 5       /* timings per figure; the best is printed */

/* CPU time of this thread: the machines these run on are shared, and
 * time spent descheduled is not the lookup's. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double urand(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

/* A map of n_lanes lanes laid out on a square of tiles. */
static vs_map *make_map(int n_lanes, double *side)
{
	int n_roads = (n_lanes + 3) / 4;
	int per_row = (int)ceil(sqrt((double)n_roads));
	vs_map_road *roads = calloc((size_t)n_roads, sizeof *roads);
	double *pts = calloc((size_t)n_roads * 3 * (SEGS + 1), sizeof *pts);
	char (*ids)[16] = calloc((size_t)n_roads, sizeof *ids);
	static const double width[4] = {3.5, 3.5, 3.5, 3.5};
	for (int r = 0, left = n_lanes; r < n_roads; r++) {
		vs_map_road *rd = &roads[r];
		double cx = TILE * (r % per_row + 0.5);
		double cy = TILE * (r / per_row + 0.5);
		snprintf(ids[r], sizeof ids[r], "r%d", r);
		rd->id = ids[r];
		int n = left < 4 ? left : 4;
		left -= n;
		rd->n_left = n / 2;
		rd->n_right = n - n / 2;
		rd->widths = width;
		if (r % 2) {
			rd->is_circle = 1;
			rd->center[0] = cx;
			rd->center[1] = cy;
			rd->radius = 60;
		} else {
			/* from the tile's centre - 100 m, turning 4 degrees a
			 * point one way, then the other */
			double h = 0.7 * r, *p = pts + 3 * (SEGS + 1) * r;
			p[0] = cx - 100 * cos(h);
			p[1] = cy - 100 * sin(h);
			for (int k = 1; k <= SEGS; k++) {
				h += (k <= SEGS / 2 ? 4 : -4) * PI / 180;
				p[3 * k] = p[3 * k - 3] + 20 * cos(h);
				p[3 * k + 1] = p[3 * k - 2] + 20 * sin(h);
			}
			rd->n_points = SEGS + 1;
			rd->points = p;
		}
	}
	vs_error err = {{0}};
	vs_map *m = vs_map_create(roads, n_roads, &err);
	if (!m) {
		fprintf(stderr, "map_lookup: %s\n", err.msg);
		exit(1);
	}
	*side = TILE * per_row;
	free(ids);
	free(pts);
	free(roads);
	return m;
}

/* ns per lookup over n lookups cycling through points (x y z h). */
static double time_lookups(const vs_map *m, const double *points, long n,
                           double *check)
{
	vs_map_location loc;
	double sum = 0;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		const double *p = points + 4 * (i & (N_POINTS - 1));
		vs_map_locate(m, p[0], p[1], p[2], p[3], &loc);
		sum += loc.position + loc.lane + loc.is_on_lane;
	}
	double dt = now() - t0;
	*check += sum;
	return 1e9 * dt / (double)n;
}

/* Points near lanes of m (near) or anywhere over its side (any); returns
 * the share on a lane, of the near ones. */
static double make_points(const vs_map *m, int n_lanes, double side,
                          double *near, double *any)
{
	unsigned long long s = 42;
	int on = 0;
	for (int i = 0; i < N_POINTS; i++) {
		double *p = near + 4 * i;
		int lane = (int)(urand(&s) * n_lanes);
		double w = vs_map_lane(m, lane)->width;
		double lateral = (urand(&s) - 0.5) * (w + 2);
		vs_map_lane_point(m, lane, urand(&s), lateral, p, NULL);
		p[3] = (urand(&s) - 0.5) * 2 * PI;
		vs_map_location loc;
		vs_map_locate(m, p[0], p[1], p[2], p[3], &loc);
		on += loc.is_on_lane;
		p = any + 4 * i;
		p[0] = urand(&s) * side;
		p[1] = urand(&s) * side;
		p[2] = 0;
		p[3] = (urand(&s) - 0.5) * 2 * PI;
	}
	return (double)on / N_POINTS;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	if (n < 1) {
		fprintf(stderr, "usage: map_lookup [LOOKUPS]\n");
		return 2;
	}
	enum { SIZES = 3 };
	static const int sizes[SIZES] = {10, 1000, 10000};
	vs_map *maps[SIZES];
	double *near[SIZES], *any[SIZES], build[SIZES], on[SIZES];
	double near_ns[SIZES], any_ns[SIZES], check = 0;
	for (int k = 0; k < SIZES; k++) {
		double side, t0 = now();
		maps[k] = make_map(sizes[k], &side);
		build[k] = now() - t0;
		near[k] = malloc((size_t)N_POINTS * 4 * sizeof *near[k]);
		any[k] = malloc((size_t)N_POINTS * 4 * sizeof *any[k]);
		on[k] = make_points(maps[k], sizes[k], side, near[k], any[k]);
		near_ns[k] = any_ns[k] = INFINITY;
	}
	/* round robin, best of RUNS: a burst of other work on the machine
	 * then spoils one run of each, not every run of one size */
	for (int run = 0; run < RUNS; run++)
		for (int k = 0; k < SIZES; k++) {
			double t = time_lookups(maps[k], near[k], n, &check);
			near_ns[k] = fmin(near_ns[k], t);
			t = time_lookups(maps[k], any[k], n / 4, &check);
			any_ns[k] = fmin(any_ns[k], t);
		}
	printf("%8s %10s %12s %14s %14s\n", "lanes", "build ms", "on lane %",
	       "near ns/look", "any ns/look");
	for (int k = 0; k < SIZES; k++) {
		printf("%8d %10.1f %12.1f %14.1f %14.1f\n", sizes[k],
		       1e3 * build[k], 100 * on[k], near_ns[k], any_ns[k]);
		vs_map_unref(maps[k]);
		free(near[k]);
		free(any[k]);
	}
	printf("ratio 10000:10  near %.2f  any %.2f  (target < 2)\n",
	       near_ns[2] / near_ns[0], any_ns[2] / any_ns[0]);
	fprintf(stderr, "checksum %g\n", check);
	return 0;
}
