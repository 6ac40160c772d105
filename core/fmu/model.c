/* Reading an FMU's modelDescription.xml (FMI 2.0 or 3.0) with libxml2:
 * the FMI version, the co-simulation model identifier, the instantiation
 * token, the CoSimulation flags vsweep heeds (xs:booleans: "1" is true)
 * and the FMU's own step, and every variable with its value reference,
 * causality, type, start value, unit and description.
 *
 * What the standard requires of these is checked, so that a broken file
 * is refused with its line rather than misread: causality and
 * variability from the standard's lists, start values spelled as their
 * type says (and finite in FMI 2.0), names unique, value references
 * unique (FMI 3.0) or shared only by aliases that the host does not both
 * set (FMI 2.0).
 *
 * No entity may be declared and no network is used (XML_PARSE_NONET):
 * the file comes from an archive a user was given. */
#include "fmu/fmu_internal.h"

#include "common/xmlread.h"
#include "yaml/yamltree.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       !strcmp((const char *)n->name, name);
}

/* libxml2 keeps an element's line in 16 bits (XML_PARSE_BIG_LINES helps
 * text nodes only), and large models' descriptions run past line 65535:
 * the start-element hook puts the line, as libxml2 counts it, in the
 * element's _private, which the parser leaves to the application. */
static void start_element(void *ctx, const xmlChar *name,
                          const xmlChar *prefix, const xmlChar *uri,
                          int n_ns, const xmlChar **ns, int n_attrs,
                          int n_defaulted, const xmlChar **attrs)
{
	xmlParserCtxtPtr c = ctx;
	const xmlNode *parent = c->node;
	xmlSAX2StartElementNs(ctx, name, prefix, uri, n_ns, ns, n_attrs,
	                      n_defaulted, attrs);
	if (c->node && c->node != parent && c->input && c->input->line > 0)
		c->node->_private = (void *)(intptr_t)c->input->line;
}

static int line_of(const xmlNode *n)
{
	return n->_private ? (int)(intptr_t)n->_private : (int)xmlGetLineNo(n);
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

/* XML whitespace: what separates the items of a list attribute (FMI 3's
 * start), and what may surround a number (whiteSpace="collapse"). */
static int xml_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Up to 40 characters of a value for a message, marked when cut (a
 * value can be any length; vs_error escapes control characters). */
static const char *shown(const char *s, size_t n, char buf[48])
{
	size_t k = n > 40 ? 40 : n;
	memcpy(buf, s, k);
	strcpy(buf + k, n > k ? "..." : "");
	return buf;
}

enum { NUM_OK, NUM_SPECIAL, NUM_RANGE, NUM_BAD };

/* One xs:double of n characters at s (no whitespace): NUM_OK with a
 * finite value, NUM_SPECIAL for INF, +INF, -INF or NaN (spelled so: XML
 * Schema has no "inf" or "nan"), NUM_RANGE for a number beyond a double
 * (1e999), NUM_BAD for anything else ("abc", "1.5x", "0x10"). */
static int xs_double(const char *s, size_t n, double *out)
{
	static const struct {
		const char *text;
		double v;
	} special[] = {{"INF", HUGE_VAL}, {"+INF", HUGE_VAL},
	               {"-INF", -HUGE_VAL}, {"NaN", NAN}};
	for (size_t k = 0; k < sizeof special / sizeof *special; k++)
		if (n == strlen(special[k].text) &&
		    !memcmp(s, special[k].text, n)) {
			*out = special[k].v;
			return NUM_SPECIAL;
		}
	size_t i = 0, digits = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return NUM_BAD;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t e0 = i;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == e0)
			return NUM_BAD;
	}
	if (i != n)
		return NUM_BAD;
	/* strtod stops where the token does: what follows it is whitespace
	 * or the end. An underflow (1e-999) is the nearest double, 0. */
	*out = strtod(s, NULL);
	return isfinite(*out) ? NUM_OK : NUM_RANGE;
}

/* One integer of n characters at s in [lo, hi]: NUM_OK, NUM_RANGE or
 * NUM_BAD ("1.5", "abc"). */
