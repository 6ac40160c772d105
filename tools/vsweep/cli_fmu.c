/* FMUs on the command line: `vsweep plugins --fmu FILE` and the one-at-a-
 * time rule for FMUs that may be instantiated only once per process,
 * when variants run in this process (VSWEEP_NO_CONTAINMENT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmu/fmu.h"

int cli_plugins_fmu(const char *path)
{
	vs_error err = {{0}};
	vs_fmu *f = vs_fmu_open(path, NULL, NULL, 0, &err);
	if (!f) {
		fprintf(stderr, "vsweep: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	vs_fmu_print(f, stdout);
	vs_fmu_close(f);
	return EXIT_OK;
}

char cli_progress_note[320];

long cli_fmu_jobs(const vs_registry *reg, long jobs)
{
	/* Contained, each worker's variants run in a child process of its
	 * own, one at a time, and a scenario never has two actors on such
	 * an FMU (scenario.c): one instance per process holds at any -j.
	 * Without containment every worker shares this process. */
	const char *once = vs_registry_fmu_once(reg);
	if (!once || jobs <= 1 || !getenv("VSWEEP_NO_CONTAINMENT"))
		return jobs;
	fprintf(stderr, "vsweep: %s may be instantiated only once per "
	        "process: variants run one at a time (-j 1)\n", once);
	const char *base = strrchr(once, '/');
	snprintf(cli_progress_note, sizeof cli_progress_note,
	         "one at a time: %s runs once per process", base ? base + 1
	                                                          : once);
	return 1;
}
