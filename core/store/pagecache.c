/* SQLite's page cache in huge pages (pagecache.h).
 *
 * The region lives as long as the process: SQLite may hold pages of it
 * in any connection until the end. Pages larger than a slot (a file of
 * 32 or 64 KiB pages) and pages past the last slot SQLite allocates
 * itself, as without the region. */
#define _GNU_SOURCE /* MAP_NORESERVE, MADV_HUGEPAGE */
#include "store/pagecache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <sqlite3.h>

#include "store/store.h"

enum { HUGE = 2 << 20 }; /* bytes: an x86-64 transparent huge page */

void vs_pagecache_config(void)
{
	int hdr = 0;
	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK ||
	    hdr < 0)
		return;
	/* a 16 KiB page and SQLite's header, 8-byte aligned */
	size_t page = (size_t)atoi(VS_STORE_PAGE_SIZE);
	size_t slot = (page + (size_t)hdr + 7) / 8 * 8;
	size_t len = (slot * VS_PAGECACHE_SLOTS + HUGE - 1) / HUGE * HUGE;
	/* a huge page more, to start on a 2 MiB boundary */
	char *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return;
	uintptr_t at = ((uintptr_t)raw + HUGE - 1) / HUGE * HUGE;
	char *p = (char *)at;
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + len, (size_t)(raw + HUGE - p));
	(void)madvise(p, len, MADV_HUGEPAGE); /* a hint: may be refused */
	/* SQLite writes a link into every slot as it is initialised, so the
	 * region is resident when a run forks its simulation server: shared
	 * with it, each page the writer then fills would be copied first (a
	 * copy-on-write fault per 4 KiB). A child gets the region zeroed
	 * instead (no simulation uses SQLite; one that did would find one
	 * free slot, then SQLite's own allocations). */
	(void)madvise(p, len, MADV_WIPEONFORK);
	if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, p, (int)slot,
	                   (int)VS_PAGECACHE_SLOTS) != SQLITE_OK)
		munmap(p, len);
}
