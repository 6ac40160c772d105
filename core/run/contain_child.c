/* The contained child's side (contain.c says why variants run in a child
 * process): variants in, results out, and when the child dies or is asked
 * where it is, its last words on the page it shares with its parent.
 *
 * Why the crash path is here whole: the signal handlers and the atexit
 * hook read what the child loop sets (the variant being simulated, its
 * result so far, the last step sent), and a handler in a dying process
 * may rely on no lock; that state is static to this file, set before the
 * simulation starts, and nothing outside it reaches it.
 *
 * Invariants:
 * - The child never touches the writer, the store or SQLite; it keeps
 *   only its two sockets and its two pipes open.
 * - What it sends is contain_proto.h's format, no pointer the parent
 *   would follow: event kinds and log rows' plugin names as indices.
 * - Its stdout and stderr are the output pipe, line-buffered, so a
 *   plugin's lines are out before a crash. What vsweep's own code says
 *   (error.h's vs_own_stderr: vs_log_add's lines) goes down the other
 *   pipe, line-buffered too: the parent tells the two apart by the pipe,
 *   not by what a line starts with, which a plugin could print.
 * Called through contain_child by contain.c (the worker's own fork) and
 * by the fork server's children (contain.c's server_child). */
#define _GNU_SOURCE /* dladdr, __fpurge, close_range */
#include "run/contain_proto.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fmu/fmu.h"
#include "plugin/registry.h"
#include "run/contain_check.h"
#include "sim/monitor.h"
#include "sim/test_hooks.h"

/* Child side: what the crash handlers need (set once, before the sim). */
static const vs_scenario *c_variant;
static const vs_result *c_res;
static int c_every;
static int64_t c_last_step = -1; /* of the last row sent in a chunk */
static contain_last_words *c_words;
static int c_in = -1; /* the request socket: a chunk's go-ahead comes there */
static size_t c_window_bytes; /* CONTAIN_WINDOW_BYTES, or a test's */
static int c_exiting; /* our own exit: the atexit hook stays quiet */

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
				vs_contain_plugin_label(lp, plugin, size);
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
	int actor = vs_contain_call_actor(c_variant, vs_sim_calling, plugin,
	                                  sizeof plugin);
	for (int i = 0; i < n && actor < 0; i++) {
		Dl_info di;
		if (dladdr(pc[i], &di) && di.dli_fname)
			actor = actor_of(di.dli_fname, plugin, sizeof plugin,
			                 &others);
	}
	char step[64] = "";
	int at = vs_sim_step; /* 1 + the step under way, 0, or -1 */
	if (at > 1) {
		snprintf(step, sizeof step, ", step %lld", (long long)at - 1);
	} else if (at < 0) {
		/* the steps are over: a "step N + 1" that never ran would
		 * send the author looking in the wrong function (a review) */
		snprintf(step, sizeof step, ", after its steps (destroy)");
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

int contain_send(int fd, const void *p, size_t n)
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
		if (contain_send(fd, &len, sizeof len) ||
		    contain_send(fd, s, len))
			_exit(3);
	}
}

/* r's state rows into the window when they fit (contain_proto.h); 1 if
 * they went there, 0 when they are to go down the socket. */
static int rows_to_window(const vs_result *r)
{
	size_t bytes = sizeof *r->rows * (size_t)r->n_rows;
	if (r->n_rows <= 0 || bytes > c_window_bytes)
		return 0;
	memcpy(contain_window(c_words), r->rows, bytes);
	return 1;
}

/* The child's vs_row_sink.flush (ctx: the result socket): the rows held,
 * as a chunk, ahead of the result. Blocks while the socket is full, or
 * until the parent has taken rows out of the window: it reads no further
 * until the writer took its previous chunk. */
static int send_chunk(void *ctx, vs_result *r)
{
	int fd = *(const int *)ctx;
	if (r->n_rows > 0)
		c_last_step = r->rows[r->n_rows - 1].step;
	contain_chunk_head h;
	memset(&h, 0, sizeof h);
	h.magic = CONTAIN_CHUNK_MAGIC;
	h.n_signal_names = r->n_signal_names;
	h.n_rows = r->n_rows;
	h.n_signals = r->n_signals;
	h.n_pairs = r->n_pairs;
	h.rows_in_window = rows_to_window(r);
	if (contain_send(fd, &h, sizeof h) ||
	    (!h.rows_in_window &&
	     contain_send(fd, r->rows, sizeof *r->rows * (size_t)r->n_rows)) ||
	    contain_send(fd, r->signals,
	                 sizeof *r->signals * (size_t)r->n_signals) ||
	    contain_send(fd, r->pairs, sizeof *r->pairs * (size_t)r->n_pairs))
		_exit(3);
	send_names(fd, r);
	if (h.rows_in_window) {
		/* the window is ours again once the parent says so */
		char ack;
		ssize_t n;
		while ((n = read(c_in, &ack, 1)) < 0 && errno == EINTR)
			;
		if (n != 1 || ack != CONTAIN_WINDOW_ACK)
			_exit(3);
	}
	r->n_rows = 0; /* the arrays are kept for the next chunk */
	r->n_signals = 0;
	r->n_pairs = 0;
	return 0;
}