static int xs_integer(const char *s, size_t n, long long lo,
                      unsigned long long hi, double *out)
{
	size_t i = s[0] == '+' || s[0] == '-';
	if (i == n)
		return NUM_BAD;
	for (size_t k = i; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return NUM_BAD;
	errno = 0;
	if (s[0] == '-') {
		long long v = strtoll(s, NULL, 10);
		if (errno == ERANGE || v < lo)
			return NUM_RANGE;
		*out = (double)v;
	} else {
		unsigned long long v = strtoull(s + (s[0] == '+'), NULL, 10);
		if (errno == ERANGE || v > hi)
			return NUM_RANGE;
		*out = (double)v;
	}
	return NUM_OK;
}

/* How a type's start is spelled: its items are numbers (a Float32's
 * within a float's range), integers in a range, or Booleans; other
 * types' starts (String, Binary: text) are not looked at. base groups
 * FMI 2's types that share value references: Integer and Enumeration
 * are both fmi2Integer. */
enum { K_OTHER, K_FLOAT, K_FLOAT32, K_INT, K_BOOL };

typedef struct var_type {
	const char *name;
	int kind;
	long long lo;
	unsigned long long hi;
	int base;
} var_type;

static const var_type fmi2_types[] = {
	{"Real", K_FLOAT, 0, 0, 1},
	{"Integer", K_INT, INT32_MIN, INT32_MAX, 2},
	{"Enumeration", K_INT, INT32_MIN, INT32_MAX, 2},
	{"Boolean", K_BOOL, 0, 0, 3},
	{"String", K_OTHER, 0, 0, 4},
};

static const var_type fmi3_types[] = {
	{"Float64", K_FLOAT, 0, 0, 0},
	{"Float32", K_FLOAT32, 0, 0, 0},
	{"Int8", K_INT, INT8_MIN, INT8_MAX, 0},
	{"UInt8", K_INT, 0, UINT8_MAX, 0},
	{"Int16", K_INT, INT16_MIN, INT16_MAX, 0},
	{"UInt16", K_INT, 0, UINT16_MAX, 0},
	{"Int32", K_INT, INT32_MIN, INT32_MAX, 0},
	{"UInt32", K_INT, 0, UINT32_MAX, 0},
	{"Int64", K_INT, INT64_MIN, INT64_MAX, 0},
	{"UInt64", K_INT, 0, UINT64_MAX, 0},
	{"Enumeration", K_INT, INT64_MIN, INT64_MAX, 0},
	{"Boolean", K_BOOL, 0, 0, 0},
};

/* The type of element t (NULL: none, or one vsweep does not know, whose
 * start is then not looked at). */
static const var_type *type_of(const xmlNode *t, int fmi)
{
	const var_type *tab = fmi == 2 ? fmi2_types : fmi3_types;
	size_t n = fmi == 2 ? sizeof fmi2_types / sizeof *fmi2_types
	                    : sizeof fmi3_types / sizeof *fmi3_types;
	for (size_t i = 0; t && i < n; i++)
		if (is(t, tab[i].name))
			return &tab[i];
	return NULL;
}

/* Whether C would read the n characters at s as a number that is not
 * finite ("nan", "inf", "Infinity", "1e999"): to say what is wrong with
 * them in XML. */
static int c_nonfinite(const char *s, size_t n)
{
	char buf[64];
	if (!n || n >= sizeof buf)
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	double x = strtod(buf, &end);
	return end == buf + n && !isfinite(x);
}

/* Checks the start attribute of t against its type: the value (or each
 * item of an FMI 3 array's list) must be spelled as the type says, and
 * FMI 2.0 allows no NaN or INF in modelDescription.xml (FMI 3.0 does).
 * A scalar's value is kept in v. */
static int read_start(const char *where, const xmlNode *t,
                      const var_type *ty, int fmi, fmu_var *v,
                      vs_error *err)
{
	char *s = ty && ty->kind != K_OTHER ? attr(t, "start", NULL) : NULL;
	if (!s)
		return 0;
	int line = line_of(t), items = 0, rc = 0;
	char buf[48];
	const char *p = s;
	for (;;) {
		while (xml_space(*p))
			p++;
		if (!*p && items)
			break;
		/* A scalar's start is one value: "1 2" is not a number. */
		size_t n = 0;
		while (p[n] && (!v->array || !xml_space(p[n])))
			n++;
		while (n && xml_space(p[n - 1]))
			n--;
		items++;
		double x = 0;
		int st = NUM_BAD;
		if (n && (ty->kind == K_FLOAT || ty->kind == K_FLOAT32))
			st = xs_double(p, n, &x);
		else if (n && ty->kind == K_INT)
			st = xs_integer(p, n, ty->lo, ty->hi, &x);
		else if (n && ty->kind == K_BOOL)
			for (int b = 0; b < 4; b++) {
				static const char *const lit[] = {"false", "true",
				                                  "0", "1"};
				if (n == strlen(lit[b]) && !memcmp(p, lit[b], n)) {
					x = b & 1;
					st = NUM_OK;
				}
			}
		if (st == NUM_SPECIAL && fmi == 2)
			st = NUM_RANGE;
		/* A number a Float32 cannot hold: its nearest float is
		 * infinite (INF is written so). */
		if (st == NUM_OK && ty->kind == K_FLOAT32 &&
		    fabs(x) >= VS_F32_OVERFLOW)
			st = NUM_RANGE;
		if (st == NUM_OK || st == NUM_SPECIAL) {
			v->start = x;
			p += n;
			continue;
		}
		char range[96];
		const char *why = "which is not a number";
		if (ty->kind == K_BOOL) {
			why = "which is not a Boolean (true, false, 1 or 0)";
		} else if (ty->kind == K_INT && st == NUM_RANGE) {
			snprintf(range, sizeof range, "which is outside %s's range "
			         "[%lld, %llu]", ty->name, ty->lo, ty->hi);
			why = range;
		} else if (ty->kind == K_INT) {
			why = "which is not an integer";
		} else if (fmi == 2 && (st == NUM_RANGE || c_nonfinite(p, n))) {
			why = "which is not a finite number (FMI 2.0 allows no NaN "
			      "or INF in modelDescription.xml)";
		} else if (st == NUM_RANGE && ty->kind == K_FLOAT32) {
			why = "which is beyond the range of a Float32 (infinity "
			      "is written INF)";
		} else if (st == NUM_RANGE) {
			why = "which is beyond the range of a double (infinity is "
			      "written INF)";
		} else if (c_nonfinite(p, n)) {
			why = "which is not an XML number (XML spells these NaN, "
			      "INF and -INF)";
		}
		if (v->array)
			vs_error_set(err, "%s:%d: variable '%s' has start item "
			             "\"%s\", %s", where, line, v->name,
			             shown(p, n, buf), why);
		else
			vs_error_set(err, "%s:%d: variable '%s' has start \"%s\", "
			             "%s", where, line, v->name,
			             shown(s, strlen(s), buf), why);
		rc = -1;
		break;
	}
	v->has_start = !rc && !v->array;
	free(s);
	return rc;
}

/* A Real's min or max: a number, or the attribute absent. One that is not
 * finite (INF, or NaN) bounds nothing and leaves *out as it was. A
 * Float32's is an xs:float: the nearest float to what is written, and
 * INF (bounding nothing) when that is infinite. */
static int read_bound(const char *where, const xmlNode *t, const char *name,
                      const fmu_var *v, double *out, vs_error *err)
{
	char *s = attr(t, name, NULL);
	if (!s)
		return 0;
	const char *p = s;
	while (xml_space(*p))
		p++;
	size_t n = 0;
	while (p[n] && !xml_space(p[n]))
		n++;
	size_t rest = n;
	while (xml_space(p[rest]))
		rest++;
	double x = 0;
	int st = p[rest] ? NUM_BAD : xs_double(p, n, &x);
	if (st == NUM_BAD) {
		char buf[48];
		vs_error_set(err, "%s:%d: variable '%s' has %s \"%s\", which is "
		             "not %s", where, line_of(t), v->name, name,
		             shown(s, strlen(s), buf),
		             c_nonfinite(p, n) ? "an XML number (XML spells these "
		                                 "NaN, INF and -INF)"
		                               : "a number");
		free(s);
		return -1;
	}
	if (st == NUM_OK && v->float32 && fabs(x) >= VS_F32_OVERFLOW)
		st = NUM_SPECIAL;
	if (st == NUM_OK)
		*out = v->float32 ? (double)(float)x : x;
	free(s);
	return 0;
}

/* A parameter's start is the value vsweep sets when no sweep changes it;
 * the standards ask min <= start <= max, and an FMU that checks its
 * inputs would refuse it at every variant. A Float32's start, min and
 * max are compared as the floats they are (its min and max already
 * are), shown to 9 digits, which tell one float from another; a
 * double's to 17. */
static int check_range(const char *where, const fmu_var *v, vs_error *err)
{
	int g = v->float32 ? 9 : 17;
	double start = v->float32 ? (double)(float)v->start : v->start;
	char s[32], lo[32], hi[32];
	snprintf(s, sizeof s, "%.*g", g, start);
	snprintf(lo, sizeof lo, "%.*g", g, v->min);
	snprintf(hi, sizeof hi, "%.*g", g, v->max);
	if (v->is_real && v->causality == FMU_CAUS_PARAMETER &&
	    v->has_start && (start < v->min || start > v->max)) {
		vs_error_set(err, "%s:%d: parameter '%s' has start %s%s, "
		             "outside its range [%s, %s] (min and max): FMI "
		             "asks min <= start <= max", where, v->line, v->name,
		             s, v->float32 ? " (as a Float32)" : "", lo, hi);
		return -1;
	}
	if (v->is_real && v->min > v->max) {
		vs_error_set(err, "%s:%d: variable '%s' has min %s above its "
		             "max %s%s", where, v->line, v->name, lo, hi,
		             v->float32 ? " (as Float32s)" : "");
		return -1;
	}
	return 0;
}

/* Index of value in the NULL-terminated list, or -1. */
static int one_of(const char *value, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(value, list[i]))
			return i;
	return -1;
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

static const char *const causalities[] = {
	"parameter", "calculatedParameter", "input", "output", "local",
	"independent", "structuralParameter", /* FMI 3 only */ NULL};
static const char *const variabilities[] = {
	"constant", "fixed", "tunable", "discrete", "continuous", NULL};

/* Fills v from the variable element e; the type element is t (FMI 2's
 * <Real> child, or e itself in FMI 3). *settable: the host may set it
 * (parameter, input) or it is time (independent), which FMI 2 does not
 * let two aliases be. */
static int read_var(const char *where, const xmlNode *e, const xmlNode *t,
                    int fmi, fmu_var *v, int *settable, vs_error *err)
{
	v->line = line_of(e);
	v->name = attr(e, "name", NULL);
	char *vr = attr(e, "valueReference", NULL);
	if (!v->name || !*v->name || !vr) {
		vs_error_set(err, "%s:%d: a variable without name or "
		             "valueReference", where, v->line);
		free(vr);
		return -1;
	}
	char *end;
	unsigned long r = strtoul(vr, &end, 10);
	int bad = end == vr || *end || r > 0xffffffffUL;
	free(vr);
	if (bad) {
		vs_error_set(err, "%s:%d: variable '%s' has no valid "
		             "valueReference", where, v->line, v->name);
		return -1;
	}
	v->vr = (uint32_t)r;
	char *c = attr(e, "causality", "local");
	char *var = attr(e, "variability", "");
	if (one_of(c, causalities) < 0 ||
	    (fmi == 2 && !strcmp(c, "structuralParameter"))) {
		char buf[48];
		vs_error_set(err, "%s:%d: variable '%s' has causality \"%s\", "
		             "which FMI %d.0 does not know (parameter, "
		             "calculatedParameter, input, output, local, "
		             "independent%s)", where, v->line, v->name,
		             shown(c, strlen(c), buf), fmi,
		             fmi == 3 ? ", structuralParameter" : "");
		bad = 1;
	} else if (*var && one_of(var, variabilities) < 0) {
		char buf[48];
		vs_error_set(err, "%s:%d: variable '%s' has variability \"%s\", "
		             "which FMI %d.0 does not know (constant, fixed, "
		             "tunable, discrete, continuous)", where, v->line,
		             v->name, shown(var, strlen(var), buf), fmi);
		bad = 1;
	}
	v->causality = causality(c);
	*settable = !strcmp(c, "parameter") || !strcmp(c, "input") ||
	            !strcmp(c, "independent");
	/* A parameter the host may set: fixed or tunable (both are the
	 * default variability of a parameter). */
	if (v->causality == FMU_CAUS_PARAMETER && *var &&
	    strcmp(var, "fixed") && strcmp(var, "tunable"))
		v->causality = FMU_CAUS_OTHER;
	free(c);
	free(var);
	if (bad)
		return -1;
	v->doc = attr(e, "description", "");
	if (fmi == 3) {
		char *ck = attr(e, "clocks", NULL);
		v->clocked = ck != NULL;
		free(ck);
	}
	snprintf(v->type, sizeof v->type, "%s", t ? (const char *)t->name : "");
	for (const xmlNode *d = fmi == 3 ? e->children : NULL; d; d = d->next)
		v->array |= is(d, "Dimension");
	v->float32 = fmi == 3 && t && is(t, "Float32") && !v->array;
	v->is_real = t && (is(t, "Real") || is(t, "Float64") || v->float32) &&
	             !v->array;
	v->unit = t ? attr(t, "unit", "") : vs_strdup("");
	v->declared = t ? attr(t, "declaredType", "") : vs_strdup("");
	v->min = -HUGE_VAL;
	v->max = HUGE_VAL;
	if (read_start(where, t, type_of(t, fmi), fmi, v, err))
		return -1;
	if (v->is_real && (read_bound(where, t, "min", v, &v->min, err) ||
	                   read_bound(where, t, "max", v, &v->max, err)))
		return -1;
	return check_range(where, v, err);
}

/* A name or value reference with where it stands, for finding repeats. */
typedef struct key {
	const char *name;  /* names: a variable's or an alias's */
	int base;          /* value references: FMI 2's base type; names:
	                    * -1 for an alias's (freed here), else 0 */
	uint32_t vr;
	int line, order;   /* order: in the document */
} key;

static int by_name(const void *a, const void *b)
{
	const key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int by_vr(const void *a, const void *b)
{
	const key *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->vr != y->vr)
		return x->vr < y->vr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Sorts k and returns the index of the repeat that comes first in the
 * document (the second of its kind, so that the message can name the
 * first as well: it is at the index before), or -1 when none repeats. */
static int first_repeat(key *k, int n, int (*cmp)(const void *, const void *),
                        int names)
{
	if (n < 2)
		return -1;
	qsort(k, (size_t)n, sizeof *k, cmp);
	int best = -1;
	for (int i = 1; i < n; i++) {
		int same = names ? !strcmp(k[i].name, k[i - 1].name)
		                 : k[i].base == k[i - 1].base &&
		                           k[i].vr == k[i - 1].vr;
		int second = i < 2 || (names ? strcmp(k[i - 1].name,
		                                      k[i - 2].name)
		                             : k[i - 1].base != k[i - 2].base ||
		                                       k[i - 1].vr != k[i - 2].vr);
		if (same && second && (best < 0 || k[i].order < k[best].order))
			best = i;
	}
	return best;
}

/* The standard's rules across variables: names unique (FMI 3: aliases'
 * too); FMI 3 value references unique; FMI 2 value references shared
 * only by aliases of one base type, of which at most one may be set by
 * the host (two parameters may not share one). */
static int check_unique(const char *where, const xmlNode *mv, int fmi,
                        const fmu_md *md, const int *settable,
                        vs_error *err)
{
	int n = 0, cap = md->n_vars + 16, order = 0;
	key *k = vs_xcalloc((size_t)cap, sizeof *k);
	/* In document order: FMI 3's <Alias name=...> children follow their
	 * variable (each element of ModelVariables is one, as read_vars
	 * took them). */
	const xmlNode *e = fmi == 3 ? mv->children : NULL;
	for (int i = 0; i < md->n_vars; i++) {
		k[n] = (key){md->vars[i].name, 0, 0, md->vars[i].line, order++};
		n++;
		while (e && e->type != XML_ELEMENT_NODE)
			e = e->next;
		for (const xmlNode *a = e ? e->children : NULL; a; a = a->next) {
			char *name = is(a, "Alias") ? attr(a, "name", NULL) : NULL;
			if (!name)
				continue;
			if (n == cap) {
				cap *= 2;
				k = vs_xrealloc(k, (size_t)cap * sizeof *k);
			}
			k[n] = (key){name, -1, 0, line_of(a), order++};
			n++;
		}
		if (e)
			e = e->next;
	}
	int rc = 0, r = first_repeat(k, n, by_name, 1);
	if (r >= 0) {
		vs_error_set(err, "%s:%d: the name '%s' is declared twice (first "
		             "on line %d): variable names must be unique", where,
		             k[r].line, k[r].name, k[r - 1].line);
		rc = -1;
	}
	for (int i = 0; i < n; i++)
		if (k[i].base < 0) /* an alias's name, ours */
			free((char *)k[i].name);
	if (rc) {
		free(k);
		return -1;
	}
	/* Value references, with names again to say whose. */
	n = 0;
	for (int i = 0; i < md->n_vars; i++) {
		const fmu_var *v = &md->vars[i];
		int base = fmi == 2 ? settable[i] : 0;
		if (fmi == 2 && !base)
			continue;
		k[n] = (key){v->name, base, v->vr, v->line, n};
		n++;
	}
	r = first_repeat(k, n, by_vr, 0);
	if (r >= 0 && fmi == 3)
		vs_error_set(err, "%s:%d: variable '%s' has valueReference %u, "
		             "as has '%s' on line %d: FMI 3.0 requires unique "
		             "value references", where, k[r].line, k[r].name,
		             (unsigned)k[r].vr, k[r - 1].name, k[r - 1].line);
	else if (r >= 0)
		vs_error_set(err, "%s:%d: variable '%s' has valueReference %u, "
		             "as has '%s' on line %d, and both are set from "
		             "outside (parameter, input or independent): FMI 2.0 "
		             "does not allow such variables to be aliases", where,
		             k[r].line, k[r].name, (unsigned)k[r].vr,
		             k[r - 1].name, k[r - 1].line);
	free(k);
	return r >= 0 ? -1 : 0;
}

static int read_vars(const char *where, const xmlNode *mv, int fmi,
                     fmu_md *md, vs_error *err)
{
	int cap = 0, rc = 0;
	int *settable = NULL; /* FMI 2: the base type if settable, else 0 */
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
			settable = vs_xrealloc(settable,
			                       (size_t)cap * sizeof *settable);
		}
		int i = md->n_vars++;
		fmu_var *v = &md->vars[i];
		memset(v, 0, sizeof *v);
		int set = 0;
		if (read_var(where, e, t, fmi, v, &set, err)) {
			rc = -1;
			break;
		}
		const var_type *ty = type_of(t, fmi);
		settable[i] = set && ty ? ty->base : 0;
	}
	if (!rc)
		rc = check_unique(where, mv, fmi, md, settable, err);
	free(settable);
	return rc;
}

