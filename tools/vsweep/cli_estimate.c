/* `vsweep check`'s size and time estimate: the results file and the run
 * for the chosen recording (--record, --record-every), calibrated on two
 * short runs into a scratch directory, on the run's threads: one of no
 * variant (start-up, schema, the WAL's fold: the fixed cost) and one of n
 * variants spread over the sweep, n grown until they take a measurable
 * time. The file grows by a variant's bytes on top of the empty file's
 * schema; a variant's bytes are the bytes its rows take in the pages
 * (SQLite's dbstat: the page size less the unused bytes), not the file's
 * growth, which goes in whole 16 KiB pages and stays 0 for a few
 * summary-only variants of some 300 bytes. The variants are the run's:
 * those of its shard (--shard K/N), less those a file to --resume holds.
 * The duration is the fixed cost plus the n variants' time per variant
 * times those to run. The bytes they add are then held against the free
 * space where the file would go, with the WAL's room (store/ckpt.h): a
 * night that cannot fit is said before it starts, not at 3 a.m. */
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "estimate.h"
#include "common/disk.h"
#include "common/util.h"
#include "run/runner.h"
#include "store/ckpt.h"
#include "store/store.h"

/* Bytes the WAL takes beside the file while a run writes need bytes:
 * the frames at which the writer lets it restart (no more than the run
 * writes), then one commit (VS_RUN_COMMIT_ROWS actor-steps and the variant
 * that reaches them, again no more than the run writes: a shard of a few
 * variants commits them all at once). */
static double wal_room(double need, double per_step, double per_variant)
{
	double restart = (double)VS_CKPT_RESTART * atof(VS_STORE_PAGE_SIZE);
	double commit = (double)VS_RUN_COMMIT_ROWS * per_step + per_variant;
	return (need < restart ? need : restart) +
	       (need < commit ? need : commit);
}

/* The calibration's time: at least this long (s) of variants, so that a
 * variant's time is not lost in the start-up's noise; at most this many
 * variants (a few seconds of the fastest, summary-only ones). */
#define CALIBRATE_SECONDS 0.3
#define CALIBRATE_MAX 4096
/* The share of a page that a b-tree's rows fill as they arrive in key
 * order (SQLite splits a full leaf; the new right one fills in turn):
 * 0.86 to 0.90 measured on summary-only and fully recorded files. */
#define PAGE_FILL 0.88

/* The bytes the rows of the file at path take in its pages (dbstat);
 * its size when that cannot be read. */
static double used_bytes(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	double used = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	            SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT sum(pgsize - unused) FROM dbstat",
	                       -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		used = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return used >= 0 ? used : vs_file_bytes(path);
}

/* How many variants of the calibration file at path ran past the
 * calibration's own bound (the run set no --variant-timeout): 0 when the
 * run set one, whose failures are the run's too. */
