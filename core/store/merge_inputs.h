/* The inputs of a merge (merge.c): each shard or part file opened in one
 * snapshot and checked against the others before anything is copied.
 * Private to core/store's merge. */
#ifndef VS_MERGE_INPUTS_H
#define VS_MERGE_INPUTS_H

#include <sqlite3.h>

#include "store/merge.h"

typedef struct shard {
	const char *path;
	char *uri;                /* as the output's connection attaches it */
	sqlite3 *db;
	int is_part;              /* a vsweep-mpi part: holds any variants */
	unsigned long long k, n;  /* shard K/N; a part's number in k */
	long long stored;
	sqlite3_stmt *ids;        /* parts: their variant ids, ascending */
	long long head;           /* parts: the next of them, -1 at the end */
} shard;

/* SQLite's message for a failed step on path: VS_RC_IO. */
vs_rc merge_fail_db(vs_error *err, const char *path, sqlite3 *db,
                    const char *what);

/* A meta value as text (quoted: SQL's literal); NULL if absent. */
char *merge_meta_text(sqlite3 *db, const char *key, int quoted);

/* Opens path for reading, as immutable when it can (merge_inputs.c says
 * how); its URI in *uri (to free) when uri is not NULL, for an ATTACH on
 * a connection opened with SQLITE_OPEN_URI. VS_RC_INPUT for a file that
 * is missing or this user cannot read, saying why. */
vs_rc merge_open_db(const char *path, sqlite3 **db, char **uri,
                    vs_error *err);

/* Why path's first read on db failed: not an SQLite file, or SQLite's
 * reason and the system's (a permission); VS_RC_INPUT. */
vs_rc merge_fail_read(vs_error *err, const char *path, sqlite3 *db);

/* SQLite's progress handler ending a long statement once vs_merge_stop
 * is set. */
int merge_stop_asked(void *ctx);

/* Opens s->path in its snapshot and reads its shard record and count. */
vs_rc merge_open_shard(shard *s, vs_error *err);

/* The n files are one sweep's, each once, complete unless
 * allow_partial; count is the sweep's variant count. */
vs_rc merge_check_shards(shard *s, int n, unsigned long long count,
                         int allow_partial, vs_error *err);

/* No run still writes one of them, unless allow_partial. */
vs_rc merge_check_writers(shard *s, int n, int allow_partial,
                          vs_error *err);

#endif
