/* A line of the crash journal (journal.c): what a crashed variant
 * stores beside its params, so that a resume stores it as the run would
 * have.
 *
 * A line: RESULTS, VARIANT, REASON, WALL (s), N, then N log rows of five
 * fields (ACTOR, T (s), LEVEL, PLUGIN, MESSAGE), then CHECK, separated by
 * tabs and ended by a newline. Texts are written with their control bytes
 * and '%' as %XX (two lowercase hex digits), so that no field holds a tab
 * or a newline; doubles in C99 hex, which reads back to the same bits;
 * CHECK is the FNV-1a 64 of the line up to its last tab, in 16 hex digits. N
 * is at most VS_LOG_ROWS_KEPT, as many rows as the log view keeps of a
 * variant, each message at most VS_LOG_TEXT_MAX bytes (three times that
 * written, at worst): a line's size is bounded whatever a plugin printed.
 * Only a whole line with its check is believed: a kill in the middle of a
 * write leaves a line without its newline, cut off by the next resume's
 * open, so that the lines it appends start on a line of their own; a
 * line that fails its check (spoilt, or an older build's, which kept the
 * reason alone) names no crash, and its variant is simulated again.
 *
 * Written and read by journal.c alone. */
#define _GNU_SOURCE /* memrchr */
#include "run/journal_line.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* FNV-1a 64 of n bytes: a line's CHECK. */
static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t k = 0; k < n; k++) {
		h ^= (unsigned char)s[k];
		h *= 1099511628211u;
	}
	return h;
}

/* A line being written. */
typedef struct line_buf {
	char *p;
	size_t n, cap;
} line_buf;

static void put(line_buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = 2 * (b->n + n + 1);
		b->p = vs_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void put_fmt(line_buf *b, const char *fmt, ...) VS_PRINTF(2, 3);

static void put_fmt(line_buf *b, const char *fmt, ...)
{
	char f[64]; /* a number */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(f, sizeof f, fmt, ap);
	va_end(ap);
	put(b, f, n < 0 ? 0 : (size_t)n < sizeof f ? (size_t)n : sizeof f - 1);
}

/* A text field: its control bytes (a tab, a newline) and '%' as %XX,
 * the rest as it is; NULL as "". */
static void put_text(line_buf *b, const char *s)
{
	put(b, "\t", 1);
	for (const char *c = s ? s : ""; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (u < 0x20 || u == 0x7f || u == '%')
			put_fmt(b, "%%%02x", u);
		else
			put(b, c, 1);
	}
}

/* The next tab-separated field of *cur, cut from it; NULL at the end. */
static char *field(char **cur)
{
	char *f = *cur;
	if (!f)
		return NULL;
	char *tab = strchr(f, '\t');
	if (tab)
		*tab++ = '\0';
	*cur = tab;
	return f;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A text field decoded in place (put_text's inverse); NULL when it is
 * not one. */
static char *text(char *s)
{
	if (!s)
		return NULL;
	char *o = s;
	for (const char *c = s; *c; c++) {
		if (*c != '%') {
			*o++ = *c;
			continue;
		}
		int hi = hex_digit(c[1]), lo = hi < 0 ? -1 : hex_digit(c[2]);
		if (lo < 0)
			return NULL;
		*o++ = (char)(hi * 16 + lo);
		c += 2;
	}
	*o = '\0';
	return s;
}

static int number(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return 0;
	*v = strtod(s, &end);
	return *end == '\0';
}

static int integer(const char *s, long long lo, long long hi, long long *v)
{
	char *end;
	if (!s || !*s)
		return 0;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return *end == '\0' && errno == 0 && *v >= lo && *v <= hi;
}

void vs_journal_entry_free(vs_journal_entry *e)
{
	free(e->reason);
	for (int k = 0; k < e->n_logs; k++) {
		free((char *)e->logs[k].plugin);
		free(e->logs[k].message);
	}
	free(e->logs);
}

char *vs_journal_line(const char *file, const vs_result *res, size_t *n)
{
	/* as the store keeps them: the first VS_LOG_ROWS_KEPT */
	int64_t rows = res->n_logs < VS_LOG_ROWS_KEPT ? res->n_logs
	                                              : VS_LOG_ROWS_KEPT;
	if (!res->logs)
		rows = 0;
	line_buf b = {0};
	put(&b, file, strlen(file));
	put_fmt(&b, "\t%llu", (unsigned long long)res->variant);
	put_text(&b, res->error);
	/* doubles in hex: the same bits back */
	put_fmt(&b, "\t%a\t%lld", res->wall_seconds, (long long)rows);
	for (int64_t k = 0; k < rows; k++) {
		const vs_log_row *l = &res->logs[k];
		put_fmt(&b, "\t%lld\t%a\t%d", (long long)l->actor_id, l->t,
		        l->level);
		put_text(&b, l->plugin);
		put_text(&b, l->message);
	}
	put_fmt(&b, "\t%016llx\n", (unsigned long long)fnv1a(b.p, b.n));
	*n = b.n;
	return b.p;
}

int vs_journal_parse(char *line, size_t len, const char *file,
                     vs_journal_entry *c)
{
	char *tab = memrchr(line, '\t', len);
	char *end;
	if (!tab || strlen(tab + 1) != 16)
		return 0;
	unsigned long long check = strtoull(tab + 1, &end, 16);
	if (*end || check != fnv1a(line, (size_t)(tab - line)))
		return 0;
	*tab = '\0';
	char *cur = line;
	const char *key = field(&cur);
	if (strcmp(key, file) != 0)
		return -1;
	long long v, n;
	memset(c, 0, sizeof *c);
	if (!integer(field(&cur), 0, LLONG_MAX, &v) ||
	    !(c->reason = text(field(&cur))) ||
	    !number(field(&cur), &c->wall) ||
	    !integer(field(&cur), 0, VS_LOG_ROWS_KEPT, &n))
		return 0;
	c->variant = (uint64_t)v;
	c->reason = vs_strdup(c->reason);
	c->logs = vs_xcalloc((size_t)n + 1, sizeof *c->logs);
	for (; c->n_logs < n; c->n_logs++) {
		vs_log_row *l = &c->logs[c->n_logs];
		long long id, level;
		const char *plugin;
		if (!integer(field(&cur), LLONG_MIN, LLONG_MAX, &id) ||
		    !number(field(&cur), &l->t) ||
		    /* 4: a printed line's (contain_receive.c) */
		    !integer(field(&cur), VS_LOG_DEBUG, VS_LOG_ERROR + 1,
		             &level) ||
		    !(plugin = text(field(&cur))) ||
		    !(l->message = text(field(&cur))))
			break;
		l->actor_id = id;
		l->level = (int)level;
		l->plugin = vs_strdup(plugin);
		l->message = vs_strdup(l->message);
	}
	if (c->n_logs < n || cur) {
		/* the half-made row's strings point into line */
		c->logs[c->n_logs].message = NULL;
		vs_journal_entry_free(c);
		return 0;
	}
	return 1;
}
