/* The `run` options of vsweep and vsweep-mpi: one parser, so that both
 * programs accept, reject and word their complaints alike; and the one
 * place where an outcome (vs_rc) becomes an exit status. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim/sim.h"

int cli_exit_status(vs_rc rc)
{
	switch (rc) {
	case VS_RC_OK:
		return EXIT_OK;
	case VS_RC_FAILED:
		return EXIT_SOME_FAILED;
	case VS_RC_INTERRUPTED:
		return EXIT_INTERRUPTED;
	case VS_RC_INPUT:
		return EXIT_BAD_INPUT;
	case VS_RC_IO:
		break;
	}
	return EXIT_INTERNAL;
}

int cli_bad_usage(const cli_prog *p, const char *fmt, ...)
{
	if (p->quiet)
		return EXIT_BAD_INPUT;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", p->name);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs(p->usage, stderr);
	return EXIT_BAD_INPUT;
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end = NULL;
	errno = 0;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s || errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_once_note(const cli_prog *p, cli_once *s, const char *key,
                  const char *shown, const char *v)
{
	for (int k = 0; k < s->n; k++) {
		if (strcmp(s->key[k], key))
			continue;
		if (!s->values)
			return cli_bad_usage(p, "%s given twice: give it once",
			                     shown);
		return cli_bad_usage(p, "%s given twice ('%s', then '%s'): "
		                     "give it once", shown,
		                     s->value[k] ? s->value[k] : "",
		                     v ? v : "");
	}
	/* only known options are noted, once each: the room never runs
	 * out */
	if (s->n < CLI_ONCE_MAX) {
		s->key[s->n] = key;
		s->value[s->n++] = v;
	}
	return 0;
}

/* K/N, 0 <= K < N; strtoull would take a leading '-', hence the checks. */
static int parse_shard(const char *s, cli_run_args *a)
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

/* `pairs` or `pairs=R` (R in metres, > 0): 1 when tok is one, 0 when not,
 * -1 when R is bad. */
static int record_pairs(const char *tok, cli_run_args *a)
{
	/* twice (pairs=50,pairs=60): which reach would it be? */
	if (a->pairs && (!strcmp(tok, "pairs") || !strncmp(tok, "pairs=", 6)))
		return -1;
	if (!strcmp(tok, "pairs")) {
		a->pairs = 1;
		a->pair_range = 0;
		return 1;
	}
	if (strncmp(tok, "pairs=", 6))
		return 0;
	char *end = NULL;
	double r = strtod(tok + 6, &end);
	if (end == tok + 6 || *end || !(r > 0) || r > 1e9)
		return -1;
	a->pairs = 1;
	a->pair_range = r == VS_PAIR_RANGE_DEFAULT ? 0 : r; /* one spelling */
	return 1;
}

/* --record LIST: which attributes to store besides actor_state (always).
 * Canonical order, so equal choices compare equal on resume (the list is
 * part of the sweep's identity). `summary` alone stores no per-step rows:
 * variants, actors, events and the summary, whose lane KPIs still need
 * the map. */
static int parse_record(const char *v, cli_run_args *a)
{
	char buf[1024];
	/* nothing (--record ''): not the default either */
	if (strlen(v) >= sizeof buf || !v[strspn(v, ", ")])
		return -1;
	a->no_state = !strcmp(v, "summary");
	a->pairs = 0;
	a->pair_range = 0;
	if (a->no_state) {
		a->no_wheels = 1;
		a->no_map = 0;
		a->signals[0] = 0;
		strcpy(a->record, "summary");
		return 0;
	}
	snprintf(buf, sizeof buf, "%s", v);
	int wheels = 0, map = 0;
	char *save = NULL;
	a->signals[0] = 0;
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		int pr = record_pairs(t, a);
		if (pr < 0)
			return -1;
		if (pr)
			continue;
		int sig = cli_record_signal(t, a);
		if (sig < 0)
			return -1;
		if (sig)
			continue;
		if (!strcmp(t, "wheels"))
			wheels = 1;
		else if (!strcmp(t, "map"))
			map = 1;
		else if (strcmp(t, "state"))
			return -1;
	}
	a->no_wheels = !wheels;
	a->no_map = !map;
	char pairs[64] = "";
	if (a->pairs && a->pair_range > 0)
		snprintf(pairs, sizeof pairs, ",pairs=%.17g", a->pair_range);
	else if (a->pairs)
		strcpy(pairs, ",pairs");
	snprintf(a->record, sizeof a->record, "state%s%s%s%s",
	         wheels ? ",wheels" : "", map ? ",map" : "", pairs,
	         a->signals[0] ? ",signals" : "");
	/* The chosen names too: a resume with other signals is another
	 * sweep's file. */
	if (a->signals[0] && strcmp(a->signals, "*")) {
		size_t n = strlen(a->record);
		if (n + 1 + strlen(a->signals) >= sizeof a->record)
			return -1;
		a->record[n] = '=';
		strcpy(a->record + n + 1, a->signals);
	}
	return 0;
}

/* Seconds in (0, 1e9]; NaN fails the comparison and is refused too. */
/* The largest values the numeric options take, named in their messages:
 * beyond them a value is a typo (10^9 s is 31 years, 2^30 MB about
 * 10^15 bytes). */
#define MAX_RECORD_EVERY 1000000000L /* steps */
#define MAX_SECONDS 1e9              /* s */
#define MAX_VARIANT_MB (1L << 30)    /* MB */

static int parse_seconds(const char *v, double *out)
{
	char *end = NULL;
	double s = v ? strtod(v, &end) : -1;
	if (!v || end == v || *end || !(s > 0) || s > MAX_SECONDS)
		return -1;
	*out = s;
	return 0;
}

