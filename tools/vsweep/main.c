/* vsweep: expand a seed scenario into variants, simulate them in parallel,
 * store every actor at every step in one SQLite file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/util.h"
#include "estimate.h"
#include "export.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "plot.h"
#include "report.h"
#include "run/runner.h"
#include "store/merge.h"
#include "store/store.h"
#include "variants.h"

static const char usage[] =
	"usage:\n"
	"  vsweep run SCENARIO.yaml [--sweep SWEEP.yaml] [-o results.db] [-j N]\n"
	"                           [--shard K/N] [--resume | --overwrite]\n"
	"                           [--record-every N] [--plugin-path DIR]\n"
	"                           [--record state,wheels,map,pairs[=M],\n"
	"                                     signals[=P.OUT,...] | summary]\n"
	"                           [--plugin-log debug|info|warning|error|none]\n"
	"                           [--variant-timeout SECONDS] [--progress]\n"
	"                           [--variant-memory MB]\n"
	"                           [--lock-timeout SECONDS]\n"
	"                           [--progress-interval SECONDS]\n"
	"                           [--variants 3,17,40-45 |\n"
	"                            --variants-from RESULTS.db --where SQL]\n"
	"  vsweep check SCENARIO.yaml [--sweep SWEEP.yaml] [--plugin-path DIR]\n"
	"                 [-o FILE] [run's recording options]\n"
	"  vsweep merge OUT.db SHARD.db... [--allow-partial]\n"
	"  vsweep status results.db\n"
	"  vsweep plot results.db [--variant I...] [--colour-by PARAM]\n"
	"              [--kind trajectory|speed|lateral|signal] [--signal NAME]\n"
	"              [--aspect equal|free] [--xlim A,B] [--ylim A,B]\n"
	"              [--around ACTOR] [--actor ID] -o FILE.svg|FILE.png\n"
	"  vsweep variants SCENARIO.yaml --sweep SWEEP.yaml [--format csv|json]\n"
	"                  [--plugin-path DIR]\n"
	"  vsweep export SCENARIO.yaml --sweep SWEEP.yaml --variant I -o FILE.yaml\n"
	"                [--plugin-path DIR]\n"
	"  vsweep report results.db -o FILE.html [--worst N] [--by KPI]\n"
	"  vsweep plugins [--plugin-path DIR] [--fmu FILE.fmu]\n"
	"  vsweep new-plugin NAME --kind vehicle_model|behaviour [-o DIR]\n"
	"  vsweep --help | --version | COMMAND --help\n"
	"\n"
	CLI_USAGE_EXIT_STATUS;

static const cli_prog prog = {"vsweep", usage, 0};

/* -j's default: every online core. */
static long online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n;
}

/* Scenario, plugins and sweep, validated; NULLs and a status on error. */
static int load_inputs(const cli_run_args *a, vs_registry **reg,
                       vs_scenario **scn, vs_sweep **sw)
{
	vs_error err = {{0}};
	if (!a->scenario)
		return cli_bad_usage(&prog, "%s", "missing SCENARIO.yaml");
	*scn = vs_scenario_load(a->scenario, &err);
	if (!*scn)
		goto bad;
	*reg = cli_registry(a->plugin_path, a->n_plugin_path);
	int bound = vs_scenario_bind(*scn, *reg, &err);
	cli_registry_notes(*reg);
	if (bound)
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

/* One argument as a shell reads it back: quoted when it holds anything
 * but the plainest characters. */
static void print_shell_word(const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                    "0123456789-_./=:,+@%") == strlen(w)) {
		fprintf(stderr, " %s", w);
		return;
	}
	fputs(" '", stderr);
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", stderr);
		else
			fputc(*w, stderr);
	}
	fputc('\'', stderr);
}

