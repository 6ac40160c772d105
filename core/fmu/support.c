/* What of FMI 2.0 and 3.0 co-simulation vsweep drives, and the refusal,
 * when an FMU is loaded, of what it does not (docs/plugins.md, "FMUs at
 * run time"): each message names the .fmu, the line of
 * modelDescription.xml and what is not supported.
 *
 * vsweep steps an FMU by doStep alone, at the scenario's constant step,
 * with eventModeUsed = false and earlyReturnAllowed = false, one instance
 * per actor, many variants in parallel processes. So:
 * - clocks (FMI 3 <Clock> variables, variables with clocks="..."): the
 *   standard drives an FMU with clocks in event mode only, which vsweep
 *   never enters; refused.
 * - needsExecutionTool: the FMU is a front to another program, whose
 *   sessions vsweep can neither contain, stop nor make reproducible;
 *   refused.
 * - canHandleVariableCommunicationStepSize false (the default) with a
 *   step of the FMU's own (FMI 3's fixedInternalStepSize): vsweep's step
 *   is constant, as asked, and must be a whole number of the FMU's
 *   steps. A DefaultExperiment's stepSize is a suggestion to the
 *   importer, not a step the FMU is bound to: not judged. */
#include "fmu/fmu_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int vs_fmu_md_supported(const char *where, const fmu_md *md, vs_error *err)
{
	if (md->needs_tool) {
		vs_error_set(err, "%s:%d: CoSimulation has needsExecutionTool="
		             "\"true\": the FMU runs only with an external tool, "
		             "which vsweep cannot contain, stop or make "
		             "reproducible across many instances in parallel "
		             "processes; not supported", where, md->cs_line);
		return -1;
	}
	for (int i = 0; i < md->n_vars; i++) {
		const fmu_var *v = &md->vars[i];
		int clock = md->fmi == 3 && !strcmp(v->type, "Clock");
		if (!clock && !v->clocked)
			continue;
		vs_error_set(err, "%s:%d: variable '%s' %s: FMI 3.0 drives an "
		             "FMU with clocks in event mode only, and vsweep "
		             "steps FMUs without it (eventModeUsed = false); "
		             "clocks are not supported", where, v->line,
		             v->name, clock ? "is a Clock"
		                            : "is clocked (it has clocks)");
		return -1;
	}
	return 0;
}

int vs_fmu_md_step_ok(const char *where, const fmu_md *md, double step,
                      vs_error *err)
{
	if (md->variable_step || !(md->fixed_step > 0))
		return 0;
	/* A whole number of the FMU's steps, to 1e-9 of one: 0.01 / 0.001
	 * is 10.000000000000002 in doubles. */
	double n = step / md->fixed_step;
	double k = nearbyint(n);
	if (k >= 1 && fabs(n - k) <= 1e-9 * n)
		return 0;
	vs_error_set(err, "%s:%d: the FMU cannot handle a variable "
	             "communication step size (canHandleVariableCommunication"
	             "StepSize is false) and steps by %s = %.15g s, but the "
	             "scenario's step, %.15g s, is not a whole multiple of it; "
	             "not supported (give the scenario a step of %.15g s or a "
	             "multiple of it)", where, md->fixed_step_line,
	             md->fixed_step_from, md->fixed_step, step,
	             md->fixed_step);
	return -1;
}
