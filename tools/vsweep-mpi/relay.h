/* A rank's stderr while it simulates. vs_run prints what `vsweep run`
 * prints as a variant goes: its failure ("vsweep: variant N: failed:
 * REASON"), its plugins' messages and the notices of their caps. Under
 * mpirun every rank's lines arrive mixed on one terminal, so each line is
 * said as "vsweep-mpi: rank R: ..." instead: the rank's fd 2 becomes a
 * pipe (contained variants' processes inherit it) that a thread of its
 * own reads, writing the lines, prefixed, to the real stderr. A line
 * vsweep-mpi itself prints ("vsweep-mpi: ...") passes as it is. */
#ifndef VSMPI_RELAY_H
#define VSMPI_RELAY_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct relay {
	int rank;
	int saved;            /* the real stderr */
	int rd;               /* the pipe's end the thread reads */
	atomic_int stop;
	pthread_t th;
	int on;               /* started: stop undoes it */
} relay;

/* From now on this process's stderr goes through r; when that cannot be
 * set up, stderr stays as it is (the lines then keep "vsweep: "). */
void relay_start(relay *r, int rank);

/* The real stderr again, every line written before said. */
void relay_stop(relay *r);

#endif
