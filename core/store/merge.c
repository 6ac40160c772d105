/* `vsweep merge` (and vsweep-mpi's last step): joins the files of one
 * sweep, written by `run --shard K/N` or by vsweep-mpi's ranks ("part R"),
 * into one results file whose stored rows are a single run's. Called by
 * tools/vsweep/main.c and tools/vsweep-mpi/main.c; vsweep-mpi's parts code
 * also reads a file's variant ids through vs_merge_each_variant.
 *
 * This file holds the whole: the variants walked in index order, each
 * taken from the file that holds it, and the output written under its
 * temporary name, then linked into place. The inputs are opened and
 * checked in merge_inputs.c, a variant's rows copied in merge_rows.c,
 * the sweep record and signal names in merge_record.c
 * (merge_internal.h: what they share).
 *
 * Invariants:
 * - The inputs are only read. They belong to one sweep: every identity
 *   key record.c marks as the sweep's, and the plugin builds, equal the
 *   first file's (a key a later build added, the map's digest, among the
 *   files that have it); all shards of one N or all parts, each given
 *   once.
 * - Variants are copied in ascending index, each from the one file that
 *   holds it (shards: K = i mod N; parts: the file whose next id is i).
 * - Key order: each table is filled in the order one writer storing the
 *   variants in index order fills it, as an unsharded run does; the
 *   state rows of a variant come in their key order, so they land at the
 *   b-tree's right edge.
 * - The output is written under OUT.partial-PID, synced, and linked to
 *   OUT only when complete: OUT is never half-written, never replaced.
 *   A stop (vs_merge_stop) or a failure removes it.
 * - One snapshot per input: its own connection holds a read transaction
 *   from its first read to its close, so its counts, its variant rows
 *   and the order of its rows are those of one moment, even while a run
 *   still writes it (--allow-partial). The rows copied inside SQLite are
 *   read on the output's connection, at that moment or later; a run
 *   commits a variant's rows with its variant row and never changes
 *   them, and the rows committed after that moment lie after all others
 *   by rowid: a variant whose row the snapshot holds has the same rows
 *   there. So what is merged is the file as it stood at that moment. */
#include "store/merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/test_hooks.h"
#include "common/util.h"
#include "store/merge_internal.h"
#include "store/reader.h"
#include "store/stats.h"
#include "store/store.h"

volatile sig_atomic_t vs_merge_stop;

vs_rc merge_exec(sqlite3 *db, const char *path, const char *sql,
		 vs_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		vs_error_set(err, "%s: %s", path, msg ? msg : "SQL error");
		sqlite3_free(msg);
		return VS_RC_IO;
	}
	return VS_RC_OK;
}

/* Which file holds variant v, -1 if none: shards by K = v mod N; parts by
 * walking their ascending ids, a variant in two parts being an error. */
static vs_rc holder(shard *s, int n, unsigned long long v, int *idx,
		    vs_error *err)
{
	*idx = -1;
	for (int i = 0; i < n; i++) {
		if (s[i].is_part ? s[i].head != (long long)v
		                 : s[i].k != v % s[i].n)
			continue;
		if (*idx >= 0) {
			vs_error_set(err, "variant %llu is in both %s and %s; "
			             "merge one of them", v, s[*idx].path,
			             s[i].path);
			return VS_RC_INPUT;
		}
		*idx = i;
	}
	return VS_RC_OK;
}

static vs_rc copy_all(copier *c, shard *s, stmts *q, int n,
		      unsigned long long count, int allow_partial,
		      vs_merge_summary *sum, vs_error *err)
{
	if (merge_exec(c->out, c->tmp, "BEGIN", err))
		return VS_RC_IO;
	for (unsigned long long v = 0; v < count; v++) {
		int idx;
		if (vs_merge_stop)
			return VS_RC_INTERRUPTED;
		if (holder(s, n, v, &idx, err))
			return VS_RC_INPUT;
		int got = idx < 0 ? 1 : merge_copy_variant(c, &q[idx],
		                                           (long long)v);
		if (got < 0)
			return merge_fail_db(err, c->tmp, c->out, "copying a variant");
		if (got > 0) {
			if (s[0].is_part && !allow_partial) {
				vs_error_set(err, "variant %llu is in no part; "
				             "finish them with vsweep-mpi run "
				             "--resume, or --allow-partial", v);
				return VS_RC_INPUT;
			}
			sum->missing++;
		} else if (++sum->variants == 1) {
			vs_test_merge_gate(&vs_merge_stop); /* test_hooks.h */
		}
		if (idx >= 0 && s[idx].is_part)
			s[idx].head = sqlite3_step(s[idx].ids) == SQLITE_ROW
			                      ? sqlite3_column_int64(s[idx].ids, 0)
			                      : -1;
		if ((v + 1) % 256 == 0 &&
		    merge_exec(c->out, c->tmp, "COMMIT; BEGIN", err))
			return VS_RC_IO;
	}
	for (int i = 0; i < n; i++)
		if (s[i].is_part && s[i].head != -1) {
			vs_error_set(err, "%s: holds variant %lld, not one of the "
			             "sweep's %llu", s[i].path, s[i].head, count);
			return VS_RC_INPUT;
		}
	return merge_exec(c->out, c->tmp, "COMMIT", err);
}

