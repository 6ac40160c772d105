/* Drill-down (`vsweep run ... --variants 3,17,40-45`, or `--variants-from
 * RESULTS.db --where "SQL over variant_summary"`): re-simulates only the
 * chosen variants of the sweep, fully recorded, into a new file. Each
 * keeps its variant_id, and a variant's rows depend on its index alone,
 * so they equal those of the same variant in a full run. The indices reach
 * the runner through its index-source hook (vs_index_source). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/util.h"
#include "input/scenario.h"
#include "input/sweep.h"

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

/* "3,17,40-45": numbers and inclusive ranges (of at most 10^7 indices,
 * so a typo cannot exhaust memory); 0, or -1 when malformed. */
static int parse_list(const char *text, uint64_t **idx, size_t *n,
                      size_t *cap)
{
	const char *s = text;
	for (;;) {
		char *end = NULL;
		errno = 0;
		if (*s < '0' || *s > '9')
			return -1;
		unsigned long long a = strtoull(s, &end, 10), b = a;
		if (errno)
			return -1;
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			b = strtoull(s, &end, 10);
			if (errno || b < a || b - a > 10000000ull)
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

/* 0 when meta's key holds text (NULL: "") in the results file db. */
static int same_meta(sqlite3 *db, const char *key, const char *text)
{
	sqlite3_stmt *q = NULL;
	int same = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1,
	                       &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(q, 0);
			same = !strcmp(v ? v : "", text ? text : "");
		}
	}
	sqlite3_finalize(q);
	return same ? 0 : -1;
}

/* The variant_ids of variant_summary rows of a results file matching
 * where; an exit status. */
static int query_ids(const char *path, const char *where,
                     const vs_scenario *scn, const vs_sweep *sw,
                     uint64_t **idx, size_t *n, size_t *cap)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: cannot open: %s\n", path,
		        sqlite3_errmsg(db));
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	/* its variant ids are this sweep's only if it ran this sweep */
	const char *differs = same_meta(db, "scenario_text", scn->text)
	                              ? scn->path
	                      : same_meta(db, "sweep_text", sw->text)
	                              ? (sw->path ? sw->path : "no sweep")
	                              : NULL;
	if (differs) {
		fprintf(stderr, "vsweep: %s: --variants-from: not a run of this "
		        "scenario and sweep (%s differs from the one it ran)\n",
		        path, differs);
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	char *sql = sqlite3_mprintf("SELECT variant_id FROM variant_summary "
	                            "WHERE (%s) ORDER BY variant_id",
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
	if (d->list && parse_list(d->list, &d->idx, &d->n, &cap)) {
		fprintf(stderr, "vsweep: --variants takes indices and ranges "
		        "such as 3,17,40-45; got '%s'\n", d->list);
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
