/* Running a sweep into a results file: vs_run, called by `vsweep run`
 * (tools/vsweep/main.c), by every rank of vsweep-mpi on its part file (its
 * own thread, fed by an index source: tools/vsweep-mpi/mpi_run.c) and by
 * the unit tests (tests/unit/run).
 *
 * Threads: opts->jobs simulation workers (POSIX threads) and one writer,
 * the calling thread, which alone touches the store. They meet in one
 * pthread mutex (mu) with two condition variables (ready: a slot was
 * filled; space: the writer moved on); a second mutex (src_mu) serialises
 * the index source. One model, no OpenMP: condition variables are what
 * the writer needs to wait for one particular result, and OpenMP has
 * none. Variants are simulated independently, so which worker simulates
 * which variant never changes a stored bit. With opts->contain each
 * worker simulates in a child process of its own (contain.c), so that a
 * plugin's crash or hang costs one variant; the threads stay as they are.
 *
 * Invariants:
 * - The slot window: results are numbered j = 0, 1, ... in the order the
 *   source yields their indices; j is taken only while j < written +
 *   window, so at most WINDOW_PER_JOB x jobs + 2 results wait, and result j
 *   lives in slots[j % window] until stored.
 * - Bounded memory whatever a variant's length: a worker's rows go to its
 *   slot in chunks of CHUNK_BYTES as they are made (vs_row_sink, the
 *   feed below). The chunks waiting for the writer, all slots together,
 *   hold at most QUEUE_BYTES_PER_JOB x jobs (queued), plus one per
 *   worker: a worker whose slot already has a chunk waiting waits while
 *   that budget is spent. The writer stores the chunks of variant j only
 *   when j is next (written), so workers on later variants fill the
 *   budget and wait, the one whose variant is stored never does. A
 *   variant that never fills a chunk (most) is handed over whole, as
 *   before; the rest of a streamed one is less than a chunk.
 * - The writer stores strictly in j order (written is the next j), so
 *   the file's rows, in storing order, are the same for any -j.
 * - Commit policy: whole variants only, a commit every
 *   VS_RUN_COMMIT_ROWS state rows or COMMIT_SECONDS, and at the end; a
 *   kill loses at most the open transaction, which a resume simulates
 *   again. A streamed variant's chunks are stored in a savepoint of that
 *   transaction (vs_store_variant_begin): committed only with its variant
 *   row, and dropped when it crashed (contain.c: its rows are void) or
 *   stopped. So the transaction is committed only where no variant is
 *   half stored, and is never held open by a variant not yet stored:
 *   the writer waiting for the next variant commits what it stored once
 *   COMMIT_SECONDS have passed (a slow or hung variant does not keep the
 *   finished ones before it from the file), and a streamed variant still
 *   being simulated starts a transaction of its own at its first chunk
 *   (what came before is not kept waiting for its end).
 * - A stop (vs_run_stop from a signal, or R->stop when the writer fails)
 *   ends the taking of new numbers; results already taken are stored
 *   unless the writer failed; the file stays consistent. */
#include "run/runner.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/quota.h"
#include "common/util.h"
#include "run/contain.h"
#include "run/journal.h"
#include "run/room.h"
#include "run/run_record.h"
#include "sim/sim.h"
#include "sim/test_hooks.h"

volatile sig_atomic_t vs_run_stop;

/* A commit every VS_RUN_COMMIT_ROWS state rows (runner.h) or
 * COMMIT_SECONDS, whichever comes first: large enough that commits cost
 * little, small enough that a kill loses little work and that `vsweep
 * status` is current. Whole variants only, always. */
#define COMMIT_SECONDS 1.0

/* Bytes of state and signal rows a worker holds before it hands them on
 * (about 5 700 state rows): large enough that a hand-off costs nothing
 * next to storing it, small enough that a slot's rest of a variant is
 * little memory. */
#ifndef CHUNK_BYTES /* a build may set them, to test streaming */
#define CHUNK_BYTES ((size_t)1 << 20)
#endif
/* Bytes of chunks waiting for the writer, per worker: how far workers on
 * later variants may run ahead of the one being stored. */
#ifndef QUEUE_BYTES_PER_JOB
#define QUEUE_BYTES_PER_JOB ((size_t)16 << 20)
#endif
/* Results in flight per worker: enough that a slow variant does not stall
 * the others. */
#define WINDOW_PER_JOB 4

enum slot_state { SLOT_EMPTY, SLOT_READY, SLOT_ABORTED };

