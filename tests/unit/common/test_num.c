/* vs_num (common/util.h): a number in a message reads back as itself. */
#include <check.h>
#include <float.h>
#include <stdlib.h>

#include "common/util.h"

TCase *num_tcase(void);

START_TEST(as_g_when_that_is_exact)
{
	char b[VS_NUM_CHARS];
	ck_assert_str_eq(vs_num(0, b), "0");
	ck_assert_str_eq(vs_num(0.1, b), "0.1");
	ck_assert_str_eq(vs_num(10, b), "10");
	ck_assert_str_eq(vs_num(-2.5, b), "-2.5");
	ck_assert_str_eq(vs_num(1e39, b), "1e+39");
	ck_assert_str_eq(vs_num(1e-5, b), "1e-05");
}
END_TEST

START_TEST(more_digits_when_g_is_not)
{
	char b[VS_NUM_CHARS];
	/* FLT_MAX = (2 - 2^-23) 2^127 = 340282346638528859811704183484516925440 */
	ck_assert_str_eq(vs_num(FLT_MAX, b), "3.4028234663852886e+38");
	ck_assert_str_eq(vs_num(2.7000001, b), "2.7000001");
	ck_assert_str_eq(vs_num(0.1 + 0.2, b), "0.30000000000000004");
	/* whatever the value, it reads back as itself */
	const double v[] = {DBL_MAX, DBL_MIN, 4.9e-324, 1.0 / 3, -FLT_MAX,
	                    123456.789012345678};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		ck_assert(strtod(vs_num(v[i], b), NULL) == v[i]);
}
END_TEST

TCase *num_tcase(void)
{
	TCase *tc = tcase_create("num");
	tcase_add_test(tc, as_g_when_that_is_exact);
	tcase_add_test(tc, more_digits_when_g_is_not);
	return tc;
}
