/* angle_common.h — libm's angle results without the libm calls they can
 * do without, for the shipped plugins (header-only, like vehicle_common.h:
 * each plugin stays one shared object of its own): remainder(a, 2 pi)
 * where the answer is a or one turn off, and a remembered cos/sin pair.
 *
 * Plugins wrap headings and heading differences every step (yaw after a
 * model step, a waypoint leg's heading error); glibc's remainder is exact
 * and slow (~2.5 % of a simulation's CPU on the benchmark's sweep), while
 * the angles it gets are almost always within a turn of the range.
 *
 * Same bits as remainder(a, 2 pi) for every a (test_plugin's
 * rem_2pi_as_libm): with P = 2 pi as a double, remainder returns a - n P
 * exactly, n the integer nearest a / P (ties to even).
 * - |a| <= pi: a / P is in [-1/2, 1/2], so n = 0 (the ties at +-1/2 go to
 *   the even 0): a itself, -0 included.
 * - pi < |a| < P: |a / P| is in (1/2, 1), so n = +-1, and a -+ P is
 *   exact (Sterbenz: a and P within a factor of two) and not zero.
 * - anything else: remainder itself; at a = +-P exactly that is a zero
 *   with a's sign, which -P + P (= +0) would not give. */
#ifndef VSWEEP_PLUGINS_ANGLE_COMMON_H
#define VSWEEP_PLUGINS_ANGLE_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define AC_PI 3.14159265358979323846

static inline double ac_rem_2pi(double a)
{
	if (a >= -AC_PI && a <= AC_PI)
		return a;
	if (a > AC_PI && a < 2.0 * AC_PI)
		return a - 2.0 * AC_PI;
	if (a < -AC_PI && a > -2.0 * AC_PI)
		return a + 2.0 * AC_PI;
	return remainder(a, 2.0 * AC_PI);
}

/* The cosine and sine of the last angle asked for, by its bits: a step's
 * final heading is the next step's first (unless the host moved the
 * actor in between), so each step needs libm for one of the two. */
typedef struct ac_sincos {
	int have;
	uint64_t bits; /* the angle's */
	double c, s;
} ac_sincos;

/* cos(a) and sin(a), libm's own values, through m (NULL: no memory). */
static inline void ac_cos_sin(ac_sincos *m, double a, double *c, double *s)
{
	uint64_t u;
	memcpy(&u, &a, sizeof u);
	if (m && m->have && m->bits == u) {
		*c = m->c;
		*s = m->s;
		return;
	}
	*c = cos(a);
	*s = sin(a);
	if (m)
		*m = (ac_sincos){1, u, *c, *s};
}

#endif