/* The BaseUnit exponents' attribute names, in fmu_unit.exp order. */
static const char *const base_names[8] = {"kg", "m", "s", "A", "K", "mol",
                                          "cd", "rad"};

/* UnitDefinitions: each <Unit name=...> with its <BaseUnit> (exponents
 * are integers, factor and offset numbers; defaults 0, 1, 0). */
static int read_units(const char *where, const xmlNode *ud, fmu_md *md,
                      vs_error *err)
{
	int cap = 0;
	for (const xmlNode *u = ud->children; u; u = u->next) {
		if (!is(u, "Unit"))
			continue;
		if (md->n_units == cap) {
			cap = cap ? 2 * cap : 8;
			md->units = vs_xrealloc(md->units,
			                        (size_t)cap * sizeof *md->units);
		}
		fmu_unit *un = &md->units[md->n_units++];
		memset(un, 0, sizeof *un);
		un->factor = 1.0;
		un->name = attr(u, "name", "");
		const xmlNode *b = u->children;
		while (b && !is(b, "BaseUnit"))
			b = b->next;
		if (!b)
			continue;
		un->has_base = 1;
		for (int k = 0; k < 10; k++) {
			const char *name = k < 8 ? base_names[k]
			                   : k == 8 ? "factor" : "offset";
			char *v = attr(b, name, NULL);
			if (!v)
				continue;
			size_t n = strlen(v);
			double x = 0;
			int st = k < 8 ? xs_integer(v, n, INT32_MIN, INT32_MAX, &x)
			               : xs_double(v, n, &x);
			if (st != NUM_OK || (k == 8 && x == 0)) {
				char buf[48];
				vs_error_set(err, "%s:%d: unit '%s' has BaseUnit %s "
				             "\"%s\", which is not %s", where,
				             line_of(b), un->name, name,
				             shown(v, n, buf),
				             k < 8 ? "an integer exponent"
				                   : "a finite non-zero number");
				free(v);
				return -1;
			}
			free(v);
			if (k < 8)
				un->exp[k] = (int)x;
			else if (k == 8)
				un->factor = x;
			else
				un->offset = x;
		}
	}
	return 0;
}

