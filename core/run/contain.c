/* Crash containment: variants simulated in a child process per worker.
 *
 * Why processes: a plugin is native code in our address space; after a
 * SIGSEGV, an abort() or an exit() inside it nothing in the process can
 * be trusted, and a call that never returns cannot be stopped from
 * another thread. A child that dies takes only its variant with it.
 *
 * How: each runner worker thread owns one child (vs_contain), made at
 * its first variant by the run's fork server (forkserver.c: a process
 * forked before the run's threads, so the child inherits no lock another
 * thread held; without it, forked by the worker itself), so the child
 * has the seed, the sweep and the loaded plugins at the parent's
 * addresses. The worker writes a
 * variant index down a socket; the child builds that variant itself (the
 * same pure function of (sweep, i) the parent used), simulates it and
 * writes the result back: a header, the arrays, a trailer. A long
 * variant's rows come ahead of it in chunks (the runner's vs_row_sink,
 * re-created in the child over the socket): the parent hands each to its
 * own sink, which waits for the writer, and reads no further meanwhile,
 * so the child blocks on the full socket: memory stays bounded on both
 * sides whatever the variant's length. The child
 * lives for many variants, so a fork's cost (page tables, copy-on-write
 * faults) is paid once per worker, not once per variant. The writer, the
 * store and SQLite stay in the parent: a child never touches them.
 *
 * Invariants:
 * - No pointer in a result is followed by the parent: event kinds and
 *   log rows' plugin names travel as indices (contain_check.h), actor
 *   rows' strings are replaced by the parent's own variant's, actor by
 *   actor (same order). A child's memory may be corrupted before it
 *   sends (a plugin writing where it should not): every count, index,
 *   actor ID, step and level is checked (contain_check.c) before use,
 *   and a result that fails a check fails its variant ("crashed: its
 *   process sent a malformed result ..."), never the run.
 * - A result is used only when it came whole (magic header and trailer)
 *   and passed those checks; anything else is a crash (and the chunks of it handed on are void:
 *   vs_result.rows_void, the writer drops them), described from a page the child shares with
 *   its parent: its crash handlers and its atexit hook name the plugin
 *   call in progress and its actor (sim.h's vs_sim_calling), or outside
 *   any call the plugin whose code is on the stack (backtrace + dladdr
 *   against the variant's plugin files) and an actor using it, and the
 *   step, from the rows recorded so far. A dead child is reaped and replaced at the next
 *   variant.
 * - A stop (vs_run_stop) kills the child and returns -1, like a stopped
 *   vs_sim_run; a variant past so->timeout + 1 s is killed (the
 *   in-process limit, checked between steps, gets its second to fire
 *   first, so results of variants that merely run long stay as they were),
 *   once asked where it hangs (SIGUSR1, as for the memory limit below), so
 *   that the reason names the plugin, its actor and the step.
 * - The child's stdout and stderr are one pipe the parent reads while it
 *   waits: what a plugin prints never reaches vsweep's own output; it is
 *   kept in the variant's log view (level 'output', OUTPUT_ROWS_KEPT
 *   lines of at most 239 bytes, then one line saying how many more), so
 *   a crash's last words stay with the variant. Lines the child's own
 *   code prints (vs_log_add's "vsweep: variant ...") pass to vsweep's
 *   stderr as before. The child is vsweep's own and dies with it
 *   (PR_SET_PDEATHSIG), so a killed vsweep leaves no plugin running.
 * - Memory (--variant-memory): the parent polls the child's resident set
 *   (/proc/PID/statm) every MEM_POLL_MS while it waits, and reads its
 *   peak (VmHWM) when a result comes; growth past the limit over the
 *   child's size at its fork fails the variant ("crashed: memory limit
 *   of N MB exceeded ..."), the child killed and replaced. Resident,
 *   not virtual, memory: what the machine runs out of; RLIMIT_AS would
 *   count the address space the parent's threads and ASan reserve, and
 *   turn a limit into a malloc failure inside host code. Before the kill
 *   the child is asked (SIGUSR1, a few times) where it is, so the reason
 *   names the plugin allocating, as a crash's does. Growth, not size:
 *   what the child shares with vsweep from the fork costs nothing new.
 * Called by runner.c's workers. */
#define _GNU_SOURCE /* dladdr, __fpurge */
#include "run/contain.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/hugemem.h"
#include "common/quota.h"
#include "sim/test_hooks.h"
#include "common/util.h"
#include "fmu/fmu.h"
#include "input/sweep.h"
#include "plugin/registry.h"
#include "run/contain_check.h"
#include "run/forkserver.h"
#include "sim/monitor.h"
#include "sim/sim.h"

#define MAGIC 0x76737770u /* "vswp": a result */
#define CHUNK_MAGIC 0x76736368u /* "vsch": a chunk of a result's rows */

/* Lines of a variant's output kept in its log (level VS_LOG_OUTPUT). */
#define OUTPUT_ROWS_KEPT 100
/* A log row's level for what a contained plugin printed (schema.sql's
 * log view calls it 'output'). */
#define VS_LOG_OUTPUT 4
/* ms between two looks at a child's memory while it simulates. */
#define MEM_POLL_MS 10

