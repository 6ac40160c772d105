/* Simulating one variant: the stepping loop of DESIGN.md. */
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
} vs_sim_opts;

/* m: the default reach of the pair rows. */
#define VS_PAIR_RANGE_DEFAULT 50.0

enum { VS_SIM_LOG_DEFAULT = 0, VS_SIM_LOG_NONE = 99 };

/* The host-services table handed to every plugin at entry. */
const vs_host *vs_sim_host(void);

/* Simulates a bound variant scenario into res (which the caller zeroed and
 * set variant/params_json on). A plugin error or a non-finite state marks
 * res failed with the reason ("actor ID (NAME): PLUGIN: message") and keeps
 * the rows recorded before it. Returns 0, or -1 when stopped by opts->stop
 * (res is then incomplete and must not be stored). */
int vs_sim_run(const vs_scenario *scn, const vs_sim_opts *opts,
               vs_result *res);

#endif
