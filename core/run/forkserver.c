/* The fork server (forkserver.h says why).
 *
 * Protocol: one SOCK_SEQPACKET pair. A request is one byte carrying the
 * new process's descriptors (SCM_RIGHTS); the answer is its pid as an
 * int32 (-1: could not fork). A mutex makes each request and its answer
 * one exchange, whichever thread asks.
 *
 * Double fork: the server forks a middle process, which forks the new
 * one and exits at once. The caller is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so the orphan is re-parented to it, not to
 * init; the server answers only after it has reaped the middle process,
 * which the kernel does after the re-parenting, so by then waitpid works
 * for the caller. The new process arms its death signal only once its
 * parent is the caller (armed earlier, the middle's exit would fire it).
 *
 * Invariants: the server holds no descriptor but its end of the socket
 * and the standard three; a new process gets the server's end closed
 * before its entry runs (else, should the server die, the caller would
 * wait for an answer forever); the server exits when the caller's end
 * closes or the thread that started it ends. */
#define _GNU_SOURCE /* close_range */
#include "run/forkserver.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

struct vs_forkserver {
	int ctl;   /* our end of the socket */
	pid_t pid; /* the server */
	pthread_mutex_t mu;
};

/* Room for a request's descriptors (SCM_RIGHTS), aligned for cmsghdr. */
typedef union fd_buf {
	char buf[CMSG_SPACE(sizeof(int) * VS_FORKSERVER_MAX_FDS)];
	struct cmsghdr align;
} fd_buf;

/* Receives one request: its descriptors into fds (*n of them). 1, or 0
 * when the caller's end closed (or the request is not readable). */
static int receive(int ctl, int *fds, int *n)
{
	char byte;
	struct iovec iov = {&byte, 1};
	fd_buf u;
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof u.buf;
	ssize_t r;
	do
		r = recvmsg(ctl, &m, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	*n = 0;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		*n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)*n);
	}
	return 1;
}

/* In the new process: waits until the middle process is gone and the
 * caller (owner) adopted us, then arms the death signal. */
static void adopted(pid_t middle, pid_t owner)
{
	while (getppid() == middle) {
		struct timespec ts = {0, 100000}; /* 0.1 ms */
		nanosleep(&ts, NULL);
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != owner)
		_exit(0); /* the caller died meanwhile */
}

/* Forks the new process (through a middle one); its pid or -1. */
static pid_t spawn(int ctl, pid_t owner, vs_forkserver_entry entry,
                   void *arg, const int *fds, int n)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t middle = fork();
	if (middle == 0) {
		close(p[0]);
		pid_t me = getpid();
		pid_t pid = fork();
		if (pid == 0) {
			close(p[1]);
			close(ctl);
			adopted(me, owner);
			entry(arg, fds, n);
			_exit(0);
		}
		ssize_t w = write(p[1], &pid, sizeof pid);
		_exit(w == (ssize_t)sizeof pid ? 0 : 1);
	}
	close(p[1]);
	pid_t pid = -1;
	if (middle > 0) {
		ssize_t r;
		do
			r = read(p[0], &pid, sizeof pid);
		while (r < 0 && errno == EINTR);
		if (r != (ssize_t)sizeof pid)
			pid = -1;
		int st;
		while (waitpid(middle, &st, 0) < 0 && errno == EINTR)
			;
	}
	close(p[0]);
	return pid;
}

static _Noreturn void serve(int ctl, pid_t owner, vs_forkserver_entry entry,
                            void *arg)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != owner)
		_exit(0);
	/* Nothing of the caller's but the standard three: its results file
	 * above all stays the caller's alone. */
	if (ctl > 3)
		close_range(3, (unsigned)ctl - 1, 0);
	close_range((unsigned)ctl + 1, ~0u, 0);
	for (;;) {
		int fds[VS_FORKSERVER_MAX_FDS], n = 0;
		if (!receive(ctl, fds, &n))
			_exit(0);
		pid_t pid = spawn(ctl, owner, entry, arg, fds, n);
		for (int k = 0; k < n; k++)
			close(fds[k]);
		int32_t answer = (int32_t)pid;
		if (send(ctl, &answer, sizeof answer, MSG_NOSIGNAL) < 0 &&
		    errno != EINTR)
			_exit(0);
	}
}

vs_forkserver *vs_forkserver_start(vs_forkserver_entry entry, void *arg)
{
	/* Orphans of our descendants become ours: the processes the server
	 * makes, once their middle process exits. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		return NULL;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return NULL;
	pid_t owner = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		serve(sv[1], owner, entry, arg);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return NULL;
	}
	vs_forkserver *s = vs_xcalloc(1, sizeof *s);
	s->ctl = sv[0];
	s->pid = pid;
	pthread_mutex_init(&s->mu, NULL);
	return s;
}

pid_t vs_forkserver_fork(vs_forkserver *s, const int *fds, int n_fds)
{
	if (n_fds < 0 || n_fds > VS_FORKSERVER_MAX_FDS)
		return -1;
	char byte = 1;
	struct iovec iov = {&byte, 1};
	fd_buf u;
	memset(&u, 0, sizeof u);
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (n_fds > 0) {
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n_fds);
	}
	pid_t pid = -1;
	pthread_mutex_lock(&s->mu);
	ssize_t w;
	do
		w = sendmsg(s->ctl, &m, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w == 1) {
		int32_t answer;
		ssize_t r;
		do
			r = recv(s->ctl, &answer, sizeof answer, 0);
		while (r < 0 && errno == EINTR);
		if (r == (ssize_t)sizeof answer)
			pid = (pid_t)answer;
	}
	pthread_mutex_unlock(&s->mu);
	return pid;
}

void vs_forkserver_stop(vs_forkserver *s)
{
	if (!s)
		return;
	close(s->ctl); /* the server sees the end and exits */
	int st;
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_destroy(&s->mu);
	free(s);
}
