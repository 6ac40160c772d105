/* What merge.c (the order of the variants, the output file), merge_rows.c
 * (each input's reads, a variant's rows) and merge_record.c (the sweep
 * record, signal names and units) share: the output's insert statements
 * and each input's reads. Private to core/store's merge. */
#ifndef VS_MERGE_INTERNAL_H
#define VS_MERGE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/error.h"
#include "common/status.h"
#include "store/merge_inputs.h"

/* SQL: whether sqlite_master row m is a table with a variant_id column
 * (qualified: inside pragma_table_info, a bare `name` is its own). */
#define HAS_VARIANT_ID \
	"EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS p WHERE p.name " \
	"= 'variant_id')"

/* A table copied variant by variant: it has a variant_id column. Found
 * in the schema rather than listed, so a table added to it is merged
 * without touching the merge's code. `variant` and `state` are handled
 * apart: state, the bulk of the file, is copied inside SQLite when it
 * can be, and the variant row goes last, as the writer stores it. */
typedef struct vtable {
	char *name;
	int n_cols;
	int vcol;                /* variant_id's column, 0.. */
	sqlite3_stmt *ins;       /* into the output */
} vtable;

typedef struct copier {
	sqlite3 *out;
	const char *tmp;
	vtable *t;
	int n_t;
	sqlite3_stmt *ins_state, *ins_variant;
	int n_state_cols, n_variant_cols;
} copier;

typedef struct stmts {       /* one shard's reads */
	sqlite3_stmt *variant, *state;
	/* On the output's connection, the shard attached: copies a variant's
	 * state rows inside SQLite, ~3x cheaper than row by row through the
	 * API.
	 * NULL when the shards outnumber SQLite's attach limit. */
	sqlite3_stmt *state_in;
	sqlite3_stmt **rows;     /* per vtable: WHERE variant_id = ? */
	/* Per vtable with rowids, when the shard stores its rows in variant
	 * order (as vsweep writes them): rowid, then the row, from *next on;
	 * each variant's rows are read once, where its WHERE would read the
	 * whole table (event, signal and log rows of files written before
	 * their variant_id index). NULL: read by rows[]. */
	sqlite3_stmt **after;
	int64_t *next;           /* the first rowid not yet copied */
	/* The same inside SQLite, on the output's connection with the shard
	 * attached (as state_in): the first rowid of a later variant, and
	 * the copy of the rows before it; for a table keyed by variant_id,
	 * end_in NULL and copy_in its key range. NULL when not attached. */
	sqlite3_stmt **end_in, **copy_in;
	int n_rows;
} stmts;

/* sql run on db, the file at path; VS_RC_IO and err on failure
 * (merge.c). */
vs_rc merge_exec(sqlite3 *db, const char *path, const char *sql,
		 vs_error *err);

/* Reads the output's schema into c and prepares its inserts
 * (merge_rows.c); merge_finish_copier frees them. */
vs_rc merge_setup_copier(copier *c, vs_error *err);
void merge_finish_copier(copier *c);

/* Prepares shard s's reads into q (merge_rows.c); merge_finalize_shard
 * frees them. */
vs_rc merge_prepare_shard(shard *s, const copier *c, stmts *q, vs_error *err);
void merge_finalize_shard(shard *s, stmts *q);

/* Attaches shard i to the output's connection for the copy of its rows
 * inside SQLite (merge_rows.c). */
vs_rc merge_attach_shard(copier *c, const shard *s, int i, stmts *q,
			 vs_error *err);

/* Copies variant i from q's file: 0 when copied, 1 when the file lacks
 * it, -1 on a SQLite failure (merge_rows.c). */
int merge_copy_variant(copier *c, stmts *q, long long i);

/* The tables without a variant_id, the signal names with their units,
 * and the merged file's own shard record and file id (merge_record.c). */
vs_rc merge_copy_sweep_record(copier *c, shard *s, int n, vs_error *err);

#endif
