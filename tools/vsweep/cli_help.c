/* `vsweep COMMAND --help`: each command's own usage on stdout, exit 0;
 * and "did you mean" for misspelt commands and `run` options. Commands
 * that parse their own arguments (plot, report) answer --help
 * themselves. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command_help {
	const char *name;
	const char *text;
} command_help;

#define RUN_OPTIONS                                                        \
"  --sweep SWEEP.yaml        the variations (default: the seed alone)\n"  \
"  -o, --output FILE.db      results file (default results.db)\n"         \
"  -j, --jobs N              simulation threads (default: all cores)\n"   \
"  --shard K/N               run the variants i with i mod N = K\n"      \
"  --resume | --overwrite    continue an existing file, or replace it\n"  \
"  --record-every N          store every N-th step\n"                     \
"  --record state,wheels,map,pairs[=M],signals[=P.OUT,...] | summary\n"  \
"                            what to store besides actor_state\n"         \
"  --plugin-log LEVEL        plugin messages kept: debug, info, warning,\n"\
"                            error, none\n"                                \
"  --variant-timeout S       fail a variant after S s of wall time\n"     \
"  --variant-memory MB       fail a variant whose process grows by more\n"\
"                            (default: RAM / (2 x jobs); 0: no limit)\n"  \
"  --lock-timeout S          wait up to S s for another program's lock\n" \
"                            on the results file (default 600)\n"        \
"  --progress                progress on stderr: a line in place on a\n"  \
"                            terminal, else a full line every interval\n" \
"  --progress-interval S     seconds between progress lines (default 60)\n"\
"  --plugin-path DIR         look for plugins here first (repeatable)\n"\
"  --variants LIST           only these variants (e.g. 3,17,40-45), into\n"\
"                            a new file\n"                                 \
"  --variants-from FILE.db --where SQL\n"                                 \
"                            only the variants of FILE.db's\n"            \
"                            variant_summary that SQL selects\n"

static const command_help commands[] = {
	{"run",
	 "usage: vsweep run SCENARIO.yaml [options]\n"
	 "  Expands the scenario into variants, simulates them in parallel,\n"
	 "  stores every actor at every step in one SQLite file.\n"
	 RUN_OPTIONS
	 CLI_USAGE_EXIT_STATUS},
	{"check",
	 "usage: vsweep check SCENARIO.yaml [--sweep SWEEP.yaml] "
	 "[--plugin-path DIR] [-o FILE] [run's options]\n"
	 "  Validates the scenario and sweep, counts the variants, estimates\n"
	 "  the results file's size and the run's time, and says whether the\n"
	 "  file fits where it goes (exit status 2 if it cannot).\n"},
	{"merge",
	 "usage: vsweep merge OUT.db SHARD.db... [--allow-partial]\n"
	 "  Joins the shard files of one sweep into OUT.db.\n"
	 "  --allow-partial   merge although some variants are missing\n"},
	{"status",
	 "usage: vsweep status RESULTS.db\n"
	 "  Done, failed, rate and ETA of a running or finished sweep, read\n"
	 "  from its results file (safe while the run writes it).\n"},
	{"plugins",
	 "usage: vsweep plugins [--plugin-path DIR] [--fmu FILE.fmu]\n"
	 "  Lists the plugins found, with their parameters; with --fmu, an\n"
	 "  FMU's parameters, inputs and outputs.\n"},
	{"variants",
	 "usage: vsweep variants SCENARIO.yaml --sweep SWEEP.yaml "
	 "[--format csv|json]\n"
	 "                       [--plugin-path DIR]\n"
	 "  The variant table (variant_id, block, kind, label, params),\n"
	 "  without a run.\n"},
	{"export",
	 "usage: vsweep export SCENARIO.yaml --sweep SWEEP.yaml --variant I "
	 "-o FILE.yaml\n"
	 "                     [--plugin-path DIR]\n"
	 "  Variant I as a standalone scenario file.\n"},
	{"new-plugin",
	 "usage: vsweep new-plugin NAME --kind vehicle_model|behaviour "
	 "[-o DIR]\n"
	 "  Copies the installed plugin template into DIR (default ./NAME),\n"
	 "  renamed NAME: a C file, a meson.build using pkg-config vsweep,\n"
	 "  and a test scenario.\n"},
};

#define N_COMMANDS (int)(sizeof commands / sizeof commands[0])

/* Every command main dispatches, for "did you mean". */
static const char *const command_names[] = {
	"run", "check", "merge", "status", "plugins", "new-plugin", "plot",
	"report", "variants", "export",
};

int cli_command_help(int argc, char **argv)
{
	int asked = 0;
	for (int i = 2; i < argc; i++)
		asked |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	if (!asked)
		return CLI_NOT_MINE;
	for (int c = 0; c < N_COMMANDS; c++) {
		if (!strcmp(argv[1], commands[c].name)) {
			fputs(commands[c].text, stdout);
			return EXIT_OK;
		}
	}
	return CLI_NOT_MINE;
}

const char *cli_command_usage(const char *name)
{
	for (int c = 0; c < N_COMMANDS; c++)
		if (!strcmp(name, commands[c].name))
			return commands[c].text;
	return NULL;
}

int cli_unknown_command(const cli_prog *p, const char *cmd)
{
	const char *near = cli_did_you_mean(cmd, command_names,
	        (int)(sizeof command_names / sizeof *command_names));
	if (near)
		return cli_bad_usage(p, "unknown command '%s'; did you mean "
		                     "'%s'?", cmd, near);
	return cli_bad_usage(p, "unknown command '%s'", cmd);
}

/* The options cli_run_parse knows, for its suggestions. */
static const char *const run_options[] = {
	"--sweep", "-o", "--output", "-j", "--jobs", "--shard", "--resume",
	"--overwrite", "--record-every", "--record", "--variant-timeout",
	"--variant-memory",
	"--lock-timeout",
	"--progress", "--progress-interval", "--plugin-path", "--plugin-log",
	"--variants", "--variants-from", "--where", "--help",
};

int cli_unknown_run_option(const cli_prog *p, const char *o)
{
	const char *near = cli_did_you_mean(o, run_options,
	        (int)(sizeof run_options / sizeof *run_options));
	/* spelt right, but not one of this program's (vsweep run's own
	 * options given to vsweep-mpi) */
	if (near && !strcmp(near, o))
		return cli_bad_usage(p, "%s does not take %s (vsweep run "
		                     "does)", p->name, o);
	if (near)
		return cli_bad_usage(p, "unknown option '%s'; did you mean "
		                     "'%s'?", o, near);
	return cli_bad_usage(p, "unknown or incomplete option '%s'", o);
}
