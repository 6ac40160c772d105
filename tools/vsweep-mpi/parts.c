/* The parts directory of a vsweep-mpi run (parts.h): rank 0 calls
 * parts_prepare before any rank writes, and parts_list/parts_remove when
 * merging at the end (main.c).
 *
 * Invariants: a part is OUT.parts/rank-R.db, its shard record "part R"
 * (record.h's label), so a renamed or foreign file is refused; every part
 * found on --resume passed vs_run_check_file (the identity of a resume)
 * and no variant is in two parts; the plan's bit i is set exactly when
 * some part holds variant i. */
#include "parts.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "store/merge.h"

char *parts_dir(const char *out)
{
	size_t len = strlen(out);
	char *d = vs_xcalloc(1, len + sizeof ".parts");
	memcpy(d, out, len);
	memcpy(d + len, ".parts", sizeof ".parts");
	return d;
}

char *parts_path(const char *dir, int rank)
{
	size_t n = strlen(dir) + 32;
	char *p = vs_xcalloc(1, n);
	snprintf(p, n, "%s/rank-%d.db", dir, rank);
	return p;
}

/* The rank of a part's file name "rank-R.db", or -1 for any other name
 * (its -wal and -shm included). */
static long part_rank(const char *name)
{
	if (strncmp(name, "rank-", 5) != 0)
		return -1;
	char *end = NULL;
	errno = 0;
	long r = strtol(name + 5, &end, 10);
	if (errno || end == name + 5 || name[5] == '-' || name[5] == '+' ||
	    strcmp(end, ".db") != 0 || r > 1000000000)
		return -1;
	return r;
}

typedef struct found {
	long rank;
	char *path;
} found;

static int by_rank(const void *a, const void *b)
{
	long x = ((const found *)a)->rank, y = ((const found *)b)->rank;
	return (x > y) - (x < y);
}

vs_rc parts_list(const char *dir, char ***paths, int *n, vs_error *err)
{
	*paths = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return VS_RC_OK;
		vs_error_set(err, "%s: cannot read: %s", dir, strerror(errno));
		return VS_RC_IO;
	}
	found *f = NULL;
	int nf = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		long r = part_rank(e->d_name);
		if (r < 0)
			continue;
		f = vs_xrealloc(f, (size_t)(nf + 1) * sizeof *f);
		f[nf].rank = r;
		f[nf].path = parts_path(dir, (int)r);
		nf++;
	}
	closedir(d);
	if (nf > 1)
		qsort(f, (size_t)nf, sizeof *f, by_rank);
	*paths = vs_xcalloc((size_t)nf + 1, sizeof **paths);
	for (int i = 0; i < nf; i++)
		(*paths)[i] = f[i].path;
	free(f);
	*n = nf;
	return VS_RC_OK;
}

void parts_remove(const char *dir)
{
	char **paths;
	int n;
	vs_error err = {{0}};
	if (parts_list(dir, &paths, &n, &err))
		return;
	for (int i = 0; i < n; i++) {
		vs_remove_db_files(paths[i]);
		free(paths[i]);
	}
	free(paths);
	rmdir(dir); /* fails, harmlessly, if the user put files there */
}

typedef struct marker {
	mpi_plan *plan;
	const char *path;
	uint64_t dup;
	int why;             /* 1 held twice, 2 beyond the sweep */
} marker;

static vs_rc mark(void *ctx, uint64_t i)
{
	marker *m = ctx;
	mpi_plan *p = m->plan;
	if (i >= p->count) {
		m->dup = i;
		m->why = 2;
		return VS_RC_INPUT;
	}
	uint8_t bit = (uint8_t)(1u << (i % 8));
	if (p->have[i / 8] & bit) {
		m->dup = i;
		m->why = 1;
		return VS_RC_INPUT;
	}
	p->have[i / 8] |= bit;
	p->stored++;
	return VS_RC_OK;
}

