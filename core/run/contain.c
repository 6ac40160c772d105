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
 *   waits: what a plugin prints never reaches vsweep's own output, even a
 *   line that starts as vsweep's own ("vsweep: "); it is
 *   kept in the variant's log view (level 'output', OUTPUT_ROWS_KEPT
 *   lines, each kept as a logged message is: up to VS_LOG_MESSAGE_MAX
 *   bytes whole, a longer one cut and marked, control characters and
 *   bytes that are not UTF-8 escaped; then one line saying how many
 *   more), so a crash's last words stay with the variant. Lines the
 *   child's own code prints (vs_log_add's "vsweep: variant ...") come
 *   down a second pipe, read in the same wait, and pass to vsweep's
 *   stderr whole and in order, as uncontained (escaped again: a no-op
 *   for them), whatever a plugin printed without a newline before
 *   them. The child is vsweep's own and dies with it
 *   (PR_SET_PDEATHSIG), so a killed vsweep leaves no plugin running.
 * - Memory (--variant-memory): the parent polls the child's resident set
 *   (/proc/PID/status) every MEM_POLL_MS while it waits, and reads its
 *   peak (VmHWM) when a result comes; growth past the limit over the
 *   child's size at its fork (less the pages of the window the rows
 *   travel through, contain_proto.h) fails the variant ("crashed: memory limit
 *   of N MB exceeded ..."), the child killed and replaced. Resident,
 *   not virtual, memory: what the machine runs out of; RLIMIT_AS would
 *   count the address space the parent's threads and ASan reserve, and
 *   turn a limit into a malloc failure inside host code. Before the kill
 *   the child is asked (SIGUSR1, a few times) where it is, so the reason
 *   names the plugin allocating, as a crash's does. Growth, not size:
 *   what the child shares with vsweep from the fork costs nothing new.
 *
 * Where: the two processes' code is apart, as they are. This file is the
 * child's life as the worker sees it (fork, request, reap, the reason a
 * variant failed); contain_receive.c the wait for a result (reading and
 * decoding it, the output pipe, the memory watch); contain_child.c what
 * runs in the child (variants, sending results, the crash handlers and
 * the state they share); contain_proto.h the format between them.
 * Called by runner.c's workers. */
#define _GNU_SOURCE /* memfd_create, pipe2 */
#include "run/contain.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "run/contain_parent.h"
#include "run/contain_proto.h"
#include "run/contain_check.h"
#include "run/forkserver.h"

struct vs_contain_server {
	vs_forkserver *fs;
	/* What every child gets (the server's copy, from its start). */
	const vs_sweep *sw;
	const vs_scenario *seed;
	vs_sim_opts so;
	vs_row_sink sink;
};

/* A child made by the fork server: fds are its request and result
 * sockets, its output pipe, its own lines' pipe and its last-words page
 * (a memfd). */
static void server_child(void *arg, const int *fds, int n)
{
	const vs_contain_server *s = arg;
	if (n != 5)
		_exit(3);
	contain_last_words *w = mmap(NULL, CONTAIN_SHARED_BYTES,
	                             PROT_READ | PROT_WRITE, MAP_SHARED,
	                             fds[4], 0);
	if (w == MAP_FAILED)
		_exit(3);
	contain_child(fds[0], fds[1], fds[2], fds[3], w, s->sw, s->seed,
	              &s->so);
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

vs_contain *vs_contain_create(vs_contain_server *server,
                              const vs_sweep *sw, const vs_scenario *seed,
                              long memory_mb)
{
	vs_contain *c = vs_xcalloc(1, sizeof *c);
	c->server = server;
	c->sw = sw;
	c->seed = seed;
	c->to = c->from = c->print = c->own = -1;
	c->limit_kb = memory_mb > 0 ? memory_mb * 1024 : 0;
	/* A memfd, not an anonymous mapping: a child of the fork server
	 * maps it from the descriptor it is handed. The words page, then
	 * the window (contain_proto.h; pages cost memory only once
	 * written). */
	c->words_fd = memfd_create("vsweep-last-words", MFD_CLOEXEC);
	if (c->words_fd >= 0 &&
	    ftruncate(c->words_fd, (off_t)CONTAIN_SHARED_BYTES) == 0)
		c->words = mmap(NULL, CONTAIN_SHARED_BYTES,
		                PROT_READ | PROT_WRITE, MAP_SHARED,
		                c->words_fd, 0);
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
	if (c->own >= 0)
		close(c->own);
	c->to = c->from = c->print = c->own = -1;
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
	for (int j = 0; j < c->n_out; j++)
		free(c->out[j].message); /* none between variants */
	if (c->words)
		munmap(c->words, CONTAIN_SHARED_BYTES);
	if (c->words_fd >= 0)
		close(c->words_fd);
	free(c);
}

/* kB after key ("VmRSS:", "VmHWM:") in /proc/PID/status, and the
 * shared memory resident (RssShmem) into *shmem_kb; -1 when it cannot be
 * read (the process is gone). */
static long resident_kb(pid_t pid, const char *key, long *shmem_kb)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	*shmem_kb = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *sh = strstr(buf, "RssShmem:");
	if (sh)
		*shmem_kb = strtol(sh + strlen("RssShmem:"), NULL, 10);
	const char *k = strstr(buf, key);
	return k ? strtol(k + strlen(key), NULL, 10) : -1;
}

