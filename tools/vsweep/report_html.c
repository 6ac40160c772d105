/* The frame of `vsweep report`'s page and its plain sections: the sweep's
 * record (meta and plugin tables), the counts with the failure reasons
 * grouped, and the events. Everything is inline: the page opens from disk
 * with no network. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "common/error.h"
#include "report.h"
#include "yaml/yamltree.h"

#define FAILURE_GROUPS 30   /* distinct reasons listed */
#define MAX_REASONS 1000    /* distinct reasons grouped; the rest "other" */

static const char style[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;"
	"margin:24px;color:#222;max-width:1500px}\n"
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;"
	"padding-bottom:4px;margin-top:32px}h3{font-size:14px;margin:8px 0}\n"
	"table{border-collapse:collapse;font-size:13px;margin:6px 0}\n"
	"td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;"
	"vertical-align:top}th{background:#f3f3f3;cursor:pointer}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".note{color:#666;font-size:12px}.bad{color:#b00020}\n"
	".charts{display:flex;flex-wrap:wrap;gap:12px}\n"
	".chart-box{border:1px solid #e4e4e4;padding:4px}\n"
	"svg text{font-size:11px;fill:#333}\n"
	"circle.mark{fill-opacity:.75}circle.failed{fill:none;"
	"stroke:#d00;stroke-width:1.5}rect.failed{stroke:#d00;"
	"stroke-width:2}\n"
	"#tip{position:fixed;background:#fff;border:1px solid #999;"
	"padding:2px 6px;font-size:12px;pointer-events:none;display:none}\n"
	"pre{background:#f7f7f7;padding:8px;font-size:12px;overflow:auto;"
	"max-height:300px}\n"
	".big{font-size:28px;font-weight:bold;margin-right:24px}\n";

/* The error marker comes first, so that an error anywhere after it is
 * caught; the rest adds tooltips and sortable tables. */
static const char script_head[] =
	"<script>\n"
	"window.onerror=function(m,src,line){var d=document.createElement("
	"'div');d.id='js-error';d.className='bad';d.textContent="
	"'script error: '+m+' (line '+line+')';(document.body||"
	"document.documentElement).appendChild(d);};\n"
	"</script>\n";

static const char script_tail[] =
	"<script>\n"
	"(function(){\n"
	"var tip=document.getElementById('tip');\n"
	"document.addEventListener('mouseover',function(e){\n"
	" var t=e.target;if(!t.getAttribute)return;\n"
	" var s=t.getAttribute('data-tip');\n"
	" if(!s){tip.style.display='none';return;}\n"
	" tip.textContent=s;tip.style.display='block';\n"
	" tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';"
	"});\n"
	"function key(td){var v=parseFloat(td.getAttribute('data-v')||"
	"td.textContent);return isNaN(v)?td.textContent:v;}\n"
	"document.querySelectorAll('table.sortable th').forEach("
	"function(th,ci){th.addEventListener('click',function(){\n"
	" var tb=th.closest('table').tBodies[0];var rows=Array.from(tb.rows);\n"
	" var idx=th.cellIndex;var dir=th.getAttribute('data-dir')==='a'?-1:1;"
	"th.setAttribute('data-dir',dir>0?'a':'d');\n"
	" rows.sort(function(a,b){var x=key(a.cells[idx]),y=key(b.cells[idx]);"
	"return (x<y?-1:x>y?1:0)*dir;});\n"
	" rows.forEach(function(r){tb.appendChild(r);});});});\n"
	"var ok=document.createElement('div');ok.id='js-ready';"
	"ok.style.display='none';document.body.appendChild(ok);\n"
	"})();\n"
	"</script>\n";

void report_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

void report_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\xe2\x80\x93", f);  /* en dash */
	else
		fprintf(f, "%.6g", v);
}

static const char *col_text(sqlite3_stmt *st, int c)
{
	const unsigned char *s = sqlite3_column_text(st, c);
	return s ? (const char *)s : "";
}

static sqlite3_stmt *query(const report_data *d, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* One meta value as text, or "" when absent. */
static void meta_row(FILE *f, const report_data *d, const char *label,
                     const char *key, const char *unit)
{
	sqlite3_stmt *st = query(d, "SELECT value FROM meta WHERE key = ?");
	if (!st)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		fprintf(f, "<tr><th>%s</th><td id=\"meta-%s\">", label, key);
		if (sqlite3_column_type(st, 0) == SQLITE_FLOAT)
			report_num(f, sqlite3_column_double(st, 0));
		else
			report_text(f, col_text(st, 0));
		fprintf(f, "%s%s</td></tr>\n", *unit ? " " : "", unit);
	}
	sqlite3_finalize(st);
}

/* The stored scenario's name, read as YAML (a quoted name may hold
 * quotes and '#'), for the title; the file's path when there is none. */
static void scenario_name(const report_data *d, char *out, size_t size)
{
	snprintf(out, size, "%s", d->db_path);
	sqlite3_stmt *st = query(d, "SELECT value FROM meta WHERE key = "
	                         "'scenario_text'");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *t = col_text(st, 0);
		vs_error err = {{0}};
		vs_ydoc *doc = vs_ydoc_parse("scenario_text", t, strlen(t), &err);
		const vs_ynode *n = doc ? vs_ymap_get(doc->root, "name") : NULL;
		if (n && n->kind == VS_Y_SCALAR && n->str[0]) {
			size_t len = strlen(n->str);
			if (len >= size) {  /* cut before a whole character */
				len = size - 1;
				while (len && ((unsigned char)n->str[len] &
				               0xc0) == 0x80)
					len--;
			}
			snprintf(out, size, "%.*s", (int)len, n->str);
		}
		vs_ydoc_destroy(doc);
	}
	sqlite3_finalize(st);
}

