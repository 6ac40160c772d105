/* The cost of running a vehicle model as an FMU: per-step time of the
 * linear single-track model as the native plugin bicycle_linear and as the
 * test FMUs built from the same equations (FMI 2.0 and 3.0, through
 * vsweep's adapter), stepping one instance under a constant control.
 *
 *   fmu_overhead PLUGIN.so FMU2.fmu FMU3.fmu [STEPS [RUNS]]
 *
 * The runs are interleaved (native, FMI 2, FMI 3, native, ...) so that
 * the machine's load falls on all alike; the medians of RUNS runs of STEPS
 * steps (defaults 200000 and 7) are printed, CPU time of this thread and
 * wall time, in ns per step, with the FMU's overhead over the native
 * plugin. Built by meson (tools/bench), run by hand or tools/bench/run.sh.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmu/fmu.h"
#include "plugin/registry.h"

#define MAX_RUNS 51

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet_log(void *ctx, vs_log_level level, const char *fmt, ...)
	VS_PRINTF(3, 4);
static void quiet_log(void *ctx, vs_log_level level, const char *fmt, ...)
{
	if (level < VS_LOG_ERROR)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const vs_host host = {.abi_major = VS_ABI_MAJOR,
                             .abi_minor = VS_ABI_MINOR,
                             .struct_size = sizeof(vs_host),
                             .log = quiet_log};

/* The sedan of the benchmarks: 3 m wheelbase, front axle 1.5 m ahead. */
static void sedan(vs_actor_info *a)
{
	memset(a, 0, sizeof *a);
	a->struct_size = sizeof *a;
	a->id = 1;
	a->name = "bench";
	a->length = 4.8;
	a->width = 1.9;
	a->height = 1.5;
	a->front_overhang = 0.9;
	a->rear_overhang = 0.9;
	a->wheelbase = 3.0;
	a->front_axle_y = 1.5;
	a->rear_axle_y = -1.5;
	a->n_axles = 2;
	a->steering_ratio = 15.0;
	a->step = 0.01;
	a->start.speed = 15.0;
	a->start.vy = 15.0;
}

/* Sets a param by name when the descriptor has it. */
static void set_param(const vs_plugin *p, double *v, const char *name,
                      double x)
{
	for (size_t i = 0; i < p->n_params; i++)
		if (!strcmp(p->params[i].name, name))
			v[i] = x;
}

/* One run: create, reset, STEPS steps, destroy; ns per step. */
static void run_one(const vs_plugin *p, long steps, double *cpu,
                    double *wall)
{
	vs_actor_info a;
	sedan(&a);
	double params[64], out[64] = {0};
	for (size_t i = 0; i < p->n_params && i < 64; i++)
		params[i] = p->params[i].default_value;
	set_param(p, params, "lf", 1.4);
	set_param(p, params, "cg_y", 0.1);
	vs_create_args args = {sizeof args, &a, params, NULL, &host, out, p};
	void *inst = NULL;
	if (p->create(&args, &inst) >= VS_DISCARD) {
		fprintf(stderr, "fmu_overhead: %s: create failed\n", p->name);
		exit(1);
	}
	vs_state s = a.start;
	p->reset(inst, &s);
	vs_control c = {.speed = 15.0,
	                .steering_wheel = 30.0 * 3.14159265358979323846 / 180.0,
	                .accel = NAN};
	double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	double w0 = clock_s(CLOCK_MONOTONIC);
	for (long k = 1; k <= steps; k++)
		if (p->vehicle_step(inst, (double)k * 0.01, 0.01, &c, &s) >=
		    VS_DISCARD) {
			fprintf(stderr, "fmu_overhead: %s: step failed\n",
			        p->name);
			exit(1);
		}
	*cpu = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)steps * 1e9;
	*wall = (clock_s(CLOCK_MONOTONIC) - w0) / (double)steps * 1e9;
	p->destroy(inst);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: fmu_overhead PLUGIN.so FMU2.fmu FMU3.fmu "
		        "[STEPS [RUNS]]\n");
		return 2;
	}
	long steps = argc > 4 ? atol(argv[4]) : 200000;
	int runs = argc > 5 ? atoi(argv[5]) : 7;
	if (steps < 1 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "fmu_overhead: STEPS >= 1, 1 <= RUNS <= %d\n",
		        MAX_RUNS);
		return 2;
	}
	vs_error err = {{0}};
	vs_loaded_plugin lp = {0};
	vs_fmu *f2 = NULL, *f3 = NULL;
	if (vs_plugin_open(argv[1], &host, &lp, &err) ||
	    !(f2 = vs_fmu_open(argv[2], NULL, NULL, 0, &err)) ||
	    !(f3 = vs_fmu_open(argv[3], NULL, NULL, 0, &err))) {
		fprintf(stderr, "fmu_overhead: %s\n", err.msg);
		return 2;
	}
	const vs_plugin *model[3] = {lp.desc, vs_fmu_plugin(f2),
	                             vs_fmu_plugin(f3)};
	const char *label[3] = {"native bicycle_linear", "FMU, FMI 2.0",
	                        "FMU, FMI 3.0"};
	double cpu[3][MAX_RUNS], wall[3][MAX_RUNS];
	for (int r = 0; r < runs; r++)
		for (int m = 0; m < 3; m++)
			run_one(model[m], steps, &cpu[m][r], &wall[m][r]);
	printf("per-step time, median of %d interleaved runs of %ld steps\n",
	       runs, steps);
	printf("%-24s %12s %12s %14s\n", "model", "CPU ns", "wall ns",
	       "CPU overhead");
	double base = median(cpu[0], runs);
	for (int m = 0; m < 3; m++) {
		double c = m ? median(cpu[m], runs) : base;
		double w = median(wall[m], runs);
		if (m)
			printf("%-24s %12.1f %12.1f %+10.1f ns (%.2fx)\n",
			       label[m], c, w, c - base, c / base);
		else
			printf("%-24s %12.1f %12.1f %14s\n", label[m], c, w,
			       "(baseline)");
	}
	vs_fmu_close(f2);
	vs_fmu_close(f3);
	vs_plugin_close(&lp);
	return 0;
}
