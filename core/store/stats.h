/* The query planner's statistics of a finished results file (stats.c).
 *
 * Without statistics SQLite assumes every table holds about a million
 * rows and that an equality on a key's first column picks ten: it then
 * reads all of `state` for `WHERE actor_id = 1` or `WHERE step = 100`,
 * where the key (variant_id, actor_id, step) lets it jump from variant to
 * variant (a skip-scan: `SEARCH s USING PRIMARY KEY (ANY(variant_id) AND
 * actor_id=?)`), reading one actor's rows or one row per actor. What
 * SQLite's own ANALYZE writes into sqlite_stat1, written when the file is
 * final (a run or resume that stored every variant, a merge). */
#ifndef VS_STORE_STATS_H
#define VS_STORE_STATS_H

#include <stdint.h>

#include <sqlite3.h>

#include "common/error.h"
#include "common/status.h"

/* Writes the statistics into db (path names it in messages), replacing
 * those it had; the caller holds a write transaction. The per-variant
 * tables (variant, actor, summary, ...) are analysed by SQLite's ANALYZE;
 * state's row is worked out from its row count and the (variant, actor)
 * pairs that have rows, to the same numbers as ANALYZE's, without
 * reading every row. state_rows: its rows, if the caller knows how many
 * (a store that made the file and counted what it committed); -1: they
 * are counted (SQLite's count(*) reads every page: 2 % of a 300-variant
 * benchmark run's CPU).
 * The per-step tables pair_row, signal_row and log_row get none (SQLite's
 * defaults; working theirs out would mean reading them whole). */
vs_rc vs_store_stats_write(sqlite3 *db, const char *path, int64_t state_rows,
                           vs_error *err);

#endif
