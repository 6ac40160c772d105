/* Drill-down (`vsweep run ... --variants 3,17,40-45`, or `--variants-from
 * RESULTS.db --where "SQL over variant_summary"`): re-simulates only the
 * chosen variants of the sweep, fully recorded, into a new file. Each
 * keeps its variant_id, and a variant's rows depend on its index alone,
 * so they equal those of the same variant in a full run. The indices reach
 * the runner through its index-source hook (vs_index_source). */
#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/util.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "store/reader.h"

int cli_drill_option(void *own, const char *o, const char *v, int *takes)
{
	cli_drill *d = own;
	const char **slot = !strcmp(o, "--variants")        ? &d->list
	                    : !strcmp(o, "--variants-from") ? &d->from
	                    : !strcmp(o, "--where")         ? &d->where
	                                                    : NULL;
	if (!slot)
		return CLI_NOT_MINE;
	if (!v) {
		fprintf(stderr, "vsweep: %s needs a value\n", o);
		return EXIT_BAD_INPUT;
	}
	*slot = v;
	*takes = 1;
	return 0;
}

static void add(uint64_t **idx, size_t *n, size_t *cap, uint64_t i)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*idx = vs_xrealloc(*idx, *cap * sizeof **idx);
	}
	(*idx)[(*n)++] = i;
}

/* indices one range of --variants may hold, so that a typo cannot
 * exhaust memory */
#define MAX_RANGE 10000000ull

/* "3,17,40-45": numbers and inclusive ranges; 0, or -1 when malformed
 * with why in msg (n bytes). */
static int parse_list(const char *text, uint64_t **idx, size_t *n,
                      size_t *cap, char *msg, size_t len)
{
	const char *s = text;
	snprintf(msg, len, "--variants takes indices and ranges such as "
	         "3,17,40-45; got '%s'", text);
	for (;;) {
		char *end = NULL;
		errno = 0;
		if (*s < '0' || *s > '9')
			return -1;
		unsigned long long a = strtoull(s, &end, 10), b = a;
		if (*end == '-' && !errno) {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			b = strtoull(s, &end, 10);
		}
		if (errno) {
			snprintf(msg, len, "--variants: an index in '%s' is "
			         "beyond %llu", text, (unsigned long long)UINT64_MAX);
			return -1;
		}
		if (b < a) {
			snprintf(msg, len, "--variants: the range %llu-%llu "
			         "runs down (a range A-B needs A <= B)", a, b);
			return -1;
		}
		if (b - a >= MAX_RANGE) {
			snprintf(msg, len, "--variants: the range %llu-%llu "
			         "holds more than %llu indices, the most one "
			         "range may", a, b, MAX_RANGE);
			return -1;
		}
		for (unsigned long long i = a; i <= b; i++)
			add(idx, n, cap, i);
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* s, wall time a --where may take: a condition over variant_summary
 * reads one row per variant (seconds for 10^7); past this it is a query
 * that never ends (an unbounded recursive CTE, say) */
#define WHERE_SECONDS 30.0

/* Aborts the query (non-zero) once its time is up. */
static int where_timer(void *deadline)
{
	return vs_now() > *(const double *)deadline;
}

/* 0 when meta's key holds text (NULL: "") in the results file db, 1
 * when it holds another, -1 when there is no such record to read (no
 * meta table, not an SQLite file): not a vsweep results file. */
static int same_meta(sqlite3 *db, const char *key, const char *text)
{
	sqlite3_stmt *q = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1,
	                       &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(q, 0);
			rc = strcmp(v ? v : "", text ? text : "") != 0;
		}
	}
	sqlite3_finalize(q);
	return rc;
}

/* Skips a quoted run of SQL from its opening character *s ('..', "..",
 * `..`, each doubling its quote inside, or [..]); the character after
 * it, or NULL when it does not end. */
static const char *skip_quoted(const char *s)
{
	char close = *s == '[' ? ']' : *s;
	for (s++; *s; s++)
		if (*s == close) {
			if (close == ']' || s[1] != close)
				return s + 1;
			s++;
		}
	return NULL;
}

/* A character of an SQL name, after its first: SQLite's own set. */
static int id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       (unsigned char)c >= 0x80;
}

