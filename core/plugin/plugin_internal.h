/* The plugin folder's insides, shared by its source files (not a public
 * interface): descriptor.c checks descriptors, plugin_open.c opens one
 * file, registry.c searches the folders, missing.c explains a name not
 * found. */
#ifndef VS_PLUGIN_INTERNAL_H
#define VS_PLUGIN_INTERNAL_H

#include "plugin/registry.h"

/* [a-z0-9_]+: what a scenario file names the plugin by (descriptor.c). */
int vs_plugin_name_ok(const char *s);

/* Checks a descriptor the plugin at path returned: ABI version first,
 * then size, kind, name, strings, functions, params and outputs; 0 or -1
 * with err naming the file (descriptor.c). */
int vs_plugin_check_descriptor(const char *path, const vs_plugin *d,
                               vs_error *err);

/* dir/name, one '/' between; the caller frees it (registry.c). */
char *vs_plugin_join_path(const char *dir, const char *name);

/* The "*.so" names in dir, sorted by strcmp so that which plugin wins a
 * name never depends on the file system's order; NULL if the directory
 * cannot be read. The caller frees each and the array (registry.c). */
char **vs_plugin_list_so(const char *dir, int *count);

/* Whether path's file name, without directory, is NAME.so (registry.c). */
int vs_plugin_stem_equals(const char *path, const char *name);

/* Whether path names something: a file, a link, a directory (registry.c). */
int vs_plugin_path_exists(const char *path);

/* The broken file that took the name NAME (the first NAME.so on the path
 * that was tried and did not load), or NULL (registry.c). */
const char *vs_registry_broken_named(const vs_registry *reg,
                                     const char *name);

/* Whether the file at path is listed in reg's broken (registry.c). */
int vs_registry_is_broken(const vs_registry *reg, const char *path);

#endif