static void stored_text(FILE *f, const report_data *d, const char *key,
                        const char *label)
{
	sqlite3_stmt *st = query(d, "SELECT value FROM meta WHERE key = ?");
	if (!st)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		fprintf(f, "<details><summary>%s</summary><pre>", label);
		report_text(f, col_text(st, 0));
		fputs("</pre></details>\n", f);
	}
	sqlite3_finalize(st);
}

static void record(FILE *f, const report_data *d)
{
	fputs("<section id=\"record\"><h2>The sweep</h2>\n<table>\n", f);
	meta_row(f, d, "scenario", "scenario_path", "");
	meta_row(f, d, "sweep", "sweep_path", "");
	meta_row(f, d, "vsweep version", "vsweep_version", "");
	meta_row(f, d, "started (UTC)", "created_utc", "");
	meta_row(f, d, "simulated time per variant", "duration", "s");
	meta_row(f, d, "step", "step", "s");
	meta_row(f, d, "variants in the sweep (shard)", "variant_count", "");
	meta_row(f, d, "shard", "shard", "");
	meta_row(f, d, "recorded", "record", "");
	sqlite3_stmt *st = query(d, "SELECT sum(wall_seconds), "
	                         "max(wall_seconds) FROM variant_info");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		fputs("<tr><th>simulation wall time (sum over variants)</th>"
		      "<td id=\"wall-time\">", f);
		report_num(f, sqlite3_column_double(st, 0));
		fputs(" s (longest variant ", f);
		report_num(f, sqlite3_column_double(st, 1));
		fputs(" s)</td></tr>\n", f);
	}
	sqlite3_finalize(st);
	/* The run's length: the record keeps its start; the file's last
	 * write is its end (a resumed file's start is the first run's). */
	struct stat fs;
	if (stat(d->db_path, &fs) == 0) {
		char end[32];
		struct tm tm;
		time_t mt = fs.st_mtime;
		gmtime_r(&mt, &tm);
		strftime(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(f, "<tr><th>file last written (UTC)</th><td id="
		        "\"last-write\">%s</td></tr>\n", end);
	}
	fputs("</table>\n<h3>Plugins</h3>\n<table id=\"plugins\"><thead><tr>"
	      "<th>name</th><th>kind</th><th>version</th><th>digest</th>"
	      "<th>path</th></tr></thead><tbody>\n", f);
	st = query(d, "SELECT name, kind, version, digest, path FROM plugin "
	           "ORDER BY kind, name");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		fputs("<tr>", f);
		for (int c = 0; c < 5; c++) {
			fputs("<td>", f);
			report_text(f, col_text(st, c));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	sqlite3_finalize(st);
	fputs("</tbody></table>\n", f);
	stored_text(f, d, "scenario_text", "scenario file as run");
	stored_text(f, d, "sweep_text", "sweep file as run");
	fputs("</section>\n", f);
}

/* Failure reasons grouped by their message with every number written N
 * ("failing at step 10" and "... step 20" are one reason). */
typedef struct reason {
	char *pattern, *example;
	long long count, first;
} reason;

typedef struct reason_groups {
	int n, cap;
	reason *groups;
	long long other;        /* past MAX_REASONS distinct patterns */
} reason_groups;

/* The message with each run of digits (with its sign and decimals)
 * replaced by N. */
static char *number_pattern(const char *s)
{
	size_t len = strlen(s);
	char *out = vs_xcalloc(len + 2, 1), *o = out;
	while (*s) {
		if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s) || (*s == '.' &&
			       isdigit((unsigned char)s[1])))
				s++;
			*o++ = 'N';
		} else {
			*o++ = *s++;
		}
	}
	return out;
}

