/* The results file's VFS: SQLite's default one, with the WAL's writes
 * gathered into few system calls.
 *
 * SQLite writes each WAL frame as two pwrite calls, its 24-byte header and
 * its page (16 KiB here): a full-recording run made ~20 000 of them per
 * 300 variants, each a kernel entry and a page-cache lookup. This VFS
 * keeps a transaction's frames in a buffer (VS_WALVFS_BUF bytes at most,
 * 7 frames of 16 KiB) and writes them in one call when the transaction's commit frame is
 * complete, or before anything else touches the WAL. So the WAL holds the
 * same bytes, and a commit returns only once its frames are written, as
 * before: a killed run loses no committed variant, and a reader (which
 * learns of frames from the WAL index only when SQLite publishes a commit,
 * after its frames are written) never finds a frame missing.
 *
 * Every file but a WAL is the default VFS's own, untouched. */
#ifndef VS_STORE_WALVFS_H
#define VS_STORE_WALVFS_H

/* Bytes gathered at most: the default VFS writes at most 2^17 - 1 bytes
 * per system call (it masks the count to 17 bits; a write of a multiple
 * of 128 KiB then ends in a call of 0 bytes, which it takes for a full
 * disk), so one write of up to this size is one call. */
enum { VS_WALVFS_BUF = (1 << 17) - 1 };

/* The VFS's name for sqlite3_open_v2, registered at the first call (not
 * as the default); NULL if it could not be (then the default VFS is
 * used, unchanged). Thread-safe. */
const char *vs_walvfs_name(void);

#endif
