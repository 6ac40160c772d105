/* Counter-based random bits and the special functions random sweep blocks
 * sample with, built so that a seed gives the same values everywhere (see
 * rng.h for the contract). */
#include "input/rng.h"

#include <float.h>
#include <math.h>

/* a*b + c must stay two roundings, never one fused multiply-add: clang
 * honours the standard pragma; GCC has no such pragma but contracts only
 * in its GNU modes, never with -std=c11 (which meson's c_std=c11 gives). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && !defined(__STRICT_ANSI__)
#error "build rng.c with -std=c11: GNU modes let GCC fuse a*b+c"
#endif
/* x87 arithmetic keeps extra precision, so results would depend on
 * register allocation. */
#if FLT_EVAL_METHOD != 0
#error "rng.c needs double evaluated in double (x86: -msse2 -mfpmath=sse)"
#endif

#define GOLDEN 0x9e3779b97f4a7c15ULL /* SplitMix64's increment */

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^11 (42 bits). */
#define LN2_HI 0x1.62e42fefa3800p-1
#define LN2_LO 0x1.ef35793c76730p-45
#define INV_LN2 0x1.71547652b82fep+0
#define SQRT_HALF 0x1.6a09e667f3bcdp-1
#define INV_SQRT_2PI 0x1.9884533d43651p-2 /* 1/sqrt(2 pi) */

/* ---- bits ------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t vs_splitmix64_at(uint64_t state, uint64_t n)
{
	return mix64(state + (n + 1) * GOLDEN); /* unsigned: wraps mod 2^64 */
}

uint64_t vs_rng_bits(uint64_t seed, uint64_t variant, uint64_t axis,
                     uint64_t draw)
{
	/* The seed is hashed first so that seeds differing by a multiple of
	 * GOLDEN do not give shifted copies of one another's streams. */
	uint64_t k = vs_splitmix64_at(seed, 0);
	k = vs_splitmix64_at(k, variant);
	k = vs_splitmix64_at(k, axis);
	return vs_splitmix64_at(k, draw);
}

double vs_rng_unit(uint64_t bits)
{
	/* An odd integer below 2^53 is exact in a double, and so is its
	 * product with a power of two. */
	return (double)((bits >> 11) | 1) * 0x1p-53;
}

/* ---- exp and log ------------------------------------------------------ */

double vs_rng_exp(double x)
{
	if (isnan(x))
		return x;
	if (x > 709.8)
		return HUGE_VAL;
	if (x < -745.2)
		return 0;
	/* x = k ln2 + r, |r| <= ln2 / 2; then e^r by its Taylor series to
	 * r^13 / 13! (the next term is below 2^-60), and the exact scaling
	 * by 2^k. */
	double k = floor(x * INV_LN2 + 0.5);
	double r = (x - k * LN2_HI) - k * LN2_LO;
	double s = 1;
	for (int n = 13; n >= 1; n--)
		s = 1 + s * r / n;
	return ldexp(s, (int)k);
}

double vs_rng_log(double x)
{
	if (isnan(x) || x < 0)
		return NAN;
	if (x == 0)
		return -HUGE_VAL;
	if (isinf(x))
		return x;
	/* x = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s) with
	 * s = (m - 1)/(m + 1), |s| < 0.172, whose series to s^25 / 25 leaves
	 * less than 2^-60 out. */
	int e;
	double m = frexp(x, &e);
	if (m < SQRT_HALF) {
		m *= 2;
		e--;
	}
	double s = (m - 1) / (m + 1), s2 = s * s, sum = 0;
	for (int n = 12; n >= 0; n--)
		sum = sum * s2 + 1.0 / (2 * n + 1);
	return e * LN2_HI + (e * LN2_LO + 2 * s * sum);
}

/* ---- the normal distribution ------------------------------------------ */

double vs_normal_pdf(double x)
{
	return INV_SQRT_2PI * vs_rng_exp(-0.5 * x * x);
}

/* e^(-y^2/2) with y^2 split as ys^2 + del, ys = y rounded down to 1/16:
 * ys^2 is exact, so the exponent carries no error that the exponential
 * would magnify (Cody's device). */
static double exp_half_sq(double y)
{
	double ys = floor(y * 16) / 16;
	double del = (y - ys) * (y + ys);
	return vs_rng_exp(-ys * ys * 0.5) * vs_rng_exp(-del * 0.5);
}

/* Cody's coefficients (SPECFUN ANORM) for |x| <= 0.66291, for
 * 0.66291 < |x| <= sqrt(32), and beyond. */
static const double cody_a[5] = {
	2.2352520354606839287e00, 1.6102823106855587881e02,
	1.0676894854603709582e03, 1.8154981253343561249e04,
	6.5682337918207449113e-2};
static const double cody_b[4] = {
	4.7202581904688241870e01, 9.7609855173777669322e02,
	1.0260932208618978205e04, 4.5507789335026729956e04};
