/* A hash index from keys to entry numbers (0..n-1), for the lookups a
 * behaviour's host calls make by name many times per actor and step: a
 * lane by UUID, a lane by (road, lane section, lane id), an OpenDRIVE
 * road or junction by id. A scan or a binary search costs one comparison
 * per entry or per doubling of them; on a map of thousands of lanes that
 * was most of the simulation's time for lane-following traffic.
 *
 * Open addressing over a power-of-two table of at least twice the
 * entries, probed linearly. Each slot holds entry + 1 (0: empty) in its
 * low half and the high half of the key's hash in the other, so a probe
 * passes over other keys' slots without comparing them. Entries are
 * added in ascending order and an entry equal to one already there is
 * not added: a lookup finds the lowest of equal entries, as a scan in
 * order would. Read-only once built, so threads may share it. */
#ifndef VS_MAP_HIDX_H
#define VS_MAP_HIDX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define HIDX_TAG 0xffffffff00000000u

typedef struct map_hidx {
	uint64_t *slots; /* mask + 1 of them; NULL: no entries */
	size_t mask;
} map_hidx;

/* A table for n entries (none for n <= 0). */
static inline void map_hidx_init(map_hidx *t, int n)
{
	t->slots = NULL;
	t->mask = 0;
	if (n <= 0)
		return;
	size_t size = 16;
	while (size < 2 * (size_t)n)
		size *= 2;
	t->slots = vs_xcalloc(size, sizeof *t->slots);
	t->mask = size - 1;
}

static inline void map_hidx_free(map_hidx *t)
{
	free(t->slots);
	t->slots = NULL;
}

/* Mixes 64 bits into h (a multiply and a shift: the low bits, which pick
 * the slot, depend on every bit of w). */
static inline uint64_t map_hidx_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdu;
	return h ^ (h >> 29);
}

/* The hash of len bytes at s: 8 at a time, the last 8 overlapping. */
static inline uint64_t map_hidx_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ len, w;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, sizeof w);
		h = map_hidx_mix(h, w);
	}
	if (i < len && len >= 8) {
		memcpy(&w, s + len - 8, sizeof w);
		h = map_hidx_mix(h, w);
	} else {
		for (; i < len; i++)
			h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	}
	return h ^ (h >> 32);
}

/* The first slot to probe for hash h, and the next after slot k. */
static inline size_t map_hidx_home(const map_hidx *t, uint64_t h)
{
	return (size_t)h & t->mask;
}

static inline size_t map_hidx_next(const map_hidx *t, size_t k)
{
	return (k + 1) & t->mask;
}

/* The entry in slot k whose hash is h: its number, -1 for an empty slot
 * (the key is not there), -2 for another key's slot (probe on). */
static inline int64_t map_hidx_at(const map_hidx *t, size_t k, uint64_t h)
{
	uint64_t at = t->slots[k];
	if (!at)
		return -1;
	if ((at & HIDX_TAG) != (h & HIDX_TAG))
		return -2;
	return (int64_t)(at & ~HIDX_TAG) - 1;
}

/* Puts entry i with hash h into the empty slot k. */
static inline void map_hidx_put(map_hidx *t, size_t k, uint64_t h, int i)
{
	t->slots[k] = (h & HIDX_TAG) | (uint64_t)(i + 1);
}

#endif
