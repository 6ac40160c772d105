/* Checking a contained child's result before the parent uses it.
 *
 * Why: a result that came whole (magic header and trailer) can still hold
 * garbage when the child's memory was corrupted before it was sent (an
 * FMU's thread racing on the log array, a plugin writing past its
 * buffer). The parent must not follow a pointer from it, size an
 * allocation by a wild count, or hand the store a row that breaks a
 * constraint (that would stop the whole run): the variant fails as
 * crashed instead ("sent a malformed result").
 *
 * Invariants:
 * - No pointer of the child's is used: actor rows' strings are the
 *   parent's own variant's, event kinds and log rows' plugin names come
 *   as indices (monitor.h's event kinds, the variant's plugin uses) and are looked up
 *   here; actor IDs, steps, levels and name indices are checked against
 *   the variant.
 * - Rows are step-major in scenario order (sim.c's record): each recorded
 *   step is one row per actor, steps rising across chunks, so no two rows
 *   share the state table's key.
 * Called by contain_receive.c (and contain_child.c for the indices). */
#include "run/contain_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "input/attach.h"
#include "plugin/registry.h"
#include "sim/monitor.h"

/* The plugin use index 2 i + r (actor i, r 0 vehicle model, 1
 * behaviour) of v, or NULL when none. */
static const vs_plugin_use *use_at(const vs_scenario *v, int32_t k)
{
	if (k < 0 || k >= 2 * v->n_actors)
		return NULL;
	const vs_actor_spec *a = &v->actors[k / 2];
	const vs_plugin_use *u = k % 2 ? &a->behaviour : &a->vehicle_model;
	return u->loaded ? u : NULL;
}

int32_t vs_contain_plugin_index(const vs_scenario *v, const char *name)
{
	for (int32_t k = 0; k < 2 * v->n_actors; k++) {
		const vs_plugin_use *u = use_at(v, k);
		if (u && u->loaded->desc->name == name)
			return k;
	}
	return -1;
}

/* The index of actor id in v, or -1. */
/* The variant's actor IDs, sorted, for a look-up per row: a crowd of
 * 512 actors records thousands of pair rows a step, and a linear search
 * of each would cost more than storing them. */
typedef struct ids {
	int64_t *id;
	int n;
} ids;

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static ids ids_of(const vs_scenario *v)
{
	ids s = {vs_xcalloc((size_t)v->n_actors + 1, sizeof *s.id),
	         v->n_actors};
	for (int i = 0; i < v->n_actors; i++)
		s.id[i] = v->actors[i].id;
	qsort(s.id, (size_t)s.n, sizeof *s.id, id_cmp);
	return s;
}

/* Whether id is one of the variant's actors. */
static int known(const ids *s, int64_t id)
{
	return bsearch(&id, s->id, (size_t)s->n, sizeof *s->id, id_cmp) != NULL;
}

/* Whether text[size] ends within its buffer. */
static int terminated(const char *text, size_t size)
{
	return memchr(text, '\0', size) != NULL;
}

const char *vs_contain_check_counts(const vs_scenario *v, int n_actors,
                                    int n_wheels, int64_t n_rows,
                                    int64_t n_events, int n_signal_names,
                                    int64_t n_signals, int64_t n_pairs,
                                    int64_t n_logs, int64_t n_logs_kept)
{
	/* Limits in double: products of wild counts must not overflow. */
	double n = v->n_actors, steps = (double)vs_scenario_steps(v);
	if (n_actors != v->n_actors && n_actors != 0)
		return "actor count";
	if (n_wheels < 0 || n_wheels > n * 2 * VS_MAX_AXLES)
		return "wheel count";
	if (n_rows < 0 || (double)n_rows > n * steps)
		return "row count";
	/* collisions, lane changes, off/back on road, near misses: a few
	 * per actor and pair per step at most */
	if (n_events < 0 || (double)n_events > steps * n * (n + 4))
		return "event count";
	if (n_signal_names < 0 || n_signal_names > 1 << 16)
		return "signal name count";
	if (n_signals < 0 ||
	    (double)n_signals > steps * n * (double)n_signal_names)
		return "signal count";
	if (n_pairs < 0 || (double)n_pairs > steps * n * n / 2)
		return "pair count";
	/* the store reads min(n_logs, VS_LOG_ROWS_KEPT) rows */
	if (n_logs < 0 || n_logs_kept != (n_logs < VS_LOG_ROWS_KEPT
	                                  ? n_logs : VS_LOG_ROWS_KEPT))
		return "log count";
	return NULL;
}

/* A row's key within its step, for the duplicate check below. */
typedef struct key2 {
	int64_t a, b;
} key2;

static int key2_cmp(const void *x, const void *y)
{
	const key2 *p = x, *q = y;
	if (p->a != q->a)
		return (p->a > q->a) - (p->a < q->a);
	return (p->b > q->b) - (p->b < q->b);
}

