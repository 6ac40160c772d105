/* A rank's local supply of variant indices: the MPI thread pushes what the
 * coordinator hands out, the runner's workers pop (vs_index_source). */
#ifndef VSMPI_QUEUE_H
#define VSMPI_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "run/runner.h"

typedef struct mpi_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* an index arrived, or the queue closed */
	uint64_t *buf;          /* ring of cap entries */
	size_t head, len, cap;
	int closed;             /* no more will come */
	int finished;           /* the runner returned */
	vs_index_source src;    /* pops from this queue */
} mpi_queue;

void mpi_queue_init(mpi_queue *q);
void mpi_queue_finish(mpi_queue *q);

/* Appends n indices. */
void mpi_queue_push(mpi_queue *q, const uint64_t *idx, size_t n);

/* No more indices will be pushed: pops return 0 once it is empty. */
void mpi_queue_close(mpi_queue *q);

/* Indices waiting to be simulated. */
size_t mpi_queue_len(mpi_queue *q);

/* The runner has returned (set by its thread, read by the MPI thread). */
void mpi_queue_set_finished(mpi_queue *q);
int mpi_queue_finished(mpi_queue *q);

#endif