/* The options that take a value; the CLI_NOT_MINE convention of
 * cli_own_option. A bad value is an error even as the last word. */
static int value_option(const cli_prog *p, cli_run_args *a, const char *o,
                        const char *v)
{
	const char *shown = v ? v : "";
	int out = !strcmp(o, "-o") || !strcmp(o, "--output");
	if ((out || !strcmp(o, "--sweep") || !strcmp(o, "--plugin-path")) &&
	    !v)
		return cli_bad_usage(p, "%s needs a %s", o,
		                     out ? "file name" : !strcmp(o, "--sweep")
		                                 ? "sweep file"
		                                 : "directory");
	if (!strcmp(o, "--sweep"))
		a->sweep = v;
	else if (out) {
		a->out = v;
		a->out_given = 1;
	}
	else if (!strcmp(o, "-j") || !strcmp(o, "--jobs")) {
		if (cli_parse_long(v, 1, 4096, &a->jobs))
			return cli_bad_usage(p, "-j needs an integer N from 1 "
			                     "to 4096, got '%s'", shown);
	} else if (!strcmp(o, "--shard")) {
		if (!v || parse_shard(v, a))
			return cli_bad_usage(p, "--shard needs K/N with 0 <= "
			                     "K < N, got '%s'", shown);
	} else if (!strcmp(o, "--record-every")) {
		if (cli_parse_long(v, 1, MAX_RECORD_EVERY, &a->record_every))
			return cli_bad_usage(p, "--record-every needs an "
			                     "integer N from 1 to %ld, got '%s'",
			                     MAX_RECORD_EVERY, shown);
	} else if (!strcmp(o, "--record")) {
		if (!v || parse_record(v, a))
			return cli_bad_usage(p, "--record takes a comma-"
			                     "separated list of state, wheels, "
			                     "map, pairs (or pairs=METRES), "
			                     "signals (or signals=PLUGIN."
			                     "OUTPUT,...), or summary alone; "
			                     "got '%s'", shown);
	} else if (!strcmp(o, "--plugin-log")) {
		if (!v || cli_parse_plugin_log(v, a))
			return cli_bad_usage(p, "--plugin-log takes debug, info, "
			                     "warning, error or none; got '%s'",
			                     shown);
	} else if (!strcmp(o, "--variant-timeout")) {
		if (parse_seconds(v, &a->variant_timeout))
			return cli_bad_usage(p, "--variant-timeout needs "
			                     "seconds > 0 and at most %.0f, got "
			                     "'%s'", MAX_SECONDS, shown);
	} else if (!strcmp(o, "--variant-memory")) {
		if (cli_parse_long(v, 0, MAX_VARIANT_MB, &a->variant_memory))
			return cli_bad_usage(p, "--variant-memory needs MB from "
			                     "0 to %ld (0: no limit), got '%s'",
			                     MAX_VARIANT_MB, shown);
		if (a->variant_memory == 0)
			a->variant_memory = -1;
	} else if (!strcmp(o, "--lock-timeout")) {
		if (parse_seconds(v, &a->lock_timeout))
			return cli_bad_usage(p, "--lock-timeout needs "
			                     "seconds > 0 and at most %.0f, got "
			                     "'%s'", MAX_SECONDS, shown);
	} else if (!strcmp(o, "--plugin-path")) {
		if (a->n_plugin_path < 64)
			a->plugin_path[a->n_plugin_path++] = v;
	} else {
		return CLI_NOT_MINE;
	}
	return 0;
}

/* A flag, the scenario, or a usage error. */
static int word(const cli_prog *p, cli_run_args *a, const char *o)
{
	if (!strcmp(o, "--resume"))
		a->resume = 1;
	else if (!strcmp(o, "--overwrite"))
		a->overwrite = 1;
	else if (!strcmp(o, "--progress"))
		a->progress = 1;
	else if (o[0] == '-')
		return cli_unknown_run_option(p, o);
	else if (!a->scenario)
		a->scenario = o;
	else
		return cli_bad_usage(p, "unexpected argument '%s'", o);
	return 0;
}

/* The option's one name: -o is --output, -j is --jobs. */
static const char *canonical(const char *o)
{
	return !strcmp(o, "-o") ? "--output" : !strcmp(o, "-j") ? "--jobs" : o;
}

int cli_run_parse(const cli_prog *p, int argc, char **argv, cli_run_args *a,
                  cli_own_option own_fn, void *own)
{
	memset(a, 0, sizeof *a);
	a->out = "results.db";
	a->shard_n = 1;
	a->record_every = 1;
	strcpy(a->record, "state,wheels,map,pairs");
	a->pairs = 1;
	cli_once once = {.values = 1};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 0;
		int rc = own_fn ? own_fn(own, o, v, &takes) : CLI_NOT_MINE;
		if (rc == CLI_NOT_MINE) {
			rc = value_option(p, a, o, v);
			takes = 1;
		}
		if (rc == CLI_NOT_MINE) {
			rc = word(p, a, o);
			takes = 0;
		}
		if (rc)
			return rc;
		/* under its one name; --plugin-path adds up */
		const char *key = canonical(o);
		if (takes && i + 1 < argc && strcmp(key, "--plugin-path") &&
		    (rc = cli_once_note(p, &once, key, key, argv[i + 1])))
			return rc;
		i += takes;
	}
	if (a->resume && a->overwrite)
		return cli_bad_usage(p, "%s", "--resume and --overwrite "
		                     "exclude each other");
	return 0;
}
