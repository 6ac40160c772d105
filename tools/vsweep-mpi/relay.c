/* A rank's stderr, each line naming the rank (relay.h). */
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Longer lines are said in pieces of this many bytes, each prefixed. */
enum { LINE_MAX_BYTES = 8192 };

static const char own[] = "vsweep-mpi: ";
static const char core[] = "vsweep: ";

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* stderr gone: nothing to tell it */
		p += w;
		n -= (size_t)w;
	}
}

/* One line (its newline included, or a piece of a longer one) to the
 * real stderr: vsweep's "vsweep: " replaced by the rank's prefix. */
static void say(const relay *r, const char *line, size_t n)
{
	char out[LINE_MAX_BYTES + 64];
	size_t len = 0;
	if (n >= sizeof own - 1 && !memcmp(line, own, sizeof own - 1)) {
		write_all(r->saved, line, n);
		return;
	}
	if (n >= sizeof core - 1 && !memcmp(line, core, sizeof core - 1)) {
		line += sizeof core - 1;
		n -= sizeof core - 1;
	}
	len = (size_t)snprintf(out, 64, "%srank %d: ", own, r->rank);
	memcpy(out + len, line, n);
	write_all(r->saved, out, len + n);
}

static void *relay_main(void *arg)
{
	relay *r = arg;
	char buf[LINE_MAX_BYTES];
	size_t have = 0;
	for (;;) {
		struct pollfd p = {.fd = r->rd, .events = POLLIN};
		/* 100 ms: how long a stop waits for the last lines */
		int ready = poll(&p, 1, 100);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0 && atomic_load(&r->stop))
			break;
		if (ready <= 0)
			continue;
		ssize_t got = read(r->rd, buf + have, sizeof buf - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
		size_t start = 0;
		for (size_t i = 0; i < have; i++)
			if (buf[i] == '\n') {
				say(r, buf + start, i + 1 - start);
				start = i + 1;
			}
		if (start == 0 && have == sizeof buf) {
			say(r, buf, have); /* a line longer than the buffer */
			have = 0;
		} else {
			memmove(buf, buf + start, have - start);
			have -= start;
		}
	}
	if (have > 0) {
		buf[have < sizeof buf ? have : sizeof buf - 1] = '\n';
		say(r, buf, have < sizeof buf ? have + 1 : have);
	}
	return NULL;
}

void relay_start(relay *r, int rank)
{
	int fd[2];
	memset(r, 0, sizeof *r);
	r->rank = rank;
	fflush(stderr);
	if (pipe(fd) != 0)
		return;
	/* neither end for a contained variant's process: only fd 2 */
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	r->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (r->saved < 0 || dup2(fd[1], STDERR_FILENO) < 0) {
		if (r->saved >= 0)
			close(r->saved);
		close(fd[0]);
		close(fd[1]);
		return;
	}
	close(fd[1]);
	r->rd = fd[0];
	if (pthread_create(&r->th, NULL, relay_main, r) != 0) {
		dup2(r->saved, STDERR_FILENO);
		close(r->saved);
		close(r->rd);
		return;
	}
	r->on = 1;
}

void relay_stop(relay *r)
{
	if (!r->on)
		return;
	fflush(stderr);
	/* the pipe's last writer in this process gone: the thread reads
	 * what is left, then an end (or, should a plugin's own process
	 * still hold it, the stop) */
	dup2(r->saved, STDERR_FILENO);
	atomic_store(&r->stop, 1);
	pthread_join(r->th, NULL);
	close(r->rd);
	close(r->saved);
	r->on = 0;
}
