/* angle_common.h — remainder(a, 2 pi) without the libm call where the
 * answer is a or one turn off, for the shipped plugins (header-only, like
 * vehicle_common.h: each plugin stays one shared object of its own).
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

#endif
