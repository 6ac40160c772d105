/* The crash journal: FILE.crashes, one line for each variant whose
 * child process crashed, written the moment the crash is known
 * (contain.c), before the writer stores the variant, which may be long
 * after: results are stored in order, and a slow variant ahead holds them
 * back. If vsweep is killed in between, the crash is known on resume and
 * the variant is stored failed as the run would have stored it, without
 * being simulated again: the same reason, wall-clock seconds and log rows
 * (the lines its process printed, with their levels, actors and times),
 * so that the file is the one an uninterrupted run writes; a resume never
 * crashes on the same variant again and again (a variant that was merely
 * in flight at a kill has no line and is simulated again, as before). A
 * crashed variant stores nothing else: no state, actor, wheel, event,
 * signal or pair rows and no summary (contain.c drops its result).
 *
 * A line holds what the variant stores, and is believed only whole and
 * with its check, so that a kill in the middle of writing one costs no
 * more than that variant's simulation (journal_line.c says how).
 *
 * Why a file beside the results and not a table in it: the crash must be
 * recorded at once, from a worker thread, while the writer holds a
 * transaction open; a line appended with write() (O_APPEND, one line at
 * a time) costs nothing and survives a kill -9 (the kernel has it). Lines
 * of variants stored since are harmless: a resume never asks about them.
 * The file exists only once a variant crashed (most runs never make one),
 * and is removed when the run completes; a run that starts afresh removes
 * an old one, and so does a resume that makes the results file anew or
 * extends its sweep (run_record.c): the old numbers name other variants.
 *
 * RESULTS ties a line to the results file it belongs to: its inode and
 * birth time, which only that file has, and its content's random
 * identity (meta's file_id), which a copy of another results file over
 * it in place (same inode, same birth time) does not share, even one
 * begun in the same second (a file begun before file_id existed gives
 * its created_utc instead, to the second). A results
 * file deleted and made
 * again at the same path is another file even where the file system
 * gives it the old inode number, so a journal left beside it is never
 * believed, whoever removed the file and however it came back: a journal
 * with a line of another file is removed at open. Where the file system
 * keeps no birth time the inode alone ties it (removing the journal with
 * a file made anew is then what holds). Not the path (the file may be
 * moved with its journal) nor the device number (it changes between
 * mounts, and between the machines of a cluster sharing the file).
 *
 * Written by runner.c's workers, read by its simulate(). */
#define _GNU_SOURCE /* statx */
#include "run/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "run/journal_line.h"

struct vs_journal {
	char *path;
	char file[96];  /* the results file's RESULTS field */
	int fd;        /* appended to; -1: not yet opened */
	pthread_mutex_t mu; /* the first crash opens the file; one line
	                     * written at a time */
	vs_journal_entry *crashes; /* read at open, then read-only: no
	                            * lock needed */
	int n;
};

/* The RESULTS field of the results file out (journal.c's head says
 * why these), or 0 when out cannot be looked at. */
static int file_key(const char *out, const char *made, char key[96])
{
	struct statx sx;
	if (statx(AT_FDCWD, out, 0, STATX_INO | STATX_BTIME, &sx) != 0)
		return 0;
	/* made: its content's identity (its meta), which a copy of another
	 * results file over it (same inode, same birth time) does not
	 * share */
	if (sx.stx_mask & STATX_BTIME)
		snprintf(key, 96, "%llu@%lld.%09u#%.40s",
		         (unsigned long long)sx.stx_ino,
		         (long long)sx.stx_btime.tv_sec,
		         (unsigned)sx.stx_btime.tv_nsec, made ? made : "");
	else
		snprintf(key, 96, "%llu#%.40s", (unsigned long long)sx.stx_ino,
		         made ? made : "");
	return 1;
}

static void forget(vs_journal *j)
{
	for (int k = 0; k < j->n; k++)
		vs_journal_entry_free(&j->crashes[k]);
	free(j->crashes);
	j->crashes = NULL;
	j->n = 0;
}

/* Reads this results file's crashes; removes the journal when it holds
 * another file's, and the rest of a line a kill cut short. */
