/* The results file's VFS: WAL writes and a checkpoint's WAL reads
 * gathered (walvfs.h).
 *
 * A WAL or main database file is a gfile: our methods in front of the
 * default VFS's file (real), which lives in the same allocation, after
 * it. Any other file (a rollback journal, a temporary file) is opened by
 * the default VFS straight into the memory SQLite gives us, so it is that
 * VFS's file, methods and all.
 *
 * The WAL's appended frames are gathered. The WAL format
 * (sqlite.org/fileformat2.html#walformat): a 32-byte header, then frames,
 * each a 24-byte frame header and a page; bytes 4-7 of a frame header,
 * big-endian, are the database's size in pages after a commit, 0 on every
 * other frame. SQLite writes a header and its page as two writes, one
 * after the other, each frame after the last (from the file's start again
 * once the WAL restarts, with a new 32-byte header at offset 0). So:
 * - A write at or past the highest byte written since the last WAL header
 *   (hwm) is an append, and is gathered; the append after a commit frame's
 *   header is that commit's last page, and all is written through then,
 *   the failure (if any) that commit's.
 * - A write below hwm rewrites a frame of the open transaction in place:
 *   a page written again after SQLite spilled it, or, at the commit, the
 *   frame headers from the first such page on with their checksums worked
 *   out again (the last of them the commit frame's). Such writes go
 *   straight through, after what is pending: writes reach the file in
 *   SQLite's order, and nothing of a commit waits in the buffer after it.
 * - Before SQLite publishes a commit in the WAL index it calls the
 *   database file's xShmBarrier: anything still pending in its WAL (the
 *   part of a padding frame past a sync point, with synchronous = FULL)
 *   is written there too. The two files know each other (link) from the
 *   WAL's open (sqlite3_database_file_object) to its close.
 * Pending bytes (n > 0) are the file's content at [off, off + n) that the
 * real file does not hold yet; every method but xWrite, xLock, xUnlock,
 * xCheckReservedLock, xSectorSize and xDeviceCharacteristics writes them
 * first, so nothing reads, sizes, truncates, syncs, maps or closes the
 * file without them. A failed write drops them and sticks (flush says
 * why): every later call fails alike, so an error cannot pass unseen.
 *
 * The database's writes are not gathered: a checkpoint's copy into it
 * would gain as much, but SQLite ignores what CKPT_DONE returns and marks
 * the frames copied right after it, so a failed late write (a full disk)
 * would go unnoticed; its file controls are watched, nothing more.
 *
 * Reads gathered: a checkpoint reads the frames it copies one by one, in
 * page order, which for rows appended at the b-trees' right edges is
 * mostly file order. While this thread's connection checkpoints, a WAL
 * read fetches VS_WALVFS_BUF bytes and serves the next reads that fall
 * inside them. The frames a checkpoint copies are whole and stay as they
 * are until it ends (the WAL restarts only once every frame is copied,
 * and a writer appends or rewrites only frames past them); what the
 * fetch holds past them is never served, and it is dropped when the
 * checkpoint ends (a new checkpoint on the thread: a new generation). */
#include "store/walvfs.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store/pagecache.h"

typedef struct gfile {
	sqlite3_file base;
	sqlite3_file *real; /* the default VFS's file, after this struct */
	int wal;            /* 1 a WAL, 0 a main database */
	unsigned char *buf; /* VS_WALVFS_BUF bytes, at the first write */
	int n;              /* pending bytes */
	sqlite3_int64 off;  /* their offset in the file */
	int commit;         /* WAL: the last append was a commit header */
	sqlite3_int64 hwm;  /* WAL: end of the highest append since its header */
	struct gfile *link; /* a WAL's database file and back, while open */
	int err;            /* WAL: a gathered write failed; every call fails */
	unsigned char *ra;  /* WAL: VS_WALVFS_BUF bytes read ahead */
	int ra_n;           /* bytes of them valid */
	sqlite3_int64 ra_off;
	unsigned ra_gen;    /* the checkpoint generation they belong to */
	sqlite3_int64 ra_end; /* the WAL's size at that checkpoint's first read */
} gfile;

/* This thread's connection is checkpointing; ckpt_gen: which pass, a
 * number no other pass on any thread has had. */
static _Thread_local int in_ckpt;
static _Thread_local unsigned ckpt_gen;
static _Atomic unsigned ckpt_passes;


static sqlite3_vfs walvfs;
static sqlite3_vfs *base_vfs;

/* The real file sits after the gfile, aligned for any of its fields. */
static size_t real_offset(void)
{
	size_t a = _Alignof(max_align_t);
	return (sizeof(gfile) + a - 1) / a * a;
}

/* Writes the pending bytes. A failure drops them and sticks: the
 * transaction they belong to has not committed (a commit's bytes are
 * written before its last xWrite returns), SQLite rolls it back on the
 * error, and every later call on the file fails alike, so nothing is
 * ever appended past a hole, nor a failed commit's frames written late. */
