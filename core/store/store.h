/* The SQLite results file: one writer, whole variants per transaction. */
#ifndef VS_STORE_H
#define VS_STORE_H

#include <stdint.h>

#include "common/error.h"
#include "sim/result.h"

typedef struct vs_store vs_store;

typedef enum vs_store_mode {
	VS_STORE_CREATE,    /* refuse an existing file */
	VS_STORE_RESUME,    /* continue an existing file (or create it) */
	VS_STORE_OVERWRITE  /* replace an existing file */
} vs_store_mode;

/* A key/value of the sweep's own record (table meta). */
typedef struct vs_meta {
	const char *key;
	int is_text;
	const char *text;
	double number;
} vs_meta;

/* A plugin the sweep uses (table plugin). */
typedef struct vs_plugin_row {
	const char *name, *kind, *version, *path, *digest;
} vs_plugin_row;

/* Opens the results file. *io_error (may be NULL) is set to 1 when the
 * failure is the system's (cannot create, disk I/O), 0 for input
 * problems. With VS_STORE_CREATE an existing file is an error; VS_STORE_OVERWRITE deletes it (and its -wal/-shm) first. A new
 * file gets the schema, the meta rows and the plugin rows. An existing
 * file (RESUME) is checked: every meta row flagged identity must match,
 * and every plugin row; a difference is an error saying what differs.
 * n_identity: the first n_identity meta rows are identity keys. On error
 * returns NULL with err set ("FILE: message"). */
vs_store *vs_store_open(const char *path, vs_store_mode mode,
                        const vs_meta *meta, int n_meta, int n_identity,
                        const vs_plugin_row *plugins, int n_plugins,
                        vs_error *err, int *io_error);

/* Number of variants already stored, and the largest stored index + 1
 * check: the stored variant indices must be exactly the first `count` of
 * the run's sequence (they are, since the writer stores in order); the
 * caller verifies with vs_store_variant_at. */
int64_t vs_store_variant_count(vs_store *st);

/* The index of the n-th stored variant in ascending order, or -1. */
int64_t vs_store_variant_at(vs_store *st, int64_t n);

int vs_store_begin(vs_store *st, vs_error *err);
int vs_store_commit(vs_store *st, vs_error *err);
/* Rolls back the open transaction, if any. */
void vs_store_rollback(vs_store *st);

/* Writes one variant: its state rows, actor rows and variant row. Must be
 * inside a transaction. Returns 0 or -1 with err set. */
int vs_store_put(vs_store *st, const vs_result *r, vs_error *err);

/* One lane of the map (table lane), numbered from 1 in the given order. */
typedef struct vs_lane_row {
	const char *lane_id;  /* UUID */
	const char *road;
	int lane_index;       /* signed: 1.. left, -1.. right */
	double length, width; /* m */
	int section;          /* OpenDRIVE lane section (0 for YAML roads) */
	const char *type;     /* OpenDRIVE lane type ("driving") */
} vs_lane_row;

/* Stores the map's lanes unless the file has them already (a resume).
 * Returns 0 or -1 with err set. */
int vs_store_set_lanes(vs_store *st, const vs_lane_row *lanes, int n,
                       vs_error *err);

/* Sets a meta row (inside or outside a transaction). */
int vs_store_set_meta(vs_store *st, const vs_meta *m, vs_error *err);

/* Checkpoints the WAL into the main file and closes; accepts NULL. */
int vs_store_close(vs_store *st, vs_error *err);

/* The schema SQL compiled into the host. */
extern const char vs_schema_sql[];

#endif
