/* The pair rows of a variant (table pair_row, view actor_pair) into the
 * results file: store.c's writer calls these inside its transaction. */
#ifndef VS_STORE_PAIRS_H
#define VS_STORE_PAIRS_H

#include <sqlite3.h>
#include <stdint.h>

#include "sim/result.h"

/* "INSERT INTO table VALUES (?,..),.." with rows tuples of cols
 * parameters: one statement that writes several rows costs SQLite one
 * VDBE program run instead of one per row. Caller frees. */
char *vs_store_insert_sql(const char *table, int cols, int rows);

/* The pair inserts, into p[0] (PAIRS_PER_INSERT rows) and p[1] (one
 * row), prepared persistent; SQLITE_OK or SQLite's code. */
int vs_store_pairs_prepare(sqlite3 *db, sqlite3_stmt *p[2]);

/* Writes n pair rows of variant; SQLITE_DONE or SQLite's code. */
int vs_store_pairs_put(sqlite3_stmt *const p[2], uint64_t variant,
                       const vs_pair_row *rows, int64_t n);

#endif