static int flush(gfile *w)
{
	if (w->err)
		return w->err;
	if (w->n == 0)
		return SQLITE_OK;
	int rc = w->real->pMethods->xWrite(w->real, w->buf, w->n, w->off);
	w->n = 0;
	if (rc != SQLITE_OK)
		w->err = rc;
	return rc;
}

static int w_close(sqlite3_file *f)
{
	gfile *w = (gfile *)f;
	int rc = flush(w); /* SQLite ignores xClose's result: anything
	                      * pending is an uncommitted transaction's */
	if (w->link)
		w->link->link = NULL;
	int rc2 = w->real->pMethods->xClose(w->real);
	free(w->buf);
	free(w->ra);
	w->buf = w->ra = NULL;
	return rc != SQLITE_OK ? rc : rc2;
}

/* A checkpoint's WAL read from the bytes read ahead: 1 served, 0 not
 * (then the caller reads). */
static int read_ahead(gfile *w, void *p, int amt, sqlite3_int64 off)
{
	if (!w->ra && !(w->ra = malloc(VS_WALVFS_BUF)))
		return 0;
	if (w->ra_gen != ckpt_gen) { /* this pass's first read */
		w->ra_gen = ckpt_gen;
		w->ra_n = 0;
		if (w->real->pMethods->xFileSize(w->real, &w->ra_end))
			w->ra_end = 0;
	}
	if (w->ra_n == 0 || off < w->ra_off ||
	    off + amt > w->ra_off + w->ra_n) {
		sqlite3_int64 want = w->ra_end - off;
		if (want > VS_WALVFS_BUF)
			want = VS_WALVFS_BUF;
		w->ra_n = 0;
		if (want < amt ||
		    w->real->pMethods->xRead(w->real, w->ra, (int)want, off))
			return 0; /* past the size or short: read as asked */
		w->ra_off = off;
		w->ra_n = (int)want;
	}
	memcpy(p, w->ra + (off - w->ra_off), (size_t)amt);
	return 1;
}

static int w_read(sqlite3_file *f, void *p, int amt, sqlite3_int64 off)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	if (rc)
		return rc;
	if (w->wal && in_ckpt && amt <= VS_WALVFS_BUF / 2 &&
	    read_ahead(w, p, amt, off))
		return SQLITE_OK;
	return w->real->pMethods->xRead(w->real, p, amt, off);
}

/* Whether a 24-byte write is a commit frame's header (bytes 4-7 not 0). */
static int commit_header(const unsigned char *h, int amt)
{
	return amt == 24 && (h[4] | h[5] | h[6] | h[7]) != 0;
}

static int w_write(sqlite3_file *f, const void *p, int amt,
                   sqlite3_int64 off)
{
	gfile *w = (gfile *)f;
	int rc = SQLITE_OK;
	if (w->ra_n && off < w->ra_off + w->ra_n && off + amt > w->ra_off)
		w->ra_n = 0; /* never in a checkpoint's pass; cheap to be sure */
	if (w->wal && off == 0 && amt == 32)
		w->hwm = 0; /* a WAL header: the frames start again */
	int append = w->wal && off >= w->hwm && amt <= VS_WALVFS_BUF &&
	             (w->buf || (w->buf = malloc(VS_WALVFS_BUF)));
	if (!append) { /* in place, or a database: straight through */
		rc = flush(w);
		if (!rc)
			rc = w->real->pMethods->xWrite(w->real, p, amt, off);
		if (w->wal && off + amt > w->hwm)
			w->hwm = off + amt;
		return rc;
	}
	if (w->n > 0 &&
	    (off != w->off + w->n || w->n + amt > VS_WALVFS_BUF) &&
	    (rc = flush(w)))
		return rc;
	if (w->n == 0)
		w->off = off;
	memcpy(w->buf + w->n, p, (size_t)amt);
	w->n += amt;
	w->hwm = off + amt;
	/* A commit's frames go to the file before SQLite publishes it. */
	int was_commit = w->commit;
	w->commit = commit_header(p, amt);
	return was_commit ? flush(w) : SQLITE_OK;
}

static int w_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc : w->real->pMethods->xTruncate(w->real, size);
}

static int w_sync(sqlite3_file *f, int flags)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc : w->real->pMethods->xSync(w->real, flags);
}

static int w_size(sqlite3_file *f, sqlite3_int64 *size)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc : w->real->pMethods->xFileSize(w->real, size);
}

static int w_lock(sqlite3_file *f, int lock)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xLock(w->real, lock);
}

static int w_unlock(sqlite3_file *f, int lock)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xUnlock(w->real, lock);
}

static int w_reserved(sqlite3_file *f, int *out)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xCheckReservedLock(w->real, out);
}

