/* Plugin outputs (ABI 1.1) as signal rows, plugin messages as log rows
 * (signals.h). A plugin writes its outputs into a host-owned array during
 * each call; after the step the host copies the selected ones into the
 * result, which the writer thread stores (tables signal_row, log_row). */
#include "sim/signals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/quota.h"
#include "plugin/registry.h"

/* Messages stored per variant, and printed on stderr per variant (within
 * the run's cap, quota.h). */
#define LOG_KEEP VS_LOG_ROWS_KEPT
#define LOG_PRINT 5

int vs_signal_selected(const char *select, const char *name)
{
	if (!select)
		return 0;
	if (!strcmp(select, "*"))
		return 1;
	size_t n = strlen(name);
	for (const char *p = select; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len + (e ? 1 : 0);
	}
	return 0;
}

/* The index of name in res->signal_names, added with its unit when new
 * (one plugin declares one unit per output). */
static int name_index(vs_result *res, const char *name, const char *unit)
{
	for (int i = 0; i < res->n_signal_names; i++)
		if (!strcmp(res->signal_names[i], name))
			return i;
	size_t n = (size_t)res->n_signal_names + 1;
	res->signal_names = vs_xrealloc(res->signal_names,
	                                n * sizeof *res->signal_names);
	res->signal_units = vs_xrealloc(res->signal_units,
	                                n * sizeof *res->signal_units);
	res->signal_names[n - 1] = vs_strdup(name);
	res->signal_units[n - 1] = vs_strdup(unit ? unit : "");
	return res->n_signal_names++;
}

void vs_signals_add(vs_signals *S, vs_result *res, int64_t actor_id,
                    const vs_plugin *p)
{
	size_t n = 0;
	const vs_output *o = vs_plugin_outputs(p, &n);
	if (n == 0)
		return;
	S->src = vs_xrealloc(S->src, (size_t)(S->n + 1) * sizeof *S->src);
	vs_signal_src *s = &S->src[S->n++];
	s->actor_id = actor_id;
	s->plugin = p;
	s->n = n;
	s->buf = vs_xcalloc(n, sizeof *s->buf);
	s->name = vs_xcalloc(n, sizeof *s->name);
	for (size_t i = 0; i < n; i++) {
		char full[256];
		snprintf(full, sizeof full, "%s.%s", p->name, o[i].name);
		s->name[i] = vs_signal_selected(S->select, full)
		                     ? name_index(res, full, o[i].unit) : -1;
	}
}

double *vs_signals_buffer(const vs_signals *S, int64_t actor_id,
                          const vs_plugin *p)
{
	for (int k = 0; k < S->n; k++)
		if (S->src[k].actor_id == actor_id && S->src[k].plugin == p)
			return S->src[k].buf;
	return NULL;
}

void vs_signals_record(const vs_signals *S, int64_t step, vs_result *res)
{
	for (int k = 0; k < S->n; k++) {
		const vs_signal_src *s = &S->src[k];
		for (size_t i = 0; i < s->n; i++) {
			if (s->name[i] < 0)
				continue;
			if (res->n_signals == res->cap_signals) {
				res->cap_signals = res->cap_signals
				                           ? 2 * res->cap_signals
				                           : 1024;
				res->signals = vs_xrealloc(
					res->signals, (size_t)res->cap_signals *
					                      sizeof *res->signals);
			}
			res->signals[res->n_signals++] = (vs_signal_row){
				s->actor_id, step, s->name[i], s->buf[i]};
		}
	}
}

void vs_signals_free(vs_signals *S)
{
	for (int k = 0; k < S->n; k++) {
		free(S->src[k].buf);
		free(S->src[k].name);
	}
	free(S->src);
	S->src = NULL;
	S->n = 0;
}

const char *vs_log_level_name(int level)
{
	switch (level) {
	case VS_LOG_DEBUG: return "debug";
	case VS_LOG_INFO: return "info";
	case VS_LOG_WARNING: return "warning";
	default: return "error";
	}
}

void vs_log_add(vs_result *res, int64_t actor_id, double t, int level,
                const char *plugin, const char *msg)
{
	int64_t seen = res->n_logs;
	/* the first few per variant, and those within the run's cap */
	int say = seen <= LOG_PRINT ? vs_quota_take(VS_QUOTA_PLUGIN) : 0;
	/* vsweep's stderr, or in a contained child the pipe that takes
	 * vsweep's lines there (error.h), never the plugins' own stderr */
	FILE *out = vs_own_stderr();
	if (say < 0)
		fprintf(out, "%s\n", vs_quota_notice(VS_QUOTA_PLUGIN));
	else if (say && seen < LOG_PRINT)
		fprintf(out, "vsweep: variant %llu: actor %lld: %s: %s: %s\n",
		        (unsigned long long)res->variant, (long long)actor_id,
		        plugin, vs_log_level_name(level), msg);
	else if (say)
		fprintf(out, "vsweep: variant %llu: further plugin messages "
		        "not shown (the results file's log view has them)\n",
		        (unsigned long long)res->variant);
	if (seen >= LOG_KEEP) {
		res->n_logs++; /* counted for the rate limit, not stored */
		return;
	}
	if (seen == 0 || (seen & (seen - 1)) == 0)
		res->logs = vs_xrealloc(res->logs, (size_t)(seen ? 2 * seen : 1) *
		                                           sizeof *res->logs);
	vs_log_row *r = &res->logs[seen];
	r->actor_id = actor_id;
	r->t = t;
	r->level = level;
	r->plugin = plugin;
	r->message = vs_strdup(msg);
	res->n_logs++;
}

char *vs_log_text(const char *text, size_t total, int escape)
{
	size_t keep = total;
	if (total > VS_LOG_MESSAGE_MAX) {
		/* Back from the first byte left out to the start of its
		 * character: a continuation byte (10xxxxxx) is inside one. At
		 * most 3 back: a longer run is not UTF-8, escaped byte by byte. */
		keep = VS_LOG_MESSAGE_MAX;
		for (int k = 0; k < 3 && keep > 0 &&
		                ((unsigned char)text[keep] & 0xc0) == 0x80; k++)
			keep--;
	}
	char mark[64] = "";
	if (keep < total) /* U+2026, the ellipsis, in UTF-8 */
		snprintf(mark, sizeof mark, "\xe2\x80\xa6 [%zu more bytes]",
		         total - keep);
	size_t size = (escape ? 4 * keep : keep) + 1; /* room to escape */
	char *s = vs_xcalloc(size + strlen(mark), 1);
	if (escape) /* by length: a printed line may hold a NUL */
		vs_escape_bytes(s, size, text, keep);
	else
		memcpy(s, text, keep);
	strcat(s, mark);
	return s;
}
