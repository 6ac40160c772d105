/* Copying the WAL back into the results file on a thread of its own, while
 * the writer goes on (ckpt.c says why).
 *
 * Use: vs_ckpt_start after the file's schema exists (it opens a second
 * connection) and after any fork that needs a one-thread process (the
 * store starts it with its first write transaction); the writer calls vs_ckpt_before_begin before each write
 * transaction; vs_ckpt_stop before the final checkpoint and close. If
 * vs_ckpt_start fails, nothing changed: the writer's connection keeps
 * SQLite's own automatic checkpoint. */
#ifndef VS_STORE_CKPT_H
#define VS_STORE_CKPT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

/* WAL frames (pages: 16 KiB in a file this build made) at which the writer waits for the
 * checkpointer so that its next transaction restarts the WAL: 64 MiB, the
 * bound SQLite's automatic checkpoint kept before (wal_autocheckpoint). */
#define VS_CKPT_RESTART 4096
/* Frames written since the last pass that ask for the next one: 16 MiB.
 * Each pass syncs the WAL and the file once; a pass per commit (~250
 * frames) cost the run more CPU in syncs than it moved off the writer. */
#define VS_CKPT_STEP 1024

typedef struct vs_ckpt {
	sqlite3 *writer;       /* the writer's connection (borrowed) */
	sqlite3 *db;           /* the checkpointer's own */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t wake;   /* a commit asks for a pass; or quit */
	pthread_cond_t done;   /* a pass finished */
	uint64_t asked;        /* passes asked for */
	uint64_t passed;       /* asked when the last finished pass began */
	int frames;            /* frames in the WAL after the last commit */
	int asked_at;          /* frames when the last pass was asked for */
	int quit;
	int running;           /* the thread exists */
} vs_ckpt;

/* Opens a second connection to path and starts the thread; hooks the
 * writer's commits (sqlite3_wal_hook, which turns SQLite's automatic
 * checkpoint off). Returns 0, or -1 with nothing changed. */
int vs_ckpt_start(vs_ckpt *c, sqlite3 *writer, const char *path);

/* Before a write transaction: once the WAL holds VS_CKPT_RESTART frames,
 * waits until a pass begun after the last commit has finished. */
void vs_ckpt_before_begin(vs_ckpt *c);

/* Stops the thread, closes its connection and unhooks the writer's
 * commits. Safe on a zeroed vs_ckpt and on one whose start failed. */
void vs_ckpt_stop(vs_ckpt *c);

#endif
