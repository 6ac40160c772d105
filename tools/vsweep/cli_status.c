/* How far a sweep is, read from its results file: `vsweep status DB` from
 * another shell, and the progress lines `vsweep run --progress` writes
 * when stderr is not a terminal (a log file): one full line every
 * --progress-interval seconds, with a UTC timestamp, done, failed, rate
 * and ETA, and no carriage returns.
 *
 * Both read the file over their own read-only SQLite connection: the
 * store runs in WAL mode, so a reader never blocks the writer and sees
 * the variants committed so far (the writer commits at least every
 * second).
 *
 * Whether a sweep is running is the writer lock's answer (store/writer.c),
 * not the age of the last write: a run whose variants take minutes each
 * commits nothing for minutes, and a reader's own open can leave a fresh
 * -wal behind. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "store/reader.h"
#include "store/store.h"

typedef struct sweep_status {
	int64_t done, failed;
	int64_t crashed;     /* of the failed: a reason "crashed: ..." (the
	                        runner's count, core/run/runner.c) */
	int64_t expected;    /* variants of this file's shard; 0: unknown */
	double created;      /* s since the epoch; NAN when not recorded */
	char created_text[40];     /* meta created_utc as stored */
	char run_started_text[40]; /* meta run_started_utc as stored */
	/* the latest run's (or resume's) start, s since the epoch (NAN:
	 * not recorded, a file of an earlier build), and the variants the
	 * file held then */
	double run_started;
	int64_t run_stored;
	int drill;           /* a drill-down's file: a selection, no shard */
	int part;            /* a vsweep-mpi rank's part: any variants */
	uint64_t part_no;    /* its rank */
	int64_t sweep_count; /* variants of the whole sweep */
	int gapped;          /* stored variants not the shard's first ones */
} sweep_status;

static double now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil), so no non-standard timegm is needed. */
static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SSZ" or "YYYY-MM-DDTHH:MM:SS.mmmZ" as s since the
 * epoch; NAN otherwise. */
static double parse_utc(const char *s)
{
	int y, mo, d, h, mi;
	double se;
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf", &y, &mo, &d, &h, &mi,
	                 &se) != 6)
		return NAN;
	return (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 +
	       mi * 60.0 + se;
}

static void format_utc(double t, char out[32])
{
	time_t s = (time_t)floor(t);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03dZ", (int)((t - floor(t)) * 1000));
}

/* 0, or -1 when the file is not (yet) a readable results file. */
static int read_status(sqlite3 *db, sweep_status *s)
{
	memset(s, 0, sizeof *s);
	s->created = s->run_started = NAN;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db,
	        "SELECT (SELECT count(*) FROM variant_info WHERE status = "
	        "'done'), (SELECT count(*) FROM variant_info WHERE status != "
	        "'done'), (SELECT value FROM meta WHERE key = "
	        "'variant_count'), (SELECT value FROM meta WHERE key = "
	        "'shard'), (SELECT value FROM meta WHERE key = "
	        "'created_utc'), (SELECT max(variant_id) FROM variant_info), "
	        "(SELECT value FROM meta WHERE key = 'run_started_utc'), "
	        "(SELECT value FROM meta WHERE key = 'run_started_stored'), "
	        "(SELECT count(*) FROM variant_info WHERE status != 'done' "
	        "AND substr(error, 1, 8) = 'crashed:')",
	        -1, &st, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW)
		goto out;
	s->done = sqlite3_column_int64(st, 0);
	s->failed = sqlite3_column_int64(st, 1);
	int64_t count = sqlite3_column_int64(st, 2);
	const char *shard = (const char *)sqlite3_column_text(st, 3);
	long long k = 0, n = 1;
	s->drill = shard && !strcmp(shard, "variants");
	/* "part R": the variants rank 0 handed rank R, no shard's sequence,
	 * so no count of its own to reach */
	int is_part = 0;
	uint64_t pk = 0, pn = 0;
	s->part = shard && vs_store_parse_shard(shard, &is_part, &pk, &pn) ==
	                           VS_RC_OK && is_part;
	s->part_no = pk;
	s->sweep_count = count;
	int sharded = shard && sscanf(shard, "%lld/%lld", &k, &n) == 2 &&
	              n > 0 && k >= 0 && k < n;
	if (sharded && count > k)
		s->expected = (count - k + n - 1) / n;
	else
		s->expected = s->drill || s->part ? 0 : count;
	/* --resume takes the shard's first variants only (runner.c): the
	 * last stored is then k + (stored - 1) * n */
	int64_t stored = s->done + s->failed;
	if (sharded && stored > 0 &&
	    sqlite3_column_type(st, 5) != SQLITE_NULL &&
	    sqlite3_column_int64(st, 5) != k + (stored - 1) * n)
		s->gapped = 1;
	const char *created = (const char *)sqlite3_column_text(st, 4);
	const char *started = (const char *)sqlite3_column_text(st, 6);
	s->created = parse_utc(created);
	s->run_started = parse_utc(started);
	snprintf(s->created_text, sizeof s->created_text, "%s",
	         created ? created : "");
	snprintf(s->run_started_text, sizeof s->run_started_text, "%s",
	         started ? started : "");
	s->run_stored = sqlite3_column_int64(st, 7);
	s->crashed = sqlite3_column_int64(st, 8);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* "1234/5000 variants (1200 done, 34 failed (2 crashed)), 12.3
 * variants/s, ETA 0:05:06" for `rate` variants per second (NAN:
 * unknown); the crashed ones said only when some did, as the run's
 * summary does. */
