/* `vsweep new-plugin NAME --kind vehicle_model|behaviour [-o DIR]`: copies
 * the installed plugin template (template/ in the source tree) into DIR,
 * the chosen kind's file renamed NAME.c and the template's name for it
 * (my_model or my_behaviour) replaced by NAME in every file, so the
 * project builds and its scenario runs as it is. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/error.h"

#define NAME_MAX_CHARS 48
#define TEMPLATE_BYTES (1 << 20)  /* a template file larger is not ours */

static const char newplugin_usage[] =
	"usage: vsweep new-plugin NAME --kind vehicle_model|behaviour "
	"[-o DIR]\n";

/* The files of the template, all copied. */
static const char *const template_files[] = {
	"my_model.c", "my_behaviour.c", "meson.build", "scenario.yaml",
	"sweep.yaml",
};
#define N_FILES (int)(sizeof template_files / sizeof *template_files)

/* out = a/b; -1 when it does not fit. */
static int join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The first template file dir lacks (or cannot be read), NULL when it
 * holds them all. */
static const char *template_missing(const char *dir)
{
	char p[PATH_MAX];
	for (int i = 0; i < N_FILES; i++)
		if (join(p, sizeof p, dir, template_files[i]) ||
		    access(p, R_OK) != 0)
			return template_files[i];
	return NULL;
}

static int is_dir_with_template(const char *dir)
{
	return !template_missing(dir);
}

/* Removes what a failed copy made: the n files of names[] written into
 * dir, then dir (created by this run): bad input leaves nothing. */
static void unmake(const char *dir, char (*names)[PATH_MAX], int n)
{
	for (int i = 0; i < n; i++)
		unlink(names[i]);
	rmdir(dir);
}

/* The template directory: VSWEEP_TEMPLATE_DIR when set (only there),
 * else beside the running binary, at the configured prefix, in the
 * source tree (a build-tree binary); 0, -1 (none of those), or -2 with
 * out the variable's directory, which holds none. */
static int find_template(char *out, size_t size)
{
	const char *env = getenv("VSWEEP_TEMPLATE_DIR");
	if (env && *env) {
		snprintf(out, size, "%s", env);
		return is_dir_with_template(out) ? 0 : -2;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	static const char from_bin[] = VS_TEMPLATE_FROM_BIN;
	if (n > 0 && from_bin[0]) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			if (!join(out, size, exe, VS_TEMPLATE_FROM_BIN) &&
			    is_dir_with_template(out))
				return 0;
		}
	}
	const char *fixed[] = {VS_INSTALL_TEMPLATE, VS_SOURCE_TEMPLATE};
	for (int i = 0; i < 2; i++) {
		snprintf(out, size, "%s", fixed[i]);
		if (is_dir_with_template(out))
			return 0;
	}
	return -1;
}

/* What scenarios name a plugin by: [a-z][a-z0-9_]*. */
static int name_ok(const char *s)
{
	if (!*s || strlen(s) > NAME_MAX_CHARS || *s < 'a' || *s > 'z')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* Reads a whole small file; NULL on error (errno set). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = vs_xcalloc(TEMPLATE_BYTES + 1, 1);
	*len = fread(buf, 1, TEMPLATE_BYTES, f);
	int bad = ferror(f) || !feof(f);
	fclose(f);
	if (bad) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	return buf;
}

/* Writes text with every `from` replaced by `to`; 0 or -1 (errno). */
static int write_replaced(const char *path, const char *text,
                          const char *from, const char *to)
{
	FILE *f = fopen(path, "wx");  /* never over an existing file */
	if (!f)
		return -1;
	size_t nf = strlen(from);
	for (const char *p = text; *p;) {
		const char *hit = strstr(p, from);
		size_t n = hit ? (size_t)(hit - p) : strlen(p);
		fwrite(p, 1, n, f);
		if (!hit)
			break;
		fputs(to, f);
		p = hit + nf;
	}
	int rc = ferror(f) ? -1 : 0;
	if (fclose(f))
		rc = -1;
	return rc;
}

