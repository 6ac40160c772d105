#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the well-formed UTF-8 sequence at s, of which avail bytes
 * may be read (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF); 0 if it is not one, or is cut short by the end. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t len = c >= 0xc2 && c <= 0xdf   ? 2
	             : c >= 0xe0 && c <= 0xef ? 3
	             : c >= 0xf0 && c <= 0xf4 ? 4
	                                      : 0;
	if (len > avail)
		return 0;
	/* the second byte's range where the lead narrows it */
	unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (len && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Whether the well-formed sequence at s (len bytes) is a character no
 * message needs and a terminal acts on: a C1 control (U+0080 to U+009F,
 * C2 80 to C2 9F; xterm takes U+009B CSI as ESC [, U+0085 NEL as a
 * newline) or a bidirectional embedding, override or isolate (U+202A to
 * U+202E, E2 80 AA to AE; U+2066 to U+2069, E2 81 A6 to A9), which
 * shows the text after it in another order than it reads. */
static int unsafe_char(const unsigned char *s, size_t len)
{
	if (len == 2)
		return s[0] == 0xc2 && s[1] <= 0x9f;
	return len == 3 && s[0] == 0xe2 &&
	       ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
	        (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/* Bytes of the character at s (avail > 0 bytes readable) that stays as it
 * is; 0 if its first byte is to be escaped. A character escaped whole
 * (unsafe_char) has its other bytes escaped too, one by one: none of
 * them starts a sequence. */
static size_t kept_len(const char *s, size_t avail)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] < 0x20 || u[0] == 0x7f)
		return 0;
	if (u[0] < 0x80)
		return 1;
	size_t len = utf8_len(u, avail);
	return unsafe_char(u, len) ? 0 : len;
}

/* Control characters from input files or plugins (ESC, BEL, newlines
 * ..., and their C1 forms such as U+009B) would reach the user's
 * terminal raw and could rewrite it, a bidirectional override would show
 * a message reversed, and bytes that are not UTF-8 make text the results
 * file, its JSON and the report cannot carry: each becomes a visible
 * escape, \n, \t or \xNN (a character of more bytes: each of its bytes,
 * U+009B as \xc2\x9b), truncated to fit. Other well-formed UTF-8 (a
 * degree sign, a name in any script) stays as it is. */
size_t vs_escape_bytes(char *dst, size_t size, const char *src, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t u = kept_len(src + i, n - i);
		char esc[8];
		unsigned char c = (unsigned char)src[i];
		if (u) {
			memcpy(esc, src + i, u);
			esc[u] = 0;
		} else if (c == '\n' || c == '\t') {
			snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : 't');
		} else {
			snprintf(esc, sizeof esc, "\\x%02x", c);
		}
		size_t len = strlen(esc);
		if (o + len >= size)
			break;
		memcpy(dst + o, esc, len);
		o += len;
		i += u ? u : 1;
	}
	if (size > 0)
		dst[o] = 0;
	return o;
}

void vs_escape_controls(char *msg, size_t size)
{
	size_t n = strlen(msg), i = 0;
	while (i < n) {
		size_t u = kept_len(msg + i, n - i);
		if (!u)
			break;
		i += u;
	}
	if (i == n)
		return; /* nothing to escape: no copy */
	char *src = vs_strdup(msg);
	vs_escape_bytes(msg, size, src, n);
	free(src);
}

void vs_error_set(vs_error *err, const char *fmt, ...)
{
	if (!err || err->msg[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	vs_escape_controls(err->msg, sizeof err->msg);
}

void vs_error_at(vs_error *err, const char *file, vs_mark mark,
                 const char *fmt, ...)
{
	if (!err || err->msg[0])
		return;
	int n;
	if (mark.line > 0)
		n = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: ", file,
		             mark.line, mark.col);
	else
		n = snprintf(err->msg, sizeof err->msg, "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof err->msg)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
	va_end(ap);
	vs_escape_controls(err->msg, sizeof err->msg);
}

static FILE *own_stderr;

FILE *vs_own_stderr(void)
{
	return own_stderr ? own_stderr : stderr;
}

void vs_set_own_stderr(FILE *f)
{
	own_stderr = f;
}

static void oom(void)
{
	fputs("vsweep: out of memory\n", vs_own_stderr());
	fflush(vs_own_stderr());
	abort();
}

char *vs_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (!d)
		oom();
	memcpy(d, s, n);
	return d;
}

void *vs_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *vs_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		oom();
	return q;
}