static void format_counts(const sweep_status *s, double rate, char *out,
                          size_t size)
{
	int64_t n = s->done + s->failed;
	size_t len = (size_t)snprintf(out, size, "%lld", (long long)n);
	if (s->part)
		len += (size_t)snprintf(out + len, size - len, " of the sweep's "
		                        "%lld", (long long)s->sweep_count);
	if (s->expected)
		len += (size_t)snprintf(out + len, size - len, "/%lld",
		                        (long long)s->expected);
	len += (size_t)snprintf(out + len, size - len, " variants (%lld done, "
	                        "%lld failed", (long long)s->done,
	                        (long long)s->failed);
	if (s->crashed)
		len += (size_t)snprintf(out + len, size - len, " (%lld "
		                        "crashed)", (long long)s->crashed);
	len += (size_t)snprintf(out + len, size - len, ")");
	if (isfinite(rate))
		len += (size_t)snprintf(out + len, size - len, ", %.3g "
		                        "variants/s", rate);
	if (s->expected && n < s->expected && isfinite(rate) && rate > 0) {
		double eta = (double)(s->expected - n) / rate;
		snprintf(out + len, size - len, ", ETA %d:%02d:%02d",
		         (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60);
	}
}

/* The progress lines' connection, in the process writing the file (so
 * not store/reader.h's, which asks who holds the writer's lock). */
static sqlite3 *open_read_only(const char *path)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 2000);
	return db;
}

/* The newest modification time of the file and its WAL (s since the
 * epoch; NAN when there is no file). A WAL without frames is left out:
 * a reader's open (an earlier build's vsweep report, the sqlite3 shell)
 * leaves an empty one, whose mtime is that reader's, not the run's. */
static double last_write(const char *path)
{
	struct stat st;
	double t = stat(path, &st) == 0 ? (double)st.st_mtime : NAN, w;
	if (vs_store_wal_has_frames(path, &w) && !(t >= w))
		t = w;
	return t;
}

/* The file to read: immutable when nothing writes it and its WAL, if
 * any, has no frames (store/reader.h); a killed run's WAL holds committed
 * variants and is read as a writer's. */
