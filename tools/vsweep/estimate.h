/* `vsweep check`'s estimate of the results file's size and the run's
 * duration (cli_estimate.c). */
#ifndef VS_CLI_ESTIMATE_H
#define VS_CLI_ESTIMATE_H

#include "input/scenario.h"
#include "input/sweep.h"
#include "plugin/registry.h"
#include "run/runner.h"

/* Prints the estimate for base's recording, calibrated on runs of
 * variants spread over the shard into a scratch directory (silent when that fails),
 * and the free space where base->out goes for the variants the run
 * adds: the shard's (base->shard_k, shard_n) less the stored ones that a
 * file to --resume holds. Returns -1 when the file
 * cannot fit there (said on stderr), 1 when a variant of the calibration
 * failed (its reason printed as a run prints it), else 0. */
int cli_estimate(const vs_scenario *scn, const vs_sweep *sw,
                  vs_registry *reg, const vs_run_opts *base, int jobs,
                  uint64_t stored);

/* The same for a drill-down's n chosen variants (indices, ascending, as
 * --variants and --variants-from give them): the run makes a new file of
 * them alone. */
int cli_estimate_chosen(const vs_scenario *scn, const vs_sweep *sw,
                        vs_registry *reg, const vs_run_opts *base, int jobs,
                        const uint64_t *chosen, uint64_t n);

#endif
