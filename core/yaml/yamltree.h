/* A small YAML document tree on top of libyaml, with the input limits of
 * docs/scenario.md and docs/sweep.md checked while reading, and typed
 * getters that report "FILE:LINE:COL: message" at the offending node.
 *
 * The tree is read-only once built. An alias becomes a copy of the
 * anchored subtree whose nodes are marked at the alias, with where each
 * value is written in from: a message about a value reached through an
 * alias names the alias. The copies share the
 * anchored scalars' text and count against the alias expansion limit, so
 * they are at most the document's own node count (plus a small slack).
 * Every node belongs to its vs_ydoc and lives until vs_ydoc_destroy.
 *
 * Its own folder, below input/ and map/, so that both read YAML without
 * including each other; it includes only common/. */
#ifndef VS_YAMLTREE_H
#define VS_YAMLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define VS_YAML_MAX_DEPTH 64                        /* nesting levels */
#define VS_YAML_MAX_BYTES ((size_t)64 * 1024 * 1024) /* per file */

typedef enum vs_ykind {
	VS_Y_SCALAR = 1,
	VS_Y_SEQ = 2,
	VS_Y_MAP = 3
} vs_ykind;

typedef struct vs_ynode vs_ynode;
struct vs_ynode {
	vs_ykind kind;
	vs_mark mark;     /* where the node starts, 1-based; for a copy made
	                     for an alias, the alias */
	int plain;        /* scalar: unquoted and untagged, so it may be a
	                     number, a bool or null */
	char *str;        /* scalar: the text, NUL-terminated */
	int n;            /* seq: items; map: key/value pairs */
	vs_ynode **kids;  /* seq: items; map: key0, value0, key1, value1, ... */
	uint64_t size;    /* nodes in this subtree with aliases expanded */
	int copy;         /* made for an alias: str is the original's */
	vs_mark from;     /* copy: where the value is written */
};

typedef struct vs_ydoc {
	char *path;       /* for messages */
	vs_ynode *root;   /* NULL: the file holds no document */
	size_t n_nodes, cap_nodes;
	vs_ynode **nodes; /* every node, for freeing */
} vs_ydoc;

/* Parses one YAML document from text (len bytes, need not end in NUL).
 * Refuses more than one document, nesting deeper than VS_YAML_MAX_DEPTH,
 * more than VS_YAML_MAX_BYTES, alias expansion beyond the document's own
 * size, non-scalar or duplicate mapping keys. On error returns NULL and
 * sets err to "PATH:LINE:COL: message". */
vs_ydoc *vs_ydoc_parse(const char *path, const char *text, size_t len,
                       vs_error *err);
void vs_ydoc_destroy(vs_ydoc *doc);

/* Reads a whole file (at most VS_YAML_MAX_BYTES) into a malloc'd,
 * NUL-terminated buffer. On error returns NULL with err set to
 * "PATH: message". */
char *vs_yaml_read_file(const char *path, size_t *len, vs_error *err);

/* The i-th key / value of a mapping. */
static inline const vs_ynode *vs_ymap_key(const vs_ynode *map, int i)
{
	return map->kids[2 * i];
}
static inline const vs_ynode *vs_ymap_value(const vs_ynode *map, int i)
{
	return map->kids[2 * i + 1];
}

/* The value of key in a mapping, or NULL (also when map is NULL). */
const vs_ynode *vs_ymap_get(const vs_ynode *map, const char *key);

/* True for a missing node or a plain "", "~" or "null". */
int vs_y_is_null(const vs_ynode *n);

/* "a mapping", "a list", "'text'" (shortened): for "got ..." messages. */
const char *vs_y_describe(const vs_ynode *n, char *buf, size_t size);

/* Checks that n is a mapping (what names it in the message). */
int vs_y_map(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             vs_error *err);
/* Checks that n is a list. */
int vs_y_seq(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             vs_error *err);
/* Checks that n is a list with at least one item (item names one, for
 * "WHAT: needs at least one ITEM"). */
int vs_y_nonempty_seq(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                      const char *item, vs_error *err);

/* Checks that the document is a mapping whose vsweep: key is 1, the file
 * format version, before anything else: a newer file should say so rather
 * than trip over a key this version does not know. what names the kind of
 * file ("scenario", "sweep"). */
int vs_y_version(const vs_ydoc *doc, const char *what, vs_error *err);

/* Appends item to a ", "-separated list in buf, truncating quietly: for
 * "allowed: ..." hints. */
void vs_y_join(char *buf, size_t size, const char *item);

/* Checks that every key of the mapping is in allowed (NULL-terminated);
 * the message names the key and lists the allowed ones. */
int vs_y_check_keys(const vs_ydoc *doc, const vs_ynode *map, const char *what,
                    const char *const *allowed, vs_error *err);

/* Constraints for numbers. */
enum {
	VS_Y_ANY = 0,
	VS_Y_NONNEG = 1,    /* >= 0 */
	VS_Y_POSITIVE = 2,  /* > 0 */
	VS_Y_SIGN = 3,      /* mask of the two above */
	VS_Y_SCALAR_OK = 4, /* vs_y_numbers: a lone number is a 1-list */
	VS_Y_DISTINCT = 8   /* vs_y_rows: no two consecutive rows equal */
};

/* The getters below return 0, or -1 with err set at the node. what is the
 * key the node came from, for the message. */

/* A finite number (".nan", ".inf" and "1e999" are errors); flags: sign. */
int vs_y_number(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                int flags, double *out, vs_error *err);
/* A decimal integer that fits int64_t. */
int vs_y_int(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             int64_t *out, vs_error *err);
/* A decimal integer from 0 to 2^64 - 1 (a seed: the generator's own
 * width). */
int vs_y_u64(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             uint64_t *out, vs_error *err);
/* A non-empty string scalar (any style); *out points into the tree. */
int vs_y_string(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                const char **out, vs_error *err);
/* true/false (also True, TRUE, False, FALSE). */
int vs_y_bool(const vs_ydoc *doc, const vs_ynode *n, const char *what,
              int *out, vs_error *err);
/* A list of exactly len numbers into out[len]. */
int vs_y_vec(const vs_ydoc *doc, const vs_ynode *n, const char *what,
             int len, double *out, vs_error *err);
/* A non-empty list of numbers (or, with VS_Y_SCALAR_OK, one number) into a
 * malloc'd *out of *count; flags: sign, VS_Y_SCALAR_OK. */
int vs_y_numbers(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                 int flags, double **out, int *count, vs_error *err);
/* A list of at least min_rows vectors of cols numbers each, into a malloc'd
 * row-major *out of *rows rows; flags: sign, VS_Y_DISTINCT. */
int vs_y_rows(const vs_ydoc *doc, const vs_ynode *n, const char *what,
              int cols, int min_rows, int flags, double **out, int *rows,
              vs_error *err);

#endif
