/* `vsweep plot`: reads a results file through its views (docs/results.md
 * "Views") and writes one SVG chart. See plot.h for the SVG structure. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/error.h"
#include "input/scenario.h"
#include "plot.h"
#include "store/reader.h"

#define PARAM_CHARS 200   /* longest --colour-by PARAM */
#define LATERAL_JUMP 50.0 /* m of s between stored rows: a wrap */
#define PARAMS_CHARS 160  /* legend text of one variant's params, before
                             the legend trims it to its width */

typedef struct plot_args {
	const char *db;
	const char *out;
	const char *colour_by;
	int speed;            /* --kind speed */
	int lateral;          /* --kind lateral */
	int want_signal;      /* --kind signal */
	const char *signal;   /* --signal NAME */
	int free;             /* --aspect free */
	int has_xlim, has_ylim;
	double xlim[2], ylim[2];
	int has_around;
	int64_t around;
	int n_actors;
	int64_t actors[16];   /* --actor, at most 16 */
	int n_ids, cap_ids;
	int64_t *ids;         /* --variant, in the order given */
} plot_args;

static const char plot_usage[] =
	"usage: vsweep plot results.db [--variant I...] [--colour-by PARAM]\n"
	"                   [--kind trajectory|speed|lateral|signal]\n"
	"                   [--aspect equal|free] [--xlim A,B] [--ylim A,B]\n"
	"                   [--around ACTOR] [--actor ID]... [--signal NAME]\n"
	"                   -o FILE.svg|.png\n"
	"  --actor: one id each, repeatable (up to 16). Without --variant,\n"
	"  the first 20 variants. Collisions and lane\n"
	"  changes are marked where they happened. --kind lateral: offset\n"
	"  from the road's reference line over s; --kind signal --signal\n"
	"  PLUGIN.OUTPUT: a stored signal over time. FILE.png: through\n"
	"  rsvg-convert (Debian librsvg2-bin).\n";

static const char *const plot_options[] = {
	"-o", "--output", "--variant", "--colour-by", "--color-by", "--kind",
	"--aspect", "--xlim", "--ylim", "--around", "--actor", "--signal",
	"--help",
};

/* "A,B" with A < B, both finite; -1 otherwise. */
static int parse_limits(const char *v, double out[2])
{
	char *end = NULL;
	if (!v)
		return -1;
	double a = strtod(v, &end);
	if (end == v || *end != ',')
		return -1;
	const char *w = end + 1;
	double b = strtod(w, &end);
	if (end == w || *end || !isfinite(a) || !isfinite(b) || !(a < b))
		return -1;
	out[0] = a;
	out[1] = b;
	return 0;
}

static int plot_bad_usage(const char *fmt, ...) VS_PRINTF(1, 2);

static int plot_bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("vsweep: plot: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs(plot_usage, stderr);
	return EXIT_BAD_INPUT;
}

/* A variant id: a whole decimal number >= 0. */
static int parse_id(const char *s, int64_t *out)
{
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* PARAM as a JSON path into variant_info.params: `actor1.speed` or
 * `$.actor1.speed`; names are letters, digits and '_', an array element
 * `name[2]`. Anything else is refused before it reaches SQLite. */
static int param_path_ok(const char *p)
{
	if (!strncmp(p, "$.", 2))
		p += 2;
	if (!*p || strlen(p) > PARAM_CHARS)
		return 0;
	int name = 0;  /* chars in the current name */
	for (; *p; p++) {
		if (*p == '.') {
			if (!name)
				return 0;
			name = 0;
		} else if (*p == '[') {
			if (!name || p[1] < '0' || p[1] > '9')
				return 0;
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			if (p[1] != ']')
				return 0;
			p++;
		} else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
		           || (*p >= '0' && *p <= '9') || *p == '_') {
			name++;
		} else {
			return 0;
		}
	}
	return name > 0 || p[-1] == ']';
}