/* Whether keys[n] (sorted here) holds no key twice. */
static int distinct(key2 *keys, size_t n)
{
	qsort(keys, n, sizeof *keys, key2_cmp);
	for (size_t k = 1; k < n; k++)
		if (!key2_cmp(&keys[k - 1], &keys[k]))
			return 0;
	return 1;
}

/* The step and key of row j of a signal or pair array. */
typedef int64_t (*step_of_fn)(const void *rows, int64_t j, key2 *key);

static int64_t signal_step(const void *rows, int64_t j, key2 *key)
{
	const vs_signal_row *s = (const vs_signal_row *)rows + j;
	*key = (key2){s->actor_id, s->name};
	return s->step;
}

static int64_t pair_step(const void *rows, int64_t j, key2 *key)
{
	const vs_pair_row *p = (const vs_pair_row *)rows + j;
	*key = (key2){p->actor_id, p->other_id};
	return p->step;
}

/* Signal and pair rows are written step by step with the state rows of
 * their step (sim.c's record), so their steps rise within the chunk,
 * lie in (after, upto], and within a step no key repeats: a repeated
 * key would fail the store's INSERT and with it the whole run. Returns
 * the first row out of line, or -1. */
static int64_t keys_in_line(const void *rows, int64_t n, step_of_fn at,
                            int64_t after, int64_t upto, key2 **scratch,
                            size_t *cap)
{
	int64_t lo = 0;
	while (lo < n) {
		key2 k;
		int64_t step = at(rows, lo, &k), hi = lo;
		if (step <= after || step > upto)
			return lo;
		while (hi < n && at(rows, hi, &k) == step)
			hi++;
		if (hi < n && at(rows, hi, &k) < step)
			return hi;
		if ((size_t)(hi - lo) > *cap) {
			*cap = (size_t)(hi - lo);
			*scratch = vs_xrealloc(*scratch, *cap * sizeof **scratch);
		}
		for (int64_t j = lo; j < hi; j++)
			at(rows, j, &(*scratch)[j - lo]);
		if (!distinct(*scratch, (size_t)(hi - lo)))
			return lo;
		lo = hi;
	}
	return -1;
}

/* Checks the rows, signal and pair rows of r (a chunk or the whole
 * result's last part); 0 or -1 with why. */
static int check_rows(const vs_scenario *v, const vs_result *r,
                      int64_t *last_step, char *why, size_t size)
{
	int64_t steps = vs_scenario_steps(v), before = *last_step;
	int n = v->n_actors;
	if (n == 0 ? r->n_rows != 0 : r->n_rows % n != 0) {
		snprintf(why, size, "%lld rows for %d actors",
		         (long long)r->n_rows, n);
		return -1;
	}
	/* step-major, the actors in scenario order at every step */
	for (int64_t b = 0; b < r->n_rows; b += n) {
		int64_t step = r->rows[b].step;
		for (int k = 0; k < n; k++) {
			const vs_state_row *s = &r->rows[b + k];
			if (s->actor_id != v->actors[k].id || s->step != step ||
			    step <= *last_step || step >= steps) {
				snprintf(why, size, "row %lld: actor %lld, step "
				         "%lld", (long long)(b + k),
				         (long long)s->actor_id, (long long)s->step);
				return -1;
			}
		}
		*last_step = step;
	}
	if (r->n_signals == 0 && r->n_pairs == 0)
		return 0;
	ids a = ids_of(v);
	int rc = 0;
	for (int64_t j = 0; j < r->n_signals && !rc; j++) {
		const vs_signal_row *s = &r->signals[j];
		if (s->name < 0 || s->name >= r->n_signal_names ||
		    !known(&a, s->actor_id) || s->step < 0 || s->step >= steps) {
			snprintf(why, size, "signal row %lld", (long long)j);
			rc = -1;
		}
	}
	for (int64_t j = 0; j < r->n_pairs && !rc; j++) {
		const vs_pair_row *p = &r->pairs[j];
		if (p->actor_id >= p->other_id || !known(&a, p->actor_id) ||
		    !known(&a, p->other_id) || p->step < 0 || p->step >= steps) {
			snprintf(why, size, "pair row %lld", (long long)j);
			rc = -1;
		}
	}
	free(a.id);
	key2 *scratch = NULL;
	size_t cap = 0;
	int64_t j;
	if (!rc && (j = keys_in_line(r->signals, r->n_signals, signal_step,
	                             before, *last_step, &scratch, &cap)) >= 0) {
		snprintf(why, size, "signal row %lld: step or key out of line",
		         (long long)j);
		rc = -1;
	}
	if (!rc && (j = keys_in_line(r->pairs, r->n_pairs, pair_step, before,
	                             *last_step, &scratch, &cap)) >= 0) {
		snprintf(why, size, "pair row %lld: step or key out of line",
		         (long long)j);
		rc = -1;
	}
	free(scratch);
	return rc;
}

