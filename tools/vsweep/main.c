/* vsweep: expand a seed scenario into variants, simulate them in parallel,
 * store every actor at every step in one SQLite file. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "plot.h"
#include "run/runner.h"
#include "store/merge.h"

static const char usage[] =
	"usage:\n"
	"  vsweep run SCENARIO.yaml [--sweep SWEEP.yaml] [-o results.db] [-j N]\n"
	"                           [--shard K/N] [--resume | --overwrite]\n"
	"                           [--record-every N] [--plugin-path DIR]\n"
	"                           [--record state,wheels,map]\n"
	"                           [--variant-timeout SECONDS] [--progress]\n"
	"  vsweep check SCENARIO.yaml [--sweep SWEEP.yaml] [--plugin-path DIR]\n"
	"  vsweep merge OUT.db SHARD.db... [--allow-partial]\n"
	"  vsweep plot results.db [--variant I...] [--colour-by PARAM]\n"
	"              [--kind trajectory|speed] -o FILE.svg\n"
	"  vsweep plugins [--plugin-path DIR]\n"
	"  vsweep --help | --version\n"
	"\n"
	"exit status: 0 success, 1 some variants failed, 2 bad input or usage,\n"
	"3 internal or I/O failure, 130 interrupted (resume with --resume)\n";

typedef struct args {
	const char *cmd;
	const char *scenario;
	const char *sweep;
	const char *out;
	long jobs;
	unsigned long long shard_k, shard_n;
	int resume, overwrite, progress;
	long record_every;
	char record[64];         /* canonical --record list */
	int no_wheels, no_map;
	double variant_timeout;  /* s */
	const char *plugin_path[64];
	int n_plugin_path;
} args;

static int bad_usage(const char *fmt, ...) VS_PRINTF(1, 2);

static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("vsweep: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs(usage, stderr);
	return EXIT_BAD_INPUT;
}

/* Parses a whole decimal integer in [lo, hi]; 0 on success. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_shard(const char *s, args *a)
{
	char *end = NULL;
	errno = 0;
	unsigned long long k = strtoull(s, &end, 10);
	if (errno || end == s || *end != '/' || *s == '-')
		return -1;
	const char *t = end + 1;
	unsigned long long n = strtoull(t, &end, 10);
	if (errno || end == t || *end || *t == '-' || n == 0 || k >= n)
		return -1;
	a->shard_k = k;
	a->shard_n = n;
	return 0;
}

/* --record LIST: which attributes to store besides actor_state (always).
 * Canonical order, so equal choices compare equal on resume. */
static int parse_record(const char *v, args *a)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", v);
	int wheels = 0, map = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "wheels"))
			wheels = 1;
		else if (!strcmp(t, "map"))
			map = 1;
		else if (strcmp(t, "state"))
			return -1;
	}
	a->no_wheels = !wheels;
	a->no_map = !map;
	snprintf(a->record, sizeof a->record, "state%s%s",
	         wheels ? ",wheels" : "", map ? ",map" : "");
	return 0;
}

