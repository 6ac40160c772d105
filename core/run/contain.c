/* Crash containment: one variant simulated in a forked child process.
 *
 * Why a process per variant: a plugin is native code in our address
 * space; after a SIGSEGV, an abort() or an exit() inside it nothing in the
 * process can be trusted, and a call that never returns cannot be stopped
 * from another thread. A child that dies takes only its own variant with
 * it. The child is forked by the worker thread that would have simulated
 * the variant, after the variant scenario is built, so everything the
 * result points to (actor names, plugin names, event kinds: strings in the
 * variant scenario, the plugins or the binary) has the same address in the
 * parent, and only the result's arrays travel back, through a pipe, with
 * a header and a trailer that say the result is whole. The writer, the
 * store and SQLite stay in the parent: the child never touches them.
 *
 * Invariants:
 * - A result is used only when the pipe delivered it whole (magic
 *   trailer) and the child then exited 0; anything else is a crash,
 *   described from a page the child shares with this process: its crash
 *   handlers and its atexit hook name the plugin whose code is on the
 *   stack (backtrace + dladdr against the variant's plugin files), the
 *   actor using it, and the step, from the rows recorded so far.
 * - A stop (vs_run_stop) kills the child and returns -1, like a stopped
 *   vs_sim_run; a child past so->timeout + 1 s is killed (the in-process
 *   limit, checked between steps, gets its second to fire first, so
 *   results of variants that merely run long stay what they were).
 * - The child's stdout is its stderr: a plugin's prints never mix with
 *   vsweep's own output; and it dies with the thread that forked it
 *   (PR_SET_PDEATHSIG), so a killed vsweep leaves no plugin running.
 * Called by runner.c's simulate(). */
#define _GNU_SOURCE /* dladdr, __fpurge */
#include "run/contain.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "plugin/registry.h"

#define MAGIC 0x76737770u /* "vswp" */

/* What precedes the arrays on the pipe. */
typedef struct head {
	uint32_t magic;
	int32_t sim_rc;
	int32_t status;
	int32_t n_actors, n_wheels;
	int64_t n_rows, n_events;
	vs_summary summary;
	char error[1024];
} head;

/* The page the child writes its last words to. */
typedef struct last_words {
	int set;
	char where[512]; /* "in plugin P, actor A, step K" */
} last_words;

/* Child side: what the crash handlers need (set once, before the sim). */
static const vs_scenario *c_variant;
static const vs_result *c_res;
static int c_every;
static last_words *c_words;
static int c_exiting; /* our own exit: the atexit hook stays quiet */

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	}
	return "signal";
}

/* The variant's actor using the plugin loaded from file, or -1. */
static int actor_of(const char *file, const char **plugin)
{
	for (int i = 0; i < c_variant->n_actors; i++) {
		const vs_plugin_use *u[2] = {&c_variant->actors[i].vehicle_model,
		                             &c_variant->actors[i].behaviour};
		for (int k = 0; k < 2; k++)
			if (u[k]->loaded && u[k]->loaded->path &&
			    strcmp(u[k]->loaded->path, file) == 0) {
				*plugin = u[k]->loaded->desc->name;
				return i;
			}
	}
	return -1;
}

/* Fills the shared page: the innermost plugin frame on the stack, its
 * actor, and the step being simulated (one past the last recorded when
 * every step is recorded). In a dying process: no locks are relied on
 * but backtrace's, warmed up before the simulation started. */
