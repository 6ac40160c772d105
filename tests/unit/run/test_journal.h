/* The crash journal's cases, part of the run suite (test_run.c). */
#ifndef VS_TEST_JOURNAL_H
#define VS_TEST_JOURNAL_H

#include <check.h>

TCase *journal_tcase(void);

#endif
