/* Waiting for another program's lock, and folding the WAL back (busy.h).
 *
 * Other programs open results files while a run writes them: a reader's
 * long transaction or a GUI's CREATE INDEX holds the write lock for
 * seconds. A fixed short timeout turned that into a failed night; here the
 * writer waits, says so, and goes on, up to a limit the user sets. */
#include "store/busy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/util.h"

/* Waits for a final checkpoint: readers are not going away for us. */
#define FOLD_WAIT 3.0 /* s */

static int on_busy(void *arg, int count)
{
	vs_store_busy *b = arg;
	double now = vs_now();
	if (count == 0) {
		b->since = now;
		b->said = 0;
	}
	double waited = now - b->since;
	if (waited >= b->limit) {
		if (!b->quiet)
			fprintf(stderr, "vsweep: %s: gave up after %.0f s "
			        "waiting for another program's lock "
			        "(--lock-timeout)\n", b->path, waited);
		return 0;
	}
	if (!b->said && !b->quiet && waited >= 1.0) {
		fprintf(stderr, "vsweep: waiting for a lock held by another "
		        "program on %s (up to %g s, --lock-timeout)\n",
		        b->path, b->limit);
		b->said = 1;
	}
	/* 1 ms, growing to 50 ms: short waits stay short. */
	long ms = count < 50 ? count + 1 : 50;
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
	return 1;
}

void vs_store_busy_init(vs_store_busy *b, sqlite3 *db, const char *path,
                        double limit)
{
	b->path = path;
	b->limit = limit > 0 ? limit : VS_STORE_LOCK_TIMEOUT;
	b->since = 0;
	b->said = 0;
	b->quiet = 0;
	sqlite3_busy_handler(db, on_busy, b);
}

/* Why the WAL stayed, by SQLite's error: a full or failing disk (the
 * file-size limit too: EFBIG is an I/O error) needs room, not waiting; a
 * lock is a reader still there. Either way FILE-wal holds committed
 * variants and belongs with FILE. */
static void say_unfolded(const char *path, sqlite3 *db, int rc)
{
	int code = rc & 0xff;
	int sys = sqlite3_system_errno(db);
	if (code == SQLITE_FULL || code == SQLITE_IOERR) {
		const char *why = sys == EFBIG ? "the file-size limit (ulimit "
		                                 "-f) is reached"
		                : code == SQLITE_FULL ? "the disk is full"
		                : "the disk failed or is full";
		fprintf(stderr, "vsweep: %s: the WAL could not be folded back "
		        "into the file (%s%s%s: %s): %s-wal holds what was "
		        "stored (the file's tables, and the variants "
		        "committed, if any), keep it with %s; once there is "
		        "room, a run with --resume or `sqlite3 %s 'PRAGMA "
		        "wal_checkpoint(TRUNCATE)'` folds it\n", path,
		        sqlite3_errstr(rc), sys ? ", " : "",
		        sys ? strerror(sys) : "", why, path, path, path);
	} else if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
		fprintf(stderr, "vsweep: %s: the WAL could not be folded back "
		        "into the file (%s: another program holds it open): "
		        "copy %s-wal with it, or run `sqlite3 %s 'PRAGMA "
		        "wal_checkpoint(TRUNCATE)'` once the reader is gone\n",
		        path, sqlite3_errstr(rc), path, path);
	} else {
		fprintf(stderr, "vsweep: %s: the WAL could not be folded back "
		        "into the file (%s): copy %s-wal with it\n", path,
		        sqlite3_errstr(rc), path);
	}
}

int vs_store_fold_wal(vs_store_busy *b, sqlite3 *db)
{
	double limit = b->limit;
	if (b->limit > FOLD_WAIT)
		b->limit = FOLD_WAIT;
	b->quiet = 1;
	int log = -1, done = -1;
	int rc = sqlite3_wal_checkpoint_v2(db, NULL,
	                                   SQLITE_CHECKPOINT_TRUNCATE, &log,
	                                   &done);
	b->limit = limit;
	b->quiet = 0;
	if (rc == SQLITE_OK)
		return 0;
	say_unfolded(b->path, db, rc);
	return -1;
}
