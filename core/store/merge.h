/* Joining the shard files of one sweep into one results file. */
#ifndef VS_MERGE_H
#define VS_MERGE_H

#include "common/error.h"

typedef struct vs_merge_summary {
	long long variants;  /* stored in the output */
	long long missing;   /* variants of the sweep not in any shard */
	int shards;          /* shard files read */
} vs_merge_summary;

/* Merges shard files (from `run --shard K/N`) into out, which must not
 * exist. Refuses shards of different sweeps (any identity record other
 * than the shard differs, or a plugin build), a shard given twice, and —
 * unless allow_partial — a missing shard or an incomplete one. The output
 * is written under a temporary name and renamed into place only when
 * complete, so out is never half-written. Its stored rows are identical to
 * a single run's of the same sweep. Returns 0, or -1 (bad input) / -2
 * (I/O) with err set. */
int vs_merge(const char *out, const char *const *shards, int n_shards,
             int allow_partial, vs_merge_summary *sum, vs_error *err);

#endif
