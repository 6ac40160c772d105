/* The YAML tree: structure and marks, input limits, typed getters. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaml/yamltree.h"

static vs_ydoc *parse(const char *text, vs_error *err)
{
	memset(err, 0, sizeof *err);
	return vs_ydoc_parse("t.yaml", text, strlen(text), err);
}

START_TEST(tree_shape_and_marks)
{
	vs_error err;
	vs_ydoc *d = parse("# c\nname: 'x'\nlist:\n  - 1\n  - {a: ~, b: \"\"}\n",
	                   &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *r = d->root;
	ck_assert_int_eq(r->kind, VS_Y_MAP);
	ck_assert_int_eq(r->n, 2);
	ck_assert_int_eq(r->mark.line, 2);
	ck_assert_int_eq(r->mark.col, 1);
	const vs_ynode *name = vs_ymap_get(r, "name");
	ck_assert_str_eq(name->str, "x");
	ck_assert_int_eq(name->plain, 0);
	ck_assert_int_eq(name->mark.line, 2);
	ck_assert_int_eq(name->mark.col, 7);
	const vs_ynode *list = vs_ymap_get(r, "list");
	ck_assert_int_eq(list->kind, VS_Y_SEQ);
	ck_assert_int_eq(list->n, 2);
	ck_assert_int_eq(list->kids[1]->kind, VS_Y_MAP);
	ck_assert_int_eq(list->kids[1]->mark.line, 5);
	ck_assert_int_eq(list->kids[1]->mark.col, 5);
	/* ~ is null; a quoted empty string is not */
	ck_assert(vs_y_is_null(vs_ymap_get(list->kids[1], "a")));
	ck_assert(!vs_y_is_null(vs_ymap_get(list->kids[1], "b")));
	ck_assert(vs_y_is_null(vs_ymap_get(r, "missing")));
	vs_ydoc_destroy(d);
}
END_TEST

START_TEST(empty_document)
{
	vs_error err;
	vs_ydoc *d = parse("# nothing\n", &err);
	ck_assert_msg(d, "%s", err.msg);
	ck_assert_ptr_null(d->root);
	vs_ydoc_destroy(d);
}
END_TEST