static int w_control(sqlite3_file *f, int op, void *arg)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	if (rc)
		return rc;
	if (!w->wal && op == SQLITE_FCNTL_CKPT_START) {
		in_ckpt = 1;
		ckpt_gen = ++ckpt_passes;
	} else if (!w->wal && op == SQLITE_FCNTL_CKPT_DONE) {
		in_ckpt = 0;
	}
	return w->real->pMethods->xFileControl(w->real, op, arg);
}

static int w_sector(sqlite3_file *f)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xSectorSize(w->real);
}

static int w_device(sqlite3_file *f)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xDeviceCharacteristics(w->real);
}

static int w_shm_map(sqlite3_file *f, int pg, int pgsz, int extend,
                     void volatile **pp)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc
	          : w->real->pMethods->xShmMap(w->real, pg, pgsz, extend, pp);
}

static int w_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc
	          : w->real->pMethods->xShmLock(w->real, offset, n, flags);
}

static void w_shm_barrier(sqlite3_file *f)
{
	gfile *w = (gfile *)f;
	/* Only a database has shared memory, called here before SQLite
	 * publishes a commit: its WAL's pending bytes go first. A failure
	 * cannot be returned here; it sticks, and the WAL's next call
	 * reports it. */
	if (w->link)
		(void)flush(w->link);
	w->real->pMethods->xShmBarrier(w->real);
}

static int w_shm_unmap(sqlite3_file *f, int del)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc : w->real->pMethods->xShmUnmap(w->real, del);
}

static int w_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp)
{
	gfile *w = (gfile *)f;
	int rc = flush(w);
	return rc ? rc : w->real->pMethods->xFetch(w->real, off, amt, pp);
}

static int w_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	gfile *w = (gfile *)f;
	return w->real->pMethods->xUnfetch(w->real, off, p);
}

/* Up to the version the real file's methods have (set per file). */
static sqlite3_io_methods wal_methods[4];

static const sqlite3_io_methods *methods_for(int version)
{
	return &wal_methods[version < 1 ? 1 : version > 3 ? 3 : version];
}

static void methods_init(void)
{
	for (int v = 1; v <= 3; v++)
		wal_methods[v] = (sqlite3_io_methods){
			v, w_close, w_read, w_write, w_truncate, w_sync, w_size,
			w_lock, w_unlock, w_reserved, w_control, w_sector,
			w_device, v >= 2 ? w_shm_map : NULL,
			v >= 2 ? w_shm_lock : NULL,
			v >= 2 ? w_shm_barrier : NULL,
			v >= 2 ? w_shm_unmap : NULL, v >= 3 ? w_fetch : NULL,
			v >= 3 ? w_unfetch : NULL};
}

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
                  int flags, int *out_flags)
{
	(void)vfs;
	if (!(flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_DB)))
		return base_vfs->xOpen(base_vfs, name, f, flags, out_flags);
	gfile *w = (gfile *)f;
	memset(w, 0, sizeof *w);
	w->wal = (flags & SQLITE_OPEN_WAL) != 0;
	w->real = (sqlite3_file *)(void *)((char *)f + real_offset());
	int rc = base_vfs->xOpen(base_vfs, name, w->real, flags, out_flags);
	/* On failure SQLite calls no method: base stays without any. */
	if (rc == SQLITE_OK && w->real->pMethods)
		w->base.pMethods = methods_for(w->real->pMethods->iVersion);
	/* A WAL's database file (SQLite opened it first, through this VFS
	 * too: the same pager) learns of it, for its xShmBarrier. */
	if (rc == SQLITE_OK && w->wal && w->base.pMethods) {
		sqlite3_file *db = sqlite3_database_file_object(name);
		if (db && db->pMethods == w->base.pMethods) {
			w->link = (gfile *)db;
			w->link->link = w;
		}
	}
	return rc;
}

static const char *registered;

static void do_register(void)
{
	vs_pagecache_config(); /* before SQLite is initialised */
	/* No memory statistics: with them every SQLite allocation takes a
	 * process-wide mutex and updates counters, and nothing in vsweep
	 * reads them (1.2 % of a run's instructions). */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_initialize() != SQLITE_OK)
		return;
	base_vfs = sqlite3_vfs_find(NULL);
	if (!base_vfs)
		return;
	methods_init();
	/* The default VFS with our xOpen: its other methods take the VFS
	 * only for what a copy holds alike (name length, app data). */
	walvfs = *base_vfs;
	walvfs.pNext = NULL;
	walvfs.szOsFile = (int)(real_offset() + (size_t)base_vfs->szOsFile);
	walvfs.zName = "vsweep-wal";
	walvfs.xOpen = v_open;
	if (sqlite3_vfs_register(&walvfs, 0) == SQLITE_OK)
		registered = walvfs.zName;
}

const char *vs_walvfs_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, do_register);
	return registered;
}
