/* `vsweep report`: reads a results file through its views (docs/results.md
 * "Views") into report_data and writes the page. One pass over every
 * variant's params finds the swept parameters, one pass over
 * variant_summary fetches every KPI and every swept parameter, so a file
 * of 10^6 variants costs two scans. See report.h for the page's
 * structure. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common/error.h"
#include "plot.h"
#include "report.h"
#include "store/reader.h"


static const char report_usage[] =
	"usage: vsweep report RESULTS.db -o FILE.html [--worst N] [--by KPI]\n"
	"  One self-contained HTML page: the sweep's record, done/failed with\n"
	"  the reasons, each KPI of variant_summary against each swept\n"
	"  parameter, the worst N variants by KPI (default 5 by\n"
	"  max_lateral_acceleration) with trajectories and speed, the events.\n";

static int report_bad_usage(const char *fmt, ...) VS_PRINTF(1, 2);

static int report_bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("vsweep: report: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs(report_usage, stderr);
	return EXIT_BAD_INPUT;
}

typedef struct report_args {
	const char *db, *out, *by;
	long worst;
} report_args;

/* For the usage errors cli.h words (an option given twice). */
static const cli_prog report_prog = {"vsweep: report", report_usage, 0};

static const char *const report_options[] = {"-o", "--output", "--worst",
                                             "--by", "--help"};

/* 0, -1 for --help (printed), or a usage status. */
static int parse_args(int argc, char **argv, report_args *a)
{
	a->worst = 5;
	cli_once once = {0};
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int out = !strcmp(o, "-o") || !strcmp(o, "--output");
		const char *key = out ? "--output" : o;
		int rc = out || !strcmp(o, "--by") || !strcmp(o, "--worst")
		                 ? cli_once_note(&report_prog, &once, key, o, v)
		                 : 0;
		if (rc)
			return rc;
		if (out) {
			if (!v)
				return report_bad_usage("%s", "-o needs FILE.html");
			a->out = v;
			i++;
		} else if (!strcmp(o, "--worst")) {
			if (cli_parse_long(v, 0, 100, &a->worst))
				return report_bad_usage("--worst needs N in "
				                        "0..100, got '%s'",
				                        v ? v : "");
			i++;
		} else if (!strcmp(o, "--by")) {
			if (!v)
				return report_bad_usage("%s", "--by needs a KPI "
				                        "column of variant_summary");
			a->by = v;
			i++;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(report_usage, stdout);
			return -1;
		} else if (o[0] == '-' && o[1]) {
			cli_unknown_option("vsweep: report", o, report_options,
			                   (int)(sizeof report_options /
			                         sizeof *report_options));
			fputs(report_usage, stderr);
			return EXIT_BAD_INPUT;
		} else if (!a->db) {
			a->db = o;
		} else {
			return report_bad_usage("unexpected argument '%s'", o);
		}
	}
	if (!a->db)
		return report_bad_usage("%s", "missing RESULTS.db");
	if (!a->out)
		return report_bad_usage("%s", "-o FILE.html is required");
	return 0;
}

static sqlite3_stmt *prepare(const report_data *d, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: not a readable vsweep results "
		        "file: %s\n", d->db_path, sqlite3_errmsg(d->db));
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

typedef struct unit_row {
	const char *name, *unit;
} unit_row;

/* Keyed by the column names of variant_summary (docs/results.md);
 * test_report checks that every KPI column has its row. */
static const unit_row kpi_units[] = {
	{"max_lateral_acceleration", "m/s\xc2\xb2"},
	{"max_yaw_rate", "rad/s"}, {"min_distance", "m"},
	{"time_on_lane_pct", "%"}, {"collisions", "count"},
	{"lane_changes", "count"}, {"min_ttc", "s"},
	{"min_time_headway", "s"}, {"max_deceleration", "m/s\xc2\xb2"},
	{"max_jerk", "m/s\xc2\xb3"},
};

