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

typedef struct vs_run_opts {
	const char *out;         /* results file */
	int jobs;                /* simulation threads, >= 1 */
	uint64_t shard_k, shard_n; /* run indices i with i % n == k */
	vs_store_mode mode;
	int record_every;        /* >= 1 */
	int no_wheels;           /* --record without wheels */
	const char *record;      /* what is stored, as given to --record */
	double variant_timeout;  /* s of wall time per variant; 0: none */
	int progress;            /* print a progress line to stderr */
	const char *resume_hint; /* the command line to print on interrupt */
} vs_run_opts;

typedef struct vs_run_summary {
	uint64_t total;          /* variants in this shard */
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

#endif