/* --where must be one condition: it goes between "WHERE (" and ") ORDER
 * BY", and a ')' closing what it did not open ("1) UNION SELECT 7 --")
 * or a ';' would make it another statement. Scanned as SQLite reads it,
 * quotes and comments skipped; 0, or -1 with why set. */
static int where_check(const char *w, char *why, size_t n)
{
	int depth = 0, said = 0; /* said: a character not blank or comment */
	for (const char *s = w; *s;) {
		if (*s == '\'' || *s == '"' || *s == '`' || *s == '[') {
			said = 1;
			const char *e = skip_quoted(s);
			if (!e) {
				snprintf(why, n, "a %c opened at character %d is "
				         "never closed", *s, (int)(s - w) + 1);
				return -1;
			}
			s = e;
		} else if (s[0] == '-' && s[1] == '-') {
			s += strcspn(s, "\n");
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			if (!e) {
				snprintf(why, n, "a /* comment at character %d is "
				         "never closed", (int)(s - w) + 1);
				return -1;
			}
			s = e + 2;
		} else if (strchr("?:@$#", *s) &&
		           (s == w || !id_char(s[-1]))) {
			/* a parameter, which nothing binds (NULL); SQLite
			 * reads "$a(')" as one name, which would hide a ')'
			 * from this scan */
			snprintf(why, n, "the parameter at character %d (%c) "
			         "cannot be given a value", (int)(s - w) + 1,
			         *s);
			return -1;
		} else {
			said |= !isspace((unsigned char)*s);
			if (*s == '(')
				depth++;
			if (*s == ')' && depth-- == 0) {
				snprintf(why, n, "not one condition (the ')' at "
				         "character %d closes a '(' it did not "
				         "open)", (int)(s - w) + 1);
				return -1;
			}
			if (*s == ';') {
				snprintf(why, n, "not one condition (the ';' at "
				         "character %d ends the statement)",
				         (int)(s - w) + 1);
				return -1;
			}
			s++;
		}
	}
	if (depth > 0) {
		snprintf(why, n, "%d '(' %s never closed", depth,
		         depth > 1 ? "are" : "is");
		return -1;
	}
	if (!said) {
		/* SQLite would say: near ")": syntax error */
		snprintf(why, n, "no condition (it is empty, or only blanks "
		         "and comments)");
		return -1;
	}
	return 0;
}

/* The variant_ids of variant_summary rows of a results file matching
 * where; an exit status. */
