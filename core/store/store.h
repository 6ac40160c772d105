/* The SQLite results file: one writer, whole variants per transaction.
 * Every function returning vs_rc fails with VS_RC_IO and err set
 * ("FILE: what: SQLite's message") unless it says otherwise. */
#ifndef VS_STORE_H
#define VS_STORE_H

#include <stdint.h>

#include "common/error.h"
#include "common/status.h"
#include "store/record.h"
#include "sim/result.h"

typedef struct vs_store vs_store;

/* SQLite settings of every results file written (store.c, merge.c):
 * page size in bytes of a new file (16 KiB: a full scan reads 4x fewer
 * pages than with 4 KiB, and the WAL writes fewer, larger frames), and
 * the writer's page cache (PRAGMA cache_size; negative: KiB), 8 MiB. */
#define VS_STORE_PAGE_SIZE "16384"
#define VS_STORE_CACHE_KIB "-8192"

/* Opens the results file def->path (*out NULL on failure). With
 * VS_STORE_CREATE an existing file is an input error; VS_STORE_OVERWRITE
 * deletes it (and its -wal/-shm) first; VS_STORE_RESUME continues it, or
 * creates it when missing. A new file gets the schema, the meta rows of
 * vs_store_def_meta and the plugin rows. An existing file is checked
 * before anything in it changes: every identity meta row must match, and
 * every plugin build; a difference is VS_RC_INPUT saying what differs.
 * Returns VS_RC_OK, VS_RC_INPUT (exists, not this run's) or VS_RC_IO
 * (cannot create or open, SQLite failure), err "FILE: message". */
vs_rc vs_store_open(const vs_store_def *def, vs_store **out, vs_error *err);

/* Number of variants already stored, or -1 when it cannot be read. A
 * resuming caller checks with vs_store_variant_at that they are the ones
 * its sequence stores first. */
int64_t vs_store_variant_count(vs_store *st);

/* The index of the n-th stored variant in ascending order, or -1. */
int64_t vs_store_variant_at(vs_store *st, int64_t n);

/* Bytes the file holds as of its last commit, WAL included (its pages
 * times the page size), or -1. For the writer's thread, between
 * transactions. */
int64_t vs_store_bytes(vs_store *st);

/* Opened with def.extend: 1 when the stored sweep_text or variant_count
 * differs from this run's (the caller must check the stored variants). */
int vs_store_sweep_changed(const vs_store *st);

/* 1 when this open made the file from nothing (missing, holding nothing,
 * or overwritten): nothing beside it (a crash journal) is of it yet. */
int vs_store_made(const vs_store *st);

/* The stored variants in variant_id order, one per call: 1 with *id,
 * *params and *label (NULL: none; both valid until the next call), 0 at
 * the end. */
int vs_store_next_variant(vs_store *st, int64_t *id, const char **params,
                          const char **label);

vs_rc vs_store_begin(vs_store *st, vs_error *err);
vs_rc vs_store_commit(vs_store *st, vs_error *err);
/* Marks the file final once every variant is stored: writes the query
 * planner's statistics (stats.h) in a transaction of its own. */
vs_rc vs_store_finish(vs_store *st, vs_error *err);
/* Rolls back the open transaction, if any. */
void vs_store_rollback(vs_store *st);

/* Writes one variant: its state rows (in key order), actor, wheel,
 * event, summary, pair and variant rows. Must be inside a transaction.
 * After vs_store_variant_begin it ends that variant: r holds the rows not
 * yet stored (r->n_rows may be 0). */
vs_rc vs_store_put(vs_store *st, const vs_result *r, vs_error *err);

/* The integer value of "PRAGMA name" on the store's connection (-1: no
 * value, or name not a plain word): for tests and diagnostics. */
int64_t vs_store_pragma(vs_store *st, const char *name);

/* Rows the largest state INSERT prepared so far takes at once (store.c:
 * 1000 only once 100 000 rows were stored, 200 before). */
int vs_store_state_batch(const vs_store *st);

/* A variant too long to hold in memory, stored in parts (the runner
 * streams it): vs_store_variant_begin, then vs_store_variant_rows for
 * each chunk of rows as it is made, then vs_store_put with the rest and
 * the variant's status, or vs_store_variant_cancel. Its rows go in a
 * savepoint of the caller's transaction, so they are committed only with
 * its variant row, and a cancel drops exactly them (the file is then as
 * if the variant had never begun). Must be inside a transaction; one
 * variant at a time. */
