/* Reading an ASAM OpenDRIVE 1.4-1.8 file (.xodr) with libxml2 into an
 * odr_net: header, roads (links, planView, elevationProfile,
 * lateralProfile superelevation, laneOffset, laneSections with lane
 * widths or borders, heights, level and lane links) and junctions with their connections.
 * Objects, signals, surface, railroad and user data are skipped. What
 * vsweep would get wrong (an unknown geometry, s going backwards or
 * leaving a gap, a negative width, a missing attribute, a link, junction
 * or lane link naming nothing, broken XML) is an error at FILE:LINE:COL;
 * libxml2 keeps element lines but not columns, so an element's column
 * is 1 (parse errors carry libxml2's own column). The file is held to
 * the 64 MiB of every input file and may declare no entity
 * (common/xmlread.h). */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "common/xmlread.h"
#include "map/map.h"
#include "map/odr.h"
#include "yaml/yamltree.h"

typedef odr_reader reader;

static vs_mark mark_of(const xmlNode *n)
{
	vs_mark m = {(int)xmlGetLineNo(n), 1};
	return m;
}

static int fail(reader *rd, const xmlNode *n, const char *fmt, ...)
	VS_PRINTF(3, 4);

static int fail(reader *rd, const xmlNode *n, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	vs_error_at(rd->err, rd->path, mark_of(n), "%s", msg);
	return -1;
}

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	       strcmp((const char *)n->name, name) == 0;
}

