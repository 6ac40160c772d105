/* The fork server (core/run/forkserver.c): processes it makes are the
 * caller's children, get the descriptors passed, find free a lock that
 * another of the caller's threads holds, and die with the caller. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/forkserver.h"
#include "test_forkserver.h"

/* Held by another thread of the caller while a process is made. */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

/* Writes its parent's pid down fds[0], exits 7. */
static void report_parent(void *arg, const int *fds, int n)
{
	(void)arg;
	pid_t parent = getppid();
	if (n != 1 || write(fds[0], &parent, sizeof parent) != sizeof parent)
		_exit(1);
	_exit(7);
}

/* Takes the mutex another thread of the caller holds, exits 0. */
static void take_lock(void *arg, const int *fds, int n)
{
	(void)arg;
	(void)fds;
	(void)n;
	pthread_mutex_lock(&held);
	_exit(0);
}

static void sleep_forever(void *arg, const int *fds, int n)
{
	(void)arg;
	(void)fds;
	(void)n;
	for (;;)
		pause();
}

/* Waits up to s seconds for pid to end; its wait status, or -1 when it
 * is still running. */
static int wait_for(pid_t pid, double s)
{
	for (int k = 0; k < (int)(s * 100); k++) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		struct timespec ts = {0, 10000000}; /* 10 ms */
		nanosleep(&ts, NULL);
	}
	return -1;
}

START_TEST(made_process_is_our_child_with_our_descriptors)
{
	vs_forkserver *s = vs_forkserver_start(report_parent, NULL);
	ck_assert_ptr_nonnull(s);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = vs_forkserver_fork(s, &p[1], 1);
	close(p[1]);
	ck_assert_int_gt(pid, 0);
	pid_t parent = 0;
	ck_assert_int_eq(read(p[0], &parent, sizeof parent),
	                 (ssize_t)sizeof parent);
	ck_assert_int_eq(parent, getpid());
	int st = wait_for(pid, 10);
	ck_assert(st != -1 && WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 7);
	close(p[0]);
	vs_forkserver_stop(s);
}
END_TEST

static void *hold(void *arg)
{
	int *go = arg;
	pthread_mutex_lock(&held);
	__atomic_store_n(go, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(go, __ATOMIC_SEQ_CST) != 2) {
		struct timespec ts = {0, 1000000}; /* 1 ms */
		nanosleep(&ts, NULL);
	}
	pthread_mutex_unlock(&held);
	return NULL;
}

/* The reason for the server: fork() from a thread while another holds a
 * lock gives a child that waits for that lock forever; the server's
 * process finds it free. */
START_TEST(lock_held_by_another_thread_is_free_in_made_process)
{
	vs_forkserver *s = vs_forkserver_start(take_lock, NULL);
	ck_assert_ptr_nonnull(s);
	int go = 0;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, hold, &go), 0);
	while (__atomic_load_n(&go, __ATOMIC_SEQ_CST) != 1)
		sched_yield();
	/* The hazard, shown: a plain fork's child is stuck. */
	pid_t direct = fork();
	if (direct == 0)
		take_lock(NULL, NULL, 0);
	ck_assert_int_gt(direct, 0);
	ck_assert_int_eq(wait_for(direct, 0.5), -1);
	kill(direct, SIGKILL);
	waitpid(direct, NULL, 0);
	/* The server's is not. */
	pid_t pid = vs_forkserver_fork(s, NULL, 0);
	ck_assert_int_gt(pid, 0);
	int st = wait_for(pid, 10);
	ck_assert_msg(st != -1, "the made process waits for the lock");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	__atomic_store_n(&go, 2, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	vs_forkserver_stop(s);
}
END_TEST

/* 'Z' or 'X' in /proc/PID/stat, or gone: not running. */
static int running(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' &&
	       close_paren[2] != 'X';
}

START_TEST(made_process_dies_with_the_caller)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t caller = fork();
	if (caller == 0) {
		close(p[0]);
		vs_forkserver *s = vs_forkserver_start(sleep_forever, NULL);
		pid_t pid = s ? vs_forkserver_fork(s, NULL, 0) : -1;
		if (write(p[1], &pid, sizeof pid) != sizeof pid)
			_exit(1);
		_exit(0); /* killed: the server and what it made go too */
	}
	close(p[1]);
	pid_t pid = -1;
	ck_assert_int_eq(read(p[0], &pid, sizeof pid), (ssize_t)sizeof pid);
	close(p[0]);
	ck_assert_int_gt(pid, 0);
	waitpid(caller, NULL, 0);
	int k = 0;
	while (running(pid) && k++ < 500) {
		struct timespec ts = {0, 10000000}; /* 10 ms */
		nanosleep(&ts, NULL);
	}
	ck_assert_msg(!running(pid), "process %d outlived its caller",
	              (int)pid);
}
END_TEST

TCase *forkserver_tcase(void)
{
	TCase *t = tcase_create("forkserver");
	tcase_add_test(t, made_process_is_our_child_with_our_descriptors);
	tcase_add_test(t, lock_held_by_another_thread_is_free_in_made_process);
	tcase_add_test(t, made_process_dies_with_the_caller);
	return t;
}