static sqlite3 *open_to_read(const char *path)
{
	sqlite3 *db = NULL;
	if (vs_store_open_read(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 2000);
	return db;
}

/* What the user can do with a file no run writes that is not finished
 * (path: the file's; buf: room for the text of a part). */
static const char *stopped_text(const sweep_status *s, const char *path,
                                char *buf, size_t size)
{
	if (s->part) {
		/* vsweep-mpi writes OUT's parts as OUT.parts/rank-R.db */
		const char *slash = strrchr(path, '/');
		size_t dir = slash ? (size_t)(slash - path) : 0;
		int named = dir > 6 && !strncmp(path + dir - 6, ".parts", 6);
		snprintf(buf, size, "part %llu of a vsweep-mpi run (vsweep run "
		         "--resume does not take it: vsweep-mpi run ...%s%.*s "
		         "--resume continues that run and merges its parts)",
		         (unsigned long long)s->part_no, named ? " -o " : "",
		         named ? (int)(dir - 6) : 0, path);
		return buf;
	}
	if (s->drill)
		return "drill-down (its variants are the selection it was run "
		       "for; --resume does not take it: if it was interrupted, "
		       "run the drill-down again with --overwrite)";
	if (s->gapped)
		return "incomplete (its variants are not the first ones of its "
		       "sweep, as a merge of some of the shards leaves it, so "
		       "--resume does not take it: merge again with the "
		       "missing shards)";
	return "stopped (continue it with vsweep run ... --resume)";
}

/* The file's state in words: "finished", "running (pid N)" (pid: the
 * writer lock's holder, 0 none) or what stopped_text says; 1 when
 * running, *complete when every variant of the sweep (shard) is
 * stored. */
static int state_words(const sweep_status *s, const char *path, long pid,
                       char *out, size_t size, int *complete)
{
	int64_t n = s->done + s->failed;
	*complete = s->expected && n >= s->expected && !s->gapped;
	int live = pid > 0 && !*complete;
	/* a part's text is written into out itself */
	const char *t = stopped_text(s, path, out, size);
	if (*complete)
		snprintf(out, size, "finished");
	else if (live)
		snprintf(out, size, "running (pid %ld)", pid);
	else if (t != out)
		snprintf(out, size, "%s", t);
	return live;
}

int cli_sweep_state_read(struct sqlite3 *db, const char *path,
                         cli_sweep_state *out)
{
	sweep_status s;
	memset(out, 0, sizeof *out);
	if (read_status(db, &s))
		return -1;
	out->done = s.done;
	out->failed = s.failed;
	out->crashed = s.crashed;
	out->expected = s.expected;
	if (s.expected > s.done + s.failed)
		out->missing = s.expected - (s.done + s.failed);
	out->running = state_words(&s, path, vs_store_writer_pid(path),
	                           out->words, sizeof out->words,
	                           &out->complete);
	return 0;
}

int cli_status(int argc, char **argv)
{
	static const char usage[] = "usage: vsweep status RESULTS.db\n";
	if (argc != 3 || argv[2][0] == '-') {
		fprintf(stderr, "vsweep: status needs one RESULTS.db\n%s", usage);
		return EXIT_BAD_INPUT;
	}
	const char *path = argv[2];
	int probe_errno = vs_store_read_errno(path);
	if (probe_errno) {
		fprintf(stderr, "vsweep: %s: cannot open results file: %s\n",
		        path, vs_store_read_error(probe_errno));
		return EXIT_BAD_INPUT;
	}
	long pid = vs_store_writer_pid(path);
	double written = last_write(path), now = now_real();
	sqlite3 *db = open_to_read(path);
	sweep_status s;
	if (!db || read_status(db, &s)) {
		fprintf(stderr, "vsweep: %s: not a vsweep results file%s%s\n",
		        path, db ? ": " : "", db ? sqlite3_errmsg(db) : "");
		sqlite3_close(db);
		return EXIT_BAD_INPUT;
	}
	sqlite3_close(db);
	int64_t n = s.done + s.failed;
	char words[CLI_STATE_WORDS];
	int complete, live = state_words(&s, path, pid, words, sizeof words,
	                                 &complete);
	/* running: this run's rate, the progress line's (the variants
	 * stored since it began over the time since; a resumed run's began
	 * after any pause); otherwise up to the last write (a resumed file's
	 * start is the first run's, so its rate is an average) */
	double span = (live ? now : written) - s.created;
	double rate = span > 0 ? (double)n / span : NAN;
	int resumed = live && isfinite(s.run_started) && s.run_stored > 0;
	if (live && isfinite(s.run_started)) {
		double dt = now - s.run_started;
		rate = dt > 0 ? (double)(n - s.run_stored) / dt : NAN;
	}
	char counts[256];
	format_counts(&s, live ? rate : NAN, counts, sizeof counts);
	printf("vsweep: %s: %s: %s", path, words, counts);
	if (!live && isfinite(rate))
		printf(", %.3g variants/s", rate);
	/* the times as the file stores them: created_utc has whole
	 * seconds, and a figure it does not hold is not printed */
	if (isfinite(s.created))
		printf(", started %s", s.created_text);
	if (resumed)
		printf(", resumed %s", s.run_started_text);
	if (!live && isfinite(span))
		printf(", %.0f s to the last write", span);
	printf("\n");
	return EXIT_OK;
}

/* ---- progress lines for a log ---- */

static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stop, final_line;
	const char *path;
	double interval;    /* s */
} prog = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* One line: the UTC time, counts, the rate of this run (variants stored
 * since it began over the time since it began), ETA. */
