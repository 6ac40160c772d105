/* `vsweep export`: variant I of a sweep written as a standalone scenario
 * file, whose run stores the same rows as variant I of the sweep.
 *
 * The file is the seed's own document, written back key by key, with the
 * actors the variant changes rewritten from the variant's scenario: their
 * route (speed, waypoints, yaw), start and plugins (every bound param, so
 * the values are the variant's whatever the defaults; an FMU by its
 * absolute path), or an attached actor's attach: with the variant's
 * offset, heading and slope. Numbers are
 * written with %.17g, so each reads back to the same double. A dimension
 * change cannot be said per actor in a scenario file (assets carry the
 * dimensions, and a length change keeps the variant's axles, which an
 * asset would place anew), so such a variant is refused. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "variants.h"
#include "yaml/yamltree.h"

static const char usage[] =
	"usage:\n"
	"  vsweep export SCENARIO.yaml --sweep SWEEP.yaml --variant I\n"
	"                -o FILE.yaml [--plugin-path DIR]\n"
	"\n"
	CLI_USAGE_EXIT_STATUS;

static const cli_prog prog = {"vsweep", usage, 0};

typedef struct export_args {
	const char *scenario, *sweep, *out;
	unsigned long long variant;
	int has_variant;
	const char *plugin_path[64];
	int n_plugin_path;
} export_args;

static int parse_args(int argc, char **argv, export_args *a)
{
	static const char *const valued[] = {"--sweep", "--variant", "-o",
	                                     "--plugin-path", NULL};
	memset(a, 0, sizeof *a);
	cli_once once = {0};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int k = 0;
		while (valued[k] && strcmp(valued[k], o))
			k++;
		if (!valued[k]) {
			if (o[0] == '-')
				return cli_bad_usage(&prog, "unknown option '%s'",
				                     o);
			if (a->scenario)
				return cli_bad_usage(&prog, "unexpected argument "
				                     "'%s'", o);
			a->scenario = o;
			continue;
		}
		if (!v)
			return cli_bad_usage(&prog, "%s needs a value", o);
		i++;
		/* the later silently winning would export another variant
		 * or file than the one the user typed first; --plugin-path
		 * adds up */
		int rc = k < 3 ? cli_once_note(&prog, &once, o, o, v) : 0;
		if (rc)
			return rc;
		long n;
		switch (k) {
		case 0:
			a->sweep = v;
			break;
		case 1:
			if (cli_parse_long(v, 0, 999999999, &n))
				return cli_bad_usage(&prog, "--variant: expected "
				                     "a variant index, got '%s'", v);
			a->variant = (unsigned long long)n;
			a->has_variant = 1;
			break;
		case 2:
			a->out = v;
			break;
		default:
			if (a->n_plugin_path == 64)
				return cli_bad_usage(&prog, "%s",
				                     "too many --plugin-path");
			a->plugin_path[a->n_plugin_path++] = v;
		}
	}
	if (!a->scenario || !a->sweep || !a->has_variant || !a->out)
		return cli_bad_usage(&prog, "%s", "export needs SCENARIO.yaml, "
		                     "--sweep SWEEP.yaml, --variant I and "
		                     "-o FILE.yaml");
	return 0;
}

/* ---- writing YAML ----------------------------------------------------- */

/* A scalar as the reader will see it again: a plain scalar made of safe
 * characters as it is (numbers, true, names), anything else double-quoted
 * (a quoted scalar is never a number, as in the seed). */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void put_scalar(FILE *f, const vs_ynode *n)
{
	const char *s = n->str;
	if (n->plain && *s &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789_.+-~") == strlen(s))
		fputs(s, f);
	else
		put_quoted(f, s);
}

/* Any node of the seed's tree, in flow style. */
static void put_node(FILE *f, const vs_ynode *n)
{
	switch (n->kind) {
	case VS_Y_SCALAR:
		put_scalar(f, n);
		return;
	case VS_Y_SEQ:
		fputc('[', f);
		for (int i = 0; i < n->n; i++) {
			fputs(i ? ", " : "", f);
			put_node(f, n->kids[i]);
		}
		fputc(']', f);
		return;
	case VS_Y_MAP:
		fputc('{', f);
		for (int i = 0; i < n->n; i++) {
			fputs(i ? ", " : "", f);
			put_scalar(f, vs_ymap_key(n, i));
			fputs(": ", f);
			put_node(f, vs_ymap_value(n, i));
		}
		fputc('}', f);
		return;
	}
}

static void put_numbers(FILE *f, const double *v, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
	fputc(']', f);
}

/* vehicle_model: or behaviour: with every param the variant binds. An
 * FMU's path becomes absolute: the seed's is relative to the seed's
 * folder, which the exported file need not share. */
static void put_use(FILE *f, const char *key, const vs_plugin_use *u)
{
	const vs_plugin *d = u->loaded->desc;
	if (u->fmu) {
		char *abs = realpath(u->fmu, NULL);
		fprintf(f, ", %s: {fmu: ", key);
		put_quoted(f, abs ? abs : u->fmu);
		free(abs);
		if (u->n_vars)
			fputs(", variables: {", f);
		for (int k = 0; k < u->n_vars; k++) {
			fputs(k ? ", " : "", f);
			put_quoted(f, u->var_from[k]);
			fputs(": ", f);
			put_quoted(f, u->var_to[k]);
		}
		fputs(u->n_vars ? "}, params: {" : ", params: {", f);
	} else {
		fprintf(f, ", %s: {plugin: %s, params: {", key, d->name);
	}
	for (size_t k = 0; k < d->n_params; k++)
		fprintf(f, "%s%s: %.17g", k ? ", " : "", d->params[k].name,
		        u->params[k]);
	fputs("}}", f);
}

/* The variant's attach.KEY change of actor id, or NULL. */
static const vs_change *attach_change(const vs_change_set *set, int64_t id,
                                      const char *key)
{
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		if (ch->actor == id && ch->prop == VS_PROP_ATTACH &&
		    !strcmp(ch->field, key))
			return ch;
	}
	return NULL;
}

