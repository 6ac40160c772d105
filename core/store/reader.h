/* Opening a finished results file to read it without leaving anything
 * beside it (vsweep plot, report, status, the drill-down's
 * --variants-from; merge reads its inputs by the same rule, see
 * merge_inputs.c).
 *
 * The store runs in WAL mode, and a plain read-only SQLite connection to
 * a WAL-mode file makes FILE-wal and FILE-shm, which it may not remove
 * when it closes: a reader of a finished file left them behind, and the
 * empty -wal's fresh mtime read as the run's last write (vsweep status).
 * A file no run is writing and whose WAL holds no frames is read through
 * SQLite's immutable URI instead, which takes no locks and makes no side
 * files. Otherwise (a run still writing, or a killed run's WAL with
 * committed variants, which only a WAL-aware reader sees) a plain
 * read-only connection, which may add FILE-shm beside that FILE-wal. */
#ifndef VS_STORE_READER_H
#define VS_STORE_READER_H

#include <sqlite3.h>

/* 1 when FILE-wal beside path holds at least one frame (is longer than
 * its 32-byte header), its modification time (s since the epoch) then in
 * *mtime when mtime is not NULL; 0 when there is none or it is empty, as
 * a reader's open leaves it. */
int vs_store_wal_has_frames(const char *path, double *mtime);

/* 1 when no run writes path and FILE-wal holds no frame: everything
 * stored is in the file itself, which may be read as immutable. */
int vs_store_is_settled(const char *path);

/* path as an SQLite URI (percent-encoded, so that '?', '#' and '%' in it
 * stay the name) with query after its '?' (none when NULL), for
 * sqlite3_open_v2 with SQLITE_OPEN_URI or an ATTACH on such a
 * connection; to free(); NULL when out of memory. */
char *vs_store_uri(const char *path, const char *query);

/* Whether path is a file a reader may open, looked at without opening it
 * (opening a FIFO waits for a writer forever, and SQLite would make a
 * missing file an empty database): 0 when it is a regular file this
 * process may read; else an errno value: ENOENT, EACCES ..., EISDIR, or
 * ENODEV for a device, FIFO or socket. vs_store_read_error words it. */
int vs_store_read_errno(const char *path);
/* e (vs_store_read_errno's) as a message: strerror's, or "not a regular
 * file (a device, FIFO or socket)" for ENODEV. */
const char *vs_store_read_error(int e);

/* Opens path to read as above; an SQLite result code, *db set as
 * sqlite3_open_v2 sets it (to close whatever the result). Never creates
 * the file. Not for the process writing path: it asks
 * vs_store_writer_pid, which would drop that process's own lock. */
int vs_store_open_read(const char *path, sqlite3 **db);

#endif
