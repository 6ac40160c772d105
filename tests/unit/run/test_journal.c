/* The crash journal (core/run/journal.c): a crashed variant's reason,
 * wall-clock seconds and log rows come back from it byte for byte and
 * bit for bit, whatever the texts hold (a tab, a newline, '%'); at most
 * the rows the log view keeps; and a line a kill cut short, or one
 * spoilt or of another format, is not believed, nor does it join the
 * line written after it. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "run/journal.h"
#include "test_journal.h"

static char dir[64], out[96], path[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/vs_journal_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/r.db", dir);
	snprintf(path, sizeof path, "%s.crashes", out);
	FILE *f = fopen(out, "w"); /* the results file: only looked at */
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

static void teardown(void)
{
	unlink(path);
	unlink(out);
	rmdir(dir);
}

/* The plugins and messages of the crashes below; row k of variant v
 * gets message text_of(v, k). */
static const char *const plugins[] = {"", "long_log", "p%q\tr"};

static void text_of(char *buf, size_t n, uint64_t v, int64_t k)
{
	snprintf(buf, n, "v%llu row %lld: 100%% \\x1b tab\there\nnext",
	         (unsigned long long)v, (long long)k);
}

/* Variant v's crash: n_logs messages logged, the first kept ones (up to
 * VS_LOG_ROWS_KEPT) in its rows. */
static void crash_of(vs_result *res, uint64_t v, int64_t n_logs)
{
	memset(res, 0, sizeof *res);
	res->variant = v;
	res->status = VS_VARIANT_FAILED;
	snprintf(res->error, sizeof res->error, "crashed: signal 11 "
	         "(SIGSEGV) in plugin p%%d\t, variant %llu\n",
	         (unsigned long long)v);
	res->wall_seconds = 0.1 * (double)v + 1e-9; /* s, not a short one */
	int64_t kept = n_logs < VS_LOG_ROWS_KEPT ? n_logs : VS_LOG_ROWS_KEPT;
	res->logs = vs_xcalloc((size_t)kept + 1, sizeof *res->logs);
	for (int64_t k = 0; k < kept; k++) {
		char m[128];
		text_of(m, sizeof m, v, k);
		res->logs[k].actor_id = k % 3;
		res->logs[k].t = 0.01 * (double)k; /* s, not exact in binary */
		res->logs[k].level = (int)(k % 5);
		res->logs[k].plugin = plugins[k % 3];
		res->logs[k].message = vs_strdup(m);
	}
	res->n_logs = n_logs;
}

static void add(uint64_t v, int64_t n_logs, int resume)
{
	vs_journal *j = vs_journal_open(out, "file-id", resume);
	vs_result res;
	crash_of(&res, v, n_logs);
	vs_journal_add(j, &res);
	vs_result_finish(&res);
	vs_journal_close(j, 0);
}

/* Whether the journal, opened to resume, knows variant v's crash as
 * crash_of(v, n_logs) made it (its kept rows: n_logs at most
 * VS_LOG_ROWS_KEPT). */
static int knows(const vs_journal *j, uint64_t v, int64_t n_logs)
{
	vs_result got = {0}, want;
	if (!vs_journal_crash(j, v, &got))
		return 0;
	crash_of(&want, v, n_logs);
	int64_t kept = n_logs < VS_LOG_ROWS_KEPT ? n_logs : VS_LOG_ROWS_KEPT;
	ck_assert_str_eq(got.error, want.error);
	ck_assert(memcmp(&got.wall_seconds, &want.wall_seconds,
	                 sizeof got.wall_seconds) == 0);
	ck_assert_int_eq(got.n_logs, kept);
	for (int64_t k = 0; k < kept; k++) {
		const vs_log_row *a = &got.logs[k], *b = &want.logs[k];
		ck_assert_int_eq(a->actor_id, b->actor_id);
		ck_assert(memcmp(&a->t, &b->t, sizeof a->t) == 0);
		ck_assert_int_eq(a->level, b->level);
		ck_assert_str_eq(a->plugin, b->plugin);
		ck_assert_str_eq(a->message, b->message);
	}
	vs_result_finish(&want);
	/* its plugin names are the journal's, its messages its own */
	vs_result_finish(&got);
	return 1;
}

static size_t file_size(void)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return (size_t)n;
}

