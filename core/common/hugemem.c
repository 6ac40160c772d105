/* Large arrays in huge pages, kept for reuse (hugemem.h).
 *
 * A block: VS_HUGE_PAGE-aligned, its first HEADER bytes hold its length;
 * the caller's array follows. Blocks are carved in order from one
 * reservation of RESERVE bytes of address space (PROT_NONE, nothing
 * committed until a block is made writable), so a pointer inside it is
 * ours. A block given back (beyond VS_HUGE_KEPT) returns its memory to
 * the kernel but not its addresses, which a run of 10^7 variants of
 * huge results could use up: then arrays come from malloc. */
#define _GNU_SOURCE /* MAP_NORESERVE, MADV_HUGEPAGE */
#include "common/hugemem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define VS_HUGE_OFF 1
#else
#define VS_HUGE_OFF 0
#endif

enum { HEADER = 64, FREE_MAX = 64 };
#define RESERVE ((size_t)64 << 30) /* bytes of addresses */
#define SMALL ((size_t)256 << 10)  /* bytes: below, malloc's arrays */

typedef struct header {
	size_t len; /* bytes of the block, header included */
} header;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *next; /* the first byte never carved */
/* The reservation, written once (under mu) and read without it: a
 * process forked while another thread held mu (a variant's child made
 * by a worker) frees its own malloc arrays without ever taking it. */
static _Atomic(uintptr_t) base, end;
static int reserve_failed;
static char *free_blocks[FREE_MAX];
static int n_free;
static size_t kept; /* bytes in free_blocks */

/* The reservation, made once (mu held). */
static int reserve(void)
{
	if (base)
		return 0; /* set before any block is carved */
	if (reserve_failed)
		return -1;
	char *raw = mmap(NULL, RESERVE + VS_HUGE_PAGE, PROT_NONE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		reserve_failed = 1;
		return -1;
	}
	uintptr_t a = ((uintptr_t)raw + VS_HUGE_PAGE - 1) / VS_HUGE_PAGE *
	              VS_HUGE_PAGE;
	next = (char *)a;
	end = a + RESERVE;
	base = a;
	return 0;
}

/* A block of at least len bytes (a multiple of VS_HUGE_PAGE), *fresh 1
 * if never used (zero already); NULL: none (mu held). */
static char *take(size_t len, int *fresh)
{
	int best = -1;
	for (int i = 0; i < n_free; i++) {
		size_t l = ((header *)(void *)free_blocks[i])->len;
		if (l >= len && (best < 0 ||
		                 l < ((header *)(void *)free_blocks[best])->len))
			best = i;
	}
	if (best >= 0) {
		char *b = free_blocks[best];
		free_blocks[best] = free_blocks[--n_free];
		kept -= ((header *)(void *)b)->len;
		*fresh = 0;
		return b;
	}
	if (reserve() || (size_t)((char *)end - next) < len)
		return NULL;
	char *b = next;
	if (mprotect(b, len, PROT_READ | PROT_WRITE))
		return NULL;
	(void)madvise(b, len, MADV_HUGEPAGE); /* a hint: may be refused */
	/* a process forked meanwhile (a variant's child made by a worker
	 * when the fork server is gone) gets it zeroed, not shared: the
	 * parent's next write is then no copy-on-write fault */
	(void)madvise(b, len, MADV_WIPEONFORK);
	next += len;
	((header *)(void *)b)->len = len;
	*fresh = 1;
	return b;
}

/* n elements of size bytes; zeroed if zero. */
static void *huge_alloc(size_t n, size_t size, int zero)
{
	if (VS_HUGE_OFF || n == 0 ||
	    size > (SIZE_MAX - HEADER - VS_HUGE_PAGE) / n || n * size < SMALL)
		return zero || (n && size > SIZE_MAX / n)
		               ? vs_xcalloc(n ? n : 1, size) /* checks n * size */
		               : vs_xrealloc(NULL, (n ? n : 1) * size);
	size_t bytes = n * size;
	size_t len = (bytes + HEADER + VS_HUGE_PAGE - 1) / VS_HUGE_PAGE *
	             VS_HUGE_PAGE;
	int fresh = 0;
	pthread_mutex_lock(&mu);
	char *b = take(len, &fresh);
	pthread_mutex_unlock(&mu);
	if (!b)
		return zero ? vs_xcalloc(n, size) : vs_xrealloc(NULL, bytes);
	if (!fresh && zero)
		memset(b + HEADER, 0, bytes);
	return b + HEADER;
}

void *vs_huge_calloc(size_t n, size_t size)
{
	return huge_alloc(n, size, 1);
}

void *vs_huge_alloc(size_t n, size_t size)
{
	return huge_alloc(n, size, 0);
}

void vs_huge_free(void *p)
{
	if (!p)
		return;
	uintptr_t at = (uintptr_t)p, lo = base, hi = end;
	if (!lo || at < lo || at >= hi) {
		free(p);
		return;
	}
	char *b = (char *)p - HEADER;
	pthread_mutex_lock(&mu);
	size_t len = ((header *)(void *)b)->len;
	if (n_free < FREE_MAX && kept + len <= VS_HUGE_KEPT) {
		free_blocks[n_free++] = b;
		kept += len;
		b = NULL;
	}
	pthread_mutex_unlock(&mu);
	/* its memory back to the kernel, its addresses kept (or, if the
	 * kernel cannot split the mapping, its memory at least) */
	if (b && mmap(b, len, PROT_NONE,
	              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
	              -1, 0) == MAP_FAILED)
		(void)madvise(b, len, MADV_DONTNEED);
}