static void put_attach_value(FILE *f, const vs_change *ch)
{
	if (ch->n == 1)
		fprintf(f, "%.17g", ch->values[0]);
	else
		put_numbers(f, ch->values, ch->n);
}

/* attach: the seed's mapping m with the variant's offset, heading and
 * slope. These are written as the change gave them (degrees for the
 * angles), not from the actor's radians, so that the file's reader
 * converts them to the same doubles the variant holds. */
static void put_attach(FILE *f, const vs_ynode *m, const vs_change_set *set,
                       int64_t id)
{
	static const char *const varied[] = {"offset", "heading", "slope",
	                                     NULL};
	fputs("attach: {", f);
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i);
		const vs_change *ch = attach_change(set, id, k->str);
		fputs(i ? ", " : "", f);
		put_scalar(f, k);
		fputs(": ", f);
		if (ch)
			put_attach_value(f, ch);
		else
			put_node(f, vs_ymap_value(m, i));
	}
	for (int r = 0; varied[r]; r++) {
		const vs_change *ch = attach_change(set, id, varied[r]);
		if (!ch || vs_ymap_get(m, varied[r]))
			continue;
		fprintf(f, "%s%s: ", m->n ? ", " : "", varied[r]);
		put_attach_value(f, ch);
	}
	fputc('}', f);
}

/* An actor the variant changes (or one with an FMU): the seed's keys,
 * with route, start, plugins and attach taken from the variant. An
 * attached actor gets no route or plugins: its parent moves it, and a
 * scenario refuses them on it (the speed its spec holds is a default). */
static void put_changed_actor(FILE *f, const vs_ynode *m,
                              const vs_actor_spec *a,
                              const vs_change_set *set)
{
	static const char *const rewritten[] = {
		"speed", "waypoints", "yaw", "start", "vehicle_model",
		"behaviour", NULL};
	fputc('{', f);
	int first = 1;
	for (int i = 0; i < m->n; i++) {
		const vs_ynode *k = vs_ymap_key(m, i);
		const vs_ynode *val = vs_ymap_value(m, i);
		int skip = 0;
		for (int r = 0; rewritten[r] && !skip; r++)
			skip = !strcmp(k->str, rewritten[r]);
		if (skip)
			continue;
		fputs(first ? "" : ", ", f);
		first = 0;
		if (!strcmp(k->str, "attach") && val->kind == VS_Y_MAP) {
			put_attach(f, val, set, a->id);
			continue;
		}
		put_scalar(f, k);
		fputs(": ", f);
		put_node(f, val);
	}
	if (a->has_start) {
		fputs(", start: {position: ", f);
		put_numbers(f, a->start_pos, 3);
		fprintf(f, ", yaw: %.17g}", a->start_yaw);
	}
	if (a->attach.present) {
		fputc('}', f);
		return;
	}
	if (a->n_speed == 1) /* a speed, not a one-entry speed vector */
		fprintf(f, ", speed: %.17g", a->speed[0]);
	else if (a->n_speed) {
		fputs(", speed: ", f);
		put_numbers(f, a->speed, a->n_speed);
	}
	if (a->n_waypoints) {
		fputs(", waypoints: [", f);
		for (int r = 0; r < a->n_waypoints; r++) {
			fputs(r ? ", " : "", f);
			put_numbers(f, a->waypoints + 3 * r, 3);
		}
		fputc(']', f);
	}
	if (a->n_yaw) {
		fputs(", yaw: ", f);
		put_numbers(f, a->yaw, a->n_yaw);
	}
	if (a->vehicle_model.loaded)
		put_use(f, "vehicle_model", &a->vehicle_model);
	if (a->behaviour.loaded)
		put_use(f, "behaviour", &a->behaviour);
	fputc('}', f);
}

/* Whether actor a is written from the variant rather than copied. */
static int written_anew(const vs_change_set *set, const vs_actor_spec *a)
{
	if (a->vehicle_model.fmu || a->behaviour.fmu)
		return 1;
	for (int i = 0; i < set->n; i++)
		if (set->changes[i].actor == a->id)
			return 1;
	return 0;
}

