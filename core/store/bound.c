/* What a prepared statement holds bound (bound.h). */
#include "store/bound.h"

#include <stdlib.h>

#include "common/error.h"

void vs_bound_init(vs_bound *b, sqlite3_stmt *s)
{
	b->s = s;
	b->n = s ? sqlite3_bind_parameter_count(s) : 0;
	/* calloc: every tag VS_BOUND_UNKNOWN */
	b->tag = vs_xcalloc((size_t)b->n + 1, sizeof *b->tag);
	b->bits = vs_xcalloc((size_t)b->n + 1, sizeof *b->bits);
}

void vs_bound_free(vs_bound *b)
{
	free(b->tag);
	free(b->bits);
	memset(b, 0, sizeof *b);
}