static void describe(void)
{
	void *pc[64];
	int n = backtrace(pc, 64);
	const char *plugin = NULL;
	int actor = -1;
	for (int i = 0; i < n && actor < 0; i++) {
		Dl_info di;
		if (dladdr(pc[i], &di) && di.dli_fname)
			actor = actor_of(di.dli_fname, &plugin);
	}
	char step[64] = "";
	if (c_res->n_rows > 0) {
		long long last = (long long)c_res->rows[c_res->n_rows - 1].step;
		if (c_every == 1)
			snprintf(step, sizeof step, ", step %lld", last + 1);
		else
			snprintf(step, sizeof step, ", after step %lld", last);
	} else {
		snprintf(step, sizeof step, ", before step 1");
	}
	if (actor >= 0)
		snprintf(c_words->where, sizeof c_words->where,
		         "in plugin %s, actor %lld (%s)%s", plugin,
		         (long long)c_variant->actors[actor].id,
		         c_variant->actors[actor].name, step);
	else
		snprintf(c_words->where, sizeof c_words->where,
		         "outside any plugin's code%s", step);
	c_words->set = 1;
}

static void on_crash(int sig)
{
	describe();
	raise(sig); /* SA_RESETHAND: the default action, the true status */
}

static void on_exit_called(void)
{
	if (!c_exiting)
		describe();
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void send_result(int fd, const vs_result *r, int sim_rc)
{
	head h;
	memset(&h, 0, sizeof h);
	h.magic = MAGIC;
	h.sim_rc = sim_rc;
	h.status = (int32_t)r->status;
	h.n_actors = r->n_actors;
	h.n_wheels = r->n_wheels;
	h.n_rows = r->n_rows;
	h.n_events = r->n_events;
	h.summary = r->summary;
	memcpy(h.error, r->error, sizeof h.error);
	uint32_t end = MAGIC;
	if (write_all(fd, &h, sizeof h) ||
	    write_all(fd, r->actors, sizeof *r->actors * (size_t)r->n_actors) ||
	    write_all(fd, r->wheels, sizeof *r->wheels * (size_t)r->n_wheels) ||
	    write_all(fd, r->rows, sizeof *r->rows * (size_t)r->n_rows) ||
	    write_all(fd, r->events, sizeof *r->events * (size_t)r->n_events) ||
	    write_all(fd, &end, sizeof end))
		_exit(3);
}

static _Noreturn void child(int fd, last_words *words,
                            const vs_scenario *variant,
                            const vs_sim_opts *so, vs_result *res)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	__fpurge(stdout); /* the parent's pending output is the parent's */
	dup2(STDERR_FILENO, STDOUT_FILENO);
	c_variant = variant;
	c_res = res;
	c_every = so->record_every > 0 ? so->record_every : 1;
	c_words = words;
	void *warm[1];
	backtrace(warm, 1); /* loads what backtrace needs, here, not later */
	static char alt[65536]; /* for a plugin that overflows its stack */
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
	static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
		sigaction(crash[i], &sa, NULL);
	atexit(on_exit_called);
	int rc = vs_sim_run(variant, so, res);
	send_result(fd, res, rc);
	c_exiting = 1;
	_exit(0);
}

/* Reads the child's whole output into *buf (grown as needed), giving up
 * on a stop or past the deadline (0: none). Returns 0 at end of file, 1
 * on a stop, 2 past the deadline. */
