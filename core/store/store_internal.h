/* What store.c (opening, transactions, closing) and store_rows.c (a
 * variant's rows) share: the writer's state and its statements. Private
 * to core/store. */
#ifndef VS_STORE_INTERNAL_H
#define VS_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/error.h"
#include "common/status.h"
#include "store/batch.h"
#include "store/bound.h"
#include "store/busy.h"
#include "store/ckpt.h"
#include "store/store.h"

/* Signal rows per INSERT (batch.h): 5 values each; a variant's rows go
 * in the order made (step-major), numbered by rowid in that order. */
#define SIGNALS_PER_INSERT 200
#define SIGNAL_COLS 5

/* Rows per multi-row INSERT, largest first: the per-statement work
 * (step, reset, halt) is shared by that many rows. Writer instructions per
 * actor-step on the benchmark's sweep (callgrind): 10 rows 14.1 k, 50
 * 10.7 k, 200 9.9 k, 1000 9.5 k. 1000 rows are 24,000 parameters, under
 * SQLite's default limit of 32,766; a build with a lower limit gets as
 * many rows as fit (prepare_all). The remainder goes 200, 50, then 1 at
 * a time. Preparing the 1000-row INSERT takes ~25 ms and 2.4 MB, the
 * 200-row one ~3 ms (SQLite's parse of a long VALUES list grows faster
 * than its length), a third of a one-variant run's CPU. So the big one
 * is prepared only once the store has taken BIG_AFTER rows: a
 * drill-down or a test of a few variants does without it, and a large
 * run pays at most those rows' 4 % more instructions (~4 ms) over
 * preparing it first. The same rows go in, in the same order, either
 * way. */
#define TIERS 4
#define BIG_AFTER 100000
#define STATE_COLS 24
#define STATE_REALS 17 /* x .. roll_r */

struct vs_store {
	sqlite3 *db;
	char *path;
	/* The state INSERTs of tier_rows[t] rows (or fewer, if SQLite's
	 * parameter limit says so: rows[t]); ins[0] NULL until BIG_AFTER
	 * rows were stored; bound[t]: what ins[t] holds. */
	sqlite3_stmt *ins[TIERS];
	int rows[TIERS];
	vs_bound bound[TIERS];
	int64_t rows_put;         /* state rows stored through this store */
	/* State rows in the file: at open (-1: not known, a file resumed),
	 * committed since, in the open transaction, and in it when the open
	 * variant's savepoint began. So a finish need not count them. */
	int64_t rows_before, rows_done, rows_tx, rows_tx_at_var;
	sqlite3_stmt *ins_actor;
	sqlite3_stmt *ins_variant;
	sqlite3_stmt *ins_wheel;
	sqlite3_stmt *ins_event;
	sqlite3_stmt *ins_summary;
	sqlite3_stmt *set_meta;
	sqlite3_stmt *ins_log, *ins_name, *get_name;
	vs_batch ins_signals;       /* batch.h: SIGNALS_PER_INSERT, one */
	vs_batch ins_pairs;         /* pairs.h */
	int in_tx;
	vs_store_busy busy;       /* waits out other programs' locks */
	int lock_fd;              /* vs_store_writer_lock's; -1: none */
	int fresh_fail;           /* made by a failed open: remove on close */
	int opened;               /* vs_store_open succeeded */
	int sweep_changed;        /* resumed with another sweep (extend) */
	int made;                 /* made by this open (vs_store_made) */
	sqlite3_stmt *each;       /* vs_store_next_variant's cursor */
	const vs_state_row **ord; /* put_rows' order of a variant's rows */
	int64_t cap_ord;
	/* The variant being stored in parts (vs_store_variant_begin). */
	int var_open;
	uint64_t var_id;
	int stats_dropped; /* sqlite_stat1 emptied by this run's first write */
	vs_ckpt ckpt;      /* copies the WAL back beside the writer */
	int ckpt_tried;    /* vs_ckpt_start called (vs_store_begin) */
};

/* "PATH: what: SQLite's message" into err; VS_RC_IO. */
vs_rc vs_store_db_fail(vs_store *st, vs_error *err, const char *what);

/* sql run on st's connection; VS_RC_IO and err on failure. */
vs_rc vs_store_exec(vs_store *st, const char *sql, vs_error *err);

/* Prepares the state INSERT of tier t (store.c's prepare_all says which
 * rows each tier takes). */
vs_rc vs_store_prepare_tier(vs_store *st, int t, vs_error *err);

#endif
