/* The crash journal beside a results file (FILE.crashes): which variants
 * crashed in a run that has not stored them yet, why, and the log rows
 * they left, so that a resume stores them failed as the run would have,
 * instead of simulating them again (journal.c says when it is written,
 * read and removed). */
#ifndef VS_RUN_JOURNAL_H
#define VS_RUN_JOURNAL_H

#include <stdint.h>

#include "sim/result.h"

typedef struct vs_journal vs_journal;

/* Opens out's journal, out being open already: read when resuming (its
 * crashes known, those of this very file only: its inode and birth time,
 * and made, its content's identity, its meta's file_id),
 * else an old one is removed; the file is made at the first crash.
 * Never fails: without a journal, a resume simulates crashed variants
 * again (the old behaviour), nothing worse. */
vs_journal *vs_journal_open(const char *out, const char *made, int resume);

/* Fills res's reason, wall-clock seconds and log rows from variant i's
 * crash in an earlier run: 1, or 0 when it has none. The rows' plugin
 * names are the journal's, valid until vs_journal_close. */
int vs_journal_crash(const vs_journal *j, uint64_t i, vs_result *res);

/* Records that variant res->variant crashed, with what its variant row
 * and log rows store of it (its reason, wall-clock seconds, the log rows
 * the store keeps); any thread. */
void vs_journal_add(vs_journal *j, const vs_result *res);

/* Closes; removes the file when the run stored every variant (complete),
 * for then nothing is left to resume. Accepts NULL. */
void vs_journal_close(vs_journal *j, int complete);

/* Removes out's journal, if any: its variant numbers no longer name the
 * variants to run (out was made anew, or its sweep extended). For the
 * holder of out's writer lock, before vs_journal_open. */
void vs_journal_remove(const char *out);

#endif
