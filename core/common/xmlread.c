/* The entity guard for untrusted XML files (xmlread.h). */
#include "common/xmlread.h"

#include <stdio.h>
#include <string.h>

/* The line and column (in bytes) of the "<!ENTITY" that libxml2 has
 * just read to its end, where the input's buffer still holds it; else
 * where libxml2 is. */
static void where(const xmlParserInput *in, int *line, int *col)
{
	*line = in->line > 0 ? in->line : 1;
	*col = in->col > 0 ? in->col : 1;
	if (!in->base || !in->cur)
		return;
	const xmlChar *p = in->cur;
	int lines = 0, found = 0;
	while (!found && p > in->base) {
		p--;
		lines += *p == '\n';
		found = (!in->end || in->end - p >= 8) &&
		        !memcmp(p, "<!ENTITY", 8);
	}
	if (!found || *line - lines < 1)
		return;
	const xmlChar *bol = p;
	while (bol > in->base && bol[-1] != '\n')
		bol--;
	if (bol == in->base && *line - lines > 1)
		return; /* the line's start is no longer in the buffer */
	*line -= lines;
	*col = (int)(p - bol) + 1;
}

static void refuse_entity(void *user, const xmlChar *name, int type,
                          const xmlChar *public_id, const xmlChar *system_id,
                          xmlChar *content)
{
	(void)type;
	(void)public_id;
	(void)system_id;
	(void)content;
	xmlParserCtxt *ctx = user;
	vs_xml_guard *g = ctx->_private;
	if (!g->line && ctx->input) {
		where(ctx->input, &g->line, &g->col);
		snprintf(g->name, sizeof g->name, "%s",
		         name ? (const char *)name : "?");
	}
	/* not declared: nothing can refer to it, and nothing is read on */
	xmlStopParser(ctx);
}

void vs_xml_guard_install(xmlParserCtxt *ctx, vs_xml_guard *g)
{
	g->line = g->col = 0;
	g->name[0] = 0;
	ctx->_private = g;
	ctx->sax->entityDecl = refuse_entity;
}
