/* `vsweep variants`: the variant table of a sweep (variant_id, block,
 * kind, label, params) printed without running anything. Each row is computed
 * from the sweep and its index alone (vs_sweep_changes, no scenario
 * built) and written at once, so memory stays constant whatever the
 * number of variants; params is the JSON object that `vsweep run` stores
 * in variant_info.params. */
#include "variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input/scenario.h"
#include "input/sweep.h"

static const char usage[] =
	"usage:\n"
	"  vsweep variants SCENARIO.yaml --sweep SWEEP.yaml\n"
	"                  [--format csv|json] [--plugin-path DIR]\n"
	"\n"
	CLI_USAGE_EXIT_STATUS;

static const cli_prog prog = {"vsweep", usage, 0};

typedef struct variants_args {
	const char *scenario, *sweep;
	int json;
	const char *plugin_path[64];
	int n_plugin_path;
} variants_args;

static int parse_args(int argc, char **argv, variants_args *a)
{
	memset(a, 0, sizeof *a);
	cli_once once = {0};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--sweep") || !strcmp(o, "--format") ||
		    !strcmp(o, "--plugin-path")) {
			if (!v)
				return cli_bad_usage(&prog, "%s needs a value", o);
			i++;
			/* the later would be listed, not the one typed
			 * first; --plugin-path adds up */
			int rc = strcmp(o, "--plugin-path")
			                 ? cli_once_note(&prog, &once, o, o, v)
			                 : 0;
			if (rc)
				return rc;
			if (!strcmp(o, "--sweep")) {
				a->sweep = v;
			} else if (!strcmp(o, "--plugin-path")) {
				if (a->n_plugin_path == 64)
					return cli_bad_usage(&prog, "%s",
					                     "too many --plugin-path");
				a->plugin_path[a->n_plugin_path++] = v;
			} else if (!strcmp(v, "csv") || !strcmp(v, "json")) {
				a->json = !strcmp(v, "json");
			} else {
				return cli_bad_usage(&prog, "--format: expected "
				                     "csv or json, got '%s'", v);
			}
		} else if (o[0] == '-') {
			return cli_bad_usage(&prog, "unknown option '%s'", o);
		} else if (!a->scenario) {
			a->scenario = o;
		} else {
			return cli_bad_usage(&prog, "unexpected argument '%s'", o);
		}
	}
	if (!a->scenario)
		return cli_bad_usage(&prog, "%s", "missing SCENARIO.yaml");
	if (!a->sweep)
		return cli_bad_usage(&prog, "%s", "variants needs --sweep "
		                     "SWEEP.yaml");
	return 0;
}

/* A CSV field: quoted, with its quotes doubled (params holds commas). */
static void csv_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* A JSON string, or null. A label holds no control characters (the
 * sweep reader refuses them), so only quotes and backslashes need
 * escaping; UTF-8 passes as it is. */
static void json_string(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* One row per variant, in index order; the block is found by walking the
 * blocks alongside the index. */
static int print_table(const vs_sweep *sw, int json)
{
	vs_change_buf b;
	vs_change_buf_init(&b, sw);
	vs_error err = {{0}};
	int block = 0, rc = 0;
	fputs(json ? "[" : "variant_id,block,kind,label,params\n", stdout);
	for (uint64_t i = 0; i < sw->count && !rc; i++) {
		while (block + 1 < sw->n_blocks && sw->blocks[block + 1].first <= i)
			block++;
		if (vs_sweep_changes(sw, i, &b, &err)) {
			fprintf(stderr, "vsweep: %s\n", err.msg);
			rc = EXIT_INTERNAL;
			break;
		}
		char *params = vs_change_set_json(&b.set);
		const char *kind = vs_block_kind_name(sw->blocks[block].kind);
		const char *label = b.set.label;
		if (json) {
			printf("%s\n{\"variant_id\":%llu,\"block\":%d,\"kind\":"
			       "\"%s\",\"label\":", i ? "," : "",
			       (unsigned long long)i, block + 1, kind);
			json_string(label);
			printf(",\"params\":%s}", params);
		} else {
			printf("%llu,%d,%s,", (unsigned long long)i, block + 1,
			       kind);
			if (label) /* an empty field: no label */
				csv_quoted(label);
			putchar(',');
			csv_quoted(params);
			putchar('\n');
		}
		free(params);
	}
	if (json && !rc)
		fputs("\n]\n", stdout);
	vs_change_buf_finish(&b);
	if (!rc && (fflush(stdout) || ferror(stdout))) {
		fputs("vsweep: variants: cannot write to stdout\n", stderr);
		rc = EXIT_INTERNAL;
	}
	return rc;
}

vs_sweep *cli_load_sweep(const char *scenario, const char *sweep,
                         const char *const *plugin_path, int n_plugin_path,
                         vs_registry **reg, vs_scenario **seed,
                         vs_error *err)
{
	*reg = NULL;
	*seed = vs_scenario_load(scenario, err);
	if (!*seed)
		return NULL;
	*reg = cli_registry(plugin_path, n_plugin_path);
	if (vs_scenario_bind(*seed, *reg, err))
		return NULL;
	return vs_sweep_load(sweep, *seed, err);
}

int cli_variants(int argc, char **argv)
{
	variants_args a;
	int status = parse_args(argc, argv, &a);
	if (status)
		return status;
	vs_error err = {{0}};
	vs_registry *reg;
	vs_scenario *scn;
	vs_sweep *sw = cli_load_sweep(a.scenario, a.sweep, a.plugin_path,
	                              a.n_plugin_path, &reg, &scn, &err);
	if (!sw) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		status = EXIT_BAD_INPUT;
	} else {
		status = print_table(sw, a.json);
	}
	vs_sweep_destroy(sw);
	vs_scenario_destroy(scn);
	vs_registry_destroy(reg);
	return status;
}
