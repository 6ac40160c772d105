/* Random draws for random sweep blocks: a counter-based generator, so
 * variant i's draws are a pure function of (seed, i, axis) with no state
 * carried between variants, and the few special functions sampling needs.
 *
 * Determinism: the same seed gives the same bits on every machine with
 * IEEE-754 binary64 doubles evaluated in double (FLT_EVAL_METHOD 0, as on
 * x86-64 SSE2 and AArch64) and no fused multiply-add contraction (rng.c
 * says how it keeps compilers from contracting). The generator is integer
 * arithmetic only. Everything in floating point uses only operations that
 * IEEE 754 rounds exactly (+ - * / and sqrt) plus exact ones (floor, fabs,
 * frexp, ldexp): exp, log, the normal CDF and its inverse are implemented
 * here rather than taken from libm, whose exp/erf/log differ in the last
 * bit between libraries and versions. */
#ifndef VS_RNG_H
#define VS_RNG_H

#include <stdint.h>

/* The n-th output (n = 0, 1, ...) of SplitMix64 (Steele, Lea and Flood,
 * 2014) seeded with state: SplitMix64 is itself counter-based, so any
 * output is computed directly. */
uint64_t vs_splitmix64_at(uint64_t state, uint64_t n);

/* 64 random bits for draw number draw of axis axis of variant variant
 * (its index in the whole sweep) of a sweep with seed seed. Keys are
 * derived level by level, each the n-th SplitMix64 output seeded with the
 * key above: seed -> variant -> axis -> draw. */
uint64_t vs_rng_bits(uint64_t seed, uint64_t variant, uint64_t axis,
                     uint64_t draw);

/* Maps 64 bits to a double uniform on the open interval (0, 1): one of the
 * 2^52 odd multiples of 2^-53, exactly, so neither 0 nor 1 ever occurs. */
double vs_rng_unit(uint64_t bits);

/* e^x and ln x from basic operations (range reduction plus a series):
 * within a few units in the last place of the exact values. */
double vs_rng_exp(double x);
double vs_rng_log(double x);

/* The standard normal density, distribution function Phi (W. J. Cody's
 * rational Chebyshev approximations, Math. Comp. 23 (1969) 631-637, as in
 * his SPECFUN ANORM: relative error near 1e-15 down to x = -37.5) and its
 * inverse (a coarse start refined by three Halley steps on Phi). The
 * inverse takes p in (0, 1); 0 and 1 give -inf and +inf. */
double vs_normal_pdf(double x);
double vs_normal_cdf(double x);
double vs_normal_quantile(double p);

/* A normal distribution truncated to [lo, hi], sampled by inverting its
 * distribution function: one uniform per draw, exact up to rounding,
 * bounded time (no rejection loop), always within [lo, hi]. */
typedef struct vs_truncnorm {
	double mean, sd; /* of the untruncated normal */
	double lo, hi;   /* bounds; -inf / +inf for none */
	int flip;        /* sample the mirror image: keeps both bounds in the
	                    lower tail, where Phi keeps its relative accuracy */
	double pa, pb;   /* Phi at the standardised (mirrored) bounds */
} vs_truncnorm;

/* Prepares t. Returns 0, or -1 when [lo, hi] holds less than 1e-280 of
 * the normal's probability (it lies some 35 sd out, where the distribution
 * function runs out of doubles). Expects finite mean, sd > 0, lo < hi. */
int vs_truncnorm_init(vs_truncnorm *t, double mean, double sd, double lo,
                      double hi);

/* The draw for a uniform u in (0, 1). */
double vs_truncnorm_sample(const vs_truncnorm *t, double u);

#endif