static int by_count(const void *a, const void *b)
{
	const reason *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

static void group_failures(const report_data *d, reason_groups *g)
{
	memset(g, 0, sizeof *g);
	sqlite3_stmt *st = query(d, "SELECT error, count(*), min(variant_id) "
	                         "FROM variant_info WHERE status = 'failed' "
	                         "GROUP BY error");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *msg = col_text(st, 0);
		long long n = sqlite3_column_int64(st, 1);
		long long first = sqlite3_column_int64(st, 2);
		char *pat = number_pattern(msg);
		int i = 0;
		while (i < g->n && strcmp(g->groups[i].pattern, pat))
			i++;
		if (i == g->n) {
			if (g->n == MAX_REASONS) {
				g->other += n;
				free(pat);
				continue;
			}
			if (g->n == g->cap) {
				g->cap = g->cap ? 2 * g->cap : 16;
				g->groups = vs_xrealloc(g->groups, (size_t)g->cap *
				                        sizeof *g->groups);
			}
			g->groups[g->n++] = (reason){pat, vs_strdup(msg), 0,
			                             first};
			pat = NULL;
		}
		reason *r = &g->groups[i];
		r->count += n;
		if (first < r->first) {
			r->first = first;
			free(r->example);
			r->example = vs_strdup(msg);
		}
		free(pat);
	}
	sqlite3_finalize(st);
}

static void reason_groups_finish(reason_groups *g)
{
	for (int i = 0; i < g->n; i++) {
		free(g->groups[i].pattern);
		free(g->groups[i].example);
	}
	free(g->groups);
}

/* "the sweep" or "shard K/N": whose variants the file is to hold. */
static void whose(FILE *f, const report_data *d)
{
	sqlite3_stmt *st = query(d, "SELECT value FROM meta WHERE key = "
	                         "'shard'");
	const char *sh = st && sqlite3_step(st) == SQLITE_ROW ?
	                 col_text(st, 0) : "";
	long long k, n;
	if (sscanf(sh, "%lld/%lld", &k, &n) == 2 && n > 1) {
		fputs("shard ", f);
		report_text(f, sh);
	} else {
		fputs("the sweep", f);
	}
	sqlite3_finalize(st);
}

/* A file that lacks variants of its sweep (a stopped run, a merge of some
 * of the shards) reads as a finished one unless the page says so: at the
 * top, with what is missing, the file's state in vsweep status's words,
 * and that the rest of the page covers only the stored variants. */