static int read_all(int fd, const vs_sim_opts *so, double deadline,
                    char **buf, size_t *len)
{
	size_t cap = 1 << 16;
	*buf = vs_xrealloc(*buf, cap);
	*len = 0;
	for (;;) {
		if (so->stop && *so->stop)
			return 1;
		if (deadline > 0 && vs_now() > deadline)
			return 2;
		struct pollfd p = {fd, POLLIN, 0};
		int ready = poll(&p, 1, 100); /* ms: notice stops */
		if (ready <= 0)
			continue;
		if (cap - *len < 65536) {
			cap *= 2;
			*buf = vs_xrealloc(*buf, cap);
		}
		ssize_t r = read(fd, *buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		*len += (size_t)r;
	}
}

/* Copies n items of size sz from the buffer at *at into a new array. */
static void *take(const char *buf, size_t *at, size_t n, size_t sz)
{
	void *p = vs_xcalloc(n ? n : 1, sz);
	memcpy(p, buf + *at, n * sz);
	*at += n * sz;
	return p;
}

/* The result, when buf holds one whole; 1 if so, 0 if not. */
static int unpack(const char *buf, size_t len, vs_result *res, int *sim_rc)
{
	head h;
	if (len < sizeof h + sizeof(uint32_t))
		return 0;
	memcpy(&h, buf, sizeof h);
	if (h.magic != MAGIC || h.n_actors < 0 || h.n_wheels < 0 ||
	    h.n_rows < 0 || h.n_events < 0)
		return 0;
	size_t want = sizeof h + sizeof *res->actors * (size_t)h.n_actors +
	              sizeof *res->wheels * (size_t)h.n_wheels +
	              sizeof *res->rows * (size_t)h.n_rows +
	              sizeof *res->events * (size_t)h.n_events +
	              sizeof(uint32_t);
	uint32_t end;
	if (len != want)
		return 0;
	memcpy(&end, buf + len - sizeof end, sizeof end);
	if (end != MAGIC)
		return 0;
	size_t at = sizeof h;
	res->status = (vs_variant_status)h.status;
	memcpy(res->error, h.error, sizeof res->error);
	res->n_actors = h.n_actors;
	res->actors = take(buf, &at, (size_t)h.n_actors, sizeof *res->actors);
	res->n_wheels = h.n_wheels;
	res->wheels = take(buf, &at, (size_t)h.n_wheels, sizeof *res->wheels);
	res->n_rows = res->cap_rows = h.n_rows;
	res->rows = take(buf, &at, (size_t)h.n_rows, sizeof *res->rows);
	res->n_events = res->cap_events = h.n_events;
	res->events = take(buf, &at, (size_t)h.n_events, sizeof *res->events);
	res->summary = h.summary;
	*sim_rc = h.sim_rc;
	return 1;
}

/* A variant whose child died (status st of waitpid): failed, no rows,
 * the reason. */
static void crashed(vs_result *res, int st, const last_words *w)
{
	res->status = VS_VARIANT_FAILED;
	char what[128];
	if (WIFSIGNALED(st))
		snprintf(what, sizeof what, "signal %d (%s)", WTERMSIG(st),
		         signal_name(WTERMSIG(st)));
	else
		snprintf(what, sizeof what, "exit(%d) called",
		         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	snprintf(res->error, sizeof res->error, "crashed: %s %s", what,
	         w->set ? w->where : "(no plugin frame found)");
}

int vs_run_contained(const vs_scenario *variant, const vs_sim_opts *so,
                     vs_result *res)
{
	last_words *w = mmap(NULL, sizeof *w, PROT_READ | PROT_WRITE,
	                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fds[2];
	if (w == MAP_FAILED || pipe(fds) != 0) {
		/* No room for a child: simulate here, uncontained. */
		if (w != MAP_FAILED)
			munmap(w, sizeof *w);
		return vs_sim_run(variant, so, res);
	}
	memset(w, 0, sizeof *w);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], w, variant, so, res);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		munmap(w, sizeof *w);
		return vs_sim_run(variant, so, res);
	}
	double deadline = so->timeout > 0 ? vs_now() + so->timeout + 1.0 : 0;
	char *buf = NULL;
	size_t len = 0;
	int why = read_all(fds[0], so, deadline, &buf, &len);
	close(fds[0]);
	if (why)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int rc = 0, sim_rc = 0;
	if (why == 1) {
		rc = -1;
	} else if (why == 2) {
		res->status = VS_VARIANT_FAILED;
		snprintf(res->error, sizeof res->error, "exceeded the "
		         "wall-clock limit of %g s inside a plugin call; its "
		         "process was killed", so->timeout);
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	           unpack(buf, len, res, &sim_rc)) {
		rc = sim_rc;
	} else {
		crashed(res, st, w);
	}
	res->owner = (void *)variant;
	free(buf);
	munmap(w, sizeof *w);
	return rc;
}