int vs_contain_check_part(const vs_scenario *v, const vs_result *part,
                          int64_t *last_step, char *why, size_t size)
{
	return check_rows(v, part, last_step, why, size);
}

int vs_contain_check(const vs_scenario *v, vs_result *res,
                     const int32_t *kinds, const int32_t *plugins,
                     int64_t n_logs_kept, int64_t *last_step, char *why,
                     size_t size)
{
	if (res->status != VS_VARIANT_DONE && res->status != VS_VARIANT_FAILED) {
		snprintf(why, size, "status %d", (int)res->status);
		return -1;
	}
	res->error[sizeof res->error - 1] = '\0'; /* text, however cut */
	if (check_rows(v, res, last_step, why, size))
		return -1;
	/* Actor rows: the parent's own strings (same variant, same order). */
	for (int k = 0; k < res->n_actors; k++) {
		vs_actor_row *a = &res->actors[k];
		const vs_actor_spec *s = &v->actors[k];
		if (a->actor_id != s->id) {
			snprintf(why, size, "actor row %d: actor %lld", k,
			         (long long)a->actor_id);
			return -1;
		}
		a->name = s->name;
		a->kind = vs_actor_kind_name(v, k);
		a->attach_type = vs_attach_type_name(s->attach.type);
		a->vehicle_model = s->vehicle_model.loaded
		                           ? s->vehicle_model.loaded->desc->name
		                           : NULL;
		a->behaviour = s->behaviour.loaded
		                       ? s->behaviour.loaded->desc->name
		                       : NULL;
	}
	ids a = ids_of(v);
	for (int64_t j = 0; j < res->n_wheels; j++) {
		const vs_wheel_row *w = &res->wheels[j];
		if (!known(&a, w->actor_id) || w->wheel < 0 ||
		    w->wheel >= 2 * VS_MAX_AXLES) {
			snprintf(why, size, "wheel row %lld", (long long)j);
			goto bad;
		}
	}
	if (res->n_wheels > 0) { /* (actor, wheel) is the table's key */
		key2 *k = vs_xcalloc((size_t)res->n_wheels, sizeof *k);
		for (int64_t j = 0; j < res->n_wheels; j++)
			k[j] = (key2){res->wheels[j].actor_id,
			              res->wheels[j].wheel};
		int ok = distinct(k, (size_t)res->n_wheels);
		free(k);
		if (!ok) {
			snprintf(why, size, "wheel rows: a wheel twice");
			goto bad;
		}
	}
	for (int64_t j = 0; j < res->n_events; j++) {
		vs_event_row *e = &res->events[j];
		if (!vs_event_kind_name(kinds[j]) ||
		    !known(&a, e->actor_id) ||
		    (e->other_id && !known(&a, e->other_id)) ||
		    !terminated(e->detail, sizeof e->detail)) {
			snprintf(why, size, "event row %lld", (long long)j);
			goto bad;
		}
		e->kind = vs_event_kind_name(kinds[j]);
	}
	for (int64_t j = 0; j < n_logs_kept; j++) {
		vs_log_row *l = &res->logs[j];
		const vs_plugin_use *u = use_at(v, plugins[j]);
		if (!u || l->level < VS_LOG_DEBUG || l->level > VS_LOG_ERROR ||
		    !known(&a, l->actor_id) || !l->message) {
			snprintf(why, size, "log row %lld: plugin %s, level %d",
			         (long long)j, u ? "known" : "unknown",
			         l->level);
			goto bad;
		}
		l->plugin = u->loaded->desc->name;
	}
	free(a.id);
	return 0;
bad:
	free(a.id);
	return -1;
}

void vs_contain_plugin_label(const vs_loaded_plugin *lp, char *plugin,
                             size_t size)
{
	if (lp->dir) {
		const char *base = lp->path ? strrchr(lp->path, '/') : NULL;
		snprintf(plugin, size, "fmu:%s",
		         base ? base + 1 : lp->path ? lp->path : "?");
	} else {
		snprintf(plugin, size, "%s", lp->desc->name);
	}
}

int vs_contain_call_actor(const vs_scenario *v, int call, char *plugin,
                          size_t size)
{
	int i = (call - 1) / 2;
	if (call <= 0 || !v || i >= v->n_actors)
		return -1;
	const vs_actor_spec *a = &v->actors[i];
	const vs_loaded_plugin *lp = (call - 1) % 2 ? a->behaviour.loaded
	                                            : a->vehicle_model.loaded;
	if (!lp)
		return -1;
	vs_contain_plugin_label(lp, plugin, size);
	return i;
}
