/* Finding, loading and checking plugins (registry.h).
 *
 * A plugin is trusted only after its descriptor has been checked field by
 * field: the host calls through these pointers from many threads for hours,
 * so a bad descriptor must fail here, at load, with a message that names the
 * file, rather than later as a crash inside a variant. */
#include "plugin/registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The descriptor as ABI 1.0 defines it ends with destroy; a plugin built
 * against any 1.x header has at least these bytes. */
#define ABI_1_0_SIZE (offsetof(vs_plugin, destroy) + sizeof(void (*)(void *)))
/* ABI 1.1 added outputs and n_outputs at the end, then follows_route. */
#define ABI_1_1_SIZE (offsetof(vs_plugin, n_outputs) + sizeof(size_t))
#define ROUTE_SIZE (offsetof(vs_plugin, follows_route) + sizeof(uint32_t))
#define DRIVES_SIZE (offsetof(vs_plugin, drives) + sizeof(uint32_t))

/* dlsym returns an object pointer; ISO C has no conversion to a function
 * pointer, POSIX guarantees the representation is the same. */
_Static_assert(sizeof(void *) == sizeof(vs_entry_fn),
               "function and object pointers differ in size");

static const char *dl_text(void)
{
	const char *e = dlerror();
	return e ? e : "unknown dynamic loader error";
}

/* [a-z0-9_]+: what a scenario file names the plugin by. */
static int valid_plugin_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

/* A C-like identifier: parameter names appear as YAML keys and in
 * "vehicle_model.NAME" sweep paths (the design's examples use Kf, lf). */
static int valid_param_name(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static const char *kind_name(vs_kind kind)
{
	switch (kind) {
	case VS_KIND_VEHICLE_MODEL:
		return "vehicle model";
	case VS_KIND_BEHAVIOUR:
		return "behaviour";
	}
	return "unknown kind";
}

/* Checks the parameter table; returns 0 or -1 with err set. */
static int check_params(const char *path, const vs_plugin *d, vs_error *err)
{
	vs_mark none = {0, 0};
	if (d->n_params > 0 && !d->params) {
		vs_error_at(err, path, none,
		            "plugin '%s' declares %zu params but no param table",
		            d->name, d->n_params);
		return -1;
	}
	for (size_t i = 0; i < d->n_params; i++) {
		const vs_param *p = &d->params[i];
		if (!valid_param_name(p->name)) {
			vs_error_at(err, path, none,
			            "plugin '%s': param %zu has no valid name "
			            "(want letters, digits and '_')",
			            d->name, i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(d->params[j].name, p->name) == 0) {
				vs_error_at(err, path, none,
				            "plugin '%s': param '%s' is declared twice",
				            d->name, p->name);
				return -1;
			}
		if (!p->unit || !p->doc) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' needs a unit and a doc "
			            "string (\"\" for none)",
			            d->name, p->name);
			return -1;
		}
		/* Infinite bounds are allowed (an open-ended range); NaN is not,
		 * and the default must be a usable value. */
		if (isnan(p->min) || isnan(p->max) || !(p->min <= p->max)) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' has an empty range "
			            "[%g, %g]",
			            d->name, p->name, p->min, p->max);
			return -1;
		}
		if (!isfinite(p->default_value) || p->default_value < p->min ||
		    p->default_value > p->max) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' default %g is outside "
			            "its range [%g, %g]",
			            d->name, p->name, p->default_value, p->min,
			            p->max);
			return -1;
		}
	}
	return 0;
}

/* The 1.1 outputs table; 0 or -1 with err set. Read only when the
 * descriptor's struct_size says the plugin's header had it. */
