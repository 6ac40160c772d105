/* The registry (registry.h): the plugin folders searched and the order
 * they are searched in, a plugin found by its file name NAME.so and loaded
 * on first use, the checks a file passes before its code runs (a regular
 * file, not world-writable, NAME.so loading as NAME), the notes on
 * shadowed files and refused folders, and `vsweep plugins`' loading of
 * every file. Opening one file is plugin_open.c; why a name is not found,
 * missing.c. */
#include "plugin/plugin_internal.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with_so(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

char *vs_plugin_join_path(const char *dir, const char *name)
{
	size_t nd = strlen(dir), nn = strlen(name);
	int slash = nd > 0 && dir[nd - 1] == '/';
	char *p = vs_xcalloc(nd + nn + 2, 1);
	memcpy(p, dir, nd);
	if (!slash)
		p[nd++] = '/';
	memcpy(p + nd, name, nn + 1);
	return p;
}

/* The "*.so" names in dir, sorted by strcmp so that which plugin wins a
 * name never depends on the file system's order; NULL if the directory
 * cannot be read. */
char **vs_plugin_list_so(const char *dir, int *count)
{
	*count = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **names = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!ends_with_so(e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = vs_xrealloc(names, (size_t)cap * sizeof *names);
		}
		names[n++] = vs_strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof *names, cmp_names);
	*count = n;
	return names;
}

static void add_broken(vs_registry *reg, const char *path, const char *why)
{
	reg->broken = vs_xrealloc(reg->broken, (size_t)(reg->n_broken + 1) *
	                                           sizeof *reg->broken);
	reg->broken[reg->n_broken].path = vs_strdup(path);
	reg->broken[reg->n_broken].reason = vs_strdup(why);
	reg->n_broken++;
}

static void add_note(vs_registry *reg, const char *fmt, ...) VS_PRINTF(2, 3);
static void add_note(vs_registry *reg, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	reg->notes = vs_xrealloc(reg->notes,
	                         (size_t)(reg->n_notes + 1) * sizeof *reg->notes);
	reg->notes[reg->n_notes++] = vs_strdup(buf);
}

/* The file name of path without directory and ".so". */
int vs_plugin_stem_equals(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t nb = strlen(base), nn = strlen(name);
	return nb == nn + 3 && strncmp(base, name, nn) == 0 &&
	       strcmp(base + nn, ".so") == 0;
}

/* Loads one file as the plugin its file name says. Returns the loaded
 * plugin, or NULL with the file listed in broken. */
static const vs_loaded_plugin *load_file(vs_registry *reg, const char *path,
                                         const vs_host *host)
{
	struct stat st;
	vs_error err = {{0}};
	vs_mark none = {0, 0};
	/* A directory called x.so is not a plugin; a dangling link is a
	 * broken one (vs_plugin_open says "no such plugin file"). */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		vs_error_at(&err, path, none, "not a regular file");
		add_broken(reg, path, err.msg);
		return NULL;
	}
	/* Anyone could have replaced it: its code is not run. */
	if (stat(path, &st) == 0 && (st.st_mode & S_IWOTH)) {
		vs_error_at(&err, path, none, "refused: the file is "
		            "world-writable (chmod o-w it)");
		add_broken(reg, path, err.msg);
		return NULL;
	}
	vs_loaded_plugin lp = {0};
	if (vs_plugin_open(path, host, &lp, &err) != 0) {
		add_broken(reg, path, err.msg);
		return NULL;
	}
	/* Plugins are found by file name, so NAME.so must be NAME. */
	if (!vs_plugin_stem_equals(path, lp.desc->name)) {
		vs_error_at(&err, path, none, "loads as '%s': a plugin is found "
		            "by its file name, so name the file %s.so",
		            lp.desc->name, lp.desc->name);
		add_broken(reg, path, err.msg);
		vs_plugin_close(&lp);
		return NULL;
	}
	if (vs_registry_find_loaded(reg, lp.desc->name)) {
		/* An earlier directory already provides the name: the search
		 * order is the user's way to override a plugin. */
		vs_plugin_close(&lp);
		return NULL;
	}
	reg->plugins = vs_xrealloc(reg->plugins,
	                           (size_t)(reg->n + 1) * sizeof *reg->plugins);
	/* Each on its own: callers keep pointers while more load. */
	vs_loaded_plugin *kept = vs_xcalloc(1, sizeof *kept);
	*kept = lp;
	reg->plugins[reg->n++] = kept;
	return kept;
}

/* A folder anyone may write to could shadow a shipped plugin with any
 * code: it is not searched. */
static int world_writable(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       (st.st_mode & S_IWOTH);
}

/* Whether dirs[i] is the folder of an earlier entry (by device and
 * inode: "build/plugins" and its absolute path are one folder). */
