/* The crash journal: FILE.crashes, one line "RESULTS<TAB>VARIANT<TAB>
 * REASON" for each variant whose child process crashed, written the
 * moment the crash is known (contain.c), before the writer stores the
 * variant, which may be long after: results are stored in order, and a
 * slow variant ahead holds them back. If vsweep is killed in between, the
 * crash is known on resume and the variant is stored failed with the same
 * reason without being simulated again: a resume never crashes on the
 * same variant again and again (a variant that was merely in flight at a
 * kill has no line and is simulated again, as before).
 *
 * Why a file beside the results and not a table in it: the crash must be
 * recorded at once, from a worker thread, while the writer holds a
 * transaction open; a line appended with one write() (O_APPEND) costs
 * nothing and survives a kill -9 (the kernel has it). Lines of variants
 * stored since are harmless: a resume never asks about them. The file
 * exists only once a variant crashed (most runs never make one), and is
 * removed when the run completes; a run that starts afresh removes an
 * old one, and so does a resume that makes the results file anew or
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

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

typedef struct crash {
	uint64_t variant;
	char *reason;
} crash;

struct vs_journal {
	char *path;
	char file[96];  /* the results file's RESULTS field */
	int fd;        /* appended to; -1: not yet opened */
	pthread_mutex_t mu; /* the first crash opens the file */
	crash *crashes; /* read at open, then read-only: no lock needed */
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
		free(j->crashes[k].reason);
	free(j->crashes);
	j->crashes = NULL;
	j->n = 0;
}

/* Reads this results file's crashes; removes the journal when it holds
 * another file's. */
static void load(vs_journal *j)
{
	FILE *f = fopen(j->path, "r");
	if (!f)
		return;
	char line[2048];
	int cap = 0, foreign = 0;
	size_t klen = strlen(j->file);
	while (!foreign && fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");
		if (line[len] != '\n')
			continue; /* a line cut by a kill: no crash to trust */
		line[len] = '\0';
		char *tab = strchr(line, '\t');
		char *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
		char *end = NULL;
		unsigned long long v = tab2 ? strtoull(tab + 1, &end, 10) : 0;
		if (!tab2 || end != tab2 || end == tab + 1)
			continue; /* not a line of this format */
		if ((size_t)(tab - line) != klen ||
		    memcmp(line, j->file, klen) != 0) {
			foreign = 1;
			break;
		}
		if (j->n == cap) {
			cap = cap ? 2 * cap : 8;
			j->crashes = vs_xrealloc(j->crashes,
			                         (size_t)cap * sizeof *j->crashes);
		}
		j->crashes[j->n].variant = v;
		j->crashes[j->n].reason = vs_strdup(tab2 + 1);
		j->n++;
	}
	fclose(f);
	if (foreign) {
		/* Another results file's: its variants are not this file's. */
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

const char *vs_journal_crash(const vs_journal *j, uint64_t i)
{
	/* The last line wins: a variant crashed twice (resumed without the
	 * journal's help, e.g. unreadable then) has the newest reason. */
	for (int k = j ? j->n - 1 : -1; k >= 0; k--)
		if (j->crashes[k].variant == i)
			return j->crashes[k].reason;
	return NULL;
}

void vs_journal_add(vs_journal *j, uint64_t i, const char *reason)
{
	if (!j || !j->file[0])
		return;
	pthread_mutex_lock(&j->mu);
	if (j->fd < 0)
		j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		             0644);
	int fd = j->fd;
	pthread_mutex_unlock(&j->mu);
	if (fd < 0)
		return;
	char line[1200];
	int n = snprintf(line, sizeof line - 1, "%s\t%llu\t", j->file,
	                 (unsigned long long)i);
	for (const char *c = reason; *c && n < (int)sizeof line - 2; c++)
		line[n++] = *c == '\n' || *c == '\t' ? ' ' : *c;
	line[n++] = '\n';
	/* One write: whole lines, whichever worker writes when. */
	if (write(fd, line, (size_t)n) != n) {
		/* A full disk: the journal is a help, not a duty. */
	}
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