static char *read_all(size_t *n)
{
	*n = file_size();
	char *p = vs_xcalloc(*n + 1, 1);
	FILE *f = fopen(path, "rb");
	ck_assert_uint_eq(fread(p, 1, *n, f), *n);
	fclose(f);
	return p;
}

static void append_bytes(const char *p, size_t n)
{
	FILE *f = fopen(path, "ab");
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

START_TEST(a_crash_comes_back_whole)
{
	add(7, 3, 0);
	add(9, 0, 1);
	vs_journal *j = vs_journal_open(out, "file-id", 1);
	ck_assert(knows(j, 7, 3));
	ck_assert(knows(j, 9, 0));
	vs_result none = {0};
	ck_assert_int_eq(vs_journal_crash(j, 8, &none), 0);
	vs_journal_close(j, 1); /* complete: removed */
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(at_most_the_rows_the_log_view_keeps)
{
	add(3, VS_LOG_ROWS_KEPT + 500, 0);
	vs_journal *j = vs_journal_open(out, "file-id", 1);
	ck_assert(knows(j, 3, VS_LOG_ROWS_KEPT + 500));
	vs_journal_close(j, 0);
}
END_TEST

START_TEST(a_cut_line_is_not_believed_nor_joined)
{
	add(1, 2, 0);
	size_t n1;
	char *first = read_all(&n1);
	add(2, 2, 1);
	size_t n2;
	char *both = read_all(&n2);
	/* as a kill leaves it: variant 2's line cut in its middle */
	ck_assert_int_eq(truncate(path, (off_t)(n1 + (n2 - n1) / 2)), 0);
	vs_journal *j = vs_journal_open(out, "file-id", 1);
	ck_assert(knows(j, 1, 2));
	vs_result none = {0};
	ck_assert_int_eq(vs_journal_crash(j, 2, &none), 0);
	vs_journal_close(j, 0);
	/* the resume's own crash, on a line of its own */
	add(4, 2, 1);
	j = vs_journal_open(out, "file-id", 1);
	ck_assert(knows(j, 1, 2));
	ck_assert(knows(j, 4, 2));
	ck_assert_int_eq(vs_journal_crash(j, 2, &none), 0);
	vs_journal_close(j, 0);
	size_t n;
	char *now = read_all(&n);
	ck_assert(n > n1 && memcmp(now, first, n1) == 0);
	free(now);
	free(first);
	free(both);
}
END_TEST

START_TEST(a_spoilt_line_is_not_believed)
{
	add(5, 2, 0);
	size_t n;
	char *line = read_all(&n);
	add(6, 2, 1);
	/* variant 5's line again, a byte of its reason changed ('c' of
	 * "crashed" to 'C'), and as an older build wrote it: the results
	 * file's field, the variant and the reason alone */
	char *c = strstr(line, "\tcrashed");
	ck_assert_ptr_nonnull(c);
	c[1] = 'C';
	append_bytes(line, n);
	char *tab = strchr(line, '\t');
	char old[256];
	int m = snprintf(old, sizeof old, "%.*s\t11\tcrashed: signal 11\n",
	                 (int)(tab - line), line);
	append_bytes(old, (size_t)m);
	vs_journal *j = vs_journal_open(out, "file-id", 1);
	ck_assert(knows(j, 5, 2)); /* its first line's; the last is spoilt */
	ck_assert(knows(j, 6, 2));
	vs_result none = {0};
	ck_assert_int_eq(vs_journal_crash(j, 11, &none), 0);
	vs_journal_close(j, 0);
	free(line);
}
END_TEST

START_TEST(another_files_journal_is_removed)
{
	add(5, 2, 0);
	vs_journal *j = vs_journal_open(out, "another-file-id", 1);
	vs_result none = {0};
	ck_assert_int_eq(vs_journal_crash(j, 5, &none), 0);
	vs_journal_close(j, 0);
	ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

TCase *journal_tcase(void)
{
	TCase *t = tcase_create("journal");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, a_crash_comes_back_whole);
	tcase_add_test(t, at_most_the_rows_the_log_view_keeps);
	tcase_add_test(t, a_cut_line_is_not_believed_nor_joined);
	tcase_add_test(t, a_spoilt_line_is_not_believed);
	tcase_add_test(t, another_files_journal_is_removed);
	return t;
}
