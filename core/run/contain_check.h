/* What crash containment's parent checks in a child's result before it
 * uses it (contain_check.c says why). Used by contain_child.c (the
 * indices it sends) and contain_receive.c (the checks) only. */
#ifndef VS_RUN_CONTAIN_CHECK_H
#define VS_RUN_CONTAIN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "input/scenario.h"
#include "plugin/registry.h"
#include "sim/result.h"

/* Child side: the index that travels instead of a log row's plugin name
 * in variant v (an event row's kind travels as vs_event_kind_index's);
 * -1 when it is none of the known ones (the parent then fails the
 * variant). A plugin name's pointer is compared, not read (a scribbled
 * one is not followed); a kind is read (a static string: a wild one
 * faults the child, a crash as any). */
int32_t vs_contain_plugin_index(const vs_scenario *v, const char *name);

/* How the plugin table names lp, into plugin[size]: the descriptor's
 * name, or for an FMU "fmu:NAME.fmu" (every FMU runs through the one
 * adapter descriptor "fmu"). */
void vs_contain_plugin_label(const vs_loaded_plugin *lp, char *plugin,
                             size_t size);

/* The actor of variant v whose plugin call sim.h's vs_sim_calling value
 * call names (1 + 2 * actor index + 1 for its behaviour), its plugin's
 * label in plugin[size]; -1 when call names none. Both sides: the child
 * from its own call, the parent from the call the child mirrored. */
int vs_contain_call_actor(const vs_scenario *v, int call, char *plugin,
                          size_t size);

/* Parent side: whether counts from a result's header fit variant v
 * before anything is allocated for them; NULL, or what is wrong. */
const char *vs_contain_check_counts(const vs_scenario *v, int n_actors,
                                    int n_wheels, int64_t n_rows,
                                    int64_t n_events, int n_signal_names,
                                    int64_t n_signals, int64_t n_pairs,
                                    int64_t n_logs, int64_t n_logs_kept);

/* Parent side: checks a chunk of rows (part) of variant v; *last_step:
 * the last step of the rows seen so far (-1: none), moved on. 0, or -1
 * with what is wrong in why[size]. */
int vs_contain_check_part(const vs_scenario *v, const vs_result *part,
                          int64_t *last_step, char *why, size_t size);

/* Parent side: checks the whole result res of variant v (its chunks
 * checked already up to *last_step) and puts the parent's own pointers
 * in place of the child's: actor rows' strings from v, event kinds and
 * log rows' plugin names from kinds[n_events] and plugins[n_logs kept].
 * 0, or -1 with what is wrong in why[size] (res then to be dropped). */
int vs_contain_check(const vs_scenario *v, vs_result *res,
                     const int32_t *kinds, const int32_t *plugins,
                     int64_t n_logs_kept, int64_t *last_step, char *why,
                     size_t size);

#endif
