/* A run's record in its results file (run_record.c): what vs_run and
 * vs_run_check_file write and check. Internal to core/run. */
#ifndef VS_RUN_RECORD_H
#define VS_RUN_RECORD_H

#include "run/runner.h"

/* A vs_store_def of this run and the storage its strings live in. */
typedef struct vs_run_record {
	vs_store_def def;
	vs_plugin_row plugins[64];
	char digests[64][17];
	char names[64][256];
	char shard[64];
} vs_run_record;

/* What the results file of this run at path records about it (which of
 * it is identity is store/record.c's to say); never fails. */
void vs_run_build_record(vs_run_record *rec, const vs_scenario *seed,
                         const vs_sweep *sw, const vs_run_opts *o,
                         const char *path, vs_store_mode mode);

/* Resumed with another sweep: every stored variant must be the same
 * variant of this sweep (same params and label), which then becomes the
 * file's sweep (sweep_text, variant_count, sweep_path). Removes the
 * crash journal of a file made from nothing or extended (journal.c).
 * VS_RC_OK, VS_RC_INPUT when one is not, VS_RC_IO; err set. */
vs_rc vs_run_check_extension(const vs_scenario *seed, const vs_sweep *sw,
                             const vs_run_record *rec, vs_store *st,
                             vs_error *err);

/* Stores each actor's plugin parameters with their units (table
 * actor_param), unless the file has them (a resume). */
vs_rc vs_run_store_actor_params(const vs_scenario *seed, vs_store *st,
                                vs_error *err);

/* Stores the map's lanes, so that map_location can name them. */
vs_rc vs_run_store_lanes(const vs_scenario *seed, vs_store *st,
                         vs_error *err);

#endif
