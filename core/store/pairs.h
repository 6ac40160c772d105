/* The pair rows of a variant (table pair_row, view actor_pair) into the
 * results file: store.c's writer calls these inside its transaction. */
#ifndef VS_STORE_PAIRS_H
#define VS_STORE_PAIRS_H

#include <sqlite3.h>
#include <stdint.h>

#include "sim/result.h"
#include "store/batch.h"

/* The pair inserts, prepared persistent; SQLITE_OK or SQLite's code. */
int vs_store_pairs_prepare(sqlite3 *db, vs_batch *b);

/* Writes n pair rows of variant; SQLITE_DONE or SQLite's code. */
int vs_store_pairs_put(const vs_batch *b, uint64_t variant,
                       const vs_pair_row *rows, int64_t n);

#endif
