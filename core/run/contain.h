/* Simulating variants in a child process per worker, so that a plugin
 * that crashes, calls exit() or hangs inside a call costs that variant
 * only (contain.c says how). Used by the runner's workers when
 * vs_run_opts.contain is set. */
#ifndef VS_RUN_CONTAIN_H
#define VS_RUN_CONTAIN_H

#include "input/scenario.h"
#include "input/sweep.h"
#include "sim/sim.h"

/* One worker's child process (none until the first variant). */
typedef struct vs_contain vs_contain;

/* Where the workers' children are forked from (forkserver.h): a process
 * started while the run has one thread, so that no child inherits a
 * lock another thread held. so: the options every variant is simulated
 * with (its sink's flush and ctx are not used: only whether there is
 * one and its chunk size). NULL when the system refuses; then each
 * worker forks its child itself. */
typedef struct vs_contain_server vs_contain_server;
vs_contain_server *vs_contain_server_start(const vs_sweep *sw,
                                           const vs_scenario *seed,
                                           const vs_sim_opts *so);
/* Call after every vs_contain is destroyed; accepts NULL. */
void vs_contain_server_stop(vs_contain_server *s);

/* For a worker of a run of sw over seed, its child forked by server
 * (NULL: by the worker); never fails (without a child process, variants
 * run in this one, uncontained). memory_mb: how much the child may grow
 * (resident) before its variant fails; 0: no limit. */
vs_contain *vs_contain_create(vs_contain_server *server,
                              const vs_sweep *sw, const vs_scenario *seed,
                              long memory_mb);

/* Ends the child (call between variants); accepts NULL. */
void vs_contain_destroy(vs_contain *c);

/* vs_sim_run(variant, so, res) in the child, variant being variant
 * res->variant of the sweep, built by the caller too; the result copied
 * back. Same contract as vs_sim_run: returns 0 with res filled (done, or
 * failed with the reason; a crash or exit() in the child is a failure
 * starting "crashed:", a hang past so->timeout + 1 s is killed and
 * failed, both naming the plugin, actor and step they were in; past the
 * memory limit, failed "crashed: memory limit ..."),
 * what the child printed in res's log rows (level 4, 'output'), or -1
 * when *so->stop was set (res then incomplete, not to be stored). res comes in zeroed but for the fields the caller set
 * (variant, params_json), as for vs_sim_run; so must be the same for
 * every call on c, and the same as the server's. */
int vs_contain_run(vs_contain *c, const vs_scenario *variant,
                   const vs_sim_opts *so, vs_result *res);

#endif