/* A chunk of a variant's rows, handed on while it runs: rows, signals
 * and (a copy of) signal_names and signal_units. */
typedef struct chunk {
	struct chunk *next;
	vs_result part;
	size_t bytes;         /* of its arrays */
} chunk;

typedef struct slot {
	enum slot_state state;
	vs_result res;
	vs_scenario *variant; /* owns the strings res points into */
	chunk *first, *last;  /* its chunks not yet stored, stored before res */
} slot;

/* The default index source: the shard's sequence k + j·n from j = first. */
typedef struct shard_seq {
	uint64_t k, n;
	uint64_t j, total;    /* next shard-local index; the shard's count */
} shard_seq;

static int shard_next(void *ctx, uint64_t *i)
{
	shard_seq *q = ctx;
	if (q->j >= q->total)
		return 0;
	*i = q->k + q->j++ * q->n;
	return 1;
}

/* One run's shared state; the file's opening comment gives the rules. */
typedef struct runner {
	const vs_scenario *seed;
	const vs_sweep *sw;
	const vs_run_opts *opts;
	const vs_index_source *src;
	vs_contain_server *server; /* forks the workers' children, or NULL */
	int own_src;          /* src is the shard's sequence */
	uint64_t total;       /* variants in this shard (own_src only) */
	uint64_t next;        /* number of the next index taken (under mu) */
	uint64_t written;     /* number the writer wants next */
	uint64_t window;      /* results in flight, at most */
	int exhausted;        /* the source said no more (under mu) */
	slot *slots;
	/* Held across src->next() and the numbering that follows, so that
	 * numbers follow the source's order; never while waiting for the
	 * writer's mu alone, so a slow source never blocks the writer. */
	pthread_mutex_t src_mu;
	pthread_mutex_t mu;
	pthread_cond_t ready; /* a slot was filled */
	pthread_cond_t space; /* the writer advanced */
	atomic_int stop;      /* the writer failed: take nothing more */
	vs_error io_err;
	vs_run_summary *sum;
	vs_journal *journal;  /* crashes not yet stored (journal.c) */
	size_t queued;        /* bytes of chunks not yet freed (under mu) */
	size_t queue_max;     /* the budget for queued */
	int progress_open;    /* a progress line is on stderr, unended
	                       * (the writer's) */
	int stop_said;        /* the writer acknowledged vs_run_stop */
} runner;

static int stopping(runner *R)
{
	return atomic_load(&R->stop) || vs_run_stop;
}

/* Waits on cv for at most 100 ms, so that a waiter notices a signal's
 * vs_run_stop (which no one broadcasts). */
static void wait_tick(pthread_cond_t *cv, pthread_mutex_t *mu)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}

/* A worker's hand-off of its variant's rows while it runs (the context
 * of its vs_row_sink). */
typedef struct feed {
	runner *R;
	uint64_t j;         /* the number of the variant simulated */
	double waited;      /* s waited for the writer in this variant */
	vs_row_sink sink;
} feed;

/* vs_row_sink.flush: moves r's rows into a chunk at the end of variant
 * j's slot, once the budget has room (or the slot has no chunk: the one
 * being stored always goes on); -1 when the run stops meanwhile. */
static int feed_flush(void *ctx, vs_result *r)
{
	feed *f = ctx;
	runner *R = f->R;
	double t0 = vs_now();
	chunk *k = vs_xcalloc(1, sizeof *k);
	k->part.variant = r->variant;
	k->part.rows = r->rows;
	k->part.n_rows = k->part.cap_rows = r->n_rows;
	k->part.signals = r->signals;
	k->part.n_signals = k->part.cap_signals = r->n_signals;
	k->part.pairs = r->pairs;
	k->part.n_pairs = k->part.cap_pairs = r->n_pairs;
	k->bytes = (size_t)r->n_rows * sizeof *r->rows +
	           (size_t)r->n_signals * sizeof *r->signals +
	           (size_t)r->n_pairs * sizeof *r->pairs;
	if (r->n_signals > 0) {
		/* A copy: r's names may go (a crash) before the chunk is
		 * stored. */
		size_t m = (size_t)r->n_signal_names + 1;
		k->part.signal_names = vs_xcalloc(m, sizeof *k->part.signal_names);
		k->part.signal_units = vs_xcalloc(m, sizeof *k->part.signal_units);
		for (int n = 0; n < r->n_signal_names; n++) {
			k->part.signal_names[n] = vs_strdup(r->signal_names[n]);
			k->part.signal_units[n] = vs_strdup(r->signal_units[n]);
		}
		k->part.n_signal_names = r->n_signal_names;
	}
	r->rows = NULL;
	r->signals = NULL;
	r->pairs = NULL;
	r->n_rows = r->cap_rows = 0;
	r->n_signals = r->cap_signals = 0;
	r->n_pairs = r->cap_pairs = 0;
	slot *s = &R->slots[f->j % R->window];
	pthread_mutex_lock(&R->mu);
	while (s->first && R->queued + k->bytes > R->queue_max &&
	       !stopping(R))
		wait_tick(&R->space, &R->mu);
	int go = !stopping(R);
	if (go) {
		if (s->last)
			s->last->next = k;
		else
			s->first = k;
		s->last = k;
		R->queued += k->bytes;
		pthread_cond_broadcast(&R->ready);
	}
	pthread_mutex_unlock(&R->mu);
	if (!go) {
		vs_result_finish(&k->part);
		free(k);
	}
	f->waited += vs_now() - t0;
	return go ? 0 : -1;
}