/* SQLite synced nothing (synchronous = OFF): the data reach the disk
 * before the rename makes the file the output. */
static vs_rc sync_file(const char *path, vs_error *err)
{
	int fd = open(path, O_RDWR);
	if (fd < 0 || fsync(fd) != 0) {
		vs_error_set(err, "%s: cannot sync: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return VS_RC_IO;
	}
	close(fd);
	return VS_RC_OK;
}

static vs_rc write_output(const char *tmp, shard *s, int n,
			  unsigned long long count, int allow_partial,
			  vs_merge_summary *sum, vs_error *err)
{
	copier c = {0};
	c.tmp = tmp;
	stmts *q = vs_xcalloc((size_t)n, sizeof *q);
	vs_rc rc = VS_RC_IO;
	/* URIs on: the inputs are attached by theirs (merge_open_db) */
	char *uri = vs_store_uri(tmp, NULL);
	int orc = uri ? sqlite3_open_v2(uri, &c.out, SQLITE_OPEN_READWRITE |
	                                SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
	                                NULL) : SQLITE_NOMEM;
	free(uri);
	if (orc != SQLITE_OK) {
		rc = merge_fail_db(err, tmp, c.out, "cannot create");
		goto done;
	}
	sqlite3_progress_handler(c.out, 1000, merge_stop_asked, NULL);
	/* No journal: the file is renamed into place only once complete, so
	 * a crash leaves a stray temporary, never a broken output; and every
	 * page is written once instead of twice (WAL, then checkpoint).
	 * secure_delete off as for a run's store (store.c says why). */
	if (merge_exec(c.out, tmp, "PRAGMA page_size = " VS_STORE_PAGE_SIZE "; "
	         "PRAGMA main.journal_mode = OFF; PRAGMA synchronous = OFF; "
	         "PRAGMA secure_delete = OFF; "
	         "PRAGMA cache_size = " VS_STORE_CACHE_KIB "; BEGIN", err) ||
	    merge_exec(c.out, tmp, vs_schema_sql, err) ||
	    merge_exec(c.out, tmp, "PRAGMA user_version = 1", err))
		goto done;
	rc = merge_setup_copier(&c, err);
	if (!rc)
		rc = merge_copy_sweep_record(&c, s, n, err);
	for (int i = 0; i < n && !rc; i++)
		rc = merge_prepare_shard(&s[i], &c, &q[i], err);
	if (!rc && n < sqlite3_limit(c.out, SQLITE_LIMIT_ATTACHED, -1))
		for (int i = 0; i < n && !rc; i++)
			rc = merge_attach_shard(&c, &s[i], i, &q[i], err);
	if (!rc)
		rc = copy_all(&c, s, q, n, count, allow_partial, sum, err);
	/* The merged file is final: the planner's statistics go in. */
	if (!rc)
		rc = merge_exec(c.out, tmp, "BEGIN", err);
	if (!rc)
		rc = vs_store_stats_write(c.out, tmp, -1, err);
	if (!rc)
		rc = merge_exec(c.out, tmp, "COMMIT", err);
	/* WAL from now on, like every results file vsweep writes. */
	if (!rc)
		rc = merge_exec(c.out, tmp, "PRAGMA main.journal_mode = WAL", err);
done:
	for (int i = 0; i < n; i++)
		merge_finalize_shard(&s[i], &q[i]);
	free(q);
	merge_finish_copier(&c);
	if (c.out && sqlite3_close(c.out) != SQLITE_OK && rc == 0)
		rc = merge_fail_db(err, tmp, c.out, "closing");
	if (rc == 0)
		rc = sync_file(tmp, err);
	return rc;
}

/* The temporary name out is written under in this process. */
static void tmp_name(char *buf, size_t n, const char *out)
{
	snprintf(buf, n, "%s.partial-%ld", out, (long)getpid());
}

/* OUT.partial-PID files (and their -wal, -shm, -journal) of merges into
 * out whose process no longer runs here: what a SIGKILL, or a launcher
 * killing vsweep-mpi's ranks, left. The pid is this host's: a merge into
 * the same OUT from another host at the same time is not supported. */
static void remove_stale_tmps(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[4096], prefix[4096], path[8300];
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", slash == out ? 1 :
		         (int)(slash - out), out);
	else
		snprintf(dir, sizeof dir, ".");
	snprintf(prefix, sizeof prefix, "%s.partial-", slash ? slash + 1 : out);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		char *end;
		errno = 0;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (errno || end == e->d_name + plen || pid <= 0 ||
		    pid == (long)getpid() ||
		    (*end && strcmp(end, "-wal") && strcmp(end, "-shm") &&
		     strcmp(end, "-journal")))
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to signal: alive */
		snprintf(path, sizeof path, "%s/%.*s", dir,
		         (int)(end - e->d_name), e->d_name);
		vs_remove_db_files(path);
	}
	closedir(d);
}