static long long hung(const vs_run_opts *base, const char *path)
{
	if (base->variant_timeout > 0)
		return 0;
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	long long n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	            SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM variant WHERE error "
	                       "LIKE 'exceeded the wall-clock limit%'", -1,
	                       &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

/* Runs the variants of p into path, on the run's threads; 0, or -1 with
 * a message. */
static int calibrate(const vs_scenario *scn, const vs_sweep *sw,
                     vs_registry *reg, const vs_run_opts *base, cli_drill *p,
                     const char *path, vs_run_summary *sum)
{
	vs_index_source src = {cli_drill_next, p};
	vs_run_opts o = *base;
	o.out = path;
	o.mode = VS_STORE_CREATE;
	/* a run without a limit would wait for a plugin that hangs for
	 * ever; check bounds its variants (hung() says so) */
	if (!(o.variant_timeout > 0))
		o.variant_timeout = vs_run_calibrate_limit();
	p->next = 0;
	o.progress = 0;
	o.source = &src;
	o.shard_label = "variants";
	vs_error err = {{0}};
	if (vs_run(scn, sw, reg, &o, sum, &err)) {
		fprintf(stderr, "vsweep: estimate: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Holds the bytes the run adds (empty: the new file's schema, bytes;
 * todo variants of per_variant bytes, per_step bytes an actor-step) and
 * its WAL's room against the free space where o->out goes: 0 if they
 * fit, -1 (said on stderr) if they cannot. A file resumed is already
 * there with its variants, and adds only those left; one overwritten is
 * freed first. */
static int check_room(const vs_run_opts *o, double empty, uint64_t todo,
                      double per_step, double per_variant)
{
	char a[32], b[32], c[32];
	char dir[4096];
	double avail = vs_disk_free(o->out, dir, sizeof dir);
	if (avail < 0)
		return 0; /* run says what is wrong with the path */
	double have = vs_file_bytes(o->out);
	if (o->mode == VS_STORE_OVERWRITE)
		avail += have;
	/* resumed, an empty file (a run killed before its schema) is made
	 * again */
	int made = o->mode != VS_STORE_RESUME || !(have > 0);
	double need = (made ? empty : 0) + per_variant * (double)todo;
	double wal = wal_room(need, per_step, per_variant);
	printf("disk: %s free in %s; %s needs about %s more, and up to %s "
	       "beside it (its WAL) while the run writes\n",
	       vs_bytes_text(avail, a, sizeof a), dir, o->out,
	       vs_bytes_text(need, b, sizeof b), vs_bytes_text(wal, c, sizeof c));
	if (need + wal > avail) {
		fprintf(stderr, "vsweep: check: %s does not fit: it needs about "
		        "%s (and %s for its WAL) where %s has %s free; record "
		        "less (--record, --record-every), run fewer variants, or "
		        "write elsewhere (-o)\n", o->out, b, c, dir, a);
		return -1;
	}
	if (need * 1.25 + wal > avail)
		printf("disk: the estimate is within 25 %%: %s may not fit\n",
		       o->out);
	return 0;
}

/* n indices spread evenly over the count variants k, k + step,
 * k + 2 step, ... (a shard's), first and last among them, ascending
 * (n <= count). */
static void spread(uint64_t *idx, uint64_t n, uint64_t count, uint64_t k,
                   uint64_t step)
{
	for (uint64_t i = 0; i < n; i++)
		idx[i] = k + step * (n > 1 ? (uint64_t)((double)i *
		                                        (double)(count - 1) /
		                                        (double)(n - 1) + 0.5)
		                           : 0);
}

static int estimate(const vs_scenario *scn, const vs_sweep *sw,
                    vs_registry *reg, const vs_run_opts *base, int jobs,
                    uint64_t stored, const uint64_t *chosen,
                    uint64_t n_chosen);

int cli_estimate(const vs_scenario *scn, const vs_sweep *sw,
                 vs_registry *reg, const vs_run_opts *base, int jobs,
                 uint64_t stored)
{
	return estimate(scn, sw, reg, base, jobs, stored, NULL, 0);
}

int cli_estimate_chosen(const vs_scenario *scn, const vs_sweep *sw,
                        vs_registry *reg, const vs_run_opts *base, int jobs,
                        const uint64_t *chosen, uint64_t n)
{
	printf("variants chosen: %llu of the %llu\n", (unsigned long long)n,
	       (unsigned long long)sw->count);
	if (n == 0) {
		/* nothing to calibrate on, nor to size: run would make a
		 * file of no variant (and says so) */
		printf("estimate: no variant to run; %s would hold none\n",
		       base->out);
		return 0;
	}
	return estimate(scn, sw, reg, base, jobs, 0, chosen, n);
}

/* The run's variants: the shard's (--shard K/N) less those a file to
 * --resume holds, or a drill-down's chosen ones (chosen, n_chosen). */
static int estimate(const vs_scenario *scn, const vs_sweep *sw,
                    vs_registry *reg, const vs_run_opts *base, int jobs,
                    uint64_t stored, const uint64_t *chosen,
                    uint64_t n_chosen)
{
	int rc = 0;
	char dir[] = "/tmp/vsweep-check-XXXXXX";
	if (!mkdtemp(dir))
		return 0;
	char empty[64], some[64];
	snprintf(empty, sizeof empty, "%s/empty.db", dir);
	snprintf(some, sizeof some, "%s/some.db", dir);
	if (jobs < 1)
		jobs = 1;
	/* The run's variants: the shard's (--shard K/N), less those a file
	 * to --resume holds (its first ones, as run takes them). The
	 * calibration runs variants of the shard, or of the sweep when the
	 * shard has none. */
	uint64_t sk = base->shard_k, sn = base->shard_n ? base->shard_n : 1;
	uint64_t mine = chosen ? n_chosen
	                       : vs_store_shard_count(sw->count, sk, sn);
	uint64_t todo = mine > stored ? mine - stored : 0;
	uint64_t pool = mine ? mine : sw->count;
	if (!mine)
		sk = 0, sn = 1;
	if (sn > 1 || stored)
		printf("shard %llu/%llu: %llu of the %llu variants, %llu of "
		       "them stored, %llu to run\n",
		       (unsigned long long)base->shard_k,
		       (unsigned long long)(base->shard_n ? base->shard_n : 1),
		       (unsigned long long)mine,
		       (unsigned long long)sw->count,
		       (unsigned long long)(mine - todo),
		       (unsigned long long)todo);
	uint64_t max = pool < CALIBRATE_MAX ? pool : CALIBRATE_MAX;
	uint64_t *idx = vs_xcalloc((size_t)max, sizeof *idx);
	cli_drill none = {.idx = idx, .n = 0};
	cli_drill p = {.idx = idx, .n = max < 2 ? max : 2};
	vs_run_summary s0, s;
	int ok = calibrate(scn, sw, reg, base, &none, empty, &s0) == 0;
	/* (n1, t1): the previous run's variants and wall time (s); a
	 * variant's time is the difference of two runs over the difference
	 * of their counts, so that their fixed cost (start-up, the plugins'
	 * first load, the file's fold and statistics at the end) cancels */
	uint64_t n1 = 0;
	double t1 = ok ? s0.seconds : 0, per = 0; /* s a variant */
	while (ok) {
		spread(idx, p.n, pool, chosen ? 0 : sk, chosen ? 1 : sn);
		for (uint64_t i = 0; chosen && i < p.n; i++)
			idx[i] = chosen[idx[i]]; /* positions in the list */
		vs_remove_db_files(some);
		ok = calibrate(scn, sw, reg, base, &p, some, &s) == 0;
		if (!ok)
			break;
		long long stuck = hung(base, some);
		if (stuck) {
			/* nothing to estimate from, and the run would wait */
			fprintf(stderr, "vsweep: check: %lld of the %llu variants "
			        "run to calibrate took over %g s (the reason "
			        "above): without --variant-timeout a run waits "
			        "for such a variant as long as it takes, for a "
			        "plugin that hangs for ever; give one\n", stuck,
			        (unsigned long long)p.n, vs_run_calibrate_limit());
			rc = 1;
			ok = 0;
			break;
		}
		double dt = s.seconds - t1;
		per = dt > 0 ? dt / (double)(p.n - n1) : 0;
		/* enough: the difference measured, each thread had two
		 * variants (fewer would hide the threads' speed-up). A
		 * failed variant does not end it: its rows (none, or those
		 * up to its failure) would stand for every variant's; spread
		 * over the sweep, the calibration's failures stand for the
		 * run's. */
		if (p.n >= max ||
		    (n1 > 0 && dt >= CALIBRATE_SECONDS &&
		     p.n >= 2 * (uint64_t)jobs))
			break;
		double want = per > 0 ? 1.2 * CALIBRATE_SECONDS / per : 1e9;
		uint64_t n = p.n + (want < (double)p.n ? p.n
		                    : want > 64.0 * (double)p.n ? 64 * p.n
		                    : (uint64_t)want);
		if (n < 2 * (uint64_t)jobs)
			n = 2 * (uint64_t)jobs;
		n1 = p.n;
		t1 = s.seconds;
		p.n = n < max ? n : max;
	}
	/* the fixed cost, from the last run */
	double fixed = ok ? s.seconds - per * (double)p.n : 0;
	if (ok && !(fixed > 0))
		fixed = s0.seconds;
	if (ok) {
		double e = vs_file_bytes(empty);
		double rows = (used_bytes(some) - used_bytes(empty)) / (double)p.n;
		double per_variant = (rows > 0 ? rows : 0) / PAGE_FILL; /* bytes */
		double per_step = s.actor_steps > 0
		                          ? per_variant * (double)p.n /
		                                    (double)s.actor_steps
		                          : 0;
		/* the finished file: the shard's variants */
		double size = e + per_variant * (double)mine;
		/* the calibration ran them all: its time is the run's */
		double secs = p.n >= todo && todo == mine && mine == pool
		                      ? s.seconds
		                      : fixed + per * (double)todo;
		printf("estimate (--record %s, --record-every %d): %.3g MB, "
		       "%.1f bytes per actor-step; %.3g s on %d threads "
		       "(calibrated on %llu variants)\n", base->record,
		       base->record_every, size / 1e6, per_step, secs, jobs,
		       (unsigned long long)p.n);
		rc = check_room(base, e, todo, per_step, per_variant);
		if (!rc && s.failed) {
			/* a variant that fails here fails in the run */
			fprintf(stderr, "vsweep: check: %llu of the %llu variants "
			        "run to calibrate failed (the reason above); a "
			        "run stores them as failed\n",
			        (unsigned long long)s.failed,
			        (unsigned long long)p.n);
			rc = 1;
		}
	}
	free(idx);
	vs_remove_db_files(empty);
	vs_remove_db_files(some);
	rmdir(dir);
	return rc;
}
