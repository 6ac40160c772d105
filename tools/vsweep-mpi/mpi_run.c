/* One rank of vsweep-mpi at work (the protocol is in mpi_run.h): the
 * runner in a thread of its own, fed by a local queue, while the main
 * thread talks MPI. Called by main.c's run() on every rank.
 *
 * Invariants: only the main thread calls MPI (MPI_THREAD_FUNNELED); the
 * runner thread touches only the queue (under its mutex) and its own
 * run_thread, which the main thread reads after mpi_queue_finished says
 * the runner returned (the queue's mutex orders the two). Rank 0 hands
 * each index out once, ascending (plan_take); a rank's DONE is sent once,
 * after its runner returned and its last ASK was answered. */
#include "mpi_run.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"

enum { TAG_ASK = 1, TAG_WORK = 2, TAG_DONE = 3 };
enum { MAX_CHUNK = 64 };   /* a WORK message's capacity */
enum { DONE_LEN = 6 };

/* The runner, in a thread of its own while the main thread talks MPI. */
typedef struct run_thread {
	mpi_ctx *c;
	mpi_queue *q;
	vs_run_summary sum;
	vs_error err;
	vs_rc rc;
} run_thread;

static void *run_main(void *arg)
{
	run_thread *t = arg;
	t->rc = vs_run(t->c->seed, t->c->sw, t->c->reg, &t->c->opts, &t->sum,
	               &t->err);
	/* Whatever is still queued will not be simulated: its variants stay
	 * missing, which a resume fills in. */
	mpi_queue_set_finished(t->q);
	return NULL;
}

static void pause_briefly(void)
{
	/* 1 ms: short next to a variant, long enough not to take a core. */
	struct timespec ts = {0, 1000000};
	nanosleep(&ts, NULL);
}

/* The launcher (mpirun, orted, srun's step daemon) is our parent; if it
 * died, MPI calls may hang forever: stop and leave without them. */
static int launcher_died(pid_t parent)
{
	return getppid() != parent;
}

/* Coordinator state on rank 0. */
typedef struct coord {
	mpi_ctx *c;
	int halt;             /* hand out nothing more (stop or failure) */
	int n_done;           /* DONE messages received */
	mpi_tally total;
} coord;

/* How many variants to hand a rank that wants `want`: fewer near the end
 * so that the last ones spread over the ranks. */
static uint64_t grant(coord *k, uint64_t want, uint64_t *idx)
{
	mpi_plan *p = k->c->plan;
	if (k->halt)
		return 0;
	uint64_t fair = (p->remaining + 2 * (uint64_t)k->c->size - 1) /
	                (2 * (uint64_t)k->c->size);
	uint64_t n = want;
	if (n > fair)
		n = fair;
	if (n > (uint64_t)k->c->chunk)
		n = (uint64_t)k->c->chunk;
	if (n > MAX_CHUNK)
		n = MAX_CHUNK;
	if (n < 1)
		n = 1;
	return plan_take(p, n, idx);
}

static void add_tally(mpi_tally *to, const int64_t *m)
{
	to->rc = vs_rc_worst((vs_rc)to->rc, (vs_rc)m[0]);
	to->done += m[1];
	to->failed += m[2];
	to->actor_steps += m[3];
	to->interrupted |= m[4];
	to->crashed += m[5];
}

static void pack_done(const run_thread *t, int64_t *m)
{
	m[0] = (int64_t)t->rc;
	m[1] = (int64_t)t->sum.done;
	m[2] = (int64_t)t->sum.failed;
	m[3] = t->sum.actor_steps;
	m[4] = t->sum.interrupted || vs_run_stop;
	m[5] = (int64_t)t->sum.crashed;
}