/* The attribute's text (malloc'd by libxml2), or NULL. */
static char *attr(const xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static int str_attr(reader *rd, const xmlNode *n, const char *name,
                    char **out)
{
	char *v = attr(n, name);
	if (!v)
		return fail(rd, n, "<%s>: missing attribute '%s'",
		            (const char *)n->name, name);
	*out = vs_strdup(v);
	xmlFree(v);
	return 0;
}

#define MAX_NUMBER (VS_MAP_MAX_COORD * 10) /* any number's size */
/* m: how far two values of s (or a length and s) that should meet may
 * miss, at s: the rounding of an exporter that works in float
 * (relative 6e-8 a number, a few roundings a sum) or prints 7
 * significant digits (5e-7), relative to s, and 1e-6 m near s = 0 */
#define S_TOL(s) (1e-6 * (1 + fabs((double)(s))))
#define MAX_INT 1000000 /* an integer's: lane ids sort below 2·MAX_INT */

/* A number attribute of at most lim in size; def NAN means required.
 * what names the kind in the message ("numbers", "integers"). */
static int num_in(reader *rd, const xmlNode *n, const char *name,
                  double def, double lim, const char *what, double *out)
{
	char *v = attr(n, name);
	if (!v) {
		if (isnan(def))
			return fail(rd, n, "<%s>: missing attribute '%s'",
			            (const char *)n->name, name);
		*out = def;
		return 0;
	}
	char *end;
	double d = strtod(v, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	/* strtod also reads C's hexadecimal (0x1p-2), which is no XML
	 * Schema double: decimal only, as the YAML reader */
	int hex = end != v && strpbrk(v, "xX") != NULL;
	int bad = end == v || *end || !isfinite(d) || hex;
	if (hex)
		fail(rd, n, "<%s>: attribute %s=\"%.40s\" is not a decimal "
		     "number (hexadecimal is not read)", (const char *)n->name,
		     name, v);
	else if (bad)
		fail(rd, n, "<%s>: attribute %s=\"%.40s\" is not a finite "
		     "number", (const char *)n->name, name, v);
	else if ((bad = fabs(d) > lim))
		fail(rd, n, "<%s>: attribute %s=\"%.40s\" is out of range: "
		     "vsweep takes %s of at most %g in size",
		     (const char *)n->name, name, v, what, lim);
	xmlFree(v);
	*out = d;
	return bad ? -1 : 0;
}

static int num_attr(reader *rd, const xmlNode *n, const char *name,
                    double def, double *out)
{
	return num_in(rd, n, name, def, MAX_NUMBER, "numbers", out);
}

static int int_attr(reader *rd, const xmlNode *n, const char *name, int *out)
{
	double d;
	if (num_in(rd, n, name, NAN, MAX_INT, "integers", &d))
		return -1;
	if (d != floor(d))
		return fail(rd, n, "<%s>: attribute %s=%g must be an integer",
		            (const char *)n->name, name, d);
	*out = (int)d;
	return 0;
}

/* contactPoint, which may be left out: cp NULL (has 0), start or end. */
static int read_contact(reader *rd, const xmlNode *n, int *has, int *end)
{
	char *cp = attr(n, "contactPoint");
	int bad = cp && strcmp(cp, "start") && strcmp(cp, "end");
	if (bad)
		fail(rd, n, "<%s>: contactPoint=\"%.40s\" is neither start "
		     "nor end", (const char *)n->name, cp);
	*has = cp != NULL;
	*end = cp && strcmp(cp, "end") == 0;
	xmlFree(cp);
	return bad ? -1 : 0;
}

#define GROW(arr, n, cap)                                                   \
	do {                                                                \
		if ((n) == (cap)) {                                         \
			(cap) = (cap) ? 2 * (cap) : 4;                      \
			(arr) = vs_xrealloc((arr), (size_t)(cap) *          \
			                                   sizeof *(arr));  \
			memset((arr) + (n), 0,                              \
			       (size_t)((cap) - (n)) * sizeof *(arr));      \
		}                                                           \
	} while (0)

/* A cubic record <name s|sOffset a b c d/> into list, s0 not decreasing. */
static int read_poly(reader *rd, const xmlNode *n, const char *s_name,
                     odr_poly **list, int *count, int *cap)
{
	odr_poly p;
	if (num_attr(rd, n, s_name, NAN, &p.s0) ||
	    num_attr(rd, n, "a", NAN, &p.c[0]) ||
	    num_attr(rd, n, "b", NAN, &p.c[1]) ||
	    num_attr(rd, n, "c", NAN, &p.c[2]) ||
	    num_attr(rd, n, "d", NAN, &p.c[3]))
		return -1;
	if (*count && p.s0 < (*list)[*count - 1].s0)
		return fail(rd, n, "<%s>: %s=%g goes back from %g (records "
		            "must be in order of s)", (const char *)n->name,
		            s_name, p.s0, (*list)[*count - 1].s0);
	if (p.s0 < 0)
		return fail(rd, n, "<%s>: %s=%g is negative",
		            (const char *)n->name, s_name, p.s0);
	GROW(*list, *count, *cap);
	(*list)[(*count)++] = p;
	return 0;
}

static int read_link(reader *rd, const xmlNode *n, odr_link *l)
{
	/* A road has one of each; a second would overwrite the first
	 * (found by fuzzing: its id leaked). */
	if (l->has)
		return fail(rd, n, "<%s> is given twice in one <link>",
		            (const char *)n->name);
	l->mark = mark_of(n);
	char *type = NULL;
	if (str_attr(rd, n, "elementType", &type) ||
	    str_attr(rd, n, "elementId", &l->id)) {
		free(type);
		return -1;
	}
	/* anything else (a typo) would be read as a road */
	int bad = strcmp(type, "road") && strcmp(type, "junction");
	if (bad)
		fail(rd, n, "<%s>: elementType=\"%.40s\" is neither road nor "
		     "junction", (const char *)n->name, type);
	l->is_junction = strcmp(type, "junction") == 0;
	free(type);
	if (bad || read_contact(rd, n, &l->has_contact, &l->contact_end))
		return -1;
	l->has = 1;
	return 0;
}

static int read_geometry(reader *rd, const xmlNode *n, odr_road *r, int *cap)
{
	odr_geom g;
	memset(&g, 0, sizeof g);
	g.mark = mark_of(n);
	if (num_attr(rd, n, "s", NAN, &g.s) ||
	    num_attr(rd, n, "x", NAN, &g.x) ||
	    num_attr(rd, n, "y", NAN, &g.y) ||
	    num_attr(rd, n, "hdg", NAN, &g.hdg) ||
	    num_attr(rd, n, "length", NAN, &g.len))
		return -1;
	if (g.len < 0)
		return fail(rd, n, "<geometry>: length=%g is negative", g.len);
	/* the records tile the road from s = 0: a gap would be bridged by
	 * nothing the file says */
	if (r->n_geom == 0 && fabs(g.s) > S_TOL(0))
		return fail(rd, n, "<geometry>: s=%.12g: the first geometry "
		            "must start at s=0", g.s);
	if (r->n_geom) {
		const odr_geom *p = &r->geom[r->n_geom - 1];
		double end = p->s + p->len;
		if (g.s < end - S_TOL(end))
			return fail(rd, n, "<geometry>: s=%g goes back: the "
			            "one before ends at s=%g", g.s, end);
		if (g.s > end + S_TOL(end))
			return fail(rd, n, "<geometry>: s=%.12g leaves a gap: "
			            "the one before ends at s=%.12g", g.s, end);
	}
	const xmlNode *k = NULL;
	for (const xmlNode *c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !is(c, "userData")) {
			if (k)
				return fail(rd, c, "<geometry>: more than one "
				            "shape (<%s> after <%s>)",
				            (const char *)c->name,
				            (const char *)k->name);
			k = c;
		}
	if (!k)
		return fail(rd, n, "<geometry>: no shape (line, arc, spiral, "
		            "poly3 or paramPoly3)");
	int rc = 0;
	if (is(k, "line")) {
		g.kind = ODR_LINE;
	} else if (is(k, "arc")) {
		g.kind = ODR_ARC;
		rc = num_attr(rd, k, "curvature", NAN, &g.k0);
	} else if (is(k, "spiral")) {
		g.kind = ODR_SPIRAL;
		rc = num_attr(rd, k, "curvStart", NAN, &g.k0) ||
		     num_attr(rd, k, "curvEnd", NAN, &g.k1);
	} else if (is(k, "poly3")) {
		g.kind = ODR_POLY3;
		rc = num_attr(rd, k, "a", NAN, &g.a[0]) ||
		     num_attr(rd, k, "b", NAN, &g.a[1]) ||
		     num_attr(rd, k, "c", NAN, &g.a[2]) ||
		     num_attr(rd, k, "d", NAN, &g.a[3]);
	} else if (is(k, "paramPoly3")) {
		g.kind = ODR_PARAM_POLY3;
		static const char *const names[8] = {"aU", "bU", "cU", "dU",
		                                     "aV", "bV", "cV", "dV"};
		for (int i = 0; i < 8 && !rc; i++)
			rc = num_attr(rd, k, names[i], NAN,
			              i < 4 ? &g.a[i] : &g.b[i - 4]);
		char *pr = attr(k, "pRange");
		g.normalized = !pr || strcmp(pr, "normalized") == 0;
		if (!rc && pr && !g.normalized && strcmp(pr, "arcLength"))
			rc = fail(rd, k, "<paramPoly3>: pRange=\"%.40s\" is "
			          "neither arcLength nor normalized", pr);
		xmlFree(pr);
	} else {
		return fail(rd, k, "<geometry>: unknown shape <%s> (vsweep "
		            "reads line, arc, spiral, poly3, paramPoly3)",
		            (const char *)k->name);
	}
	if (rc)
		return -1;
	/* s along the record is p's share of its range: a curve of
	 * another length (a point, for coefficients all 0; twice the
	 * road for bU = 2 under arcLength) puts s where the road is not.
	 * Allowed: 0.1 % and 1 mm, more than an exporter's own
	 * integration of the length misses by. */
	double arc = g.kind == ODR_PARAM_POLY3 ? odr_pp3_arc_length(&g) : 0;
	if (g.kind == ODR_PARAM_POLY3 && fabs(arc - g.len) > 1e-3 * (1 + g.len))
		return fail(rd, k, "<paramPoly3>: the curve is %.6g m long "
		            "over its pRange but its <geometry> length=%.6g",
		            arc, g.len);
	if (fabs(g.k0) * 1e-3 > 1 || fabs(g.k1) * 1e-3 > 1)
		return fail(rd, k, "<%s>: a curvature above 1000 1/m",
		            (const char *)k->name);
	/* a spiral is integrated in panels (odr_geom.c): one winding
	 * hundreds of times is no road, and would take hours */
	double turn = (fabs(g.k0) + fabs(g.k1)) * g.len +
	              sqrt(fabs(g.k1 - g.k0) * g.len);
	if (g.kind == ODR_SPIRAL && turn > 1000)
		return fail(rd, k, "<spiral>: turns by about %.0f rad; vsweep "
		            "takes spirals of at most 1000 rad", turn);
	odr_geom_prepare(&g);
	GROW(r->geom, r->n_geom, *cap);
	r->geom[r->n_geom++] = g;
	return 0;
}

/* A <height sOffset inner outer/> into list, sOffset not decreasing. */
static int read_height(reader *rd, const xmlNode *n, odr_height **list,
                       int *count, int *cap)
{
	odr_height h;
	if (num_attr(rd, n, "sOffset", NAN, &h.s0) ||
	    num_attr(rd, n, "inner", NAN, &h.inner) ||
	    num_attr(rd, n, "outer", NAN, &h.outer))
		return -1;
	if (*count && h.s0 < (*list)[*count - 1].s0)
		return fail(rd, n, "<height>: sOffset=%g goes back from %g "
		            "(records must be in order of s)", h.s0,
		            (*list)[*count - 1].s0);
	if (h.s0 < 0)
		return fail(rd, n, "<height>: sOffset=%g is negative", h.s0);
	GROW(*list, *count, *cap);
	(*list)[(*count)++] = h;
	return 0;
}

static int read_lane(reader *rd, const xmlNode *n, odr_lane *l)
{
	l->mark = mark_of(n);
	if (int_attr(rd, n, "id", &l->id) || str_attr(rd, n, "type", &l->type))
		return -1;
	/* xs:boolean, as the schema has it */
	char *lv = attr(n, "level");
	int bad = lv && strcmp(lv, "true") && strcmp(lv, "false") &&
	          strcmp(lv, "1") && strcmp(lv, "0");
	if (bad)
		fail(rd, n, "<lane id=\"%d\">: level=\"%.40s\" is neither "
		     "true nor false", l->id, lv);
	l->level = lv && (strcmp(lv, "true") == 0 || strcmp(lv, "1") == 0);
	xmlFree(lv);
	if (bad)
		return -1;
	int cap = 0, n_border = 0, cap_b = 0, cap_h = 0;
	odr_poly *border = NULL;
	for (const xmlNode *c = n->children; c; c = c->next) {
		if (is(c, "height") &&
		    read_height(rd, c, &l->height, &l->n_height, &cap_h)) {
			free(border);
			return -1;
		}
		if (is(c, "width") || is(c, "border")) {
			int w = is(c, "width");
			if (read_poly(rd, c, "sOffset", w ? &l->width : &border,
			              w ? &l->n_width : &n_border,
			              w ? &cap : &cap_b)) {
				free(border);
				return -1;
			}
		} else if (is(c, "link")) {
			for (const xmlNode *e = c->children; e; e = e->next) {
				int *id = is(e, "predecessor") ? &l->pred
				          : is(e, "successor") ? &l->succ
				                               : NULL;
				if (!id)
					continue;
				if (int_attr(rd, e, "id", id)) {
					free(border);
					return -1;
				}
				*(id == &l->pred ? &l->has_pred
				                 : &l->has_succ) = 1;
				*(id == &l->pred ? &l->pred_mark
				                 : &l->succ_mark) = mark_of(e);
			}
		}
	}
	/* ASAM 1.6 on: with both, the application uses the widths */
	if (l->n_width == 0 && n_border) {
		l->width = border;
		l->n_width = n_border;
		l->is_border = 1;
	} else {
		free(border);
	}
	if (l->id != 0 && l->n_width == 0)
		return fail(rd, n, "<lane id=\"%d\">: no <width> or <border>",
		            l->id);
	return 0;
}

static int lane_order(const void *a, const void *b)
{
	const odr_lane *x = a, *y = b;
	/* left 1, 2, ... then right -1, -2, ... */
	int kx = x->id > 0 ? x->id : 1000000 - x->id;
	int ky = y->id > 0 ? y->id : 1000000 - y->id;
	return (kx > ky) - (kx < ky);
}

static int read_section(reader *rd, const xmlNode *n, odr_section *q)
{
	q->mark = mark_of(n);
	if (num_attr(rd, n, "s", NAN, &q->s))
		return -1;
	char *one = attr(n, "singleSide");
	q->single_side = one && strcmp(one, "true") == 0;
	xmlFree(one);
	int cap = 0;
	for (const xmlNode *side = n->children; side; side = side->next) {
		int sign = is(side, "left") ? 1 : is(side, "right") ? -1 : 0;
		if (!sign && !is(side, "center"))
			continue;
		for (const xmlNode *c = side->children; c; c = c->next) {
			if (!is(c, "lane"))
				continue;
			odr_lane l;
			memset(&l, 0, sizeof l);
			if (read_lane(rd, c, &l)) {
				free(l.type);
				free(l.width);
				free(l.height);
				return -1;
			}
			if (!sign || l.id == 0 || (l.id > 0) != (sign > 0)) {
				int bad = sign != 0 || l.id != 0;
				free(l.type);
				free(l.width);
				free(l.height);
				if (bad)
					return fail(rd, c, "<lane id=\"%d\"> "
					            "is on the wrong side "
					            "(left ids > 0, right < 0, "
					            "centre 0)", l.id);
				continue;
			}
			GROW(q->lanes, q->n_lanes, cap);
			q->lanes[q->n_lanes++] = l;
		}
	}
	if (q->n_lanes == 0)
		return fail(rd, n, "<laneSection s=\"%g\">: no lanes but the "
		            "centre lane (a section needs a lane in <left> or "
		            "<right>)", q->s);
	qsort(q->lanes, (size_t)q->n_lanes, sizeof *q->lanes, lane_order);
	for (int k = 0; k < q->n_lanes; k++) {
		const odr_lane *l = &q->lanes[k];
		if (l->id > 0)
			q->n_left = k + 1;
		int want = l->id > 0 ? k + 1 : -(k - q->n_left + 1);
		if (l->id != want)
			return fail(rd, n, "<laneSection s=\"%g\">: lane %d "
			            "is missing or repeated (ids run 1, 2, ... "
			            "left and -1, -2, ... right)", q->s, want);
	}
	return 0;
}

/* A <width> or <border> record starting at or past its lane section's end
 * applies nowhere (a record holds from its sOffset to the next one's or
 * the section's end): dropped, so that neither check_widths nor the
 * stations look at it. The first record stays, whatever its sOffset. */
static void drop_past_end(odr_road *r)
{
	for (int i = 0; i < r->n_sec; i++) {
		odr_section *q = &r->sec[i];
		double end = i + 1 < r->n_sec ? r->sec[i + 1].s : r->length;
		double len = end - q->s;
		for (int k = 0; k < q->n_lanes; k++) {
			odr_lane *l = &q->lanes[k];
			while (l->n_width > 1 &&
			       l->width[l->n_width - 1].s0 >= len - S_TOL(end))
				l->n_width--;
		}
	}
}

/* No lane may have a negative width anywhere: a <width> polynomial going
 * below zero, or a <border> (a t coordinate) on the inner side of the
 * lane's inner edge, which would put a right lane on the left. Checked
 * at 64 points of each record's span. */
static int check_widths(reader *rd, const odr_road *r)
{
	for (int i = 0; i < r->n_sec; i++) {
		const odr_section *q = &r->sec[i];
		double len = (i + 1 < r->n_sec ? r->sec[i + 1].s : r->length) -
		             q->s;
		for (int k = 0; k < q->n_lanes; k++) {
			const odr_lane *l = &q->lanes[k];
			int inner = k == 0 || k == q->n_left ? -1 : k - 1;
			double sign = k < q->n_left ? 1 : -1, dt;
			for (int j = 0; j < l->n_width; j++) {
				const odr_poly *p = &l->width[j];
				double end = j + 1 < l->n_width
				                     ? l->width[j + 1].s0
				                     : len;
				for (int t = 0; t <= 64; t++) {
					double s = q->s + p->s0 +
					           (end - p->s0) * t / 64;
					double out = odr_boundary(r, i, k, s, &dt);
					double in = odr_boundary(r, i, inner, s,
					                         &dt);
					double w = sign * (out - in);
					if (w >= -1e-9)
						continue;
					if (l->is_border)
						vs_error_at(rd->err, rd->path,
						            l->mark, "road "
						            "'%.64s': lane %d: its "
						            "<border> at t=%g m "
						            "is %g m %s its inner "
						            "edge (t=%g m) at "
						            "s=%g (a border is "
						            "the outer edge's t, "
						            "left > 0)", r->id,
						            l->id, out, -w,
						            sign > 0 ? "right of"
						                     : "left of",
						            in, s);
					else
						vs_error_at(rd->err, rd->path,
						            l->mark, "road "
						            "'%.64s': lane %d: "
						            "width %g m at s=%g "
						            "(widths must be >= "
						            "0)", r->id, l->id, w,
						            s);
					return -1;
				}
			}
		}
	}
	return 0;
}

/* A lane edge past the centre of the reference line's curve would fold
 * the lane over itself: checked at 64 points a section and each geometry
 * joint. */
static int check_folds(reader *rd, const odr_road *r)
{
	for (int i = 0; i < r->n_sec; i++) {
		const odr_section *q = &r->sec[i];
		double end = i + 1 < r->n_sec ? r->sec[i + 1].s : r->length;
		for (int j = 0; j <= 64 + r->n_geom; j++) {
			double s = j <= 64 ? q->s + (end - q->s) * j / 64
			                   : r->geom[j - 65].s;
			if (s < q->s || s > end)
				continue;
			double x, y, h, k, dt;
			odr_ref(r, s, &x, &y, &h, &k);
			for (int l = 0; l < q->n_lanes; l++) {
				double t = odr_boundary(r, i, l, s, &dt);
				if (1 - k * t > 1e-3)
					continue;
				vs_error_at(rd->err, rd->path, q->lanes[l].mark,
				            "road '%.64s': lane %d: its edge %g m "
				            "from the reference line passes the "
				            "centre of the curve (radius %g m) "
				            "at s=%g", r->id, q->lanes[l].id, t,
				            1 / fabs(k), s);
				return -1;
			}
		}
	}
	return 0;
}

static int read_lanes(reader *rd, const xmlNode *n, odr_road *r)
{
	int cap_off = 0, cap_sec = 0;
	for (const xmlNode *c = n->children; c; c = c->next) {
		if (is(c, "laneOffset")) {
			if (read_poly(rd, c, "s", &r->offset, &r->n_offset,
			              &cap_off))
				return -1;
		} else if (is(c, "laneSection")) {
			GROW(r->sec, r->n_sec, cap_sec);
			odr_section *q = &r->sec[r->n_sec++];
			if (read_section(rd, c, q))
				return -1;
			if (r->n_sec == 1 && fabs(q->s) > S_TOL(0))
				return fail(rd, c, "<laneSection>: s=%.12g: the "
				            "first lane section must start at s=0",
				            q->s);
			if (r->n_sec > 1 && !(q->s > q[-1].s))
				return fail(rd, c, "<laneSection>: s=%g does not "
				            "go forward from %g", q->s, q[-1].s);
			/* singleSide: the side left out would go on from
			 * the section before, which vsweep does not do;
			 * taken as it is, that side's lanes would end */
			int right = q->n_lanes - q->n_left;
			int prev_right = r->n_sec > 1 ? q[-1].n_lanes -
			                                        q[-1].n_left
			                              : 0;
			if (r->n_sec > 1 && q->single_side &&
			    ((!q->n_left && q[-1].n_left) ||
			     (!right && prev_right)))
				return fail(rd, c, "<laneSection s=\"%g\">: "
				            "singleSide=\"true\" without its "
				            "%s lanes is not supported (give "
				            "both sides in each lane section)",
				            q->s, q->n_left ? "right" : "left");
		}
	}
	return 0;
}

static int read_road(reader *rd, const xmlNode *n, odr_road *r)
{
	r->mark = mark_of(n);
	if (str_attr(rd, n, "id", &r->id) ||
	    num_attr(rd, n, "length", NAN, &r->length))
		return -1;
	char *j = attr(n, "junction"), *rule = attr(n, "rule");
	r->junction = vs_strdup(j ? j : "-1");
	int bad = rule && strcmp(rule, "RHT") && strcmp(rule, "LHT");
	r->lht = rule && strcmp(rule, "LHT") == 0;
	xmlFree(j);
	xmlFree(rule);
	if (bad)
		return fail(rd, n, "<road id=\"%.64s\">: rule must be RHT or "
		            "LHT", r->id);
	if (!(r->length > 0))
		return fail(rd, n, "<road id=\"%.64s\">: length=%g must be > 0",
		            r->id, r->length);
	int cap_g = 0, cap_e = 0, cap_s = 0, has_plan = 0, has_lanes = 0;
	for (const xmlNode *c = n->children; c; c = c->next) {
		if (is(c, "link")) {
			for (const xmlNode *e = c->children; e; e = e->next)
				if ((is(e, "predecessor") &&
				     read_link(rd, e, &r->pred)) ||
				    (is(e, "successor") &&
				     read_link(rd, e, &r->succ)))
					return -1;
		} else if (is(c, "planView")) {
			has_plan = 1;
			for (const xmlNode *g = c->children; g; g = g->next)
				if (is(g, "geometry") &&
				    read_geometry(rd, g, r, &cap_g))
					return -1;
		} else if (is(c, "elevationProfile")) {
			for (const xmlNode *e = c->children; e; e = e->next)
				if (is(e, "elevation") &&
				    read_poly(rd, e, "s", &r->elev, &r->n_elev,
				              &cap_e))
					return -1;
		} else if (is(c, "lateralProfile")) {
			for (const xmlNode *e = c->children; e; e = e->next) {
				if (is(e, "superelevation") &&
				    read_poly(rd, e, "s", &r->super,
				              &r->n_super, &cap_s))
					return -1;
				if (is(e, "crossfall") || is(e, "shape"))
					return fail(rd, e, "<%s>: not "
					            "supported (vsweep's surface "
					            "is flat across a road but "
					            "for superelevation)",
					            (const char *)e->name);
			}
		} else if (is(c, "lanes")) {
			if (has_lanes)
				return fail(rd, c, "<road id=\"%.64s\">: a "
				            "second <lanes> (a road has one)",
				            r->id);
			has_lanes = 1;
			if (read_lanes(rd, c, r))
				return -1;
		}
	}
	if (!has_plan || r->n_geom == 0)
		return fail(rd, n, "<road id=\"%.64s\">: no <planView> "
		            "geometry", r->id);
	if (!has_lanes || r->n_sec == 0)
		return fail(rd, n, "<road id=\"%.64s\">: no <laneSection>",
		            r->id);
	const odr_geom *last = &r->geom[r->n_geom - 1];
	if (fabs(last->s + last->len - r->length) > S_TOL(r->length))
		return fail(rd, n, "<road id=\"%.64s\">: length=%.12g but the "
		            "geometries end at s=%.12g (they may differ by "
		            "1e-6 (1 + length) m of rounding)", r->id,
		            r->length, last->s + last->len);
	if (r->sec[r->n_sec - 1].s >= r->length)
		return fail(rd, n, "<road id=\"%.64s\">: a laneSection starts "
		            "at or after the road's end", r->id);
	drop_past_end(r);
	return check_widths(rd, r) || check_folds(rd, r) ? -1 : 0;
}

static int read_junction(reader *rd, const xmlNode *n, odr_junction *j)
{
	j->mark = mark_of(n);
	if (str_attr(rd, n, "id", &j->id))
		return -1;
	int cap = 0;
	for (const xmlNode *c = n->children; c; c = c->next) {
		if (!is(c, "connection"))
			continue;
		GROW(j->conn, j->n_conn, cap);
		odr_connection *k = &j->conn[j->n_conn++];
		k->mark = mark_of(c);
		if (read_contact(rd, c, &k->has_contact, &k->contact_end) ||
		    str_attr(rd, c, "incomingRoad", &k->incoming) ||
		    str_attr(rd, c, "connectingRoad", &k->connecting))
			return -1;
		int lcap = 0;
		for (const xmlNode *l = c->children; l; l = l->next) {
			if (!is(l, "laneLink"))
				continue;
			int lc = lcap;
			GROW(k->from, k->n_links, lcap);
			lcap = lc;
			GROW(k->to, k->n_links, lcap);
			lcap = lc;
			GROW(k->link_marks, k->n_links, lcap);
			k->link_marks[k->n_links] = mark_of(l);
			if (int_attr(rd, l, "from", &k->from[k->n_links]) ||
			    int_attr(rd, l, "to", &k->to[k->n_links]))
				return -1;
			k->n_links++;
		}
	}
	return 0;
}

static int read_root(reader *rd, const xmlNode *root, odr_net *net)
{
	if (!root || !is(root, "OpenDRIVE"))
		return fail(rd, root ? root : (const xmlNode *)NULL,
		            "the root element is not <OpenDRIVE>");
	int has_header = 0, cap_r = 0, cap_j = 0;
	for (const xmlNode *c = root->children; c; c = c->next) {
		if (is(c, "header")) {
			double major;
			if (num_attr(rd, c, "revMajor", NAN, &major))
				return -1;
			if (major != 1)
				return fail(rd, c, "<header>: revMajor=%g; vsweep "
				            "reads OpenDRIVE 1.x", major);
			/* docs/scenario.md: 1.4 to 1.8 */
			double minor;
			if (num_attr(rd, c, "revMinor", NAN, &minor))
				return -1;
			if (minor != floor(minor) || minor < 4 || minor > 8)
				return fail(rd, c, "<header>: revMinor=%g; "
				            "vsweep reads OpenDRIVE 1.4 to 1.8",
				            minor);
			has_header = 1;
		} else if (is(c, "road")) {
			GROW(net->roads, net->n_roads, cap_r);
			if (read_road(rd, c, &net->roads[net->n_roads++]))
				return -1;
		} else if (is(c, "junction")) {
			GROW(net->junctions, net->n_junctions, cap_j);
			if (read_junction(rd, c,
			                  &net->junctions[net->n_junctions++]))
				return -1;
		}
	}
	if (!has_header)
		return fail(rd, root, "<OpenDRIVE>: no <header>");
	return odr_check_refs(rd, net);
}

/* libxml2 reports some errors (I/O ones) not to the parser context but
 * to its global handler, which prints them on stderr; the context's last
 * error is what odr_read says. */
static void quiet(void *ctx, xmlErrorPtr e)
{
	(void)ctx;
	(void)e;
}

odr_net *odr_read(const char *path, vs_error *err)
{
	reader rd = {path, err};
	FILE *probe = fopen(path, "rb"); /* libxml2 would print its own */
	if (!probe) {
		vs_error_set(err, "%s: cannot read the OpenDRIVE file: %s", path,
		             strerror(errno));
		return NULL;
	}
	/* a directory opens, and then reads as an empty document */
	struct stat sb;
	int dir = fstat(fileno(probe), &sb) == 0 && S_ISDIR(sb.st_mode);
	fclose(probe);
	if (dir) {
		vs_error_set(err, "%s: is a directory; opendrive: names a "
		             ".xodr file", path);
		return NULL;
	}
	/* Read whole, as a YAML file is, so that the 64 MiB limit holds
	 * for a pipe as for a file, before libxml2 sees a byte. */
	size_t len;
	char *text = vs_yaml_read_file(path, &len, err);
	if (!text)
		return NULL;
	/* The digest the results file keeps of the map (meta map_digest),
	 * of the very bytes parsed below. */
	char digest[VS_DIGEST_CHARS];
	vs_digest_bytes(text, len, digest);
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	if (!ctx) {
		free(text);
		vs_error_set(err, "%s: out of memory", path);
		return NULL;
	}
	vs_xml_guard guard;
	vs_xml_guard_install(ctx, &guard);
	xmlSetStructuredErrorFunc(NULL, quiet); /* this thread's */
	xmlDocPtr doc = xmlCtxtReadMemory(ctx, text, (int)len, path, NULL,
	                                  VS_XML_OPTIONS);
	xmlSetStructuredErrorFunc(NULL, NULL);
	free(text);
	if (guard.line) {
		vs_error_at(err, path, (vs_mark){guard.line, guard.col},
		            "entity declaration '%s': an OpenDRIVE file needs "
		            "no entities, and vsweep reads none", guard.name);
		xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctx);
		return NULL;
	}
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctx);
		if (e && e->line > 0) {
			char msg[512];
			snprintf(msg, sizeof msg, "%s", e->message);
			size_t l = strlen(msg);
			while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
				msg[--l] = 0;
			vs_mark m = {e->line, e->int2 > 0 ? e->int2 : 1};
			vs_error_at(err, path, m, "not well-formed XML: %s", msg);
		} else {
			vs_error_set(err, "%s: cannot read the OpenDRIVE file",
			             path);
		}
		xmlFreeParserCtxt(ctx);
		return NULL;
	}
	odr_net *net = vs_xcalloc(1, sizeof *net);
	net->path = vs_strdup(path);
	memcpy(net->digest, digest, sizeof net->digest);
	const xmlNode *root = xmlDocGetRootElement(doc);
	int rc = root ? read_root(&rd, root, net) : -1;
	if (!root)
		vs_error_set(err, "%s: empty XML document", path);
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctx);
	if (rc) {
		odr_free(net);
		return NULL;
	}
	return net;
}

