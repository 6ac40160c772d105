/* Check suite for walvfs.c: the results file's VFS gathers the WAL's
 * frame writes and a checkpoint's frame reads into few system calls,
 * while every commit is in the file when it returns.
 *
 * System calls are counted by the kernel (/proc/self/io: syscr, syscw),
 * the same transactions through SQLite's default VFS beside them. Pages
 * are 16 KiB, so a frame is 16 408 bytes and a gathered write (at most
 * 131 071 bytes) holds 7 frames; each row is one 12 000-byte blob, which
 * fills a page of its own (overflow pages hold what does not fit). And
 * the page cache comes from the region pagecache.c gives SQLite. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/walvfs.h"

enum { BLOB = 12000, ROWS = 60 };

static char dir[256], path[300], path2[300];

static void setup(void)
{
	strcpy(dir, "/tmp/vs_walvfs_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/a.db", dir);
	snprintf(path2, sizeof path2, "%s/b.db", dir);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The kernel's count of this process's read or write system calls. */
static long long syscalls(const char *key)
{
	FILE *f = fopen("/proc/self/io", "r");
	ck_assert_ptr_nonnull(f);
	char k[64];
	long long v, out = -1;
	while (fscanf(f, "%63[^:]: %lld\n", k, &v) == 2)
		if (!strcmp(k, key))
			out = v;
	fclose(f);
	ck_assert_int_ge(out, 0);
	return out;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "");
}

/* A results-file-like connection: 16 KiB pages, WAL, no automatic
 * checkpoint; vfs NULL: SQLite's default. */
static sqlite3 *open_db(const char *p, const char *vfs, int cache_pages)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(p, &db,
	                                 SQLITE_OPEN_READWRITE |
	                                     SQLITE_OPEN_CREATE,
	                                 vfs),
	                 SQLITE_OK);
	char sql[200];
	snprintf(sql, sizeof sql,
	         "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; "
	         "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; "
	         "PRAGMA cache_size = %d", cache_pages);
	exec_ok(db, sql);
	exec_ok(db, "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, "
	            "b BLOB)");
	return db;
}

/* Rows k0 .. k0 + n - 1, blob bytes (k + i) % 251, in one transaction
 * (commit 0: left open). Asserts only at the end: Check writes a line
 * to its own file at every assertion, which the counts would see. */
static void insert(sqlite3 *db, int k0, int n, int commit)
{
	unsigned char *b = malloc(BLOB);
	sqlite3_stmt *s = NULL;
	int ok = b && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
	         sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &s,
	                            NULL) == SQLITE_OK;
	for (int k = k0; ok && k < k0 + n; k++) {
		for (int i = 0; i < BLOB; i++)
			b[i] = (unsigned char)((k + i) % 251);
		sqlite3_bind_int(s, 1, k);
		sqlite3_bind_blob(s, 2, b, BLOB, SQLITE_STATIC);
		ok = sqlite3_step(s) == SQLITE_DONE;
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	free(b);
	if (ok && commit)
		ok = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
	ck_assert_msg(ok, "inserting rows %d..%d: %s", k0, k0 + n - 1,
	              sqlite3_errmsg(db));
}

/* Rows and whether every blob holds its pattern, read by a connection of
 * SQLite's default VFS, and the file's integrity. */
