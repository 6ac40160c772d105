/* Why a plugin name is not found (vs_registry_explain_missing,
 * registry.h): the broken first file of that name and the later copies not
 * used in its place, the folders searched, and the names available, read
 * from file names without loading anything. */
#include "plugin/plugin_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Appends printf-style text to buf (size cap), truncating quietly. */
static void append(char *buf, size_t cap, const char *fmt, ...)
	VS_PRINTF(3, 4);
static void append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

/* Whether dir/NAME.so passes load_file's checks that run no code: a
 * regular file (a link to one), not writable by every user. */
static int loadable_file(const char *dir, const char *name)
{
	char file[256];
	snprintf(file, sizeof file, "%s.so", name);
	char *path = vs_plugin_join_path(dir, file);
	struct stat st;
	int ok = stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	         !(st.st_mode & S_IWOTH);
	free(path);
	return ok;
}

void vs_registry_explain_missing(const vs_registry *reg, const char *name,
                                 vs_error *err)
{
	char msg[sizeof err->msg];
	msg[0] = 0;
	/* A file of that name that did not load is no missing plugin: the
	 * author needs its reason, not the list of names (a review). */
	int broken = 0;
	for (int i = 0; name && reg && i < reg->n_broken; i++)
		broken |= vs_plugin_stem_equals(reg->broken[i].path, name);
	append(msg, sizeof msg, broken ? "plugin '%s' cannot be used"
	                               : "no plugin named '%s'",
	       name ? name : "");
	if (!reg || reg->n_dirs == 0) {
		append(msg, sizeof msg,
		       ": no plugin directories were searched (use "
		       "--plugin-path or VSWEEP_PLUGIN_PATH)");
		vs_error_set(err, "%s", msg);
		return;
	}
	/* The likeliest cause first: a file of that name that failed. */
	int said = 0;
	for (int i = 0; name && i < reg->n_broken; i++) {
		if (!vs_plugin_stem_equals(reg->broken[i].path, name))
			continue;
		append(msg, sizeof msg, "%s %s", said ? ";" : ":",
		       reg->broken[i].reason);
		said = 1;
	}
	/* Copies further on the path: not used in place of a broken first
	 * one (vs_registry_find), which the user should hear rather than
	 * wonder why the copy that works did not run. */
	int later = 0;
	for (int i = 0; said && vs_plugin_name_ok(name) && i < reg->n_dirs;
	     i++) {
		char file[256];
		snprintf(file, sizeof file, "%s.so", name);
		char *path = vs_plugin_join_path(reg->dirs[i], file);
		if (vs_plugin_path_exists(path) &&
		    !vs_registry_is_broken(reg, path))
			append(msg, sizeof msg, "%s %s", later++ ? "," :
			       "; not used in its place:", path);
		free(path);
	}
	if (later)
		append(msg, sizeof msg, " (the first %s.so on the plugin path "
		       "is the one meant: fix that one or remove it)", name);
	/* A file called NAME.so that loaded under another name. */
	for (int i = 0; name && i < reg->n; i++)
		if (vs_plugin_stem_equals(reg->plugins[i]->path, name))
			append(msg, sizeof msg, "%s %s loads as '%s'",
			       said++ ? ";" : ":", reg->plugins[i]->path,
			       reg->plugins[i]->desc->name);
	append(msg, sizeof msg, "%s searched", said ? ";" : ":");
	for (int i = 0; i < reg->n_dirs; i++) {
		struct stat st;
		int exists = stat(reg->dirs[i], &st) == 0 && S_ISDIR(st.st_mode);
		append(msg, sizeof msg, "%s %s%s", i ? "," : "", reg->dirs[i],
		       exists ? "" : " (not a directory)");
	}
	/* What could be named, from file names: loading the rest to see
	 * which would load would run their code, which run and check never
	 * do for a library the scenario does not name. Left out: a name
	 * whose first file was tried and did not load (no later copy
	 * stands in for it), and files load_file refuses unopened (a
	 * directory, a world-writable file). Each name is said once. */
	int listed = 0, n_seen = 0;
	char **seen = NULL; /* names met, in the first file's folder */
	for (int i = 0; i < reg->n_dirs; i++) {
		int n = 0;
		char **names = vs_plugin_list_so(reg->dirs[i], &n);
		for (int j = 0; j < n; j++) {
			names[j][strlen(names[j]) - 3] = 0;
			int dup = 0;
			for (int k = 0; k < n_seen && !dup; k++)
				dup = strcmp(seen[k], names[j]) == 0;
			if (dup || !vs_plugin_name_ok(names[j])) {
				free(names[j]);
				continue;
			}
			/* the first file of a name decides for the name */
			if (!vs_registry_broken_named(reg, names[j]) &&
			    loadable_file(reg->dirs[i], names[j]))
				append(msg, sizeof msg, "%s %s",
				       listed++ ? "," : "; available:",
				       names[j]);
			seen = vs_xrealloc(seen, (size_t)(n_seen + 1) *
			                             sizeof *seen);
			seen[n_seen++] = names[j];
		}
		free(names);
	}
	for (int k = 0; k < n_seen; k++)
		free(seen[k]);
	free(seen);
	vs_error_set(err, "%s", msg);
}
