/* Simulating one variant: the stepping loop of docs/conventions.md. */
#ifndef VS_SIM_H
#define VS_SIM_H

#include <signal.h>
#include <stdint.h>

#include "input/scenario.h"
#include "sim/result.h"

typedef struct vs_sim_opts {
	int record_every;          /* store steps whose index is a multiple */
	volatile sig_atomic_t *stop; /* polled; nonzero aborts (may be NULL) */
	double timeout;            /* s of wall time per variant; 0: none */
	int no_wheels;             /* store no wheel geometry or rolling */
	int no_map;                /* store no map location */
	/* Plugin outputs to store: NULL none, "*" all, else a comma list of
	 * "plugin.output" names. */
	const char *signals;
	/* Plugin messages at or above this level are stored and printed
	 * (rate-limited): VS_SIM_LOG_DEFAULT (warning), or a vs_log_level
	 * plus 1 (so that a zeroed opts means the default). */
	int plugin_log;
	/* --record summary: no state (nor signal) rows at all; the map
	 * still serves the summary's lane KPIs. */
	int no_state;
	/* --record pairs: pair rows (actor_pair) at each recorded step for
	 * the actors whose footprints are at most pair_range apart (m;
	 * 0: VS_PAIR_RANGE_DEFAULT). */
	int pairs;
	double pair_range;
	/* Where rows go while the variant runs (NULL: they all stay in the
	 * result until it returns); see vs_row_sink. */
	const struct vs_row_sink *sink;
} vs_sim_opts;

/* m: the default reach of the pair rows. */
#define VS_PAIR_RANGE_DEFAULT 50.0

enum { VS_SIM_LOG_DEFAULT = 0, VS_SIM_LOG_NONE = 99 };

/* The plugin call this thread is inside, for crash containment's
 * handlers (run/contain.c) to name the actor whose instance faulted: two
 * actors using one plugin run the same code, which a stack cannot tell
 * apart. 0: none; else 1 + 2 * the actor's index in the scenario + the
 * role (0 vehicle model, 1 behaviour). Set before every call into a
 * plugin and cleared after it; thread-local (workers simulate variants
 * side by side) and a volatile sig_atomic_t, so that a handler running
 * on this thread reads it safely. */
extern _Thread_local volatile sig_atomic_t vs_sim_calling;

/* The step this thread is simulating, for the same handlers to name it
 * exactly whatever --record-every stores: 1 + the step index, 0 when
 * none is under way yet (or past INT_MAX), -1 once the steps are over
 * (destroy). Set once per step. */
extern _Thread_local volatile sig_atomic_t vs_sim_step;

/* Where vs_sim_calling and vs_sim_step are copied as they change (two
 * values, [0] and [1]), or NULL: a contained child points it into the
 * memory it shares with its parent, which can then name the call even
 * when the child died with no word. Set before any variant runs. */
extern volatile sig_atomic_t *vs_sim_mirror;

/* The host-services table handed to every plugin at entry. */
const vs_host *vs_sim_host(void);

/* Streaming a long variant: when the state, signal and pair rows a result
 * holds reach chunk_bytes (checked after each recorded step, so a chunk
 * is whole steps), the simulator calls flush, which takes them: on return
 * res->n_rows, res->n_signals and res->n_pairs are 0 (the arrays kept for reuse, or
 * taken: then NULL with capacity 0). Whatever else the result holds
 * (actors, events, summary, logs, signal names) stays. flush returns 0,
 * or -1 to stop the variant as opts->stop would. The time flush takes
 * (waiting for the writer) does not count toward opts->timeout: it is
 * not the variant's. Memory per variant is then bounded by chunk_bytes
 * whatever its length (run/runner.c). */
typedef struct vs_row_sink {
	int (*flush)(void *ctx, vs_result *res);
	void *ctx;
	size_t chunk_bytes; /* bytes of rows held before a flush, > 0 */
} vs_row_sink;

/* Simulates a bound variant scenario into res (which the caller zeroed and
 * set variant/params_json on). A plugin error or a non-finite state marks
 * res failed with the reason ("actor ID (NAME): PLUGIN: message") and keeps
 * the rows recorded before it (with a sink, partly flushed already).
 * Returns 0, or -1 when stopped by opts->stop or by the sink (res is then
 * incomplete and must not be stored). */
int vs_sim_run(const vs_scenario *scn, const vs_sim_opts *opts,
               vs_result *res);

#endif
