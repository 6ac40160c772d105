/* vsweep-mpi's work queue over MPI.
 *
 * Rank 0 coordinates and also simulates: it knows which variants the
 * parts directory lacks (mpi_plan) and hands them out on request. Every
 * rank runs vs_run on its own part file, OUT.db.parts/rank-R.db, in a
 * thread of its own, fed by a local queue (mpi_queue); the main thread
 * does all MPI calls (MPI_THREAD_FUNNELED), polling with short sleeps so
 * that a waiting rank does not spin a core its simulation threads need.
 *
 * Messages (all MPI_INT64_T, to and from rank 0):
 *   ASK  r -> 0   {want}            when r's queue runs below its threads
 *   WORK 0 -> r   {i1, ..., in}     n <= want; n = 0: nothing more, ever
 *   DONE r -> 0   {rc, done, failed, actor_steps, interrupted, crashed}
 * A rank has at most one ASK outstanding; it sends DONE after its runner
 * returned and its last ASK was answered; rank 0 merges once it has every
 * DONE. A chunk is at most --chunk variants (default 8) and shrinks to
 * one near the end (remaining / (2 ranks)), so long and short variants
 * balance. Indices go out ascending, each once, so no variant is
 * simulated twice; which rank simulated one does not matter: the merge
 * takes each variant from whichever part holds it. */
#ifndef VSMPI_RUN_H
#define VSMPI_RUN_H

#include <stdint.h>

#include "parts.h"
#include "plugin/registry.h"
#include "run/runner.h"

/* What one rank did (rank 0: all of them, added up). */
typedef struct mpi_tally {
	int64_t rc;           /* worst vs_run outcome, a vs_rc (int64 in
	                       * the DONE message) */
	int64_t done, failed, actor_steps;
	int64_t interrupted;  /* some rank stopped before its work ran out */
	int64_t crashed;      /* of the failed: "crashed:" (contain.c) */
} mpi_tally;

typedef struct mpi_ctx {
	int rank, size;
	int jobs;             /* this rank's simulation threads */
	int chunk;            /* most variants per WORK message */
	const vs_scenario *seed;
	const vs_sweep *sw;
	const vs_registry *reg;
	vs_run_opts opts;     /* out: this rank's part */
	mpi_plan *plan;       /* rank 0 only */
} mpi_ctx;

/* Runs this rank's share until the sweep has no more work for it, then
 * (rank 0) waits for every other rank. Fills tally: this rank's own, or
 * on rank 0 the sum over ranks. Errors of this rank's runner are printed
 * here. Returns 0, or -1 if the launcher died (the rank should exit at
 * once, without MPI). */
int mpi_run(mpi_ctx *c, mpi_tally *tally);

#endif
