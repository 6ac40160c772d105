/* vsweep-mpi: `vsweep run` across MPI ranks. Rank 0 hands variants out,
 * every rank simulates into its own part file, rank 0 merges the parts
 * into one results file whose stored rows are a single run's. The other
 * subcommands (check, merge, plot, plugins) are vsweep's.
 *
 *   mpirun -np R vsweep-mpi run SCENARIO.yaml [--sweep S] -o OUT.db ...
 *
 * This file: options, inputs (loaded on every rank, reported once), the
 * parts directory prepared by rank 0 before any rank writes (parts.c),
 * the run itself (mpi_run.c), and rank 0's merge at the end. Every step
 * yields a vs_rc, agreed between ranks by MPI (largest = worst); main()
 * turns the rank's outcome into its exit status through cli_exit_status.
 * Invariant: a rank writes only its own part, rank-R.db, and OUT is
 * written only by the merge, after every rank said DONE. */
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common/util.h"
#include "mpi_run.h"
#include "parts.h"
#include "relay.h"
#include "store/merge.h"

static const char usage[] =
	"usage:\n"
	"  mpirun -np R vsweep-mpi run SCENARIO.yaml [--sweep SWEEP.yaml]\n"
	"        [-o results.db] [-j N] [--resume | --overwrite]\n"
	"        [--record-every N]\n"
	"        [--record state,wheels,map,pairs[=M],signals[=P.OUT,...] |\n"
	"                  summary]\n"
	"        [--plugin-log debug|info|warning|error|none]\n"
	"        [--variant-timeout SECONDS] [--variant-memory MB]\n"
	"        [--lock-timeout SECONDS]\n"
	"        [--plugin-path DIR]\n"
	"        [--chunk N] [--keep-parts]\n"
	"  vsweep-mpi --help | --version\n"
	"\n"
	"Ranks write OUT.db.parts/rank-R.db; rank 0 merges them into OUT.db\n"
	"and deletes them (--keep-parts keeps them). -j: threads per rank\n"
	"(default: the rank's cores). --resume continues the parts with any\n"
	"number of ranks. check, merge, plot, plugins: use vsweep.\n"
	"\n"
	CLI_USAGE_EXIT_STATUS;

/* vsweep's run options (run.progress is accepted for vsweep's sake but
 * unused: ranks are quiet), and the launcher's own. */
typedef struct args {
	cli_run_args run;        /* run.jobs 0: default_jobs() */
	long chunk;
	int keep_parts;
} args;

/* A usage error: only rank 0 says it (quiet on the others), as every
 * rank parses the same command line. */
static cli_prog prog = {"vsweep-mpi", usage, 0};

/* --chunk and --keep-parts; --shard is vsweep's and refused here. */
static int own_option(void *own, const char *o, const char *v, int *takes)
{
	args *a = own;
	if (!strcmp(o, "--chunk")) {
		*takes = 1;
		if (cli_parse_long(v, 1, 64, &a->chunk))
			return cli_bad_usage(&prog, "--chunk needs an "
			                     "integer in [1, 64], got '%s'",
			                     v ? v : "");
	} else if (!strcmp(o, "--keep-parts")) {
		a->keep_parts = 1;
	} else if (!strcmp(o, "--shard")) {
		return cli_bad_usage(&prog, "%s", "--shard is vsweep's; "
		                     "vsweep-mpi hands the variants out "
		                     "itself");
	} else {
		return CLI_NOT_MINE;
	}
	return 0;
}

/* Unlike vsweep, which checks it later for commands that need one, the
 * scenario is required here: run is the only command. */
static int parse_args(int argc, char **argv, args *a)
{
	a->chunk = 8;
	a->keep_parts = 0;
	int rc = cli_run_parse(&prog, argc, argv, &a->run, own_option, a);
	if (!rc && !a->run.scenario)
		rc = cli_bad_usage(&prog, "%s", "missing SCENARIO.yaml");
	return rc;
}

/* Scenario, plugins and sweep, validated; VS_RC_INPUT and err on
 * failure. */
static vs_rc load_inputs(const cli_run_args *a, vs_registry **reg,
                         vs_scenario **scn, vs_sweep **sw, vs_error *err)
{
	*scn = vs_scenario_load(a->scenario, err);
	if (!*scn)
		return VS_RC_INPUT;
	*reg = cli_registry(a->plugin_path, a->n_plugin_path);
	if (vs_scenario_bind(*scn, *reg, err))
		return VS_RC_INPUT;
	*sw = a->sweep ? vs_sweep_load(a->sweep, *scn, err)
	               : vs_sweep_single();
	return *sw ? VS_RC_OK : VS_RC_INPUT;
}

/* Threads per rank unless -j says: the cores this process may use (Open
 * MPI binds a rank to a core or a socket), shared with the other ranks on
 * the node when it is not bound. */