static int query_ids(const char *path, const char *where,
                     const vs_scenario *scn, const vs_sweep *sw,
                     uint64_t **idx, size_t *n, size_t *cap)
{
	char why[160];
	if (where && where_check(where, why, sizeof why)) {
		fprintf(stderr, "vsweep: %s: --where: %s\n", path, why);
		return EXIT_BAD_INPUT;
	}
	/* SQLite would open a missing file as an empty database and say
	 * it is not a results file; a directory or unreadable file too */
	int e = vs_store_read_errno(path);
	if (e) {
		fprintf(stderr, "vsweep: %s: --variants-from: cannot open "
		        "results file: %s\n", path, vs_store_read_error(e));
		return EXIT_BAD_INPUT;
	}
	sqlite3 *db = NULL;
	/* leaving nothing beside a finished file (store/reader.h) */
	if (vs_store_open_read(path, &db) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: cannot open: %s\n", path,
		        sqlite3_errmsg(db));
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	/* its variant ids are this sweep's only if it ran this sweep */
	int scn_same = same_meta(db, "scenario_text", scn->text);
	int sw_same = scn_same < 0 ? -1
	                           : same_meta(db, "sweep_text", sw->text);
	if (scn_same < 0 || sw_same < 0) {
		fprintf(stderr, "vsweep: %s: --variants-from: not a vsweep "
		        "results file (%s)\n", path,
		        sqlite3_errcode(db) != SQLITE_OK &&
		        sqlite3_errcode(db) != SQLITE_DONE
		                ? sqlite3_errmsg(db)
		                : "no scenario and sweep record");
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	const char *differs = scn_same ? scn->path
	                      : sw_same ? (sw->path ? sw->path : "no sweep")
	                                : NULL;
	if (differs) {
		fprintf(stderr, "vsweep: %s: --variants-from: not a run of this "
		        "scenario and sweep (%s differs from the one it ran)\n",
		        path, differs);
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	/* on a line of its own: a trailing "-- comment" ends there */
	char *sql = sqlite3_mprintf("SELECT variant_id FROM variant_summary "
	                            "WHERE (\n%s\n) ORDER BY variant_id",
	                            where ? where : "1");
	sqlite3_stmt *q = NULL;
	const char *tail = NULL;
	int rc = EXIT_BAD_INPUT;
	/* no blob or string of a gigabyte (randomblob(1e9)) either */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 24);
	if (sqlite3_prepare_v2(db, sql, -1, &q, &tail) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: --where: %s\n", path,
		        sqlite3_errmsg(db));
		goto out;
	}
	tail += strspn(tail, " \t\r\n");
	if (*tail) {
		/* "1) ; DELETE ... (": only the first statement would run */
		fprintf(stderr, "vsweep: %s: --where: more than one condition "
		        "(SQL after it: '%.40s')\n", path, tail);
		goto out;
	}
	double deadline = vs_now() + WHERE_SECONDS;
	sqlite3_progress_handler(db, 10000, where_timer, &deadline);
	int step;
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		add(idx, n, cap, (uint64_t)sqlite3_column_int64(q, 0));
	if (step == SQLITE_INTERRUPT)
		fprintf(stderr, "vsweep: %s: --where: stopped after %g s (a "
		        "condition on variant_summary takes seconds)\n", path,
		        WHERE_SECONDS);
	else if (step != SQLITE_DONE)
		fprintf(stderr, "vsweep: %s: --where: %s\n", path,
		        sqlite3_errmsg(db));
	else
		rc = 0;
out:
	sqlite3_finalize(q);
	sqlite3_free(sql);
	sqlite3_close(db);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* 1 when paths a and b name one file (the same device and inode: a
 * symlink, "./", a hard link), 0 otherwise or when one does not exist. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_drill_indices(cli_drill *d, const cli_run_args *a,
                      const vs_scenario *scn, const vs_sweep *sw)
{
	uint64_t count = sw->count;
	size_t cap = 0;
	d->n = 0;
	d->next = 0;
	if (d->where && !d->from) {
		fprintf(stderr, "vsweep: --where needs --variants-from\n");
		return EXIT_BAD_INPUT;
	}
	if (a->resume || a->shard_n > 1) {
		fprintf(stderr, "vsweep: --variants and --variants-from make a "
		        "new file: not with --resume or --shard\n");
		return EXIT_BAD_INPUT;
	}
	char msg[512];
	if (d->list &&
	    parse_list(d->list, &d->idx, &d->n, &cap, msg, sizeof msg)) {
		fprintf(stderr, "vsweep: %s\n", msg);
		return EXIT_BAD_INPUT;
	}
	if (d->from && same_file(d->from, a->out)) {
		fprintf(stderr, "vsweep: %s: -o is the --variants-from file "
		        "%s: a drill-down makes a new file; name another -o\n",
		        a->out, d->from);
		return EXIT_BAD_INPUT;
	}
	if (d->from) {
		int rc = query_ids(d->from, d->where, scn, sw, &d->idx, &d->n,
		                   &cap);
		if (rc)
			return rc;
	}
	if (d->n)
		qsort(d->idx, d->n, sizeof *d->idx, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (d->idx[i] >= count) {
			fprintf(stderr, "vsweep: %s%svariant %llu is past the "
			        "sweep's %llu variants\n",
			        d->from ? d->from : "", d->from ? ": " : "",
			        (unsigned long long)d->idx[i],
			        (unsigned long long)count);
			return EXIT_BAD_INPUT;
		}
		if (k == 0 || d->idx[k - 1] != d->idx[i])
			d->idx[k++] = d->idx[i];
	}
	d->n = k;
	return 0;
}

int cli_drill_next(void *ctx, uint64_t *i)
{
	cli_drill *d = ctx;
	if (d->next >= d->n)
		return 0;
	*i = d->idx[d->next++];
	return 1;
}