/* The last name of a parameter path decides its unit (docs/results.md). */
static const unit_row param_units[] = {
	{"speed", "m/s"}, {"yaw", "rad"}, {"length", "m"}, {"width", "m"},
	{"height", "m"}, {"lf", "m"}, {"lr", "m"}, {"wheelbase", "m"},
	{"track", "m"}, {"wheel_radius", "m"}, {"front_overhang", "m"},
	{"rear_overhang", "m"}, {"m", "kg"}, {"Kf", "N/rad"},
	{"Kr", "N/rad"}, {"heading", "deg"}, {"slope", "deg"},
	{"offset", "m"}, {"s", "m"}, {"steering_ratio", ""},
};

static const char *unit_of(const unit_row *t, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].unit;
	size_t len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "_deg"))
		return "deg";
	return "";
}

/* The unit table actor_param gives a plugin parameter (parent
 * "$.actorN.ROLE", quoted or not), or NULL: not a plugin's, or a file
 * written before the table. */
static char *plugin_param_unit(report_data *d, const char *parent,
                               const char *key)
{
	char path[256], role[32];
	size_t n = 0;
	for (const char *s = parent; *s && n + 1 < sizeof path; s++)
		if (*s != '"')
			path[n++] = *s;
	path[n] = 0;
	long long actor;
	int used = 0;
	if (sscanf(path, "$.actor%lld.%31[a-z_]%n", &actor, role, &used) != 2 ||
	    path[used] || (strcmp(role, "vehicle_model") &&
	                   strcmp(role, "behaviour")))
		return NULL;
	sqlite3_stmt *q = NULL;
	char *unit = NULL;
	if (sqlite3_prepare_v2(d->db, "SELECT unit FROM actor_param WHERE "
	                       "actor_id = ? AND role = ? AND name = ?", -1, &q,
	                       NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return NULL; /* no table: an earlier build's file */
	}
	sqlite3_bind_int64(q, 1, actor);
	sqlite3_bind_text(q, 2, role, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, key, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		unit = vs_strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return unit;
}

/* A swept parameter's unit from where it sits in params: a plugin's
 * parameter has its plugin's (table actor_param); a start's position and
 * its coordinates are metres; other names by the table above, which is
 * also all a file written before actor_param has for a plugin's. */
static char *param_unit(report_data *d, const char *parent, const char *key)
{
	char *u = plugin_param_unit(d, parent, key);
	if (u)
		return u;
	size_t n = strlen(parent);
	if (n >= 5 && !strcmp(parent + n - 5, "start") &&
	    (!strcmp(key, "x") || !strcmp(key, "y") || !strcmp(key, "z") ||
	     !strcmp(key, "position")))
		return vs_strdup("m");
	return vs_strdup(unit_of(param_units, (int)(sizeof param_units /
	                         sizeof *param_units), key));
}

/* The KPI columns of variant_summary: every column but the identity ones,
 * so KPIs added later appear without a change here. */
static int load_kpi_names(report_data *d)
{
	sqlite3_stmt *st = prepare(d, "SELECT name FROM pragma_table_info("
	                           "'variant_summary') ORDER BY cid");
	if (!st)
		return EXIT_BAD_INPUT;
	while (sqlite3_step(st) == SQLITE_ROW && d->n_kpis < REPORT_MAX_KPIS) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t nl = strlen(name); /* X_actor_id names X's actor */
		if (!strcmp(name, "variant_id") || !strcmp(name, "status") ||
		    (nl > 9 && !strcmp(name + nl - 9, "_actor_id")) ||
		    !strcmp(name, "label") || !strcmp(name, "params"))
			continue;
		report_kpi *k = &d->kpis[d->n_kpis++];
		k->name = vs_strdup(name);
		k->unit = unit_of(kpi_units, (int)(sizeof kpi_units /
		                  sizeof *kpi_units), name);
		k->lower_is_worse = !strncmp(name, "min_", 4) ||
		                    !strncmp(name, "time_on_lane", 12);
	}
	sqlite3_finalize(st);
	if (!d->n_kpis) {
		fprintf(stderr, "vsweep: %s: not a vsweep results file (no "
		        "variant_summary view)\n", d->db_path);
		return EXIT_BAD_INPUT;
	}
	return 0;
}

/* "$.actor1.\"vehicle_model\"" and "lf": actor1.vehicle_model.lf. The
 * parent's keys are vsweep's own (actorN, vehicle_model, start, ...),
 * which SQLite quotes or not depending on its version; the quotes are
 * dropped. The key itself is shown as stored. */
static char *display_name(const char *parent, const char *key)
{
	char *out = vs_xcalloc(strlen(parent) + strlen(key) + 2, 1), *o = out;
	for (const char *s = parent + (parent[0] == '$'); *s; s++)
		if (*s != '"' && (*s != '.' || o > out))
			*o++ = *s;
	if (o > out)
		*o++ = '.';
	strcpy(o, key);
	return out;
}

/* The swept parameters: leaves of params (an array counts as one leaf)
 * that differ between variants or are missing from some, in the order
 * they first appear. Every variant is read, in one pass that SQLite's
 * json_tree and one GROUP BY do (about 4 s for 10^6 variants): a sample
 * would miss a parameter that only a few variants change, although
 * those few may be the worst. */
static int discover_params(report_data *d)
{
	sqlite3_stmt *st = prepare(d,
		"SELECT j.path, j.key, count(*), "
		"  min(coalesce(j.atom, j.value)) IS "
		"    max(coalesce(j.atom, j.value)), "
		"  min(j.type IN ('integer', 'real')) "
		"FROM variant_info v, json_tree(v.params) j "
		"WHERE typeof(j.key) = 'text' AND j.type != 'object' "
		"GROUP BY j.path, j.key ORDER BY min(v.variant_id), min(j.id)");
	if (!st)
		return EXIT_BAD_INPUT;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t present = sqlite3_column_int64(st, 2);
		if (sqlite3_column_int(st, 3) && present == d->n)
			continue;  /* the same in every variant: not swept */
		if (d->n_params == REPORT_MAX_PARAMS) {
			d->n_params_dropped++;
			continue;
		}
		report_param *p = &d->params[d->n_params++];
		const char *parent = (const char *)sqlite3_column_text(st, 0);
		const char *key = (const char *)sqlite3_column_text(st, 1);
		p->parent = vs_strdup(parent);
		p->key = vs_strdup(key);
		p->name = display_name(parent, key);
		p->categorical = !sqlite3_column_int(st, 4);
		p->unit = param_unit(d, parent, key);
		p->v = vs_xcalloc((size_t)d->n + 1, sizeof *p->v);
	}
	if (rc != SQLITE_DONE)  /* a params that is not JSON, say */
		fprintf(stderr, "vsweep: %s: cannot read the swept parameters "
		        "(variant_info.params): %s\n", d->db_path,
		        sqlite3_errmsg(d->db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : EXIT_BAD_INPUT;
}

/* The level index of a categorical value, adding it when new; -1 past
 * REPORT_MAX_LEVELS. */
static int level_of(report_param *p, const char *s)
{
	for (int i = p->n_levels - 1; i >= 0; i--)
		if (!strcmp(p->levels[i], s))
			return i;
	if (p->n_levels == REPORT_MAX_LEVELS)
		return -1;
	p->levels = vs_xrealloc(p->levels, (size_t)(p->n_levels + 1) *
	                        sizeof *p->levels);
	p->levels[p->n_levels] = vs_strdup(s);
	return p->n_levels++;
}

static double column_real(sqlite3_stmt *st, int col)
{
	int t = sqlite3_column_type(st, col);
	return t == SQLITE_INTEGER || t == SQLITE_FLOAT
	               ? sqlite3_column_double(st, col) : NAN;
}

/* One pass: ids, status, every KPI, every swept parameter. */
static int load_variants(report_data *d)
{
	/* Column names quoted (%w), parameter keys bound: both come from
	 * the file and may hold any character. A key is looked up among
	 * its parent's members rather than by a JSON path, which SQLite
	 * cannot spell for a key holding '"'. */
	sqlite3_str *sq = sqlite3_str_new(d->db);
	sqlite3_str_appendall(sq, "SELECT s.variant_id, s.status = 'done'");
	for (int k = 0; k < d->n_kpis; k++)
		sqlite3_str_appendf(sq, ", s.\"%w\"", d->kpis[k].name);
	for (int p = 0; p < d->n_params; p++)
		sqlite3_str_appendf(sq, ", (SELECT value FROM json_each(s.params, "
		                    "?%d) WHERE key = ?%d)", 2 * p + 1, 2 * p + 2);
	sqlite3_str_appendall(sq, " FROM variant_summary s ORDER BY "
	                      "s.variant_id");
	char *sql = sqlite3_str_finish(sq);
	if (!sql) {
		fprintf(stderr, "vsweep: report: out of memory\n");
		return EXIT_INTERNAL;
	}
	sqlite3_stmt *st = prepare(d, sql);
	sqlite3_free(sql);
	if (!st)
		return EXIT_BAD_INPUT;
	for (int p = 0; p < d->n_params; p++) {
		sqlite3_bind_text(st, 2 * p + 1, d->params[p].parent, -1,
		                  SQLITE_STATIC);
		sqlite3_bind_text(st, 2 * p + 2, d->params[p].key, -1,
		                  SQLITE_STATIC);
	}
	d->id = vs_xcalloc((size_t)d->n + 1, sizeof *d->id);
	d->failed = vs_xcalloc((size_t)d->n + 1, 1);
	for (int k = 0; k < d->n_kpis; k++)
		d->kpis[k].v = vs_xcalloc((size_t)d->n + 1, sizeof(double));
	int64_t i = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && i < d->n) {
		d->id[i] = sqlite3_column_int64(st, 0);
		d->failed[i] = !sqlite3_column_int(st, 1);
		d->n_failed += d->failed[i];
		for (int k = 0; k < d->n_kpis; k++) {
			double v = column_real(st, 2 + k);
			d->kpis[k].v[i] = v;
			d->kpis[k].any |= !isnan(v);
		}
		for (int p = 0; p < d->n_params; p++) {
			report_param *q = &d->params[p];
			int col = 2 + d->n_kpis + p;
			if (sqlite3_column_type(st, col) == SQLITE_NULL) {
				q->v[i] = NAN;
			} else if (q->categorical) {
				int lv = level_of(q, (const char *)
				                  sqlite3_column_text(st, col));
				q->v[i] = lv < 0 ? NAN : lv;
			} else {
				q->v[i] = column_real(st, col);
			}
		}
		i++;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "vsweep: %s: cannot read variant_summary: %s\n",
		        d->db_path, sqlite3_errmsg(d->db));
		sqlite3_finalize(st);
		return EXIT_BAD_INPUT;
	}
	sqlite3_finalize(st);
	d->n = i;
	return 0;
}