static int rows_ok(const char *p, int *rows)
{
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	sqlite3_stmt *s = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT k, b FROM t", -1, &s,
	                                    NULL),
	                 SQLITE_OK);
	int ok = 1;
	*rows = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int k = sqlite3_column_int(s, 0);
		const unsigned char *b = sqlite3_column_blob(s, 1);
		ok = ok && sqlite3_column_bytes(s, 1) == BLOB;
		for (int i = 0; ok && i < BLOB; i++)
			ok = b[i] == (unsigned char)((k + i) % 251);
		++*rows;
	}
	sqlite3_finalize(s);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
	                                    &s, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ok = ok && !strcmp((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	sqlite3_close(db);
	return ok;
}

/* Runs body in a child process that ends with _exit, whatever body
 * left open (no close, no rollback: as if killed); body's 1 is success. */
static void run_killed(int (*body)(void))
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(body() ? 0 : 1);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Write system calls of one ROWS-row transaction (ROWS frames and a
 * few for the b-tree's inner pages). */
static long long writes_of_commit(const char *p, const char *vfs)
{
	sqlite3 *db = open_db(p, vfs, 2000);
	long long w0 = syscalls("syscw");
	insert(db, 0, ROWS, 1); /* one assertion: one write of Check's */
	long long w = syscalls("syscw") - w0 - 1;
	sqlite3_close(db);
	return w;
}

START_TEST(frames_written_together)
{
	const char *vfs = vs_walvfs_name();
	ck_assert_ptr_nonnull(vfs);
	long long gathered = writes_of_commit(path, vfs);
	long long plain = writes_of_commit(path2, NULL);
	/* Default VFS: two per frame. Here: 7 frames a call, plus the WAL
	 * header and the commit's last run. */
	ck_assert_int_ge(plain, 2 * ROWS);
	ck_assert_int_le(gathered, ROWS / 7 + 4);
	int rows;
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, ROWS);
}
END_TEST

START_TEST(every_commit_readable_when_it_returns)
{
	sqlite3 *db = open_db(path, vs_walvfs_name(), 2000);
	for (int c = 0; c < 5; c++) {
		/* 1 row (the commit frame alone), then 7 (a gathered write
		 * of exactly the buffer's frames), then more */
		int n = c == 0 ? 1 : c == 1 ? 7 : 10 * c;
		int before;
		ck_assert(rows_ok(path, &before));
		insert(db, before, n, 1);
		int after;
		ck_assert(rows_ok(path, &after));
		ck_assert_int_eq(after, before + n);
	}
	sqlite3_close(db);
}
END_TEST

/* kill -9 of a run: the child commits three transactions and dies inside
 * a fourth, which is larger than its page cache (SQLite writes its pages
 * to the WAL before the commit: gathered, not committed). */
static int three_commits_and_a_spill(void)
{
	sqlite3 *db = open_db(path, vs_walvfs_name(), 20);
	for (int c = 0; c < 3; c++)
		insert(db, 10 * c, 10, 1);
	insert(db, 30, 50, 0);
	return 1;
}

START_TEST(killed_writer_keeps_every_commit)
{
	run_killed(three_commits_and_a_spill);
	int rows;
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, 30);
}
END_TEST

/* A transaction larger than its page cache writes pages to the WAL
 * before its commit; pages it changes again are rewritten in place, and
 * the commit then rewrites the frame headers from the first of them on
 * (new checksums), the commit frame's last. Each rewrite must reach the
 * file before COMMIT returns: here the rows are committed, another
 * connection copies the WAL into the file, and the writer dies. Recovery
 * reads the WAL's checksums: a commit frame header left behind would
 * lose the committed rows (and leave the file half copied). */
static int spilled_rewritten_committed_copied(void)
{
	sqlite3 *db = open_db(path, vs_walvfs_name(), 20);
	insert(db, 0, 50, 0); /* left open; spills: 20 pages of cache */
	int ok = sqlite3_exec(db, "UPDATE t SET b = zeroblob(12000) "
	                          "WHERE k = 0; UPDATE t SET b = "
	                          "(SELECT b FROM t WHERE k = 1) WHERE "
	                          "k = 0", NULL, NULL, NULL) == SQLITE_OK;
	/* row 0 back to row 1's bytes: 0 now matches k = 1's pattern */
	ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
	sqlite3 *c = open_db(path, vs_walvfs_name(), 2000);
	int log = -1, done = -1;
	return ok &&
	       sqlite3_wal_checkpoint_v2(c, "main", SQLITE_CHECKPOINT_PASSIVE,
	                                 &log, &done) == SQLITE_OK &&
	       done == log && log > 50;
}

START_TEST(rewritten_commit_survives_kill)
{
	run_killed(spilled_rewritten_committed_copied);
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	sqlite3_stmt *q = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*), "
	                                    "sum(b = (SELECT b FROM t WHERE k "
	                                    "= 1)) FROM t", -1, &q, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(q, 0), 50);
	ck_assert_int_eq(sqlite3_column_int(q, 1), 2); /* rows 0 and 1 */
	sqlite3_finalize(q);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
	                                    &q, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), "ok");
	sqlite3_finalize(q);
	sqlite3_close(db);
}
END_TEST

/* Two checkpoint passes on one connection with the WAL started again in
 * between (the same offsets, new frames): the second pass must copy the
 * new frames, not what the first pass read ahead. */
