/* The random draws behind random sweep blocks: SplitMix64 against its
 * published outputs, the key derivation against an independent (Python)
 * implementation, and exp, log, Phi and its inverse against libm and
 * values computed with mpmath at 40 digits. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "input/rng.h"

/* |got - want| <= rel |want| (or abs for want 0) */
#define ck_assert_rel(got, want, rel)                                     \
	do {                                                                  \
		double g_ = (got), w_ = (want);                                   \
		ck_assert_msg(fabs(g_ - w_) <= (rel) * fabs(w_) ||                \
		                  (w_ == 0 && fabs(g_) <= (rel)),                 \
		              "%s = %.17g, want %.17g (rel %g)", #got, g_, w_,    \
		              fabs(g_ - w_) / fabs(w_));                          \
	} while (0)

/* SplitMix64 seeded with 1234567: its first five outputs as published
 * with the reference implementation (Vigna, prng.di.unimi.it), also the
 * test vector of Rust's rand_xoshiro. */
START_TEST(splitmix_vectors)
{
	static const uint64_t want[] = {
		6457827717110365317ULL, 3203168211198807973ULL,
		9817491932198370423ULL, 4593380528125082431ULL,
		16408922859458223821ULL};
	for (int n = 0; n < 5; n++)
		ck_assert_uint_eq(vs_splitmix64_at(1234567, (uint64_t)n), want[n]);
}
END_TEST

/* Key derivation seed -> variant -> axis -> draw, and the unit map, as a
 * 15-line Python transcription of the design computes them. */
START_TEST(bits_and_unit)
{
	ck_assert_uint_eq(vs_rng_bits(42, 0, 0, 0), 0xc16129ecd0dc5b93ULL);
	ck_assert_uint_eq(vs_rng_bits(42, 1, 0, 0), 0x327f2ff1c34fe7e0ULL);
	ck_assert_uint_eq(vs_rng_bits(42, 2, 0, 0), 0xcd80b0c8430703e3ULL);
	ck_assert_uint_eq(vs_rng_bits(0, 0, 0, 0), 0x2130748aaac80268ULL);
	ck_assert_uint_eq(vs_rng_bits(7, 123456789, 3, 0),
	                  0xa57048227d458388ULL);
	ck_assert(vs_rng_unit(0xc16129ecd0dc5b93ULL) == 0.7553888514674879);
	ck_assert(vs_rng_unit(0x327f2ff1c34fe7e0ULL) == 0.19725322391906241);
	/* the open interval's ends */
	ck_assert(vs_rng_unit(0) == 0x1p-53);
	ck_assert(vs_rng_unit(UINT64_MAX) == 1 - 0x1p-53);
	ck_assert(vs_rng_unit(UINT64_MAX) < 1);
	/* every argument matters */
	uint64_t b = vs_rng_bits(1, 2, 3, 4);
	ck_assert_uint_ne(b, vs_rng_bits(2, 2, 3, 4));
	ck_assert_uint_ne(b, vs_rng_bits(1, 3, 3, 4));
	ck_assert_uint_ne(b, vs_rng_bits(1, 2, 4, 4));
	ck_assert_uint_ne(b, vs_rng_bits(1, 2, 3, 5));
}
END_TEST

/* The bits are uniform enough: each of the 64 bit positions is set about
 * half the time over consecutive variants. */
START_TEST(bits_balanced)
{
	enum { N = 100000 };
	int ones[64] = {0};
	for (uint64_t i = 0; i < N; i++) {
		uint64_t b = vs_rng_bits(99, i, 0, 0);
		for (int k = 0; k < 64; k++)
			ones[k] += (int)(b >> k & 1);
	}
	/* sd sqrt(N/4) = 158: 5 sd */
	for (int k = 0; k < 64; k++)
		ck_assert_msg(abs(ones[k] - N / 2) < 800, "bit %d: %d", k, ones[k]);
}
END_TEST