/* --by: a KPI column, or an input error naming the choices. */
static int choose_by(report_data *d, const char *by)
{
	const char *want = by ? by : "max_lateral_acceleration";
	const char *names[REPORT_MAX_KPIS];
	for (int k = 0; k < d->n_kpis; k++) {
		names[k] = d->kpis[k].name;
		if (!strcmp(names[k], want)) {
			d->by = k;
			return 0;
		}
	}
	if (!by) {
		d->by = 0;
		return 0;
	}
	const char *near = cli_did_you_mean(by, names, d->n_kpis);
	fprintf(stderr, "vsweep: report: --by: no KPI '%s' in "
	        "variant_summary%s%s%s; KPIs:", by, near ? " (did you mean '" :
	        "", near ? near : "", near ? "'?)" : "");
	for (int k = 0; k < d->n_kpis; k++)
		fprintf(stderr, " %s", names[k]);
	fputs("\n", stderr);
	return EXIT_BAD_INPUT;
}

static void report_data_finish(report_data *d)
{
	for (int k = 0; k < d->n_kpis; k++) {
		free(d->kpis[k].name);
		free(d->kpis[k].v);
	}
	for (int p = 0; p < d->n_params; p++) {
		report_param *q = &d->params[p];
		for (int l = 0; l < q->n_levels; l++)
			free(q->levels[l]);
		free(q->levels);
		free(q->name);
		free(q->parent);
		free(q->key);
		free(q->unit);
		free(q->v);
	}
	free(d->id);
	free(d->failed);
	sqlite3_close(d->db);
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes the page built in memory: a failed write is one I/O error,
 * never half a page. */
static int write_page(const report_args *a, const report_data *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(stderr, "vsweep: report: out of memory\n");
		return EXIT_INTERNAL;
	}
	report_write_page(m, d);
	if (fclose(m)) {
		free(buf);
		fprintf(stderr, "vsweep: report: out of memory\n");
		return EXIT_INTERNAL;
	}
	int status = EXIT_OK;
	FILE *f = fopen(a->out, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fflush(f)) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", a->out,
		        strerror(errno));
		status = EXIT_INTERNAL;
	}
	if (f && fclose(f) && status == EXIT_OK) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", a->out,
		        strerror(errno));
		status = EXIT_INTERNAL;
	}
	free(buf);
	return status;
}