START_TEST(aliases_hold_the_anchored_values)
{
	vs_error err;
	vs_ydoc *d = parse("a: &p [1, 2, 3]\nb: *p\n", &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *b = vs_ymap_get(d->root, "b");
	ck_assert_int_eq(b->kind, VS_Y_SEQ);
	ck_assert_int_eq(b->n, 3);
	ck_assert_str_eq(b->kids[0]->str, "1");
	ck_assert_str_eq(b->kids[2]->str, "3");
	/* root + 2 keys + 2 * (list + 3 items) */
	ck_assert_uint_eq(d->root->size, 11);
	vs_ydoc_destroy(d);
}
END_TEST

/* A value reached through an alias is at the alias (2:4, the '*'), not
 * at the anchor (1:4, the '&'), and a getter's message says where it is
 * written. */
START_TEST(alias_is_marked_at_the_alias)
{
	vs_error err;
	vs_ydoc *d = parse("a: &v -5\nb: *v\n", &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *a = vs_ymap_get(d->root, "a");
	const vs_ynode *b = vs_ymap_get(d->root, "b");
	ck_assert_int_eq(a->mark.line, 1);
	ck_assert_int_eq(a->mark.col, 4);
	ck_assert_int_eq(b->mark.line, 2);
	ck_assert_int_eq(b->mark.col, 4);
	ck_assert_int_eq(b->from.line, 1);
	ck_assert_int_eq(b->from.col, 4);
	ck_assert_str_eq(b->str, "-5");
	ck_assert_int_eq(b->plain, 1);
	double v;
	ck_assert_int_eq(vs_y_number(d, b, "b", VS_Y_POSITIVE, &v, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:4: b must be > 0, got -5 "
	                          "(alias of the value at 1:4)");
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(vs_y_number(d, a, "a", VS_Y_POSITIVE, &v, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:1:4: a must be > 0, got -5");
	vs_ydoc_destroy(d);
}
END_TEST

/* Inside an aliased mapping every node is at the alias (2:6), each with
 * where it is written: speed's -1 at 1:18, the second row at 1:36. */
START_TEST(inside_an_alias_is_at_the_alias)
{
	vs_error err;
	vs_ydoc *d = parse("base: &b {speed: -1, pts: [[0, 0], [0, 0]]}\n"
	                   "use: *b\n", &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *use = vs_ymap_get(d->root, "use");
	const vs_ynode *speed = vs_ymap_get(use, "speed");
	ck_assert_int_eq(vs_ymap_key(use, 0)->mark.line, 2);
	ck_assert_int_eq(vs_ymap_key(use, 0)->from.col, 11);
	double v, *rows;
	int n;
	ck_assert_int_eq(vs_y_number(d, speed, "speed", VS_Y_POSITIVE, &v,
	                             &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:6: speed must be > 0, got -1 "
	                          "(alias of the value at 1:18)");
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(vs_y_rows(d, vs_ymap_get(use, "pts"), "pts", 2, 2,
	                           VS_Y_DISTINCT, &rows, &n, &err), -1);
	ck_assert_str_eq(err.msg, "t.yaml:2:6: pts: row 2 repeats row 1; "
	                          "consecutive rows must differ (alias of the "
	                          "value at 1:36)");
	vs_ydoc_destroy(d);
}
END_TEST

/* Through an alias of an alias, the value is still where it is written:
 * c's item is at c's alias (3:4) and written at 1:4, not at b's *a
 * (2:8). */
START_TEST(alias_of_an_alias)
{
	vs_error err;
	vs_ydoc *d = parse("a: &a 1\nb: &b [*a]\nc: *b\n", &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *b = vs_ymap_get(d->root, "b");
	const vs_ynode *c = vs_ymap_get(d->root, "c");
	ck_assert_int_eq(b->kids[0]->mark.line, 2);
	ck_assert_int_eq(b->kids[0]->mark.col, 8);
	ck_assert_int_eq(c->mark.line, 3);
	ck_assert_int_eq(c->mark.col, 4);
	ck_assert_int_eq(c->from.line, 2);
	ck_assert_int_eq(c->from.col, 4);
	ck_assert_int_eq(c->kids[0]->mark.line, 3);
	ck_assert_int_eq(c->kids[0]->mark.col, 4);
	ck_assert_int_eq(c->kids[0]->from.line, 1);
	ck_assert_int_eq(c->kids[0]->from.col, 4);
	ck_assert_str_eq(c->kids[0]->str, "1");
	vs_ydoc_destroy(d);
}
END_TEST

/* A key repeated through an alias is reported at the alias (2:11), the
 * second occurrence, not at the anchored x (1:4). */
START_TEST(duplicate_key_through_alias)
{
	vs_error err;
	vs_ydoc *d = parse("k: &k x\nm: {x: 1, *k : 2}\n", &err);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err.msg, "t.yaml:2:11: duplicate key 'x' (first at "
	                          "line 2) (alias of the value at 1:4)");
}
END_TEST

/* The copies aliases make are what the expansion limit counts, so the
 * tree stays within the document's own nodes plus the slack (1024). The
 * text spells out 105 nodes: the root, keys l and m, l's list and its
 * 100 items, m's list; each *l adds 101. Eleven (1111 <= 105 + 1024)
 * are held as exactly 105 + 1111 nodes; a twelfth (1212) is refused at
 * its own position. */
START_TEST(alias_copies_bounded)
{
	char text[2048];
	for (int k = 11; k <= 12; k++) {
		size_t n = (size_t)snprintf(text, sizeof text, "l: &l [");
		for (int i = 0; i < 100; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s%d",
			                      i ? ", " : "", i);
		n += (size_t)snprintf(text + n, sizeof text - n, "]\nm: [");
		for (int i = 0; i < k; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s*l",
			                      i ? ", " : "");
		snprintf(text + n, sizeof text - n, "]\n");
		vs_error err;
		vs_ydoc *d = parse(text, &err);
		if (k == 11) {
			ck_assert_msg(d, "%s", err.msg);
			ck_assert_uint_eq(d->n_nodes, 105 + 11 * 101);
			ck_assert_uint_eq(d->root->size, 105 + 11 * 101);
			vs_ydoc_destroy(d);
		} else {
			/* "m: [" then 11 of "*l, ": the twelfth at 5 + 44 */
			ck_assert_ptr_null(d);
			ck_assert_str_eq(err.msg, "t.yaml:2:49: aliases expand to "
			                 "more nodes than the document holds "
			                 "(1212 > 105 + 1024); refusing to expand");
		}
	}
}
END_TEST

/* The classic "billion laughs": 9 levels of 9 aliases, 9^9 nodes. */
START_TEST(billion_laughs_refused)
{
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text,
	                            "l0: &l0 [lol, lol, lol, lol, lol, lol, "
	                            "lol, lol, lol]\n");
	for (int i = 1; i < 10; i++) {
		n += (size_t)snprintf(text + n, sizeof text - n, "l%d: &l%d [", i,
		                      i);
		for (int k = 0; k < 9; k++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s*l%d",
			                      k ? ", " : "", i - 1);
		n += (size_t)snprintf(text + n, sizeof text - n, "]\n");
	}
	vs_error err;
	vs_ydoc *d = parse(text, &err);
	ck_assert_ptr_null(d);
	/* l3 is the first level whose expansion (9*9*9*10 + ...) is past
	 * the document's size plus the slack. */
	ck_assert_msg(strstr(err.msg, "t.yaml:4:") &&
	              strstr(err.msg, "aliases expand to more nodes"),
	              "%s", err.msg);
}
END_TEST

START_TEST(too_large_refused)
{
	size_t len = VS_YAML_MAX_BYTES + 1;
	char *big = malloc(len);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', len);
	vs_error err;
	memset(&err, 0, sizeof err);
	vs_ydoc *d = vs_ydoc_parse("big.yaml", big, len, &err);
	free(big);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err.msg, "big.yaml: larger than the 64 MiB limit");
}
END_TEST

START_TEST(nesting_64_ok)
{
	char text[200] = "";
	for (int i = 0; i < 64; i++)
		strcat(text, "[");
	for (int i = 0; i < 64; i++)
		strcat(text, "]");
	vs_error err;
	vs_ydoc *d = parse(text, &err);
	ck_assert_msg(d, "%s", err.msg);
	vs_ydoc_destroy(d);
}
END_TEST

START_TEST(read_file)
{
	char path[] = "/tmp/vs_yamltree_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "a: 1\n", 5), 5);
	close(fd);
	vs_error err = {{0}};
	size_t len = 0;
	char *text = vs_yaml_read_file(path, &len, &err);
	unlink(path);
	ck_assert_msg(text, "%s", err.msg);
	ck_assert_uint_eq(len, 5);
	ck_assert_str_eq(text, "a: 1\n");
	free(text);
	ck_assert_ptr_null(vs_yaml_read_file("/nonexistent/x.yaml", &len, &err));
	ck_assert_str_eq(err.msg,
	                 "/nonexistent/x.yaml: cannot open: No such file or "
	                 "directory");
}
END_TEST

/* ---- documents that must be refused, and where ------------------------ */

typedef struct bad_doc {
	const char *yaml;
	const char *msg; /* expected prefix of the error */
} bad_doc;

static const bad_doc bad_docs[] = {
	{"a: [1, 2\n", "t.yaml:2:1: did not find expected ',' or ']' (while "
	               "parsing a flow sequence that starts at 1:4)"},
	{"a: b\n  c: d\n", "t.yaml:2:4: mapping values are not allowed"},
	{"a: \"open\n", "t.yaml:2:1: found unexpected end of stream"},
	{"a: 1\n---\nb: 2\n",
	    "t.yaml:2:1: only one YAML document is allowed per file"},
	{"a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a' (first at line 1)"},
	{"x: {k: 1, k: 2}\n", "t.yaml:1:11: duplicate key 'k' (first at line 1)"},
	{"? [a]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars"},
	{"a: &m {x: 1}\n*m : 2\n", "t.yaml:2:1: mapping keys must be scalars"},
	{"a: *nope\n", "t.yaml:1:4: unknown anchor 'nope'"},
	{"a: &r [1, *r]\n", "t.yaml:1:11: unknown anchor 'r'"},
	{"a: \"x\\0y\"\n", "t.yaml:1:4: NUL character in a scalar"},
	{"a: b\nc: \xff\n", "t.yaml:2:4: invalid leading UTF-8 octet"},
	{"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	 "1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
	    "t.yaml:1:65: nesting deeper than 64 levels"},
};

START_TEST(bad_document)
{
	const bad_doc *c = &bad_docs[_i];
	vs_error err;
	vs_ydoc *d = parse(c->yaml, &err);
	ck_assert_msg(!d, "accepted:\n%s", c->yaml);
	ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
	              "input:\n%s\nwant: %s\ngot:  %s", c->yaml, c->msg, err.msg);
}
END_TEST

/* ---- typed getters, on the value of "v: ..." -------------------------- */

enum getter { NUMBER, INT, STRING, BOOL, VEC3, NUMBERS, ROWS };

typedef struct get_case {
	const char *value;  /* the text after "v: " */
	enum getter get;
	int flags;
	const char *msg;    /* expected error, or NULL */
	double want[4];     /* expected values (want[0] for scalars) */
	int count;          /* NUMBERS/ROWS: values (rows: rows) */
} get_case;

#define BAD(value, get, flags, msg) {value, get, flags, msg, {0}, 0}
#define GOOD(value, get, flags, count, ...) \
	{value, get, flags, NULL, {__VA_ARGS__}, count}

static const get_case get_cases[] = {
	GOOD("1.5", NUMBER, VS_Y_ANY, 1, 1.5),
	GOOD("30e3", NUMBER, VS_Y_ANY, 1, 30000),
	GOOD("-2", NUMBER, VS_Y_ANY, 1, -2),
	GOOD("0", NUMBER, VS_Y_NONNEG, 1, 0),
	BAD("1e999", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: 1e999 is not a finite number"),
	BAD(".nan", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: .nan is not a finite number"),
	BAD(".inf", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: .inf is not a finite number"),
	BAD("-.Inf", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: -.Inf is not a finite number"),
	BAD("nan", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: nan is not a finite number"),
	BAD("'1'", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: expected a number, got the string '1'"),
	BAD("1.5m", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: expected a number, got '1.5m'"),
	BAD("~", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: expected a number, got null"),
	BAD("[1]", NUMBER, VS_Y_ANY,
	    "t.yaml:1:4: v: expected a number, got a list"),
	BAD("0", NUMBER, VS_Y_POSITIVE, "t.yaml:1:4: v must be > 0, got 0"),
	BAD("-0.0", NUMBER, VS_Y_POSITIVE,
	    "t.yaml:1:4: v must be > 0, got -0.0"),
	BAD("-1", NUMBER, VS_Y_NONNEG, "t.yaml:1:4: v must be >= 0, got -1"),
	/* YAML's own number tags ask for a number; another tag a string */
	GOOD("!!float 2.5", NUMBER, 0, 1, 2.5),
	GOOD("!!int 5", NUMBER, 0, 1, 5),
	BAD("!!str 5", NUMBER, 0,
	    "t.yaml:1:4: v: expected a number, got the string '5'"),
	/* strtod's C spellings are no YAML number */
	BAD("0x1p3", NUMBER, 0, "t.yaml:1:4: v: expected a number, got '0x1p3'"),
	BAD("0x10", NUMBER, 0, "t.yaml:1:4: v: expected a number, got '0x10'"),
	/* below the smallest double: it would silently be 0 */
	BAD("1e-400", NUMBER, 0,
	    "t.yaml:1:4: v: 1e-400 is too small for a double (it would be 0)"),
	GOOD("1e-300", NUMBER, 0, 1, 1e-300),
	GOOD("42", INT, 0, 1, 42),
	GOOD("-7", INT, 0, 1, -7),
	BAD("3.5", INT, 0, "t.yaml:1:4: v: expected an integer, got '3.5'"),
	BAD("99999999999999999999", INT, 0,
	    "t.yaml:1:4: v: 99999999999999999999 is out of range"),
	BAD("\"7\"", INT, 0,
	    "t.yaml:1:4: v: expected an integer, got the string '7'"),
	GOOD("abc", STRING, 0, 1, 0),
	BAD("''", STRING, 0, "t.yaml:1:4: v must not be empty"),
	BAD("~", STRING, 0, "t.yaml:1:4: v: expected a string, got null"),
	BAD("{a: 1}", STRING, 0,
	    "t.yaml:1:4: v: expected a string, got a mapping"),
	GOOD("true", BOOL, 0, 1, 1),
	GOOD("False", BOOL, 0, 1, 0),
	BAD("yes", BOOL, 0, "t.yaml:1:4: v: expected true or false, got 'yes'"),
	GOOD("[1, 2, 3]", VEC3, 0, 3, 1, 2, 3),
	BAD("[1, 2]", VEC3, 0,
	    "t.yaml:1:4: v: expected a list of 3 numbers, got 2"),
	BAD("[1, x, 3]", VEC3, 0, "t.yaml:1:8: v: expected a number, got 'x'"),
	BAD("5", VEC3, 0,
	    "t.yaml:1:4: v: expected a list of 3 numbers, got '5'"),
	GOOD("7", NUMBERS, VS_Y_SCALAR_OK, 1, 7),
	GOOD("[1, 2]", NUMBERS, VS_Y_NONNEG, 2, 1, 2),
	BAD("7", NUMBERS, VS_Y_ANY,
	    "t.yaml:1:4: v: expected a non-empty list of numbers, got '7'"),
	BAD("[]", NUMBERS, VS_Y_SCALAR_OK,
	    "t.yaml:1:4: v: expected a number or a non-empty list of numbers, got "
	    "a list"),
	BAD("[1, -2]", NUMBERS, VS_Y_NONNEG,
	    "t.yaml:1:8: v must be >= 0, got -2"),
	GOOD("[[0, 0, 0], [1, 0, 0]]", ROWS, VS_Y_DISTINCT, 2, 0, 0, 0, 1),
	BAD("[[0, 0, 0]]", ROWS, 0,
	    "t.yaml:1:4: v: needs at least 2 rows, got 1"),
	BAD("[[0, 0, 0], [0, 0]]", ROWS, 0,
	    "t.yaml:1:16: v: expected a list of 3 numbers, got 2"),
	BAD("[[0, 0, 0], [-0.0, 0, 0]]", ROWS, VS_Y_DISTINCT,
	    "t.yaml:1:16: v: row 2 repeats row 1; consecutive rows must differ"),
	BAD("[[0, 0, 0], [1, 0, 0], [1, 0, 0]]", ROWS, VS_Y_DISTINCT,
	    "t.yaml:1:27: v: row 3 repeats row 2"),
	GOOD("[[1, 0, 0], [1, 0, 0]]", ROWS, 0, 2, 1, 0, 0, 1),
	BAD("{a: 1}", ROWS, 0,
	    "t.yaml:1:4: v: expected a list of [3 numbers] rows, got a mapping"),
};

START_TEST(getter)
{
	const get_case *c = &get_cases[_i];
	char text[256];
	snprintf(text, sizeof text, "v: %s\n", c->value);
	vs_error err;
	vs_ydoc *d = parse(text, &err);
	ck_assert_msg(d, "%s", err.msg);
	const vs_ynode *v = vs_ymap_get(d->root, "v");
	double x = 0, vec[3] = {0}, *list = NULL;
	int64_t i = 0;
	int b = 0, n = 0, rc = -1;
	const char *s = NULL;
	switch (c->get) {
	case NUMBER:
		rc = vs_y_number(d, v, "v", c->flags, &x, &err);
		break;
	case INT:
		rc = vs_y_int(d, v, "v", &i, &err);
		x = (double)i;
		break;
	case STRING:
		rc = vs_y_string(d, v, "v", &s, &err);
		break;
	case BOOL:
		rc = vs_y_bool(d, v, "v", &b, &err);
		x = b;
		break;
	case VEC3:
		rc = vs_y_vec(d, v, "v", 3, vec, &err);
		list = rc ? NULL : vec;
		n = 3;
		break;
	case NUMBERS:
		rc = vs_y_numbers(d, v, "v", c->flags, &list, &n, &err);
		break;
	case ROWS:
		rc = vs_y_rows(d, v, "v", 3, 2, c->flags, &list, &n, &err);
		break;
	}
	if (c->msg) {
		ck_assert_int_eq(rc, -1);
		ck_assert_msg(strncmp(err.msg, c->msg, strlen(c->msg)) == 0,
		              "value %s\nwant: %s\ngot:  %s", c->value, c->msg,
		              err.msg);
	} else {
		ck_assert_msg(rc == 0, "value %s: %s", c->value, err.msg);
		if (c->get == STRING)
			ck_assert_str_eq(s, c->value);
		else if (list)
			for (int k = 0; k < 4 && k < (c->get == ROWS ? 3 * n : n);
			     k++)
				ck_assert_double_eq(list[k], c->want[k]);
		else
			ck_assert_double_eq(x, c->want[0]);
		if (c->get == NUMBERS || c->get == ROWS)
			ck_assert_int_eq(n, c->count);
	}
	if (list != vec)
		free(list);
	vs_ydoc_destroy(d);
}
END_TEST

START_TEST(check_keys)
{
	static const char *const allowed[] = {"a", "b", NULL};
	vs_error err;
	vs_ydoc *d = parse("a: 1\nc: 2\n", &err);
	ck_assert_int_eq(vs_y_check_keys(d, d->root, "thing", allowed, &err), -1);
	ck_assert_str_eq(err.msg,
	                 "t.yaml:2:1: unknown key 'c' in thing; allowed: a, b");
	vs_ydoc_destroy(d);
}
END_TEST

/* A misspelt key is answered with the key it most likely meant: one
 * letter doubled, two swapped, one wrong; a key unlike any gets none. */
START_TEST(check_keys_did_you_mean)
{
	static const char *const allowed[] = {"vsweep", "step", "duration",
	                                      "waypoints", NULL};
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"stepp: 1\n", "t.yaml:1:1: unknown key 'stepp' in scenario; "
		                "did you mean 'step'? allowed: vsweep, step, "
		                "duration, waypoints"},
		{"duartion: 1\n", "t.yaml:1:1: unknown key 'duartion' in "
		                   "scenario; did you mean 'duration'? allowed: "
		                   "vsweep, step, duration, waypoints"},
		{"waypiont: 1\n", "t.yaml:1:1: unknown key 'waypiont' in "
		                   "scenario; did you mean 'waypoints'? allowed: "
		                   "vsweep, step, duration, waypoints"},
		{"colour: 1\n", "t.yaml:1:1: unknown key 'colour' in scenario; "
		                 "allowed: vsweep, step, duration, waypoints"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		vs_error err;
		vs_ydoc *d = parse(cases[i].text, &err);
		ck_assert_int_eq(vs_y_check_keys(d, d->root, "scenario", allowed,
		                                 &err), -1);
		ck_assert_str_eq(err.msg, cases[i].want);
		vs_ydoc_destroy(d);
	}
}
END_TEST

static Suite *yamltree_suite(void)
{
	Suite *s = suite_create("yamltree");
	TCase *tc = tcase_create("tree");
	tcase_add_test(tc, tree_shape_and_marks);
	tcase_add_test(tc, empty_document);
	tcase_add_test(tc, aliases_hold_the_anchored_values);
	tcase_add_test(tc, alias_is_marked_at_the_alias);
	tcase_add_test(tc, inside_an_alias_is_at_the_alias);
	tcase_add_test(tc, alias_of_an_alias);
	tcase_add_test(tc, duplicate_key_through_alias);
	tcase_add_test(tc, alias_copies_bounded);
	tcase_add_test(tc, billion_laughs_refused);
	tcase_add_test(tc, too_large_refused);
	tcase_add_test(tc, nesting_64_ok);
	tcase_add_test(tc, read_file);
	tcase_add_loop_test(tc, bad_document, 0,
	                    sizeof bad_docs / sizeof bad_docs[0]);
	suite_add_tcase(s, tc);
	tc = tcase_create("getters");
	tcase_add_loop_test(tc, getter, 0, sizeof get_cases / sizeof get_cases[0]);
	tcase_add_test(tc, check_keys);
	tcase_add_test(tc, check_keys_did_you_mean);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(yamltree_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
