/* libyaml events -> vs_ynode tree, with the input limits checked as events
 * arrive so that a hostile file fails at the first node past a limit. */
#include "yaml/yamltree.h"

#include "common/suggest.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Aliases may add this many nodes beyond the document's own count before
 * the document is refused; the slack lets a small file reuse an anchor a
 * few times, while a "billion laughs" file still fails after a few
 * hundred nodes. Each added node is a copy (so that it can carry its
 * alias's position), made once the count allows it: the tree holds at
 * most twice the document's own nodes plus this. */
#define ALIAS_SLACK 1024

typedef struct anchor {
	char *name;
	vs_ynode *node;
} anchor;

typedef struct frame {
	vs_ynode *node;
	int cap;      /* allocated kids */
	int nk;       /* kids so far (keys and values for a mapping) */
	char *anchor; /* registered when the node ends, so no cycles */
} frame;

typedef struct builder {
	vs_ydoc *doc;
	const char *text;
	size_t len;
	vs_error *err;
	frame stack[VS_YAML_MAX_DEPTH];
	int depth;
	int docs;
	uint64_t own;      /* nodes the text spells out */
	uint64_t expanded; /* nodes aliases add */
	anchor *anchors;   /* open-addressing hash table */
	size_t n_anchors, cap_anchors;
} builder;

static vs_mark mark_of(yaml_mark_t m)
{
	vs_mark k;
	k.line = m.line < INT_MAX ? (int)m.line + 1 : INT_MAX;
	k.col = m.column < INT_MAX ? (int)m.column + 1 : INT_MAX;
	return k;
}

/* ---- anchors ---------------------------------------------------------- */

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static anchor *anchor_slot(anchor *tab, size_t cap, const char *name)
{
	size_t i = hash_str(name) & (cap - 1);
	while (tab[i].name && strcmp(tab[i].name, name) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void anchor_put(builder *b, char *name, vs_ynode *node)
{
	if (2 * (b->n_anchors + 1) > b->cap_anchors) {
		size_t cap = b->cap_anchors ? 2 * b->cap_anchors : 64;
		anchor *tab = vs_xcalloc(cap, sizeof *tab);
		for (size_t i = 0; i < b->cap_anchors; i++)
			if (b->anchors[i].name)
				*anchor_slot(tab, cap, b->anchors[i].name) =
					b->anchors[i];
		free(b->anchors);
		b->anchors = tab;
		b->cap_anchors = cap;
	}
	anchor *a = anchor_slot(b->anchors, b->cap_anchors, name);
	if (a->name) { /* redefined: later aliases mean the new node */
		free(name);
	} else {
		a->name = name;
		b->n_anchors++;
	}
	a->node = node;
}

static vs_ynode *anchor_get(const builder *b, const char *name)
{
	if (!b->cap_anchors)
		return NULL;
	return anchor_slot(b->anchors, b->cap_anchors, name)->node;
}

/* ---- building --------------------------------------------------------- */

static vs_ynode *alloc_node(vs_ydoc *d)
{
	if (d->n_nodes == d->cap_nodes) {
		d->cap_nodes = d->cap_nodes ? 2 * d->cap_nodes : 64;
		d->nodes = vs_xrealloc(d->nodes, d->cap_nodes * sizeof *d->nodes);
	}
	vs_ynode *n = vs_xcalloc(1, sizeof *n);
	d->nodes[d->n_nodes++] = n;
	return n;
}

/* A node the text spells out. */
static vs_ynode *new_node(builder *b, vs_ykind kind, vs_mark mark)
{
	vs_ynode *n = alloc_node(b->doc);
	n->kind = kind;
	n->mark = mark;
	n->size = 1;
	b->own++;
	return n;
}

/* src as seen through an alias at at: marked there, with where src is
 * written (its own from, when src is itself a copy) as the origin. */
static vs_ynode *copy_node(builder *b, const vs_ynode *src, vs_mark at)
{
	vs_ynode *n = alloc_node(b->doc);
	*n = *src;
	n->kids = NULL;
	n->copy = 1;
	n->mark = at;
	n->from = src->copy ? src->from : src->mark;
	return n;
}

/* The alias's own copy of the anchored subtree src, src->size nodes,
 * which the caller has counted against the expansion limit. Iterative:
 * through chains of aliases a subtree may be deeper than the nesting
 * limit. */
static vs_ynode *copy_tree(builder *b, const vs_ynode *src, vs_mark at)
{
	typedef struct pair {
		vs_ynode *to;
		const vs_ynode *from;
	} pair;
	size_t n = 0, cap = 16;
	pair *todo = vs_xcalloc(cap, sizeof *todo);
	vs_ynode *top = copy_node(b, src, at);
	todo[n++] = (pair){top, src};
	while (n) {
		pair p = todo[--n];
		int nk = p.from->kind == VS_Y_MAP   ? 2 * p.from->n
		         : p.from->kind == VS_Y_SEQ ? p.from->n
		                                    : 0;
		if (!nk)
			continue;
		p.to->kids = vs_xcalloc((size_t)nk, sizeof *p.to->kids);
		if (cap - n < (size_t)nk) {
			while (cap - n < (size_t)nk)
				cap *= 2;
			todo = vs_xrealloc(todo, cap * sizeof *todo);
		}
		for (int i = 0; i < nk; i++) {
			p.to->kids[i] = copy_node(b, p.from->kids[i], at);
			todo[n++] = (pair){p.to->kids[i], p.from->kids[i]};
		}
	}
	free(todo);
	return top;
}

/* Hangs node under the open container (or makes it the root). */
static int attach(builder *b, vs_ynode *node, vs_mark mark)
{
	if (b->depth == 0) {
		b->doc->root = node;
		return 0;
	}
	frame *f = &b->stack[b->depth - 1];
	if (f->node->kind == VS_Y_MAP && f->nk % 2 == 0 &&
	    node->kind != VS_Y_SCALAR) {
		vs_error_at(b->err, b->doc->path, mark,
		            "mapping keys must be scalars");
		return -1;
	}
	if (f->nk == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4;
		f->node->kids = vs_xrealloc(f->node->kids,
		                            (size_t)f->cap * sizeof *f->node->kids);
	}
	f->node->kids[f->nk++] = node;
	return 0;
}

/* vs_error_at at n (no position for a missing node); a value reached
 * through an alias is reported at the alias, and where the value is
 * written is added, since that is the text to change. */
static void node_error(vs_error *err, const vs_ydoc *doc, const vs_ynode *n,
                       const char *fmt, ...) VS_PRINTF(4, 5);
static void node_error(vs_error *err, const vs_ydoc *doc, const vs_ynode *n,
                       const char *fmt, ...)
{
	char msg[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n && n->copy)
		vs_error_at(err, doc->path, n->mark,
		            "%s (alias of the value at %d:%d)", msg, n->from.line,
		            n->from.col);
	else
		vs_error_at(err, doc->path, n ? n->mark : (vs_mark){0, 0},
		            "%s", msg);
}

typedef struct key_ref {
	const char *s;
	int i;
} key_ref;

static int key_cmp(const void *pa, const void *pb)
{
	const key_ref *a = pa, *b = pb;
	int c = strcmp(a->s, b->s);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* YAML requires unique keys, libyaml does not check; sorting keeps a huge
 * mapping at n log n. */
static int check_duplicates(builder *b, const vs_ynode *map)
{
	if (map->n < 2)
		return 0;
	key_ref *k = vs_xcalloc((size_t)map->n, sizeof *k);
	for (int i = 0; i < map->n; i++)
		k[i] = (key_ref){vs_ymap_key(map, i)->str, i};
	qsort(k, (size_t)map->n, sizeof *k, key_cmp);
	int rc = 0;
	for (int i = 1; i < map->n && !rc; i++) {
		if (strcmp(k[i - 1].s, k[i].s) != 0)
			continue;
		const vs_ynode *first = vs_ymap_key(map, k[i - 1].i);
		node_error(b->err, b->doc, vs_ymap_key(map, k[i].i),
		           "duplicate key '%s' (first at line %d)", k[i].s,
		           first->mark.line);
		rc = -1;
	}
	free(k);
	return rc;
}

static int on_start(builder *b, vs_ykind kind, yaml_mark_t ym,
                    const yaml_char_t *anchor_name)
{
	vs_mark mark = mark_of(ym);
	if (b->depth == VS_YAML_MAX_DEPTH) {
		vs_error_at(b->err, b->doc->path, mark,
		            "nesting deeper than %d levels", VS_YAML_MAX_DEPTH);
		return -1;
	}
	vs_ynode *n = new_node(b, kind, mark);
	if (attach(b, n, mark))
		return -1;
	frame *f = &b->stack[b->depth++];
	*f = (frame){n, 0, 0, NULL};
	if (anchor_name)
		f->anchor = vs_strdup((const char *)anchor_name);
	return 0;
}

static int on_end(builder *b)
{
	frame *f = &b->stack[--b->depth];
	vs_ynode *n = f->node;
	n->n = n->kind == VS_Y_MAP ? f->nk / 2 : f->nk;
	for (int i = 0; i < f->nk; i++)
		n->size += n->kids[i]->size;
	if (f->anchor)
		anchor_put(b, f->anchor, n);
	f->anchor = NULL;
	return n->kind == VS_Y_MAP ? check_duplicates(b, n) : 0;
}

static int on_scalar(builder *b, const yaml_event_t *ev)
{
	vs_mark mark = mark_of(ev->start_mark);
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	if (memchr(v, 0, len)) {
		vs_error_at(b->err, b->doc->path, mark,
		            "NUL character in a scalar");
		return -1;
	}
	vs_ynode *n = new_node(b, VS_Y_SCALAR, mark);
	n->str = vs_strdup(v);
	/* YAML's own number tags (!!int 5, !!float 2) ask for what an
	 * untagged plain scalar may be; any other tag makes it a string */
	const char *tag = (const char *)ev->data.scalar.tag;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	           (!tag || !strcmp(tag, "tag:yaml.org,2002:int") ||
	            !strcmp(tag, "tag:yaml.org,2002:float"));
	if (ev->data.scalar.anchor)
		anchor_put(b, vs_strdup((const char *)ev->data.scalar.anchor), n);
	return attach(b, n, mark);
}

static int on_alias(builder *b, const yaml_event_t *ev)
{
	vs_mark mark = mark_of(ev->start_mark);
	const char *name = (const char *)ev->data.alias.anchor;
	vs_ynode *n = anchor_get(b, name);
	if (!n) {
		vs_error_at(b->err, b->doc->path, mark,
		            "unknown anchor '%s' (an alias must follow its "
		            "complete anchored node)", name);
		return -1;
	}
	b->expanded += n->size;
	if (b->expanded > b->own + ALIAS_SLACK) {
		vs_error_at(b->err, b->doc->path, mark,
		            "aliases expand to more nodes than the document "
		            "holds (%llu > %llu + %d); refusing to expand",
		            (unsigned long long)b->expanded,
		            (unsigned long long)b->own, ALIAS_SLACK);
		return -1;
	}
	/* a copy, not the shared node, so that messages name the alias */
	return attach(b, copy_tree(b, n, mark), mark);
}

/* The position of a byte offset, for reader errors (bad UTF-8), which
 * libyaml reports by offset only. */
static vs_mark mark_at_offset(const char *text, size_t len, size_t off)
{
	vs_mark m = {1, 1};
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			m.col++;
		}
	}
	return m;
}

static void syntax_error(builder *b, const yaml_parser_t *p)
{
	const char *path = b->doc->path;
	const char *problem = p->problem ? p->problem : "unknown problem";
	switch (p->error) {
	case YAML_READER_ERROR:
		vs_error_at(b->err, path,
		            mark_at_offset(b->text, b->len, p->problem_offset),
		            "%s", problem);
		break;
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
		if (p->context)
			vs_error_at(b->err, path, mark_of(p->problem_mark),
			            "%s (%s that starts at %d:%d)", problem,
			            p->context, mark_of(p->context_mark).line,
			            mark_of(p->context_mark).col);
		else
			vs_error_at(b->err, path, mark_of(p->problem_mark), "%s",
			            problem);
		break;
	default:
		vs_error_at(b->err, path, (vs_mark){0, 0},
		            "cannot read YAML: %s", problem);
		break;
	}
}

static int on_event(builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++) {
			vs_error_at(b->err, b->doc->path, mark_of(ev->start_mark),
			            "only one YAML document is allowed per file");
			return -1;
		}
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, VS_Y_SEQ, ev->start_mark,
		                ev->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, VS_Y_MAP, ev->start_mark,
		                ev->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(b);
	default:
		return 0;
	}
}