/* The options every variant of the run is simulated with, its rows
 * handed to sink. */
static vs_sim_opts sim_opts(const vs_run_opts *o, const vs_row_sink *sink)
{
	vs_sim_opts so = {o->record_every, &vs_run_stop, o->variant_timeout,
	                  o->no_wheels, o->no_map, o->signals, o->plugin_log,
	                  o->no_state, o->pairs, o->pair_range, sink};
	return so;
}

/* Builds and simulates variant i into s; in c's child process when c is
 * not NULL. */
static void simulate(runner *R, vs_contain *c, feed *f, uint64_t i, slot *s)
{
	const vs_run_opts *o = R->opts;
	double t0 = vs_now();
	vs_result *res = &s->res;
	memset(res, 0, sizeof *res);
	res->variant = i;
	vs_error err = {{0}};
	s->variant = vs_sweep_variant(R->sw, R->seed, i, &res->params_json,
	                              &err);
	if (!s->variant) {
		/* Cannot happen after validation; stored, not fatal. */
		res->status = VS_VARIANT_FAILED;
		res->summary_void = 1; /* nothing simulated */
		snprintf(res->error, sizeof res->error, "%s", err.msg);
		s->state = SLOT_READY;
		return;
	}
	if (vs_journal_crash(R->journal, i, res)) {
		/* Crashed in a run killed before storing it: again would be
		 * the same crash, or a resume that never ends. Its steps
		 * were lost with its process: no rows and no summary, as
		 * then; its reason and log rows are the journal's. */
		res->status = VS_VARIANT_FAILED;
		res->summary_void = 1;
		s->state = SLOT_READY;
		return;
	}
	vs_sim_opts so = sim_opts(o, &f->sink);
	int rc = c ? vs_contain_run(c, s->variant, &so, res)
	           : vs_sim_run(s->variant, &so, res);
	/* Its own time, not the writer's it waited for. */
	res->wall_seconds = vs_now() - t0 - f->waited;
	if (rc == 0 && res->status != VS_VARIANT_DONE &&
	    strncmp(res->error, "crashed:", 8) == 0)
		vs_journal_add(R->journal, res);
	s->state = rc == 0 ? SLOT_READY : SLOT_ABORTED;
}

/* Frees a chunk taken from a slot; under mu. */
static void chunk_free(runner *R, chunk *k)
{
	R->queued -= k->bytes;
	vs_result_finish(&k->part);
	free(k);
}

/* Empties a slot; under mu (or with no worker left). */
static void release(runner *R, slot *s)
{
	while (s->first) {
		chunk *k = s->first;
		s->first = k->next;
		chunk_free(R, k);
	}
	s->last = NULL;
	vs_result_finish(&s->res);
	vs_scenario_destroy(s->variant);
	s->variant = NULL;
	s->state = SLOT_EMPTY;
}

/* Takes the next variant index i from the source and numbers it j, once
 * the window has room for result j. Returns 0 when none will come. */
static int take(runner *R, uint64_t *j, uint64_t *i)
{
	int got = 0;
	pthread_mutex_lock(&R->src_mu);
	pthread_mutex_lock(&R->mu);
	/* Only the src_mu holder numbers results, so the room found here is
	 * still there after next() returns. */
	while (!stopping(R) && !R->exhausted &&
	       R->next >= R->written + R->window)
		pthread_cond_wait(&R->space, &R->mu);
	int go = !stopping(R) && !R->exhausted;
	pthread_mutex_unlock(&R->mu);
	if (go) {
		got = R->src->next(R->src->ctx, i);
		pthread_mutex_lock(&R->mu);
		if (got)
			*j = R->next++;
		else
			R->exhausted = 1;
		pthread_mutex_unlock(&R->mu);
	}
	pthread_mutex_unlock(&R->src_mu);
	if (!got)
		pthread_cond_broadcast(&R->ready); /* the writer may be done */
	return got;
}