long contain_growth_kb(const vs_contain *c, const char *key)
{
	long shmem;
	long kb = resident_kb(c->pid, key, &shmem);
	if (kb < 0)
		return -1;
	/* The window's pages: those its memfd holds (512-byte blocks),
	 * at most what the child's shared memory grew by. A plugin's own
	 * shared memory is not in the memfd, so it counts. */
	struct stat st;
	long window = fstat(c->words_fd, &st) == 0 ? (long)st.st_blocks / 2
	                                           : 0;
	long grown = shmem - c->base_shmem_kb;
	window = window < grown ? window : grown;
	return kb - c->base_kb - (window > 0 ? window : 0);
}

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

/* A variant whose child died (status st of waitpid): failed, no rows,
 * the reason. */
/* Where the child was, from the calls it mirrored (w->mirror: sim.h's
 * vs_sim_calling and vs_sim_step), for a child that died with no word
 * of its own: "in plugin P, actor A (name), step K"; "" when it was in
 * no plugin call. */
static void mirrored_where(const vs_scenario *v, const contain_last_words *w,
                           char *out, size_t size)
{
	int at = w->mirror[1];
	char plugin[256], step[48];
	out[0] = '\0';
	int i = vs_contain_call_actor(v, w->mirror[0], plugin, sizeof plugin);
	if (i < 0)
		return;
	if (at > 1)
		snprintf(step, sizeof step, ", step %d", at - 1);
	else if (at < 0)
		snprintf(step, sizeof step, ", after its steps (destroy)");
	else
		snprintf(step, sizeof step, ", before step 1");
	snprintf(out, size, "in plugin %s, actor %lld (%s)%s", plugin,
	         (long long)v->actors[i].id, v->actors[i].name, step);
}