vs_ydoc *vs_ydoc_parse(const char *path, const char *text, size_t len,
                       vs_error *err)
{
	vs_ydoc *doc = vs_xcalloc(1, sizeof *doc);
	doc->path = vs_strdup(path ? path : "<input>");
	if (len > VS_YAML_MAX_BYTES) {
		vs_error_at(err, doc->path, (vs_mark){0, 0},
		            "larger than the %zu MiB limit",
		            VS_YAML_MAX_BYTES >> 20);
		vs_ydoc_destroy(doc);
		return NULL;
	}
	builder b = {.doc = doc, .text = text, .len = len, .err = err};
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		fputs("vsweep: out of memory\n", vs_own_stderr());
		abort();
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = 0, done = 0;
	while (!done && !rc) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			syntax_error(&b, &parser);
			rc = -1;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	while (b.depth > 0)
		free(b.stack[--b.depth].anchor);
	for (size_t i = 0; i < b.cap_anchors; i++)
		free(b.anchors[i].name);
	free(b.anchors);
	if (rc) {
		vs_ydoc_destroy(doc);
		return NULL;
	}
	return doc;
}

void vs_ydoc_destroy(vs_ydoc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->n_nodes; i++) {
		if (!doc->nodes[i]->copy)
			free(doc->nodes[i]->str);
		free(doc->nodes[i]->kids);
		free(doc->nodes[i]);
	}
	free(doc->nodes);
	free(doc->path);
	free(doc);
}

