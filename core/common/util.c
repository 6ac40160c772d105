/* The shared helpers of util.h. */
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double vs_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double vs_wrap_angle(double a)
{
	/* differences of two wrapped angles need one turn at most; anything
	 * else takes the exact, slower way */
	if (a > VS_PI && a <= 3 * VS_PI)
		a -= 2 * VS_PI;
	else if (a <= -VS_PI && a > -3 * VS_PI)
		a += 2 * VS_PI;
	else if (!(a > -VS_PI && a <= VS_PI))
		a = remainder(a, 2 * VS_PI);
	if (a <= -VS_PI)
		a += 2 * VS_PI;
	return a;
}

const char *vs_state_bad_field(const vs_state *s, double *value)
{
	static const char *const names[] = {
		"x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz",
		"wx", "wy", "wz", "speed", "steer"};
	_Static_assert(sizeof names / sizeof *names ==
	                       sizeof(vs_state) / sizeof(double),
	               "a name for every field of vs_state");
	const double *v = &s->x;
	for (size_t i = 0; i < sizeof *s / sizeof(double); i++)
		if (!isfinite(v[i])) {
			*value = v[i];
			return names[i];
		}
	return NULL;
}

int vs_state_finite(const vs_state *s)
{
	const double *v = &s->x;
	for (size_t i = 0; i < sizeof *s / sizeof(double); i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

void vs_remove_db_files(const char *path)
{
	static const char *const side[] = {"-wal", "-shm", "-journal"};
	char buf[4200];
	unlink(path);
	for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
		snprintf(buf, sizeof buf, "%s%s", path, side[i]);
		unlink(buf);
	}
}

const char *vs_num(double v, char buf[VS_NUM_CHARS])
{
	for (int p = 6; p <= 17; p++) {
		snprintf(buf, VS_NUM_CHARS, "%.*g", p, v);
		double back = strtod(buf, NULL);
		if (back == v || (isnan(v) && isnan(back)))
			break;
	}
	return buf;
}

/* The FNV-1a 64 state after bytes p[0..n) from h (the start value is
 * the one results files have always recorded, docs/results.md). */
static uint64_t fnv_more(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

#define FNV_START 1469598103934665603ull

int vs_digest_stream(FILE *f, char out[VS_DIGEST_CHARS])
{
	uint64_t h = FNV_START;
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		h = fnv_more(h, buf, n);
	if (ferror(f)) {
		strcpy(out, "?");
		return -1;
	}
	snprintf(out, VS_DIGEST_CHARS, "%016llx", (unsigned long long)h);
	return 0;
}

void vs_digest_bytes(const void *p, size_t n, char out[VS_DIGEST_CHARS])
{
	snprintf(out, VS_DIGEST_CHARS, "%016llx",
	         (unsigned long long)fnv_more(FNV_START, p, n));
}

void vs_digest_file(const char *path, char out[VS_DIGEST_CHARS])
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		strcpy(out, "?");
		return;
	}
	vs_digest_stream(f, out);
	fclose(f);
}
