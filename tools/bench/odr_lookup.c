/* OpenDRIVE maps of 10, 1,000 and 10,000 lane sections, generated: load
 * time (writing aside: reading the .xodr with libxml2 and building lanes,
 * patches and the index) and MapLocation lookup cost, with the ratios to
 * the 10-section map. Each road sits in its own 300 m tile: a line, a
 * clothoid into an arc, a clothoid out and a line (200 m, a different
 * heading per tile), two lane sections of 100 m with lanes 1, -1 and -2
 * (-2 widening from 3 to 4 m in the second). Points are drawn near lanes
 * as in map_lookup.c. Each lookup is timed twice: for the point alone
 * (vs_map_locate, random travel directions) and for a car there driving
 * along its lane within 0.3 rad, with its footprint (1.9 x 4.8 m:
 * vs_map_locate_footprint, what the host asks each step). A third
 * timing asks as the host does in a sweep: 64 cars on random lanes, each
 * advancing 0.3 m a step along its lane (30 m/s at 100 Hz), looked up in
 * step order with their footprints, so consecutive lookups of one car
 * fall in the same cells. Random points measure the index plus the
 * memory's latency over the whole map (each lookup a cold part of a map
 * of 100 MB or more); traffic measures the index as a simulation uses it.
 *
 *   odr_lookup [LOOKUPS] [RUNS]   lookups per timing (default 1,000,000)
 *                                 and rounds (default 7): each round times
 *                                 every map in turn (interleaved, so a
 *                                 burst of other work spoils one round,
 *                                 not one map); medians of the rounds,
 *                                 CPU time of the thread and wall time,
 *                                 with the load average before and after
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "map/map.h"

#define PI 3.14159265358979323846
#define TILE 300.0      /* m */
#define N_POINTS (1 << 18)
#define HW 0.95          /* m: the car's half width */
#define HL 2.4           /* m: its half length */
#define CARS 64          /* cars in the traffic timing */
#define ADVANCE 0.3      /* m a step along the lane */

#define LANE(id, a, b) \
	"<lane id=\"" id "\" type=\"driving\"><width sOffset=\"0\" a=\"" a \
	"\" b=\"" b "\" c=\"0\" d=\"0\"/></lane>"

/* Writes a network of n_sections lane sections (two a road) to path. */
static void write_net(const char *path, int n_sections, double *side)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	int n_roads = (n_sections + 1) / 2;
	int per_row = (int)ceil(sqrt((double)n_roads));
	fputs("<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" "
	      "revMinor=\"6\"/>\n", f);
	const double k = 1.0 / 80; /* arc curvature, 1/m */
	for (int r = 0; r < n_roads; r++) {
		double cx = TILE * (r % per_row + 0.5);
		double cy = TILE * (r / per_row + 0.5);
		double h = 0.7 * r;
		double x = cx - 100 * cos(h), y = cy - 100 * sin(h);
		fprintf(f, "<road id=\"%d\" length=\"200\" junction=\"-1\">"
		        "<planView>\n", r);
		/* line 40, spiral 0 -> k 40, arc 40, spiral k -> 0 40, line
		 * 40: the start of each from the one before, evaluated here
		 * by small steps of the same curvature (a benchmark needs
		 * no more than continuity to a few cm) */
		static const double len[5] = {40, 40, 40, 40, 40};
		double s = 0;
		for (int g = 0; g < 5; g++) {
			fprintf(f, "<geometry s=\"%.17g\" x=\"%.17g\" y=\"%.17g\" "
			        "hdg=\"%.17g\" length=\"%g\">", s, x, y, h,
			        len[g]);
			if (g == 0 || g == 4)
				fputs("<line/>", f);
			else if (g == 1)
				fprintf(f, "<spiral curvStart=\"0\" curvEnd="
				        "\"%.17g\"/>", k);
			else if (g == 2)
				fprintf(f, "<arc curvature=\"%.17g\"/>", k);
			else
				fprintf(f, "<spiral curvStart=\"%.17g\" "
				        "curvEnd=\"0\"/>", k);
			fputs("</geometry>\n", f);
			const int steps = 4000;
			for (int i = 0; i < steps; i++) {
				double t = (i + 0.5) / steps;
				double kk = g == 1 ? k * t
				            : g == 2 ? k
				            : g == 3 ? k * (1 - t)
				                     : 0;
				double ds = len[g] / steps;
				x += ds * cos(h + kk * ds / 2);
				y += ds * sin(h + kk * ds / 2);
				h += kk * ds;
			}
			s += len[g];
		}
		fputs("</planView><lanes>\n", f);
		for (int sec = 0; sec < 2 && 2 * r + sec < n_sections; sec++)
			fprintf(f, "<laneSection s=\"%d\"><left>" LANE("1", "3.5",
			        "0") "</left><center><lane id=\"0\" type="
			        "\"none\"/></center><right>" LANE("-1", "3.5",
			        "0") LANE("-2", "3", "%s") "</right>"
			        "</laneSection>\n", 100 * sec,
			        sec ? "0.01" : "0");
		fputs("</lanes></road>\n", f);
	}
	fputs("</OpenDRIVE>\n", f);
	fclose(f);
	*side = TILE * per_row;
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

/* Points near lanes, and the heading of a car there: its lane's travel
 * direction within 0.3 rad; returns the share on a lane. */
static double make_points(const vs_map *m, double *near, double *car)
{
	unsigned long long s = 42, s2 = 7;
	int on = 0, n_lanes = vs_map_lane_count(m);
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
	}
	return (double)on / N_POINTS;
}

