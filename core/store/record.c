/* The results file's own record (record.h): the meta keys in one table,
 * which of them are identity, and the shard record's forms. */
#include "store/record.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* How a meta key takes part in a file's identity. */
enum role {
	FACT,      /* about this file only: never compared */
	SWEEP,     /* the same in every file of one sweep (resume, merge) */
	PER_FILE   /* identity of this file, differs between its shards */
};

vs_rc vs_store_format_check(const char *path, const char *format,
                            vs_error *err)
{
	if (!format || strcmp(format, VS_RESULTS_FORMAT) == 0)
		return VS_RC_OK; /* none: the identity checks say so */
	if (strcmp(format, "vsweep results 1") == 0)
		vs_error_set(err, "%s: results format 1, written before the pose "
		             "axes changed in format 2 (pitch now turns about "
		             "the actor's X axis, roll about its Y); rerun its "
		             "sweep into a new file", path);
	else if (strcmp(format, "vsweep results 2") == 0)
		vs_error_set(err, "%s: results format 2, written before format "
		             "3 added variant labels and pair rows and put an "
		             "OpenDRIVE road's slope into pitch and its bank "
		             "into roll; rerun its sweep into a new file", path);
	else if (strcmp(format, "vsweep results 3") == 0)
		vs_error_set(err, "%s: results format 3, whose state rows are "
		             "numbered by rowid with a separate index; format 4 "
		             "keeps them by their key (variant, actor, step). It "
		             "can still be queried as it is; rerun its sweep into "
		             "a new file to resume or merge it", path);
	else
		vs_error_set(err, "%s: results format '%s' is not this "
		             "vsweep's ('%s')", path, format, VS_RESULTS_FORMAT);
	return VS_RC_INPUT;
}

vs_store_def vs_store_default_def(void)
{
	return (vs_store_def){
		.mode = VS_STORE_CREATE,
		.scenario_text = "",
		.sweep_text = "",
		.record_every = 1,
		.record = "",
		.shard = "0/1",
		.scenario_path = "",
		.sweep_path = "",
		.map_digest = "",
		.map_path = "",
	};
}

static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

/* The meta rows of d in the order they are written: identity first, so
 * that a stored file's meta rows keep the order they always had. The one
 * list of the keys: adding a record is adding a row here. */
typedef struct entry {
	vs_meta m;
	enum role role;
	int added; /* written since a later build: older files lack it */
} entry;

static int entries(const vs_store_def *d, const vs_meta_made *made,
                   entry e[VS_STORE_META_MAX])
{
	const entry all[] = {
		{{"format", 1, VS_RESULTS_FORMAT, 0}, SWEEP, 0},
		{{"vsweep_version", 1, VS_VERSION, 0}, SWEEP, 0},
		{{"scenario_text", 1, text_or_empty(d->scenario_text), 0}, SWEEP, 0},
		{{"sweep_text", 1, text_or_empty(d->sweep_text), 0}, SWEEP, 0},
		{{"step", 0, NULL, d->step}, SWEEP, 0},
		{{"record_every", 0, NULL, d->record_every}, SWEEP, 0},
		{{"record", 1, text_or_empty(d->record), 0}, SWEEP, 0},
		{{"shard", 1, text_or_empty(d->shard), 0}, PER_FILE, 0},
		{{"variant_count", 0, NULL, (double)d->variant_count}, SWEEP, 0},
		/* the map file's bytes: its path is where it was, as a
		 * plugin's (table plugin) */
		{{"map_digest", 1, text_or_empty(d->map_digest), 0}, SWEEP, 1},
		{{"scenario_path", 1, text_or_empty(d->scenario_path), 0}, FACT, 0},
		{{"sweep_path", 1, text_or_empty(d->sweep_path), 0}, FACT, 0},
		{{"map_path", 1, text_or_empty(d->map_path), 0}, FACT, 1},
		{{"steps", 0, NULL, (double)d->steps}, FACT, 0},
		{{"duration", 0, NULL, d->duration}, FACT, 0},
		{{"created_utc", 1, made->created, 0}, FACT, 0},
		{{"file_id", 1, made->file_id, 0}, FACT, 0},
	};
	int n = (int)(sizeof all / sizeof all[0]);
	_Static_assert(sizeof all / sizeof all[0] <= VS_STORE_META_MAX,
	               "VS_STORE_META_MAX too small");
	for (int i = 0; i < n; i++)
		e[i] = all[i];
	return n;
}

