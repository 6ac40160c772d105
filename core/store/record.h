/* A results file's own record: what its meta table says about the run that
 * wrote it, which of those records are the file's identity (they must
 * match for `run --resume`, and between the files `merge` joins), and the
 * shard record's two forms. The one owner of these facts: the runner fills
 * a vs_store_def, vs_store_open writes or checks it, merge and vsweep-mpi
 * compare files through the same table of keys. */
#ifndef VS_STORE_RECORD_H
#define VS_STORE_RECORD_H

#include <stdint.h>

#include <stddef.h>
#include <vsweep/plugin.h>

#include "common/error.h"
#include "common/status.h"

typedef enum vs_store_mode {
	VS_STORE_CREATE,    /* refuse an existing file */
	VS_STORE_RESUME,    /* continue an existing file (or create it) */
	VS_STORE_OVERWRITE  /* replace an existing file */
} vs_store_mode;

/* A plugin the sweep uses (table plugin). */
typedef struct vs_plugin_row {
	const char *name, *kind, *version, *path, *digest;
} vs_plugin_row;

/* Everything vs_store_open needs. Start from vs_store_default_def() and
 * set what the run knows, so a field added later changes no caller. The
 * strings are borrowed for the duration of the call. */
typedef struct vs_store_def {
	const char *path;          /* the results file */
	vs_store_mode mode;
	/* identity: a resumed file must hold the same */
	const char *scenario_text; /* the seed scenario's YAML */
	const char *sweep_text;    /* the sweep's YAML; "" without one */
	double step;               /* s */
	int record_every;          /* steps between stored rows, >= 1 */
	const char *record;        /* --record as given; "" for the default */
	const char *shard;         /* "K/N" or "part R" (vs_store_shard_label) */
	uint64_t variant_count;    /* the whole sweep's */
	const vs_plugin_row *plugins; /* each plugin once, with its build */
	int n_plugins;
	const char *map_digest;    /* the OpenDRIVE file's (its bytes, not
	                            * its path); "" when none is read */
	/* Resume may extend the sweep: sweep_text is not compared and
	 * variant_count may only grow; the caller checks the stored variants
	 * against the new sweep (vs_store_sweep_changed,
	 * vs_store_next_variant). */
	int extend;
	/* facts about the file, not compared */
	const char *scenario_path, *sweep_path; /* "" when none */
	const char *map_path;      /* the OpenDRIVE file read; "" when none */
	int64_t steps;             /* steps per variant */
	double duration;           /* s */
	/* how the file is written */
	double lock_timeout;       /* s to wait for another program's lock;
	                            * 0: VS_STORE_LOCK_TIMEOUT */
} vs_store_def;

/* Defaults: create, record every step, shard "0/1", nothing else set. */
vs_store_def vs_store_default_def(void);

/* The results format this build writes (meta key `format`). Format 2
 * turned the pose to R = Rz(yaw) Rx(pitch) Ry(roll); a format-1 file's
 * pitch and roll name the other axes. Format 3 added variant labels and
 * pair rows (tables a format-2 file lacks) and put the OpenDRIVE surface's
 * slope into pitch and its bank into roll (a format-2 file on an
 * OpenDRIVE map has them the other way round). Format 4 keeps the state
 * rows by their key (a WITHOUT ROWID table) where format 3 numbered them
 * by rowid, with ranges in the variant rows and a separate index. None of
 * the older formats is resumed or merged into. */
#define VS_RESULTS_FORMAT "vsweep results 4"

/* VS_RC_OK when format (a file's meta `format`) is VS_RESULTS_FORMAT or
 * NULL (none: the identity checks report it); else VS_RC_INPUT with err
 * "PATH: why" (format 1: the pose axes changed). */
vs_rc vs_store_format_check(const char *path, const char *format,
                            vs_error *err);

/* A key/value of the file's meta table. */
typedef struct vs_meta {
	const char *key;
	int is_text;
	const char *text;
	double number;
} vs_meta;

enum { VS_STORE_META_MAX = 24 };

/* What a new file's meta says of its making: when (UTC, to the second)
 * and a random identity of its own (32 hex digits), which no other
 * results file has, even one begun in the same second (the crash
 * journal ties its lines to it, journal.c). */
typedef struct vs_meta_made {
	char created[32];
	char file_id[40];
} vs_meta_made;

/* A new file_id: 32 random hex digits (and the terminating 0). */
void vs_store_new_file_id(char out[40]);

/* The meta rows of def in the order they are written, with their making
 * in *made (which the rows point into). Sets *n_identity to the number
 * of leading rows that are identity. Returns the number of rows. */
int vs_store_def_meta(const vs_store_def *def, vs_meta_made *made,
                      vs_meta meta[VS_STORE_META_MAX], int *n_identity);

/* The meta rows a run writes once it has taken a file (created, or
 * resumed and found to be its own), into meta[0..1]: when it began
 * writing (run_started_utc, "YYYY-MM-DDTHH:MM:SS.mmmZ", into started)
 * and how many variants the file held then (run_started_stored). Facts
 * about that run, never identity: the next run or resume writes its own,
 * and `vsweep status` takes a running sweep's rate from them. Returns the
 * number of rows (2). */
int vs_store_run_meta(int64_t stored, char started[32],
                      vs_meta meta[2]);

/* The identity keys that every file of one sweep shares, whichever shard
 * or part it holds: all identity keys but "shard". key[i] for i < n, NULL
 * after; merge compares these. */
const char *vs_store_sweep_key(int i);

/* The keys a later build added to the meta table, which a file written
 * before lacks: key[i] for i < n, NULL after. Such a file is taken to
 * match the run in them (there is nothing to compare): its resume writes
 * them, a merge compares them among the files that have them. */
const char *vs_store_added_key(int i);

/* 1 when key is one of vs_store_added_key's. */
int vs_store_key_is_added(const char *key);

/* The shard record of shard k of n ("K/N") or of an MPI rank's part
 * ("part R"), into buf of size len. */
void vs_store_shard_label(char *buf, size_t len, uint64_t k, uint64_t n);
void vs_store_part_label(char *buf, size_t len, long rank);

/* Parses a shard record (as stored: plain text). Returns VS_RC_OK with
 * *is_part and *k (part number or K) and *n (N; 0 for a part), or
 * VS_RC_INPUT when it is neither form or K >= N. */
vs_rc vs_store_parse_shard(const char *text, int *is_part, uint64_t *k,
                           uint64_t *n);

/* How many of a sweep's count variants shard k of n holds: the indices
 * k, k + n, k + 2n, ... below count. */
uint64_t vs_store_shard_count(uint64_t count, uint64_t k, uint64_t n);

/* The plugin table's kind column for a plugin kind. */
const char *vs_store_kind_name(vs_kind kind);

#endif
