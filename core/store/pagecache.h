/* SQLite's page cache in memory the kernel may back with huge pages.
 *
 * A run's writer fills its page cache (VS_STORE_CACHE_KIB, 512 pages of
 * 16 KiB) as it starts, each page memory never touched before: about
 * 2 000 page faults in the first variants. So the cache's pages come from
 * one region of VS_PAGECACHE_SLOTS slots, 2 MiB-aligned and marked
 * MADV_HUGEPAGE: where transparent huge pages are on ("madvise" mode,
 * Debian's default) one fault maps 2 MiB; elsewhere it is ordinary
 * memory, as before. With the received results' arrays in huge pages too
 * (common/hugemem.h), a 300-variant benchmark run takes 5 500 page faults
 * instead of 10 000-12 000 and 2-4 % less CPU (docs/results.md). */
#ifndef VS_STORE_PAGECACHE_H
#define VS_STORE_PAGECACHE_H

enum { VS_PAGECACHE_SLOTS = 1024 }; /* pages of 16 KiB: the writer's 512,
                                       the checkpointer's, a reader's */

/* Gives SQLite the region (SQLITE_CONFIG_PAGECACHE). Call before SQLite
 * is initialised, once; if it was initialised already, or the region
 * cannot be had, nothing changes (SQLite allocates pages itself). */
void vs_pagecache_config(void);

#endif