/* What precedes the arrays on the socket. */
typedef struct head {
	uint32_t magic;
	int32_t sim_rc;
	int32_t status;
	int32_t n_actors, n_wheels;
	int64_t n_rows, n_events;
	int32_t n_signal_names;  /* each sent with its unit, each string as
	                            a uint32 length and bytes */
	int64_t n_signals;
	int64_t n_logs, n_logs_kept;
	int64_t n_pairs;
	int32_t summary_void;
	vs_summary summary;
	char error[1024];
} head;

/* What precedes a chunk's arrays on the socket (the runner's vs_row_sink
 * streams a long variant's rows; contain.c passes them through). */
typedef struct chunk_head {
	uint32_t magic;
	int32_t n_signal_names;  /* each sent with its unit, each string as
	                            a uint32 length and bytes */
	int64_t n_rows, n_signals, n_pairs;
} chunk_head;

/* The page the child writes its last words to. */
typedef struct last_words {
	int set;
	volatile int in_plugin; /* where names a plugin (set after where) */
	char where[512]; /* "in plugin P, actor A, step K" */
} last_words;

/* Child side: what the crash handlers need (set once, before the sim). */
static const vs_scenario *c_variant;
static const vs_result *c_res;
static int c_every;
static int64_t c_last_step = -1; /* of the last row sent in a chunk */
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

/* Whether code of the shared object file belongs to lp: the plugin
 * file itself, or for an FMU (lp->path the .fmu) a binary under the
 * directory it was unpacked in. */
static int runs_from(const vs_loaded_plugin *lp, const char *file)
{
	if (lp->dir) {
		size_t n = strlen(lp->dir);
		return strncmp(file, lp->dir, n) == 0 && file[n] == '/';
	}
	return lp->path && strcmp(lp->path, file) == 0;
}

/* How the plugin table names lp, into plugin[size]: the descriptor's
 * name, or for an FMU "fmu:NAME.fmu" (every FMU runs through the one
 * adapter descriptor "fmu"). */
static void plugin_label(const vs_loaded_plugin *lp, char *plugin,
                         size_t size)
{
	if (lp->dir) {
		const char *base = lp->path ? strrchr(lp->path, '/') : NULL;
		snprintf(plugin, size, "fmu:%s",
		         base ? base + 1 : lp->path ? lp->path : "?");
	} else {
		snprintf(plugin, size, "%s", lp->desc->name);
	}
}

/* The actor whose plugin call is in progress on this thread (sim.h's
 * vs_sim_calling), its plugin's label in plugin[size]; -1 when none. */
static int actor_calling(char *plugin, size_t size)
{
	int call = vs_sim_calling;
	if (call <= 0)
		return -1;
	int i = (call - 1) / 2;
	if (i >= c_variant->n_actors)
		return -1;
	const vs_actor_spec *a = &c_variant->actors[i];
	const vs_loaded_plugin *lp = (call - 1) % 2 ? a->behaviour.loaded
	                                            : a->vehicle_model.loaded;
	if (!lp)
		return -1;
	plugin_label(lp, plugin, size);
	return i;
}

/* The variant's first actor using the plugin whose code is in file, or
 * -1; its label in plugin[size]; *others: how many more actors use it
 * (the stack cannot tell which one). */
static int actor_of(const char *file, char *plugin, size_t size,
                    int *others)
{
	int first = -1;
	*others = 0;
	for (int i = 0; i < c_variant->n_actors; i++) {
		const vs_plugin_use *u[2] = {&c_variant->actors[i].vehicle_model,
		                             &c_variant->actors[i].behaviour};
		for (int k = 0; k < 2; k++) {
			const vs_loaded_plugin *lp = u[k]->loaded;
			if (!lp || !runs_from(lp, file))
				continue;
			if (first < 0) {
				plugin_label(lp, plugin, size);
				first = i;
			} else if (first != i) {
				++*others;
			}
		}
	}
	return first;
}

/* Fills the shared page: the plugin call in progress, or else the
 * innermost plugin frame on the stack, its actor, and the step being
 * simulated (one past the last recorded when every step is recorded).
 * In a dying process: no locks are relied on but backtrace's, warmed up
 * before the simulation started. */
static void describe(void)
{
	if (!c_variant || !c_res)
		return; /* not simulating: no plugin to name */
	void *pc[64];
	int n = backtrace(pc, 64);
	char plugin[256] = "";
	int others = 0;
	/* Inside a plugin call, whatever code faulted (the plugin's, a
	 * library it called, a host service) the call is that actor's;
	 * outside one (a thread of a plugin's own, an exit handler) the
	 * innermost plugin frame on the stack names a plugin, but not
	 * which of its actors. */
	int actor = actor_calling(plugin, sizeof plugin);
	for (int i = 0; i < n && actor < 0; i++) {
		Dl_info di;
		if (dladdr(pc[i], &di) && di.dli_fname)
			actor = actor_of(di.dli_fname, plugin, sizeof plugin,
			                 &others);
	}
	char step[64] = "";
	int at = vs_sim_step; /* 1 + the step under way, or 0 */
	if (at > 1) {
		snprintf(step, sizeof step, ", step %lld", (long long)at - 1);
	} else if (c_res->n_rows > 0 || c_last_step >= 0) {
		long long last = c_res->n_rows > 0
		                         ? (long long)c_res->rows[c_res->n_rows - 1].step
		                         : (long long)c_last_step;
		if (c_every == 1)
			snprintf(step, sizeof step, ", step %lld", last + 1);
		else
			snprintf(step, sizeof step, ", after step %lld", last);
	} else {
		snprintf(step, sizeof step, ", before step 1");
	}
	if (actor >= 0)
		snprintf(c_words->where, sizeof c_words->where,
		         "in plugin %s, actor %lld (%s)%s%s", plugin,
		         (long long)c_variant->actors[actor].id,
		         c_variant->actors[actor].name,
		         others ? " or another actor using it" : "", step);
	else
		snprintf(c_words->where, sizeof c_words->where,
		         "outside any plugin's code%s", step);
	c_words->set = 1;
	c_words->in_plugin = actor >= 0;
}

