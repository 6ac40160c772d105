/* Finding and loading plugins. */
#ifndef VS_REGISTRY_H
#define VS_REGISTRY_H

#include <vsweep/plugin.h>

#include "common/error.h"

typedef struct vs_loaded_plugin {
	char *path;            /* the file it came from */
	void *handle;          /* dlopen handle */
	const vs_plugin *desc; /* its descriptor, checked */
	char *dir;             /* an FMU's unpacked directory, its binary's
	                        * home (crash reports find its code there);
	                        * NULL for a plugin */
} vs_loaded_plugin;

/* A file that looked like a plugin but could not be used. */
typedef struct vs_broken_plugin {
	char *path;
	char *reason; /* the full message, naming the file */
} vs_broken_plugin;

/* FMUs opened as vehicle models (fmu_cache.c). */
typedef struct vs_fmu_cache vs_fmu_cache;

typedef struct vs_registry {
	int n;
	vs_loaded_plugin **plugins; /* first found wins for a name; each
	                             * stays where it is while more load */
	int n_broken;
	vs_broken_plugin *broken;
	int n_dirs;
	char **dirs;               /* searched, in order */
	vs_fmu_cache *fmus;        /* opened on use; mutable behind const */
	const vs_host *host;       /* given to plugins as they load */
	int n_tried;
	char **tried;              /* names looked up, found or not */
	int n_notes;
	char **notes;              /* shadowed files, refused folders */
} vs_registry;

/* Opens one plugin file: dlopen(RTLD_NOW|RTLD_LOCAL), finds
 * vsweep_plugin_entry, calls it with host, and checks the descriptor: ABI
 * major equal to the host's, minor not newer, struct_size large enough,
 * a known kind, a name, and the functions its kind needs. On error returns
 * -1 with err naming the file and what is wrong (both versions on an ABI
 * mismatch); out is untouched. */
int vs_plugin_open(const char *path, const vs_host *host,
                   vs_loaded_plugin *out, vs_error *err);
void vs_plugin_close(vs_loaded_plugin *p);

/* The descriptor's ABI 1.1 outputs and their count; NULL and 0 for a 1.0
 * plugin, whose smaller descriptor has no such fields to read. */
const vs_output *vs_plugin_outputs(const vs_plugin *d, size_t *n);

/* 1 when the behaviour d declares that it follows the actor's route
 * (ABI 1.1's follows_route, read only when struct_size covers it). */
int vs_plugin_follows_route(const vs_plugin *d);

/* The VS_DRIVES_* bits of a behaviour (ABI 1.1's drives, read only when
 * struct_size covers it): VS_DRIVES_VEHICLE when it says none. */
uint32_t vs_plugin_drives(const vs_plugin *d);

/* The VS_NEEDS_* bits of a plugin (ABI 1.1's needs, read only when
 * struct_size covers it): 0, nothing, when it says none. */
uint32_t vs_plugin_needs(const vs_plugin *d);

/* A registry searching dirs, in order. Loads nothing: a plugin is loaded
 * when it is named (vs_registry_find), so no other library's code runs.
 * World-writable directories are refused (a note says so). Never fails
 * except on out-of-memory. */
vs_registry *vs_registry_create(const char *const *dirs, int n_dirs,
                                const vs_host *host);

/* The plugin NAME: the first NAME.so in the directories, loaded on first
 * use; a later NAME.so it shadows is named in notes. When that first file
 * fails to load it is listed in broken and NULL returned: a later copy is
 * not used in its place (vs_registry_explain_missing names it). */
const vs_loaded_plugin *vs_registry_find(const vs_registry *reg,
                                         const char *name);

/* The plugin NAME if it is loaded already, or NULL. */
const vs_loaded_plugin *vs_registry_find_loaded(const vs_registry *reg,
                                                const char *name);

/* Loads every "*.so" in the directories, in order (`vsweep plugins`):
 * this runs every such library's code. As vs_registry_find, only the
 * first file of a name, loaded or broken; a later one is named in notes. */
void vs_registry_load_all(vs_registry *reg);

/* Why the name is not found: mentions the broken file of that name and
 * the later copies not used in its place, the directories searched, and
 * the names available (by file name, without loading them: those whose
 * first file failed or would be refused unopened are left out). Writes
 * into err. */
void vs_registry_explain_missing(const vs_registry *reg, const char *name,
                                 vs_error *err);

void vs_registry_destroy(vs_registry *reg);

/* The FMU at path, with `variables:` renamings from[i] -> to[i], as a
 * loaded vehicle model (path: the FMU file, so that its digest joins the
 * results file's record). Opened on first use, closed (its unpacked
 * directory removed) by vs_registry_destroy. NULL with err set. */
const vs_loaded_plugin *vs_registry_fmu(const vs_registry *reg,
                                        const char *path,
                                        const char *const *from,
                                        const char *const *to, int n,
                                        vs_error *err);

/* The path of an opened FMU that may be instantiated only once per
 * process (its variants must run one at a time), or NULL. */
const char *vs_registry_fmu_once(const vs_registry *reg);

/* Whether lp is an FMU of reg that may be instantiated only once per
 * process. */
int vs_registry_fmu_is_once(const vs_registry *reg,
                            const vs_loaded_plugin *lp);

/* Whether a scenario's step (s) suits lp, an FMU of reg
 * (vs_fmu_check_step); 0 for anything else, or -1 with err set. */
int vs_registry_fmu_check_step(const vs_registry *reg,
                               const vs_loaded_plugin *lp, double step,
                               vs_error *err);

vs_fmu_cache *vs_fmu_cache_create(void);
void vs_fmu_cache_destroy(vs_fmu_cache *c);

#endif
