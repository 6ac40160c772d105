/* What the lookup benchmarks share: clocks (s), a seeded uniform draw in
 * [0, 1), the median of a set of timings, and the load average line. */
#ifndef VS_BENCH_COMMON_H
#define VS_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the calling thread, s */
static inline double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Monotonic wall time, s */
static inline double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A 64-bit LCG's top 53 bits: uniform in [0, 1), the same on every
 * machine so that every run draws the same points. */
static inline double urand(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

static inline int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void print_load(const char *when)
{
	char buf[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	printf("load average %s: %s\n", when, buf);
}

#endif