static void incomplete_warning(FILE *f, const report_data *d,
                               const cli_sweep_state *s)
{
	if (s->complete)
		return;
	fputs("<p class=\"bad\" id=\"incomplete\"><b>", f);
	if (s->missing) {
		fprintf(f, "Incomplete: %lld of the %lld variants of ",
		        (long long)s->missing, (long long)s->expected);
		whose(f, d);
		fputs(" are not stored", f);
	} else {
		fputs("Not a whole sweep", f);
	}
	fputs("; the file is ", f);
	report_text(f, s->words);
	fprintf(f, ".</b> The counts, charts, tables and the worst list "
	        "cover only the %lld stored variants.</p>\n", (long long)d->n);
}

static void coverage(FILE *f, const report_data *d, const cli_sweep_state *s)
{
	fputs("<p id=\"coverage\">", f);
	if (s->expected) {
		fputs("Variants of ", f);
		whose(f, d);
		fprintf(f, ": <span id=\"count-expected\" data-n=\"%lld\">%lld"
		        "</span>; stored: <span id=\"count-stored\" data-n="
		        "\"%lld\">%lld</span>; missing: <span id=\"count-"
		        "missing\" data-n=\"%lld\" class=\"%s\">%lld</span>. ",
		        (long long)s->expected, (long long)s->expected,
		        (long long)d->n, (long long)d->n, (long long)s->missing,
		        s->missing ? "bad" : "", (long long)s->missing);
	} else {
		fprintf(f, "Stored: <span id=\"count-stored\" data-n=\"%lld\">"
		        "%lld</span> variants. ", (long long)d->n,
		        (long long)d->n);
	}
	fputs("State: <span id=\"file-state\">", f);
	report_text(f, s->words);
	fputs("</span> (as vsweep status says).</p>\n", f);
}