static void free_link(odr_link *l)
{
	free(l->id);
}

void odr_free(odr_net *net)
{
	if (!net)
		return;
	for (int i = 0; i < net->n_roads; i++) {
		odr_road *r = &net->roads[i];
		for (int g = 0; g < r->n_geom; g++)
			free(r->geom[g].u_of_s);
		for (int s = 0; s < r->n_sec; s++) {
			for (int k = 0; k < r->sec[s].n_lanes; k++) {
				free(r->sec[s].lanes[k].type);
				free(r->sec[s].lanes[k].width);
				free(r->sec[s].lanes[k].height);
			}
			free(r->sec[s].lanes);
		}
		free(r->id);
		free(r->junction);
		free(r->geom);
		free(r->offset);
		free(r->elev);
		free(r->super);
		free(r->sec);
		free_link(&r->pred);
		free_link(&r->succ);
	}
	for (int i = 0; i < net->n_junctions; i++) {
		odr_junction *j = &net->junctions[i];
		for (int c = 0; c < j->n_conn; c++) {
			free(j->conn[c].incoming);
			free(j->conn[c].connecting);
			free(j->conn[c].from);
			free(j->conn[c].to);
			free(j->conn[c].link_marks);
		}
		free(j->conn);
		free(j->id);
	}
	free(net->junctions);
	free(net->roads);
	free(net->path);
	free(net);
}
