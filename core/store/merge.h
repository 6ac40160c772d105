/* Joining the shard files of one sweep into one results file. */
#ifndef VS_MERGE_H
#define VS_MERGE_H

#include <signal.h>
#include <stdint.h>

#include "common/error.h"
#include "common/status.h"

typedef struct vs_merge_summary {
	long long variants;  /* stored in the output */
	long long missing;   /* variants of the sweep not in any shard */
	int shards;          /* shard files read */
} vs_merge_summary;

/* Merges the files of one sweep into out, which must not exist. The files
 * are either all `run --shard K/N` files (shard record "K/N") or all part
 * files of `vsweep-mpi run` (shard record "part R": any variants, found by
 * index). Refuses files of different sweeps (any identity record other
 * than the shard differs, or a plugin build), the two kinds mixed, a shard
 * or part given twice, a variant held by two parts, and — unless
 * allow_partial — a missing shard, an incomplete one, a file a run is
 * still writing (its writer lock held: "is still being written by pid N"),
 * or (parts) a variant that no part holds. Each file is read in one
 * snapshot, taken when it is opened: a file still being written is merged
 * as it stood then, whole variants only. The output is written under a temporary name and
 * renamed into place only when complete, so out is never half-written.
 * Its stored rows are identical to a single run's of the same sweep: every
 * table is copied variant by variant in index order, as one writer
 * stores them. Temporary files of earlier merges into out whose process
 * is gone from this host (OUT.partial-PID, left by a SIGKILL) are removed.
 * Returns VS_RC_OK, or VS_RC_INPUT (the refusals above, out exists) /
 * VS_RC_IO with err set, or VS_RC_INTERRUPTED once vs_merge_stop is set:
 * the temporary file removed, out not written. */
vs_rc vs_merge(const char *out, const char *const *shards, int n_shards,
               int allow_partial, vs_merge_summary *sum, vs_error *err);

/* Set by a signal handler: vs_merge stops soon (between variants, or
 * inside a long SQLite statement) and returns VS_RC_INTERRUPTED. */
extern volatile sig_atomic_t vs_merge_stop;

/* Calls fn(ctx, i) for every variant index the results file at path
 * stores, ascending, until fn returns other than VS_RC_OK. Returns
 * VS_RC_OK, fn's outcome, or VS_RC_IO with err set when the file cannot
 * be opened or read. */
vs_rc vs_merge_each_variant(const char *path,
                            vs_rc (*fn)(void *ctx, uint64_t i), void *ctx,
                            vs_error *err);

#endif