static void print_resume_hint(const char *why, int argc, char **argv)
{
	fprintf(stderr, "vsweep: %s; the results file is consistent. Resume "
	        "with:\n ", why);
	int has_resume = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--overwrite"))
			continue;
		has_resume |= !strcmp(argv[i], "--resume");
		print_shell_word(argv[i]);
	}
	fprintf(stderr, "%s\n", has_resume ? "" : " --resume");
}

/* The run options of the command line (cmd_run; cmd_check calibrates
 * its estimate with them). */
static vs_run_opts run_opts(const cli_run_args *a, int jobs)
{
	return (vs_run_opts){
		.out = a->out,
		.jobs = jobs,
		.shard_k = a->shard_k,
		.shard_n = a->shard_n,
		.mode = a->resume      ? VS_STORE_RESUME
		        : a->overwrite ? VS_STORE_OVERWRITE
		                       : VS_STORE_CREATE,
		.record_every = (int)a->record_every,
		.no_wheels = a->no_wheels,
		.no_map = a->no_map,
		.no_state = a->no_state,
		.pairs = a->pairs,
		.pair_range = a->pair_range,
		.record = a->record,
		.signals = a->signals[0] ? a->signals : NULL,
		.plugin_log = a->plugin_log,
		.variant_timeout = a->variant_timeout,
		.lock_timeout = a->lock_timeout,
		/* a line in place on a terminal; full lines for a log */
		.progress = isatty(STDERR_FILENO),
		/* Plugins in child processes; VSWEEP_NO_CONTAINMENT=1 keeps
		 * them in this one, where ASan and debuggers see the host. */
		.contain = !getenv("VSWEEP_NO_CONTAINMENT"),
		.progress_note = cli_progress_note[0] ? cli_progress_note : NULL,
		.variant_memory = a->variant_memory,
	};
}

static int cmd_run(const cli_run_args *a, cli_drill *drill, int argc,
                   char **argv)
{
	vs_registry *reg = NULL;
	vs_scenario *scn = NULL;
	vs_sweep *sw = NULL;
	int status = load_inputs(a, &reg, &scn, &sw);
	if (!status)
		status = cli_check_signals(&prog, reg, scn, a->signals);
	if (status)
		goto out;
	int drilling = drill->list || drill->from || drill->where;
	if (drilling && (status = cli_drill_indices(drill, a, scn, sw)))
		goto out;
	vs_index_source drill_src = {cli_drill_next, drill};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	/* A closed terminal (SIGHUP) or a reader of our output gone
	 * (SIGPIPE) stop the run as SIGTERM does: whole variants stored, a
	 * resume hint, status 130. Containment children inherit the handler
	 * and are killed by the stopping parent. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);

	/* first: it may set cli_progress_note, read below */
	int jobs = (int)cli_fmu_jobs(reg, a->jobs);
	vs_run_opts o = run_opts(a, jobs);
	/* Drill-down: just the chosen variants, in a file of its own kind
	 * (merge refuses it as a shard). */
	o.source = drilling ? &drill_src : NULL;
	o.shard_label = drilling ? "variants" : NULL;
	vs_run_summary sum;
	vs_error err = {{0}};
	if (a->progress && !o.progress)
		cli_progress_start(a->out);
	vs_rc rc = vs_run(scn, sw, reg, &o, &sum, &err);
	cli_progress_stop(rc == VS_RC_OK);
	if (rc) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		status = cli_exit_status(rc);
		/* A write that failed (disk full, say) left whole variants. */
		if (rc == VS_RC_IO && access(a->out, F_OK) == 0)
			print_resume_hint("stopped", argc, argv);
		goto out;
	}
	double rate = sum.seconds > 0 ? (double)sum.actor_steps / sum.seconds
	                              : 0;
	char crashed[48] = ""; /* said only when some did */
	if (sum.crashed)
		snprintf(crashed, sizeof crashed, " (%llu crashed)",
		         (unsigned long long)sum.crashed);
	printf("vsweep: %s: %llu variants (%llu done, %llu failed%s, %llu "
	       "already stored) in %.2f s, %.3g actor-steps/s\n",
	       a->out, (unsigned long long)sum.total,
	       (unsigned long long)sum.done, (unsigned long long)sum.failed,
	       crashed, (unsigned long long)sum.skipped, sum.seconds, rate);
	rc = vs_run_outcome(&sum);
	if (rc == VS_RC_INTERRUPTED)
		print_resume_hint("interrupted", argc, argv);
	status = cli_exit_status(rc);
