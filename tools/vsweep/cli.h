/* Pieces of the vsweep command line shared between its files. */
#ifndef VS_CLI_H
#define VS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "plugin/registry.h"

/* Exit statuses of docs/cli.md. */
enum {
	EXIT_OK = 0,
	EXIT_SOME_FAILED = 1,
	EXIT_BAD_INPUT = 2,
	EXIT_INTERNAL = 3,
	EXIT_INTERRUPTED = 130
};

/* The exit status of an outcome: the one place both programs turn a vs_rc
 * into one (OK 0, FAILED 1, INPUT 2, IO 3, INTERRUPTED 130). */
int cli_exit_status(vs_rc rc);

/* The end of both programs' usage text; a macro so that each usage stays
 * one literal. */
#define CLI_USAGE_EXIT_STATUS                                              \
"exit status: 0 success, 1 some variants failed, 2 bad input or usage,\n"  \
"3 internal or I/O failure, 130 interrupted (resume with --resume)\n"

/* Who speaks on usage errors: vsweep and vsweep-mpi print the same
 * messages, each under its own name and with its own usage text. */
typedef struct cli_prog {
	const char *name;   /* message prefix, "vsweep" */
	const char *usage;  /* printed after the message */
	int quiet;          /* print nothing: MPI ranks other than 0 */
} cli_prog;

/* "NAME: message", then the usage, on stderr; returns EXIT_BAD_INPUT. */
int cli_bad_usage(const cli_prog *p, const char *fmt, ...) VS_PRINTF(2, 3);

/* Parses a whole decimal integer in [lo, hi]; 0 on success, -1 when s is
 * NULL (a missing value) or anything else. */
int cli_parse_long(const char *s, long lo, long hi, long *out);

/* The options of one command line that a command takes once, as they
 * come. A later value silently winning is how a wrapper script's default
 * overrides what its user typed (`--record summary ... --record state`),
 * so every command refuses a second one through cli_once_note; options
 * that add up (--plugin-path, plot's --variant and --actor) are not
 * noted. Zeroed before the first word; .values set to name both values. */
#define CLI_ONCE_MAX 32   /* more than any command's options */
typedef struct cli_once {
	int values;                      /* say both values in the message */
	int n;
	const char *key[CLI_ONCE_MAX];   /* each option's one name */
	const char *value[CLI_ONCE_MAX]; /* the value it came with */
} cli_once;

/* Notes option key (one name for all its spellings: "--output" for -o)
 * given with value v (NULL when it has none yet). Given before: "SHOWN
 * given twice: give it once" (with "('FIRST', then 'V')" after "twice"
 * when s->values), as a usage error of p, and its status; else 0. */
int cli_once_note(const cli_prog *p, cli_once *s, const char *key,
                  const char *shown, const char *v);

/* The `run` options both programs take (vsweep's check and plugins use
 * some of them); one parser, so both accept and reject alike. */
typedef struct cli_run_args {
	const char *scenario, *sweep, *out;
	int out_given;                /* -o or --output on the line */
	long jobs;                         /* 0: the program's default */
	unsigned long long shard_k, shard_n;
	int resume, overwrite, progress;
	long record_every;
	char record[1024];                 /* canonical --record list */
	char signals[1024];                /* "" none, "*" all, else names */
	int plugin_log;                    /* vs_sim_opts.plugin_log */
	int no_wheels, no_map, no_state;
	int pairs;                         /* --record pairs */
	double pair_range;                 /* m, pairs=R; 0: the default */
	double variant_timeout;            /* s; 0: none */
	long variant_memory;               /* MB; 0: the default share;
	                                    * -1: no limit (given as 0) */
	double lock_timeout;               /* s; 0: the default */
	const char *plugin_path[64];
	int n_plugin_path;
} cli_run_args;

/* A program's own option, tried before the shared ones (so it may also
 * refuse one of them): 0 when it took o (*takes = 1 when it also took v,
 * the next word, NULL at the end), CLI_NOT_MINE, or the exit status of a
 * usage error it reported. */
enum { CLI_NOT_MINE = -1 };
typedef int (*cli_own_option)(void *own, const char *o, const char *v,
                              int *takes);

/* Fills a with the defaults, then from argv[2..] (after the program and
 * its command); own_fn may be NULL. 0, or the status of a usage error. */
int cli_run_parse(const cli_prog *p, int argc, char **argv, cli_run_args *a,
                  cli_own_option own_fn, void *own);

/* Finds plugins in --plugin-path dirs, then VSWEEP_PLUGIN_PATH, then the
 * build or install plugin directory; loads only the ones named. */
vs_registry *cli_registry(const char *const *extra, int n_extra);

/* The registry's notes (shadowed plugin files, refused folders), one line
 * each on stderr. */
void cli_registry_notes(const vs_registry *reg);

/* --record's signals items (cli_plugin_opts.c): "signals" (all) or
 * "signals=NAME" and the "plugin.output" names after it. 1 when tok is
 * one, 0 when not, -1 when malformed. */
int cli_record_signal(const char *tok, cli_run_args *a);

