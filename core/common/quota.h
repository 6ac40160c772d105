/* Run-wide caps on the stderr lines a run repeats per variant: a
 * plugin's messages and the "failed:" line of each failed variant.
 * An overnight sweep of 10^6 variants whose plugin warns in each would
 * otherwise print millions of lines; the results file keeps every one
 * (the log view, variant_info.error), so past the cap stderr says once
 * where to find the rest (the run's summary line counts the failed).
 * Used by sim/signals.c and run/contain.c (plugin lines, in whichever
 * process prints them) and run/runner.c (failure lines). */
#ifndef VS_QUOTA_H
#define VS_QUOTA_H

/* Lines of each kind printed per run before the cap. */
#define VS_QUOTA_LINES 100

typedef enum vs_quota {
	VS_QUOTA_PLUGIN, /* a plugin's message (vs_log_add's lines) */
	VS_QUOTA_FAILED, /* "vsweep: variant N: failed: REASON" */
	VS_QUOTA_KINDS
} vs_quota;

/* 1: print the line of kind q; -1: the cap is reached with this line:
 * print vs_quota_notice(q) instead; 0: print nothing (thread-safe). */
int vs_quota_take(vs_quota q);

/* The line that says, once, that lines of kind q are no longer printed
 * and where they all are. */
const char *vs_quota_notice(vs_quota q);

/* Starts the counts again (each run, and tests). */
void vs_quota_reset(void);

#endif