static int check_outputs(const char *path, const vs_plugin *d, vs_error *err)
{
	vs_mark none = {0, 0};
	size_t n = 0;
	const vs_output *o = vs_plugin_outputs(d, &n);
	if (n > 0 && !o) {
		vs_error_at(err, path, none,
		            "plugin '%s' declares %zu outputs but no output table",
		            d->name, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!valid_param_name(o[i].name) || !o[i].unit || !o[i].doc) {
			vs_error_at(err, path, none,
			            "plugin '%s': output %zu needs a valid name "
			            "(letters, digits, '_'), a unit and a doc",
			            d->name, i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(o[j].name, o[i].name) == 0) {
				vs_error_at(err, path, none,
				            "plugin '%s': output '%s' is declared "
				            "twice", d->name, o[i].name);
				return -1;
			}
	}
	return 0;
}

const vs_output *vs_plugin_outputs(const vs_plugin *d, size_t *n)
{
	*n = 0;
	if (!d || d->struct_size < ABI_1_1_SIZE)
		return NULL;
	*n = d->n_outputs;
	return d->outputs;
}

int vs_plugin_follows_route(const vs_plugin *d)
{
	return d && d->struct_size >= ROUTE_SIZE && d->follows_route != 0;
}

uint32_t vs_plugin_drives(const vs_plugin *d)
{
	uint32_t bits = d && d->struct_size >= DRIVES_SIZE ? d->drives : 0;
	return bits ? bits : VS_DRIVES_VEHICLE;
}

/* Checks a descriptor the plugin returned; returns 0 or -1 with err set. */
static int check_descriptor(const char *path, const vs_plugin *d,
                            vs_error *err)
{
	vs_mark none = {0, 0};
	/* The version comes first: under another major the rest of the
	 * layout means nothing, so no other field may be read. */
	if (d->abi_major != VS_ABI_MAJOR || d->abi_minor > VS_ABI_MINOR) {
		vs_error_at(err, path, none,
		            "plugin ABI %u.%u is not supported by this vsweep "
		            "(ABI %d.%d): rebuild the plugin against this SDK",
		            (unsigned)d->abi_major, (unsigned)d->abi_minor,
		            VS_ABI_MAJOR, VS_ABI_MINOR);
		return -1;
	}
	if (d->struct_size < ABI_1_0_SIZE) {
		vs_error_at(err, path, none,
		            "plugin descriptor is %u bytes, smaller than ABI 1.0's "
		            "%zu: the plugin was not built with this SDK header",
		            (unsigned)d->struct_size, (size_t)ABI_1_0_SIZE);
		return -1;
	}
	/* Fields added after 1.0 are read only when struct_size covers
	 * them (vs_plugin_outputs). */
	if (d->kind != VS_KIND_VEHICLE_MODEL && d->kind != VS_KIND_BEHAVIOUR) {
		vs_error_at(err, path, none,
		            "plugin kind %d is unknown (want %d, vehicle model, "
		            "or %d, behaviour)",
		            (int)d->kind, (int)VS_KIND_VEHICLE_MODEL,
		            (int)VS_KIND_BEHAVIOUR);
		return -1;
	}
	if (!valid_plugin_name(d->name)) {
		vs_error_at(err, path, none,
		            "plugin name '%s' is not valid: use lower-case "
		            "letters, digits and '_'",
		            d->name ? d->name : "(null)");
		return -1;
	}
	if (!d->version || !d->doc) {
		vs_error_at(err, path, none,
		            "plugin '%s' has no %s string", d->name,
		            d->version ? "doc" : "version");
		return -1;
	}
	const char *missing = NULL;
	if (!d->create)
		missing = "create";
	else if (!d->reset)
		missing = "reset";
	else if (!d->destroy)
		missing = "destroy";
	else if (d->kind == VS_KIND_VEHICLE_MODEL && !d->vehicle_step)
		missing = "vehicle_step";
	else if (d->kind == VS_KIND_BEHAVIOUR && !d->behaviour_step)
		missing = "behaviour_step";
	if (missing) {
		vs_error_at(err, path, none,
		            "plugin '%s' (%s) has no %s function", d->name,
		            kind_name(d->kind), missing);
		return -1;
	}
	if (vs_plugin_drives(d) &
	    ~(uint32_t)(VS_DRIVES_VEHICLE | VS_DRIVES_CHARACTER)) {
		vs_error_at(err, path, none,
		            "plugin '%s': drives has unknown bits 0x%x (want "
		            "VS_DRIVES_VEHICLE and/or VS_DRIVES_CHARACTER)",
		            d->name, (unsigned)vs_plugin_drives(d));
		return -1;
	}
	return check_params(path, d, err) || check_outputs(path, d, err) ? -1
	                                                                : 0;
}

/* ---- a plugin that crashes or exits while it loads ---------------------
 * Its constructors and its entry point run in our process before any
 * variant, outside the containment of variants: a crash or an exit() there
 * would end vsweep without a word. While one loads, these name it. */

static const char *volatile loading; /* the file being loaded, or NULL */

static void say(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	ssize_t w = write(STDERR_FILENO, s, n);
	(void)w;
}

static void crashed_loading(int sig)
{
	const char *p = loading;
	say("vsweep: plugin ");
	say(p ? p : "?");
	say(sig == SIGSEGV   ? ": crashed while loading (SIGSEGV)\n"
	    : sig == SIGABRT ? ": crashed while loading (SIGABRT: abort)\n"
	    : sig == SIGBUS  ? ": crashed while loading (SIGBUS)\n"
	    : sig == SIGFPE  ? ": crashed while loading (SIGFPE)\n"
	                     : ": crashed while loading (SIGILL)\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

static void exited_loading(void)
{
	const char *p = loading;
	if (!p)
		return;
	say("vsweep: plugin ");
	say(p);
	say(": called exit() while loading\n");
	_exit(3); /* an internal failure, whatever status it gave */
}

static const int load_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
                                   SIGILL};
#define N_LOAD_SIGNALS (int)(sizeof load_signals / sizeof *load_signals)

/* Guards the loading of path (NULL: ends the guard, handlers restored). */
static void guard_loading(const char *path, struct sigaction *saved)
{
	static int hooked;
	if (path && !hooked) {
		hooked = atexit(exited_loading) == 0;
	}
	if (path) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = crashed_loading;
		sigemptyset(&sa.sa_mask);
		for (int k = 0; k < N_LOAD_SIGNALS; k++)
			sigaction(load_signals[k], &sa, &saved[k]);
		loading = path;
		return;
	}
	loading = NULL;
	/* only where the handler is still ours: one the plugin installed
	 * while it loaded (a runtime's, a crash reporter's) stays */
	for (int k = 0; k < N_LOAD_SIGNALS; k++) {
		struct sigaction now;
		if (sigaction(load_signals[k], NULL, &now) == 0 &&
		    !(now.sa_flags & SA_SIGINFO) &&
		    now.sa_handler == crashed_loading)
			sigaction(load_signals[k], &saved[k], NULL);
	}
}

static int plugin_open(const char *path, const vs_host *host,
                       vs_loaded_plugin *out, vs_error *err);

int vs_plugin_open(const char *path, const vs_host *host,
                   vs_loaded_plugin *out, vs_error *err)
{
	struct sigaction saved[N_LOAD_SIGNALS];
	guard_loading(path, saved);
	int rc = plugin_open(path, host, out, err);
	guard_loading(NULL, saved);
	return rc;
}

static int plugin_open(const char *path, const vs_host *host,
                       vs_loaded_plugin *out, vs_error *err)
{
	vs_mark none = {0, 0};
	struct stat st;
	dlerror(); /* clear any stale error */
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		/* dlopen says the same thing for a missing file and a missing
		 * dependency; tell the user which it is. */
		if (stat(path, &st) != 0 && errno == ENOENT)
			vs_error_at(err, path, none, "no such plugin file (%s)",
			            dl_text());
		else
			vs_error_at(err, path, none, "cannot load plugin: %s",
			            dl_text());
		return -1;
	}
	dlerror();
	void *sym = dlsym(handle, VS_ENTRY_SYMBOL);
	if (!sym) {
		vs_error_at(err, path, none,
		            "not a vsweep plugin: it does not export %s (%s)",
		            VS_ENTRY_SYMBOL, dl_text());
		goto fail;
	}
	vs_entry_fn entry;
	memcpy(&entry, &sym, sizeof entry);
	const vs_plugin *desc = entry(host);
	if (!desc) {
		vs_error_at(err, path, none,
		            "%s returned no descriptor (NULL): the plugin refused "
		            "to load",
		            VS_ENTRY_SYMBOL);
		goto fail;
	}
	if (check_descriptor(path, desc, err) != 0)
		goto fail;
	out->path = vs_strdup(path);
	out->handle = handle;
	out->desc = desc;
	return 0;
fail:
	dlclose(handle);
	return -1;
}