/* A variable without a unit of its own takes its declaredType's (FMI 2:
 * <SimpleType name=...><Real unit=.../>; FMI 3: <Float64Type name=...
 * unit=...>). */
static void type_units(const xmlNode *td, int fmi, fmu_md *md)
{
	for (int i = 0; td && i < md->n_vars; i++) {
		fmu_var *v = &md->vars[i];
		if (*v->unit || !*v->declared)
			continue;
		for (const xmlNode *t = td->children; t; t = t->next) {
			if (t->type != XML_ELEMENT_NODE)
				continue;
			char *name = attr(t, "name", "");
			int match = !strcmp(name, v->declared);
			free(name);
			if (!match)
				continue;
			const xmlNode *r = t;
			if (fmi == 2)
				for (r = t->children; r && !is(r, "Real");)
					r = r->next;
			if (r) {
				free(v->unit);
				v->unit = attr(r, "unit", "");
			}
			break;
		}
	}
}

/* s without the XML whitespace around it: its start, and *n its
 * length (XML Schema's values are read so). */
static const char *xml_trimmed(const char *s, size_t *n)
{
	while (xml_space(*s))
		s++;
	*n = strlen(s);
	while (*n && xml_space(s[*n - 1]))
		(*n)--;
	return s;
}

/* An xs:boolean attribute of e: "true" or "1", "false" or "0" (XML
 * Schema spells it so, whitespace around allowed); false when absent, as
 * every flag read here defaults to. */