START_TEST(read_ahead_never_outlives_its_pass)
{
	sqlite3 *w = open_db(path, vs_walvfs_name(), 2000);
	sqlite3 *c = open_db(path, vs_walvfs_name(), 2000);
	int log = -1, done = -1;
	insert(w, 0, ROWS, 1);
	ck_assert_int_eq(sqlite3_wal_checkpoint_v2(c, "main",
	                                           SQLITE_CHECKPOINT_PASSIVE,
	                                           &log, &done),
	                 SQLITE_OK);
	ck_assert_int_eq(done, log);
	/* every frame copied and no reader: the next write restarts the
	 * WAL at its start; rows of other bytes over the same offsets */
	exec_ok(w, "DELETE FROM t");
	insert(w, 1000, ROWS, 1);
	ck_assert_int_eq(sqlite3_wal_checkpoint_v2(c, "main",
	                                           SQLITE_CHECKPOINT_TRUNCATE,
	                                           &log, &done),
	                 SQLITE_OK);
	ck_assert_int_eq(log, 0); /* truncated: the file holds everything */
	sqlite3_close(c);
	sqlite3_close(w);
	int rows;
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, ROWS);
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	sqlite3_stmt *q = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT min(k) FROM t", -1, &q,
	                                    NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(q, 0), 1000);
	sqlite3_finalize(q);
	sqlite3_close(db);
}
END_TEST

/* A VFS under the results file's (made the default before it is first
 * asked for, so that it is its base): SQLite's own, except that WAL
 * writes fail (a full disk) while fail_wal is set. */
static sqlite3_vfs *unix_vfs;
static volatile int fail_wal;

typedef struct ffile {
	sqlite3_file base;
	sqlite3_file *real;
	int wal;
} ffile;

#define REAL(f) (((ffile *)(void *)(f))->real)
static int f_close(sqlite3_file *f)
{
	int rc = REAL(f)->pMethods->xClose(REAL(f));
	sqlite3_free(REAL(f));
	return rc;
}
static int f_read(sqlite3_file *f, void *p, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), p, n, o);
}
static int f_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 o)
{
	if (((ffile *)(void *)f)->wal && fail_wal)
		return SQLITE_FULL;
	return REAL(f)->pMethods->xWrite(REAL(f), p, n, o);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 n)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), n);
}
static int f_sync(sqlite3_file *f, int fl)
{
	return REAL(f)->pMethods->xSync(REAL(f), fl);
}
static int f_size(sqlite3_file *f, sqlite3_int64 *n)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), n);
}
static int f_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int f_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int f_reserved(sqlite3_file *f, int *o)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), o);
}
static int f_control(sqlite3_file *f, int op, void *a)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int f_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int f_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int f_shm_map(sqlite3_file *f, int a, int b, int c, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), a, b, c, p);
}
static int f_shm_lock(sqlite3_file *f, int a, int b, int c)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), a, b, c);
}
static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int f_shm_unmap(sqlite3_file *f, int d)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), d);
}
static const sqlite3_io_methods f_methods = {
	2, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock,
	f_unlock, f_reserved, f_control, f_sector, f_device, f_shm_map,
	f_shm_lock, f_shm_barrier, f_shm_unmap, NULL, NULL};

static int f_open(sqlite3_vfs *v, const char *name, sqlite3_file *f,
                  int flags, int *out)
{
	(void)v;
	ffile *x = (ffile *)(void *)f;
	x->base.pMethods = NULL;
	x->wal = (flags & SQLITE_OPEN_WAL) != 0;
	x->real = sqlite3_malloc(unix_vfs->szOsFile);
	if (!x->real)
		return SQLITE_NOMEM;
	memset(x->real, 0, (size_t)unix_vfs->szOsFile);
	int rc = unix_vfs->xOpen(unix_vfs, name, x->real, flags, out);
	if (rc != SQLITE_OK) {
		sqlite3_free(x->real);
		return rc;
	}
	x->base.pMethods = &f_methods;
	return SQLITE_OK;
}

/* Registers the failing VFS as the default (in a test's own process). */
static void failing_vfs_default(void)
{
	static sqlite3_vfs v;
	ck_assert_int_eq(sqlite3_initialize(), SQLITE_OK);
	unix_vfs = sqlite3_vfs_find(NULL);
	v = *unix_vfs;
	v.pNext = NULL;
	v.zName = "failing";
	v.szOsFile = (int)sizeof(ffile);
	v.xOpen = f_open;
	ck_assert_int_eq(sqlite3_vfs_register(&v, 1), SQLITE_OK);
}

/* A commit whose WAL write fails stays failed: its frames, gathered and
 * not written, are dropped with the error, and the file keeps failing
 * (so nothing is appended after the hole) even once the disk has room
 * again. A writer that commits 10 rows, fails to commit 2 more,
 * checkpoints, and is killed: the file holds the 10. */
