/* The inputs of a merge: opening each file in one snapshot (see merge.c's
 * invariants) and checking that the files are one sweep's shards or
 * parts, each given once, complete unless --allow-partial, and that no
 * run still writes them. */
#include "store/merge_inputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/util.h"
#include "store/reader.h"
#include "store/store.h"
#include "store/units.h"

/* SQLite's progress handler: a long statement (the check of a table's
 * order, the planner's statistics) ends as SQLITE_INTERRUPT once a stop
 * is asked for. */
int merge_stop_asked(void *ctx)
{
	(void)ctx;
	return vs_merge_stop != 0;
}

vs_rc merge_fail_db(vs_error *err, const char *path, sqlite3 *db,
		     const char *what)
{
	vs_error_set(err, "%s: %s: %s", path, what, sqlite3_errmsg(db));
	return VS_RC_IO;
}

/* A meta value as text (quoted: SQL's literal, which tells a number
 * from its text and keeps every bit, for comparing files); NULL if
 * absent. */
char *merge_meta_text(sqlite3 *db, const char *key, int quoted)
{
	sqlite3_stmt *q = NULL;
	char *v = NULL;
	if (sqlite3_prepare_v2(db, quoted ? "SELECT quote(value) FROM meta "
	                       "WHERE key = ?" : "SELECT value FROM meta WHERE "
	                       "key = ?", -1, &q, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		v = vs_strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return v;
}

static long long merge_query_ll(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	long long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Whether this user may write path and its directory: SQLite then folds
 * FILE-wal into FILE and removes FILE-wal and FILE-shm when its last
 * connection closes. */
static int may_write(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 :
		         (int)(slash - path), path);
	return access(path, W_OK) == 0 && access(dir, W_OK) == 0;
}

/* Inputs are only read, and a merge leaves nothing beside them: a file
 * no run writes whose WAL holds no frame (store/reader.h) is read as
 * immutable, which takes no lock and makes no -wal or -shm, so that
 * another user's shards, or shards on a read-only mount, merge. A run
 * still writing the file (--allow-partial) or a killed run's WAL with
 * committed variants needs SQLite's WAL reader: read-write when this
 * user may write the file and its directory, so that the WAL is folded
 * back and its side files removed at the close, as a run's own close
 * does; read-only otherwise, which may leave FILE-shm beside FILE-wal. */
vs_rc merge_open_db(const char *path, sqlite3 **db, char **uri,
		    vs_error *err)
{
	*db = NULL;
	if (uri)
		*uri = NULL;
	int e = vs_store_read_errno(path);
	if (e) {
		if (e == ENOENT)
			vs_error_set(err, "%s: no such results file", path);
		else
			vs_error_set(err, "%s: cannot read: %s", path,
			             vs_store_read_error(e));
		return VS_RC_INPUT;
	}
	int rw = 0;
	const char *query = "immutable=1";
	if (!vs_store_is_settled(path)) {
		rw = may_write(path);
		query = rw ? "mode=rw" : "mode=ro";
	}
	char *name = vs_store_uri(path, query);
	if (!name) {
		vs_error_set(err, "%s: out of memory", path);
		return VS_RC_IO;
	}
	int flags = (rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
	            SQLITE_OPEN_URI;
	if (sqlite3_open_v2(name, db, flags, NULL) != SQLITE_OK) {
		free(name);
		return merge_fail_read(err, path, *db);
	}
	if (uri)
		*uri = name;
	else
		free(name);
	return VS_RC_OK;
}

vs_rc merge_fail_read(vs_error *err, const char *path, sqlite3 *db)
{
	int code = sqlite3_errcode(db) & 0xff;
	int sys = sqlite3_system_errno(db);
	if (code == SQLITE_NOTADB) {
		vs_error_set(err, "%s: not a vsweep results file (%s)", path,
		             sqlite3_errmsg(db));
		return VS_RC_INPUT;
	}
	char shm[4096];
	snprintf(shm, sizeof shm, "%s-shm", path);
	if (code == SQLITE_CANTOPEN && vs_store_wal_has_frames(path, NULL) &&
	    access(shm, F_OK) != 0) {
		vs_error_set(err, "%s: cannot read: %s-wal holds stored "
		             "variants, which SQLite reads only with a %s-shm "
		             "beside it, and this user may not create one; merge "
		             "as a user who may write there, or fold the WAL into "
		             "the file first (sqlite3 %s 'PRAGMA "
		             "wal_checkpoint(TRUNCATE)')", path, path, path, path);
		return VS_RC_INPUT;
	}
	/* SQLite's "unable to open database file" alone does not tell a
	 * permission from a read-only mount */
	vs_error_set(err, "%s: cannot read: %s%s%s", path, sqlite3_errmsg(db),
	             sys ? ": " : "", sys ? strerror(sys) : "");
	return VS_RC_INPUT;
}

vs_rc merge_open_shard(shard *s, vs_error *err)
{
	vs_rc rc = merge_open_db(s->path, &s->db, &s->uri, err);
	if (rc)
		return rc;
	sqlite3_progress_handler(s->db, 1000, merge_stop_asked, NULL);
	/* The snapshot (see the top): taken by the first read, held until
	 * the close. That read apart from the shard record's: a file this
	 * user cannot read says why, not that it is no results file. */
	if (sqlite3_exec(s->db, "BEGIN; SELECT count(*) FROM sqlite_master",
	                 NULL, NULL, NULL) != SQLITE_OK)
		return merge_fail_read(err, s->path, s->db);
	char *sh = merge_meta_text(s->db, "shard", 0);
	uint64_t k, n;
	if (sh && !strcmp(sh, "variants")) {
		/* A drill-down's file: whole for its chosen variants, no
		 * shard of a sweep. */
		free(sh);
		vs_error_set(err, "%s: a drill-down's file (run with "
		             "--variants or --variants-from): it holds the "
		             "variants it was asked for, not a shard of the "
		             "sweep; merge takes the files of --shard K/N "
		             "runs and of vsweep-mpi", s->path);
		return VS_RC_INPUT;
	}
	if (vs_store_parse_shard(sh, &s->is_part, &k, &n)) {
		free(sh);
		vs_error_set(err, "%s: not a vsweep results file (no shard "
		             "record)", s->path);
		return VS_RC_INPUT;
	}
	free(sh);
	s->k = k;
	s->n = n;
	sqlite3_stmt *q = NULL;
	const char *format = NULL;
	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = "
	                       "'format'", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		format = (const char *)sqlite3_column_text(q, 0);
	vs_rc frc = vs_store_format_check(s->path, format, err);
	sqlite3_finalize(q);
	if (frc)
		return frc;
	s->stored = merge_query_ll(s->db, "SELECT count(*) FROM variant");
	s->head = -1;
	return VS_RC_OK;
}

/* Same identity records and plugin builds as the first file. */
static vs_rc check_same_sweep(shard *s, int i, vs_error *err)
{
	const char *kind = s[i].is_part ? "part" : "shard";
	const char *key;
	for (int k = 0; (key = vs_store_sweep_key(k)); k++) {
		/* a later record, which a file an earlier build wrote lacks:
		 * compared among the files that have it (check_map) */
		if (vs_store_key_is_added(key))
			continue;
		char *a = merge_meta_text(s[0].db, key, 1);
		char *b = merge_meta_text(s[i].db, key, 1);
		int differ = !a || !b || strcmp(a, b);
		free(a);
		free(b);
		if (differ) {
			vs_error_set(err, "%s: not a %s of the sweep of %s: its "
			             "%s differs", s[i].path, kind, s[0].path,
			             key);
			return VS_RC_INPUT;
		}
	}
	const char *sql = "SELECT group_concat(name || ' ' || version || ' ' "
	                  "|| digest, ';') FROM (SELECT * FROM plugin ORDER "
	                  "BY name)";
	sqlite3_stmt *qa = NULL, *qb = NULL;
	sqlite3_prepare_v2(s[0].db, sql, -1, &qa, NULL);
	sqlite3_prepare_v2(s[i].db, sql, -1, &qb, NULL);
	const char *ta = NULL, *tb = NULL;
	if (sqlite3_step(qa) == SQLITE_ROW && sqlite3_step(qb) == SQLITE_ROW) {
		ta = (const char *)sqlite3_column_text(qa, 0);
		tb = (const char *)sqlite3_column_text(qb, 0);
	}
	/* group_concat of no rows is NULL: two plugin-less runs agree. */
	int differ = (ta == NULL) != (tb == NULL) || (ta && strcmp(ta, tb));
	sqlite3_finalize(qa);
	sqlite3_finalize(qb);
	if (differ) {
		vs_error_set(err, "%s: not a %s of the sweep of %s: its plugin "
		             "builds differ", s[i].path, kind, s[0].path);
		return VS_RC_INPUT;
	}
	if (s[i].is_part != s[0].is_part) {
		const shard *p = s[i].is_part ? &s[i] : &s[0];
		const shard *q = s[i].is_part ? &s[0] : &s[i];
		vs_error_set(err, "%s is a part of a vsweep-mpi run and %s a "
		             "--shard %llu/%llu file: merge parts only with "
		             "parts, shards only with shards", p->path, q->path,
		             q->k, q->n);
		return VS_RC_INPUT;
	}
	return VS_RC_OK;
}

/* The map file (meta map_digest) is the same in every file that records
 * it: each is compared with the first that does, the others (written by
 * an earlier build) with none. Named by the files' map paths, since the
 * digest is of the bytes wherever they were. */
static vs_rc check_map(shard *s, int n, vs_error *err)
{
	int first = -1;
	char *want = NULL;
	vs_rc rc = VS_RC_OK;
	for (int i = 0; i < n && !rc; i++) {
		char *d = merge_meta_text(s[i].db, "map_digest", 0);
		if (!d)
			continue;
		if (first < 0) {
			first = i;
			want = d;
			continue;
		}
		if (strcmp(d, want)) {
			char *pa = merge_meta_text(s[first].db, "map_path", 0);
			char *pb = merge_meta_text(s[i].db, "map_path", 0);
			vs_error_set(err, "%s: not a %s of the sweep of %s: its "
			             "map %s (digest %s) differs from %s's map %s "
			             "(digest %s)", s[i].path,
			             s[i].is_part ? "part" : "shard", s[first].path,
			             pb && *pb ? pb : "(none)", *d ? d : "(none)",
			             s[first].path, pa && *pa ? pa : "(none)",
			             *want ? want : "(none)");
			free(pa);
			free(pb);
			rc = VS_RC_INPUT;
		}
		free(d);
	}
	free(want);
	return rc;
}

/* A signal name has one unit in every file that knows it (units.h): two
 * units mean two builds of its plugin, whose values do not mix. */
static vs_rc check_units(shard *s, int n, vs_error *err)
{
	vs_unit_list *l = vs_xcalloc((size_t)n, sizeof *l);
	vs_rc rc = VS_RC_OK;
	for (int i = 0; i < n && !rc; i++)
		if (vs_unit_list_read(s[i].db, &l[i]) != SQLITE_OK)
			rc = merge_fail_db(err, s[i].path, s[i].db,
			                   "reading signal names");
	for (int i = 1; i < n && !rc; i++)
		for (int k = 0; k < l[i].n && !rc; k++) {
			const char *u = l[i].unit[k];
			for (int j = 0; u && j < i && !rc; j++) {
				const char *v = vs_unit_list_find(&l[j],
				                                  l[i].name[k]);
				if (!v || !strcmp(u, v))
					continue;
				vs_error_set(err, "%s and %s: signal %s has unit "
				             "'%s' in the first and '%s' in the "
				             "second: different builds of its "
				             "plugin, not one sweep's", s[j].path,
				             s[i].path, l[i].name[k], v, u);
				rc = VS_RC_INPUT;
			}
		}
	for (int i = 0; i < n; i++)
		vs_unit_list_free(&l[i]);
	free(l);
	return rc;
}

/* Parts: each once; complete unless allow_partial (whether a variant is
 * held twice shows while copying). */
static vs_rc check_parts(shard *s, int n, unsigned long long count,
			 int allow_partial, vs_error *err)
{
	long long held = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (s[j].k == s[i].k) {
				vs_error_set(err, "%s: part %llu is already given "
				             "as %s", s[i].path, s[i].k, s[j].path);
				return VS_RC_INPUT;
			}
		held += s[i].stored;
	}
	if (!allow_partial && (unsigned long long)held < count) {
		vs_error_set(err, "the parts hold %lld of the sweep's %llu "
		             "variants; finish them with vsweep-mpi run "
		             "--resume, or --allow-partial", held, count);
		return VS_RC_INPUT;
	}
	return VS_RC_OK;
}

/* Every file belongs to the sweep of the first: same identity records,
 * same plugin builds, the same map file, all parts or all shards;
 * shards: same N, each K once. */
vs_rc merge_check_shards(shard *s, int n, unsigned long long count,
			  int allow_partial, vs_error *err)
{
	for (int i = 1; i < n; i++) {
		if (check_same_sweep(s, i, err))
			return VS_RC_INPUT;
		if (s[i].is_part)
			continue;
		if (s[i].n != s[0].n) {
			vs_error_set(err, "%s: shard %llu/%llu does not split "
			             "the sweep like %s (%llu/%llu)", s[i].path,
			             s[i].k, s[i].n, s[0].path, s[0].k, s[0].n);
			return VS_RC_INPUT;
		}
		for (int j = 0; j < i; j++)
			if (s[j].k == s[i].k) {
				vs_error_set(err, "%s: shard %llu/%llu is "
				             "already given as %s", s[i].path,
				             s[i].k, s[i].n, s[j].path);
				return VS_RC_INPUT;
			}
	}
	if (check_map(s, n, err) || check_units(s, n, err))
		return VS_RC_INPUT;
	if (s[0].is_part)
		return check_parts(s, n, count, allow_partial, err);
	if (allow_partial)
		return VS_RC_OK;
	unsigned long long n_shards = s[0].n;
	if ((unsigned long long)n < n_shards) {
		for (unsigned long long k = 0; k < n_shards; k++) {
			int found = 0;
			for (int i = 0; i < n; i++)
				found |= s[i].k == k;
			if (!found) {
				vs_error_set(err, "shard %llu/%llu is missing; "
				             "give it, or --allow-partial to merge "
				             "what exists", k, n_shards);
				return VS_RC_INPUT;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		unsigned long long want =
			vs_store_shard_count(count, s[i].k, s[i].n);
		if ((unsigned long long)s[i].stored != want) {
			vs_error_set(err, "%s: shard %llu/%llu holds %lld of its "
			             "%llu variants; finish it with run --resume, "
			             "or --allow-partial", s[i].path, s[i].k,
			             s[i].n, s[i].stored, want);
			return VS_RC_INPUT;
		}
	}
	return VS_RC_OK;
}

/* A run still writing a file: refused, or (allow_partial) merged as its
 * snapshot holds it. */
vs_rc merge_check_writers(shard *s, int n, int allow_partial, vs_error *err)
{
	for (int i = 0; i < n && !allow_partial; i++) {
		long pid = vs_store_writer_pid(s[i].path);
		if (pid > 0) {
			vs_error_set(err, "%s: is still being written by pid %ld; "
			             "wait for the run to end, or --allow-partial "
			             "to merge the variants it holds now",
			             s[i].path, pid);
			return VS_RC_INPUT;
		}
	}
	return VS_RC_OK;
}

