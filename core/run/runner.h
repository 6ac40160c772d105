/* Running a sweep: OpenMP workers simulate, one writer stores in order. */
#ifndef VS_RUNNER_H
#define VS_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "common/error.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "plugin/registry.h"
#include "store/store.h"

/* Where a run's variant indices come from when they are not the shard's
 * sequence k, k + n, k + 2n, ... (vsweep-mpi hands them out over MPI).
 * next() stores the next index to simulate in *i and returns 1, or returns
 * 0 when none will come; it may block until it knows, and should return 0
 * soon after vs_run_stop is set. Calls never overlap (the runner
 * serialises them) but come from any of its threads; the writer stores
 * the variants in the order next() yielded them. An index must be below
 * the sweep's count and not yet in the results file: the file refuses a
 * variant twice (an I/O error that stops the run). */
typedef struct vs_index_source {
	int (*next)(void *ctx, uint64_t *i);
	void *ctx;
} vs_index_source;

typedef struct vs_run_opts {
	const char *out;         /* results file */
	int jobs;                /* simulation threads, >= 1 */
	uint64_t shard_k, shard_n; /* run indices i with i % n == k */
	vs_store_mode mode;
	int record_every;        /* >= 1 */
	int no_wheels;           /* --record without wheels */
	int no_map;              /* --record without map */
	const char *record;      /* what is stored, as given to --record */
	double variant_timeout;  /* s of wall time per variant; 0: none */
	int progress;            /* print a progress line to stderr */
	const char *resume_hint; /* the command line to print on interrupt */
	/* NULL: the shard's sequence, and a resumed file must hold its first
	 * variants. Otherwise the indices come from here, the shard fields
	 * are ignored and a resumed file may hold any variants. */
	const vs_index_source *source;
	const char *shard_label; /* the file's shard record; NULL: "K/N" */
	const char *signals;     /* vs_sim_opts.signals */
	int plugin_log;          /* vs_sim_opts.plugin_log */
} vs_run_opts;

typedef struct vs_run_summary {
	uint64_t total;          /* variants in this shard; with a source,
	                          * in the file when the run ended */
	uint64_t skipped;        /* already stored (resume) */
	uint64_t done, failed;   /* stored by this run */
	int64_t actor_steps;     /* simulated by this run */
	double seconds;          /* wall time of this run */
	int interrupted;
} vs_run_summary;

/* Set from a signal handler: stop cleanly. */
extern volatile sig_atomic_t vs_run_stop;

/* Runs the sweep into opts->out. Returns 0 on success (check the summary
 * for failed variants and interruption), -1 on an input problem (err set,
 * exit 2), -2 on an I/O or internal failure (err set, exit 3). */
int vs_run(const vs_scenario *seed, const vs_sweep *sw,
           const vs_registry *reg, const vs_run_opts *opts,
           vs_run_summary *sum, vs_error *err);

/* Opens the existing results file `path` as `vs_run --resume` with these
 * inputs and options would, checks that it belongs to this run (the same
 * identity checks and messages: scenario, sweep, record options, shard
 * record, plugin builds) and closes it, its variants unchanged. Returns
 * the number of variants it stores, or -1 (missing file or another run's:
 * err set, exit 2) or -2 (I/O, err set, exit 3). */
int64_t vs_run_check_file(const vs_scenario *seed, const vs_sweep *sw,
                          const vs_run_opts *opts, const char *path,
                          vs_error *err);

#endif
