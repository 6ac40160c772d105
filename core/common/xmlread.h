/* Reading an untrusted XML file (an OpenDRIVE network, an FMU's
 * modelDescription.xml) with libxml2, within the limits every input
 * file has (xmlread.c). */
#ifndef VS_XMLREAD_H
#define VS_XMLREAD_H

#include <libxml/parser.h>

/* What libxml2 is asked for: no network, no messages of its own (the
 * reader words them), lines past 65535 on text nodes, and no limits of
 * its own on one text, comment or name (XML_PARSE_HUGE): libxml2's
 * default refuses a comment over 10 MB ("Comment too big found") in a
 * file well under the 64 MiB that input files may have. */
#define VS_XML_OPTIONS                                                   \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |         \
	 XML_PARSE_BIG_LINES | XML_PARSE_HUGE)

/* Where the document declared an entity, which stops the parse. */
typedef struct vs_xml_guard {
	int line, col; /* 0: no declaration */
	char name[64];
} vs_xml_guard;

/* Hooks ctx's SAX handler so that an <!ENTITY> declaration stops the
 * parse and is recorded in g (which must outlive the parse). With
 * XML_PARSE_HUGE libxml2 no longer bounds what entities expand to, and
 * nested entities (ten of ten of ... "xxxxxxxxxx") would expand to
 * gigabytes in one attribute; neither format uses entities. */
void vs_xml_guard_install(xmlParserCtxt *ctx, vs_xml_guard *g);

#endif