static int commit_fails_then_checkpoint(void)
{
	failing_vfs_default();
	sqlite3 *db = open_db(path, vs_walvfs_name(), 2000);
	insert(db, 0, 10, 1);
	fail_wal = 1;
	/* 2 rows: their frames and the commit's all in the buffer when the
	 * commit's write fails */
	int rc = sqlite3_exec(db, "BEGIN; INSERT INTO t SELECT k + 10, b FROM "
	                          "t WHERE k < 2; COMMIT", NULL, NULL, NULL);
	fail_wal = 0; /* room again */
	/* a checkpoint reads the WAL: anything still pending would be
	 * written now, past the last commit, looking committed (it fails or
	 * not: the bytes must not come back) */
	sqlite3_exec(db, "PRAGMA wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc != SQLITE_OK;
}

START_TEST(failed_commit_stays_failed)
{
	run_killed(commit_fails_then_checkpoint);
	int rows;
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, 10);
}
END_TEST

/* Read system calls of a checkpoint of ROWS frames and a few, on a
 * second connection of vfs, beside the writer's. */
static long long reads_of_checkpoint(const char *p, const char *vfs)
{
	sqlite3 *w = open_db(p, NULL, 2000);
	insert(w, 0, ROWS, 1);
	sqlite3 *c = open_db(p, vfs, 2000);
	int log = -1, done = -1;
	long long r0 = syscalls("syscr");
	int rc = sqlite3_wal_checkpoint_v2(c, "main", SQLITE_CHECKPOINT_PASSIVE,
	                                   &log, &done);
	long long r = syscalls("syscr") - r0;
	ck_assert_int_eq(rc, SQLITE_OK);
	ck_assert_int_ge(log, ROWS);
	ck_assert_int_eq(done, log);
	sqlite3_close(c);
	sqlite3_close(w);
	return r;
}

START_TEST(checkpoint_reads_ahead)
{
	long long gathered = reads_of_checkpoint(path, vs_walvfs_name());
	long long plain = reads_of_checkpoint(path2, NULL);
	ck_assert_int_ge(plain, ROWS); /* one per frame */
	ck_assert_int_le(gathered, ROWS / 7 + 8);
	int rows;
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, ROWS);
	/* the copy is the file's: the WAL can go, the rows stay */
	sqlite3 *db = open_db(path, vs_walvfs_name(), 2000);
	ck_assert_int_eq(sqlite3_wal_checkpoint_v2(db, "main",
	                                           SQLITE_CHECKPOINT_TRUNCATE,
	                                           NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	char wal[320];
	snprintf(wal, sizeof wal, "%s-wal", path);
	ck_assert_int_ne(access(wal, F_OK), 0); /* the last close removes it */
	ck_assert(rows_ok(path, &rows));
	ck_assert_int_eq(rows, ROWS);
}
END_TEST

/* The results file's connections take their page cache from the
 * huge-page region (pagecache.c) set up with the VFS: SQLite counts the
 * region's slots in use. */
START_TEST(page_cache_in_the_region)
{
	sqlite3 *db = open_db(path, vs_walvfs_name(), 2000);
	insert(db, 0, 20, 1);
	int cur = 0, hi = 0;
	ck_assert_int_eq(sqlite3_status(SQLITE_STATUS_PAGECACHE_USED, &cur,
	                                &hi, 0),
	                 SQLITE_OK);
	ck_assert_int_ge(cur, 20); /* the 20 rows' pages, at least */
	sqlite3_close(db);
}
END_TEST

/* SQLite keeps no memory statistics once the store's VFS is set up:
 * with them each of its allocations takes a process-wide mutex and
 * updates counters that nothing in vsweep reads. */
START_TEST(no_memory_statistics)
{
	sqlite3 *db = open_db(path, vs_walvfs_name(), 2000);
	insert(db, 0, 20, 1);
	ck_assert_int_eq(sqlite3_memory_used(), 0);
	ck_assert_int_eq(sqlite3_memory_highwater(0), 0);
	sqlite3_close(db);
}
END_TEST

static Suite *walvfs_suite(void)
{
	Suite *s = suite_create("walvfs");
	TCase *tc = tcase_create("walvfs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, frames_written_together);
	tcase_add_test(tc, every_commit_readable_when_it_returns);
	tcase_add_test(tc, killed_writer_keeps_every_commit);
	tcase_add_test(tc, checkpoint_reads_ahead);
	tcase_add_test(tc, page_cache_in_the_region);
	tcase_add_test(tc, no_memory_statistics);
	tcase_add_test(tc, rewritten_commit_survives_kill);
	tcase_add_test(tc, read_ahead_never_outlives_its_pass);
	tcase_add_test(tc, failed_commit_stays_failed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(walvfs_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
