/* The run-wide caps on repeated stderr lines (common/quota.c): exactly
 * VS_QUOTA_LINES lines of a kind, one notice, then silence, whatever the
 * threads; each kind counted apart; a reset starts again. */
#include <check.h>
#include <pthread.h>
#include <string.h>

#include "common/quota.h"

enum { THREADS = 4, TAKES = 1000 };

static int said[THREADS], noticed[THREADS];

static void *taker(void *arg)
{
	int k = (int)(long)arg;
	for (int i = 0; i < TAKES; i++) {
		int r = vs_quota_take(VS_QUOTA_FAILED);
		said[k] += r > 0;
		noticed[k] += r < 0;
	}
	return NULL;
}

START_TEST(cap_then_one_notice_across_threads)
{
	vs_quota_reset();
	pthread_t th[THREADS];
	for (long k = 0; k < THREADS; k++)
		pthread_create(&th[k], NULL, taker, (void *)k);
	int s = 0, n = 0;
	for (int k = 0; k < THREADS; k++) {
		pthread_join(th[k], NULL);
		s += said[k];
		n += noticed[k];
	}
	ck_assert_int_eq(s, VS_QUOTA_LINES);
	ck_assert_int_eq(n, 1);
	/* the other kind is untouched by the first one's cap */
	ck_assert_int_eq(vs_quota_take(VS_QUOTA_PLUGIN), 1);
	vs_quota_reset();
	ck_assert_int_eq(vs_quota_take(VS_QUOTA_FAILED), 1);
	ck_assert_ptr_nonnull(strstr(vs_quota_notice(VS_QUOTA_FAILED),
	                             "variant_info"));
	ck_assert_ptr_nonnull(strstr(vs_quota_notice(VS_QUOTA_PLUGIN),
	                             "log view"));
}
END_TEST

TCase *quota_tcase(void);
TCase *quota_tcase(void)
{
	TCase *tc = tcase_create("quota");
	tcase_add_test(tc, cap_then_one_notice_across_threads);
	return tc;
}
