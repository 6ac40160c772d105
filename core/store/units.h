/* Signal units: the unit column of signal_name and the actor_signal view
 * that shows it. Files written before them hold neither; a resume adds
 * both (store.c), a merge reads either layout (merge_record.c). */
#ifndef VS_STORE_UNITS_H
#define VS_STORE_UNITS_H

#include <sqlite3.h>
#include <stdint.h>

/* One file's signal names with their ids and units, in id order;
 * unit[i] NULL when the file does not know it (written before units were
 * stored). */
typedef struct vs_unit_list {
	int n;
	int64_t *id;
	char **name, **unit;
} vs_unit_list;

/* Whether db's signal_name has its unit column: 1, 0, or -1 when the
 * schema cannot be read. */
int vs_store_has_units(sqlite3 *db);

/* Adds the unit column (NULL for the names already stored) and makes
 * actor_signal show it, inside the caller's transaction. SQLITE_OK or
 * SQLite's code. */
int vs_store_add_units(sqlite3 *db);

/* Reads db's names and units into l (owned: vs_unit_list_free). SQLITE_OK
 * or SQLite's code. */
int vs_unit_list_read(sqlite3 *db, vs_unit_list *l);

void vs_unit_list_free(vs_unit_list *l);

/* The unit l gives name, NULL when l lacks the name or does not know it. */
const char *vs_unit_list_find(const vs_unit_list *l, const char *name);

#endif
