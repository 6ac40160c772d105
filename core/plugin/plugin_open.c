/* Opening one plugin file (registry.h): dlopen, the entry point, the
 * descriptor's checks (descriptor.c), and a guard that names the file when
 * its code crashes or exits while it loads. */
#include "plugin/plugin_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dlsym returns an object pointer; ISO C has no conversion to a function
 * pointer, POSIX guarantees the representation is the same. */
_Static_assert(sizeof(void *) == sizeof(vs_entry_fn),
               "function and object pointers differ in size");

static const char *dl_text(void)
{
	const char *e = dlerror();
	return e ? e : "unknown dynamic loader error";
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
	_exit(3); /* as for exit() below: a documented status, not 128 + sig */
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
	/* What its constructors and entry point print goes to stderr:
	 * vsweep's stdout is its output (`variants --format json`, `plugins`),
	 * which a plugin's line would corrupt. Loading happens before any
	 * thread of a run prints. */
	fflush(stdout);
	int out_fd = dup(STDOUT_FILENO);
	if (out_fd >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(out_fd);
		out_fd = -1;
	}
	guard_loading(path, saved);
	int rc = plugin_open(path, host, out, err);
	guard_loading(NULL, saved);
	fflush(stdout);
	if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
		close(out_fd);
	}
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
	if (vs_plugin_check_descriptor(path, desc, err) != 0)
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