/* Appends the ids of "I" or "I,J,..." to a->ids; -1 if one is not an id. */
static int add_ids(const char *list, plot_args *a)
{
	char *buf = vs_strdup(list);
	char *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(buf, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		if (a->n_ids == a->cap_ids) {
			a->cap_ids = a->cap_ids ? 2 * a->cap_ids : 8;
			a->ids = vs_xrealloc(a->ids, (size_t)a->cap_ids *
			                     sizeof *a->ids);
		}
		rc = parse_id(t, &a->ids[a->n_ids]);
		a->n_ids += !rc;
	}
	free(buf);
	return rc;
}

/* For the usage errors cli.h words (an option given twice). */
static const cli_prog plot_prog = {"vsweep: plot", plot_usage, 0};

/* The one name of an option plot takes once (aliases share it), or NULL:
 * --variant and --actor add up. */
static const char *once_key(const char *o)
{
	static const char *const once[][2] = {
		{"--output", "-o"}, {"--colour-by", "--color-by"},
		{"--kind", NULL},   {"--signal", NULL},
		{"--aspect", NULL}, {"--xlim", NULL},
		{"--ylim", NULL},   {"--around", NULL}};
	for (int g = 0; g < (int)(sizeof once / sizeof once[0]); g++)
		if (!strcmp(o, once[g][0]) ||
		    (once[g][1] && !strcmp(o, once[g][1])))
			return once[g][0];
	return NULL;
}

static int parse_plot_args(int argc, char **argv, plot_args *a)
{
	cli_once once = {0}; /* the loop sees options only */
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char *key = once_key(o);
		int rc = key ? cli_once_note(&plot_prog, &once, key, o, v) : 0;
		if (rc)
			return rc;
		if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			if (!v)
				return plot_bad_usage("%s", "-o needs FILE.svg");
			a->out = v;
			i++;
		} else if (!strcmp(o, "--variant")) {
			/* I...: every following argument that starts with a
			 * digit, so results.db may still come after */
			int got = 0;
			while (i + 1 < argc && argv[i + 1][0] >= '0' &&
			       argv[i + 1][0] <= '9') {
				if (add_ids(argv[++i], a))
					return plot_bad_usage("--variant needs "
					        "variant ids (whole numbers >= "
					        "0), got '%s'", argv[i]);
				got = 1;
			}
			if (!got)
				return plot_bad_usage("--variant needs variant ids "
				                      "(whole numbers >= 0), got "
				                      "'%s'", v ? v : "");
		} else if (!strcmp(o, "--colour-by") ||
		           !strcmp(o, "--color-by")) {
			if (!v || !param_path_ok(v))
				return plot_bad_usage("--colour-by needs a parameter "
				                      "path like actor1.speed or "
				                      "actor1.vehicle_model.lf, got "
				                      "'%s'", v ? v : "");
			a->colour_by = v;
			i++;
		} else if (!strcmp(o, "--kind")) {
			/* a signal is drawn as the speed is, over time */
			a->speed = v && (!strcmp(v, "speed") ||
			                 !strcmp(v, "signal"));
			a->lateral = v && !strcmp(v, "lateral");
			a->want_signal = v && !strcmp(v, "signal");
			if (!v || (!a->speed && !a->lateral &&
			           strcmp(v, "trajectory")))
				return plot_bad_usage("--kind is trajectory, speed, "
				                      "lateral or signal, got '%s'",
				                      v ? v : "");
			i++;
		} else if (!strcmp(o, "--signal")) {
			if (!v)
				return plot_bad_usage("%s", "--signal needs a "
				                      "signal name (PLUGIN.OUTPUT)");
			a->signal = v;
			i++;
		} else if (!strcmp(o, "--aspect")) {
			if (!v || (strcmp(v, "free") && strcmp(v, "equal")))
				return plot_bad_usage("--aspect is equal or free, "
				                      "got '%s'", v ? v : "");
			a->free = !strcmp(v, "free");
			i++;
		} else if (!strcmp(o, "--xlim") || !strcmp(o, "--ylim")) {
			int y = o[2] == 'y';
			if (parse_limits(v, y ? a->ylim : a->xlim))
				return plot_bad_usage("%s needs A,B with A < B (m), "
				                      "got '%s'", o, v ? v : "");
			*(y ? &a->has_ylim : &a->has_xlim) = 1;
			i++;
		} else if (!strcmp(o, "--around") || !strcmp(o, "--actor")) {
			int64_t id;
			if (!v || parse_id(v, &id) || id == 0)
				return plot_bad_usage("%s needs an actor id (a whole "
				                      "number >= 1), got '%s'", o,
				                      v ? v : "");
			if (!strcmp(o, "--around")) {
				a->has_around = 1;
				a->around = id;
			} else if (a->n_actors < 16) {
				a->actors[a->n_actors++] = id;
			} else {
				return plot_bad_usage("%s", "--actor: at most 16 "
				                      "actors");
			}
			i++;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(plot_usage, stdout);
			return -1;
		} else if (o[0] == '-' && o[1]) {
			cli_unknown_option("vsweep: plot", o, plot_options,
			                   (int)(sizeof plot_options /
			                         sizeof *plot_options));
			fputs(plot_usage, stderr);
			return EXIT_BAD_INPUT;
		} else if (!a->db) {
			a->db = o;
		} else {
			return plot_bad_usage("unexpected argument '%s'", o);
		}
	}
	if (a->want_signal != !!a->signal)
		return plot_bad_usage("%s", "--kind signal and --signal NAME "
		                      "go together");
	if (!a->db)
		return plot_bad_usage("%s", "missing results.db");
	if (!a->out)
		return plot_bad_usage("%s", "-o FILE.svg is required");
	return 0;
}

