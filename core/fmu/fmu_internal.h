/* What the FMU module's files share: the parsed model description and the
 * unpacked archive. Not for use outside core/fmu. */
#ifndef VS_FMU_INTERNAL_H
#define VS_FMU_INTERNAL_H

#include <stdint.h>

#include "common/error.h"

enum {
	FMU_CAUS_OTHER = 0,
	FMU_CAUS_PARAMETER, /* fixed or tunable: settable before init */
	FMU_CAUS_INPUT,
	FMU_CAUS_OUTPUT
};

/* The least magnitude of a double whose nearest float is infinite:
 * FLT_MAX and half its ulp, 2^128 - 2^103. A value handed to a Float32
 * must stay below it; a Float32's start must too (a min or max at or
 * beyond it is INF, bounding nothing). */
#define VS_F32_OVERFLOW 0x1.ffffffp+127

/* One variable of modelDescription.xml. */
typedef struct fmu_var {
	char *name;
	char *unit;        /* "" when none (its declaredType's if it has
	                      none of its own) */
	char *doc;         /* description, "" when none */
	char *declared;    /* declaredType, "" when none */
	uint32_t vr;       /* valueReference */
	int causality;     /* FMU_CAUS_* */
	int is_real;       /* a scalar Real (FMI 2), Float64 or Float32
	                      (FMI 3): what vsweep exchanges */
	int float32;       /* FMI 3: a scalar Float32 (is_real too), got
	                      and set as float */
	int array;         /* FMI 3: has <Dimension>s; vsweep uses none */
	int clocked;       /* FMI 3: has a clocks attribute */
	char type[16];     /* the element's name: "Real", "Float64", ... */
	int has_start;     /* a scalar's start (a Boolean's as 0 or 1) */
	double start;      /* FMI 3 allows INF and NaN; FMI 2 does not */
	double min, max;   /* -inf, +inf when not given (or not finite);
	                      a Float32's rounded to the nearest float,
	                      infinite ones not taken */
	int line;          /* of the variable's element */
} fmu_var;

/* One <Unit> of UnitDefinitions: SI value = factor * value + offset, in
 * the dimension kg^exp[0] m^exp[1] s^exp[2] A K mol cd rad^exp[7]. */
typedef struct fmu_unit {
	char *name;
	int has_base;      /* a <BaseUnit> was given */
	int exp[8];
	double factor, offset;
} fmu_unit;

typedef struct fmu_md {
	int fmi;           /* 2 or 3 */
	char *model_name;
	char *model_id;    /* CoSimulation modelIdentifier: the binary's name */
	char *token;       /* guid (2) or instantiationToken (3) */
	char *version;     /* the model's version attribute, "" when none */
	int once;          /* canBeInstantiatedOnlyOncePerProcess */
	int needs_tool;    /* needsExecutionTool */
	int variable_step; /* canHandleVariableCommunicationStepSize */
	int cs_line;       /* of the CoSimulation element */
	/* The FMU's own step, s: FMI 3's fixedInternalStepSize; 0 without
	 * one (a DefaultExperiment's stepSize only suggests a step). */
	double fixed_step;
	const char *fixed_step_from; /* which of the two, for messages */
	int fixed_step_line;
	int n_vars;
	fmu_var *vars;
	int n_units;
	fmu_unit *units;   /* UnitDefinitions */
} fmu_md;

/* Reads dir/modelDescription.xml; fmu names the archive in messages.
 * 0, or -1 with err set; md is to be freed with vs_fmu_md_free either
 * way. */
int vs_fmu_md_read(const char *fmu, const char *dir, fmu_md *md,
                   vs_error *err);
void vs_fmu_md_free(fmu_md *md);
/* The unit of that name in UnitDefinitions, or NULL. */
const fmu_unit *vs_fmu_md_unit(const fmu_md *md, const char *name);
/* The variable of that name, or NULL. */
const fmu_var *vs_fmu_md_find(const fmu_md *md, const char *name);

/* What vsweep does not drive (support.c): clocks, needsExecutionTool.
 * where is "FMU: modelDescription.xml". 0, or -1 with err set. */
int vs_fmu_md_supported(const char *where, const fmu_md *md, vs_error *err);
/* Whether the scenario's step (s) suits an FMU that cannot handle a
 * variable step: a whole multiple of its own step. 0, or -1 with err
 * set. */
int vs_fmu_md_step_ok(const char *where, const fmu_md *md, double step,
                      vs_error *err);

/* Unpacks the archive at path into a new private directory (mode 0700)
 * under $TMPDIR or /tmp, which is removed at exit if not before. Returns
 * the directory (owned by the caller, to free after vs_fmu_dir_remove),
 * or NULL with err set. */
char *vs_fmu_unpack(const char *path, vs_error *err);
/* Removes an unpacked directory and forgets it; in a fork of the process
 * that unpacked it (a contained child), does nothing. */
void vs_fmu_dir_remove(const char *dir);

#endif
