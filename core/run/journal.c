/* The crash journal: FILE.crashes, one line "VARIANT<TAB>REASON" for each
 * variant whose child process crashed, written the moment the crash is
 * known (contain.c), before the writer stores the variant, which may be
 * long after: results are stored in order, and a slow variant ahead
 * holds them back. If vsweep is killed in between, the crash is known on
 * resume and the variant is stored failed with the same reason without
 * being simulated again: a resume never crashes on the same variant
 * again and again (a variant that was merely in flight at a kill has no
 * line and is simulated again, as before).
 *
 * Why a file beside the results and not a table in it: the crash must be
 * recorded at once, from a worker thread, while the writer holds a
 * transaction open; a line appended with one write() (O_APPEND) costs
 * nothing and survives a kill -9 (the kernel has it). Lines of variants
 * stored since are harmless: a resume never asks about them. The file
 * exists only once a variant crashed (most runs never make one), and is
 * removed when the run completes; a run that starts afresh removes an
 * old one.
 *
 * Written by runner.c's workers, read by its simulate(). */
#include "run/journal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"

typedef struct crash {
	uint64_t variant;
	char *reason;
} crash;

struct vs_journal {
	char *path;
	int fd;        /* appended to; -1: not yet opened */
	pthread_mutex_t mu; /* the first crash opens the file */
	crash *crashes; /* read at open, then read-only: no lock needed */
	int n;
};

static void load(vs_journal *j)
{
	FILE *f = fopen(j->path, "r");
	if (!f)
		return;
	char line[2048];
	int cap = 0;
	while (fgets(line, sizeof line, f)) {
		char *tab = strchr(line, '\t');
		char *end = NULL;
		unsigned long long v = strtoull(line, &end, 10);
		if (!tab || end != tab)
			continue; /* a line cut by a kill: no crash to trust */
		size_t len = strcspn(tab + 1, "\n");
		if (tab[1 + len] != '\n')
			continue;
		tab[1 + len] = '\0';
		if (j->n == cap) {
			cap = cap ? 2 * cap : 8;
			j->crashes = vs_xrealloc(j->crashes,
			                         (size_t)cap * sizeof *j->crashes);
		}
		j->crashes[j->n].variant = v;
		j->crashes[j->n].reason = vs_strdup(tab + 1);
		j->n++;
	}
	fclose(f);
}

vs_journal *vs_journal_open(const char *out, int resume)
{
	vs_journal *j = vs_xcalloc(1, sizeof *j);
	size_t n = strlen(out) + sizeof ".crashes";
	j->path = vs_xcalloc(1, n);
	snprintf(j->path, n, "%s.crashes", out);
	if (resume)
		load(j);
	else
		unlink(j->path); /* another run's */
	j->fd = -1;
	pthread_mutex_init(&j->mu, NULL);
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
	if (!j)
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
	int n = snprintf(line, sizeof line - 1, "%llu\t",
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
	for (int k = 0; k < j->n; k++)
		free(j->crashes[k].reason);
	free(j->crashes);
	free(j->path);
	free(j);
}
