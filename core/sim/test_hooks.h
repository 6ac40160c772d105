/* Fault injection for the end-to-end tests, compiled in only in a test
 * build (meson -Dtests=true sets VS_TEST_HOOKS to 1 for the host
 * library). A build with -Dtests=false (tools/seed-sweep.sh, the
 * README's build, tools/bench) gets the empty inline versions below: no
 * hook code, and no variable of the environment can switch one on.
 *
 * The hooks, each read from the environment:
 * - VSWEEP_TEST_CORRUPT_RESULT=VARIANT:WHAT: a contained child damages
 *   that variant's result just before sending it (run/contain_child.c;
 *   tests/e2e/test_crash.py).
 * - VSWEEP_TEST_MERGE_GATE=PATH: a merge holds after its first variant
 *   (store/merge.c; tests/e2e/test_merge_live.py, test_mpi.py).
 * - VSWEEP_TEST_CALIBRATE_LIMIT=S: `vsweep check`'s calibration bounds
 *   a variant by S s instead of VS_RUN_CALIBRATE_LIMIT when the run sets
 *   no --variant-timeout (run/runner.c; tests/e2e/test_estimate.py: a
 *   hang is found in seconds, not minutes).
 * - VSWEEP_TEST_WINDOW_BYTES=N: a contained child sends state rows
 *   through the shared window only when they take at most N bytes, the
 *   rest down the socket (run/contain_child.c;
 *   tests/e2e/test_determinism.py runs every way). */
#ifndef VS_TEST_HOOKS_H
#define VS_TEST_HOOKS_H

#include <signal.h>
#include <stddef.h>

#include "sim/result.h"

#if VS_TEST_HOOKS

/* VSWEEP_TEST_CORRUPT_RESULT, or NULL: read once per child, not per
 * variant. */
const char *vs_test_corrupt_spec(void);

/* With spec "VARIANT:WHAT" and r that variant's result, damages r as
 * corrupted memory would (test_hooks.c lists the WHATs), so that the
 * parent's checks on a received result can be seen to hold. */
void vs_test_corrupt_result(const char *spec, vs_result *r);

/* With VSWEEP_TEST_MERGE_GATE=PATH and PATH existing: writes this
 * process's pid and a newline into PATH.held, then waits while PATH
 * exists, 120 s at most or until *stop is set, so that a test acts on
 * a merge surely under way, however slow the machine. */
void vs_test_merge_gate(volatile sig_atomic_t *stop);

/* VSWEEP_TEST_WINDOW_BYTES if set (a number, at most dflt), else
 * dflt. */
size_t vs_test_window_bytes(size_t dflt);

/* VSWEEP_TEST_CALIBRATE_LIMIT if set (seconds, > 0, at most dflt), else
 * dflt. */
double vs_test_calibrate_limit(double dflt);

#else

static inline const char *vs_test_corrupt_spec(void)
{
	return NULL;
}

static inline void vs_test_corrupt_result(const char *spec, vs_result *r)
{
	(void)spec;
	(void)r;
}

static inline void vs_test_merge_gate(volatile sig_atomic_t *stop)
{
	(void)stop;
}

static inline size_t vs_test_window_bytes(size_t dflt)
{
	return dflt;
}

static inline double vs_test_calibrate_limit(double dflt)
{
	return dflt;
}

#endif
#endif