/* --plugin-log LEVEL: debug, info, warning, error or none; 0 or -1. */
int cli_parse_plugin_log(const char *v, cli_run_args *a);

/* `vsweep plugins --fmu FILE`: an FMU's parameters, inputs, outputs. */
int cli_plugins_fmu(const char *path);

/* -j for a run: 1 when an FMU the scenario uses may be instantiated only
 * once per process and variants run uncontained (VSWEEP_NO_CONTAINMENT;
 * said on stderr), else jobs. */
long cli_fmu_jobs(const vs_registry *reg, long jobs);
/* Why the run goes one variant at a time ("" when it does not), for the
 * end of every progress line; set by cli_fmu_jobs. */
extern char cli_progress_note[320];

/* `vsweep plugins`: loads every plugin file found (saying so) and lists
 * them with params. */
int cli_plugins(vs_registry *reg);

/* The word of known[0..n) nearest to word, when near enough to be a
 * misspelling of it (cli_suggest.c); NULL otherwise. */
const char *cli_did_you_mean(const char *word, const char *const *known,
                             int n);

/* "WHO: unknown option 'O'; did you mean 'X'?" (or without the
 * suggestion) on stderr. */
void cli_unknown_option(const char *who, const char *o,
                        const char *const *known, int n);

/* `vsweep COMMAND ... --help` (cli_help.c): prints the command's usage
 * and returns EXIT_OK, or CLI_NOT_MINE when --help is not asked for or the
 * command answers it itself. */
int cli_command_help(int argc, char **argv);

/* The usage text of a command of cli_help.c's table ("merge"), for its
 * usage errors; NULL for a command not in it. */
const char *cli_command_usage(const char *name);

/* Usage errors with a suggestion: an unknown command, an unknown option
 * of the run parser. Return EXIT_BAD_INPUT. */
int cli_unknown_command(const cli_prog *p, const char *cmd);
int cli_unknown_run_option(const cli_prog *p, const char *o);

/* `vsweep status RESULTS.db` (cli_status.c). Returns an exit status. */
int cli_status(int argc, char **argv);

/* How far a results file is, in status's own words, for vsweep report:
 * the counts, the variants its sweep (shard) has and how many of those
 * it lacks, and its state ("finished", "running (pid N)", "stopped
 * (continue it with vsweep run ... --resume)", "incomplete (...)",
 * "drill-down (...)", "part R of a vsweep-mpi run (...)"). */
#define CLI_STATE_WORDS 4400
typedef struct cli_sweep_state {
	int64_t done, failed, crashed;
	int64_t expected;   /* variants of its sweep (shard); 0: none to
	                       reach (a drill-down's selection, a vsweep-mpi
	                       part) */
	int64_t missing;    /* of those, not stored */
	int complete, running;
	char words[CLI_STATE_WORDS];
} cli_sweep_state;

/* Reads it over db, a read connection to the file at path; 0, or -1 when
 * the file is not a readable results file. */
struct sqlite3;
int cli_sweep_state_read(struct sqlite3 *db, const char *path,
                         cli_sweep_state *out);

/* Progress for a log (stderr not a terminal): a thread that prints a
 * full line every --progress-interval seconds (default
 * CLI_PROGRESS_INTERVAL) from the results file at path, and, when
 * stopped with final_line (the run stored its variants), a last one.
 * Start returns -1 when no thread could be made. */
#define CLI_PROGRESS_INTERVAL 60.0  /* s */
int cli_progress_start(const char *path);
void cli_progress_stop(int final_line);

/* --progress-interval S, as a cli_own_option (own unused). */
int cli_progress_option(void *own, const char *o, const char *v, int *takes);

/* Drill-down (cli_drill.c): --variants LIST, --variants-from FILE.db
 * [--where SQL]; the chosen indices, ascending, once each. */
typedef struct cli_drill {
	const char *list, *from, *where;
	uint64_t *idx;
	size_t n, next;
} cli_drill;
int cli_drill_option(void *own, const char *o, const char *v, int *takes);
/* Every PLUGIN.OUTPUT of --record signals= names an output of a plugin
 * the scenario uses or the plugin path holds, and no recorded output
 * name has two units (two FMUs); else a message under me's name (none
 * when me is quiet) and EXIT_BAD_INPUT (it was taken, nothing stored). */
struct vs_scenario;
int cli_check_signals(const cli_prog *me, const vs_registry *reg,
                      const struct vs_scenario *scn, const char *signals);

/* Fills d->idx (indices below the sweep's count) from the options; an
 * exit status. A --variants-from file must be a run of this scenario and
 * sweep (their texts as stored in its meta). */
struct vs_scenario;
struct vs_sweep;
int cli_drill_indices(cli_drill *d, const cli_run_args *a,
                      const struct vs_scenario *scn,
                      const struct vs_sweep *sw);
/* vs_index_source.next over d->idx. */
int cli_drill_next(void *ctx, uint64_t *i);

/* `vsweep new-plugin NAME --kind K [-o DIR]` (cli_newplugin.c). */
int cli_new_plugin(int argc, char **argv);

#endif
