/* Signal units (units.h): a plugin declares one per output, stored once
 * per signal name in signal_name.unit and shown in actor_signal. */
#include "store/units.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "store/store.h"

int vs_store_has_units(sqlite3 *db)
{
	sqlite3_stmt *q = NULL;
	int has = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info("
	                       "'signal_name') WHERE name = 'unit'", -1, &q,
	                       NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		has = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	return has;
}

int vs_store_add_units(sqlite3 *db)
{
	/* The view's text is the schema's own, so that an upgraded file's
	 * view is a new file's. */
	char *view = vs_schema_statement("CREATE VIEW actor_signal AS");
	if (!view)
		return SQLITE_INTERNAL;
	/* Nullable here: NULL says "not known" for the names stored before
	 * (SQLite adds a NOT NULL column only with a default, and '' would
	 * say the plugin declares none). */
	int rc = sqlite3_exec(db, "ALTER TABLE signal_name ADD COLUMN unit TEXT;"
	                      "DROP VIEW IF EXISTS actor_signal", NULL, NULL,
	                      NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, view, NULL, NULL, NULL);
	free(view);
	return rc;
}

int vs_unit_list_read(sqlite3 *db, vs_unit_list *l)
{
	memset(l, 0, sizeof *l);
	int has = vs_store_has_units(db);
	if (has < 0)
		return SQLITE_ERROR;
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_prepare_v2(db, has ? "SELECT name, unit, id FROM "
	                            "signal_name ORDER BY id" : "SELECT name, "
	                            "NULL, id FROM signal_name ORDER BY id", -1,
	                            &q, NULL);
	if (rc != SQLITE_OK)
		return rc;
	int cap = 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (l->n == cap) {
			cap = cap ? 2 * cap : 16;
			l->name = vs_xrealloc(l->name, (size_t)cap * sizeof *l->name);
			l->unit = vs_xrealloc(l->unit, (size_t)cap * sizeof *l->unit);
			l->id = vs_xrealloc(l->id, (size_t)cap * sizeof *l->id);
		}
		l->id[l->n] = sqlite3_column_int64(q, 2);
		const char *n = (const char *)sqlite3_column_text(q, 0);
		const char *u = (const char *)sqlite3_column_text(q, 1);
		l->name[l->n] = vs_strdup(n ? n : "");
		l->unit[l->n] = u ? vs_strdup(u) : NULL;
		l->n++;
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void vs_unit_list_free(vs_unit_list *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->name[i]);
		free(l->unit[i]);
	}
	free(l->name);
	free(l->unit);
	free(l->id);
	memset(l, 0, sizeof *l);
}

const char *vs_unit_list_find(const vs_unit_list *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return l->unit[i];
	return NULL;
}