static const double cody_c[9] = {
	3.9894151208813466764e-1, 8.8831497943883759412e00,
	9.3506656132177855979e01, 5.9727027639480026226e02,
	2.4945375852903726711e03, 6.8481904505362823326e03,
	1.1602651437647350124e04, 9.8427148383839780218e03,
	1.0765576773720192317e-8};
static const double cody_d[8] = {
	2.2266688044328115691e01, 2.3538790178262499861e02,
	1.5193775994075548050e03, 6.4855582982667607550e03,
	1.8615571640885098091e04, 3.4900952721145977266e04,
	3.8912003286093271411e04, 1.9685429676859990727e04};
static const double cody_p[6] = {
	2.1589853405795699e-1, 1.274011611602473639e-1,
	2.2235277870649807e-2, 1.421619193227893466e-3,
	2.9112874951168792e-5, 2.307344176494017303e-2};
static const double cody_q[5] = {
	1.28426009614491121e00, 4.68238212480865118e-1,
	6.59881378689285515e-2, 3.78239633202758244e-3,
	7.29751555083966205e-5};

double vs_normal_cdf(double x)
{
	if (isnan(x))
		return x;
	double y = fabs(x);
	if (y <= 0.66291) {
		double z = x * x, num = cody_a[4] * z, den = z;
		for (int i = 0; i < 3; i++) {
			num = (num + cody_a[i]) * z;
			den = (den + cody_b[i]) * z;
		}
		return 0.5 + x * (num + cody_a[3]) / (den + cody_b[3]);
	}
	double tail; /* Phi(-y) */
	if (y <= 5.656854248) {
		double num = cody_c[8] * y, den = y;
		for (int i = 0; i < 7; i++) {
			num = (num + cody_c[i]) * y;
			den = (den + cody_d[i]) * y;
		}
		tail = exp_half_sq(y) * (num + cody_c[7]) / (den + cody_d[7]);
	} else if (y < 37.519) {
		double z = 1 / (y * y), num = cody_p[5] * z, den = z;
		for (int i = 0; i < 4; i++) {
			num = (num + cody_p[i]) * z;
			den = (den + cody_q[i]) * z;
		}
		double r = z * (num + cody_p[4]) / (den + cody_q[4]);
		tail = exp_half_sq(y) * (0.39894228040143267794 - r) / y;
	} else {
		tail = 0; /* below the smallest double */
	}
	return x > 0 ? 1 - tail : tail;
}

double vs_normal_quantile(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -HUGE_VAL;
	if (p == 1)
		return HUGE_VAL;
	if (p > 0.5) /* 1 - p is exact here (Sterbenz) */
		return -vs_normal_quantile(1 - p);
	/* Start: Abramowitz and Stegun 26.2.23 (error < 4.5e-4); each Halley
	 * step on Phi(z) - p roughly cubes the error, so three reach the
	 * accuracy of Phi itself. A fixed count keeps the time bounded and
	 * the result independent of any tolerance test. */
	double t = sqrt(-2 * vs_rng_log(p));
	double z = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
	                     (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
	for (int k = 0; k < 3; k++) {
		double d = vs_normal_pdf(z);
		if (!(d > 0))
			break; /* p below Phi's range: keep the estimate */
		double e = (vs_normal_cdf(z) - p) / d;
		z -= e / (1 + 0.5 * z * e);
	}
	return z;
}

int vs_truncnorm_init(vs_truncnorm *t, double mean, double sd, double lo,
                      double hi)
{
	double a = (lo - mean) / sd, b = (hi - mean) / sd;
	t->mean = mean;
	t->sd = sd;
	t->lo = lo;
	t->hi = hi;
	/* Phi(x) near 1 has only absolute accuracy, so a range above the mean
	 * is sampled as the mirror image of the one below it. */
	t->flip = a > 0;
	if (t->flip) {
		double tmp = a;
		a = -b;
		b = -tmp;
	}
	t->pa = vs_normal_cdf(a);
	t->pb = vs_normal_cdf(b);
	return t->pb - t->pa >= 1e-280 ? 0 : -1;
}

double vs_truncnorm_sample(const vs_truncnorm *t, double u)
{
	/* The mirror image takes 1 - u so that draws still grow with u. */
	double p = t->flip ? t->pb - u * (t->pb - t->pa)
	                   : t->pa + u * (t->pb - t->pa);
	/* p > 0 since pb - pa >= 1e-280 and u, 1 - u >= 2^-53; but with
	 * pb = 1 the sum can round up to 1, whose quantile is infinite. */
	if (p >= 1)
		p = 1 - 0x1p-53;
	double z = vs_normal_quantile(p);
	double x = t->mean + t->sd * (t->flip ? -z : z);
	/* Rounding in Phi, its inverse and the scaling can land an ulp or so
	 * outside; only that is clamped, never the distribution itself. */
	return x < t->lo ? t->lo : x > t->hi ? t->hi : x;
}