/* ---- reading the results file ---- */

/* Prepares sql; on failure prints "vsweep: DB: what: sqlite's message". */
static sqlite3_stmt *prepare(sqlite3 *db, const char *path, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: not a readable vsweep results "
		        "file: %s\n", path, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static char *column_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return vs_strdup(s ? (const char *)s : "");
}

/* Appends "key=value" to buf (size PARAMS_CHARS), "; " between. */
static void params_append(char *buf, const char *key, sqlite3_stmt *st,
                          int col)
{
	char val[96];
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		snprintf(val, sizeof val, "%lld", sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		/* JSON keeps 17 digits (5.2000000000000002); 6 read better */
		snprintf(val, sizeof val, "%.6g", sqlite3_column_double(st, col));
		break;
	default: {
		const unsigned char *s = sqlite3_column_text(st, col);
		snprintf(val, sizeof val, "%s", s ? (const char *)s : "null");
	}
	}
	size_t n = strlen(buf);
	snprintf(buf + n, PARAMS_CHARS - n, "%s", n ? "; " : "");
	/* json_tree quotes keys that are not plain identifiers to it
	 * ("vehicle_model"); the legend reads better without */
	for (n = strlen(buf); *key && n < PARAMS_CHARS - 1; key++)
		if (*key != '"')
			buf[n++] = *key;
	buf[n] = 0;
	snprintf(buf + n, PARAMS_CHARS - n, "=%s", val);
}

/* The variants to plot: the ids asked for (each must exist), or the first
 * PLOT_MAX_VARIANTS of the file. Returns 0 or an exit status. */
