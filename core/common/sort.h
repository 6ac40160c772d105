/* Sorting arrays that were sorted a step ago and have changed a little
 * since: the actors by lane and position, or by grid cell, from one
 * simulation step to the next (actors keep their places in traffic). */
#ifndef VS_COMMON_SORT_H
#define VS_COMMON_SORT_H

#include <stddef.h>

/* The largest element vs_sort_nearly takes, in bytes. */
#define VS_SORT_MAX_SIZE 64

/* Sorts the n elements of `size` bytes (at most VS_SORT_MAX_SIZE) at
 * base by cmp, by insertion, which costs about n comparisons when they
 * are nearly in order; past 8 n moves (the order shuffled) qsort sorts
 * them instead. With cmp a total order (no two elements equal), either
 * way gives the one order cmp defines. */
void vs_sort_nearly(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *));

#endif