void vs_plugin_close(vs_loaded_plugin *p)
{
	if (!p)
		return;
	if (p->handle)
		dlclose(p->handle);
	free(p->path);
	p->path = NULL;
	p->handle = NULL;
	p->desc = NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with_so(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

static char *join_path(const char *dir, const char *name)
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
static char **list_so_files(const char *dir, int *count)
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
static int stem_equals(const char *path, const char *name)
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
	if (!stem_equals(path, lp.desc->name)) {
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
static const char *broken_named(const vs_registry *reg, const char *name)
{
	for (int i = 0; name && i < reg->n_broken; i++)
		if (stem_equals(reg->broken[i].path, name))
			return reg->broken[i].path;
	return NULL;
}

static int is_broken(const vs_registry *reg, const char *path)
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
		char **names = list_so_files(reg->dirs[i], &n);
		for (int j = 0; j < n; j++) {
			char *path = join_path(reg->dirs[i], names[j]);
			names[j][strlen(names[j]) - 3] = 0;
			const vs_loaded_plugin *won =
				vs_registry_find_loaded(reg, names[j]);
			const char *bad = broken_named(reg, names[j]);
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
static int exists(const char *path)
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
	if (lp || !reg || reg->n_dirs == 0 || !valid_plugin_name(name))
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
		char *path = join_path(reg->dirs[i], file);
		if (!exists(path)) {
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
			char *other = join_path(reg->dirs[j], file);
			if (exists(other))
				add_note(reg, "note: plugin '%s': %s shadows %s",
				         name, path, other);
			free(other);
		}
		free(path);
		break;
	}
	return lp;
}

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
	char *path = join_path(dir, file);
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
	append(msg, sizeof msg, "no plugin named '%s'", name ? name : "");
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
		if (!stem_equals(reg->broken[i].path, name))
			continue;
		append(msg, sizeof msg, "%s %s", said ? ";" : ":",
		       reg->broken[i].reason);
		said = 1;
	}
	/* Copies further on the path: not used in place of a broken first
	 * one (vs_registry_find), which the user should hear rather than
	 * wonder why the copy that works did not run. */
	int later = 0;
	for (int i = 0; said && valid_plugin_name(name) && i < reg->n_dirs;
	     i++) {
		char file[256];
		snprintf(file, sizeof file, "%s.so", name);
		char *path = join_path(reg->dirs[i], file);
		if (exists(path) && !is_broken(reg, path))
			append(msg, sizeof msg, "%s %s", later++ ? "," :
			       "; not used in its place:", path);
		free(path);
	}
	if (later)
		append(msg, sizeof msg, " (the first %s.so on the plugin path "
		       "is the one meant: fix that one or remove it)", name);
	/* A file called NAME.so that loaded under another name. */
	for (int i = 0; name && i < reg->n; i++)
		if (stem_equals(reg->plugins[i]->path, name))
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
		char **names = list_so_files(reg->dirs[i], &n);
		for (int j = 0; j < n; j++) {
			names[j][strlen(names[j]) - 3] = 0;
			int dup = 0;
			for (int k = 0; k < n_seen && !dup; k++)
				dup = strcmp(seen[k], names[j]) == 0;
			if (dup || !valid_plugin_name(names[j])) {
				free(names[j]);
				continue;
			}
			/* the first file of a name decides for the name */
			if (!broken_named(reg, names[j]) &&
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
