/* The `fmu:` form of a vehicle_model (docs/plugins.md, "FMUs at run
 * models"): {fmu: PATH, params: {...}, variables: {vsweep: FMU, ...}}. */
#ifndef VS_USE_FMU_H
#define VS_USE_FMU_H

#include "input/scenario.h"
#include "yaml/yamltree.h"
#include "plugin/registry.h"

/* Reads m's fmu: (a path, relative to the scenario file) and variables:
 * into use; 0 when m has no fmu: key, 1 when it has one, -1 on error. */
int vs_use_parse_fmu(const vs_ydoc *doc, const vs_ynode *m,
                     vs_plugin_use *use, vs_error *err);

/* Opens use's FMU through the registry; NULL with err set at the fmu:
 * key's position. */
const vs_loaded_plugin *vs_use_bind_fmu(const vs_scenario *scn,
                                        const vs_registry *reg,
                                        const vs_plugin_use *use,
                                        const char *what, vs_error *err);

void vs_use_copy_fmu(vs_plugin_use *d, const vs_plugin_use *s);
void vs_use_free_fmu(vs_plugin_use *u);

#endif
