/* One line of the crash journal (journal.c): a crashed variant's record,
 * written and read back (journal_line.c says how). */
#ifndef VS_RUN_JOURNAL_LINE_H
#define VS_RUN_JOURNAL_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/result.h"

/* What a crashed variant stores beside its params: its variant row's
 * reason and wall-clock time, and its log rows. */
typedef struct vs_journal_entry {
	uint64_t variant;
	char *reason;
	double wall;      /* s, the variant's wall-clock time */
	int n_logs;
	vs_log_row *logs; /* their plugin and message owned */
} vs_journal_entry;

/* The line, newline included, of res's crash in the results file whose
 * RESULTS field is file; owned, its length in *n. */
char *vs_journal_line(const char *file, const vs_result *res, size_t *n);

/* Reads the line of len bytes (its newline cut, changed in place) into
 * e: 1; 0 when it is not a whole line of this format (cut, spoilt, an
 * older build's); -1 when it is another results file's than file's. */
int vs_journal_parse(char *line, size_t len, const char *file,
                     vs_journal_entry *e);

/* Frees what e owns. */
void vs_journal_entry_free(vs_journal_entry *e);

#endif