/* The messages of r's first n kept log rows (their pointers travel as
 * garbage in the rows, replaced by the parent). */
static void send_messages(int fd, const vs_result *r, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		const char *m = r->logs[j].message ? r->logs[j].message : "";
		uint32_t len = (uint32_t)strlen(m);
		if (contain_send(fd, &len, sizeof len) ||
		    contain_send(fd, m, len))
			_exit(3);
	}
}

/* The indices that travel instead of r's event kinds and kept log rows'
 * plugin names (v: the variant simulated, NULL when it was not built). */
static int send_indices(int fd, const vs_scenario *v, const vs_result *r,
                        int64_t n_logs_kept)
{
	for (int64_t j = 0; j < r->n_events; j++) {
		int32_t k = vs_event_kind_index(r->events[j].kind);
		if (contain_send(fd, &k, sizeof k))
			return -1;
	}
	for (int64_t j = 0; j < n_logs_kept; j++) {
		int32_t k = v ? vs_contain_plugin_index(v, r->logs[j].plugin)
		              : -1;
		if (contain_send(fd, &k, sizeof k))
			return -1;
	}
	return 0;
}

static void send_result(int fd, const vs_scenario *v, const vs_result *r,
                        int sim_rc)
{
	contain_head h;
	memset(&h, 0, sizeof h);
	h.magic = CONTAIN_MAGIC;
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
	/* the parent takes them before it sends the next request */
	h.rows_in_window = rows_to_window(r);
	uint32_t end = CONTAIN_MAGIC;
	if (contain_send(fd, &h, sizeof h) ||
	    contain_send(fd, r->actors,
	                 sizeof *r->actors * (size_t)r->n_actors) ||
	    contain_send(fd, r->wheels,
	                 sizeof *r->wheels * (size_t)r->n_wheels) ||
	    (!h.rows_in_window &&
	     contain_send(fd, r->rows, sizeof *r->rows * (size_t)r->n_rows)) ||
	    contain_send(fd, r->events,
	                 sizeof *r->events * (size_t)r->n_events) ||
	    contain_send(fd, r->signals,
	                 sizeof *r->signals * (size_t)r->n_signals) ||
	    contain_send(fd, r->logs,
	                 sizeof *r->logs * (size_t)h.n_logs_kept) ||
	    contain_send(fd, r->pairs, sizeof *r->pairs * (size_t)r->n_pairs) ||
	    send_indices(fd, v, r, h.n_logs_kept))
		_exit(3);
	send_names(fd, r);
	send_messages(fd, r, h.n_logs_kept);
	if (contain_send(fd, &end, sizeof end))
		_exit(3);
}

/* Reads one whole request, n bytes into p; 0, or -1 at the end of the
 * socket (the parent is gone or done). */
static int read_request(int fd, void *p, size_t n)
{
	char *b = p;
	while (n > 0) {
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Closes every descriptor from 3 on but the n (at most 3) in keep. */
static void keep_only(int *keep, int n)
{
	for (int a = 1; a < n; a++) /* ascending */
		for (int b = a; b > 0 && keep[b] < keep[b - 1]; b--) {
			int t = keep[b];
			keep[b] = keep[b - 1];
			keep[b - 1] = t;
		}
	unsigned from = 3;
	for (int k = 0; k < n; k++) {
		unsigned fd = (unsigned)keep[k];
		if (fd > from)
			close_range(from, fd - 1, 0);
		if (fd + 1 > from)
			from = fd + 1;
	}
	close_range(from, ~0u, 0);
}

_Noreturn void contain_child(int in, int out, int print, int own,
                             contain_last_words *words, const vs_sweep *sw,
                             const vs_scenario *seed, const vs_sim_opts *so)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	__fpurge(stdout); /* the parent's pending output is the parent's */
	__fpurge(stderr);
	dup2(print, STDOUT_FILENO); /* closed below, as every other fd */
	dup2(print, STDERR_FILENO);
	setvbuf(stdout, NULL, _IOLBF, 0); /* lines out before a crash */
	/* vsweep's own lines, whole lines out before a crash; should the
	 * stream not be made, they go with the plugins' (stored, not
	 * printed): nothing lost */
	fcntl(own, F_SETFD, FD_CLOEXEC); /* not for a program a plugin runs */
	FILE *own_f = fdopen(own, "w");
	if (own_f) {
		setvbuf(own_f, NULL, _IOLBF, 0);
		vs_set_own_stderr(own_f);
	}
	/* Only our two sockets and our own pipe: a copy of another
	 * worker's would keep its child from seeing its parent's end
	 * close, or its parent from seeing it die; and the results file
	 * is the parent's alone. */
	int keep[3] = {in, out, own};
	keep_only(keep, 3);
	c_every = so->record_every > 0 ? so->record_every : 1;
	c_words = words;
	vs_sim_mirror = words->mirror; /* the parent reads it when we die mute */
	c_in = in;
	c_window_bytes = vs_test_window_bytes(CONTAIN_WINDOW_BYTES);
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
	/* a test build's hook (test_hooks.h), read once; NULL otherwise */
	const char *corrupt = vs_test_corrupt_spec();
	uint64_t i;
	while (read_request(in, &i, sizeof i) == 0) {
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
		fflush(vs_own_stderr());
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