out:
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return status;
}

/* vsweep's own run options: --progress-interval and the drill-down's. */
static int run_option(void *own, const char *o, const char *v, int *takes)
{
	int rc = cli_progress_option(NULL, o, v, takes);
	return rc == CLI_NOT_MINE ? cli_drill_option(own, o, v, takes) : rc;
}

/* s, what check spends building variants to find the invalid ones (some
 * 4 us each: all of a sweep of 10^5, the first ones of a bigger one,
 * said) */
#define CHECK_BUILD_SECONDS 3.0

/* Builds the sweep's variants (changes applied, nothing simulated): a
 * change that makes an invalid scenario (a start past the road's end, an
 * axle outside a drawn body) fails that variant in a run, where `check`
 * should say so. Prints how many and the first reasons; 1 if any (a run
 * would store them as failed), else 0. */
static int check_variants(const vs_scenario *scn, const vs_sweep *sw)
{
	double deadline = vs_now() + CHECK_BUILD_SECONDS;
	uint64_t bad = 0, i = 0;
	for (; i < sw->count; i++) {
		if ((i & 63) == 0 && i && vs_now() > deadline)
			break;
		vs_error err = {{0}};
		vs_scenario *v = vs_sweep_variant(sw, scn, i, NULL, &err);
		if (!v && ++bad <= 5)
			fprintf(stderr, "vsweep: check: variant %llu: %s\n",
			        (unsigned long long)i, err.msg);
		vs_scenario_destroy(v);
	}
	if (i < sw->count)
		printf("variants built: the first %llu of %llu in %g s\n",
		       (unsigned long long)i, (unsigned long long)sw->count,
		       CHECK_BUILD_SECONDS);
	if (bad)
		fprintf(stderr, "vsweep: check: %llu of %llu variants are "
		        "invalid scenarios; a run stores them as failed\n",
		        (unsigned long long)bad, (unsigned long long)i);
	return bad ? 1 : 0;
}

/* 0 when a file can be made at path (its directory is there and this
 * process may write in it); else -1 with err as run's "cannot create". */
static int can_create(const char *path, vs_error *err)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	vs_error_set(err, "%s: cannot create: %s", path, strerror(errno));
	return -1;
}

/* What `run` would refuse about -o before simulating anything: an empty
 * path, a directory, a device or FIFO, a file that cannot be made (its
 * directory missing or not writable), one --overwrite may not replace
 * (not a results file), an existing file without --resume or --overwrite, or a file to --resume
 * that is not this run's (another --record, scenario, sweep, ...). Said
 * as run says it; 2 then, else 0. A file to resume is opened as run
 * opens it; a missing or empty one is left to the run to make. *stored:
 * the variants a file to resume holds (0 for any other). */
