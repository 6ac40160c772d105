/* Check suite for the common module's huge-page arrays (hugemem.c): a
 * large array is a 2 MiB-aligned block's, zeroed; freed, it is the next
 * array's that fits, with no page touched anew (the kernel's count of
 * this process's page faults, getrusage); small arrays are malloc's; and
 * where transparent huge pages are on, a fresh 8 MiB array costs a few
 * faults, not 2048. Under AddressSanitizer every array is malloc's (its
 * checks must see them), so there only the zeroing and the frees are
 * checked. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/hugemem.h"

#if defined(__SANITIZE_ADDRESS__)
#define POOLED 0
#else
#define POOLED 1
#endif

enum { MIB = 1 << 20 };

static long faults(void)
{
	struct rusage u;
	ck_assert_int_eq(getrusage(RUSAGE_SELF, &u), 0);
	return u.ru_minflt;
}

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The kernel serves MADV_HUGEPAGE ("always" or "madvise" selected). */
static int thp_on(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return 0;
	char s[128] = "";
	if (!fgets(s, sizeof s, f))
		s[0] = 0;
	fclose(f);
	return strstr(s, "[always]") || strstr(s, "[madvise]");
}

START_TEST(large_array_reused_without_new_faults)
{
	size_t n = 3 * MIB; /* 3 MiB: a block of 4 */
	unsigned char *a = vs_huge_calloc(n, 1);
	ck_assert_ptr_nonnull(a);
	ck_assert(all_zero(a, n));
	memset(a, 0xab, n);
	if (POOLED)
		ck_assert_uint_eq(((uintptr_t)a - 64) % VS_HUGE_PAGE, 0);
	vs_huge_free(a);
	long f0 = faults();
	unsigned char *b = vs_huge_calloc(n / 8, 8); /* the same bytes */
	ck_assert(all_zero(b, n));                    /* zeroed again */
	memset(b, 1, n);
	long f = faults() - f0;
	if (POOLED) {
		ck_assert_ptr_eq(b, a); /* the block kept */
		ck_assert_int_le(f, 8); /* 768 pages of 4 KiB, none new */
	}
	vs_huge_free(b);
}
END_TEST

START_TEST(fresh_array_in_huge_pages)
{
	size_t n = 8 * MIB;
	long f0 = faults();
	unsigned char *a = vs_huge_calloc(n, 1);
	memset(a, 7, n);
	long f = faults() - f0;
	ck_assert_int_eq(a[n - 1], 7);
	vs_huge_free(a);
	/* 2048 pages of 4 KiB; in huge pages 4 or 5 faults. A kernel
	 * without transparent huge pages gives small pages, as malloc's
	 * memory would (and under AddressSanitizer the array is malloc's,
	 * its shadow memory faulted too): nothing to compare then. */
	if (POOLED && thp_on())
		ck_assert_int_le(f, 64);
}
END_TEST

START_TEST(small_arrays_are_malloc_s)
{
	unsigned char *a = vs_huge_calloc(1000, 8);
	ck_assert(all_zero(a, 8000));
	if (POOLED)
		ck_assert_uint_ne(((uintptr_t)a - 64) % VS_HUGE_PAGE, 0);
	vs_huge_free(a); /* free()'d: LeakSanitizer would see otherwise */
	vs_huge_free(NULL);
	unsigned char *z = vs_huge_calloc(0, 16); /* calloc's: not NULL */
	ck_assert_ptr_nonnull(z);
	vs_huge_free(z);
}
END_TEST

/* Blocks pass between threads: the writer frees what a worker got. */
static void *churn(void *arg)
{
	int seed = (int)(intptr_t)arg;
	for (int i = 0; i < 200; i++) {
		size_t n = (size_t)(1 + (seed + i) % 5) * MIB / 2;
		unsigned char *p = vs_huge_calloc(n, 1);
		if (!all_zero(p, n))
			return (void *)1;
		memset(p, seed, n);
		vs_huge_free(p);
	}
	return NULL;
}

START_TEST(threads_share_the_blocks)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn,
		                                (void *)(intptr_t)(i + 1)),
		                 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		ck_assert_int_eq(pthread_join(t[i], &r), 0);
		ck_assert_ptr_null(r);
	}
}
END_TEST

TCase *escape_tcase(void); /* test_escape.c */
TCase *quota_tcase(void);  /* test_quota.c */
TCase *num_tcase(void);    /* test_num.c */
TCase *sort_tcase(void);   /* test_sort.c */

static Suite *common_suite(void)
{
	Suite *s = suite_create("common");
	suite_add_tcase(s, escape_tcase());
	suite_add_tcase(s, quota_tcase());
	suite_add_tcase(s, num_tcase());
	suite_add_tcase(s, sort_tcase());
	TCase *tc = tcase_create("hugemem");
	tcase_add_test(tc, large_array_reused_without_new_faults);
	tcase_add_test(tc, fresh_array_in_huge_pages);
	tcase_add_test(tc, small_arrays_are_malloc_s);
	tcase_add_test(tc, threads_share_the_blocks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(common_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