static void put_scenario(FILE *f, const export_args *a, const vs_ydoc *doc,
                         const vs_scenario *v, const vs_change_set *set)
{
	fprintf(f, "# Variant %llu of %s (seed %s), written by vsweep "
	        "export.\n", a->variant, a->sweep, a->scenario);
	const vs_ynode *root = doc->root;
	for (int i = 0; i < root->n; i++) {
		const vs_ynode *k = vs_ymap_key(root, i);
		const vs_ynode *val = vs_ymap_value(root, i);
		put_scalar(f, k);
		if (strcmp(k->str, "actors") || val->kind != VS_Y_SEQ) {
			fputs(": ", f);
			put_node(f, val);
			fputc('\n', f);
			continue;
		}
		fputs(":\n", f);
		for (int j = 0; j < val->n; j++) {
			const vs_ynode *m = val->kids[j];
			const vs_ynode *id = vs_ymap_get(m, "id");
			const vs_actor_spec *act = &v->actors[
				vs_scenario_find_actor(v, strtoll(id->str, NULL, 10))];
			fputs("  - ", f);
			if (written_anew(set, act))
				put_changed_actor(f, m, act, set);
			else
				put_node(f, m);
			fputc('\n', f);
		}
	}
}

/* ---- the command ------------------------------------------------------ */

static int refuse_dimensions(const export_args *a, const vs_change_set *set)
{
	for (int i = 0; i < set->n; i++) {
		if (set->changes[i].prop != VS_PROP_DIMENSION)
			continue;
		fprintf(stderr, "vsweep: %s:%d:%d: variant %llu changes actor "
		        "%lld's dimension %s, which a scenario file cannot give "
		        "one actor (its asset gives the dimensions); export "
		        "refuses it\n", a->sweep, set->changes[i].mark.line,
		        set->changes[i].mark.col, a->variant,
		        (long long)set->changes[i].actor, set->changes[i].field);
		return EXIT_BAD_INPUT;
	}
	return 0;
}

/* True (with a message) when -o would replace an input or results: the
 * scenario or sweep file itself, or any SQLite file. */
static int clobbers(const export_args *a)
{
	struct stat so, si;
	if (stat(a->out, &so) != 0)
		return 0;
	const char *in[2] = {a->scenario, a->sweep};
	const char *what[2] = {"the scenario", "the sweep file"};
	for (int k = 0; k < 2; k++)
		if (in[k] && stat(in[k], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			fprintf(stderr, "vsweep: %s: is %s being read; give "
			        "another -o\n", a->out, what[k]);
			return 1;
		}
	if (S_ISDIR(so.st_mode)) {
		fprintf(stderr, "vsweep: %s: is a directory; -o names the "
		        "scenario file to write\n", a->out);
		return 1;
	}
	char head[16] = {0};
	FILE *f = fopen(a->out, "rb");
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0) {
		fprintf(stderr, "vsweep: %s: is an SQLite file; it is not "
		        "replaced: give another -o\n", a->out);
		return 1;
	}
	return 0;
}

static int write_file(const export_args *a, const vs_scenario *seed,
                      const vs_scenario *v, const vs_change_set *set)
{
	vs_error err = {{0}};
	vs_ydoc *doc = vs_ydoc_parse(seed->path, seed->text, seed->text_len,
	                             &err);
	if (!doc) { /* it parsed a moment ago */
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return EXIT_INTERNAL;
	}
	FILE *f = fopen(a->out, "w");
	int status = EXIT_OK;
	if (!f) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", a->out,
		        strerror(errno));
		status = EXIT_INTERNAL;
	} else {
		put_scenario(f, a, doc, v, set);
		if (ferror(f) | fclose(f)) {
			fprintf(stderr, "vsweep: %s: write failed\n", a->out);
			status = EXIT_INTERNAL;
		}
	}
	vs_ydoc_destroy(doc);
	return status;
}

int cli_export(int argc, char **argv)
{
	export_args a;
	int status = parse_args(argc, argv, &a);
	if (status)
		return status;
	if (clobbers(&a))
		return EXIT_BAD_INPUT;
	vs_error err = {{0}};
	vs_registry *reg;
	vs_scenario *seed, *v = NULL;
	vs_change_buf b = {{0, NULL, {0, 0}, NULL}, NULL, 0};
	vs_sweep *sw = cli_load_sweep(a.scenario, a.sweep, a.plugin_path,
	                              a.n_plugin_path, &reg, &seed, &err);
	if (sw) {
		vs_change_buf_init(&b, sw);
		if (!vs_sweep_changes(sw, a.variant, &b, &err))
			v = vs_sweep_variant(sw, seed, a.variant, NULL, &err);
	}
	if (!v) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		status = EXIT_BAD_INPUT;
	} else if (!(status = refuse_dimensions(&a, &b.set))) {
		status = write_file(&a, seed, v, &b.set);
	}
	vs_change_buf_finish(&b);
	vs_scenario_destroy(v);
	vs_sweep_destroy(sw);
	vs_scenario_destroy(seed);
	vs_registry_destroy(reg);
	return status;
}