static int check_output(const vs_scenario *scn, const vs_sweep *sw,
                        const vs_run_opts *o, int out_given,
                        uint64_t *stored)
{
	struct stat sb;
	vs_error err = {{0}};
	*stored = 0;
	if (vs_store_path_check(o->out, &err)) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	if (stat(o->out, &sb) != 0) {
		/* run makes it: in a directory that must be there and
		 * writable */
		if (errno == ENOENT && !can_create(o->out, &err))
			return 0;
		fprintf(stderr, "vsweep: %s\n", err.msg[0] ? err.msg :
		        strerror(errno));
		return EXIT_BAD_INPUT;
	}
	/* Without -o, check is mostly asked about the scenario, in a
	 * directory that often holds an earlier run's results.db: said,
	 * not refused. */
	if (o->mode == VS_STORE_CREATE && !out_given) {
		fprintf(stderr, "vsweep: note: %s exists: a run with these "
		        "options would refuse it (--resume continues it, "
		        "--overwrite replaces it, -o names another file)\n",
		        o->out);
		return 0;
	}
	if (o->mode == VS_STORE_CREATE) {
		fprintf(stderr, "vsweep: %s: exists; use --resume to continue "
		        "it or --overwrite to replace it\n", o->out);
		return EXIT_BAD_INPUT;
	}
	if (o->mode == VS_STORE_OVERWRITE &&
	    vs_store_overwritable(o->out, &err)) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	if (o->mode != VS_STORE_RESUME || sb.st_size == 0)
		return 0;
	vs_rc rc = vs_run_check_resume(scn, sw, o, o->out, stored, &err);
	if (rc) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return rc == VS_RC_INPUT ? EXIT_BAD_INPUT : EXIT_INTERNAL;
	}
	return 0;
}

static int cmd_check(const cli_run_args *a, cli_drill *drill)
{
	vs_registry *reg = NULL;
	vs_scenario *scn = NULL;
	vs_sweep *sw = NULL;
	int status = load_inputs(a, &reg, &scn, &sw);
	if (status == 0)
		status = cli_check_signals(&prog, reg, scn, a->signals);
	if (status == 0) {
		printf("%s: %d actors, %lld steps of %g s\n", scn->path,
		       scn->n_actors, (long long)vs_scenario_steps(scn),
		       scn->step);
		for (int i = 0; i < sw->n_blocks; i++)
			printf("block %d (%s): %llu variants\n", i + 1,
			       vs_block_kind_name(sw->blocks[i].kind),
			       (unsigned long long)sw->blocks[i].count);
		printf("variants: %llu\n", (unsigned long long)sw->count);
		status = check_variants(scn, sw);
		vs_run_opts o = run_opts(a, (int)cli_fmu_jobs(reg, a->jobs));
		uint64_t stored;
		int out = check_output(scn, sw, &o, a->out_given, &stored);
		if (out) {
			status = out;
			goto done;
		}
		/* a drill-down is sized as run makes it: the chosen
		 * variants alone, into a new file */
		int drilling = drill->list || drill->from || drill->where;
		if (drilling && (out = cli_drill_indices(drill, a, scn, sw))) {
			status = out;
			goto done;
		}
		int est = drilling ? cli_estimate_chosen(scn, sw, reg, &o,
		                                         o.jobs, drill->idx,
		                                         drill->n)
		                   : cli_estimate(scn, sw, reg, &o, o.jobs,
		                                  stored);
		if (est < 0)
			status = 2;
		else if (est > 0 && !status)
			status = 1;
	}
done:
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return status;
}

/* A stop during a merge: vs_merge ends between variants, removes its
 * temporary file and closes the shards (their -wal and -shm go with the
 * last connection), and the merge exits 130 like an interrupted run. */
static void on_merge_signal(int sig)
{
	(void)sig;
	vs_merge_stop = 1;
}

/* `vsweep merge OUT.db SHARD.db... [--allow-partial]` */
static int cmd_merge(int argc, char **argv)
{
	const cli_prog me = {"vsweep", cli_command_usage("merge"), 0};
	const char *out = NULL;
	const char **shards = vs_xcalloc((size_t)argc, sizeof *shards);
	int n = 0, partial = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--allow-partial"))
			partial = 1;
		else if (argv[i][0] == '-') {
			free(shards);
			return cli_bad_usage(&me, "unknown option '%s'",
			                     argv[i]);
		} else if (!out)
			out = argv[i];
		else
			shards[n++] = argv[i];
	}
	if (!out || n == 0) {
		free(shards);
		return cli_bad_usage(&me, "%s", "merge needs OUT.db and at "
		                     "least one SHARD.db");
	}
	vs_merge_summary sum;
	vs_error err = {{0}};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_merge_signal;
	const int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
		sigaction(stops[i], &sa, NULL);
	vs_rc rc = vs_merge(out, shards, n, partial, &sum, &err);
	free(shards);
	if (rc) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return cli_exit_status(rc);
	}
	printf("vsweep: %s: %lld variants from %d shards", out, sum.variants,
	       sum.shards);
	if (sum.missing)
		printf(", %lld missing", sum.missing);
	printf("\n");
	return cli_exit_status(VS_RC_OK);
}

