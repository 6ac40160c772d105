/* Error messages that say where they come from. */
#ifndef VS_ERROR_H
#define VS_ERROR_H

#include <stddef.h>
#include <stdio.h>
#include <vsweep/plugin.h>

/* A 1-based position in an input file; line 0 means "no position". */
typedef struct vs_mark {
	int line;
	int col;
} vs_mark;

/* Caller-owned error slot. Empty (msg[0] == 0) means no error. */
typedef struct vs_error {
	char msg[1024];
} vs_error;

/* Sets the message; the first error wins, later ones are ignored, so the
 * deepest cause is what the user sees. */
void vs_error_set(vs_error *err, const char *fmt, ...) VS_PRINTF(2, 3);

/* Sets "FILE:LINE:COL: message" (or "FILE: message" without a position). */
void vs_error_at(vs_error *err, const char *file, vs_mark mark,
                 const char *fmt, ...) VS_PRINTF(4, 5);

/* Rewrites control characters in msg (a NUL-terminated string in a buffer
 * of size bytes) as visible escapes (\n, \t, \xNN), truncating to fit:
 * text from input files or plugins never reaches a terminal raw. C0 and
 * C1 controls, DEL, the bidirectional overrides and isolates (U+202A to
 * U+202E, U+2066 to U+2069) and bytes that are not UTF-8 are escaped,
 * a character of several bytes as each of its bytes (\xc2\x9b). Every
 * vs_error message passes through it. */
void vs_escape_controls(char *msg, size_t size);

/* The same escapes for the n bytes at src, NULs among them (each \x00),
 * written NUL-terminated into dst (size bytes, 4 * n + 1 always enough),
 * truncated to fit; returns the bytes written before the NUL. For text
 * whose length is known and may hold any byte: what a plugin printed. */
size_t vs_escape_bytes(char *dst, size_t size, const char *src, size_t n);

static inline int vs_error_is_set(const vs_error *err)
{
	return err->msg[0] != 0;
}

/* Where vsweep's own code prints what it says while a variant runs (a
 * plugin's logged messages, vs_log_add; out of memory): stderr, but in a
 * contained child a pipe of its own to the parent, apart from the one
 * its stdout and stderr became (what plugins print). Set once, before
 * any thread (contain_child.c); NULL: stderr again. */
FILE *vs_own_stderr(void);
void vs_set_own_stderr(FILE *f);

/* Duplicates a string; aborts on out-of-memory (no recovery is useful). */
char *vs_strdup(const char *s);
void *vs_xcalloc(size_t n, size_t size);
void *vs_xrealloc(void *p, size_t size);

#endif