/* 16 random bytes in hex: the kernel's, or, where getrandom fails
 * (no entropy source in a container at boot), the clock's nanoseconds
 * and the process id, which no two files made on one machine share. */
void vs_store_new_file_id(char out[40])
{
	unsigned char b[16] = {0};
	if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t a = (uint64_t)ts.tv_sec * 1000000000u +
		             (uint64_t)ts.tv_nsec;
		uint64_t p = (uint64_t)getpid();
		memcpy(b, &a, 8);
		memcpy(b + 8, &p, 8);
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int vs_store_def_meta(const vs_store_def *d, vs_meta_made *made,
                      vs_meta meta[VS_STORE_META_MAX], int *n_identity)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(made->created, sizeof made->created, "%Y-%m-%dT%H:%M:%SZ",
	         &tm);
	vs_store_new_file_id(made->file_id);
	entry e[VS_STORE_META_MAX];
	/* gcc -O2 cannot see that entries() fills every row read below */
	memset(e, 0, sizeof e);
	int n = entries(d, made, e);
	*n_identity = 0;
	for (int i = 0; i < n; i++) {
		meta[i] = e[i].m;
		if (e[i].role != FACT)
			*n_identity = i + 1;
	}
	return n;
}

/* Not in entries(): they are this run's, not the file's, and written
 * by a run once it has taken the file, not by vs_store_open (which
 * check and vsweep-mpi's part checks call too). */
int vs_store_run_meta(int64_t stored, char started[32], vs_meta meta[2])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(started, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(started + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000));
	meta[0] = (vs_meta){"run_started_utc", 1, started, 0};
	meta[1] = (vs_meta){"run_started_stored", 0, NULL, (double)stored};
	return 2;
}

static int is_sweep(const entry *e)
{
	return e->role == SWEEP;
}

static int is_added(const entry *e)
{
	return e->added;
}

/* The i-th key of the default record's entries that pick takes, or
 * NULL past the last. */
static const char *nth_key(int i, int (*pick)(const entry *))
{
	vs_store_def d = vs_store_default_def();
	vs_meta_made none = {"", ""};
	entry e[VS_STORE_META_MAX];
	memset(e, 0, sizeof e);
	int n = entries(&d, &none, e);
	for (int k = 0; k < n; k++)
		if (pick(&e[k]) && i-- == 0)
			return e[k].m.key; /* a literal: outlives e */
	return NULL;
}

const char *vs_store_sweep_key(int i)
{
	return nth_key(i, is_sweep);
}

const char *vs_store_added_key(int i)
{
	return nth_key(i, is_added);
}

int vs_store_key_is_added(const char *key)
{
	const char *k;
	for (int i = 0; (k = vs_store_added_key(i)); i++)
		if (strcmp(k, key) == 0)
			return 1;
	return 0;
}

void vs_store_shard_label(char *buf, size_t len, uint64_t k, uint64_t n)
{
	snprintf(buf, len, "%llu/%llu", (unsigned long long)k,
	         (unsigned long long)n);
}

void vs_store_part_label(char *buf, size_t len, long rank)
{
	snprintf(buf, len, "part %ld", rank);
}

vs_rc vs_store_parse_shard(const char *text, int *is_part, uint64_t *k,
                           uint64_t *n)
{
	unsigned long long a = 0, b = 0;
	*is_part = 0;
	*k = *n = 0;
	if (!text)
		return VS_RC_INPUT;
	if (sscanf(text, "part %llu", &a) == 1) {
		*is_part = 1;
		*k = a;
		return VS_RC_OK;
	}
	if (sscanf(text, "%llu/%llu", &a, &b) != 2 || a >= b)
		return VS_RC_INPUT;
	*k = a;
	*n = b;
	return VS_RC_OK;
}

uint64_t vs_store_shard_count(uint64_t count, uint64_t k, uint64_t n)
{
	return count > k ? (count - k - 1) / n + 1 : 0;
}

const char *vs_store_kind_name(vs_kind kind)
{
	return kind == VS_KIND_VEHICLE_MODEL ? "vehicle_model" : "behaviour";
}