static void progress_line(sqlite3 **db, double t0, int64_t *n0, int final)
{
	if (!*db)
		*db = open_read_only(prog.path);
	sweep_status s;
	char counts[256], stamp[32];
	format_utc(now_real(), stamp);
	if (!*db || read_status(*db, &s)) {
		if (!final)
			fprintf(stderr, "vsweep: %s: starting\n", stamp);
		return;
	}
	int64_t n = s.done + s.failed;
	/* stored before this run (a resume's), as the file recorded at
	 * the run's start: the first line's count would make its own rate
	 * 0 ("13/400 variants, 0 variants/s", found in review) */
	if (*n0 < 0)
		*n0 = isfinite(s.run_started) && s.run_stored <= n
		              ? s.run_stored
		              : n;
	double dt = now_real() - t0;
	format_counts(&s, dt > 0 ? (double)(n - *n0) / dt : NAN, counts,
	              sizeof counts);
	fprintf(stderr, "vsweep: %s: %s%s%s\n", stamp, counts,
	        cli_progress_note[0] ? "; " : "", cli_progress_note);
	fflush(stderr);
}

static void *progress_main(void *unused)
{
	(void)unused;
	sqlite3 *db = NULL;
	int64_t n0 = -1;
	double t0 = now_real(), next = t0 + prog.interval;
	pthread_mutex_lock(&prog.mu);
	while (!prog.stop) {
		struct timespec ts;
		ts.tv_sec = (time_t)floor(next);
		ts.tv_nsec = (long)((next - floor(next)) * 1e9);
		if (pthread_cond_timedwait(&prog.cv, &prog.mu, &ts) == 0 &&
		    prog.stop)
			break;
		if (now_real() < next)
			continue;  /* woken early */
		pthread_mutex_unlock(&prog.mu);
		progress_line(&db, t0, &n0, 0);
		pthread_mutex_lock(&prog.mu);
		/* the next slot on the grid t0 + k * interval */
		while (next <= now_real())
			next += prog.interval;
	}
	int final = prog.final_line;
	pthread_mutex_unlock(&prog.mu);
	if (final)
		progress_line(&db, t0, &n0, 1);  /* the final count */
	sqlite3_close(db);
	return NULL;
}

int cli_progress_start(const char *path)
{
	prog.path = path;
	if (!(prog.interval > 0))
		prog.interval = CLI_PROGRESS_INTERVAL;
	prog.stop = 0;
	prog.started = pthread_create(&prog.thread, NULL, progress_main,
	                              NULL) == 0;
	return prog.started ? 0 : -1;
}

void cli_progress_stop(int final_line)
{
	if (!prog.started)
		return;
	pthread_mutex_lock(&prog.mu);
	prog.stop = 1;
	prog.final_line = final_line;
	pthread_cond_signal(&prog.cv);
	pthread_mutex_unlock(&prog.mu);
	pthread_join(prog.thread, NULL);
	prog.started = 0;
}

/* `--progress-interval S` for cli_run_parse (cli_own_option). */
int cli_progress_option(void *own, const char *o, const char *v, int *takes)
{
	if (strcmp(o, "--progress-interval"))
		return CLI_NOT_MINE;
	char *end = NULL;
	double s = v ? strtod(v, &end) : -1;
	if (!v || end == v || *end || !(s >= 0.1) || s > 86400) {
		fprintf(stderr, "vsweep: --progress-interval needs seconds in "
		        "[0.1, 86400], got '%s'\n", v ? v : "");
		return EXIT_BAD_INPUT;
	}
	(void)own;
	prog.interval = s;
	*takes = 1;
	return 0;
}
