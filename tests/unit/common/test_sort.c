/* vs_sort_nearly (common/sort.c): arrays in order, nearly in order (a few
 * neighbours swapped, one element moved far), reversed and shuffled,
 * of 0 to 2000 elements of two sizes, come out as qsort sorts them; the
 * order is total (an index breaks ties), so there is one answer. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"

TCase *sort_tcase(void);

typedef struct item {
	double key;
	int idx;
} item;

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Arrangement `how` of n items: 0 in order, 1 nearly, 2 reversed,
 * 3 shuffled, 4 one far out of place; keys repeat (ties). */
static void arrange(item *a, int n, int how)
{
	for (int i = 0; i < n; i++)
		a[i] = (item){(double)(i / 3), i};
	if (how == 1)
		for (int k = 0; k + 1 < n; k += 7) {
			item t = a[k];
			a[k] = a[k + 1];
			a[k + 1] = t;
		}
	if (how == 2)
		for (int i = 0; i < n / 2; i++) {
			item t = a[i];
			a[i] = a[n - 1 - i];
			a[n - 1 - i] = t;
		}
	if (how == 3)
		for (int i = n - 1; i > 0; i--) {
			int j = (int)(next() % (uint64_t)(i + 1));
			item t = a[i];
			a[i] = a[j];
			a[j] = t;
		}
	if (how == 4 && n > 1) { /* the last first */
		item t = a[n - 1];
		memmove(a + 1, a, (size_t)(n - 1) * sizeof *a);
		a[0] = t;
	}
}

START_TEST(sorts_as_qsort_does)
{
	const int sizes[] = {0, 1, 2, 3, 17, 200, 2000};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int how = 0; how < 5; how++) {
			int n = sizes[s];
			item *a = calloc((size_t)n + 1, sizeof *a);
			item *b = calloc((size_t)n + 1, sizeof *b);
			arrange(a, n, how);
			memcpy(b, a, (size_t)n * sizeof *a);
			vs_sort_nearly(a, (size_t)n, sizeof *a, item_cmp);
			qsort(b, (size_t)n, sizeof *b, item_cmp);
			for (int i = 0; i < n; i++)
				ck_assert_msg(a[i].idx == b[i].idx,
				              "n %d, arrangement %d, at %d", n,
				              how, i);
			free(a);
			free(b);
		}
	/* ints, a smaller element */
	int v[500];
	for (int i = 0; i < 500; i++)
		v[i] = (int)(next() % 100000u) * 500 + i; /* distinct */
	vs_sort_nearly(v, 500, sizeof *v, int_cmp);
	for (int i = 1; i < 500; i++)
		ck_assert_int_lt(v[i - 1], v[i]);
}
END_TEST

TCase *sort_tcase(void)
{
	TCase *tc = tcase_create("sort");
	tcase_add_test(tc, sorts_as_qsort_does);
	return tc;
}
