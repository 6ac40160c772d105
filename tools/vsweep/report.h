/* `vsweep report RESULTS.db -o report.html`: one self-contained HTML page
 * (inline CSS, SVG and a few lines of JS; nothing fetched) for the morning
 * after a sweep.
 *
 * report.c reads the results file through its views into report_data,
 * report_html.c writes the page frame, the sweep's record, the counts, the
 * failure reasons and the events, report_charts.c the KPI charts (a
 * scatter per swept parameter, a heat map for a grid of two) and
 * report_worst.c the worst variants' trajectories and speed profiles.
 *
 * How a reader finds the marks in the page (tests/e2e/test_report.py):
 *  - every KPI chart is <svg class="chart scatter|heatmap" data-kpi="K"
 *    data-param="P[,Q]">; a scatter holds one <circle class="mark"> per
 *    variant shown (class "mark failed" for failed ones, drawn on the
 *    bottom edge when they have no value); a heat map one <rect
 *    class="cell"> per grid cell ("cell failed" when a variant in it
 *    failed);
 *  - the scatters of a page draw at most REPORT_PAGE_MARKS circles in
 *    all, and one at most REPORT_MAX_MARKS: past that, each draws the
 *    same deterministic sample of the variants (the page says so);
 *    counts, heat maps and the worst list use every variant;
 *  - the page's script writes <div id="js-error"> into the page on any
 *    script error, and <div id="js-ready"> when it ran to the end.
 */
#ifndef VS_REPORT_H
#define VS_REPORT_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_MAX_MARKS 4000   /* circles per scatter */
#define REPORT_PAGE_MARKS 20000 /* circles of all scatters: ~2 MB of SVG */
#define REPORT_MAX_PARAMS 6     /* swept parameters charted */
#define REPORT_MAX_KPIS 16
#define REPORT_MAX_LEVELS 400   /* distinct values of a grid axis */
#define REPORT_MAX_EVENTS 300   /* event rows listed */

/* A swept parameter: a leaf of variant_info.params that varies. */
typedef struct report_param {
	char *name;          /* "actor2.speed": the keys joined by dots, as
	                        shown (any character: escape it) */
	char *parent;        /* JSON path of the object holding it, "$.actor2" */
	char *key;           /* its key there, "speed" */
	char *unit;          /* "m/s", or "" when not known */
	int categorical;     /* values are not numbers (a waypoint list) */
	int n_levels;        /* categorical: distinct values, in first-seen
	                        order; each variant's value is its index */
	char **levels;
	double *v;           /* per variant; NaN: absent */
} report_param;

typedef struct report_kpi {
	char *name;          /* variant_summary column */
	const char *unit;
	int lower_is_worse;  /* min_distance, time on lane */
	double *v;           /* per variant; NaN: NULL */
	int any;             /* some variant has a value */
} report_kpi;

typedef struct report_data {
	const char *db_path;
	sqlite3 *db;
	int64_t n;           /* variants stored */
	int64_t n_failed;
	int64_t *id;         /* per variant, ascending */
	unsigned char *failed;
	int n_kpis;
	report_kpi kpis[REPORT_MAX_KPIS];
	int n_params;
	report_param params[REPORT_MAX_PARAMS];
	int n_params_dropped; /* varying leaves not charted */
	int by;              /* index of the --by KPI */
	int worst;           /* --worst N */
	double load_seconds;
} report_data;

/* `vsweep report ...`; returns an exit status. */
int cli_report(int argc, char **argv);

/* The page (report_html.c). */
void report_write_page(FILE *f, const report_data *d);

/* Sections (report_charts.c, report_worst.c). */
void report_kpi_charts(FILE *f, const report_data *d);
void report_worst(FILE *f, const report_data *d);

/* Shared bits (report_html.c): text with HTML's special characters
 * escaped, fit for element text and for a quoted attribute; every string
 * that comes from the results file goes through it (a name may hold any
 * character: an FMU's parameter, a KPI column, an event kind). A number
 * for people (6 significant digits, "–" for NaN). */
void report_text(FILE *f, const char *s);
void report_num(FILE *f, double v);

#endif
