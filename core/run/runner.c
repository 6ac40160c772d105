#include "run/runner.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "map/map.h"
#include "sim/sim.h"

volatile sig_atomic_t vs_run_stop;

/* A commit every COMMIT_ROWS state rows or COMMIT_SECONDS, whichever comes
 * first: large enough that commits cost little, small enough that a kill
 * loses little work. Whole variants only, always. */
#define COMMIT_ROWS 50000
#define COMMIT_SECONDS 1.0

enum slot_state { SLOT_EMPTY, SLOT_READY, SLOT_ABORTED };

typedef struct slot {
	enum slot_state state;
	vs_result res;
	vs_scenario *variant; /* owns the strings res points into */
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

/* Results are numbered j = 0, 1, ... in the order their indices came from
 * the source; slot j % window holds result j until the writer stores it,
 * strictly in j order. */
typedef struct runner {
	const vs_scenario *seed;
	const vs_sweep *sw;
	const vs_run_opts *opts;
	const vs_index_source *src;
	int own_src;          /* src is the shard's sequence */
	uint64_t total;       /* variants in this shard (own_src only) */
	uint64_t next;        /* number of the next index taken (under mu) */
	uint64_t written;     /* number the writer wants next */
	uint64_t window;      /* results in flight, at most */
	int exhausted;        /* the source said no more (under mu) */
	int inline_sim;       /* no worker threads: the writer simulates */
	slot *slots;
	/* Held across src->next() and the numbering that follows, so that
	 * numbers follow the source's order; never while waiting for the
	 * writer's mu alone, so a slow source never blocks the writer. */
	pthread_mutex_t src_mu;
	pthread_mutex_t mu;
	pthread_cond_t ready; /* a slot was filled */
	pthread_cond_t space; /* the writer advanced */
	volatile sig_atomic_t stop;
	vs_error io_err;
	vs_run_summary *sum;
} runner;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int stopping(runner *R)
{
	return R->stop || vs_run_stop;
}

/* Builds and simulates variant i into s. */
static void simulate(runner *R, uint64_t i, slot *s)
{
	const vs_run_opts *o = R->opts;
	double t0 = now();
	vs_result *res = &s->res;
	memset(res, 0, sizeof *res);
	res->variant = i;
	vs_error err = {{0}};
	s->variant = vs_sweep_variant(R->sw, R->seed, i, &res->params_json,
	                              &err);
	if (!s->variant) {
		/* Cannot happen after validation; stored, not fatal. */
		res->status = VS_VARIANT_FAILED;
		snprintf(res->error, sizeof res->error, "%s", err.msg);
		s->state = SLOT_READY;
		return;
	}
	vs_sim_opts so = {o->record_every, &vs_run_stop, o->variant_timeout,
	                  o->no_wheels, o->no_map, o->signals, o->plugin_log};
	int rc = vs_sim_run(s->variant, &so, res);
	res->wall_seconds = now() - t0;
	s->state = rc == 0 ? SLOT_READY : SLOT_ABORTED;
}

static void release(slot *s)
{
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

static void worker(runner *R)
{
	uint64_t j, i;
	while (take(R, &j, &i)) {
		slot local = {0};
		simulate(R, i, &local);

		pthread_mutex_lock(&R->mu);
		R->slots[j % R->window] = local;
		pthread_cond_broadcast(&R->ready);
		pthread_mutex_unlock(&R->mu);
	}
}

static void progress(runner *R, double t0, int final)
{
	vs_run_summary *s = R->sum;
	double dt = now() - t0;
	uint64_t n = s->done + s->failed;
	double rate = dt > 0 ? (double)s->actor_steps / dt : 0;
	if (!R->own_src) {
		/* A source does not say how many will come: no total, no ETA. */
		fprintf(stderr, "\rvsweep: %llu variants, %llu failed, %.3g "
		        "actor-steps/s   %s", (unsigned long long)n,
		        (unsigned long long)s->failed, rate, final ? "\n" : "");
		fflush(stderr);
		return;
	}
	double vps = dt > 0 ? (double)n / dt : 0;
	uint64_t left = R->total - s->skipped - n;
	double eta = vps > 0 ? (double)left / vps : 0;
	fprintf(stderr,
	        "\rvsweep: %llu/%llu variants, %llu failed, %.3g actor-steps/s,"
	        " ETA %d:%02d:%02d   %s",
	        (unsigned long long)(s->skipped + n),
	        (unsigned long long)R->total, (unsigned long long)s->failed,
	        rate, (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60,
	        final ? "\n" : "");
	fflush(stderr);
}

/* Takes the next result in order; NULL when none will come. */
static slot *next_ready(runner *R)
{
	slot *s = &R->slots[R->written % R->window];
	if (R->inline_sim) {
		/* One thread only: simulate here, in order. */
		uint64_t i;
		if (s->state == SLOT_EMPTY && !stopping(R) && !R->exhausted) {
			if (R->src->next(R->src->ctx, &i)) {
				R->next++;
				simulate(R, i, s);
			} else {
				R->exhausted = 1;
			}
		}
		return s->state == SLOT_READY ? s : NULL;
	}
	pthread_mutex_lock(&R->mu);
	for (;;) {
		if (s->state != SLOT_EMPTY)
			break;
		/* Nobody took this number and nobody will. */
		if ((stopping(R) || R->exhausted) && R->next <= R->written)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000; /* wake to notice signals */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&R->ready, &R->mu, &ts);
	}
	pthread_mutex_unlock(&R->mu);
	return s->state == SLOT_READY ? s : NULL;
}

static void writer(runner *R, vs_store *st)
{
	const vs_run_opts *o = R->opts;
	vs_run_summary *sum = R->sum;
	double t0 = now(), tx_start = 0, last_progress = 0;
	int64_t tx_rows = 0;
	int in_tx = 0;
	for (;;) {
		slot *s = next_ready(R);
		if (!s)
			break;
		if (!in_tx) {
			if (vs_store_begin(st, &R->io_err))
				break;
			in_tx = 1;
			tx_start = now();
			tx_rows = 0;
		}
		if (vs_store_put(st, &s->res, &R->io_err))
			break;
		tx_rows += s->res.n_rows;
		sum->actor_steps += s->res.n_rows * o->record_every;
		if (s->res.status == VS_VARIANT_DONE)
			sum->done++;
		else
			sum->failed++;
		pthread_mutex_lock(&R->mu);
		release(s);
		R->written++;
		pthread_cond_broadcast(&R->space);
		pthread_mutex_unlock(&R->mu);
		double t = now();
		if (tx_rows >= COMMIT_ROWS || t - tx_start >= COMMIT_SECONDS ||
		    (R->own_src && R->written == R->total)) {
			if (vs_store_commit(st, &R->io_err))
				break;
			in_tx = 0;
		}
		if (o->progress && t - last_progress >= 0.25) {
			progress(R, t0, 0);
			last_progress = t;
		}
	}
	if (in_tx && !vs_error_is_set(&R->io_err) &&
	    vs_store_commit(st, &R->io_err) == 0)
		in_tx = 0;
	if (in_tx)
		vs_store_rollback(st);
	/* Under the mutex, so that a worker about to wait for space cannot
	 * miss the news and wait forever. */
	pthread_mutex_lock(&R->mu);
	if (vs_error_is_set(&R->io_err))
		R->stop = 1;
	pthread_cond_broadcast(&R->space);
	pthread_mutex_unlock(&R->mu);
	if (o->progress)
		progress(R, t0, 1);
}

/* How many results may be in flight: 4 per worker, fewer when variants are
 * big, so that what waits for the writer stays within half the machine's
 * memory. A variant too big even for one per worker is an input error. */
static int size_window(uint64_t *window, const vs_scenario *seed,
                       const vs_run_opts *o, vs_error *err)
{
	double rows = ((double)vs_scenario_steps(seed) / o->record_every + 1) *
	              seed->n_actors;
	double per = rows * (double)sizeof(vs_state_row); /* bytes */
	double budget = 0.5 * (double)sysconf(_SC_PHYS_PAGES) *
	                (double)sysconf(_SC_PAGESIZE);
	uint64_t want = 4 * (uint64_t)o->jobs + 2, least = (uint64_t)o->jobs + 1;
	if (budget > 0 && per * (double)least > budget) {
		vs_error_set(err, "%s: each variant holds %.3g GiB of rows until "
		             "it is stored (%.3g actor-steps recorded); with -j "
		             "%d that is more than half of this machine's memory:"
		             " use --record-every or a smaller -j", seed->path,
		             per / 1073741824.0, rows, o->jobs);
		return -1;
	}
	*window = want;
	if (budget > 0 && per * (double)want > budget)
		*window = (uint64_t)(budget / per) > least
		                    ? (uint64_t)(budget / per)
		                    : least;
	return 0;
}

static uint64_t shard_total(uint64_t count, uint64_t k, uint64_t n)
{
	return count > k ? (count - k - 1) / n + 1 : 0;
}

/* The variants already in the file must be the shard's first ones. */
static int check_prefix(vs_store *st, const vs_run_opts *o, uint64_t total,
                        uint64_t *stored, vs_error *err)
{
	int64_t n = vs_store_variant_count(st);
	if (n < 0) {
		vs_error_set(err, "%s: cannot read its variants", o->out);
		return -2;
	}
	if ((uint64_t)n > total) {
		vs_error_set(err, "%s: holds %lld variants, more than this "
		             "run's %llu", o->out, (long long)n,
		             (unsigned long long)total);
		return -1;
	}
	if (n > 0) {
		int64_t last = vs_store_variant_at(st, n - 1);
		uint64_t want = o->shard_k + (uint64_t)(n - 1) * o->shard_n;
		if (last < 0 || (uint64_t)last != want) {
			vs_error_set(err, "%s: its variants are not this run's "
			             "first %lld", o->out, (long long)n);
			return -1;
		}
	}
	*stored = (uint64_t)n;
	return 0;
}

static int run_store(const vs_scenario *seed, const vs_sweep *sw,
                 const vs_run_opts *o, vs_store *st, vs_run_summary *sum,
                 vs_error *err)
{
	runner R = {0};
	R.seed = seed;
	R.sw = sw;
	R.opts = o;
	R.sum = sum;
	shard_seq seq = {o->shard_k, o->shard_n, 0, 0};
	vs_index_source own = {shard_next, &seq};
	R.src = o->source ? o->source : &own;
	R.own_src = !o->source;
	if (R.own_src) {
		R.total = shard_total(sw->count, o->shard_k, o->shard_n);
		int rc = check_prefix(st, o, R.total, &R.written, err);
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
			return -2;
		}
		R.written = (uint64_t)n;
	}
	sum->total = R.total;
	sum->skipped = R.written;
	R.next = R.written;
	if (size_window(&R.window, seed, o, err))
		return -1;
	R.slots = vs_xcalloc(R.window, sizeof *R.slots);
	pthread_mutex_init(&R.src_mu, NULL);
	pthread_mutex_init(&R.mu, NULL);
	pthread_cond_init(&R.ready, NULL);
	pthread_cond_init(&R.space, NULL);
	double t0 = now();

	omp_set_dynamic(0);
#pragma omp parallel num_threads(o->jobs + 1)
	{
		int nth = omp_get_num_threads();
		if (omp_get_thread_num() == 0) {
			if (nth == 1)
				R.inline_sim = 1;
			writer(&R, st);
		} else {
			worker(&R);
		}
	}
	/* Results simulated past the point where writing stopped. */
	for (uint64_t k = 0; k < R.window; k++)
		release(&R.slots[k]);
	free(R.slots);
	pthread_mutex_destroy(&R.src_mu);
	pthread_mutex_destroy(&R.mu);
	pthread_cond_destroy(&R.ready);
	pthread_cond_destroy(&R.space);
	sum->seconds = now() - t0;
	if (R.own_src) {
		sum->interrupted = vs_run_stop && R.written < R.total;
	} else {
		/* Whether a source said "no more" because of the stop is for
		 * its owner to know; here: stopped before it said so. */
		sum->total = R.written;
		sum->interrupted = vs_run_stop &&
		                   (!R.exhausted || R.next != R.written);
	}
	if (vs_error_is_set(&R.io_err)) {
		vs_error_set(err, "%s", R.io_err.msg);
		return -2;
	}
	return 0;
}

/* FNV-1a 64 of a file's bytes, as 16 hex digits: which build of a plugin
 * produced the results ("?" when unreadable). */
static void file_digest(const char *path, char out[17])
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		strcpy(out, "?");
		return;
	}
	uint64_t h = 1469598103934665603ull;
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	fclose(f);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

