/* vs_sort_nearly (sort.h). */
#include "common/sort.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void vs_sort_nearly(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *))
{
	assert(size <= VS_SORT_MAX_SIZE);
	unsigned char *a = base, tmp[VS_SORT_MAX_SIZE];
	size_t moves = 0, most = 8 * n;
	for (size_t i = 1; i < n; i++) {
		/* element i goes before the run of greater ones before it */
		size_t j = i;
		while (j > 0 && cmp(a + (j - 1) * size, a + i * size) > 0)
			j--;
		if (j == i)
			continue;
		moves += i - j;
		if (moves > most) {
			qsort(base, n, size, cmp);
			return;
		}
		memcpy(tmp, a + i * size, size);
		memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
		memcpy(a + j * size, tmp, size);
	}
}