static int load_variants(sqlite3 *db, const plot_args *a, plot_data *d)
{
	int status = EXIT_BAD_INPUT;
	sqlite3_stmt *all = prepare(db, a->db, "SELECT variant_id, status "
	                            "FROM variant_info ORDER BY variant_id");
	sqlite3_stmt *one = !all ? NULL : prepare(db, a->db, "SELECT "
	                            "variant_id, status FROM variant_info "
	                            "WHERE variant_id = ?");
	/* Leaves of params: members of objects (an array stays whole). */
	sqlite3_stmt *par = !one ? NULL : prepare(db, a->db, "SELECT "
	                            "substr(j.fullkey, 3), "
	                            "CASE j.type WHEN 'array' THEN j.value "
	                            "ELSE j.atom END FROM variant_info v, "
	                            "json_tree(v.params) j WHERE v.variant_id "
	                            "= ? AND typeof(j.key) = 'text' AND "
	                            "j.type != 'object' ORDER BY j.id");
	if (!all || !one || !par)
		goto out;
	int cap = a->n_ids ? a->n_ids : 16;
	d->variants = vs_xcalloc((size_t)cap, sizeof *d->variants);
	if (a->n_ids) {
		for (int i = 0; i < a->n_ids; i++) {
			sqlite3_reset(one);
			sqlite3_bind_int64(one, 1, a->ids[i]);
			if (sqlite3_step(one) != SQLITE_ROW) {
				fprintf(stderr, "vsweep: %s: no variant %lld in "
				        "the file\n", a->db,
				        (long long)a->ids[i]);
				goto out;
			}
			int dup = 0;
			for (int k = 0; k < d->n_variants; k++)
				dup |= d->variants[k].id == a->ids[i];
			if (dup)
				continue;
			plot_variant *v = &d->variants[d->n_variants++];
			v->id = a->ids[i];
			v->failed = strcmp((const char *)sqlite3_column_text(
				one, 1), "done") != 0;
		}
	} else {
		long long total = 0;
		int rc;
		while ((rc = sqlite3_step(all)) == SQLITE_ROW) {
			total++;
			if (d->n_variants == PLOT_MAX_VARIANTS)
				continue;
			if (d->n_variants == cap) {
				cap *= 2;
				d->variants = vs_xrealloc(d->variants,
				        (size_t)cap * sizeof *d->variants);
			}
			plot_variant *v = &d->variants[d->n_variants++];
			memset(v, 0, sizeof *v);
			v->id = sqlite3_column_int64(all, 0);
			v->failed = strcmp((const char *)sqlite3_column_text(
				all, 1), "done") != 0;
		}
		if (rc != SQLITE_DONE) {
			fprintf(stderr, "vsweep: %s: %s\n", a->db,
			        sqlite3_errmsg(db));
			goto out;
		}
		if (total == 0) {
			fprintf(stderr, "vsweep: %s: the file holds no variants "
			        "to plot\n", a->db);
			goto out;
		}
		if (total > d->n_variants)
			fprintf(stderr, "vsweep: %s: plotting the first %d of "
			        "%lld variants (%lld left out); choose others with "
			        "--variant\n", a->db, d->n_variants, total,
			        total - d->n_variants);
	}
	for (int i = 0; i < d->n_variants; i++) {
		char buf[PARAMS_CHARS] = "";
		sqlite3_reset(par);
		sqlite3_bind_int64(par, 1, d->variants[i].id);
		while (sqlite3_step(par) == SQLITE_ROW)
			params_append(buf, (const char *)sqlite3_column_text(
				par, 0), par, 1);
		d->variants[i].params = vs_strdup(buf[0] ? buf : "seed");
	}
	status = 0;
out:
	sqlite3_finalize(all);
	sqlite3_finalize(one);
	sqlite3_finalize(par);
	return status;
}

/* --colour-by: each variant's value, and the range. Unknown everywhere is
 * an input error. */
static int load_colour_values(sqlite3 *db, const plot_args *a, plot_data *d)
{
	char path[PARAM_CHARS + 3];  /* "$." PARAM */
	snprintf(path, sizeof path, "%s%s",
	         strncmp(a->colour_by, "$.", 2) ? "$." : "", a->colour_by);
	sqlite3_stmt *st = prepare(db, a->db, "SELECT json_extract(params, ?)"
	                           " FROM variant_info WHERE variant_id = ?");
	if (!st)
		return EXIT_BAD_INPUT;
	int n = 0;
	for (int i = 0; i < d->n_variants; i++) {
		plot_variant *v = &d->variants[i];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, v->id);
		int rc = sqlite3_step(st);
		if (rc != SQLITE_ROW) {
			fprintf(stderr, "vsweep: %s: --colour-by %s: %s\n", a->db,
			        a->colour_by, sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return EXIT_BAD_INPUT;
		}
		int type = sqlite3_column_type(st, 0);
		if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
			d->n_no_value++;
			continue;  /* absent, or not a number (a speed vector) */
		}
		v->has_value = 1;
		v->value = sqlite3_column_double(st, 0);
		if (!n || v->value < d->vmin)
			d->vmin = v->value;
		if (!n || v->value > d->vmax)
			d->vmax = v->value;
		n++;
	}
	sqlite3_finalize(st);
	if (!n) {
		fprintf(stderr, "vsweep: %s: --colour-by %s: no plotted variant "
		        "has this parameter as a number (variant %lld's "
		        "params: %s)\n", a->db, a->colour_by,
		        (long long)d->variants[0].id, d->variants[0].params);
		return EXIT_BAD_INPUT;
	}
	d->colour_by = a->colour_by;
	return 0;
}

