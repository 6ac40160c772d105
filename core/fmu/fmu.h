/* FMUs as vehicle models (docs/plugins.md, "FMUs at run time"): an FMI 2.0
 * or 3.0 co-simulation FMU opened, checked and presented as a vs_plugin
 * descriptor, so that the simulation steps it like any native model. */
#ifndef VS_FMU_H
#define VS_FMU_H

#include <stdio.h>

#include <vsweep/plugin.h>

#include "common/error.h"

typedef struct vs_fmu vs_fmu;

/* Unpacks the FMU at path into a private directory, reads its model
 * description, loads its binary for this platform and checks that it is a
 * vehicle model: inputs speed and steering_wheel, outputs x, y, yaw (Real,
 * Float64 or Float32). map_from[i] -> map_to[i] (n_map pairs) renames
 * vsweep's names to the FMU's (`variables:`). NULL with err set ("PATH: what is
 * wrong") on any failure, the directory removed. */
vs_fmu *vs_fmu_open(const char *path, const char *const *map_from,
                    const char *const *map_to, int n_map, vs_error *err);

/* The descriptor: name "fmu", one param per Real (Float64, Float32)
 * parameter with a finite start value (those the start pose sets
 * excepted), one output per other Real output. Valid until vs_fmu_close. */
const vs_plugin *vs_fmu_plugin(const vs_fmu *f);

/* The directory the FMU is unpacked in (its binary and resources).
 * Valid until vs_fmu_close. */
const char *vs_fmu_dir(const vs_fmu *f);

/* Whether the scenario's step (s) suits the FMU: one that cannot handle
 * a variable communication step size and has a step of its own (FMI 3's
 * fixedInternalStepSize) needs a whole multiple of it. 0, or -1 with err set ("PATH:
 * modelDescription.xml:LINE: what is wrong"). */
int vs_fmu_check_step(const vs_fmu *f, double step, vs_error *err);

/* canBeInstantiatedOnlyOncePerProcess: variants must run one at a time. */
int vs_fmu_once(const vs_fmu *f);

/* True once any FMU returned Fatal in this process: FMI then allows no
 * further call to any instance of that FMU, so a process that is to run
 * more variants with it must be replaced (run/contain.c does). */
int vs_fmu_process_spoiled(void);

/* `vsweep plugins --fmu`: parameters (name, start, unit, description),
 * inputs and outputs. */
void vs_fmu_print(const vs_fmu *f, FILE *out);

/* Unloads the binary and removes the unpacked directory; accepts NULL. */
void vs_fmu_close(vs_fmu *f);

#endif
