/* Simulating one variant in a child process, so that a plugin that
 * crashes, calls exit() or hangs inside a call costs that variant only
 * (contain.c says how). Used by the runner's workers when
 * vs_run_opts.contain is set. */
#ifndef VS_RUN_CONTAIN_H
#define VS_RUN_CONTAIN_H

#include "input/scenario.h"
#include "sim/sim.h"

/* vs_sim_run(variant, so, res) in a forked child, the result copied back.
 * Same contract as vs_sim_run: returns 0 with res filled (done, or failed
 * with the reason; a crash or exit() in the child is a failure starting
 * "crashed:", a hang past so->timeout + 1 s is killed and failed), or -1
 * when *so->stop was set (res then incomplete, not to be stored). res
 * comes in zeroed but for the fields the caller set (variant,
 * params_json), as for vs_sim_run. */
int vs_run_contained(const vs_scenario *variant, const vs_sim_opts *so,
                     vs_result *res);

#endif