char *vs_yaml_read_file(const char *path, size_t *len, vs_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		vs_error_at(err, path, (vs_mark){0, 0}, "cannot open: %s",
		            strerror(errno));
		return NULL;
	}
	size_t n = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = vs_xrealloc(buf, cap + 1);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n > VS_YAML_MAX_BYTES) {
			vs_error_at(err, path, (vs_mark){0, 0},
			            "larger than the %zu MiB limit",
			            VS_YAML_MAX_BYTES >> 20);
			goto fail;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		vs_error_at(err, path, (vs_mark){0, 0}, "cannot read: %s",
		            strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

/* ---- getters ---------------------------------------------------------- */

const vs_ynode *vs_ymap_get(const vs_ynode *map, const char *key)
{
	if (!map || map->kind != VS_Y_MAP)
		return NULL;
	for (int i = 0; i < map->n; i++)
		if (strcmp(vs_ymap_key(map, i)->str, key) == 0)
			return vs_ymap_value(map, i);
	return NULL;
}

int vs_y_is_null(const vs_ynode *n)
{
	if (!n)
		return 1;
	if (n->kind != VS_Y_SCALAR || !n->plain)
		return 0;
	const char *s = n->str;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

const char *vs_y_describe(const vs_ynode *n, char *buf, size_t size)
{
	if (!n)
		snprintf(buf, size, "nothing");
	else if (n->kind == VS_Y_MAP)
		snprintf(buf, size, "a mapping");
	else if (n->kind == VS_Y_SEQ)
		snprintf(buf, size, "a list");
	else if (vs_y_is_null(n))
		snprintf(buf, size, "null");
	else
		snprintf(buf, size, "%s'%.40s%s'", n->plain ? "" : "the string ",
		         n->str, strlen(n->str) > 40 ? "..." : "");
	return buf;
}

/* "WHAT: expected WANT, got DESCRIPTION" at n. */
static int expected(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                    const char *want, vs_error *err)
{
	char got[64];
	node_error(err, doc, n, "%s: expected %s, got %s",
	           what, want, vs_y_describe(n, got, sizeof got));
	return -1;
}

int vs_y_map(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             vs_error *err)
{
	return n && n->kind == VS_Y_MAP ? 0
	                                : expected(doc, n, what, "a mapping", err);
}

int vs_y_seq(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             vs_error *err)
{
	return n && n->kind == VS_Y_SEQ ? 0
	                                : expected(doc, n, what, "a list", err);
}

int vs_y_nonempty_seq(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                      const char *item, vs_error *err)
{
	if (vs_y_seq(doc, n, what, err))
		return -1;
	if (n->n == 0) {
		node_error(err, doc, n, "%s: needs at least one %s",
		           what, item);
		return -1;
	}
	return 0;
}

void vs_y_join(char *buf, size_t size, const char *item)
{
	size_t used = strlen(buf);
	if (used + 1 < size)
		snprintf(buf + used, size - used, "%s%s", used ? ", " : "", item);
}

int vs_y_version(const vs_ydoc *doc, const char *what, vs_error *err)
{
	const vs_ynode *root = doc->root;
	int64_t v;
	if (vs_y_is_null(root)) {
		vs_error_at(err, doc->path, (vs_mark){0, 0},
		            "empty file; a %s starts with 'vsweep: 1'", what);
		return -1;
	}
	if (vs_y_map(doc, root, what, err))
		return -1;
	const vs_ynode *n = vs_ymap_get(root, "vsweep");
	if (!n) {
		node_error(err, doc, root,
		           "%s: missing required key 'vsweep'", what);
		return -1;
	}
	if (vs_y_int(doc, n, "vsweep", &v, err))
		return -1;
	if (v != 1) {
		node_error(err, doc, n,
		           "vsweep: format version %s is not supported (this "
		           "vsweep reads version 1)", n->str);
		return -1;
	}
	return 0;
}

int vs_y_check_keys(const vs_ydoc *doc, const vs_ynode *map, const char *what,
                    const char *const *allowed, vs_error *err)
{
	if (vs_y_map(doc, map, what, err))
		return -1;
	for (int i = 0; i < map->n; i++) {
		const vs_ynode *k = vs_ymap_key(map, i);
		int j = 0;
		while (allowed[j] && strcmp(allowed[j], k->str) != 0)
			j++;
		if (allowed[j])
			continue;
		char list[512] = "";
		for (j = 0; allowed[j]; j++)
			vs_y_join(list, sizeof list, allowed[j]);
		const char *near = vs_did_you_mean(k->str, allowed, -1);
		if (near)
			node_error(err, doc, k,
			           "unknown key '%s' in %s; did you mean '%s'? "
			           "allowed: %s", k->str, what, near, list);
		else
			node_error(err, doc, k,
			           "unknown key '%s' in %s; allowed: %s", k->str,
			           what, list);
		return -1;
	}
	return 0;
}

static int check_sign(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                      int flags, double v, vs_error *err)
{
	if ((flags & VS_Y_SIGN) == VS_Y_POSITIVE && !(v > 0)) {
		node_error(err, doc, n, "%s must be > 0, got %s",
		           what, n->str);
		return -1;
	}
	if ((flags & VS_Y_SIGN) == VS_Y_NONNEG && v < 0) {
		node_error(err, doc, n, "%s must be >= 0, got %s",
		           what, n->str);
		return -1;
	}
	return 0;
}

/* YAML's spellings of infinity and NaN, which strtod does not know. */
static int yaml_special_float(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	return !strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF") ||
	       !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN");
}

int vs_y_number(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                int flags, double *out, vs_error *err)
{
	if (!n || n->kind != VS_Y_SCALAR || !n->plain || vs_y_is_null(n))
		return expected(doc, n, what, "a number", err);
	char *end;
	errno = 0;
	double v = strtod(n->str, &end);
	if (yaml_special_float(n->str) || (end != n->str && !*end &&
	                                   !isfinite(v))) {
		node_error(err, doc, n,
		           "%s: %s is not a finite number", what, n->str);
		return -1;
	}
	/* strtod's C spellings that are no YAML number: hexadecimal
	 * (0x10, 0x1p3), inf, nan */
	if (end == n->str || *end || strpbrk(n->str, "xXiInN"))
		return expected(doc, n, what, "a number", err);
	if (errno == ERANGE && v == 0) {
		node_error(err, doc, n, "%s: %s is too small for "
		           "a double (it would be 0)", what, n->str);
		return -1;
	}
	if (check_sign(doc, n, what, flags, v, err))
		return -1;
	*out = v;
	return 0;
}

int vs_y_int(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             int64_t *out, vs_error *err)
{
	if (!n || n->kind != VS_Y_SCALAR || !n->plain || vs_y_is_null(n))
		return expected(doc, n, what, "an integer", err);
	char *end;
	errno = 0;
	long long v = strtoll(n->str, &end, 10);
	if (end == n->str || *end)
		return expected(doc, n, what, "an integer", err);
	if (errno == ERANGE) { /* long long is int64_t on every target */
		node_error(err, doc, n, "%s: %s is out of range",
		           what, n->str);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

int vs_y_u64(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             uint64_t *out, vs_error *err)
{
	int64_t neg;
	/* strtoull would take "-1" as 2^64 - 1: a sign is read as int64_t,
	 * where only -0 is not below 0 */
	if (n && n->kind == VS_Y_SCALAR && n->plain && n->str[0] == '-') {
		if (vs_y_int(doc, n, what, &neg, err))
			return -1;
		if (neg < 0) {
			vs_error_at(err, doc->path, n->mark,
			            "%s must be >= 0, got %s", what, n->str);
			return -1;
		}
		*out = 0;
		return 0;
	}
	if (!n || n->kind != VS_Y_SCALAR || !n->plain || vs_y_is_null(n))
		return expected(doc, n, what, "an integer", err);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(n->str, &end, 10);
	if (end == n->str || *end)
		return expected(doc, n, what, "an integer", err);
	/* unsigned long long is uint64_t on every target, as for vs_y_int */
	if (errno == ERANGE) {
		vs_error_at(err, doc->path, n->mark, "%s: %s is out of range "
		            "(0 to %" PRIu64 ")", what, n->str, UINT64_MAX);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

int vs_y_string(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                const char **out, vs_error *err)
{
	if (!n || n->kind != VS_Y_SCALAR || vs_y_is_null(n))
		return expected(doc, n, what, "a string", err);
	if (!*n->str) {
		node_error(err, doc, n, "%s must not be empty", what);
		return -1;
	}
	*out = n->str;
	return 0;
}

int vs_y_bool(const vs_ydoc *doc, const vs_ynode *n, const char *what,
              int *out, vs_error *err)
{
	static const char *const t[] = {"true", "True", "TRUE"};
	static const char *const f[] = {"false", "False", "FALSE"};
	if (n && n->kind == VS_Y_SCALAR && n->plain) {
		for (int i = 0; i < 3; i++) {
			if (!strcmp(n->str, t[i]) || !strcmp(n->str, f[i])) {
				*out = !strcmp(n->str, t[i]);
				return 0;
			}
		}
	}
	return expected(doc, n, what, "true or false", err);
}

int vs_y_vec(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             int len, double *out, vs_error *err)
{
	if (!n || n->kind != VS_Y_SEQ || n->n != len) {
		char want[48];
		snprintf(want, sizeof want, "a list of %d numbers", len);
		if (n && n->kind == VS_Y_SEQ) {
			node_error(err, doc, n,
			           "%s: expected %s, got %d", what, want, n->n);
			return -1;
		}
		return expected(doc, n, what, want, err);
	}
	for (int i = 0; i < len; i++)
		if (vs_y_number(doc, n->kids[i], what, VS_Y_ANY, &out[i], err))
			return -1;
	return 0;
}

int vs_y_numbers(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                 int flags, double **out, int *count, vs_error *err)
{
	*out = NULL;
	*count = 0;
	if (n && n->kind == VS_Y_SCALAR && (flags & VS_Y_SCALAR_OK)) {
		double v;
		if (vs_y_number(doc, n, what, flags, &v, err))
			return -1;
		*out = vs_xcalloc(1, sizeof **out);
		**out = v;
		*count = 1;
		return 0;
	}
	if (!n || n->kind != VS_Y_SEQ || n->n == 0)
		return expected(doc, n, what,
		                flags & VS_Y_SCALAR_OK
		                    ? "a number or a non-empty list of numbers"
		                    : "a non-empty list of numbers", err);
	double *v = vs_xcalloc((size_t)n->n, sizeof *v);
	for (int i = 0; i < n->n; i++) {
		if (vs_y_number(doc, n->kids[i], what, flags, &v[i], err)) {
			free(v);
			return -1;
		}
	}
	*out = v;
	*count = n->n;
	return 0;
}

static int rows_equal(const double *a, const double *b, int cols)
{
	for (int c = 0; c < cols; c++)
		if (a[c] != b[c])
			return 0;
	return 1;
}

int vs_y_rows(const vs_ydoc *doc, const vs_ynode *n, const char *what,
              int cols, int min_rows, int flags, double **out, int *rows,
              vs_error *err)
{
	*out = NULL;
	*rows = 0;
	if (!n || n->kind != VS_Y_SEQ) {
		char want[64];
		snprintf(want, sizeof want, "a list of [%d numbers] rows", cols);
		return expected(doc, n, what, want, err);
	}
	if (n->n < min_rows) {
		node_error(err, doc, n,
		           "%s: needs at least %d rows, got %d", what, min_rows,
		           n->n);
		return -1;
	}
	double *v = vs_xcalloc((size_t)n->n * (size_t)cols, sizeof *v);
	for (int r = 0; r < n->n; r++) {
		double *row = v + (size_t)r * (size_t)cols;
		if (vs_y_vec(doc, n->kids[r], what, cols, row, err))
			goto fail;
		for (int c = 0; c < cols; c++)
			if (check_sign(doc, n->kids[r]->kids[c], what, flags,
			               row[c], err))
				goto fail;
		if ((flags & VS_Y_DISTINCT) && r > 0 &&
		    rows_equal(row - cols, row, cols)) {
			node_error(err, doc, n->kids[r],
			           "%s: row %d repeats row %d; consecutive rows "
			           "must differ", what, r + 1, r);
			goto fail;
		}
	}
	*out = v;
	*rows = n->n;
	return 0;
fail:
	free(v);
	return -1;
}