/* A REAL column; NULL (how SQLite stores a NaN) as NaN, not 0. */
static double column_real(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL
	               ? NAN : sqlite3_column_double(st, col);
}

void plot_series_push(plot_series *s, int64_t row, double t, double x,
                      double y, double speed)
{
	if (row % s->stride || s->n == s->cap)
		return;
	s->t[s->n] = t;
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->speed[s->n] = speed;
	s->n++;
}

void plot_series_alloc(plot_series *s, int64_t rows)
{
	/* K = ceil((rows - 1) / (MAX - 2)): rows 0, K, ... are at most
	 * MAX - 1, and the last row makes MAX */
	s->stride = rows > PLOT_MAX_POINTS
	                ? (int)((rows - 1 + PLOT_MAX_POINTS - 3) /
	                        (PLOT_MAX_POINTS - 2))
	                : 1;
	s->cap = (int)((rows - 1) / s->stride + 2);
	s->t = vs_xcalloc((size_t)s->cap, sizeof *s->t);
	s->x = vs_xcalloc((size_t)s->cap, sizeof *s->x);
	s->y = vs_xcalloc((size_t)s->cap, sizeof *s->y);
	s->speed = vs_xcalloc((size_t)s->cap, sizeof *s->speed);
}

/* True when --actor does not leave this actor out. */
static int actor_wanted(const plot_args *a, int64_t id)
{
	for (int i = 0; i < a->n_actors; i++)
		if (a->actors[i] == id)
			return 1;
	return a->n_actors == 0;
}

/* The chart's (x, y) of a stored row: world x, y, or with --kind lateral
 * s and offset on the scenario's map. */
static void chart_xy(const plot_args *a, const vs_scenario *scn,
                     sqlite3_stmt *st, int col, double out[2])
{
	out[0] = column_real(st, col);
	out[1] = column_real(st, col + 1);
	if (a->lateral)
		plot_lateral(scn, out[0], out[1], column_real(st, col + 2),
		             column_real(st, col + 3), column_real(st, col + 4),
		             column_real(st, col + 5), out);
}

/* Every actor (that --actor keeps) of every plotted variant: one series
 * each. */
