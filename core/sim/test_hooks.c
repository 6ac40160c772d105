/* The end-to-end tests' fault injection (test_hooks.h); built only with
 * -Dtests=true (sim/meson.build). */
#include "sim/test_hooks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *vs_test_corrupt_spec(void)
{
	return getenv("VSWEEP_TEST_CORRUPT_RESULT");
}

/* The WHATs: log_plugin (a wild plugin-name pointer in the first log
 * row), log_level, row_actor (the first row's actor ID), row_count (one
 * row too few), signal_name (an index past the names), event_kind (a
 * kind no event has), pair_twice, signal_twice and wheel_twice (the
 * second row a copy of the first: a key stored twice), pair_back (the
 * first two pair rows swapped: steps out of order). */
void vs_test_corrupt_result(const char *spec, vs_result *r)
{
	char *what = NULL;
	if (!spec || strtoull(spec, &what, 10) != r->variant || *what != ':')
		return;
	what++;
	if (!strcmp(what, "log_plugin") && r->n_logs > 0)
		r->logs[0].plugin = (const char *)(uintptr_t)0x10;
	else if (!strcmp(what, "log_level") && r->n_logs > 0)
		r->logs[0].level = 1 << 20;
	else if (!strcmp(what, "row_actor") && r->n_rows > 0)
		r->rows[0].actor_id = -7;
	else if (!strcmp(what, "row_count") && r->n_rows > 0)
		r->n_rows--;
	else if (!strcmp(what, "signal_name") && r->n_signals > 0)
		r->signals[0].name = r->n_signal_names;
	else if (!strcmp(what, "event_kind") && r->n_events > 0)
		r->events[0].kind = "no such kind";
	else if (!strcmp(what, "pair_twice") && r->n_pairs > 1)
		r->pairs[1] = r->pairs[0];
	else if (!strcmp(what, "signal_twice") && r->n_signals > 1)
		r->signals[1] = r->signals[0];
	else if (!strcmp(what, "pair_back") && r->n_pairs > 1) {
		vs_pair_row p = r->pairs[0];
		r->pairs[0] = r->pairs[1];
		r->pairs[1] = p;
	}
	else if (!strcmp(what, "wheel_twice") && r->n_wheels > 1)
		r->wheels[1] = r->wheels[0];
}

void vs_test_merge_gate(volatile sig_atomic_t *stop)
{
	const char *gate = getenv("VSWEEP_TEST_MERGE_GATE");
	if (!gate || access(gate, F_OK) != 0)
		return;
	char held[4200];
	snprintf(held, sizeof held, "%s.held", gate);
	FILE *f = fopen(held, "w");
	if (f) {
		fprintf(f, "%ld\n", (long)getpid()); /* who to signal */
		fclose(f);
	}
	struct timespec nap = {0, 10 * 1000 * 1000}; /* 10 ms */
	for (int i = 0; i < 12000 && !*stop && access(gate, F_OK) == 0; i++)
		nanosleep(&nap, NULL);
}

size_t vs_test_window_bytes(size_t dflt)
{
	const char *v = getenv("VSWEEP_TEST_WINDOW_BYTES");
	char *end = NULL;
	unsigned long long n = v ? strtoull(v, &end, 10) : 0;
	if (!v || end == v || *end || n > dflt)
		return dflt;
	return (size_t)n;
}

double vs_test_calibrate_limit(double dflt)
{
	const char *v = getenv("VSWEEP_TEST_CALIBRATE_LIMIT");
	char *end = NULL;
	double s = v ? strtod(v, &end) : 0; /* s */
	if (!v || end == v || *end || !(s > 0) || s > dflt)
		return dflt;
	return s;
}
