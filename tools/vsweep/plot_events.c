/* Event markers for `vsweep plot`: the collisions and lane changes of the
 * plotted variants, each at its actor's stored position at the event's
 * step (the last stored step at or before it, under --record-every).
 * The event view gives t = step * the scenario's step and actor_state the
 * same product, so the comparison below finds the very step. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/error.h"
#include "input/scenario.h"
#include "plot.h"

static int series_has(const plot_data *d, int variant, int64_t actor)
{
	for (int i = 0; i < d->n_series; i++)
		if (d->series[i].variant == variant &&
		    d->series[i].actor_id == actor)
			return 1;
	return 0;
}

static double real_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL
	               ? NAN : sqlite3_column_double(st, col);
}

int plot_load_events(sqlite3 *db, const char *path, plot_data *d,
                     const vs_scenario *scn)
{
	sqlite3_stmt *ev = NULL, *pos = NULL;
	int cap = 0, status = EXIT_OK;
	if (sqlite3_prepare_v2(db, "SELECT t, actor_id, kind FROM event WHERE "
	                       "variant_id = ? AND kind IN ('collision', "
	                       "'lane_change') ORDER BY t, actor_id", -1, &ev,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT x, y, z, vx, vy, yaw FROM "
	                       "actor_state WHERE variant_id = ?1 AND actor_id "
	                       "= ?2 AND t <= ?3 ORDER BY step DESC LIMIT 1",
	                       -1, &pos, NULL) != SQLITE_OK) {
		fprintf(stderr, "vsweep: %s: not a readable vsweep results file: "
		        "%s\n", path, sqlite3_errmsg(db));
		status = EXIT_BAD_INPUT;
		goto out;
	}
	for (int v = 0; v < d->n_variants; v++) {
		sqlite3_reset(ev);
		sqlite3_bind_int64(ev, 1, d->variants[v].id);
		while (sqlite3_step(ev) == SQLITE_ROW &&
		       d->n_events < PLOT_MAX_EVENTS) {
			int64_t actor = sqlite3_column_int64(ev, 1);
			if (!series_has(d, v, actor))
				continue;  /* --actor left it out */
			double t = sqlite3_column_double(ev, 0);
			sqlite3_reset(pos);
			sqlite3_bind_int64(pos, 1, d->variants[v].id);
			sqlite3_bind_int64(pos, 2, actor);
			sqlite3_bind_double(pos, 3, t);
			if (sqlite3_step(pos) != SQLITE_ROW)
				continue;
			if (d->n_events == cap) {
				cap = cap ? 2 * cap : 16;
				d->events = vs_xrealloc(d->events, (size_t)cap *
				                        sizeof *d->events);
			}
			plot_event *e = &d->events[d->n_events++];
			e->variant = v;
			e->actor_id = actor;
			e->t = t;
			snprintf(e->kind, sizeof e->kind, "%s",
			         (const char *)sqlite3_column_text(ev, 2));
			double xy[2] = {real_or_nan(pos, 0), real_or_nan(pos, 1)};
			if (scn)
				plot_lateral(scn, xy[0], xy[1],
				             real_or_nan(pos, 2), real_or_nan(pos, 3),
				             real_or_nan(pos, 4), real_or_nan(pos, 5),
				             xy);
			e->x = xy[0];
			e->y = xy[1];
		}
	}
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(pos);
	return status;
}
