/* `vsweep check`'s size and time estimate: the results file and the run
 * for the chosen recording (--record, --record-every), calibrated on a
 * short run of a variant or two into a scratch directory. The file grows
 * by a variant's bytes (its actor-steps × bytes per actor-step at this
 * recording, plus its own rows) on top of the empty file's schema; a
 * variant's simulation time, over the threads, gives the duration. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "estimate.h"
#include "common/util.h"

static double file_bytes(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (double)st.st_size : 0;
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

void cli_estimate(const vs_scenario *scn, const vs_sweep *sw,
                  vs_registry *reg, const vs_run_opts *base, int jobs)
{
	char dir[] = "/tmp/vsweep-check-XXXXXX";
	if (!mkdtemp(dir))
		return;
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
		double e = file_bytes(empty), b = file_bytes(some);
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
	}
	vs_remove_db_files(empty);
	vs_remove_db_files(some);
	rmdir(dir);
}
