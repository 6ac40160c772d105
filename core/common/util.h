/* Small facts and helpers every core module shares, said once: the circle
 * constant, the monotonic clock, angle wrapping, the finite-state check,
 * actor kind names and removal of a SQLite file with its side files.
 * Lives below every other core folder (common/ includes nothing above it). */
#ifndef VS_UTIL_H
#define VS_UTIL_H

#include <vsweep/plugin.h>

#define VS_PI 3.14159265358979323846

/* Seconds on the monotonic clock (for durations; never goes backwards). */
double vs_now(void);

/* The angle a + 2πk in (-π, π], rad. Exact for any finite a. */
double vs_wrap_angle(double a);

/* 1 when every double of the state is finite. */
int vs_state_finite(const vs_state *s);

/* Removes a SQLite database file and its -wal, -shm and -journal files;
 * missing files are not an error. */
void vs_remove_db_files(const char *path);

#endif
