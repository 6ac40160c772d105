#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Control characters from input files (ESC, BEL, newlines ...) would
 * reach the user's terminal raw and could rewrite it: each becomes a
 * visible escape, \n, \t or \xNN, truncated to fit. */
void vs_escape_controls(char *msg, size_t size)
{
	size_t n = strlen(msg), k = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			k++;
	if (!k)
		return;
	char *src = vs_strdup(msg);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		char esc[8];
		if (c == '\n')
			snprintf(esc, sizeof esc, "\\n");
		else if (c == '\t')
			snprintf(esc, sizeof esc, "\\t");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof esc, "\\x%02x", c);
		else
			esc[0] = (char)c, esc[1] = 0;
		size_t len = strlen(esc);
		if (o + len >= size)
			break;
		memcpy(msg + o, esc, len);
		o += len;
	}
	msg[o] = 0;
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

static void oom(void)
{
	fputs("vsweep: out of memory\n", stderr);
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