START_TEST(exp_log)
{
	for (double x = -708; x < 709; x += 0.137)
		ck_assert_rel(vs_rng_exp(x), exp(x), 5e-16);
	for (double x = -1e-3; x < 1e-3; x += 1.37e-6)
		ck_assert_rel(vs_rng_exp(x), exp(x), 3e-16);
	ck_assert(vs_rng_exp(0) == 1);
	ck_assert(vs_rng_exp(-800) == 0);
	ck_assert(isinf(vs_rng_exp(800)));
	for (double x = 1e-300; x < 1e300; x *= 1.37)
		ck_assert_rel(vs_rng_log(x), log(x), 5e-16);
	for (double x = 0.5; x < 2; x += 0.001)
		ck_assert(fabs(vs_rng_log(x) - log(x)) <= 5e-16 * fabs(log(x)) +
		                                             1e-19);
	ck_assert(vs_rng_log(1) == 0);
	ck_assert(isinf(vs_rng_log(0)) && vs_rng_log(0) < 0);
	ck_assert(isnan(vs_rng_log(-1)));
}
END_TEST

/* Phi at points through its three intervals and far tail (mpmath, 40
 * digits). */
static const double cdf_table[][2] = {
	{-37, 5.7255712225245768227e-300}, {-30, 4.9067139271481870595e-198},
	{-20, 2.7536241186062336951e-89},  {-10, 7.619853024160526066e-24},
	{-5, 2.8665157187919391167e-7},    {-3, 0.0013498980316300945267},
	{-1.96, 0.024997895148220434137},  {-1, 0.15865525393145705141},
	{-0.5, 0.30853753872598689636},    {-0.1, 0.46017216272297101853},
	{0, 0.5},                          {0.3, 0.61791142218895263731},
	{0.66291, 0.74630590161026006041}, {1, 0.84134474606854294859},
	{2, 0.9772498680518207928},        {5.5, 0.99999998101043753411},
	{8, 0.9999999999999993779},
};

START_TEST(normal_cdf)
{
	for (size_t i = 0; i < sizeof cdf_table / sizeof cdf_table[0]; i++)
		ck_assert_rel(vs_normal_cdf(cdf_table[i][0]), cdf_table[i][1],
		              1e-15);
	/* against libm's erfc, an independent implementation, densely */
	for (double x = -37; x < 8; x += 0.0123) /* erfc's own error grows */
		ck_assert_rel(vs_normal_cdf(x), 0.5 * erfc(-x / sqrt(2)),
		              x < -5 ? 2e-13 : 1e-14); /* in the far tail */
	ck_assert(vs_normal_cdf(-40) == 0);
	ck_assert(vs_normal_cdf(40) == 1);
	ck_assert(vs_normal_cdf(-INFINITY) == 0);
	ck_assert(vs_normal_cdf(INFINITY) == 1);
	ck_assert_rel(vs_normal_pdf(1),
	              exp(-0.5) / sqrt(2 * 3.14159265358979323846), 1e-15);
}
END_TEST

static const double quantile_table[][2] = {
	{1e-300, -37.047096299361199237}, {1e-100, -21.273453560965324295},
	{1e-20, -9.2623400897984075737},  {1e-10, -6.3613409024040562047},
	{0.001, -3.0902323061678135415},  {0.025, -1.9599639845400542355},
	{0.1, -1.281551565544600467},     {0.3, -0.52440051270804078404},
	{0.5, 0},                         {0.7, 0.52440051270804078404},
	{0.975, 1.9599639845400542355},   {0.999, 3.0902323061678135415},
	{0.9999999, 5.1993375821928169316},
};

START_TEST(normal_quantile)
{
	for (size_t i = 0;
	     i < sizeof quantile_table / sizeof quantile_table[0]; i++) {
		double p = quantile_table[i][0], z = quantile_table[i][1];
		/* near 1, p itself carries a relative error of 2^-53 in 1 - p,
		 * which the quantile magnifies */
		double tol = p > 0.99 ? 1e-9 : 1e-14;
		ck_assert_msg(fabs(vs_normal_quantile(p) - z) <=
		                  tol * fabs(z) + 1e-15,
		              "quantile(%g) = %.17g, want %.17g", p,
		              vs_normal_quantile(p), z);
	}
	/* a round trip through Phi; above 0, Phi(x) keeps only the absolute
	 * accuracy of a number near 1 */
	for (double x = -37; x < 0; x += 0.0173)
		ck_assert_rel(vs_normal_quantile(vs_normal_cdf(x)), x, 1e-13);
	for (double x = 0; x < 5; x += 0.0173)
		ck_assert(fabs(vs_normal_quantile(vs_normal_cdf(x)) - x) < 1e-10);
	ck_assert(isinf(vs_normal_quantile(0)) && vs_normal_quantile(0) < 0);
	ck_assert(isinf(vs_normal_quantile(1)) && vs_normal_quantile(1) > 0);
	ck_assert(isnan(vs_normal_quantile(1.5)));
}
END_TEST