static int default_jobs(void)
{
	MPI_Comm node;
	int on_node = 1;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
	                    MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &on_node);
	MPI_Comm_free(&node);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int usable = omp_get_num_procs(); /* the affinity mask's CPUs */
	int jobs = usable;
	if (usable >= online && on_node > 1)
		jobs = usable / on_node;
	return jobs < 1 ? 1 : jobs;
}

/* SIGINT, SIGTERM, SIGHUP (a closed terminal), SIGPIPE (a reader of our
 * output gone): the run stops with whole variants stored, or rank 0's
 * merge stops and removes its temporary file; status 130 and the resume
 * hint either way. */
static void on_signal(int sig)
{
	(void)sig;
	vs_run_stop = 1;
	vs_merge_stop = 1;
}

/* Rank 0, after every rank is done: the parts into OUT. */
static vs_rc finish(const args *a, const mpi_plan *plan, const mpi_tally *t,
                    int size, double t0)
{
	char *dir = parts_dir(a->run.out);
	vs_rc status;
	if (t->rc != VS_RC_OK) {
		fprintf(stderr, "vsweep-mpi: %s keeps every variant stored so "
		        "far; once the problem is fixed, rerun with --resume\n",
		        dir);
		status = (vs_rc)t->rc;
		goto out;
	}
	if (t->interrupted || vs_run_stop) {
		fprintf(stderr, "vsweep-mpi: interrupted; %s keeps every "
		        "variant stored so far. Resume with the same command "
		        "and --resume (any number of ranks)\n", dir);
		status = VS_RC_INTERRUPTED;
		goto out;
	}
	char **paths;
	int n;
	vs_error err = {{0}};
	vs_merge_summary ms;
	vs_rc rc = parts_list(dir, &paths, &n, &err);
	if (!rc)
		rc = vs_merge(a->run.out, (const char *const *)paths, n, 0, &ms,
		              &err);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	if (rc == VS_RC_INTERRUPTED) {
		fprintf(stderr, "vsweep-mpi: interrupted while merging; %s "
		        "keeps every variant and %s is not written. Resume with "
		        "the same command and --resume (any number of ranks)\n",
		        dir, a->run.out);
		status = rc;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "vsweep-mpi: merging %s: %s\n", dir, err.msg);
		status = rc;
		goto out;
	}
	if (!a->keep_parts)
		parts_remove(dir);
	double dt = vs_now() - t0;
	char crashed[48] = ""; /* said only when some did, as vsweep run */
	if (t->crashed)
		snprintf(crashed, sizeof crashed, " (%lld crashed)",
		         (long long)t->crashed);
	printf("vsweep-mpi: %s: %llu variants (%lld done, %lld failed%s, "
	       "%llu already stored) on %d ranks in %.2f s, %.3g "
	       "actor-steps/s\n", a->run.out, (unsigned long long)plan->count,
	       (long long)t->done, (long long)t->failed, crashed,
	       (unsigned long long)plan->stored, size, dt,
	       dt > 0 ? (double)t->actor_steps / dt : 0);
	status = t->failed ? VS_RC_FAILED : VS_RC_OK;
out:
	free(dir);
	return status;
}