static int listed_before(const char *const *dirs, int i)
{
	struct stat a, b;
	if (stat(dirs[i], &a) != 0)
		return 0;
	for (int k = 0; k < i; k++)
		if (dirs[k] && stat(dirs[k], &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	return 0;
}

vs_registry *vs_registry_create(const char *const *dirs, int n_dirs,
                                const vs_host *host)
{
	vs_registry *reg = vs_xcalloc(1, sizeof *reg);
	reg->fmus = vs_fmu_cache_create();
	reg->host = host;
	if (n_dirs < 0)
		n_dirs = 0;
	reg->dirs = vs_xcalloc((size_t)n_dirs + 1, sizeof *reg->dirs);
	for (int i = 0; i < n_dirs; i++) {
		if (!dirs[i])
			continue;
		if (world_writable(dirs[i])) {
			add_note(reg, "warning: plugin folder %s is writable by "
			         "every user: refused, not searched (chmod o-w "
			         "it)", dirs[i]);
			continue;
		}
		if (listed_before(dirs, i))
			continue; /* the same folder twice shadows nothing */
		reg->dirs[reg->n_dirs++] = vs_strdup(dirs[i]);
	}
	return reg;
}

/* The broken file that took the name NAME (the first NAME.so on the path
 * that was tried and did not load), or NULL. */
const char *vs_registry_broken_named(const vs_registry *reg, const char *name)
{
	for (int i = 0; name && i < reg->n_broken; i++)
		if (vs_plugin_stem_equals(reg->broken[i].path, name))
			return reg->broken[i].path;
	return NULL;
}

int vs_registry_is_broken(const vs_registry *reg, const char *path)
{
	for (int i = 0; i < reg->n_broken; i++)
		if (strcmp(reg->broken[i].path, path) == 0)
			return 1;
	return 0;
}

void vs_registry_load_all(vs_registry *reg)
{
	for (int i = 0; i < reg->n_dirs; i++) {
		int n = 0;
		char **names = vs_plugin_list_so(reg->dirs[i], &n);
		for (int j = 0; j < n; j++) {
			char *path = vs_plugin_join_path(reg->dirs[i],
			                                  names[j]);
			names[j][strlen(names[j]) - 3] = 0;
			const vs_loaded_plugin *won =
				vs_registry_find_loaded(reg, names[j]);
			const char *bad = vs_registry_broken_named(reg,
			                                           names[j]);
			/* As vs_registry_find: the first NAME.so takes the
			 * name, whether or not it loads. */
			if (won && strcmp(won->path, path) != 0)
				add_note(reg, "note: plugin '%s': %s shadows %s",
				         names[j], won->path, path);
			else if (bad && strcmp(bad, path) != 0)
				add_note(reg, "note: plugin '%s': %s does not "
				         "load, and %s is not used in its place",
				         names[j], bad, path);
			else if (!won && !bad)
				load_file(reg, path, reg->host);
			free(path);
			free(names[j]);
		}
		free(names);
	}
}

const vs_loaded_plugin *vs_registry_find_loaded(const vs_registry *reg,
                                                const char *name)
{
	if (!reg || !name)
		return NULL;
	for (int i = 0; i < reg->n; i++)
		if (strcmp(reg->plugins[i]->desc->name, name) == 0)
			return reg->plugins[i];
	return NULL;
}

/* Whether path names something (a file, a link, a directory). */
int vs_plugin_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

const vs_loaded_plugin *vs_registry_find(const vs_registry *creg,
                                         const char *name)
{
	/* Loading on first use changes the registry behind const, as the
	 * FMU cache does: to the caller it is one set of plugins. */
	vs_registry *reg = (vs_registry *)creg;
	const vs_loaded_plugin *lp = vs_registry_find_loaded(reg, name);
	/* With nowhere to search nothing changes (a registry filled by
	 * hand may even be read-only). */
	if (lp || !reg || reg->n_dirs == 0 || !vs_plugin_name_ok(name))
		return lp;
	for (int i = 0; i < reg->n_tried; i++)
		if (strcmp(reg->tried[i], name) == 0)
			return NULL;
	reg->tried = vs_xrealloc(reg->tried,
	                         (size_t)(reg->n_tried + 1) * sizeof *reg->tried);
	reg->tried[reg->n_tried++] = vs_strdup(name);
	char file[256];
	snprintf(file, sizeof file, "%s.so", name);
	for (int i = 0; i < reg->n_dirs; i++) {
		char *path = vs_plugin_join_path(reg->dirs[i], file);
		if (!vs_plugin_path_exists(path)) {
			free(path);
			continue;
		}
		/* The first NAME.so on the path is the one meant (a build
		 * just made, put first to override an installed one): when
		 * it does not load, a later copy is not used in its place,
		 * or the run would use another build than the user's
		 * without a word. vs_registry_explain_missing names both. */
		lp = load_file(reg, path, reg->host);
		/* Say which file wins over which: an override should be
		 * visible, not a surprise. */
		for (int j = i + 1; lp && j < reg->n_dirs; j++) {
			char *other = vs_plugin_join_path(reg->dirs[j], file);
			if (vs_plugin_path_exists(other))
				add_note(reg, "note: plugin '%s': %s shadows %s",
				         name, path, other);
			free(other);
		}
		free(path);
		break;
	}
	return lp;
}

void vs_registry_destroy(vs_registry *reg)
{
	if (!reg)
		return;
	for (int i = 0; i < reg->n; i++) {
		vs_plugin_close(reg->plugins[i]);
		free(reg->plugins[i]);
	}
	free(reg->plugins);
	for (int i = 0; i < reg->n_broken; i++) {
		free(reg->broken[i].path);
		free(reg->broken[i].reason);
	}
	free(reg->broken);
	for (int i = 0; i < reg->n_notes; i++)
		free(reg->notes[i]);
	free(reg->notes);
	for (int i = 0; i < reg->n_tried; i++)
		free(reg->tried[i]);
	free(reg->tried);
	for (int i = 0; i < reg->n_dirs; i++)
		free(reg->dirs[i]);
	free(reg->dirs);
	vs_fmu_cache_destroy(reg->fmus);
	free(reg);
}
