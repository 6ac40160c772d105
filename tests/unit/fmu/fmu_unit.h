/* What the fmu unit test's files share (test_fmu.c, test_fmu_float32.c):
 * each test runs in a directory of its own, $TMPDIR too, which the FMUs
 * unpacked there must have left again at teardown. */
#ifndef VS_TEST_FMU_UNIT_H
#define VS_TEST_FMU_UNIT_H

#include <check.h>
#include <string.h>

#define ck_assert_contains(s, sub)                                         \
	ck_assert_msg(strstr((s), (sub)) != NULL, "expected \"%s\" in: %s",  \
	              (sub), (s))

extern char tmp[256];
void setup(void);
void teardown(void);
/* tmp/modelDescription.xml, holding text. */
void write_md(const char *text);

/* The Float32 cases (test_fmu_float32.c). */
TCase *float32_tcase(void);

#endif
