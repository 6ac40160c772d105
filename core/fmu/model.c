/* Reading an FMU's modelDescription.xml (FMI 2.0 or 3.0) with libxml2:
 * the FMI version, the co-simulation model identifier, the instantiation
 * token, and every variable with its value reference, causality, type,
 * start value, unit and description.
 *
 * Entities are not substituted and no network is used (XML_PARSE_NONET):
 * the file comes from an archive a user was given. */
#include "fmu/fmu_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       !strcmp((const char *)n->name, name);
}

/* The attribute as a malloc'd string ("" when absent: dflt NULL). */
static char *attr(const xmlNode *n, const char *name, const char *dflt)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return dflt ? vs_strdup(dflt) : NULL;
	char *s = vs_strdup((const char *)v);
	xmlFree(v);
	return s;
}

static int attr_double(const xmlNode *n, const char *name, double *out)
{
	char *s = attr(n, name, NULL);
	if (!s)
		return 0;
	char *end;
	double v = strtod(s, &end);
	int ok = end != s && *end == 0;
	free(s);
	if (ok)
		*out = v;
	return ok;
}

static int causality(const char *c)
{
	if (!strcmp(c, "parameter"))
		return FMU_CAUS_PARAMETER;
	if (!strcmp(c, "input"))
		return FMU_CAUS_INPUT;
	if (!strcmp(c, "output"))
		return FMU_CAUS_OUTPUT;
	return FMU_CAUS_OTHER;
}

/* Fills v from the variable element e; the type element is t (FMI 2's
 * <Real> child, or e itself in FMI 3). */
static int read_var(const char *where, const xmlNode *e, const xmlNode *t,
                    fmu_var *v, vs_error *err)
{
	v->name = attr(e, "name", NULL);
	char *vr = attr(e, "valueReference", NULL);
	if (!v->name || !vr) {
		vs_error_set(err, "%s:%d: a variable without name or "
		             "valueReference", where, (int)xmlGetLineNo(e));
		free(vr);
		return -1;
	}
	char *end;
	unsigned long r = strtoul(vr, &end, 10);
	int bad = end == vr || *end || r > 0xffffffffUL;
	free(vr);
	if (bad) {
		vs_error_set(err, "%s:%d: variable '%s' has no valid "
		             "valueReference", where, (int)xmlGetLineNo(e),
		             v->name);
		return -1;
	}
	v->vr = (uint32_t)r;
	char *c = attr(e, "causality", "local");
	v->causality = causality(c);
	free(c);
	char *var = attr(e, "variability", "");
	/* A parameter the host may set: fixed or tunable (both are the
	 * default variability of a parameter). */
	if (v->causality == FMU_CAUS_PARAMETER && *var &&
	    strcmp(var, "fixed") && strcmp(var, "tunable"))
		v->causality = FMU_CAUS_OTHER;
	free(var);
	v->doc = attr(e, "description", "");
	snprintf(v->type, sizeof v->type, "%s", t ? (const char *)t->name : "");
	v->is_real = t && (is(t, "Real") || is(t, "Float64"));
	v->unit = t ? attr(t, "unit", "") : vs_strdup("");
	v->min = -HUGE_VAL;
	v->max = HUGE_VAL;
	if (t) {
		v->has_start = attr_double(t, "start", &v->start);
		attr_double(t, "min", &v->min);
		attr_double(t, "max", &v->max);
	}
	return 0;
}

static int read_vars(const char *where, const xmlNode *mv, int fmi,
                     fmu_md *md, vs_error *err)
{
	int cap = 0;
	for (const xmlNode *e = mv->children; e; e = e->next) {
		const xmlNode *t = NULL;
		if (fmi == 2) {
			if (!is(e, "ScalarVariable"))
				continue;
			for (t = e->children; t && t->type != XML_ELEMENT_NODE;)
				t = t->next;
		} else if (e->type == XML_ELEMENT_NODE) {
			t = e; /* <Float64 name=... start=...> */
		} else {
			continue;
		}
		if (md->n_vars == cap) {
			cap = cap ? 2 * cap : 32;
			md->vars = vs_xrealloc(md->vars,
			                       (size_t)cap * sizeof *md->vars);
		}
		fmu_var *v = &md->vars[md->n_vars++];
		memset(v, 0, sizeof *v);
		if (read_var(where, e, t, v, err))
			return -1;
	}
	return 0;
}

typedef struct first_error {
	int line;
	char msg[200];
} first_error;