vs_rc vs_merge(const char *out, const char *const *paths, int n,
	       int allow_partial, vs_merge_summary *sum, vs_error *err)
{
	memset(sum, 0, sizeof *sum);
	if (access(out, F_OK) == 0) {
		vs_error_set(err, "%s: exists; merge into a new file", out);
		return VS_RC_INPUT;
	}
	shard *s = vs_xcalloc((size_t)n, sizeof *s);
	for (int i = 0; i < n; i++)
		s[i].path = paths[i];
	vs_rc rc = merge_check_writers(s, n, allow_partial, err);
	for (int i = 0; i < n && !rc; i++)
		rc = merge_open_shard(&s[i], err);
	unsigned long long count = 0;
	if (!rc) {
		char *c = merge_meta_text(s[0].db, "variant_count", 1);
		count = c ? strtoull(c, NULL, 10) : 0;
		free(c);
		rc = merge_check_shards(s, n, count, allow_partial, err);
	}
	char tmp[4096];
	tmp_name(tmp, sizeof tmp, out);
	if (!rc) {
		remove_stale_tmps(out);
		vs_remove_db_files(tmp);
		rc = write_output(tmp, s, n, count, allow_partial, sum, err);
		/* link() never replaces: a file that appeared at out
		 * while merging stays, and the merge says so. */
		if (rc == 0 && link(tmp, out) != 0) {
			if (errno == EEXIST)
				vs_error_set(err, "%s: exists (it appeared while "
				             "merging); merge into a new file", out);
			else
				vs_error_set(err, "%s: cannot move %s into place: "
				             "%s", out, tmp, strerror(errno));
			rc = errno == EEXIST ? VS_RC_INPUT : VS_RC_IO;
		}
		vs_remove_db_files(tmp); /* merged: out is its other name */
	}
	if (rc && vs_merge_stop) {
		/* whatever failed, it failed because of the stop */
		vs_error_set(err, "interrupted; %s not written", out);
		rc = VS_RC_INTERRUPTED;
	}
	sum->shards = n;
	for (int i = 0; i < n; i++) {
		sqlite3_close(s[i].db);
		free(s[i].uri);
	}
	free(s);
	return rc;
}

vs_rc vs_merge_each_variant(const char *path,
			    vs_rc (*fn)(void *ctx, uint64_t i), void *ctx,
                            vs_error *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	vs_rc rc = merge_open_db(path, &db, NULL, err);
	if (rc) {
		sqlite3_close(db);
		return VS_RC_IO;
	}
	if (sqlite3_prepare_v2(db, "SELECT variant_id FROM variant ORDER BY "
	                       "variant_id", -1, &q, NULL) != SQLITE_OK) {
		rc = merge_fail_db(err, path, db, "reading its variants");
	} else {
		int step;
		while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW)
			rc = fn(ctx, (uint64_t)sqlite3_column_int64(q, 0));
		if (!rc && step != SQLITE_DONE)
			rc = merge_fail_db(err, path, db, "reading its variants");
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc;
}