/* MB a worker's child may grow by (vs_run_opts.variant_memory); 0: none.
 * The default, half the machine shared by the workers, leaves the other
 * half to vsweep itself (SQLite's cache, results in flight: a few chunks
 * per slot). */
static long variant_memory_mb(const vs_run_opts *o)
{
	if (o->variant_memory != 0)
		return o->variant_memory > 0 ? o->variant_memory : 0;
	double ram = (double)sysconf(_SC_PHYS_PAGES) *
	             (double)sysconf(_SC_PAGESIZE) / 1048576.0; /* MB */
	return ram > 0 ? (long)(ram / (2.0 * o->jobs)) : 0;
}

static void *worker(void *arg)
{
	runner *R = arg;
	uint64_t j, i;
	vs_contain *c = R->opts->contain
	                ? vs_contain_create(R->server, R->sw, R->seed,
	                                    variant_memory_mb(R->opts))
	                : NULL;
	feed f = {R, 0, 0, {feed_flush, NULL, CHUNK_BYTES}};
	f.sink.ctx = &f;
	while (take(R, &j, &i)) {
		slot local = {0};
		f.j = j;
		f.waited = 0;
		simulate(R, c, &f, i, &local);

		pthread_mutex_lock(&R->mu);
		/* Not the chunks: the writer may be storing them. */
		slot *s = &R->slots[j % R->window];
		s->res = local.res;
		s->variant = local.variant;
		s->state = local.state;
		pthread_cond_broadcast(&R->ready);
		pthread_mutex_unlock(&R->mu);
	}
	vs_contain_destroy(c);
	return NULL;
}