/* The parent asks where the child is (memory limit, hang): a sample
 * only. */
static void on_sample(int sig)
{
	(void)sig;
	int e = errno;
	describe();
	errno = e;
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
		/* MSG_NOSIGNAL: a dead peer is an error, not our SIGPIPE. */
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The names of r's signals, each followed by its unit, after its
 * arrays. */
static void send_names(int fd, const vs_result *r)
{
	for (int i = 0; i < 2 * r->n_signal_names; i++) {
		const char *s = i % 2 ? r->signal_units[i / 2]
		                      : r->signal_names[i / 2];
		uint32_t len = (uint32_t)strlen(s);
		if (write_all(fd, &len, sizeof len) || write_all(fd, s, len))
			_exit(3);
	}
}

/* The child's vs_row_sink.flush (ctx: the result socket): the rows held,
 * as a chunk, ahead of the result. Blocks while the socket is full: the
 * parent reads no further until the writer took its previous chunk. */
static int send_chunk(void *ctx, vs_result *r)
{
	int fd = *(const int *)ctx;
	if (r->n_rows > 0)
		c_last_step = r->rows[r->n_rows - 1].step;
	chunk_head h;
	memset(&h, 0, sizeof h);
	h.magic = CHUNK_MAGIC;
	h.n_signal_names = r->n_signal_names;
	h.n_rows = r->n_rows;
	h.n_signals = r->n_signals;
	h.n_pairs = r->n_pairs;
	if (write_all(fd, &h, sizeof h) ||
	    write_all(fd, r->rows, sizeof *r->rows * (size_t)r->n_rows) ||
	    write_all(fd, r->signals, sizeof *r->signals * (size_t)r->n_signals) ||
	    write_all(fd, r->pairs, sizeof *r->pairs * (size_t)r->n_pairs))
		_exit(3);
	send_names(fd, r);
	r->n_rows = 0; /* the arrays are kept for the next chunk */
	r->n_signals = 0;
	r->n_pairs = 0;
	return 0;
}

/* The indices that travel instead of r's event kinds and kept log rows'
 * plugin names (v: the variant simulated, NULL when it was not built). */
static int send_indices(int fd, const vs_scenario *v, const vs_result *r,
                        int64_t n_logs_kept)
{
	for (int64_t j = 0; j < r->n_events; j++) {
		int32_t k = vs_event_kind_index(r->events[j].kind);
		if (write_all(fd, &k, sizeof k))
			return -1;
	}
	for (int64_t j = 0; j < n_logs_kept; j++) {
		int32_t k = v ? vs_contain_plugin_index(v, r->logs[j].plugin)
		              : -1;
		if (write_all(fd, &k, sizeof k))
			return -1;
	}
	return 0;
}

static void send_result(int fd, const vs_scenario *v, const vs_result *r,
                        int sim_rc)
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
	h.n_signal_names = r->n_signal_names;
	h.n_signals = r->n_signals;
	h.n_logs = r->n_logs;
	h.n_logs_kept = r->n_logs < VS_LOG_ROWS_KEPT ? r->n_logs
	                                             : VS_LOG_ROWS_KEPT;
	h.n_pairs = r->n_pairs;
	h.summary = r->summary;
	h.summary_void = r->summary_void;
	memcpy(h.error, r->error, sizeof h.error);
	uint32_t end = MAGIC;
	if (write_all(fd, &h, sizeof h) ||
	    write_all(fd, r->actors, sizeof *r->actors * (size_t)r->n_actors) ||
	    write_all(fd, r->wheels, sizeof *r->wheels * (size_t)r->n_wheels) ||
	    write_all(fd, r->rows, sizeof *r->rows * (size_t)r->n_rows) ||
	    write_all(fd, r->events, sizeof *r->events * (size_t)r->n_events) ||
	    write_all(fd, r->signals, sizeof *r->signals * (size_t)r->n_signals) ||
	    write_all(fd, r->logs, sizeof *r->logs * (size_t)h.n_logs_kept) ||
	    write_all(fd, r->pairs, sizeof *r->pairs * (size_t)r->n_pairs) ||
	    send_indices(fd, v, r, h.n_logs_kept))
		_exit(3);
	send_names(fd, r);
	if (write_all(fd, &end, sizeof end))
		_exit(3);
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

static int await_result(vs_contain *c, int fd);

/* Reads one whole request or result: n bytes into p, giving up on a stop
 * or past the deadline (0: none); so may be NULL (no stop, no deadline:
 * the child's side; then c is NULL too). Returns 0, 1 (stop), 2
 * (deadline), 3 (end of file: the other side is gone) or 4 (the child
 * outgrew its memory limit). */
static int read_exact(vs_contain *c, int fd, void *p, size_t n,
                      const vs_sim_opts *so, double deadline)
{
	char *b = p;
	while (n > 0) {
		if (so && so->stop && *so->stop)
			return 1;
		if (deadline > 0 && vs_now() > deadline)
			return 2;
		if (c) {
			int w = await_result(c, fd);
			if (w > 0)
				return w;
			if (w < 0)
				continue;
		}
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 3;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The child: variants in, results out, until the request socket closes. */
static _Noreturn void child(int in, int out, int print, last_words *words,
                            const vs_sweep *sw, const vs_scenario *seed,
                            const vs_sim_opts *so)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	__fpurge(stdout); /* the parent's pending output is the parent's */
	__fpurge(stderr);
	dup2(print, STDOUT_FILENO); /* closed below, as every other fd */
	dup2(print, STDERR_FILENO);
	setvbuf(stdout, NULL, _IOLBF, 0); /* lines out before a crash */
	/* Only our two sockets: a copy of another worker's would keep its
	 * child from seeing its parent's end close, or its parent from
	 * seeing it die; and the results file is the parent's alone. */
	unsigned lo = (unsigned)(in < out ? in : out);
	unsigned hi = (unsigned)(in < out ? out : in);
	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0u, 0);
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
	sa.sa_handler = on_sample;
	sa.sa_flags = SA_RESTART | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	atexit(on_exit_called);
	/* The parent's sink, if any, becomes the socket. */
	vs_sim_opts cso = *so;
	vs_row_sink sink;
	if (so->sink) {
		sink = (vs_row_sink){send_chunk, &out, so->sink->chunk_bytes};
		cso.sink = &sink;
	}
	/* a test build's hook (test_hooks.h); NULL otherwise */
	const char *corrupt = vs_test_corrupt_spec();
	uint64_t i;
	while (read_exact(NULL, in, &i, sizeof i, NULL, 0) == 0) {
		vs_result res;
		memset(&res, 0, sizeof res);
		res.variant = i;
		vs_error err = {{0}};
		vs_scenario *v = vs_sweep_variant(sw, seed, i, NULL, &err);
		int rc = 0;
		c_last_step = -1;
		if (v) {
			c_variant = v;
			c_res = &res;
			rc = vs_sim_run(v, &cso, &res);
		} else {
			res.status = VS_VARIANT_FAILED;
			res.summary_void = 1; /* nothing simulated */
			snprintf(res.error, sizeof res.error, "%s", err.msg);
		}
		fflush(stdout); /* the variant's output before its result */
		vs_test_corrupt_result(corrupt, &res);
		/* An FMU's Fatal leaves this process unfit for it (fmu.h):
		 * the request socket closes before the result goes, so the
		 * parent's next request fails and it forks a new child. */
		int spoiled = vs_fmu_process_spoiled();
		if (spoiled)
			close(in);
		send_result(out, v, &res, rc);
		c_variant = NULL;
		vs_result_finish(&res);
		vs_scenario_destroy(v);
		if (spoiled)
			break;
	}
	c_exiting = 1;
	_exit(0);
}

struct vs_contain_server {
	vs_forkserver *fs;
	/* What every child gets (the server's copy, from its start). */
	const vs_sweep *sw;
	const vs_scenario *seed;
	vs_sim_opts so;
	vs_row_sink sink;
};

/* A child made by the fork server: fds are its request and result
 * sockets, its output pipe and its last-words page (a memfd). */
static void server_child(void *arg, const int *fds, int n)
{
	const vs_contain_server *s = arg;
	if (n != 4)
		_exit(3);
	last_words *w = mmap(NULL, sizeof *w, PROT_READ | PROT_WRITE,
	                     MAP_SHARED, fds[3], 0);
	if (w == MAP_FAILED)
		_exit(3);
	child(fds[0], fds[1], fds[2], w, s->sw, s->seed, &s->so);
}

vs_contain_server *vs_contain_server_start(const vs_sweep *sw,
                                           const vs_scenario *seed,
                                           const vs_sim_opts *so)
{
	vs_contain_server *s = vs_xcalloc(1, sizeof *s);
	s->sw = sw;
	s->seed = seed;
	s->so = *so;
	if (so->sink) {
		s->sink = *so->sink;
		s->so.sink = &s->sink;
	}
	s->fs = vs_forkserver_start(server_child, s);
	if (!s->fs) {
		free(s);
		return NULL;
	}
	return s;
}

void vs_contain_server_stop(vs_contain_server *s)
{
	if (!s)
		return;
	vs_forkserver_stop(s->fs);
	free(s);
}

struct vs_contain {
	vs_contain_server *server; /* NULL: children forked here */
	const vs_sweep *sw;
	const vs_scenario *seed;
	int words_fd;         /* the words page's memfd, for the server */
	pid_t pid;            /* 0: no child */
	int to, from;         /* request and result sockets, parent's ends */
	int print;            /* the child's stdout and stderr, read end */
	last_words *words;    /* shared with the child */
	long limit_kb;        /* growth allowed; 0: none */
	long base_kb;         /* the child's resident set at its fork */
	double next_look;     /* s (vs_now) of the next memory look */
	/* The variant's output: the line being read, the lines kept. */
	char line[240];
	size_t line_len;
	int line_cut;         /* the line is longer than line[] */
	vs_log_row out[OUTPUT_ROWS_KEPT];
	int n_out;
	long long n_dropped;  /* lines past OUTPUT_ROWS_KEPT */
	/* The variant being simulated (the parent's copy), and what its
	 * result is checked against so far. */
	const vs_scenario *variant;
	int64_t last_step;    /* of the last rows received; -1: none */
	char bad[160];        /* what is wrong with a malformed result */
};

vs_contain *vs_contain_create(vs_contain_server *server,
                              const vs_sweep *sw, const vs_scenario *seed,
                              long memory_mb)
{
	vs_contain *c = vs_xcalloc(1, sizeof *c);
	c->server = server;
	c->sw = sw;
	c->seed = seed;
	c->to = c->from = c->print = -1;
	c->limit_kb = memory_mb > 0 ? memory_mb * 1024 : 0;
	/* A memfd, not an anonymous mapping: a child of the fork server
	 * maps it from the descriptor it is handed. */
	c->words_fd = memfd_create("vsweep-last-words", MFD_CLOEXEC);
	if (c->words_fd >= 0 &&
	    ftruncate(c->words_fd, sizeof *c->words) == 0)
		c->words = mmap(NULL, sizeof *c->words, PROT_READ | PROT_WRITE,
		                MAP_SHARED, c->words_fd, 0);
	if (!c->words || c->words == MAP_FAILED)
		c->words = NULL;
	return c;
}

/* Ends the child (idle, stuck or dead: it holds nothing to save) and
 * reaps it; returns its wait status. */
static int end_child(vs_contain *c)
{
	int st = 0;
	if (!c->pid)
		return 0;
	kill(c->pid, SIGKILL);
	close(c->to);
	close(c->from);
	if (c->print >= 0)
		close(c->print);
	c->to = c->from = c->print = -1;
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	return st;
}

void vs_contain_destroy(vs_contain *c)
{
	if (!c)
		return;
	end_child(c);
	if (c->words)
		munmap(c->words, sizeof *c->words);
	if (c->words_fd >= 0)
		close(c->words_fd);
	free(c);
}

/* kB after key ("VmRSS:", "VmHWM:") in /proc/PID/status; -1 when it
 * cannot be read (the process is gone). */
static long resident_kb(pid_t pid, const char *key)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *k = strstr(buf, key);
	return k ? strtol(k + strlen(key), NULL, 10) : -1;
}