static int load_series(sqlite3 *db, const plot_args *a, plot_data *d,
                       const vs_scenario *scn)
{
	int status = EXIT_BAD_INPUT;
	sqlite3_stmt *cnt = prepare(db, a->db, "SELECT actor_id, count(*) "
	                            "FROM actor_state WHERE variant_id = ? "
	                            "GROUP BY actor_id ORDER BY actor_id");
	sqlite3_stmt *rows = !cnt ? NULL : prepare(db, a->db, "SELECT "
	                             "actor_id, t, x, y, z, vx, vy, yaw, vz "
	                             "FROM actor_state WHERE variant_id = ? "
	                             "ORDER BY actor_id, step");
	sqlite3_stmt *names = !rows ? NULL : prepare(db, a->db, "SELECT "
	                              "actor_id, name FROM actor_info WHERE "
	                              "variant_id = ? ORDER BY actor_id");
	if (!cnt || !rows || !names)
		goto out;
	int cap = 16;
	d->series = vs_xcalloc((size_t)cap, sizeof *d->series);
	for (int v = 0; v < d->n_variants; v++) {
		int first = d->n_series;
		sqlite3_reset(cnt);
		sqlite3_bind_int64(cnt, 1, d->variants[v].id);
		while (sqlite3_step(cnt) == SQLITE_ROW) {
			if (!actor_wanted(a, sqlite3_column_int64(cnt, 0)))
				continue;
			if (d->n_series == cap) {
				cap *= 2;
				d->series = vs_xrealloc(d->series,
				        (size_t)cap * sizeof *d->series);
			}
			plot_series *s = &d->series[d->n_series++];
			memset(s, 0, sizeof *s);
			s->variant = v;
			s->actor_id = sqlite3_column_int64(cnt, 0);
			plot_series_alloc(s, sqlite3_column_int64(cnt, 1));
		}
		sqlite3_reset(rows);
		sqlite3_bind_int64(rows, 1, d->variants[v].id);
		plot_series *s = NULL;
		int64_t row = 0;
		double last[4] = {0};
		int rc, brk = 0;
		while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(rows, 0);
			if (!actor_wanted(a, id))
				continue;
			if (!s || s->actor_id != id) {
				/* the last row always ends the path */
				if (s && (row - 1) % s->stride)
					plot_series_push(s, 0, last[0],
					                 last[1], last[2], last[3]);
				s = NULL;
				for (int k = first; k < d->n_series; k++)
					if (d->series[k].actor_id == id)
						s = &d->series[k];
				row = 0;
				if (!s)
					break;  /* rows changed under us */
			}
			double vx = column_real(rows, 5);
			double vy = column_real(rows, 6);
			double vz = column_real(rows, 8);
			double prev_s = row ? last[1] : NAN;
			last[0] = column_real(rows, 1);
			chart_xy(a, scn, rows, 2, &last[1]);
			last[3] = sqrt(vx * vx + vy * vy + vz * vz);
			/* s wraps round a ring: break the line, no chord back */
			brk |= a->lateral && fabs(last[1] - prev_s) > LATERAL_JUMP;
			if (brk && row % s->stride == 0) {
				last[2] = NAN;
				brk = 0;
			}
			plot_series_push(s, row++, last[0], last[1], last[2],
			                 last[3]);
		}
		if (s && (row - 1) % s->stride)
			plot_series_push(s, 0, last[0], last[1], last[2],
			                 last[3]);
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			fprintf(stderr, "vsweep: %s: %s\n", a->db,
			        sqlite3_errmsg(db));
			goto out;
		}
		if (d->n_actors)
			continue;
		/* The legend names actors after the first variant that has
		 * any; actor ids are stable across variants. */
		sqlite3_reset(names);
		sqlite3_bind_int64(names, 1, d->variants[v].id);
		int acap = 0;
		while (sqlite3_step(names) == SQLITE_ROW) {
			if (d->n_actors == acap) {
				acap = acap ? 2 * acap : 8;
				d->actors = vs_xrealloc(d->actors,
				        (size_t)acap * sizeof *d->actors);
			}
			plot_actor *ac = &d->actors[d->n_actors++];
			ac->id = sqlite3_column_int64(names, 0);
			ac->name = column_dup(names, 1);
		}
	}
	if (d->n_series == 0) {
		fprintf(stderr, "vsweep: %s: the chosen variants have no stored "
		        "states\n", a->db);
		goto out;
	}
	status = 0;
out:
	sqlite3_finalize(cnt);
	sqlite3_finalize(rows);
	sqlite3_finalize(names);
	return status;
}

/* 1 when every actor --actor and --around name is in the file, else 0
 * with a message (a mistyped id showed as "no stored states"). */
static int actors_exist(sqlite3 *db, const plot_args *a)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM actor_info WHERE actor_id = ? "
	                       "LIMIT 1", -1, &q, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return 1; /* not a results file: said when it is read */
	}
	int ok = 1;
	for (int k = 0; ok && k <= a->n_actors; k++) {
		if (k == a->n_actors && !a->has_around)
			break;
		int64_t id = k < a->n_actors ? a->actors[k] : a->around;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) != SQLITE_ROW) {
			fprintf(stderr, "vsweep: %s: no actor %lld in this file "
			        "(%s)\n", a->db, (long long)id,
			        k < a->n_actors ? "--actor" : "--around");
			ok = 0;
		}
	}
	sqlite3_finalize(q);
	return ok;
}

/* The stored scenario: its name for the title and its map for the lanes
 * (and for --kind lateral); the caller destroys it. A scenario this build
 * cannot read only costs the lanes (a warning), and NULL. */
static vs_scenario *load_scenario(sqlite3 *db, const plot_args *a,
                                  plot_data *d)
{
	vs_scenario *scn = NULL;
	sqlite3_stmt *st = prepare(db, a->db, "SELECT value FROM meta WHERE "
	                           "key = 'scenario_text'");
	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		vs_error err = {{0}};
		char path[512];
		snprintf(path, sizeof path, "%s (stored scenario)", a->db);
		scn = vs_scenario_parse(path, text, len, &err);
		if (scn) {
			d->scenario_name = vs_strdup(scn->name ? scn->name : "");
			if (a->lateral)
				plot_lateral_lanes(scn, &d->lanes);
			else
				plot_map_lanes(scn, &d->lanes);
		} else {
			fprintf(stderr, "vsweep: warning: %s; drawing no lanes\n",
			        err.msg);
		}
	}
	sqlite3_finalize(st);
	return scn;
}

