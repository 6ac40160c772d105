/* The seed scenario of a sweep test, parsed from the including file's
 * seed_text (defined before this header) and bound to the fake plugins
 * around each test: setup and teardown for Check's checked fixture. Also
 * the openings of a sweep file's three block forms, for refusals whose
 * FILE:LINE:COL the tests spell out: a list variant's first change
 * starts at line 4, column 10; a grid's first axis at line 4, column 9;
 * a random block's at line 6, column 11. */
#ifndef VS_TEST_SEED_FIXTURE_H
#define VS_TEST_SEED_FIXTURE_H

#include <check.h>
#include <string.h>

#include "fake_registry.h"
#include "input/scenario.h"

static vs_scenario *seed;

/* A sweep refused, and its whole message (sweep_cases.h). */
typedef struct refusal {
	const char *yaml;
	const char *msg;
} refusal;

static void setup(void)
{
	vs_error err = {{0}};
	seed = vs_scenario_parse("s.yaml", seed_text, strlen(seed_text), &err);
	ck_assert_msg(seed, "%s", err.msg);
	ck_assert_msg(vs_scenario_bind(seed, fake_registry(FAKE_N_PLUGINS),
	                               &err) == 0, "%s", err.msg);
}

static void teardown(void)
{
	vs_scenario_destroy(seed);
	seed = NULL;
}

#define L "vsweep: 1\nblocks:\n  - list:\n      - "
#define G "vsweep: 1\nblocks:\n  - grid:\n      - "
#define R "vsweep: 1\nblocks:\n  - random:\n      count: 10\n      axes:\n" \
	"        - "

#endif