/* Whether the child has grown past its limit: its resident set now
 * (statm: cheaper than status, read every MEM_POLL_MS) over its size at
 * the fork. */
static int over_limit(vs_contain *c)
{
	char path[64], buf[128];
	snprintf(path, sizeof path, "/proc/%d/statm", (int)c->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	long size, pages;
	if (sscanf(buf, "%ld %ld", &size, &pages) != 2)
		return 0;
	long kb = pages * (sysconf(_SC_PAGESIZE) / 1024);
	return kb - c->base_kb > c->limit_kb;
}

/* One line the child printed: its own ("vsweep: ...", vs_log_add's) to
 * vsweep's stderr, a plugin's to the variant's log rows. */
static void output_line(vs_contain *c)
{
	c->line[c->line_len] = '\0';
	if (strncmp(c->line, "vsweep: ", 8) == 0) {
		/* the run's cap on plugin lines counts every child's: each
		 * child's own count (signals.c) sees only its variants */
		int say = vs_quota_take(VS_QUOTA_PLUGIN);
		if (say < 0)
			fprintf(stderr, "%s\n", vs_quota_notice(VS_QUOTA_PLUGIN));
		else if (say)
			fprintf(stderr, "%s%s\n", c->line, c->line_cut ? "..." : "");
	} else if (c->n_out < OUTPUT_ROWS_KEPT) {
		vs_log_row *r = &c->out[c->n_out++];
		memset(r, 0, sizeof *r);
		r->level = VS_LOG_OUTPUT;
		r->plugin = ""; /* a pipe does not say which plugin wrote */
		memcpy(r->message, c->line, c->line_len + 1);
	} else {
		c->n_dropped++;
	}
	c->line_len = 0;
	c->line_cut = 0;
}

/* Reads what the child printed so far (all of it: the pipe never fills
 * and blocks the child); 1 at the end of the pipe (the child is gone). */
static int drain_output(vs_contain *c)
{
	char buf[4096];
	for (;;) {
		if (c->print < 0)
			return 1;
		ssize_t n = read(c->print, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0; /* EAGAIN: nothing more for now */
		if (n == 0)
			return 1;
		for (ssize_t k = 0; k < n; k++) {
			if (buf[k] == '\n')
				output_line(c);
			else if (c->line_len + 1 < sizeof c->line)
				c->line[c->line_len++] = buf[k];
			else
				c->line_cut = 1;
		}
	}
}

/* The variant's output into res's log rows, after what its plugins
 * logged, within the log's cap; then ready for the next variant. */
static void take_output(vs_contain *c, vs_result *res)
{
	if (c->line_len > 0)
		output_line(c); /* a last line without its newline */
	if (c->n_dropped > 0 && c->n_out == OUTPUT_ROWS_KEPT) {
		vs_log_row *r = &c->out[OUTPUT_ROWS_KEPT - 1];
		snprintf(r->message, sizeof r->message, "(%lld more lines of "
		         "output not kept)", c->n_dropped + 1);
	}
	int64_t kept = res->n_logs < VS_LOG_ROWS_KEPT ? res->n_logs
	                                              : VS_LOG_ROWS_KEPT;
	int64_t room = VS_LOG_ROWS_KEPT - kept;
	int64_t n = c->n_out < room ? c->n_out : room;
	if (n > 0) {
		res->logs = vs_xrealloc(res->logs, (size_t)(kept + n) *
		                                   sizeof *res->logs);
		memcpy(res->logs + kept, c->out, (size_t)n * sizeof *c->out);
		res->n_logs = kept + n;
	}
	c->n_out = 0;
	c->n_dropped = 0;
}

/* The parent's wait for the result socket fd, one tick at most: keeps the
 * child's output drained and its memory watched meanwhile. 0: fd is
 * readable; -1: not yet; 4: the child is over its memory limit. */
static int await_result(vs_contain *c, int fd)
{
	struct pollfd q[2] = {{fd, POLLIN, 0}, {c->print, POLLIN, 0}};
	int tick = c->limit_kb ? MEM_POLL_MS : 100; /* ms: notice stops */
	int n = poll(q, c->print >= 0 ? 2 : 1, tick);
	if (n > 0 && c->print >= 0 && q[1].revents &&
	    drain_output(c) == 1) {
		close(c->print); /* at its end: poll no more */
		c->print = -1;
	}
	if (c->limit_kb && vs_now() >= c->next_look) {
		c->next_look = vs_now() + MEM_POLL_MS / 1000.0;
		if (over_limit(c))
			return 4;
	}
	return n > 0 && q[0].revents ? 0 : -1;
}

/* Forks the child; 0, or -1 when the system refuses. */
static int start_child(vs_contain *c, const vs_sim_opts *so)
{
	int req[2], out[2], print[2];
	if (!c->words || socketpair(AF_UNIX, SOCK_STREAM, 0, req) != 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, out) != 0) {
		close(req[0]);
		close(req[1]);
		return -1;
	}
	if (pipe2(print, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		close(out[0]);
		close(out[1]);
		return -1;
	}
	pid_t pid = -1;
	if (c->server) {
		int fds[4] = {req[0], out[1], print[1], c->words_fd};
		pid = vs_forkserver_fork(c->server->fs, fds, 4);
	}
	if (pid < 0) {
		/* No server, or it is gone: forked here, as contained as
		 * ever, with the risk the server exists to avoid. */
		pid = fork();
		if (pid == 0)
			child(req[0], out[1], print[1], c->words, c->sw,
			      c->seed, so);
	}
	close(req[0]);
	close(out[1]);
	close(print[1]);
	if (pid < 0) {
		close(req[1]);
		close(out[0]);
		close(print[0]);
		return -1;
	}
	fcntl(print[0], F_SETFL, O_NONBLOCK);
	c->pid = pid;
	c->to = req[1];
	c->from = out[0];
	c->print = print[0];
	/* Measured before the child runs a plugin: fork copied the page
	 * tables, the counters with them. */
	c->base_kb = resident_kb(pid, "VmRSS:");
	return 0;
}

/* Reads n signal names and their units (send_names) into r's new arrays
 * (owned); 0, or read_exact's 1 to 4. */
static int receive_names(vs_contain *c, const vs_sim_opts *so,
                         double deadline, int n, vs_result *r)
{
	r->signal_names = vs_xcalloc((size_t)n + 1, sizeof *r->signal_names);
	r->signal_units = vs_xcalloc((size_t)n + 1, sizeof *r->signal_units);
	r->n_signal_names = 0;
	for (int k = 0; k < n; k++) {
		/* counted once both are allocated: freed if cut */
		r->signal_names[k] = vs_xcalloc(1, 1);
		r->signal_units[k] = vs_xcalloc(1, 1);
		r->n_signal_names = k + 1;
		for (int u = 0; u < 2; u++) {
			char **s = u ? &r->signal_units[k] : &r->signal_names[k];
			uint32_t len;
			int why = read_exact(c, c->from, &len, sizeof len, so,
			                     deadline);
			if (why)
				return why;
			if (len > 4096)
				return 3;
			free(*s);
			*s = vs_xcalloc(1, (size_t)len + 1);
			if ((why = read_exact(c, c->from, *s, len, so,
			                      deadline)))
				return why;
		}
	}
	return 0;
}

/* Reads a chunk of the variant's rows (its magic read already) and hands
 * it to so->sink; the time that takes moves *deadline on. 0, or
 * read_exact's 1 to 4 (1 also when the sink says stop), or 6 when it
 * fails a check (what is wrong in c->bad). */
static int receive_chunk(vs_contain *c, const vs_sim_opts *so,
                         double *deadline, const vs_result *res)
{
	chunk_head h;
	int why = read_exact(c, c->from, (char *)&h + sizeof h.magic,
	                     sizeof h - sizeof h.magic, so, *deadline);
	if (why)
		return why;
	if (!so->sink)
		return 3;
	const char *bad = vs_contain_check_counts(
		c->variant, c->variant->n_actors, 0, h.n_rows, 0,
		h.n_signal_names, h.n_signals, h.n_pairs, 0, 0);
	if (bad) {
		snprintf(c->bad, sizeof c->bad, "chunk: %s", bad);
		return 6;
	}
	vs_result part;
	memset(&part, 0, sizeof part);
	part.variant = res->variant;
	part.rows = vs_huge_calloc((size_t)h.n_rows + 1, sizeof *part.rows);
	part.signals = vs_xcalloc((size_t)h.n_signals + 1,
	                          sizeof *part.signals);
	part.pairs = vs_xcalloc((size_t)h.n_pairs + 1, sizeof *part.pairs);
	if (!(why = read_exact(c, c->from, part.rows, sizeof *part.rows *
	                       (size_t)h.n_rows, so, *deadline)) &&
	    !(why = read_exact(c, c->from, part.signals, sizeof *part.signals *
	                       (size_t)h.n_signals, so, *deadline)) &&
	    !(why = read_exact(c, c->from, part.pairs, sizeof *part.pairs *
	                       (size_t)h.n_pairs, so, *deadline)))
		why = receive_names(c, so, *deadline, h.n_signal_names,
		                    &part);
	if (!why) {
		part.n_rows = part.cap_rows = h.n_rows;
		part.n_signals = part.cap_signals = h.n_signals;
		part.n_pairs = part.cap_pairs = h.n_pairs;
		if (vs_contain_check_part(c->variant, &part, &c->last_step,
		                          c->bad, sizeof c->bad))
			why = 6;
	}
	if (!why) {
		double t0 = vs_now();
		if (so->sink->flush(so->sink->ctx, &part))
			why = 1;
		if (*deadline > 0)
			*deadline += vs_now() - t0; /* the writer's time */
	}
	vs_result_finish(&part);
	return why;
}

/* Reads the result of the variant just asked for into res, handing the
 * chunks that come first to so->sink. Returns 0 (whole and checked),
 * read_exact's 1 to 4, or 6 (malformed: what is wrong in c->bad). */
static int receive(vs_contain *c, const vs_sim_opts *so, double *deadline,
                   vs_result *res, int *sim_rc)
{
	head h;
	int why;
	for (;;) {
		if ((why = read_exact(c, c->from, &h.magic, sizeof h.magic, so,
		                      *deadline)))
			return why;
		if (h.magic != CHUNK_MAGIC)
			break;
		if ((why = receive_chunk(c, so, deadline, res)))
			return why;
	}
	why = read_exact(c, c->from, (char *)&h + sizeof h.magic,
	                 sizeof h - sizeof h.magic, so, *deadline);
	if (why)
		return why;
	if (h.magic != MAGIC)
		return 3;
	const char *bad = vs_contain_check_counts(
		c->variant, h.n_actors, h.n_wheels, h.n_rows, h.n_events,
		h.n_signal_names, h.n_signals, h.n_pairs, h.n_logs,
		h.n_logs_kept);
	if (bad) {
		snprintf(c->bad, sizeof c->bad, "%s", bad);
		return 6;
	}
	res->status = (vs_variant_status)h.status;
	memcpy(res->error, h.error, sizeof res->error);
	res->summary = h.summary;
	res->summary_void = h.summary_void != 0;
	*sim_rc = h.sim_rc;
	res->actors = vs_xcalloc((size_t)h.n_actors + 1, sizeof *res->actors);
	res->wheels = vs_xcalloc((size_t)h.n_wheels + 1, sizeof *res->wheels);
	res->rows = vs_huge_calloc((size_t)h.n_rows + 1, sizeof *res->rows);
	res->events = vs_xcalloc((size_t)h.n_events + 1, sizeof *res->events);
	res->signals = vs_xcalloc((size_t)h.n_signals + 1,
	                          sizeof *res->signals);
	res->logs = vs_xcalloc((size_t)h.n_logs_kept + 1, sizeof *res->logs);
	res->pairs = vs_xcalloc((size_t)h.n_pairs + 1, sizeof *res->pairs);
	if ((why = read_exact(c, c->from, res->actors, sizeof *res->actors *
	                      (size_t)h.n_actors, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->wheels, sizeof *res->wheels *
	                      (size_t)h.n_wheels, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->rows, sizeof *res->rows *
	                      (size_t)h.n_rows, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->events, sizeof *res->events *
	                      (size_t)h.n_events, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->signals, sizeof *res->signals *
	                      (size_t)h.n_signals, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->logs, sizeof *res->logs *
	                      (size_t)h.n_logs_kept, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->pairs, sizeof *res->pairs *
	                      (size_t)h.n_pairs, so, *deadline)))
		return why;
	/* The indices that stand for the events' kinds and the log rows'
	 * plugins (send_indices). */
	int32_t *idx = vs_xcalloc((size_t)(h.n_events + h.n_logs_kept) + 1,
	                          sizeof *idx);
	if ((why = read_exact(c, c->from, idx, sizeof *idx *
	                      (size_t)(h.n_events + h.n_logs_kept), so,
	                      *deadline))) {
		free(idx);
		return why;
	}
	why = receive_names(c, so, *deadline, h.n_signal_names, res);
	res->n_actors = h.n_actors;
	res->n_wheels = h.n_wheels;
	res->n_rows = res->cap_rows = h.n_rows;
	res->n_events = res->cap_events = h.n_events;
	res->n_signals = res->cap_signals = h.n_signals;
	res->n_pairs = res->cap_pairs = h.n_pairs;
	res->n_logs = h.n_logs;
	uint32_t end = 0;
	if (!why)
		why = read_exact(c, c->from, &end, sizeof end, so, *deadline);
	if (!why && end != MAGIC)
		why = 3;
	if (!why && vs_contain_check(c->variant, res, idx, idx + h.n_events,
	                             h.n_logs_kept, &c->last_step, c->bad,
	                             sizeof c->bad))
		why = 6;
	free(idx);
	return why;
}

/* Drops what a broken result left in res; keeps the caller's fields. */
static void clear_partial(vs_result *res)
{
	char *json = res->params_json;
	uint64_t variant = res->variant;
	res->params_json = NULL;
	vs_result_finish(res);
	res->params_json = json;
	res->variant = variant;
}

/* Asks the child, over its memory or time limit, where it is, until the
 * answer names a plugin (it is inside a plugin call most of the time it
 * allocates, and all the time it hangs in one) or after SAMPLES
 * tries; the child keeps running meanwhile. */
static void sample_where(vs_contain *c)
{
	enum { SAMPLES = 20 };
	for (int k = 0; k < SAMPLES && !c->words->in_plugin; k++) {
		if (kill(c->pid, SIGUSR1) != 0)
			break;
		struct timespec ts = {0, 2000000}; /* 2 ms: the handler runs */
		nanosleep(&ts, NULL);
	}
}

int vs_contain_run(vs_contain *c, const vs_scenario *variant,
                   const vs_sim_opts *so, vs_result *res)
{
	if (!c->pid && start_child(c, so) != 0)
		return vs_sim_run(variant, so, res); /* no child: uncontained */
	memset(c->words, 0, sizeof *c->words);
	uint64_t i = res->variant;
	if (write_all(c->to, &i, sizeof i) != 0) {
		/* Died between variants (killed from outside): a new one. */
		end_child(c);
		if (start_child(c, so) != 0 || write_all(c->to, &i, sizeof i))
			return vs_sim_run(variant, so, res);
	}
	double deadline = so->timeout > 0 ? vs_now() + so->timeout + 1.0 : 0;
	int sim_rc = 0;
	c->variant = variant;
	c->last_step = -1;
	c->bad[0] = '\0';
	int why = receive(c, so, &deadline, res, &sim_rc);
	res->owner = (void *)variant;
	long peak = 0;
	if (why == 0 && c->limit_kb) {
		/* Grown and shrunk between two looks: the peak tells. */
		peak = resident_kb(c->pid, "VmHWM:") - c->base_kb;
		if (peak > c->limit_kb)
			why = 5;
	}
	if (why == 0) {
		/* (its actor rows' strings are the parent's: vs_contain_check) */
		drain_output(c); /* flushed before the result was sent */
		take_output(c, res);
		return sim_rc;
	}
	if (why == 4 || why == 2)
		sample_where(c);
	/* A dead child's output ends now; a live one's is cut here. */
	drain_output(c);
	clear_partial(res);
	/* Chunks it handed on are not to be stored either; the summary,
	 * computed over steps that are lost, is unknown (NULL), not the
	 * zeros clear_partial left. */
	res->rows_void = 1;
	res->summary_void = 1;
	int st = end_child(c);
	if (why == 1) {
		take_output(c, res); /* forgotten with res */
		return -1;
	}
	res->status = VS_VARIANT_FAILED;
	if (why == 2)
		snprintf(res->error, sizeof res->error, "exceeded the "
		         "wall-clock limit of %g s inside a plugin call; its "
		         "process was killed %s", so->timeout,
		         c->words->set ? c->words->where
		                       : "(no plugin frame found)");
	else if (why == 4)
		snprintf(res->error, sizeof res->error, "crashed: memory "
		         "limit of %ld MB exceeded %s", c->limit_kb / 1024,
		         c->words->in_plugin ? c->words->where
		                             : "(no plugin frame found)");
	else if (why == 6)
		snprintf(res->error, sizeof res->error, "crashed: its process "
		         "sent a malformed result (%s), as from corrupted "
		         "memory; it was killed", c->bad);
	else if (why == 5)
		snprintf(res->error, sizeof res->error, "crashed: memory "
		         "limit of %ld MB exceeded (a peak of %ld MB, after "
		         "its last step)", c->limit_kb / 1024, peak / 1024);
	else
		crashed(res, st, c->words);
	take_output(c, res);
	return 0;
}