static void plot_data_finish(plot_data *d)
{
	free(d->events);
	for (int i = 0; i < d->n_variants; i++)
		free(d->variants[i].params);
	free(d->variants);
	for (int i = 0; i < d->n_actors; i++)
		free(d->actors[i].name);
	free(d->actors);
	for (int i = 0; i < d->n_series; i++) {
		free(d->series[i].t);
		free(d->series[i].x);
		free(d->series[i].y);
		free(d->series[i].speed);
	}
	free(d->series);
	free(d->scenario_name);
	free(d->signal_unit);
	plot_lanes_finish(&d->lanes);
}

int cli_plot(int argc, char **argv)
{
	plot_args a;
	plot_data d;
	sqlite3 *db = NULL;
	vs_scenario *scn = NULL;
	memset(&a, 0, sizeof a);
	memset(&d, 0, sizeof d);
	int status = parse_plot_args(argc, argv, &a);
	if (status) {
		status = status < 0 ? EXIT_OK : status;  /* -1: --help */
		goto out;
	}
	if (plot_clobbers_results(a.db, a.out)) {
		status = EXIT_BAD_INPUT;
		goto out;
	}
	d.db_path = a.db;
	/* SQLite says "unable to open database file" whatever the cause */
	int probe_errno = vs_store_read_errno(a.db);
	if (probe_errno) {
		fprintf(stderr, "vsweep: %s: cannot open results file: %s\n",
		        a.db, vs_store_read_error(probe_errno));
		status = EXIT_BAD_INPUT;
		goto out;
	}
	/* Read-only, and never create: a missing file is an input error.
	 * Nothing left beside a finished file (store/reader.h). One read
	 * transaction, so that a run still writing the file cannot add
	 * rows between the counts and the rows. */
	if (vs_store_open_read(a.db, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: cannot open results file: %s\n",
		        a.db, db ? sqlite3_errmsg(db) : "out of memory");
		status = EXIT_BAD_INPUT;
		goto out;
	}
	if (!actors_exist(db, &a)) {
		status = EXIT_BAD_INPUT;
		goto out;
	}
	scn = load_scenario(db, &a, &d);
	if (a.lateral && !plot_map_lane_count(scn)) {
		fprintf(stderr, "vsweep: %s: --kind lateral needs the stored "
		        "scenario's map, and it has no lanes\n", a.db);
		status = EXIT_BAD_INPUT;
		goto out;
	}
	d.lateral = a.lateral;
	d.free = a.free || a.lateral;
	d.has_xlim = a.has_xlim;
	d.has_ylim = a.has_ylim;
	memcpy(d.xlim, a.xlim, sizeof d.xlim);
	memcpy(d.ylim, a.ylim, sizeof d.ylim);
	d.has_around = a.has_around;
	d.around = a.around;
	status = load_variants(db, &a, &d);
	if (!status && a.colour_by)
		status = load_colour_values(db, &a, &d);
	if (!status && a.signal)
		status = plot_load_signal(db, a.db, &d, a.signal, a.actors,
		                          a.n_actors);
	else if (!status)
		status = load_series(db, &a, &d, scn);
	if (!status && !a.speed)
		status = plot_load_events(db, a.db, &d, a.lateral ? scn : NULL);
	if (status)
		goto out;
	status = plot_write_chart(a.out, a.speed, &d);
	if (!status)
		printf("vsweep: %s: %s of %d variants, %d series, %d events\n",
		       a.out, a.signal ? a.signal : a.speed ? "speed" :
		       a.lateral ? "lateral offset" :
		       "trajectories", d.n_variants, d.n_series, d.n_events);
out:
	vs_scenario_destroy(scn);
	sqlite3_close(db);
	plot_data_finish(&d);
	free(a.ids);
	return status;
}
