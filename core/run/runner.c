#include "run/runner.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

typedef struct runner {
	const vs_scenario *seed;
	const vs_sweep *sw;
	const vs_run_opts *opts;
	uint64_t total;       /* variants in this shard */
	uint64_t next;        /* next shard-local index to hand out */
	uint64_t written;     /* shard-local index the writer wants next */
	uint64_t window;      /* results in flight, at most */
	int inline_sim;       /* no worker threads: the writer simulates */
	slot *slots;
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

/* Builds and simulates shard-local variant j into s. */
static void simulate(runner *R, uint64_t j, slot *s)
{
	const vs_run_opts *o = R->opts;
	uint64_t i = o->shard_k + j * o->shard_n;
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
	                  o->no_wheels};
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

static void worker(runner *R)
{
	for (;;) {
		pthread_mutex_lock(&R->mu);
		while (!stopping(R) && R->next < R->total &&
		       R->next >= R->written + R->window)
			pthread_cond_wait(&R->space, &R->mu);
		if (stopping(R) || R->next >= R->total) {
			pthread_mutex_unlock(&R->mu);
			pthread_cond_broadcast(&R->ready);
			return;
		}
		uint64_t j = R->next++;
		pthread_mutex_unlock(&R->mu);

		slot local = {0};
		simulate(R, j, &local);

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
		if (s->state == SLOT_EMPTY && !stopping(R) &&
		    R->next < R->total)
			simulate(R, R->next++, s);
		return s->state == SLOT_READY ? s : NULL;
	}
	pthread_mutex_lock(&R->mu);
	for (;;) {
		if (s->state != SLOT_EMPTY)
			break;
		/* Nobody took this index and nobody will. */
		if (stopping(R) && R->next <= R->written)
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
	while (R->written < R->total) {
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
		    R->written == R->total) {
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
	if (vs_error_is_set(&R->io_err))
		R->stop = 1;
	pthread_cond_broadcast(&R->space);
	if (o->progress)
		progress(R, t0, 1);
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
	R.total = shard_total(sw->count, o->shard_k, o->shard_n);
	sum->total = R.total;
	int rc = check_prefix(st, o, R.total, &R.written, err);
	if (rc)
		return rc;
	sum->skipped = R.written;
	R.next = R.written;
	R.window = 4 * (uint64_t)o->jobs + 2;
	R.slots = vs_xcalloc(R.window, sizeof *R.slots);
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
	pthread_mutex_destroy(&R.mu);
	pthread_cond_destroy(&R.ready);
	pthread_cond_destroy(&R.space);
	sum->seconds = now() - t0;
	sum->interrupted = vs_run_stop && R.written < R.total;
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

int vs_run(const vs_scenario *seed, const vs_sweep *sw,
           const vs_registry *reg, const vs_run_opts *o,
           vs_run_summary *sum, vs_error *err)
{
	(void)reg;
	memset(sum, 0, sizeof *sum);
	record rec;
	memset(&rec, 0, sizeof rec);
	build_record(&rec, seed, sw, o);
	vs_store *st = vs_store_open(o->out, o->mode, rec.meta, rec.n_meta,
	                             rec.n_identity, rec.plugins,
	                             rec.n_plugins, err);
	if (!st)
		return -1;
	int rc = run_store(seed, sw, o, st, sum, err);
	vs_error cerr = {{0}};
	if (vs_store_close(st, &cerr) && rc == 0) {
		vs_error_set(err, "%s", cerr.msg);
		rc = -2;
	}
	return rc;
}