int cli_new_plugin(int argc, char **argv)
{
	const char *name = NULL, *kind = NULL, *dir = NULL;
	static const char *const options[] = {"--kind", "-o", "--output",
	                                      "--help"};
	static const cli_prog me = {"vsweep: new-plugin", newplugin_usage,
	                            0};
	cli_once once = {0};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int out = !strcmp(o, "-o") || !strcmp(o, "--output");
		/* the later would be made, not the plugin typed first */
		int rc = (out || !strcmp(o, "--kind")) && v
		                 ? cli_once_note(&me, &once, out ? "--output" : o,
		                                 o, v)
		                 : 0;
		if (rc)
			return rc;
		if (!strcmp(o, "--kind") && v) {
			kind = v;
			i++;
		} else if (out && v) {
			dir = v;
			i++;
		} else if (o[0] == '-') {
			cli_unknown_option("vsweep: new-plugin", o, options, 4);
			fputs(newplugin_usage, stderr);
			return EXIT_BAD_INPUT;
		} else if (!name) {
			name = o;
		} else {
			fprintf(stderr, "vsweep: new-plugin: unexpected argument "
			        "'%s'\n%s", o, newplugin_usage);
			return EXIT_BAD_INPUT;
		}
	}
	if (!name || !name_ok(name)) {
		fprintf(stderr, "vsweep: new-plugin: NAME must be lower-case "
		        "letters, digits and '_', starting with a letter (at "
		        "most %d), got '%s'\n%s", NAME_MAX_CHARS, name ? name : "",
		        newplugin_usage);
		return EXIT_BAD_INPUT;
	}
	if (!kind || (strcmp(kind, "vehicle_model") && strcmp(kind,
	                                                     "behaviour"))) {
		fprintf(stderr, "vsweep: new-plugin: --kind is vehicle_model or "
		        "behaviour, got '%s'\n%s", kind ? kind : "",
		        newplugin_usage);
		return EXIT_BAD_INPUT;
	}
	/* The other kind's file stays, under its template name: NAME may
	 * not be that name (my_model.c would be written twice; a review
	 * got "File exists", status 3, and nothing made). */
	const char *other = strcmp(kind, "vehicle_model") ? "my_model"
	                                                  : "my_behaviour";
	if (!strcmp(name, other)) {
		fprintf(stderr, "vsweep: new-plugin: NAME '%s' is the "
		        "template's other plugin, kept as %s.c so that its "
		        "scenario runs; choose another name\n%s", name, other,
		        newplugin_usage);
		return EXIT_BAD_INPUT;
	}
	char tdir[PATH_MAX];
	int found = find_template(tdir, sizeof tdir);
	if (found == -2) {
		fprintf(stderr, "vsweep: new-plugin: VSWEEP_TEMPLATE_DIR=%s "
		        "holds no plugin template (it lacks %s)\n", tdir,
		        template_missing(tdir));
		return EXIT_BAD_INPUT;
	}
	if (found) {
		fprintf(stderr, "vsweep: new-plugin: no plugin template found "
		        "(looked beside this program, in %s and %s; set "
		        "VSWEEP_TEMPLATE_DIR)\n", VS_INSTALL_TEMPLATE,
		        VS_SOURCE_TEMPLATE);
		return EXIT_INTERNAL;
	}
	if (!dir)
		dir = name;
	if (mkdir(dir, 0777)) {
		fprintf(stderr, "vsweep: %s: cannot create the plugin's "
		        "directory: %s\n", dir, strerror(errno));
		return errno == EEXIST ? EXIT_BAD_INPUT : EXIT_INTERNAL;
	}
	int model = !strcmp(kind, "vehicle_model");
	const char *from = model ? "my_model" : "my_behaviour";
	char from_file[64];
	snprintf(from_file, sizeof from_file, "%s.c", from);
	char made[N_FILES][PATH_MAX];
	for (int i = 0; i < N_FILES; i++) {
		char src[PATH_MAX], renamed[NAME_MAX_CHARS + 3];
		snprintf(renamed, sizeof renamed, "%s.c", name);
		if (join(src, sizeof src, tdir, template_files[i]) ||
		    join(made[i], sizeof made[i], dir, strcmp(template_files[i],
		         from_file) ? template_files[i] : renamed)) {
			fprintf(stderr, "vsweep: %s: path too long\n", dir);
			unmake(dir, made, i);
			return EXIT_BAD_INPUT;
		}
		size_t len;
		char *text = slurp(src, &len);
		if (!text || write_replaced(made[i], text, from, name)) {
			fprintf(stderr, "vsweep: %s: %s\n", text ? made[i] : src,
			        strerror(errno));
			free(text);
			unmake(dir, made, i + 1);
			return EXIT_INTERNAL;
		}
		free(text);
	}
	printf("vsweep: %s/: %s.c (a %s to edit), %s, meson.build, "
	       "scenario.yaml, sweep.yaml\n"
	       "next: cd %s && meson setup build && ninja -C build && "
	       "vsweep run scenario.yaml --sweep sweep.yaml --plugin-path build "
	       "-o %s.db\n", dir, name, model ? "vehicle model" : "behaviour",
	       model ? "my_behaviour.c" : "my_model.c", dir, name);
	return EXIT_OK;
}