/* Checks every part in dir and marks what it holds. */
static vs_rc scan_parts(const char *dir, const vs_scenario *seed,
                      const vs_sweep *sw, const vs_run_opts *o,
                      mpi_plan *plan, vs_error *err)
{
	char **paths;
	int n;
	vs_rc rc = parts_list(dir, &paths, &n, err);
	if (rc)
		return rc;
	plan->n_parts = n;
	for (int i = 0; i < n && !rc; i++) {
		/* The identity a rank gives its part: "part R", R from the
		 * name, so a renamed or foreign file is refused. */
		char label[32];
		const char *base = strrchr(paths[i], '/');
		vs_store_part_label(label, sizeof label,
		                    part_rank(base ? base + 1 : paths[i]));
		vs_run_opts po = *o;
		po.shard_label = label;
		po.source = NULL;
		uint64_t got;
		rc = vs_run_check_file(seed, sw, &po, paths[i], &got, err);
		if (rc)
			break;
		marker m = {plan, paths[i], 0, 0};
		rc = vs_merge_each_variant(paths[i], mark, &m, err);
		if (rc == VS_RC_INPUT && m.why == 1) {
			vs_error_set(err, "%s: variant %llu is also in another "
			             "part; remove one of them, or use "
			             "--overwrite", paths[i],
			             (unsigned long long)m.dup);
			rc = VS_RC_INPUT;
		} else if (rc == VS_RC_INPUT && m.why == 2) {
			vs_error_set(err, "%s: holds variant %llu, not one of the "
			             "sweep's %llu", paths[i],
			             (unsigned long long)m.dup,
			             (unsigned long long)plan->count);
			rc = VS_RC_INPUT;
		}
	}
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* An existing OUT on --resume: fine only if it is this run's, finished. */
static vs_rc check_output(const char *out, const vs_scenario *seed,
                        const vs_sweep *sw, const vs_run_opts *o,
                        int *complete, vs_error *err)
{
	/* A merged file carries the record of one unsharded run. */
	vs_run_opts mo = *o;
	mo.shard_label = NULL;
	mo.shard_k = 0;
	mo.shard_n = 1;
	mo.source = NULL;
	uint64_t got;
	vs_rc rc = vs_run_check_file(seed, sw, &mo, out, &got, err);
	if (rc)
		return rc;
	if (got != sw->count) {
		vs_error_set(err, "%s: holds %lld of the sweep's %llu variants "
		             "and is not a vsweep-mpi result to continue; "
		             "continue it with vsweep run --resume, or use "
		             "--overwrite", out, (long long)got,
		             (unsigned long long)sw->count);
		return VS_RC_INPUT;
	}
	*complete = 1;
	return VS_RC_OK;
}

vs_rc parts_prepare(const char *out, vs_store_mode mode,
                  const vs_scenario *seed, const vs_sweep *sw,
                  const vs_run_opts *o, mpi_plan *plan, int *complete,
                  vs_error *err)
{
	memset(plan, 0, sizeof *plan);
	*complete = 0;
	char *dir = parts_dir(out);
	vs_rc rc = VS_RC_OK;
	if (mode == VS_STORE_OVERWRITE) {
		vs_remove_db_files(out);
		parts_remove(dir);
	}
	if (access(out, F_OK) == 0) {
		if (mode == VS_STORE_RESUME) {
			rc = check_output(out, seed, sw, o, complete, err);
		} else {
			vs_error_set(err, "%s: exists; use --resume to continue "
			             "it or --overwrite to replace it", out);
			rc = VS_RC_INPUT;
		}
		goto done;
	}
	plan->count = sw->count;
	plan->have = vs_xcalloc((size_t)(sw->count / 8 + 1), 1);
	if (mode == VS_STORE_RESUME) {
		rc = scan_parts(dir, seed, sw, o, plan, err);
	} else {
		char **paths;
		int n;
		rc = parts_list(dir, &paths, &n, err);
		for (int i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		if (!rc && n > 0) {
			vs_error_set(err, "%s: holds the parts of an earlier run; "
			             "use --resume to continue them or "
			             "--overwrite to start again", dir);
			rc = VS_RC_INPUT;
		}
	}
	if (rc)
		goto done;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		vs_error_set(err, "%s: cannot create: %s", dir, strerror(errno));
		rc = VS_RC_IO;
		goto done;
	}
	plan->remaining = plan->count - plan->stored;
done:
	free(dir);
	return rc;
}

uint64_t plan_take(mpi_plan *plan, uint64_t n, uint64_t *idx)
{
	uint64_t k = 0;
	while (k < n && plan->cursor < plan->count) {
		uint64_t i = plan->cursor++;
		if (!(plan->have[i / 8] & (1u << (i % 8))))
			idx[k++] = i;
	}
	plan->remaining -= k;
	return k;
}

void plan_finish(mpi_plan *plan)
{
	free(plan->have);
	plan->have = NULL;
}
