#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vs_error_set(vs_error *err, const char *fmt, ...)
{
	if (!err || err->msg[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
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
