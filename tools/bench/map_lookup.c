/* MapLocation lookups on maps of 10, 1,000 and 10,000 lanes: the spatial
 * index should make a lookup cost about the same whatever the map's size.
 * Each map is tiles of 300 m, each holding a 4-lane road that bends
 * gently (SEGS segments of 20 m, as map data come; a different heading per
 * tile) or a 4-lane ring (radius 60 m). Points are
 * drawn near lanes (a random lane, position, and lateral offset up to 1 m
 * past its edges), so most are on a lane and some just off; a second run
 * draws points anywhere over the map's area (mostly off the road).
 *
 * Near-lane points are timed twice: the point alone (vs_map_locate,
 * random travel directions) and a car there driving along its lane within
 * 0.3 rad, with its footprint (1.9 x 4.8 m: vs_map_locate_footprint, what
 * the host asks each step).
 *
 *   map_lookup [LOOKUPS] [RUNS]   near-lane lookups per timing (default
 *                                 1,000,000; a quarter of it anywhere)
 *                                 and rounds (default 7), each round
 *                                 timing every map in turn; medians of
 *                                 the rounds, CPU time of the thread and
 *                                 wall time, with the load average
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "map/map.h"

#define PI 3.14159265358979323846
#define TILE 300.0   /* m */
#define SEGS 10      /* per bending road */
#define N_POINTS (1 << 18)
#define HW 0.95      /* m: the car's half width */
#define HL 2.4       /* m: its half length */

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

/* ns per lookup over n lookups cycling through points (x y z h), CPU and
 * wall; with foot, a car at each point, travelling (and facing) along
 * car (rad from +X), and its footprint. */
static void time_lookups(const vs_map *m, const double *points,
                         const double *car, long n, int foot, double *check,
                         double *cpu, double *wall)
{
	vs_map_location loc;
	double sum = 0, t0 = cpu_now(), w0 = wall_now();
	for (long i = 0; i < n; i++) {
		const double *p = points + 4 * (i & (N_POINTS - 1));
		double h = foot ? car[i & (N_POINTS - 1)] : p[3];
		vs_map_footprint fp = {HW, HL, h - PI / 2};
		vs_map_locate_footprint(m, p[0], p[1], p[2], h,
		                        foot ? &fp : NULL, &loc);
		sum += loc.position + loc.lane + loc.is_on_lane;
	}
	*cpu = 1e9 * (cpu_now() - t0) / (double)n;
	*wall = 1e9 * (wall_now() - w0) / (double)n;
	*check += sum;
}

/* Points near lanes of m (near), with the heading of a car there (car:
 * its lane's travel direction within 0.3 rad), or anywhere over its side
 * (any); returns the share on a lane, of the near ones. */
static double make_points(const vs_map *m, int n_lanes, double side,
                          double *near, double *car, double *any)
{
	unsigned long long s = 42, s2 = 7;
	int on = 0;
	for (int i = 0; i < N_POINTS; i++) {
		double *p = near + 4 * i;
		int lane = (int)(urand(&s) * n_lanes);
		double w = vs_map_lane(m, lane)->width;
		double lateral = (urand(&s) - 0.5) * (w + 2);
		vs_map_lane_point(m, lane, urand(&s), lateral, p, &car[i]);
		car[i] += (urand(&s2) - 0.5) * 0.6;
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
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 4 || runs < 1 || runs > 100) {
		fprintf(stderr, "usage: map_lookup [LOOKUPS] [RUNS]\n");
		return 2;
	}
	/* near point cpu, wall; near footprint cpu, wall; any cpu, wall */
	enum { SIZES = 3, KINDS = 6 };
	static const int sizes[SIZES] = {10, 1000, 10000};
	vs_map *maps[SIZES];
	double *near[SIZES], *car[SIZES], *any[SIZES], build[SIZES], on[SIZES];
	double *t[SIZES][KINDS], med[SIZES][KINDS], check = 0;
	print_load("before");
	for (int k = 0; k < SIZES; k++) {
		double side, t0 = cpu_now();
		maps[k] = make_map(sizes[k], &side);
		build[k] = cpu_now() - t0;
		near[k] = malloc((size_t)N_POINTS * 4 * sizeof *near[k]);
		any[k] = malloc((size_t)N_POINTS * 4 * sizeof *any[k]);
		car[k] = malloc((size_t)N_POINTS * sizeof *car[k]);
		on[k] = make_points(maps[k], sizes[k], side, near[k], car[k],
		                    any[k]);
		for (int j = 0; j < KINDS; j++)
			t[k][j] = calloc((size_t)runs, sizeof *t[k][j]);
	}
	/* round robin: a burst of other work on the machine then spoils
	 * one round of each, not every round of one size */
	for (int run = 0; run < runs; run++)
		for (int k = 0; k < SIZES; k++) {
			for (int foot = 0; foot < 2; foot++)
				time_lookups(maps[k], near[k], car[k], n, foot,
				             &check,
				             &t[k][2 * foot][run],
				             &t[k][2 * foot + 1][run]);
			time_lookups(maps[k], any[k], NULL, n / 4, 0, &check,
			             &t[k][4][run], &t[k][5][run]);
		}
	print_load("after");
	for (int k = 0; k < SIZES; k++)
		for (int j = 0; j < KINDS; j++)
			med[k][j] = median(t[k][j], runs);
	printf("medians of %d interleaved runs of %ld lookups, ns per lookup\n",
	       runs, n);
	printf("%6s %8s %6s %9s %9s %9s %9s %9s %9s\n", "lanes", "build ms",
	       "on %", "near cpu", "nr wall", "foot cpu", "ft wall", "any cpu",
	       "any wall");
	for (int k = 0; k < SIZES; k++) {
		printf("%6d %8.1f %6.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
		       sizes[k], 1e3 * build[k], 100 * on[k], med[k][0],
		       med[k][1], med[k][2], med[k][3], med[k][4], med[k][5]);
		vs_map_unref(maps[k]);
		free(near[k]);
		free(car[k]);
		free(any[k]);
		for (int j = 0; j < KINDS; j++)
			free(t[k][j]);
	}
	printf("ratio 10000:10 near cpu %.2f wall %.2f, footprint cpu %.2f "
	       "wall %.2f, any cpu %.2f wall %.2f (target < 2)\n",
	       med[2][0] / med[0][0], med[2][1] / med[0][1],
	       med[2][2] / med[0][2], med[2][3] / med[0][3],
	       med[2][4] / med[0][4], med[2][5] / med[0][5]);
	fprintf(stderr, "checksum %g\n", check);
	return 0;
}