static int xs_bool(const char *where, const xmlNode *e, const char *name,
                   int *out, vs_error *err)
{
	char *s = attr(e, name, NULL);
	*out = 0;
	if (!s)
		return 0;
	size_t n;
	const char *p = xml_trimmed(s, &n);
	int rc = 0;
	if ((n == 4 && !memcmp(p, "true", 4)) || (n == 1 && *p == '1')) {
		*out = 1;
	} else if (!((n == 5 && !memcmp(p, "false", 5)) ||
	             (n == 1 && *p == '0'))) {
		char buf[48];
		vs_error_set(err, "%s:%d: %s has %s=\"%s\", which is not a "
		             "Boolean (true, false, 1 or 0)", where, line_of(e),
		             (const char *)e->name, name, shown(s, strlen(s), buf));
		rc = -1;
	}
	free(s);
	return rc;
}

/* The FMU's own step from attribute name of e (NULL: none): a finite
 * number > 0, in s. */
static int read_step(const char *where, const xmlNode *e, const char *name,
                     const char *from, fmu_md *md, vs_error *err)
{
	char *s = e ? attr(e, name, NULL) : NULL;
	if (!s)
		return 0;
	size_t n;
	const char *p = xml_trimmed(s, &n);
	double x = 0;
	if (xs_double(p, n, &x) != NUM_OK || !(x > 0)) {
		char buf[48];
		vs_error_set(err, "%s:%d: %s has %s=\"%s\", which is not a "
		             "number of seconds above 0", where, line_of(e),
		             (const char *)e->name, name,
		             shown(s, strlen(s), buf));
		free(s);
		return -1;
	}
	free(s);
	md->fixed_step = x;
	md->fixed_step_from = from;
	md->fixed_step_line = line_of(e);
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
	/* the limit of every input file, as for YAML and .xodr files (the
	 * unpacked archive may hold up to MAX_UNPACKED) */
	struct stat sb;
	int big = fstat(fileno(probe), &sb) == 0 &&
	          (uint64_t)sb.st_size > VS_YAML_MAX_BYTES;
	fclose(probe);
	if (big) {
		vs_error_set(err, "%s: larger than the %zu MiB limit", where,
		             VS_YAML_MAX_BYTES >> 20);
		return -1;
	}
	xmlParserCtxt *ctx = xmlNewParserCtxt();
	if (!ctx) {
		vs_error_set(err, "%s: out of memory", where);
		return -1;
	}
	/* The first error is the one that names the fault; libxml2 goes
	 * on and its last error is often a consequence. */
	first_error fe = {0, ""};
	vs_xml_guard guard;
	vs_xml_guard_install(ctx, &guard);
	xmlSetStructuredErrorFunc(&fe, keep_first);
	ctx->sax->startElementNs = start_element;
	xmlDoc *doc = xmlCtxtReadFile(ctx, path, NULL, VS_XML_OPTIONS);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlFreeParserCtxt(ctx);
	if (guard.line) {
		vs_error_set(err, "%s:%d: entity declaration '%s': a model "
		             "description needs no entities, and vsweep reads "
		             "none", where, guard.line, guard.name);
		xmlFreeDoc(doc);
		return -1;
	}
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
		             where, line_of(root), ver);
		free(ver);
		goto out;
	}
	free(ver);
	md->model_name = attr(root, "modelName", "");
	/* The standard requires the token, and the FMU's instantiate
	 * compares it with the one the importer passes: without it every
	 * variant would fail at instantiation. */
	const char *tok = md->fmi == 2 ? "guid" : "instantiationToken";
	md->token = attr(root, tok, NULL);
	if (!md->token) {
		vs_error_set(err, "%s:%d: fmiModelDescription has no %s "
		             "(FMI %d.0 requires it)", where, line_of(root), tok,
		             md->fmi);
		goto out;
	}
	md->version = attr(root, "version", "");
	const xmlNode *cs = NULL, *mv = NULL, *ud = NULL, *td = NULL;
	for (const xmlNode *e = root->children; e; e = e->next) {
		if (is(e, "CoSimulation"))
			cs = e;
		else if (is(e, "ModelVariables"))
			mv = e;
		else if (is(e, "UnitDefinitions"))
			ud = e;
		else if (is(e, "TypeDefinitions"))
			td = e;
	}
	if (!cs) {
		/* Said by what it has: an FMI 3 FMU may offer scheduled
		 * execution only. */
		const xmlNode *se = root->children;
		while (se && !is(se, "ScheduledExecution"))
			se = se->next;
		vs_error_set(err, "%s:%d: the FMU has no CoSimulation interface "
		             "(%s FMUs are not supported)", where,
		             line_of(se ? se : root),
		             se ? "scheduled execution" : "model exchange");
		goto out;
	}
	md->model_id = attr(cs, "modelIdentifier", NULL);
	if (!md->model_id || !*md->model_id ||
	    strchr(md->model_id, '/')) {
		vs_error_set(err, "%s:%d: CoSimulation has no valid "
		             "modelIdentifier", where, line_of(cs));
		goto out;
	}
	md->cs_line = line_of(cs);
	if (xs_bool(where, cs, "canBeInstantiatedOnlyOncePerProcess",
	            &md->once, err) ||
	    xs_bool(where, cs, "needsExecutionTool", &md->needs_tool, err) ||
	    xs_bool(where, cs, "canHandleVariableCommunicationStepSize",
	            &md->variable_step, err) ||
	    /* FMI 3's fixedInternalStepSize only: a DefaultExperiment's
	     * stepSize is a suggestion to the importer, not a step the FMU
	     * is bound to, and FMI 2 has no step of the FMU's own */
	    read_step(where, md->fmi == 3 ? cs : NULL, "fixedInternalStepSize",
	              "fixedInternalStepSize", md, err))
		goto out;
	if (!mv) {
		vs_error_set(err, "%s: no ModelVariables", where);
		goto out;
	}
	rc = read_vars(where, mv, md->fmi, md, err);
	if (!rc && ud)
		rc = read_units(where, ud, md, err);
	if (!rc)
		type_units(td, md->fmi, md);
out:
	xmlFreeDoc(doc);
	return rc;
}

void vs_fmu_md_free(fmu_md *md)
{
	for (int i = 0; i < md->n_vars; i++) {
		free(md->vars[i].name);
		free(md->vars[i].unit);
		free(md->vars[i].declared);
		free(md->vars[i].doc);
	}
	free(md->vars);
	for (int i = 0; i < md->n_units; i++)
		free(md->units[i].name);
	free(md->units);
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

const fmu_unit *vs_fmu_md_unit(const fmu_md *md, const char *name)
{
	for (int i = 0; i < md->n_units; i++)
		if (!strcmp(md->units[i].name, name))
			return &md->units[i];
	return NULL;
}
