/* Huge pages for the map's large arrays (map_internal.h, map_huge): a
 * lookup on a city-sized map reads a handful of records scattered over a
 * hundred megabytes; with 4 KiB pages nearly every one of those reads
 * also misses the TLB, and its page walk costs about as much as the read.
 * Transparent huge pages (2 MiB) cover such a map with a few dozen TLB
 * entries. Where the system has none (or says no), the arrays stay as
 * they were: only speed depends on it, never a result. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "map/map_internal.h"

#define HUGE_PAGE ((size_t)2 << 20) /* bytes */

void *map_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	/* below a few pages the TLB copes, and rounding up would waste */
	if (!p || bytes < 4 * HUGE_PAGE)
		return p;
	size_t size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	void *q = aligned_alloc(HUGE_PAGE, size);
	if (!q)
		return p; /* keep the small pages */
	(void)madvise(q, size, MADV_HUGEPAGE); /* a hint; failure is fine */
	memcpy(q, p, bytes);
	free(p);
	return q;
#else
	(void)bytes;
	return p;
#endif
}
