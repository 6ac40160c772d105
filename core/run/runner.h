/* Running a sweep: worker threads simulate, one writer stores in order
 * (runner.c says how, and what stays true while it runs). */
#ifndef VS_RUNNER_H
#define VS_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "common/error.h"
#include "common/status.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "plugin/registry.h"
#include "store/store.h"

/* State rows after which the writer commits, at the end of the variant
 * that reaches them (or after a second): what the WAL holds beyond its
 * restart bound (store/ckpt.h) while a run writes. */
#define VS_RUN_COMMIT_ROWS 50000

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
	int jobs;                /* simulation threads, >= 1 (plus the
	                          * calling thread, which writes) */
	uint64_t shard_k, shard_n; /* run indices i with i % n == k */
	vs_store_mode mode;
	int record_every;        /* >= 1 */
	int no_wheels;           /* --record without wheels */
	int no_map;              /* --record without map */
	int no_state;            /* --record summary: no state rows */
	int pairs;               /* --record pairs: pair rows ... */
	double pair_range;       /* ... within this reach (m; 0: default) */
	const char *record;      /* what is stored, as given to --record */
	double variant_timeout;  /* s of wall time per variant; 0: none */
	double lock_timeout;     /* vs_store_def.lock_timeout */
	int progress;            /* print a progress line to stderr */
	const char *resume_hint; /* the command line to print on interrupt */
	/* NULL: the shard's sequence, and a resumed file must hold its first
	 * variants. Otherwise the indices come from here, the shard fields
	 * are ignored and a resumed file may hold any variants. */
	const vs_index_source *source;
	const char *shard_label; /* the file's shard record; NULL: "K/N" */
	const char *signals;     /* vs_sim_opts.signals */
	int plugin_log;          /* vs_sim_opts.plugin_log */
	int contain;             /* each variant in a child process, so a
	                          * crashing plugin fails only it (contain.c) */
	const char *progress_note; /* said at the end of every progress line
	                              (why the run goes as it does), or NULL */
	long variant_memory;     /* MB a contained variant's process may grow
	                          * by; 0: physical RAM / (2 x jobs); < 0:
	                          * no limit */
} vs_run_opts;

typedef struct vs_run_summary {
	uint64_t total;          /* variants in this shard; with a source,
	                          * in the file when the run ended */
	uint64_t skipped;        /* already stored (resume) */
	uint64_t done, failed;   /* stored by this run */
	uint64_t crashed;        /* of the failed: "crashed:" (contain.c) */
	int64_t actor_steps;     /* simulated by this run */
	double seconds;          /* wall time of this run */
	int interrupted;
} vs_run_summary;

/* Set from a signal handler: stop cleanly. sig_atomic_t because a
 * handler writes it; threads only read it, and a stale read costs at most
 * one more poll (the runner's waits time out every 100 ms). */
extern volatile sig_atomic_t vs_run_stop;

/* s: the wall-time bound `vsweep check` gives a variant it runs to
 * calibrate an estimate when the run sets none (--variant-timeout): a
 * plugin that hangs would hold check for ever. */
#define VS_RUN_CALIBRATE_LIMIT 120.0

/* VS_RUN_CALIBRATE_LIMIT, or in a test build what
 * VSWEEP_TEST_CALIBRATE_LIMIT says (sim/test_hooks.h). */
double vs_run_calibrate_limit(void);

/* Runs the sweep into opts->out. Returns VS_RC_OK when the run went as far
 * as it could (vs_run_outcome then says whether variants failed or a stop
 * interrupted it), VS_RC_INPUT on an input problem (the file exists or is
 * another run's) or VS_RC_IO on an I/O or
 * internal failure, with err set. */
vs_rc vs_run(const vs_scenario *seed, const vs_sweep *sw,
             const vs_registry *reg, const vs_run_opts *opts,
             vs_run_summary *sum, vs_error *err);

/* The outcome of a run vs_run returned VS_RC_OK for: VS_RC_INTERRUPTED,
 * VS_RC_FAILED (some variants stored failed) or VS_RC_OK. */
vs_rc vs_run_outcome(const vs_run_summary *sum);

/* Opens the existing results file `path` as `vs_run --resume` with these
 * inputs and options would, checks that it belongs to this run (the same
 * identity checks and messages: scenario, sweep, record options, shard
 * record, plugin builds; a changed sweep is refused, never extended) and
 * closes it, its variants unchanged. Sets
 * *stored to the number of variants it stores. Returns VS_RC_OK,
 * VS_RC_INPUT (missing file or another run's) or VS_RC_IO, err set. */
vs_rc vs_run_check_file(const vs_scenario *seed, const vs_sweep *sw,
                        const vs_run_opts *opts, const char *path,
                        uint64_t *stored, vs_error *err);
/* The same, but a sweep that only adds variants is accepted, as
 * `vsweep run --resume` takes it: each stored variant must be the same
 * variant (params, label) of the new sweep, compared as vs_run compares
 * them and refused with its message; nothing is written. `vsweep check
 * --resume`. */
vs_rc vs_run_check_resume(const vs_scenario *seed, const vs_sweep *sw,
                          const vs_run_opts *opts, const char *path,
                          uint64_t *stored, vs_error *err);

#endif
