/* A fork server: one process, forked while its parent still has a single
 * thread, that forks new processes on request for the parent's threads.
 *
 * Why: a process forked from a multi-threaded one inherits every lock
 * another thread held at that instant (an allocator's, a FILE's, the
 * dynamic loader's) and hangs when it takes one: seen with ASan's
 * allocator, possible with stdio in any build. Forked from this
 * single-threaded server, a process finds every lock free.
 *
 * The processes it makes are the caller's children (it forks twice and
 * the caller is made their subreaper): the caller waits for them, reads
 * their exit status and kills them as if it had forked them itself.
 * Used by contain.c for the runner's per-worker child processes. */
#ifndef VS_RUN_FORKSERVER_H
#define VS_RUN_FORKSERVER_H

#include <sys/types.h>

#define VS_FORKSERVER_MAX_FDS 5

/* What a new process runs: given arg (the server's copy of what it
 * pointed to when the server started) and the descriptors passed to
 * vs_forkserver_fork, in their order; never returns. */
typedef void (*vs_forkserver_entry)(void *arg, const int *fds, int n_fds);

typedef struct vs_forkserver vs_forkserver;

/* Starts the server; call while this process has one thread. NULL when
 * the system refuses (callers then fork themselves). */
vs_forkserver *vs_forkserver_start(vs_forkserver_entry entry, void *arg);

/* A new process running entry with copies of fds (n_fds at most
 * VS_FORKSERVER_MAX_FDS); a child of this process, with the death
 * signal SIGKILL when this process's main thread ends. Its pid, or -1
 * (the server is gone or could not fork). Any thread may call it. */
pid_t vs_forkserver_fork(vs_forkserver *s, const int *fds, int n_fds);

/* Ends the server (the processes it made live on); accepts NULL. */
void vs_forkserver_stop(vs_forkserver *s);

#endif
