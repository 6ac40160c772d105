/* Rows written several to an INSERT (batch.c): one statement that writes
 * n rows costs SQLite one VDBE program run (its start, transaction check,
 * cursor opening and halt) instead of n. Used for the pair and signal
 * rows; the state rows, the bulk, have their own three sizes (store.c). */
#ifndef VS_STORE_BATCH_H
#define VS_STORE_BATCH_H

#include <sqlite3.h>
#include <stdint.h>

/* "INSERT OR FAIL INTO table VALUES (?,..),.." with rows tuples of cols
 * parameters. Caller frees.
 *
 * OR FAIL, not SQLite's default ABORT: a statement that writes several
 * rows and may abort halfway keeps a statement journal, a copy of every
 * page it changes that was already in the transaction, so that an abort
 * can undo its first rows. Appending at the b-tree's right edge, each
 * INSERT changed two or three such pages: 16 KiB copies each, in 1 KiB
 * pieces malloc'd (1 700 allocations a variant of tools/bench/bench.yaml,
 * 3 % of a run's instructions). A failed insert (a key already stored,
 * a bug) still fails, and the store then rolls the whole transaction
 * back, its first rows with it. */
char *vs_store_insert_sql(const char *table, int cols, int rows);

/* The inserts of one table: s[0] writes per rows, s[1] one. */
typedef struct vs_batch {
	sqlite3_stmt *s[2];
	int per;  /* rows of s[0] */
	int cols; /* parameters per row */
} vs_batch;

/* Prepares b's statements (persistent); SQLITE_OK or SQLite's code. */
int vs_batch_prepare(sqlite3 *db, const char *table, int cols, int per,
                     vs_batch *b);
void vs_batch_finalize(vs_batch *b);

/* Binds row i of the caller's rows to parameters base + 1 .. base + cols
 * of s. */
typedef void (*vs_batch_bind)(sqlite3_stmt *s, int base, int64_t i,
                              const void *ctx);

/* Writes rows 0 .. n - 1, in that order (a rowid table numbers them so),
 * per at a time, the rest one by one; SQLITE_DONE or SQLite's code. */
int vs_batch_put(const vs_batch *b, int64_t n, vs_batch_bind bind,
                 const void *ctx);

#endif