static void crashed(vs_result *res, int st, const contain_last_words *w,
                    const vs_scenario *v)
{
	res->status = VS_VARIANT_FAILED;
	char what[128], mirrored[400] = "";
	if (!w->set)
		mirrored_where(v, w, mirrored, sizeof mirrored);
	if (WIFSIGNALED(st))
		snprintf(what, sizeof what, "signal %d (%s)", WTERMSIG(st),
		         signal_name(WTERMSIG(st)));
	else if (w->set)
		snprintf(what, sizeof what, "exit(%d) called",
		         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		/* no atexit hook ran: _Exit, quick_exit, or a raw exit
		 * system call, not exit() */
		snprintf(what, sizeof what, "its process ended with status %d",
		         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	snprintf(res->error, sizeof res->error, "crashed: %s %s", what,
	         w->set ? w->where
	         : mirrored[0] ? mirrored
	                       : "(no plugin frame found)");
}

/* Forks the child; 0, or -1 when the system refuses. */
static int start_child(vs_contain *c, const vs_sim_opts *so)
{
	int req[2], out[2], print[2], own[2];
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
	if (pipe2(own, O_CLOEXEC) != 0) {
		close(req[0]);
		close(req[1]);
		close(out[0]);
		close(out[1]);
		close(print[0]);
		close(print[1]);
		return -1;
	}
	pid_t pid = -1;
	if (c->server) {
		int fds[5] = {req[0], out[1], print[1], own[1], c->words_fd};
		pid = vs_forkserver_fork(c->server->fs, fds, 5);
	}
	if (pid < 0) {
		/* No server, or it is gone: forked here, as contained as
		 * ever, with the risk the server exists to avoid. */
		pid = fork();
		if (pid == 0)
			contain_child(req[0], out[1], print[1], own[1],
			              c->words, c->sw, c->seed, so);
	}
	close(req[0]);
	close(out[1]);
	close(print[1]);
	close(own[1]);
	if (pid < 0) {
		close(req[1]);
		close(out[0]);
		close(print[0]);
		close(own[0]);
		return -1;
	}
	fcntl(print[0], F_SETFL, O_NONBLOCK);
	fcntl(own[0], F_SETFL, O_NONBLOCK);
	c->pid = pid;
	c->to = req[1];
	c->from = out[0];
	c->print = print[0];
	c->own = own[0];
	/* Measured before the child runs a plugin: fork copied the page
	 * tables, the counters with them. */
	c->base_kb = resident_kb(pid, "VmRSS:", &c->base_shmem_kb);
	c->served = 0;
	return 0;
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
	int why = 0, sim_rc = 0, retried = 0;
	long peak = 0;
again:
	if (!c->pid && start_child(c, so) != 0)
		return vs_sim_run(variant, so, res); /* no child: uncontained */
	memset(c->words, 0, sizeof *c->words);
	uint64_t i = res->variant;
	if (contain_send(c->to, &i, sizeof i) != 0) {
		/* Died between variants (killed from outside): a new one. */
		end_child(c);
		if (start_child(c, so) != 0 || contain_send(c->to, &i, sizeof i))
			return vs_sim_run(variant, so, res);
	}
	double deadline = so->timeout > 0 ? vs_now() + so->timeout + 1.0 : 0;
	c->variant = variant;
	c->last_step = -1;
	c->bad[0] = '\0';
	why = contain_receive(c, so, &deadline, res, &sim_rc);
	res->owner = (void *)variant;
	if (why == 0 && c->limit_kb) {
		/* Grown and shrunk between two looks: the peak tells. */
		peak = contain_growth_kb(c, "VmHWM:");
		if (peak > c->limit_kb)
			why = 5;
	}
	if (why == 0) {
		/* (its actor rows' strings are the parent's: vs_contain_check) */
		contain_drain_output(c); /* flushed before the result was sent */
		contain_take_output(c, res);
		c->served++;
		return sim_rc;
	}
	/* Over the memory limit in a child that served earlier variants:
	 * the growth may be theirs (a plugin leaking across variants), and
	 * which variants a child serves depends on -j. Once, with none of
	 * this variant's rows handed on yet, it runs again in a new child,
	 * which judges it alone: the same verdict whatever -j (a review:
	 * a plugin leaking 60 MB a variant under --variant-memory 150
	 * failed variant 2 at -j 1, none at -j 2). What that child printed
	 * and logged is forgotten with it. */
	if ((why == 4 || why == 5) && !retried && c->served > 0 &&
	    c->last_step < 0) {
		vs_result gone;
		memset(&gone, 0, sizeof gone);
		contain_drain_output(c);
		contain_take_output(c, &gone);
		vs_result_finish(&gone);
		clear_partial(res);
		end_child(c);
		retried = 1;
		goto again;
	}
	if (why == 4 || why == 2)
		sample_where(c);
	/* A dead child's output ends now; a live one's is cut here. */
	contain_drain_output(c);
	clear_partial(res);
	/* Chunks it handed on are not to be stored either; the summary,
	 * computed over steps that are lost, is unknown (NULL), not the
	 * zeros clear_partial left. */
	res->rows_void = 1;
	res->summary_void = 1;
	int st = end_child(c);
	if (why == 1) {
		contain_take_output(c, res); /* forgotten with res */
		return -1;
	}
	res->status = VS_VARIANT_FAILED;
	/* the call the child mirrored, should it not answer the sample in
	 * time (a loaded machine) */
	char mirrored[400];
	mirrored_where(c->variant, c->words, mirrored, sizeof mirrored);
	const char *unsaid = mirrored[0] ? mirrored : "(no plugin frame found)";
	if (why == 2)
		snprintf(res->error, sizeof res->error, "exceeded the "
		         "wall-clock limit of %g s inside a plugin call; its "
		         "process was killed %s", so->timeout,
		         c->words->set ? c->words->where : unsaid);
	else if (why == 4)
		snprintf(res->error, sizeof res->error, "crashed: memory "
		         "limit of %ld MB exceeded %s", c->limit_kb / 1024,
		         c->words->in_plugin ? c->words->where : unsaid);
	else if (why == 6)
		snprintf(res->error, sizeof res->error, "crashed: its process "
		         "sent a malformed result (%s), as from corrupted "
		         "memory; it was killed", c->bad);
	else if (why == 5)
		snprintf(res->error, sizeof res->error, "crashed: memory "
		         "limit of %ld MB exceeded (a peak of %ld MB, after "
		         "its last step)", c->limit_kb / 1024, peak / 1024);
	else
		crashed(res, st, c->words, c->variant);
	contain_take_output(c, res);
	return 0;
}