static void progress(runner *R, double t0, int final)
{
	vs_run_summary *s = R->sum;
	double dt = vs_now() - t0;
	uint64_t n = s->done + s->failed;
	double rate = dt > 0 ? (double)s->actor_steps / dt : 0;
	char crashed[48] = ""; /* said only when some did */
	if (s->crashed)
		snprintf(crashed, sizeof crashed, " (%llu crashed)",
		         (unsigned long long)s->crashed);
	if (!R->own_src) {
		/* A source does not say how many will come: no total, no ETA. */
		fprintf(stderr, "\rvsweep: %llu variants, %llu failed%s, %.3g "
		        "actor-steps/s%s%s   %s", (unsigned long long)n,
		        (unsigned long long)s->failed, crashed, rate,
		        R->opts->progress_note ? "; " : "",
		        R->opts->progress_note ? R->opts->progress_note : "",
		        final ? "\n" : "");
		fflush(stderr);
		R->progress_open = !final;
		return;
	}
	double vps = dt > 0 ? (double)n / dt : 0;
	uint64_t left = R->total - s->skipped - n;
	double eta = vps > 0 ? (double)left / vps : 0;
	fprintf(stderr,
	        "\rvsweep: %llu/%llu variants, %llu failed%s, %.3g "
	        "actor-steps/s, ETA %d:%02d:%02d%s%s   %s",
	        (unsigned long long)(s->skipped + n),
	        (unsigned long long)R->total, (unsigned long long)s->failed,
	        crashed, rate, (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60,
	        R->opts->progress_note ? "; " : "",
	        R->opts->progress_note ? R->opts->progress_note : "",
	        final ? "\n" : "");
	fflush(stderr);
	R->progress_open = !final;
}

/* Tells, once, that a stop (a signal's vs_run_stop) was seen: a variant
 * inside a slow plugin call may hold its worker for minutes before it
 * sees the stop, and without a word Ctrl-C seems ignored. Tests wait for
 * this line to know the signal was taken: until its handler has run (on
 * whichever thread the kernel chose, once scheduled), a worker may still
 * begin variants. */
static void say_stop(runner *R)
{
	R->stop_said = 1;
	fprintf(stderr, "%svsweep: stopping: no variant begins; those in "
	        "progress are stopped and not stored\n",
	        R->progress_open ? "\n" : "");
	fflush(stderr);
	R->progress_open = 0;
}

/* What the writer finds at the number it stores next. */
typedef enum next_kind {
	NEXT_NONE,    /* none will come */
	NEXT_CHUNK,   /* a chunk of its rows; more will come */
	NEXT_RESULT,  /* the rest of it: done or failed */
	NEXT_ABORTED, /* stopped: not to be stored */
	NEXT_LATE     /* nothing yet, and the caller's time is up */
} next_kind;

/* Waits for the next thing to store, in order, in *out; until the time
 * until (vs_now; 0: no limit), one tick late at most, then NEXT_LATE. */
static next_kind next_ready(runner *R, slot **out, double until)
{
	slot *s = &R->slots[R->written % R->window];
	next_kind k = NEXT_NONE;
	pthread_mutex_lock(&R->mu);
	for (;;) {
		/* Chunks first: the result comes after its last chunk. */
		if (s->first) {
			k = NEXT_CHUNK;
			break;
		}
		if (s->state != SLOT_EMPTY) {
			k = s->state == SLOT_READY ? NEXT_RESULT : NEXT_ABORTED;
			break;
		}
		/* Nobody took this number and nobody will. */
		if ((stopping(R) || R->exhausted) && R->next <= R->written)
			break;
		if (vs_run_stop && !R->stop_said) {
			/* not under mu: stderr may be a pipe slow to drain */
			pthread_mutex_unlock(&R->mu);
			say_stop(R);
			pthread_mutex_lock(&R->mu);
			continue;
		}
		if (until > 0 && vs_now() >= until) {
			k = NEXT_LATE;
			break;
		}
		wait_tick(&R->ready, &R->mu);
	}
	pthread_mutex_unlock(&R->mu);
	*out = s;
	return k;
}

/* The writer's state between two things stored. */
typedef struct wstate {
	int in_tx;            /* whole variants only, unless streaming */
	double tx_start;      /* s (vs_now) the transaction began */
	int64_t tx_rows;      /* state rows in it */
	int streaming;        /* the next variant is begun (chunks stored) */
	int64_t streamed;     /* its rows stored so far */
} wstate;

/* Stores the first chunk in s, the next variant's; 0, or -1 with
 * R->io_err. */
static int store_chunk(runner *R, vs_store *st, wstate *w, slot *s)
{
	/* Taken off the list first: the worker may append meanwhile. */
	pthread_mutex_lock(&R->mu);
	chunk *k = s->first;
	s->first = k->next;
	if (!s->first)
		s->last = NULL;
	pthread_mutex_unlock(&R->mu);
	int rc = 0;
	if (!w->streaming &&
	    vs_store_variant_begin(st, k->part.variant, &R->io_err))
		rc = -1;
	else
		w->streaming = 1;
	if (!rc && vs_store_variant_rows(st, &k->part, &R->io_err))
		rc = -1;
	if (!rc) {
		w->tx_rows += k->part.n_rows;
		w->streamed += k->part.n_rows;
		R->sum->actor_steps += k->part.n_rows * R->opts->record_every;
	}
	pthread_mutex_lock(&R->mu);
	chunk_free(R, k);
	pthread_cond_broadcast(&R->space);
	pthread_mutex_unlock(&R->mu);
	return rc;
}

/* Drops the rows stored of a variant that will not be stored as such. */
static void cancel_stream(runner *R, vs_store *st, wstate *w)
{
	if (!w->streaming)
		return;
	vs_store_variant_cancel(st);
	w->tx_rows -= w->streamed;
	R->sum->actor_steps -= w->streamed * R->opts->record_every;
	w->streaming = 0;
	w->streamed = 0;
}

/* A line on stderr for a failed variant, once stored: its stored reason.
 * A crash, a hang or the memory limit leave no other trace there, unlike
 * a plugin's own error messages (printed as logged, vs_log_add, at most
 * a few per variant); every failure says so the same way, one line per
 * variant, the first VS_QUOTA_LINES of the run (quota.h: a night of
 * failures would bury the log; variant_info has every reason). The
 * reason, which may hold a plugin's words, is escaped already
 * (store_result, as stored). It ends the progress line first, as
 * room.c's warning does. */
static void say_failed(runner *R, const vs_result *res)
{
	int say = vs_quota_take(VS_QUOTA_FAILED);
	if (!say)
		return;
	if (R->progress_open)
		fputc('\n', stderr);
	R->progress_open = 0;
	if (say < 0)
		fprintf(stderr, "%s\n", vs_quota_notice(VS_QUOTA_FAILED));
	else
		fprintf(stderr, "vsweep: variant %llu: failed: %s\n",
		        (unsigned long long)res->variant, res->error);
}

/* Stores the result in s (the whole variant, or the end of a streamed
 * one); 0, or -1 with R->io_err. */
static int store_result(runner *R, vs_store *st, wstate *w, slot *s)
{
	vs_run_summary *sum = R->sum;
	if (s->res.rows_void)
		cancel_stream(R, st, w); /* a crash: stored without rows */
	/* set here, where the sweep is: no child process or result copy has
	 * to carry it */
	s->res.label = vs_sweep_label(R->sw, s->res.variant);
	/* the reason as stored: text a reader can decode (a reason cut to
	 * its buffer may end inside a character; a plugin's name or words
	 * may hold anything) */
	vs_escape_controls(s->res.error, sizeof s->res.error);
	if (vs_store_put(st, &s->res, &R->io_err))
		return -1;
	w->streaming = 0;
	w->streamed = 0;
	w->tx_rows += s->res.n_rows;
	/* --record summary stores no rows: count what was simulated */
	sum->actor_steps += R->opts->no_state
	                            ? s->res.summary.actor_steps
	                            : s->res.n_rows * R->opts->record_every;
	if (s->res.status == VS_VARIANT_DONE) {
		sum->done++;
	} else {
		sum->failed++;
		say_failed(R, &s->res);
	}
	if (s->res.status != VS_VARIANT_DONE &&
	    strncmp(s->res.error, "crashed:", 8) == 0)
		sum->crashed++;
	pthread_mutex_lock(&R->mu);
	release(R, s);
	R->written++;
	pthread_cond_broadcast(&R->space);
	pthread_mutex_unlock(&R->mu);
	return 0;
}

/* Whether the variant in s was simulated to its end (its result is in,
 * after the chunks that came before). */
static int has_ended(runner *R, slot *s)
{
	pthread_mutex_lock(&R->mu);
	int ended = s->state != SLOT_EMPTY;
	pthread_mutex_unlock(&R->mu);
	return ended;
}

/* Commits the open transaction (whole variants only); 0, or -1 with
 * R->io_err. */
static int commit(runner *R, vs_store *st, wstate *w, vs_room *room)
{
	if (vs_store_commit(st, &R->io_err))
		return -1;
	w->in_tx = 0;
	if (R->own_src)
		vs_room_after_commit(room, st, R->written, R->total);
	return 0;
}

static void writer(runner *R, vs_store *st)
{
	const vs_run_opts *o = R->opts;
	double t0 = vs_now(), last_progress = 0;
	wstate w = {0};
	vs_room room;
	vs_room_init(&room, st, o->out, R->written, o->progress);
	for (;;) {
		slot *s;
		/* Variants stored wait COMMIT_SECONDS for their commit at
		 * most, however long the next one is in coming (a slow or
		 * hung plugin); but not while one is half stored: its rows
		 * would be committed without its variant row, and a resume,
		 * simulating it again, would find them in its way. */
		double until = w.in_tx && !w.streaming
		               ? w.tx_start + COMMIT_SECONDS : 0;
		next_kind k = next_ready(R, &s, until);
		if (k == NEXT_LATE) {
			if (commit(R, st, &w, &room))
				break;
			continue;
		}
		if (k == NEXT_ABORTED)
			cancel_stream(R, st, &w);
		if (k == NEXT_NONE || k == NEXT_ABORTED)
			break;
		/* A streamed variant holds the transaction open until its
		 * end, which may be hours away: the whole ones before it are
		 * committed first, unless it has ended already (the writer is
		 * behind), when storing it takes no longer than storing a
		 * variant handed over whole. A commit per streamed variant
		 * wrote a fifth more bytes, and took up to 8 % longer, in a
		 * sweep of variants of just over a chunk, where the writer is
		 * behind: there it is not made; it is where the writer waits
		 * for the simulation anyway. */
		if (k == NEXT_CHUNK && !w.streaming && w.in_tx &&
		    !has_ended(R, s) && commit(R, st, &w, &room))
			break;
		if (!w.in_tx) {
			if (vs_store_begin(st, &R->io_err))
				break;
			w.in_tx = 1;
			w.tx_start = vs_now();
			w.tx_rows = 0;
		}
		if (k == NEXT_CHUNK ? store_chunk(R, st, &w, s)
		                    : store_result(R, st, &w, s))
			break;
		double t = vs_now();
		/* Whole variants only: never while one is half stored. */
		if (k == NEXT_RESULT &&
		    (w.tx_rows >= VS_RUN_COMMIT_ROWS ||
		     t - w.tx_start >= COMMIT_SECONDS ||
		     (R->own_src && R->written == R->total)) &&
		    commit(R, st, &w, &room))
			break;
		if (o->progress && t - last_progress >= 0.25) {
			progress(R, t0, 0);
			last_progress = t;
		}
	}
	/* A variant half stored when the writer stopped is not committed:
	 * its savepoint goes first. */
	if (w.in_tx && !vs_error_is_set(&R->io_err)) {
		cancel_stream(R, st, &w);
		if (vs_store_commit(st, &R->io_err) == 0)
			w.in_tx = 0;
	}
	if (w.in_tx)
		vs_store_rollback(st);
	/* Under the mutex, so that a worker about to wait for space cannot
	 * miss the news and wait forever. */
	pthread_mutex_lock(&R->mu);
	if (vs_error_is_set(&R->io_err))
		atomic_store(&R->stop, 1);
	pthread_cond_broadcast(&R->space);
	pthread_mutex_unlock(&R->mu);
	/* also when the stop ended the run before the writer waited: the
	 * line is said on every stopped run */
	if (vs_run_stop && !R->stop_said)
		say_stop(R);
	if (o->progress)
		progress(R, t0, 1);
}

/* The variants already in the file must be the shard's first ones. */
static vs_rc check_prefix(vs_store *st, const vs_run_opts *o, uint64_t total,
                          uint64_t *stored, vs_error *err)
{
	int64_t n = vs_store_variant_count(st);
	if (n < 0) {
		vs_error_set(err, "%s: cannot read its variants", o->out);
		return VS_RC_IO;
	}
	if ((uint64_t)n > total) {
		vs_error_set(err, "%s: holds %lld variants, more than this "
		             "run's %llu", o->out, (long long)n,
		             (unsigned long long)total);
		return VS_RC_INPUT;
	}
	if (n > 0) {
		int64_t last = vs_store_variant_at(st, n - 1);
		uint64_t want = o->shard_k + (uint64_t)(n - 1) * o->shard_n;
		if (last < 0 || (uint64_t)last != want) {
			vs_error_set(err, "%s: its variants are not this run's "
			             "first %lld", o->out, (long long)n);
			return VS_RC_INPUT;
		}
	}
	*stored = (uint64_t)n;
	return VS_RC_OK;
}

/* Starts up to n workers; returns how many started (results do not
 * depend on it, only speed does). */
static int start_workers(runner *R, pthread_t *th, int n)
{
	int k = 0;
	while (k < n && pthread_create(&th[k], NULL, worker, R) == 0)
		k++;
	return k;
}

static vs_rc run_store(const vs_scenario *seed, const vs_sweep *sw,
                       const vs_run_opts *o, vs_store *st,
                       vs_run_summary *sum, vs_error *err)
{
	runner R = {0};
	R.seed = seed;
	R.sw = sw;
	R.opts = o;
	R.sum = sum;
	atomic_init(&R.stop, 0);
	shard_seq seq = {o->shard_k, o->shard_n, 0, 0};
	vs_index_source own = {shard_next, &seq};
	R.src = o->source ? o->source : &own;
	R.own_src = !o->source;
	if (R.own_src) {
		R.total = vs_store_shard_count(sw->count, o->shard_k,
		                               o->shard_n);
		vs_rc rc = check_prefix(st, o, R.total, &R.written, err);
		if (rc)
			return rc;
		/* Numbers continue the shard-local indices of the prefix. */
		seq.j = R.written;
		seq.total = R.total;
	} else {
		/* The source yields only variants the file lacks. */
		int64_t n = vs_store_variant_count(st);
		if (n < 0) {
			vs_error_set(err, "%s: cannot read its variants", o->out);
			return VS_RC_IO;
		}
		R.written = (uint64_t)n;
	}
	/* This run's start and what the file held then: `vsweep status`
	 * gives a resumed run's rate from them, not from the first run's
	 * start (created_utc) and a pause between. */
	char started[32];
	vs_meta run_meta[2];
	int n_run_meta = vs_store_run_meta((int64_t)R.written, started,
	                                   run_meta);
	vs_rc mrc = vs_store_set_metas(st, run_meta, n_run_meta, err);
	if (mrc)
		return mrc;
	sum->total = R.total;
	sum->skipped = R.written;
	R.next = R.written;
	/* Memory does not depend on it: results are streamed in chunks. */
	R.window = WINDOW_PER_JOB * (uint64_t)o->jobs + 2;
	R.queue_max = QUEUE_BYTES_PER_JOB * (size_t)o->jobs;
	R.slots = vs_xcalloc(R.window, sizeof *R.slots);
	vs_quota_reset(); /* this run's lines, before its children fork */
	/* what ties the crash journal to this file's content: its random
	 * identity, or in a file begun before it had one, the second it
	 * was begun */
	char made[48];
	vs_store_meta_text(st, "file_id", made, sizeof made);
	if (!made[0])
		vs_store_meta_text(st, "created_utc", made, sizeof made);
	R.journal = vs_journal_open(o->out, made, o->mode == VS_STORE_RESUME);
	pthread_mutex_init(&R.src_mu, NULL);
	pthread_mutex_init(&R.mu, NULL);
	pthread_cond_init(&R.ready, NULL);
	pthread_cond_init(&R.space, NULL);
	double t0 = vs_now();

	/* Before the threads: the children are forked from a process
	 * that has one (contain.h). */
	vs_row_sink chunks = {NULL, NULL, CHUNK_BYTES};
	vs_sim_opts so = sim_opts(o, &chunks);
	R.server = o->contain ? vs_contain_server_start(sw, seed, &so) : NULL;
	pthread_t *th = vs_xcalloc((size_t)o->jobs, sizeof *th);
	int n_th = start_workers(&R, th, o->jobs);
	if (n_th == 0)
		vs_error_set(&R.io_err, "%s: cannot start a simulation thread",
		             o->out);
	else
		writer(&R, st);
	for (int k = 0; k < n_th; k++)
		pthread_join(th[k], NULL);
	free(th);
	vs_contain_server_stop(R.server);
	/* Results simulated past the point where writing stopped. */
	for (uint64_t k = 0; k < R.window; k++)
		release(&R, &R.slots[k]);
	free(R.slots);
	pthread_mutex_destroy(&R.src_mu);
	pthread_mutex_destroy(&R.mu);
	pthread_cond_destroy(&R.ready);
	pthread_cond_destroy(&R.space);
	sum->seconds = vs_now() - t0;
	if (R.own_src) {
		sum->interrupted = vs_run_stop && R.written < R.total;
	} else {
		/* Whether a source said "no more" because of the stop is for
		 * its owner to know; here: stopped before it said so. */
		sum->total = R.written;
		sum->interrupted = vs_run_stop &&
		                   (!R.exhausted || R.next != R.written);
	}
	/* Every variant stored: no crash left to remember. */
	vs_journal_close(R.journal, !vs_error_is_set(&R.io_err) &&
	                            !sum->interrupted &&
	                            (!R.own_src || R.written == R.total));
	if (vs_error_is_set(&R.io_err)) {
		vs_error_set(err, "%s", R.io_err.msg);
		return VS_RC_IO;
	}
	return VS_RC_OK;
}

double vs_run_calibrate_limit(void)
{
	return vs_test_calibrate_limit(VS_RUN_CALIBRATE_LIMIT);
}

vs_rc vs_run(const vs_scenario *seed, const vs_sweep *sw,
             const vs_registry *reg, const vs_run_opts *o,
             vs_run_summary *sum, vs_error *err)
{
	(void)reg;
	memset(sum, 0, sizeof *sum);
	vs_run_record rec;
	vs_run_build_record(&rec, seed, sw, o, o->out, o->mode);
	vs_store *st;
	vs_rc rc = vs_store_open(&rec.def, &st, err);
	if (rc)
		return rc;
	rc = vs_run_check_extension(seed, sw, &rec, st, err);
	if (!rc)
		rc = vs_run_store_lanes(seed, st, err);
	if (!rc)
		rc = vs_run_store_actor_params(seed, st, err);
	if (!rc)
		rc = run_store(seed, sw, o, st, sum, err);
	/* Every variant stored: the file is final, the planner's
	 * statistics go in (a stopped run's resume writes them). */
	if (!rc && !sum->interrupted)
		rc = vs_store_finish(st, err);
	vs_error cerr = {{0}};
	if (vs_store_close(st, &cerr) && rc == VS_RC_OK) {
		vs_error_set(err, "%s", cerr.msg);
		rc = VS_RC_IO;
	}
	return rc;
}

vs_rc vs_run_outcome(const vs_run_summary *sum)
{
	if (sum->interrupted)
		return VS_RC_INTERRUPTED;
	return sum->failed ? VS_RC_FAILED : VS_RC_OK;
}