static void counts(FILE *f, const report_data *d, const cli_sweep_state *s)
{
	fprintf(f, "<section id=\"counts\"><h2>Outcome</h2>\n<p><span "
	        "class=\"big\" id=\"count-done\" data-n=\"%lld\">%lld done"
	        "</span><span class=\"big%s\" id=\"count-failed\" data-n="
	        "\"%lld\">%lld failed</span>",
	        (long long)(d->n - d->n_failed),
	        (long long)(d->n - d->n_failed), d->n_failed ? " bad" : "",
	        (long long)d->n_failed, (long long)d->n_failed);
	/* status's count (a reason that begins "crashed:"), said only when
	 * some did, as the run's summary does */
	long long crashed = s ? (long long)s->crashed : 0;
	if (crashed)
		fprintf(f, "<span class=\"big bad\" id=\"count-crashed\" "
		        "data-n=\"%lld\">(%lld crashed)</span>", crashed,
		        crashed);
	fputs("</p>\n", f);
	if (s)
		coverage(f, d, s);
	if (!d->n_failed) {
		fputs("</section>\n", f);
		return;
	}
	fputs("<h3>Failure reasons</h3>\n<p class=\"note\">Numbers in the "
	      "messages are shown as N, so that one reason is one row; the "
	      "example is the first variant's message.</p>\n<table id="
	      "\"failures\" class=\"sortable\"><thead><tr><th>variants</th>"
	      "<th>first</th><th>reason</th><th>example</th></tr></thead>"
	      "<tbody>\n", f);
	reason_groups g;
	group_failures(d, &g);
	qsort(g.groups, (size_t)g.n, sizeof *g.groups, by_count);
	for (int i = 0; i < g.n && i < FAILURE_GROUPS; i++) {
		const reason *r = &g.groups[i];
		fprintf(f, "<tr class=\"failure\" data-n=\"%lld\"><td class="
		        "\"num\">%lld</td><td class=\"num\">%lld</td><td>",
		        r->count, r->count, r->first);
		report_text(f, r->pattern);
		fputs("</td><td>", f);
		report_text(f, r->example);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	long long rest = g.other;
	for (int i = FAILURE_GROUPS; i < g.n; i++)
		rest += g.groups[i].count;
	if (rest)
		fprintf(f, "<p class=\"note\">%lld more failed variants with "
		        "other reasons (query variant_info).</p>\n", rest);
	reason_groups_finish(&g);
	fputs("</section>\n", f);
}

static void events(FILE *f, const report_data *d)
{
	fputs("<section id=\"events\"><h2>Events</h2>\n", f);
	sqlite3_stmt *st = query(d, "SELECT kind, count(*), count(DISTINCT "
	                         "variant_id) FROM event GROUP BY kind ORDER "
	                         "BY 2 DESC");
	long long total = 0;
	fputs("<table id=\"event-kinds\"><thead><tr><th>kind</th><th>events"
	      "</th><th>variants</th></tr></thead><tbody>\n", f);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		total += sqlite3_column_int64(st, 1);
		fputs("<tr><td>", f);
		report_text(f, col_text(st, 0));
		fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"num\">"
		        "%lld</td></tr>\n",
		        (long long)sqlite3_column_int64(st, 1),
		        (long long)sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
	fputs("</tbody></table>\n", f);
	if (!total) {
		fputs("<p>No events.</p></section>\n", f);
		return;
	}
	if (total > REPORT_MAX_EVENTS)
		fprintf(f, "<p class=\"note\">The first %d of %lld events, by "
		        "variant and time (the rest: SELECT * FROM event).</p>\n",
		        REPORT_MAX_EVENTS, total);
	fputs("<table id=\"events-table\" class=\"sortable\"><thead><tr>"
	      "<th>variant</th><th>t (s)</th><th>actor</th><th>kind</th>"
	      "<th>other actor</th><th>detail</th></tr></thead><tbody>\n", f);
	st = query(d, "SELECT variant_id, t, actor_id, kind, other_actor_id, "
	           "detail FROM event ORDER BY variant_id, t, actor_id LIMIT "
	           "?");
	if (st)
		sqlite3_bind_int(st, 1, REPORT_MAX_EVENTS);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		fprintf(f, "<tr class=\"event\"><td class=\"num\">%lld</td><td "
		        "class=\"num\">", (long long)sqlite3_column_int64(st, 0));
		report_num(f, sqlite3_column_double(st, 1));
		fprintf(f, "</td><td class=\"num\">%lld</td><td>",
		        (long long)sqlite3_column_int64(st, 2));
		report_text(f, col_text(st, 3));
		fputs("</td><td class=\"num\">", f);
		report_text(f, col_text(st, 4));
		fputs("</td><td>", f);
		report_text(f, col_text(st, 5));
		fputs("</td></tr>\n", f);
	}
	sqlite3_finalize(st);
	fputs("</tbody></table>\n</section>\n", f);
}

void report_write_page(FILE *f, const report_data *d)
{
	char name[256];
	scenario_name(d, name, sizeof name);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
	      "\">\n<title>vsweep report: ", f);
	report_text(f, name);
	fprintf(f, "</title>\n<style>\n%s</style>\n%s</head>\n<body>\n",
	        style, script_head);
	fputs("<h1>vsweep report: ", f);
	report_text(f, name);
	fputs("</h1>\n<p class=\"note\">", f);
	report_text(f, d->db_path);
	cli_sweep_state *s = vs_xcalloc(1, sizeof *s);
	int known = cli_sweep_state_read(d->db, d->db_path, s) == 0;
	fprintf(f, ": %lld variants", (long long)d->n);
	if (known && s->expected)
		fprintf(f, " of %lld", (long long)s->expected);
	fputs(". Generated by vsweep report; self-contained, no network."
	      "</p>\n<div id=\"tip\"></div>\n", f);
	if (known)
		incomplete_warning(f, d, s);
	record(f, d);
	counts(f, d, known ? s : NULL);
	free(s);
	report_kpi_charts(f, d);
	report_worst(f, d);
	events(f, d);
	fputs(script_tail, f);
	fputs("</body></html>\n", f);
}