static void keep_first(void *ctx, xmlErrorPtr e)
{
	first_error *fe = ctx;
	if (fe->line || !e || e->level < XML_ERR_ERROR)
		return;
	fe->line = e->line > 0 ? e->line : 1;
	snprintf(fe->msg, sizeof fe->msg, "%s", e->message ? e->message : "?");
	/* libxml2 ends its messages with a newline. */
	size_t n = strlen(fe->msg);
	if (n && fe->msg[n - 1] == '\n')
		fe->msg[n - 1] = 0;
}

int vs_fmu_md_read(const char *fmu, const char *dir, fmu_md *md,
                   vs_error *err)
{
	memset(md, 0, sizeof *md);
	char path[4096], where[4200];
	snprintf(path, sizeof path, "%s/modelDescription.xml", dir);
	snprintf(where, sizeof where, "%s: modelDescription.xml", fmu);
	FILE *probe = fopen(path, "rb");
	if (!probe) {
		vs_error_set(err, "%s: not an FMU: the archive has no "
		             "modelDescription.xml", fmu);
		return -1;
	}
	fclose(probe);
	xmlParserCtxt *ctx = xmlNewParserCtxt();
	if (!ctx) {
		vs_error_set(err, "%s: out of memory", where);
		return -1;
	}
	/* The first error is the one that names the fault; libxml2 goes
	 * on and its last error is often a consequence. */
	first_error fe = {0, ""};
	xmlSetStructuredErrorFunc(&fe, keep_first);
	xmlDoc *doc = xmlCtxtReadFile(ctx, path, NULL,
	                              XML_PARSE_NONET | XML_PARSE_NOERROR |
	                                      XML_PARSE_NOWARNING);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlFreeParserCtxt(ctx);
	if (!doc || fe.line) {
		vs_error_set(err, "%s:%d: not well-formed XML: %s", where,
		             fe.line, fe.msg[0] ? fe.msg : "?");
		xmlFreeDoc(doc);
		return -1;
	}
	int rc = -1;
	const xmlNode *root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "fmiModelDescription")) {
		vs_error_set(err, "%s: the root element is not "
		             "fmiModelDescription", where);
		goto out;
	}
	char *ver = attr(root, "fmiVersion", "");
	md->fmi = !strncmp(ver, "2.", 2) ? 2 : !strncmp(ver, "3.", 2) ? 3 : 0;
	if (!md->fmi) {
		vs_error_set(err, "%s:%d: fmiVersion \"%s\" is not supported "
		             "(vsweep runs FMI 2.0 and 3.0 co-simulation FMUs)",
		             where, (int)xmlGetLineNo(root), ver);
		free(ver);
		goto out;
	}
	free(ver);
	md->model_name = attr(root, "modelName", "");
	md->token = attr(root, md->fmi == 2 ? "guid" : "instantiationToken",
	                 "");
	md->version = attr(root, "version", "");
	const xmlNode *cs = NULL, *mv = NULL;
	for (const xmlNode *e = root->children; e; e = e->next) {
		if (is(e, "CoSimulation"))
			cs = e;
		else if (is(e, "ModelVariables"))
			mv = e;
	}
	if (!cs) {
		vs_error_set(err, "%s: the FMU has no CoSimulation interface "
		             "(model exchange FMUs are not supported)", where);
		goto out;
	}
	md->model_id = attr(cs, "modelIdentifier", NULL);
	if (!md->model_id || !*md->model_id ||
	    strchr(md->model_id, '/')) {
		vs_error_set(err, "%s:%d: CoSimulation has no valid "
		             "modelIdentifier", where, (int)xmlGetLineNo(cs));
		goto out;
	}
	char *once = attr(cs, "canBeInstantiatedOnlyOncePerProcess", "false");
	md->once = !strcmp(once, "true");
	free(once);
	if (!mv) {
		vs_error_set(err, "%s: no ModelVariables", where);
		goto out;
	}
	rc = read_vars(where, mv, md->fmi, md, err);
out:
	xmlFreeDoc(doc);
	return rc;
}

void vs_fmu_md_free(fmu_md *md)
{
	for (int i = 0; i < md->n_vars; i++) {
		free(md->vars[i].name);
		free(md->vars[i].unit);
		free(md->vars[i].doc);
	}
	free(md->vars);
	free(md->model_name);
	free(md->model_id);
	free(md->token);
	free(md->version);
	memset(md, 0, sizeof *md);
}

const fmu_var *vs_fmu_md_find(const fmu_md *md, const char *name)
{
	for (int i = 0; i < md->n_vars; i++)
		if (!strcmp(md->vars[i].name, name))
			return &md->vars[i];
	return NULL;
}