/* Answers every ASK and DONE that has arrived. */
static void serve(coord *k)
{
	int flag;
	MPI_Status st;
	for (;;) {
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			break;
		int64_t want = 0;
		MPI_Recv(&want, 1, MPI_INT64_T, st.MPI_SOURCE, TAG_ASK,
		         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		uint64_t idx[MAX_CHUNK];
		uint64_t n = grant(k, want > 0 ? (uint64_t)want : 1, idx);
		MPI_Send(idx, (int)n, MPI_INT64_T, st.MPI_SOURCE, TAG_WORK,
		         MPI_COMM_WORLD);
	}
	for (;;) {
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			break;
		int64_t m[DONE_LEN];
		MPI_Recv(m, DONE_LEN, MPI_INT64_T, st.MPI_SOURCE, TAG_DONE,
		         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		add_tally(&k->total, m);
		/* A rank that failed or stopped: the sweep will not be whole
		 * this time, so stop handing out work. */
		if (m[0] != 0 || m[4])
			k->halt = 1;
		k->n_done++;
	}
}

static int run_coordinator(mpi_ctx *c, mpi_queue *q, run_thread *t,
                           pid_t parent, mpi_tally *tally)
{
	coord k = {0};
	k.c = c;
	int own_closed = 0;
	for (;;) {
		if (vs_run_stop)
			k.halt = 1;
		/* Rank 0's own runner draws from the plan directly. */
		if (!own_closed && (k.halt || c->plan->remaining == 0 ||
		                    mpi_queue_finished(q))) {
			mpi_queue_close(q);
			own_closed = 1;
		}
		if (!own_closed && mpi_queue_len(q) < (size_t)c->jobs) {
			uint64_t idx[MAX_CHUNK];
			uint64_t n = grant(&k, (uint64_t)c->jobs, idx);
			mpi_queue_push(q, idx, n);
		}
		if (c->size > 1)
			serve(&k);
		if (mpi_queue_finished(q)) {
			if (t->rc != 0)
				k.halt = 1;
			if (k.n_done == c->size - 1)
				break;
		}
		if (c->size > 1 && launcher_died(parent))
			return -1;
		pause_briefly();
	}
	int64_t m[DONE_LEN];
	pack_done(t, m);
	add_tally(&k.total, m);
	*tally = k.total;
	return 0;
}

static int run_worker(mpi_ctx *c, mpi_queue *q, run_thread *t, pid_t parent,
                      mpi_tally *tally)
{
	int asking = 0, closed = 0;
	int64_t buf[MAX_CHUNK];
	MPI_Request req = MPI_REQUEST_NULL;
	int want = c->jobs < c->chunk ? c->jobs : c->chunk;
	if (want > MAX_CHUNK)
		want = MAX_CHUNK;
	for (;;) {
		if (vs_run_stop || mpi_queue_finished(q)) {
			/* No new work; an outstanding ASK is still answered. */
			mpi_queue_close(q);
			closed = 1;
		}
		if (!asking && !closed && mpi_queue_len(q) < (size_t)c->jobs) {
			int64_t w = want;
			MPI_Send(&w, 1, MPI_INT64_T, 0, TAG_ASK, MPI_COMM_WORLD);
			MPI_Irecv(buf, MAX_CHUNK, MPI_INT64_T, 0, TAG_WORK,
			          MPI_COMM_WORLD, &req);
			asking = 1;
		}
		if (asking) {
			int flag = 0, n = 0;
			MPI_Status st;
			MPI_Test(&req, &flag, &st);
			if (flag) {
				asking = 0;
				MPI_Get_count(&st, MPI_INT64_T, &n);
				if (n == 0) {
					mpi_queue_close(q);
					closed = 1;
				} else if (!closed) {
					mpi_queue_push(q, (uint64_t *)buf,
					               (size_t)n);
				}
				continue;
			}
		}
		if (!asking && mpi_queue_finished(q))
			break;
		if (launcher_died(parent))
			return -1;
		pause_briefly();
	}
	int64_t m[DONE_LEN];
	pack_done(t, m);
	MPI_Send(m, DONE_LEN, MPI_INT64_T, 0, TAG_DONE, MPI_COMM_WORLD);
	tally->rc = m[0];
	tally->done = m[1];
	tally->failed = m[2];
	tally->actor_steps = m[3];
	tally->interrupted = m[4];
	tally->crashed = m[5];
	return 0;
}

int mpi_run(mpi_ctx *c, mpi_tally *tally)
{
	memset(tally, 0, sizeof *tally);
	pid_t parent = getppid();
	mpi_queue q;
	mpi_queue_init(&q);
	c->opts.source = &q.src;
	run_thread t = {0};
	t.c = c;
	t.q = &q;
	pthread_t th;
	int started = pthread_create(&th, NULL, run_main, &t) == 0;
	if (!started) {
		fprintf(stderr, "vsweep-mpi: rank %d: cannot start a thread\n",
		        c->rank);
		t.rc = VS_RC_IO;
		mpi_queue_set_finished(&q);
	}
	int rc = c->rank == 0 ? run_coordinator(c, &q, &t, parent, tally)
	                      : run_worker(c, &q, &t, parent, tally);
	if (rc) {
		/* The launcher is gone: let the runner commit what it has and
		 * leave; the caller exits without MPI. */
		vs_run_stop = 1;
		mpi_queue_close(&q);
	}
	if (started)
		pthread_join(th, NULL);
	if (t.rc != 0)
		fprintf(stderr, "vsweep-mpi: rank %d: %s\n", c->rank, t.err.msg);
	mpi_queue_finish(&q);
	return rc;
}
