/* Large, short-lived arrays in memory the kernel may back with huge
 * pages, kept for reuse rather than given back.
 *
 * Why: a run's parent receives every variant's rows (about 0.8 MB per
 * 2-actor variant of 2001 steps) into new arrays while up to
 * 4 x jobs + 2 results wait for the writer. malloc hands out fresh pages
 * for them as a run starts: about 3 500 page faults, a third of a
 * 300-variant run's. Blocks here are 2 MiB-aligned and marked
 * MADV_HUGEPAGE (one fault per 2 MiB where transparent huge pages are on,
 * as in Debian's default "madvise" mode), and a freed block waits for the
 * next array that fits it: 5 faults for a fresh 8 MiB array instead of
 * 2 048, none for a reused one.
 *
 * Invariants: blocks are carved from one reserved address range, so
 * vs_huge_free knows its own pointers from malloc's; a block is whole
 * multiples of VS_HUGE_PAGE; at most VS_HUGE_KEPT bytes of freed blocks
 * are kept, the rest given back. Thread-safe. Under AddressSanitizer
 * every call is malloc's, so that its checks cover these arrays too. */
#ifndef VS_COMMON_HUGEMEM_H
#define VS_COMMON_HUGEMEM_H

#include <stddef.h>

#define VS_HUGE_PAGE ((size_t)2 << 20)  /* bytes */
#define VS_HUGE_KEPT ((size_t)256 << 20) /* bytes of free blocks kept */

/* n elements of size bytes, zeroed (calloc's contract; exits on
 * exhaustion like vs_xcalloc). */
void *vs_huge_calloc(size_t n, size_t size);

/* The same, not zeroed (malloc's contract), for an array about to be
 * written whole: zeroing a reused block would be a pass over it for
 * nothing. */
void *vs_huge_alloc(size_t n, size_t size);

/* Frees p: a block of vs_huge_calloc or vs_huge_alloc, or anything malloc gave (then
 * free(p)); NULL is nothing. */
void vs_huge_free(void *p);

#endif
