/* The fork server's cases, part of the run suite (test_run.c). */
#ifndef VS_TEST_FORKSERVER_H
#define VS_TEST_FORKSERVER_H

#include <check.h>

TCase *forkserver_tcase(void);

#endif
