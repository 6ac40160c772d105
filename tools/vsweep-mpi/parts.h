/* The parts directory of a vsweep-mpi run (OUT.db.parts/rank-R.db) and
 * the plan of which variants are still to simulate. Rank 0 only. */
#ifndef VSMPI_PARTS_H
#define VSMPI_PARTS_H

#include <stdint.h>

#include "common/error.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "run/runner.h"

/* Which variants no part holds yet, handed out in ascending order. */
typedef struct mpi_plan {
	uint8_t *have;        /* bit i: variant i is stored in some part */
	uint64_t count;       /* the sweep's variants */
	uint64_t stored;      /* variants the parts held at the start */
	uint64_t cursor;      /* every index below it is stored or handed out */
	uint64_t remaining;   /* neither stored nor handed out */
	int n_parts;          /* part files found at the start */
} mpi_plan;

/* "OUT.parts": where the parts of a run into OUT go (caller frees). */
char *parts_dir(const char *out);

/* The path of rank r's part in dir (caller frees). */
char *parts_path(const char *dir, int rank);

/* The part files in dir, ordered by rank; *n 0 when dir is missing. The
 * caller frees each path and the array. Returns VS_RC_OK, or VS_RC_IO with
 * err set. */
vs_rc parts_list(const char *dir, char ***paths, int *n, vs_error *err);

/* Deletes the part files in dir (with their -wal/-shm) and dir itself
 * when then empty; other files are left alone. */
void parts_remove(const char *dir);

/* Before any rank writes: applies mode to OUT and its parts directory
 * (CREATE refuses either if present, OVERWRITE deletes both, RESUME
 * continues the parts), creates the directory, and fills plan with what
 * the parts hold, each part checked to belong to this run (o gives the
 * record options; the check is `vs_run --resume`'s). *complete is set when
 * OUT already is this run's finished result (RESUME): nothing to do.
 * Returns VS_RC_OK, or VS_RC_INPUT / VS_RC_IO with err set. */
vs_rc parts_prepare(const char *out, vs_store_mode mode,
                    const vs_scenario *seed, const vs_sweep *sw,
                    const vs_run_opts *o, mpi_plan *plan, int *complete,
                    vs_error *err);

/* Takes up to n of the variants still to simulate into idx; returns how
 * many. */
uint64_t plan_take(mpi_plan *plan, uint64_t n, uint64_t *idx);

void plan_finish(mpi_plan *plan);

#endif