/* Traffic: CARS cars, each on a random lane at a random offset within
 * 0.5 m of its centre, advancing ADVANCE m a step (a lane's end wraps to
 * its start), stored step-major (x y z heading) like the near points;
 * car[] gets the travel heading. */
static void make_traffic(const vs_map *m, double *pts, double *car)
{
	unsigned long long s = 99;
	int n_lanes = vs_map_lane_count(m);
	int lane[CARS];
	double u[CARS], du[CARS], lat[CARS];
	for (int c = 0; c < CARS; c++) {
		lane[c] = (int)(urand(&s) * n_lanes);
		u[c] = urand(&s);
		du[c] = ADVANCE / fmax(vs_map_lane(m, lane[c])->length, 1);
		lat[c] = urand(&s) - 0.5;
	}
	for (int i = 0; i < N_POINTS; i++) {
		int c = i % CARS;
		double *p = pts + 4 * i;
		vs_map_lane_point(m, lane[c], u[c], lat[c], p, &car[i]);
		p[3] = car[i];
		u[c] += du[c];
		if (u[c] > 1)
			u[c] -= 1;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 1 || runs < 1 || runs > 100) {
		fprintf(stderr, "usage: odr_lookup [LOOKUPS] [RUNS]\n");
		return 2;
	}
	/* point cpu, wall; footprint cpu, wall; traffic cpu, wall */
	enum { SIZES = 3, KINDS = 6 };
	static const int sizes[SIZES] = {10, 1000, 10000};
	vs_map *maps[SIZES];
	double *near[SIZES], *car[SIZES], *trf[SIZES], *trf_car[SIZES];
	double load_cpu[SIZES], load_wall[SIZES], on[SIZES];
	double *t[SIZES][KINDS], med[SIZES][KINDS], check = 0;
	char path[] = "/tmp/odr_lookup_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	print_load("before");
	for (int k = 0; k < SIZES; k++) {
		double side;
		write_net(path, sizes[k], &side);
		double c0 = cpu_now(), w0 = wall_now();
		vs_error err = {{0}};
		maps[k] = vs_map_load_opendrive(path, &err);
		load_cpu[k] = cpu_now() - c0;
		load_wall[k] = wall_now() - w0;
		if (!maps[k]) {
			fprintf(stderr, "odr_lookup: %s\n", err.msg);
			unlink(path);
			return 1;
		}
		near[k] = malloc((size_t)N_POINTS * 4 * sizeof *near[k]);
		car[k] = malloc((size_t)N_POINTS * sizeof *car[k]);
		on[k] = make_points(maps[k], near[k], car[k]);
		trf[k] = malloc((size_t)N_POINTS * 4 * sizeof *trf[k]);
		trf_car[k] = malloc((size_t)N_POINTS * sizeof *trf_car[k]);
		make_traffic(maps[k], trf[k], trf_car[k]);
		for (int j = 0; j < KINDS; j++)
			t[k][j] = calloc((size_t)runs, sizeof *t[k][j]);
	}
	unlink(path);
	for (int run = 0; run < runs; run++)
		for (int k = 0; k < SIZES; k++) {
			for (int foot = 0; foot < 2; foot++)
				time_lookups(maps[k], near[k], car[k], n, foot,
				             &check,
				             &t[k][2 * foot][run],
				             &t[k][2 * foot + 1][run]);
			time_lookups(maps[k], trf[k], trf_car[k], n, 1, &check,
			             &t[k][4][run], &t[k][5][run]);
		}
	print_load("after");
	for (int k = 0; k < SIZES; k++)
		for (int j = 0; j < KINDS; j++)
			med[k][j] = median(t[k][j], runs);
	printf("medians of %d interleaved runs of %ld lookups, ns per lookup\n",
	       runs, n);
	printf("%8s %6s %9s %9s %6s %9s %9s %9s %9s %9s %9s\n", "sections",
	       "lanes", "load cpu", "load wall", "on %", "point cpu",
	       "pt wall", "foot cpu", "ft wall", "trf cpu", "trf wall");
	printf("%8s %6s %9s %9s %6s %9s %9s %9s %9s %9s %9s\n", "", "", "ms",
	       "ms", "", "ns", "ns", "ns", "ns", "ns", "ns");
	for (int k = 0; k < SIZES; k++) {
		printf("%8d %6d %9.1f %9.1f %6.1f %9.1f %9.1f %9.1f %9.1f "
		       "%9.1f %9.1f\n",
		       sizes[k], vs_map_lane_count(maps[k]), 1e3 * load_cpu[k],
		       1e3 * load_wall[k], 100 * on[k], med[k][0], med[k][1],
		       med[k][2], med[k][3], med[k][4], med[k][5]);
		free(trf[k]);
		free(trf_car[k]);
		vs_map_unref(maps[k]);
		free(near[k]);
		free(car[k]);
		for (int j = 0; j < KINDS; j++)
			free(t[k][j]);
	}
	printf("load ratio 10000:10 %.0f (10000:1000 %.1f)\n",
	       load_cpu[2] / load_cpu[0], load_cpu[2] / load_cpu[1]);
	printf("lookup ratio 10000:10 random points: point cpu %.2f wall %.2f, "
	       "footprint cpu %.2f wall %.2f\n", med[2][0] / med[0][0],
	       med[2][1] / med[0][1], med[2][2] / med[0][2],
	       med[2][3] / med[0][3]);
	printf("lookup ratio 10000:10 traffic (%d cars, footprints, step "
	       "order): cpu %.2f wall %.2f (target < 2)\n", CARS,
	       med[2][4] / med[0][4], med[2][5] / med[0][5]);
	fprintf(stderr, "checksum %g\n", check);
	return 0;
}