static int parse_args(int argc, char **argv, args *a)
{
	a->cmd = argv[1];
	a->out = "results.db";
	a->jobs = sysconf(_SC_NPROCESSORS_ONLN);
	if (a->jobs < 1)
		a->jobs = 1;
	a->shard_n = 1;
	a->record_every = 1;
	strcpy(a->record, "state,wheels,map");
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (!strcmp(o, "--sweep") && v)
			a->sweep = v;
		else if ((!strcmp(o, "-o") || !strcmp(o, "--output")) && v)
			a->out = v;
		else if (!strcmp(o, "-j") || !strcmp(o, "--jobs")) {
			if (!v || parse_long(v, 1, 4096, &a->jobs))
				return bad_usage("-j needs an integer N >= 1, "
				                 "got '%s'", v ? v : "");
		} else if (!strcmp(o, "--shard")) {
			if (!v || parse_shard(v, a))
				return bad_usage("--shard needs K/N with 0 <= "
				                 "K < N, got '%s'", v ? v : "");
		} else if (!strcmp(o, "--record-every")) {
			if (!v || parse_long(v, 1, 1000000000,
			                     &a->record_every))
				return bad_usage("--record-every needs an "
				                 "integer N >= 1, got '%s'",
				                 v ? v : "");
		} else if (!strcmp(o, "--record")) {
			if (!v || parse_record(v, a))
				return bad_usage("--record takes a comma-separated "
				                 "list of state, wheels, map; got "
				                 "'%s'", v ? v : "");
		} else if (!strcmp(o, "--variant-timeout")) {
			char *end = NULL;
			a->variant_timeout = v ? strtod(v, &end) : -1;
			if (!v || end == v || *end || !(a->variant_timeout > 0) ||
			    a->variant_timeout > 1e9)
				return bad_usage("--variant-timeout needs seconds "
				                 "> 0, got '%s'", v ? v : "");
		} else if (!strcmp(o, "--plugin-path") && v) {
			if (a->n_plugin_path < 64)
				a->plugin_path[a->n_plugin_path++] = v;
		} else {
			takes = 0;
			if (!strcmp(o, "--resume"))
				a->resume = 1;
			else if (!strcmp(o, "--overwrite"))
				a->overwrite = 1;
			else if (!strcmp(o, "--progress"))
				a->progress = 1;
			else if (o[0] == '-')
				return bad_usage("unknown or incomplete option "
				                 "'%s'", o);
			else if (!a->scenario)
				a->scenario = o;
			else
				return bad_usage("unexpected argument '%s'", o);
		}
		i += takes;
	}
	if (a->resume && a->overwrite)
		return bad_usage("%s", "--resume and --overwrite exclude each "
		                 "other");
	return 0;
}

/* Scenario, plugins and sweep, validated; NULLs and a status on error. */
static int load_inputs(const args *a, vs_registry **reg, vs_scenario **scn,
                       vs_sweep **sw)
{
	vs_error err = {{0}};
	if (!a->scenario)
		return bad_usage("%s", "missing SCENARIO.yaml");
	*scn = vs_scenario_load(a->scenario, &err);
	if (!*scn)
		goto bad;
	*reg = cli_registry(a->plugin_path, a->n_plugin_path);
	if (vs_scenario_bind(*scn, *reg, &err))
		goto bad;
	*sw = a->sweep ? vs_sweep_load(a->sweep, *scn, &err)
	               : vs_sweep_single();
	if (!*sw)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "vsweep: %s\n", err.msg);
	return EXIT_BAD_INPUT;
}

static void on_signal(int sig)
{
	(void)sig;
	vs_run_stop = 1;
}

static void print_resume_hint(int argc, char **argv)
{
	fprintf(stderr, "vsweep: interrupted; the results file is consistent."
	        " Resume with:\n ");
	int has_resume = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--overwrite"))
			continue;
		has_resume |= !strcmp(argv[i], "--resume");
		fprintf(stderr, " %s", argv[i]);
	}
	fprintf(stderr, "%s\n", has_resume ? "" : " --resume");
}

