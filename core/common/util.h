/* Small facts and helpers every core module shares, said once: the circle
 * constant, the monotonic clock, angle wrapping, fmin and fmax inline, the
 * finite-state check, actor kind names, removal of a SQLite file with
 * its side files and a file's digest.
 * Lives below every other core folder (common/ includes nothing above it). */
#ifndef VS_UTIL_H
#define VS_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vsweep/plugin.h>

#define VS_PI 3.14159265358979323846

/* Seconds on the monotonic clock (for durations; never goes backwards). */
double vs_now(void);

/* The angle a + 2πk in (-π, π], rad. Exact for any finite a. */
double vs_wrap_angle(double a);

/* v in buf as %g writes it when that reads back as v, else with the
 * fewest more significant digits that do (17 at most): a bound in a
 * message names the very number compared against ("3.40282e+38" is not
 * a float's largest). Returns buf. */
#define VS_NUM_CHARS 32
const char *vs_num(double v, char buf[VS_NUM_CHARS]);

/* A double's bits: what a cache of a pure function's results is keyed by
 * (-0 and +0 differ, as their sines do). */
static inline uint64_t vs_bits_of(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return u;
}

/* fmin and fmax, inline: glibc's are calls, and the map lookup's boxes
 * and the footprints' distances made dozens of them per actor and step
 * (5-9 % of a summary-only or crowded run's CPU). The same result for
 * every input: a NaN argument yields the other one, and otherwise
 * a < b ? a : b (resp. >), which is also what glibc returns for two
 * zeros of either sign (test_map.min_max_as_libm). */
static inline double vs_fmin(double a, double b)
{
	if (a < b)
		return a;
	if (b <= a)
		return b;
	return isnan(a) ? b : a; /* unordered: the one that is a number */
}

static inline double vs_fmax(double a, double b)
{
	if (a > b)
		return a;
	if (b >= a)
		return b;
	return isnan(a) ? b : a;
}

/* 1 when every double of the state is finite. */
int vs_state_finite(const vs_state *s);
/* The name of the first field of s that is not finite ("x" ... "steer"),
 * its value in *value; NULL when every one is: for the message that
 * names what a plugin got wrong. */
const char *vs_state_bad_field(const vs_state *s, double *value);

/* Removes a SQLite database file and its -wal, -shm and -journal files;
 * missing files are not an error. */
void vs_remove_db_files(const char *path);

/* FNV-1a 64 of the bytes f reads from where it stands to its end, as 16
 * hex digits: what a results file records of each file the run read
 * besides its scenario and sweep (a plugin's build, an OpenDRIVE map),
 * so that a resume or merge sees another version of one. 0, or -1 on a
 * read error (out is then "?"). */
#define VS_DIGEST_CHARS 17
int vs_digest_stream(FILE *f, char out[VS_DIGEST_CHARS]);

/* The same of n bytes in memory. */
void vs_digest_bytes(const void *p, size_t n, char out[VS_DIGEST_CHARS]);

/* The same of the file at path; "?" when it cannot be read. */
void vs_digest_file(const char *path, char out[VS_DIGEST_CHARS]);

#endif
