/* Waiting out another program's lock on a results file, and folding the
 * WAL back at the end (busy.c). */
#ifndef VS_STORE_BUSY_H
#define VS_STORE_BUSY_H

#include <sqlite3.h>

/* Default for --lock-timeout: s. */
#define VS_STORE_LOCK_TIMEOUT 600.0

typedef struct vs_store_busy {
	const char *path;   /* the file, for messages (borrowed) */
	double limit;       /* s to wait for one lock; then SQLITE_BUSY */
	double since;       /* vs_now() when this wait began */
	int said;           /* "waiting ..." printed for this wait */
	int quiet;          /* print nothing (the final checkpoint) */
} vs_store_busy;

/* Makes db wait for a lock another program holds (a reader's long
 * transaction, DB Browser, CREATE INDEX) instead of failing after a few
 * seconds: it retries, saying once on stderr after a second "waiting for
 * a lock held by another program on FILE", up to b->limit s (<= 0: the
 * default). b must live as long as db. */
void vs_store_busy_init(vs_store_busy *b, sqlite3 *db, const char *path,
                        double limit);

/* Folds the WAL back into the file (checkpoint TRUNCATE), waiting at most
 * a few seconds for readers. Returns 0, or -1 after saying on stderr that
 * FILE-wal still holds data and must be copied with FILE. */
int vs_store_fold_wal(vs_store_busy *b, sqlite3 *db);

#endif