static int cmd_run(const args *a, int argc, char **argv)
{
	vs_registry *reg = NULL;
	vs_scenario *scn = NULL;
	vs_sweep *sw = NULL;
	int status = load_inputs(a, &reg, &scn, &sw);
	if (status)
		goto out;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	vs_run_opts o = {
		.out = a->out,
		.jobs = (int)a->jobs,
		.shard_k = a->shard_k,
		.shard_n = a->shard_n,
		.mode = a->resume      ? VS_STORE_RESUME
		        : a->overwrite ? VS_STORE_OVERWRITE
		                       : VS_STORE_CREATE,
		.record_every = (int)a->record_every,
		.no_wheels = a->no_wheels,
		.no_map = a->no_map,
		.record = a->record,
		.variant_timeout = a->variant_timeout,
		.progress = a->progress || isatty(STDERR_FILENO),
	};
	vs_run_summary sum;
	vs_error err = {{0}};
	int rc = vs_run(scn, sw, reg, &o, &sum, &err);
	if (rc) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		status = rc == -1 ? EXIT_BAD_INPUT : EXIT_INTERNAL;
		goto out;
	}
	double rate = sum.seconds > 0 ? (double)sum.actor_steps / sum.seconds
	                              : 0;
	printf("vsweep: %s: %llu variants (%llu done, %llu failed, %llu "
	       "already stored) in %.2f s, %.3g actor-steps/s\n",
	       a->out, (unsigned long long)sum.total,
	       (unsigned long long)sum.done, (unsigned long long)sum.failed,
	       (unsigned long long)sum.skipped, sum.seconds, rate);
	if (sum.interrupted) {
		print_resume_hint(argc, argv);
		status = EXIT_INTERRUPTED;
	} else {
		status = sum.failed ? EXIT_SOME_FAILED : EXIT_OK;
	}
out:
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return status;
}

static int cmd_check(const args *a)
{
	vs_registry *reg = NULL;
	vs_scenario *scn = NULL;
	vs_sweep *sw = NULL;
	int status = load_inputs(a, &reg, &scn, &sw);
	if (status == 0) {
		printf("%s: %d actors, %lld steps of %g s\n", scn->path,
		       scn->n_actors, (long long)vs_scenario_steps(scn),
		       scn->step);
		for (int i = 0; i < sw->n_blocks; i++)
			printf("block %d (%s): %llu variants\n", i + 1,
			       vs_block_kind_name(sw->blocks[i].kind),
			       (unsigned long long)sw->blocks[i].count);
		printf("variants: %llu\n", (unsigned long long)sw->count);
	}
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return status;
}

/* `vsweep merge OUT.db SHARD.db... [--allow-partial]` */
static int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	const char **shards = vs_xcalloc((size_t)argc, sizeof *shards);
	int n = 0, partial = 0, status;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--allow-partial"))
			partial = 1;
		else if (argv[i][0] == '-') {
			free(shards);
			return bad_usage("unknown option '%s'", argv[i]);
		} else if (!out)
			out = argv[i];
		else
			shards[n++] = argv[i];
	}
	if (!out || n == 0) {
		free(shards);
		return bad_usage("%s", "merge needs OUT.db and at least one "
		                 "SHARD.db");
	}
	vs_merge_summary sum;
	vs_error err = {{0}};
	int rc = vs_merge(out, shards, n, partial, &sum, &err);
	free(shards);
	if (rc) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return rc == -1 ? EXIT_BAD_INPUT : EXIT_INTERNAL;
	}
	printf("vsweep: %s: %lld variants from %d shards", out, sum.variants,
	       sum.shards);
	if (sum.missing)
		printf(", %lld missing", sum.missing);
	printf("\n");
	status = EXIT_OK;
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return bad_usage("%s", "missing command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("vsweep %s (plugin ABI %d.%d)\n", VS_VERSION,
		       VS_ABI_MAJOR, VS_ABI_MINOR);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "merge"))
		return cmd_merge(argc, argv);
	if (!strcmp(argv[1], "plot"))
		return cli_plot(argc, argv);
	args a;
	memset(&a, 0, sizeof a);
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	if (!strcmp(a.cmd, "run"))
		return cmd_run(&a, argc, argv);
	if (!strcmp(a.cmd, "check"))
		return cmd_check(&a);
	if (!strcmp(a.cmd, "plugins")) {
		vs_registry *reg = cli_registry(a.plugin_path,
		                                a.n_plugin_path);
		rc = cli_plugins(reg);
		vs_registry_destroy(reg);
		return rc;
	}
	return bad_usage("unknown command '%s'", a.cmd);
}