/* Inverse-CDF sampling stays inside [lo, hi] for u across (0, 1),
 * including the ends and far tails (where the mirror image is used). */
START_TEST(truncnorm_bounds)
{
	static const double cases[][4] = {
		/* mean, sd, lo, hi */
		{0, 1, -INFINITY, INFINITY}, {0, 1, 0, INFINITY},
		{0, 1, -INFINITY, -3},       {10, 4, 8, 20},
		{0, 1, 3, 4},                {0, 1, 8, 8.0001},
		{0, 1, -30, -29.5},          {0, 1, 20, 30},
		{5, 1e-3, 4.999, 5.0000001},
	};
	static const double us[] = {0x1p-53, 1e-12, 0.25, 0.5, 0.75,
	                            1 - 1e-12, 1 - 0x1p-53};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const double *c = cases[i];
		vs_truncnorm t;
		ck_assert_int_eq(vs_truncnorm_init(&t, c[0], c[1], c[2], c[3]),
		                 0);
		double prev = -INFINITY;
		for (size_t k = 0; k < sizeof us / sizeof us[0]; k++) {
			double x = vs_truncnorm_sample(&t, us[k]);
			ck_assert_msg(x >= c[2] && x <= c[3] && isfinite(x),
			              "case %zu u %g: %g", i, us[k], x);
			ck_assert(x >= prev); /* monotone in u */
			prev = x;
		}
	}
	/* the median of the half-normal on [0, inf) is Phi^-1(0.75) */
	vs_truncnorm t;
	vs_truncnorm_init(&t, 0, 1, 0, INFINITY);
	ck_assert_rel(vs_truncnorm_sample(&t, 0.5), 0.67448975019608174, 1e-13);
	/* nothing left to sample */
	ck_assert_int_eq(vs_truncnorm_init(&t, 0, 1, 40, 41), -1);
	ck_assert_int_eq(vs_truncnorm_init(&t, 0, 1, -41, -40), -1);
}
END_TEST

/* Normal draws pinned to the bit: what every conforming build must give
 * for seed 42 (gcc and clang at -O0 to -O3 -march=native agree; a build
 * that fused a*b+c would not). The mpmath column, the exact inversion of
 * the truncated distribution function at the same u, shows the pinned
 * values are also right to about 1e-16. */
START_TEST(normal_draws_pinned)
{
	static const struct {
		double mean, sd, lo, hi;
		double bits, exact;
	} cases[] = {
		{0, 1, -INFINITY, INFINITY, -0x1.0cd6963519a7fp-2,
		 -0.26253733347986240634},
		{10, 4, 8, 20, 0x1.312af72d1ad0bp+3, 9.5364948159172131187},
		{0, 1, 3, 4, 0x1.85b252bc0e292p+1, 3.0445044916380731645},
		{4.5, 0.3, 3.5, 6, 0x1.3c062ed857b93p+2, 4.9378773796769503764},
	};
	for (int i = 0; i < 4; i++) {
		vs_truncnorm t;
		ck_assert_int_eq(vs_truncnorm_init(&t, cases[i].mean, cases[i].sd,
		                                   cases[i].lo, cases[i].hi), 0);
		double u = vs_rng_unit(vs_rng_bits(42, (uint64_t)i, 1, 0));
		double x = vs_truncnorm_sample(&t, u);
		ck_assert_msg(x == cases[i].bits, "case %d: %a, want %a", i, x,
		              cases[i].bits);
		ck_assert_rel(x, cases[i].exact, 3e-16);
	}
}
END_TEST

static Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("rng");
	tcase_add_test(tc, splitmix_vectors);
	tcase_add_test(tc, bits_and_unit);
	tcase_add_test(tc, bits_balanced);
	tcase_add_test(tc, exp_log);
	tcase_add_test(tc, normal_cdf);
	tcase_add_test(tc, normal_quantile);
	tcase_add_test(tc, truncnorm_bounds);
	tcase_add_test(tc, normal_draws_pinned);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rng_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
