/* `vsweep check`'s size and time estimate: the results file and the run
 * for the chosen recording (--record, --record-every), calibrated on a
 * short run of a variant or two into a scratch directory. The file grows
 * by a variant's bytes (its actor-steps × bytes per actor-step at this
 * recording, plus its own rows) on top of the empty file's schema; a
 * variant's simulation time, over the threads, gives the duration. The
 * estimate is then held against the free space where the file would go,
 * with the WAL's room (store/ckpt.h): a night that cannot fit is said
 * before it starts, not at 3 a.m. */
#include <dirent.h>
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
 * that reaches them). */
static double wal_room(double need, double per_step, double per_variant)
{
	double restart = (double)VS_CKPT_RESTART * atof(VS_STORE_PAGE_SIZE);
	return (need < restart ? need : restart) +
	       (double)VS_RUN_COMMIT_ROWS * per_step + per_variant;
}

/* Runs the variants of p into path; 0, or -1 with a message. */
static int calibrate(const vs_scenario *scn, const vs_sweep *sw,
                     vs_registry *reg, const vs_run_opts *base, cli_drill *p,
                     const char *path, vs_run_summary *sum)
{
	vs_index_source src = {cli_drill_next, p};
	vs_run_opts o = *base;
	o.out = path;
	o.mode = VS_STORE_CREATE;
	o.jobs = 1;
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

/* Holds size (bytes, the finished file) and its WAL's room (per_step and
 * per_variant: bytes per actor-step and per variant) against the free
 * space where o->out goes: 0 if they fit, -1 (said on stderr) if they
 * cannot. A file resumed is already there; one overwritten is freed
 * first. */
static int check_room(const vs_run_opts *o, double size, double per_step,
                      double per_variant)
{
	char a[32], b[32], c[32];
	char dir[4096];
	double avail = vs_disk_free(o->out, dir, sizeof dir);
	if (avail < 0)
		return 0; /* run says what is wrong with the path */
	double have = vs_file_bytes(o->out);
	if (o->mode == VS_STORE_OVERWRITE)
		avail += have;
	double need = size - (o->mode == VS_STORE_RESUME ? have : 0);
	if (need < 0)
		need = 0;
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

int cli_estimate(const vs_scenario *scn, const vs_sweep *sw,
                 vs_registry *reg, const vs_run_opts *base, int jobs)
{
	int rc = 0;
	char dir[] = "/tmp/vsweep-check-XXXXXX";
	if (!mkdtemp(dir))
		return 0;
	char empty[64], some[64];
	snprintf(empty, sizeof empty, "%s/empty.db", dir);
	snprintf(some, sizeof some, "%s/some.db", dir);
	/* The first and the last variant (the one variant of a seed). */
	uint64_t idx[2] = {0, sw->count - 1};
	cli_drill none = {.idx = idx, .n = 0};
	cli_drill two = {.idx = idx, .n = sw->count > 1 ? 2 : 1};
	vs_run_summary s0, s2;
	if (calibrate(scn, sw, reg, base, &none, empty, &s0) == 0 &&
	    calibrate(scn, sw, reg, base, &two, some, &s2) == 0) {
		double e = vs_file_bytes(empty), b = vs_file_bytes(some);
		double per_variant = (b - e) / (double)two.n;   /* bytes */
		double per_step = s2.actor_steps > 0
		                          ? (b - e) / (double)s2.actor_steps
		                          : 0;
		double size = e + per_variant * (double)sw->count;
		double secs = s2.seconds / (double)two.n * (double)sw->count /
		              (jobs > 0 ? jobs : 1);
		printf("estimate (--record %s, --record-every %d): %.3g MB, "
		       "%.1f bytes per actor-step; %.3g s on %d threads "
		       "(calibrated on %d variants)\n", base->record,
		       base->record_every, size / 1e6, per_step, secs, jobs,
		       (int)two.n);
		rc = check_room(base, size, per_step, per_variant);
		if (!rc && s2.failed) {
			/* a variant that fails here fails in the run */
			fprintf(stderr, "vsweep: check: %llu of the %d variants "
			        "run to calibrate failed (the reason above); a "
			        "run stores them as failed\n",
			        (unsigned long long)s2.failed, (int)two.n);
			rc = 1;
		}
	}
	vs_remove_db_files(empty);
	vs_remove_db_files(some);
	rmdir(dir);
	return rc;
}