int cli_report(int argc, char **argv)
{
	report_args a = {0};
	report_data d;
	memset(&d, 0, sizeof d);
	double t0 = seconds_now();
	int status = parse_args(argc, argv, &a);
	if (status)
		return status < 0 ? EXIT_OK : status;
	d.db_path = a.db;
	d.worst = (int)a.worst;
	if (plot_clobbers_results(a.db, a.out))
		return EXIT_BAD_INPUT;  /* a page never replaces results */
	int probe_errno = vs_store_read_errno(a.db);
	if (probe_errno) {
		fprintf(stderr, "vsweep: %s: cannot open results file: %s\n",
		        a.db, vs_store_read_error(probe_errno));
		return EXIT_BAD_INPUT;
	}
	/* Read-only, leaving nothing beside a finished file
	 * (store/reader.h); one read transaction: a run still writing the
	 * file cannot change it between the counts and the charts. */
	if (vs_store_open_read(a.db, &d.db) != SQLITE_OK ||
	    sqlite3_exec(d.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: cannot open results file: %s\n",
		        a.db, d.db ? sqlite3_errmsg(d.db) : "out of memory");
		status = EXIT_BAD_INPUT;
		goto out;
	}
	sqlite3_stmt *cnt = prepare(&d, "SELECT count(*) FROM variant_info");
	if (!cnt) {
		status = EXIT_BAD_INPUT;
		goto out;
	}
	if (sqlite3_step(cnt) == SQLITE_ROW) {
		d.n = sqlite3_column_int64(cnt, 0);
	} else {
		fprintf(stderr, "vsweep: %s: cannot count the variants: %s\n",
		        a.db, sqlite3_errmsg(d.db));
		status = EXIT_BAD_INPUT;
	}
	sqlite3_finalize(cnt);
	if (status)
		goto out;
	status = load_kpi_names(&d);
	if (!status)
		status = choose_by(&d, a.by);
	if (!status)
		status = discover_params(&d);
	if (!status)
		status = load_variants(&d);
	if (status)
		goto out;
	d.load_seconds = seconds_now() - t0;
	status = write_page(&a, &d);
	if (!status)
		printf("vsweep: %s: report of %lld variants (%lld failed), %d "
		       "swept parameters, in %.2f s\n", a.out, (long long)d.n,
		       (long long)d.n_failed, d.n_params, seconds_now() - t0);
out:
	report_data_finish(&d);
	return status;
}