typedef struct record {
	vs_meta meta[16];
	int n_meta, n_identity;
	vs_plugin_row plugins[64];
	char digests[64][17];
	int n_plugins;
	char shard[64], created[32];
} record;

static void add_plugin(record *rec, const vs_plugin_use *use)
{
	if (!use->loaded)
		return;
	const vs_plugin *p = use->loaded->desc;
	for (int i = 0; i < rec->n_plugins; i++)
		if (strcmp(rec->plugins[i].name, p->name) == 0)
			return;
	if (rec->n_plugins == 64)
		return;
	int i = rec->n_plugins++;
	file_digest(use->loaded->path, rec->digests[i]);
	rec->plugins[i] = (vs_plugin_row){
		p->name,
		p->kind == VS_KIND_VEHICLE_MODEL ? "vehicle_model" : "behaviour",
		p->version ? p->version : "", use->loaded->path,
		rec->digests[i]};
}

/* The sweep's own record: identity keys first (a resume must match them),
 * then facts about this file. */
static void build_record(record *rec, const vs_scenario *seed,
                         const vs_sweep *sw, const vs_run_opts *o)
{
	if (o->shard_label)
		snprintf(rec->shard, sizeof rec->shard, "%s", o->shard_label);
	else
		snprintf(rec->shard, sizeof rec->shard, "%llu/%llu",
		         (unsigned long long)o->shard_k,
		         (unsigned long long)o->shard_n);
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(rec->created, sizeof rec->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
	vs_meta *m = rec->meta;
	int n = 0;
	m[n++] = (vs_meta){"format", 1, "vsweep results 1", 0};
	m[n++] = (vs_meta){"vsweep_version", 1, VS_VERSION, 0};
	m[n++] = (vs_meta){"scenario_text", 1, seed->text, 0};
	m[n++] = (vs_meta){"sweep_text", 1, sw->text ? sw->text : "", 0};
	m[n++] = (vs_meta){"step", 0, NULL, seed->step};
	m[n++] = (vs_meta){"record_every", 0, NULL, o->record_every};
	m[n++] = (vs_meta){"record", 1, o->record ? o->record : "", 0};
	m[n++] = (vs_meta){"shard", 1, rec->shard, 0};
	m[n++] = (vs_meta){"variant_count", 0, NULL, (double)sw->count};
	rec->n_identity = n;
	m[n++] = (vs_meta){"scenario_path", 1, seed->path, 0};
	m[n++] = (vs_meta){"sweep_path", 1, sw->path ? sw->path : "", 0};
	m[n++] = (vs_meta){"steps", 0, NULL, (double)vs_scenario_steps(seed)};
	m[n++] = (vs_meta){"duration", 0, NULL, seed->duration};
	m[n++] = (vs_meta){"created_utc", 1, rec->created, 0};
	rec->n_meta = n;
	for (int i = 0; i < seed->n_actors; i++) {
		add_plugin(rec, &seed->actors[i].vehicle_model);
		add_plugin(rec, &seed->actors[i].behaviour);
	}
}

/* The map's lanes, so that map_location can name them. */
static int store_lanes(const vs_scenario *seed, vs_store *st, vs_error *err)
{
	int n = seed->map ? vs_map_lane_count(seed->map) : 0;
	if (n == 0)
		return 0;
	vs_lane_row *rows = vs_xcalloc((size_t)n, sizeof *rows);
	for (int i = 0; i < n; i++) {
		const vs_lane *l = vs_map_lane(seed->map, i);
		rows[i] = (vs_lane_row){l->uuid, l->road, l->lane, l->length,
		                        l->width, l->section, l->type};
	}
	int rc = vs_store_set_lanes(st, rows, n, err) ? -2 : 0;
	free(rows);
	return rc;
}

int vs_run(const vs_scenario *seed, const vs_sweep *sw,
           const vs_registry *reg, const vs_run_opts *o,
           vs_run_summary *sum, vs_error *err)
{
	(void)reg;
	memset(sum, 0, sizeof *sum);
	record rec;
	memset(&rec, 0, sizeof rec);
	build_record(&rec, seed, sw, o);
	uint64_t window;
	if (size_window(&window, seed, o, err)) /* before any file exists */
		return -1;
	int io = 0;
	vs_store *st = vs_store_open(o->out, o->mode, rec.meta, rec.n_meta,
	                             rec.n_identity, rec.plugins,
	                             rec.n_plugins, err, &io);
	if (!st)
		return io ? -2 : -1;
	int rc = store_lanes(seed, st, err);
	if (!rc)
		rc = run_store(seed, sw, o, st, sum, err);
	vs_error cerr = {{0}};
	if (vs_store_close(st, &cerr) && rc == 0) {
		vs_error_set(err, "%s", cerr.msg);
		rc = -2;
	}
	return rc;
}

int64_t vs_run_check_file(const vs_scenario *seed, const vs_sweep *sw,
                          const vs_run_opts *o, const char *path,
                          vs_error *err)
{
	/* vs_store_open would create a missing file. */
	if (access(path, F_OK) != 0) {
		vs_error_set(err, "%s: no such results file", path);
		return -1;
	}
	record rec;
	memset(&rec, 0, sizeof rec);
	build_record(&rec, seed, sw, o);
	int io = 0;
	vs_store *st = vs_store_open(path, VS_STORE_RESUME, rec.meta,
	                             rec.n_meta, rec.n_identity, rec.plugins,
	                             rec.n_plugins, err, &io);
	if (!st)
		return io ? -2 : -1;
	int64_t n = vs_store_variant_count(st);
	if (n < 0)
		vs_error_set(err, "%s: cannot read its variants", path);
	vs_error cerr = {{0}};
	if (vs_store_close(st, &cerr) && n >= 0) {
		vs_error_set(err, "%s", cerr.msg);
		n = -1;
	}
	return n < 0 ? -2 : n;
}
