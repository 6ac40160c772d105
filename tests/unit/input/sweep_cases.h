/* The table-driven sweep tests, included at the end of a test file that
 * defined, against seed_fixture.h's seed, bad_cases (sweeps each refused
 * with exactly its whole message: FILE:LINE:COL: what) and good_cases
 * (sweeps accepted): the two loop tests and main, one suite named
 * CASES_SUITE. */
#ifndef VS_TEST_SWEEP_CASES_H
#define VS_TEST_SWEEP_CASES_H

#include <stdlib.h>

#include "input/sweep.h"

START_TEST(refused)
{
	const refusal *c = &bad_cases[_i];
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("w.yaml", c->yaml, strlen(c->yaml), seed,
	                              &err);
	ck_assert_msg(!sw, "accepted:\n%s", c->yaml);
	ck_assert_msg(!strcmp(err.msg, c->msg), "input:\n%s\nwant: %s\ngot:  %s",
	              c->yaml, c->msg, err.msg);
}
END_TEST

START_TEST(accepted)
{
	const char *yaml = good_cases[_i];
	vs_error err = {{0}};
	vs_sweep *sw = vs_sweep_parse("w.yaml", yaml, strlen(yaml), seed, &err);
	ck_assert_msg(sw, "refused:\n%s\n%s", yaml, err.msg);
	vs_sweep_destroy(sw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create(CASES_SUITE);
	TCase *tc = tcase_create(CASES_SUITE);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, refused, 0,
	                    sizeof bad_cases / sizeof bad_cases[0]);
	tcase_add_loop_test(tc, accepted, 0,
	                    sizeof good_cases / sizeof good_cases[0]);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