static void load(vs_journal *j)
{
	FILE *f = fopen(j->path, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	off_t at = 0, whole = 0; /* bytes read; up to the last newline */
	int cap = 0, foreign = 0;
	while (!foreign && (len = getline(&line, &size, f)) > 0) {
		at += len;
		if (line[len - 1] != '\n')
			continue; /* a line cut by a kill: no crash to trust */
		whole = at;
		line[len - 1] = '\0';
		vs_journal_entry c;
		int r = vs_journal_parse(line, (size_t)len - 1, j->file, &c);
		if (r < 0)
			foreign = 1;
		if (r <= 0)
			continue;
		if (j->n == cap) {
			cap = cap ? 2 * cap : 8;
			j->crashes = vs_xrealloc(j->crashes,
			                         (size_t)cap * sizeof *j->crashes);
		}
		j->crashes[j->n++] = c;
	}
	free(line);
	fclose(f);
	if (foreign) {
		/* Another results file's: its variants are not this file's. */
		forget(j);
		unlink(j->path);
	} else if (at > whole && truncate(j->path, whole) != 0) {
		/* Lines appended after the cut one would join it: none are
		 * believed then, as without a journal. */
		forget(j);
		unlink(j->path);
	}
}

static char *journal_path(const char *out)
{
	size_t n = strlen(out) + sizeof ".crashes";
	char *p = vs_xcalloc(1, n);
	snprintf(p, n, "%s.crashes", out);
	return p;
}

void vs_journal_remove(const char *out)
{
	char *p = journal_path(out);
	unlink(p);
	free(p);
}

vs_journal *vs_journal_open(const char *out, const char *made, int resume)
{
	vs_journal *j = vs_xcalloc(1, sizeof *j);
	j->path = journal_path(out);
	j->fd = -1;
	pthread_mutex_init(&j->mu, NULL);
	if (!file_key(out, made, j->file)) {
		/* Crashes that could not be tied to the file would be believed
		 * of whatever file comes next: none are kept. */
		unlink(j->path);
		j->file[0] = '\0';
		return j;
	}
	if (resume)
		load(j);
	else
		unlink(j->path); /* another run's */
	return j;
}

int vs_journal_crash(const vs_journal *j, uint64_t i, vs_result *res)
{
	/* The last line wins: a variant crashed twice (resumed without the
	 * journal's help, e.g. unreadable then) has the newest reason. */
	const vs_journal_entry *c = NULL;
	for (int k = j ? j->n - 1 : -1; k >= 0 && !c; k--)
		if (j->crashes[k].variant == i)
			c = &j->crashes[k];
	if (!c)
		return 0;
	snprintf(res->error, sizeof res->error, "%s", c->reason);
	res->wall_seconds = c->wall;
	res->logs = vs_xcalloc((size_t)c->n_logs + 1, sizeof *res->logs);
	for (int k = 0; k < c->n_logs; k++) {
		res->logs[k] = c->logs[k]; /* its plugin the journal's */
		res->logs[k].message = vs_strdup(c->logs[k].message);
	}
	res->n_logs = c->n_logs;
	return 1;
}

/* Writes n bytes at the journal's end, whole or not at all (a full disk:
 * what was written of them is cut off again, so that the next line
 * starts on a line of its own); under mu. */
static void append(vs_journal *j, const char *p, size_t n)
{
	struct stat st;
	if (fstat(j->fd, &st) != 0)
		return;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(j->fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (done < n && ftruncate(j->fd, st.st_size) != 0) {
		/* The journal is a help, not a duty: the cut line is not
		 * believed (load), nor, then, the next. */
	}
}

void vs_journal_add(vs_journal *j, const vs_result *res)
{
	if (!j || !j->file[0])
		return;
	size_t n;
	char *line = vs_journal_line(j->file, res, &n);
	pthread_mutex_lock(&j->mu);
	if (j->fd < 0)
		j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		             0644);
	if (j->fd >= 0)
		append(j, line, n);
	pthread_mutex_unlock(&j->mu);
	free(line);
}

void vs_journal_close(vs_journal *j, int complete)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	pthread_mutex_destroy(&j->mu);
	if (complete)
		unlink(j->path);
	forget(j);
	free(j->path);
	free(j);
}
