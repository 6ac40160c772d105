/* A rank's local queue of variant indices (queue.h): mpi_run.c's main
 * thread pushes what rank 0 hands out and closes it; the runner's workers
 * pop through the vs_index_source it exposes (the runner serialises the
 * pops). Invariants: every access is under mu; indices leave in the
 * order they came, each once; after close, pops drain what is left and
 * then return 0; after vs_run_stop, pops return 0 at once. */
#include "queue.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"

/* The runner's vs_index_source: waits for an index, the queue's closing
 * or a stop request (vs_run_stop, set by a signal, has no condition
 * variable to wake us: hence the timed wait). */
static int queue_next(void *ctx, uint64_t *i)
{
	mpi_queue *q = ctx;
	int got = 0;
	pthread_mutex_lock(&q->mu);
	while (q->len == 0 && !q->closed && !vs_run_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&q->cv, &q->mu, &ts);
	}
	if (q->len > 0 && !vs_run_stop) {
		*i = q->buf[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
		got = 1;
	}
	pthread_mutex_unlock(&q->mu);
	return got;
}

void mpi_queue_init(mpi_queue *q)
{
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->cap = 64;
	q->buf = vs_xcalloc(q->cap, sizeof *q->buf);
	q->src.next = queue_next;
	q->src.ctx = q;
}

void mpi_queue_finish(mpi_queue *q)
{
	free(q->buf);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
}

void mpi_queue_push(mpi_queue *q, const uint64_t *idx, size_t n)
{
	pthread_mutex_lock(&q->mu);
	if (q->len + n > q->cap) {
		size_t cap = q->cap;
		while (q->len + n > cap)
			cap *= 2;
		uint64_t *buf = vs_xcalloc(cap, sizeof *buf);
		for (size_t k = 0; k < q->len; k++)
			buf[k] = q->buf[(q->head + k) % q->cap];
		free(q->buf);
		q->buf = buf;
		q->cap = cap;
		q->head = 0;
	}
	for (size_t k = 0; k < n; k++)
		q->buf[(q->head + q->len + k) % q->cap] = idx[k];
	q->len += n;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void mpi_queue_close(mpi_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

size_t mpi_queue_len(mpi_queue *q)
{
	pthread_mutex_lock(&q->mu);
	size_t n = q->len;
	pthread_mutex_unlock(&q->mu);
	return n;
}

void mpi_queue_set_finished(mpi_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->finished = 1;
	pthread_mutex_unlock(&q->mu);
}

int mpi_queue_finished(mpi_queue *q)
{
	pthread_mutex_lock(&q->mu);
	int f = q->finished;
	pthread_mutex_unlock(&q->mu);
	return f;
}