vs_rc vs_store_variant_begin(vs_store *st, uint64_t variant, vs_error *err);
/* Stores part's state, signal and pair rows (part->rows, n_rows,
 * signals, n_signals, signal_names, pairs, n_pairs) as the open
 * variant's next ones;
 * part->variant must be the open variant. */
vs_rc vs_store_variant_rows(vs_store *st, const vs_result *part,
                            vs_error *err);
/* Drops the rows of the open variant, if any, and closes it: then the
 * variant may be stored whole by vs_store_put (a crashed variant: its
 * failure, no rows). */
void vs_store_variant_cancel(vs_store *st);

/* One lane of the map (table lane), numbered from 1 in the given order. */
typedef struct vs_lane_row {
	const char *lane_id;  /* UUID */
	const char *road;
	int lane_index;       /* signed: 1.. left, -1.. right */
	double length, width; /* m */
	int section;          /* OpenDRIVE lane section (0 for YAML roads) */
	const char *type;     /* OpenDRIVE lane type ("driving") */
} vs_lane_row;

/* Stores the map's lanes unless the file has them already (a resume). */
vs_rc vs_store_set_lanes(vs_store *st, const vs_lane_row *lanes, int n,
                       vs_error *err);

/* One parameter of an actor's plugin (table actor_param). */
typedef struct vs_actor_param_row {
	int64_t actor_id;
	const char *role;       /* "vehicle_model" or "behaviour" */
	const char *name;       /* the plugin's parameter */
	const char *plugin;     /* as table plugin names it */
	const char *unit, *doc; /* the plugin's; NULL as "" */
	double value;           /* the seed scenario's */
	double min, max;        /* the plugin's range; infinite: unbounded */
} vs_actor_param_row;

/* Stores the actors' plugin parameters unless the file has them already
 * (a resume); a file written before the table gets it (params.c). */
vs_rc vs_store_set_actor_params(vs_store *st, const vs_actor_param_row *p,
                                int n, vs_error *err);

/* Sets a meta row (inside or outside a transaction). */
vs_rc vs_store_set_meta(vs_store *st, const vs_meta *m, vs_error *err);
/* meta's value of key as text into buf (size bytes, "" when none); 1 if
 * found. */
int vs_store_meta_text(vs_store *st, const char *key, char *buf,
                       size_t size);
/* The n records m in one transaction of their own (outside a variant's):
 * a kill leaves all of them or none. */
vs_rc vs_store_set_metas(vs_store *st, const vs_meta *m, int n,
                         vs_error *err);

/* Checkpoints the WAL into the main file and closes; accepts NULL (and
 * err NULL when the caller has a failure to report already). */
vs_rc vs_store_close(vs_store *st, vs_error *err);

/* Whether path can name a results file, before anything opens it:
 * VS_RC_INPUT with err for an empty path, a directory, or what is not a
 * regular file (a device, FIFO or socket: --overwrite must not unlink
 * /dev/null, and opening a FIFO waits for a writer forever); VS_RC_OK
 * when it is a regular file or nothing is there. vs_store_open checks it;
 * `vsweep check` too, to refuse what run would. */
vs_rc vs_store_path_check(const char *path, vs_error *err);

/* Whether --overwrite may replace the regular file at path (or nothing
 * there): an empty file, a results file, or an SQLite file without a
 * table (a run killed in its first milliseconds) may go; VS_RC_INPUT with
 * err for anything else (a scenario given as -o by mistake, another
 * program's database). Looks without locking or writing anything. */
vs_rc vs_store_overwritable(const char *path, vs_error *err);

/* Takes the one-writer lock of the results file at path (writer.c): an
 * fcntl lock on the side file PATH-writer, held in *fd until
 * vs_store_writer_unlock. VS_RC_INPUT with err "PATH: another vsweep (pid
 * N) is writing this file" when another process holds it; VS_RC_OK (and
 * *fd -1) when no side file can be made there. */
vs_rc vs_store_writer_lock(const char *path, int *fd, vs_error *err);
/* Releases it and removes the side file; accepts fd -1. */
void vs_store_writer_unlock(const char *path, int fd);
/* The pid of another process holding that lock on path (a run still
 * writing the file), or 0. Only looks: takes no lock, makes no side file.
 * Not for a process that holds the lock itself (closing its look at the
 * side file would drop its own lock). */
long vs_store_writer_pid(const char *path);

/* The schema SQL compiled into the host. */
extern const char vs_schema_sql[];

/* The statement of vs_schema_sql that starts with head ("CREATE TABLE
 * x"), up to and with its ';', allocated; NULL when there is none. Used
 * to bring a file written by an earlier build up to the schema. */
char *vs_schema_statement(const char *head);

#endif
