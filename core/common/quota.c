/* Run-wide caps on repeated stderr lines (quota.h). */
#include "common/quota.h"

#include <stdatomic.h>

static atomic_long taken[VS_QUOTA_KINDS];

/* What stderr says once, when a kind's cap is reached. */
static const char *const notice[VS_QUOTA_KINDS] = {
    "vsweep: further plugin messages are not printed (the results "
    "file's log view has them all)",
    "vsweep: further failed variants are not printed (SELECT "
    "variant_id, error FROM variant_info WHERE status = 'failed' lists "
    "them all)"};

int vs_quota_take(vs_quota q)
{
	long n = atomic_fetch_add(&taken[q], 1);
	return n < VS_QUOTA_LINES ? 1 : n == VS_QUOTA_LINES ? -1 : 0;
}

const char *vs_quota_notice(vs_quota q)
{
	return notice[q];
}

void vs_quota_reset(void)
{
	for (int q = 0; q < VS_QUOTA_KINDS; q++)
		atomic_store(&taken[q], 0);
}
