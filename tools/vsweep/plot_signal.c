/* `vsweep plot --kind signal --signal NAME`: a plugin's or FMU's stored
 * output (the actor_signal view, `--record signals`) over time, one line
 * per plotted variant x actor, drawn by plot_speed.c with the signal's
 * value in place of the speed. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/error.h"
#include "plot.h"

static int wanted(const int64_t *actors, int n_actors, int64_t id)
{
	for (int i = 0; i < n_actors; i++)
		if (actors[i] == id)
			return 1;
	return n_actors == 0;
}

/* The stored signal names, for the message when NAME is not one. */
static void list_names(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM actor_signal "
	                       "ORDER BY name LIMIT 50", -1, &st, NULL) ==
	    SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW)
			fprintf(stderr, "%s%s", n++ ? ", " : "; stored: ",
			        (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	fputs(n ? "\n" : "; the file stores no signals (run with --record "
	      "signals)\n", stderr);
}

/* The unit signal_name gives name, whole (owned), or NULL when the file
 * has no unit column (written before units were stored) or none is
 * known. */
static char *signal_unit(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	char *unit = NULL;
	if (sqlite3_prepare_v2(db, "SELECT unit FROM signal_name WHERE name "
	                       "= ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 0) == SQLITE_TEXT)
			unit = vs_strdup(
				(const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return unit;
}

int plot_load_signal(sqlite3 *db, const char *path, plot_data *d,
                     const char *name, const int64_t *actors, int n_actors)
{
	sqlite3_stmt *cnt = NULL, *rows = NULL;
	int status = EXIT_BAD_INPUT, cap = 16;
	if (sqlite3_prepare_v2(db, "SELECT actor_id, count(*) FROM "
	                       "actor_signal WHERE variant_id = ?1 AND name = "
	                       "?2 GROUP BY actor_id ORDER BY actor_id", -1,
	                       &cnt, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT actor_id, t, value FROM actor_signal"
	                       " WHERE variant_id = ?1 AND name = ?2 ORDER BY "
	                       "actor_id, step", -1, &rows, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: no signals in this results file "
		        "(%s)\n", path, sqlite3_errmsg(db));
		goto out;
	}
	d->series = vs_xcalloc((size_t)cap, sizeof *d->series);
	for (int v = 0; v < d->n_variants; v++) {
		int first = d->n_series;
		sqlite3_reset(cnt);
		sqlite3_bind_int64(cnt, 1, d->variants[v].id);
		sqlite3_bind_text(cnt, 2, name, -1, SQLITE_STATIC);
		while (sqlite3_step(cnt) == SQLITE_ROW) {
			if (!wanted(actors, n_actors,
			            sqlite3_column_int64(cnt, 0)))
				continue;
			if (d->n_series == cap) {
				cap *= 2;
				d->series = vs_xrealloc(d->series, (size_t)cap *
				                        sizeof *d->series);
			}
			plot_series *s = &d->series[d->n_series++];
			memset(s, 0, sizeof *s);
			s->variant = v;
			s->actor_id = sqlite3_column_int64(cnt, 0);
			plot_series_alloc(s, sqlite3_column_int64(cnt, 1));
		}
		sqlite3_reset(rows);
		sqlite3_bind_int64(rows, 1, d->variants[v].id);
		sqlite3_bind_text(rows, 2, name, -1, SQLITE_STATIC);
		plot_series *s = NULL;
		int64_t row = 0;
		double last[2] = {0, 0};
		while (sqlite3_step(rows) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(rows, 0);
			if (!wanted(actors, n_actors, id))
				continue;
			if (!s || s->actor_id != id) {
				if (s && (row - 1) % s->stride)
					plot_series_push(s, 0, last[0], NAN, NAN,
					                 last[1]);
				s = NULL;
				for (int k = first; k < d->n_series; k++)
					if (d->series[k].actor_id == id)
						s = &d->series[k];
				row = 0;
				if (!s)
					break;
			}
			last[0] = sqlite3_column_double(rows, 1);
			last[1] = sqlite3_column_type(rows, 2) == SQLITE_NULL
			                  ? NAN : sqlite3_column_double(rows, 2);
			plot_series_push(s, row++, last[0], NAN, NAN, last[1]);
		}
		if (s && (row - 1) % s->stride)
			plot_series_push(s, 0, last[0], NAN, NAN, last[1]);
	}
	if (d->n_series == 0) {
		fprintf(stderr, "vsweep: %s: no signal '%s' stored for the chosen "
		        "variants", path, name);
		list_names(db);
		goto out;
	}
	d->signal = name;
	d->signal_unit = signal_unit(db, name);
	status = 0;
out:
	sqlite3_finalize(cnt);
	sqlite3_finalize(rows);
	return status;
}