/* Everything between MPI_Init and MPI_Finalize: this rank's outcome. */
static vs_rc run(const args *own, int rank, int size)
{
	const cli_run_args *a = &own->run;
	vs_registry *reg = NULL;
	vs_scenario *scn = NULL;
	vs_sweep *sw = NULL;
	vs_error err = {{0}};
	mpi_plan plan = {0};
	double t0 = vs_now();
	/* Every rank loads the inputs; rank 0's verdict comes first so that
	 * a bad file is reported once, not once per rank. */
	int status = (int)load_inputs(a, &reg, &scn, &sw, &err);
	int first = status;
	MPI_Bcast(&first, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status && (rank == 0 || first == 0))
		fprintf(stderr, "vsweep-mpi: %s\n", err.msg);
	MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX,
	              MPI_COMM_WORLD);
	if (status)
		goto out;
	/* --record signals as vsweep run checks it; every rank judges the
	 * same inputs alike, and rank 0 speaks */
	if (cli_check_signals(&prog, reg, scn, a->signals)) {
		status = VS_RC_INPUT;
		goto out;
	}

	char *dir = parts_dir(a->out);
	char label[32], *part = parts_path(dir, rank);
	free(dir);
	vs_store_part_label(label, sizeof label, rank);
	mpi_ctx c = {
		.rank = rank, .size = size,
		.jobs = (int)cli_fmu_jobs(reg, a->jobs ? a->jobs
		                                       : default_jobs()),
		.chunk = (int)own->chunk,
		.seed = scn, .sw = sw, .reg = reg,
		.opts = {
			.out = part,
			/* Rank 0 already applied --overwrite to the parts. */
			.mode = a->resume ? VS_STORE_RESUME : VS_STORE_CREATE,
			.shard_n = 1,
			.record_every = (int)a->record_every,
			.no_wheels = a->no_wheels,
			.no_map = a->no_map,
			.no_state = a->no_state,
		.pairs = a->pairs,
		.pair_range = a->pair_range,
			.record = a->record,
			.variant_timeout = a->variant_timeout,
			.variant_memory = a->variant_memory,
			/* Each rank's writer waits out another program's
			 * lock on its part, as vsweep run's does. */
			.lock_timeout = a->lock_timeout,
			/* As in vsweep run: a crashing plugin costs one
			 * variant, not the rank (and with it the job). */
			.contain = !getenv("VSWEEP_NO_CONTAINMENT"),
			.shard_label = label,
			.signals = a->signals[0] ? a->signals : NULL,
			.plugin_log = a->plugin_log,
		},
		.plan = &plan,
	};
	c.opts.jobs = c.jobs;
	int verdict[2] = {VS_RC_OK, 0}; /* vs_rc, OUT already complete */
	if (rank == 0) {
		vs_store_mode mode = a->resume      ? VS_STORE_RESUME
		                     : a->overwrite ? VS_STORE_OVERWRITE
		                                    : VS_STORE_CREATE;
		vs_rc rc = parts_prepare(a->out, mode, scn, sw, &c.opts, &plan,
		                         &verdict[1], &err);
		if (rc) {
			fprintf(stderr, "vsweep-mpi: %s\n", err.msg);
			verdict[0] = (int)rc;
		}
	}
	MPI_Bcast(verdict, 2, MPI_INT, 0, MPI_COMM_WORLD);
	status = verdict[0];
	if (!status && verdict[1]) {
		if (rank == 0)
			printf("vsweep-mpi: %s: already holds all %llu "
			       "variants; nothing to do\n", a->out,
			       (unsigned long long)sw->count);
	} else if (!status) {
		mpi_tally t;
		/* vs_run's per-variant lines, each naming this rank */
		relay r;
		relay_start(&r, rank);
		int died = mpi_run(&c, &t);
		relay_stop(&r);
		if (died) {
			fprintf(stderr, "vsweep-mpi: rank %d: the MPI launcher "
			        "died; the parts are consistent, resume with "
			        "--resume\n", rank);
			/* MPI calls could hang now */
			_exit(cli_exit_status(VS_RC_INTERRUPTED));
		}
		if (rank == 0)
			status = (int)finish(own, &plan, &t, size, t0);
		else if (t.rc)
			status = (int)t.rc;
		else if (t.interrupted)
			status = VS_RC_INTERRUPTED;
	}
	free(part);
out:
	plan_finish(&plan);
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return (vs_rc)status;
}

/* This process's rank as its launcher announced it, before MPI_Init
 * (which --help and --version do without): 0 when run alone. */
static int launched_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK",
	                                   "PMIX_RANK", "PMI_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* A file-size limit (ulimit -f) fails a write with EFBIG, the
	 * I/O-error path (status 3, the resume command), instead of
	 * killing the rank silently with SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	/* --help and --version: said once, by rank 0, however many ranks
	 * mpirun started */
	int says = launched_rank() == 0;
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	                  !strcmp(argv[1], "help"))) {
		if (says)
			fputs(usage, stdout);
		return EXIT_OK;
	}
	/* run --help, anywhere after the command, as vsweep takes it */
	for (int i = 2; argc >= 2 && !strcmp(argv[1], "run") && i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (says)
				fputs(usage, stdout);
			return EXIT_OK;
		}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		if (says)
			printf("vsweep-mpi %s (plugin ABI %d.%d)\n", VS_VERSION,
			       VS_ABI_MAJOR, VS_ABI_MINOR);
		return EXIT_OK;
	}
	/* FUNNELED: only the main thread calls MPI (see mpi_run.h). */
	int provided = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	prog.quiet = rank != 0;
	int status;
	args a;
	memset(&a, 0, sizeof a);
	if (provided < MPI_THREAD_FUNNELED) {
		if (rank == 0)
			fprintf(stderr, "vsweep-mpi: this MPI library gives no "
			        "thread support (MPI_THREAD_FUNNELED needed)\n");
		status = cli_exit_status(VS_RC_IO);
	} else if (argc < 2) {
		status = cli_bad_usage(&prog, "%s", "missing command");
	} else if (strcmp(argv[1], "run") != 0) {
		status = cli_bad_usage(&prog, "'%s' is vsweep's; vsweep-mpi "
		                       "only runs sweeps (vsweep-mpi run ...)",
		                       argv[1]);
	} else {
		status = parse_args(argc, argv, &a);
	}
	if (status == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		status = cli_exit_status(run(&a, rank, size));
	}
	fflush(stdout);
	MPI_Finalize();
	return status;
}