/* `vsweep plugins [--plugin-path DIR]... [--fmu FILE.fmu]`. */
static int cmd_plugins(int argc, char **argv)
{
	const cli_prog me = {"vsweep", cli_command_usage("plugins"), 0};
	const char *fmu = NULL, *path[64];
	int n_path = 0;
	cli_once once = {0};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		int is_fmu = !strcmp(o, "--fmu");
		if (!is_fmu && strcmp(o, "--plugin-path"))
			return cli_bad_usage(&me, "plugins: unexpected '%s'",
			                     o);
		if (i + 1 >= argc)
			return cli_bad_usage(&me, "%s needs a %s", o,
			                     is_fmu ? "file" : "directory");
		/* the later would be read, not the one typed first;
		 * --plugin-path adds up */
		int rc = is_fmu ? cli_once_note(&me, &once, o, o, argv[i + 1])
		                : 0;
		if (rc)
			return rc;
		if (is_fmu)
			fmu = argv[++i];
		else if (n_path < 64)
			path[n_path++] = argv[++i];
		else
			i++;
	}
	/* an FMU is read alone: the plugin path does not matter to it */
	if (fmu)
		return cli_plugins_fmu(fmu);
	vs_registry *reg = cli_registry(path, n_path);
	int rc = cli_plugins(reg);
	vs_registry_destroy(reg);
	return rc;
}

int main(int argc, char **argv)
{
	/* A file-size limit (ulimit -f, which batch systems pass on) would
	 * kill us with SIGXFSZ, silently and mid-write; ignored, the write
	 * fails with EFBIG and takes the I/O-error path: a message, status
	 * 3 and the resume command (run), or the temporary file removed
	 * (merge). Programs a plugin runs inherit the ignore. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2)
		return cli_bad_usage(&prog, "%s", "missing command");
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
	int help = cli_command_help(argc, argv);
	if (help != CLI_NOT_MINE)
		return help;
	if (!strcmp(argv[1], "status"))
		return cli_status(argc, argv);
	if (!strcmp(argv[1], "new-plugin"))
		return cli_new_plugin(argc, argv);
	if (!strcmp(argv[1], "merge"))
		return cmd_merge(argc, argv);
	if (!strcmp(argv[1], "plot"))
		return cli_plot(argc, argv);
	if (!strcmp(argv[1], "report"))
		return cli_report(argc, argv);
	if (!strcmp(argv[1], "plugins"))
		return cmd_plugins(argc, argv);
	if (!strcmp(argv[1], "variants"))
		return cli_variants(argc, argv);
	if (!strcmp(argv[1], "export"))
		return cli_export(argc, argv);

	cli_run_args a;
	cli_drill drill = {0};
	int rc = cli_run_parse(&prog, argc, argv, &a, run_option, &drill);
	if (rc)
		return rc;
	if (a.jobs == 0)
		a.jobs = online_cores();
	const char *cmd = argv[1];
	if (!strcmp(cmd, "run")) {
		rc = cmd_run(&a, &drill, argc, argv);
		free(drill.idx);
		return rc;
	}
	if (!strcmp(cmd, "check")) {
		rc = cmd_check(&a, &drill);
		free(drill.idx);
		return rc;
	}
	return cli_unknown_command(&prog, cmd);
}
