/* A variant's rows into the results file (store.h: vs_store_put and the
 * parts of a long variant): state rows in key order through the
 * multi-row INSERTs of store_internal.h's tiers, then actors, wheels,
 * events, signals, logs, pairs and the variant row, all inside the
 * caller's transaction (store.c's invariants). */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "store/pairs.h"
#include "store/store_internal.h"

static void bind_state(vs_bound *s, int base, int64_t variant,
                       const vs_state_row *r)
{
	const vs_state *v = &r->s;
	const vs_wheel_acc *w = &r->w;
	double vals[STATE_REALS] = {
		v->x, v->y, v->z, v->roll, v->pitch, v->yaw,
		v->vx, v->vy, v->vz, v->wx, v->wy, v->wz,
		v->steer, w->dist, w->turn, w->roll_l, w->roll_r};
	vs_bound_int64(s, base + 1, variant);
	vs_bound_int64(s, base + 2, r->actor_id);
	vs_bound_int64(s, base + 3, r->step);
	for (int i = 0; i < STATE_REALS; i++)
		vs_bound_double(s, base + 4 + i, vals[i]);
	/* Map location: lanes are numbered from 1 in the lane table; NULLs
	 * (no map, or not recorded) cost no payload bytes. */
	const vs_map_row *m = &r->m;
	int c = base + 4 + STATE_REALS;
	if (m->lane >= 0) {
		vs_bound_int64(s, c, m->lane + 1);
		vs_bound_int64(s, c + 1, m->on_lane);
		vs_bound_double(s, c + 2, m->position);
		vs_bound_double(s, c + 3, m->angle);
	} else {
		for (int k = 0; k < 4; k++)
			vs_bound_null(s, c + k);
	}
}

/* Compares two rows by (actor_id, step): the state key's order below
 * the variant. */
static int row_cmp(const void *a, const void *b)
{
	const vs_state_row *x = *(const vs_state_row *const *)a;
	const vs_state_row *y = *(const vs_state_row *const *)b;
	if (x->actor_id != y->actor_id)
		return x->actor_id < y->actor_id ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The rows of r in (actor_id, step) order, into ord (n_rows pointers).
 * The simulator's rows are step-major with the actors in one order at
 * every step: then it is a transposition; anything else is sorted. */
static void order_rows(const vs_result *r, const vs_state_row **ord)
{
	int64_t n = r->n_rows;
	int64_t a = 0; /* actors per step: rows before the first step change */
	while (a < n && r->rows[a].step == r->rows[0].step)
		a++;
	int regular = a > 0 && n % a == 0;
	for (int64_t i = a; regular && i < n; i++)
		regular = r->rows[i].actor_id == r->rows[i % a].actor_id &&
		          r->rows[i].step == r->rows[i - i % a].step &&
		          r->rows[i].step > r->rows[i - a].step;
	for (int64_t k = 1; regular && k < a; k++)
		regular = r->rows[k].actor_id > r->rows[k - 1].actor_id;
	if (!regular) {
		for (int64_t i = 0; i < n; i++)
			ord[i] = &r->rows[i];
		qsort(ord, (size_t)n, sizeof *ord, row_cmp);
		return;
	}
	int64_t steps = n / a, i = 0;
	for (int64_t k = 0; k < a; k++)
		for (int64_t s = 0; s < steps; s++)
			ord[i++] = &r->rows[s * a + k];
}

/* Writes r's state rows in (actor_id, step) order, the table's key
 * order below the variant: each row lands at the b-tree's right edge
 * (SQLite then skips the descent from the root, and the pages it fills
 * stay full) or, for a variant stored in parts, right after the same
 * actor's previous row. A row whose key is already stored (a bug) fails the
 * insert rather than being duplicated. Measured in docs/results.md,
 * "Write speed". */
static vs_rc put_rows(vs_store *st, const vs_result *r, vs_error *err)
{
	if (r->n_rows <= 0)
		return VS_RC_OK; /* a failed variant: no rows */
	if (r->n_rows > st->cap_ord) {
		free(st->ord);
		st->cap_ord = r->n_rows;
		st->ord = vs_xcalloc((size_t)st->cap_ord, sizeof *st->ord);
	}
	const vs_state_row **ord = st->ord;
	order_rows(r, ord);
	if (!st->ins[0] && st->rows_put >= BIG_AFTER &&
	    vs_store_prepare_tier(st, 0, err))
		return VS_RC_IO;
	int64_t i = 0;
	for (int t = st->ins[0] ? 0 : 1; t < TIERS; t++) {
		vs_bound *bs = &st->bound[t];
		while (r->n_rows - i >= st->rows[t]) {
			for (int k = 0; k < st->rows[t]; k++)
				bind_state(bs, k * STATE_COLS,
				           (int64_t)r->variant, ord[i + k]);
			int rc = sqlite3_step(bs->s);
			sqlite3_reset(bs->s);
			if (rc != SQLITE_DONE) {
				st->rows_before = -1; /* count them at the end */
				return vs_store_db_fail(st, err, "writing state rows");
			}
			i += st->rows[t];
		}
	}
	st->rows_put += r->n_rows;
	st->rows_tx += r->n_rows;
	return VS_RC_OK;
}

int vs_store_state_batch(const vs_store *st)
{
	for (int t = 0; t < TIERS; t++)
		if (st->ins[t])
			return st->rows[t];
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *s, int col, const char *t)
{
	if (t)
		sqlite3_bind_text(s, col, t, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, col);
}

static vs_rc put_actors(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_actor;
	for (int i = 0; i < r->n_actors; i++) {
		const vs_actor_row *a = &r->actors[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, a->actor_id);
		sqlite3_bind_text(s, 3, a->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, a->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 5, a->parent_id);
		bind_text_or_null(s, 6, a->attach_type);
		sqlite3_bind_double(s, 7, a->length);
		sqlite3_bind_double(s, 8, a->width);
		sqlite3_bind_double(s, 9, a->height);
		sqlite3_bind_int(s, 10, a->wheel_count);
		bind_text_or_null(s, 11, a->vehicle_model);
		bind_text_or_null(s, 12, a->behaviour);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return vs_store_db_fail(st, err, "writing actor rows");
	}
	return VS_RC_OK;
}

static vs_rc put_wheels(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_wheel;
	for (int i = 0; i < r->n_wheels; i++) {
		const vs_wheel_row *w = &r->wheels[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, w->actor_id);
		sqlite3_bind_int(s, 3, w->wheel);
		sqlite3_bind_double(s, 4, w->x);
		sqlite3_bind_double(s, 5, w->y);
		sqlite3_bind_double(s, 6, w->radius);
		sqlite3_bind_int(s, 7, w->steered);
		sqlite3_bind_double(s, 8, w->wheelbase);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return vs_store_db_fail(st, err, "writing wheel rows");
	}
	return VS_RC_OK;
}

static void bind_real_or_null(sqlite3_stmt *s, int col, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, col);
	else
		sqlite3_bind_double(s, col, v);
}

/* An actor ID, NULL for 0 (none). */
static void bind_actor(sqlite3_stmt *s, int col, int64_t id)
{
	if (id)
		sqlite3_bind_int64(s, col, id);
	else
		sqlite3_bind_null(s, col);
}

static vs_rc put_events(vs_store *st, const vs_result *r, vs_error *err)
{
	sqlite3_stmt *s = st->ins_event;
	for (int64_t i = 0; i < r->n_events; i++) {
		const vs_event_row *e = &r->events[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, e->step);
		sqlite3_bind_int64(s, 3, e->actor_id);
		sqlite3_bind_text(s, 4, e->kind, -1, SQLITE_STATIC);
		if (e->other_id)
			sqlite3_bind_int64(s, 5, e->other_id);
		else
			sqlite3_bind_null(s, 5);
		bind_text_or_null(s, 6, e->detail[0] ? e->detail : NULL);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return vs_store_db_fail(st, err, "writing events");
	}
	if (r->summary_void)
		return VS_RC_OK; /* unknown: NULL in variant_summary's join */
	const vs_summary *m = &r->summary;
	s = st->ins_summary;
	sqlite3_bind_int64(s, 1, (int64_t)r->variant);
	bind_real_or_null(s, 2, m->max_lat_acc);
	bind_real_or_null(s, 3, m->max_yaw_rate);
	bind_real_or_null(s, 4, m->min_distance);
	bind_real_or_null(s, 5, m->on_lane_pct);
	sqlite3_bind_int64(s, 6, m->collisions);
	sqlite3_bind_int64(s, 7, m->lane_changes);
	const double kpi[4] = {m->min_ttc, m->min_thw, m->max_decel,
	                       m->max_jerk};
	const int64_t of[4] = {m->min_ttc_actor, m->min_thw_actor,
	                       m->max_decel_actor, m->max_jerk_actor};
	for (int k = 0; k < 4; k++) { /* each KPI and its actor, or NULLs */
		bind_real_or_null(s, 8 + 2 * k, kpi[k]);
		bind_actor(s, 9 + 2 * k, isnan(kpi[k]) ? 0 : of[k]);
	}
	/* The actors of the first three KPIs (NULL where the KPI is). */
	bind_actor(s, 16, isnan(m->max_lat_acc) ? 0 : m->max_lat_acc_actor);
	bind_actor(s, 17, isnan(m->max_yaw_rate) ? 0 : m->max_yaw_rate_actor);
	int no_d = isnan(m->min_distance);
	bind_actor(s, 18, no_d ? 0 : m->min_distance_actor);
	bind_actor(s, 19, no_d ? 0 : m->min_distance_other);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing the summary");
	return VS_RC_OK;
}

/* The signal_name id of name, added with its unit when new; -1 on
 * error. */
static int64_t signal_id(vs_store *st, const char *name, const char *unit)
{
	sqlite3_bind_text(st->ins_name, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->ins_name, 2, unit ? unit : "", -1,
	                  SQLITE_STATIC);
	int rc = sqlite3_step(st->ins_name);
	sqlite3_reset(st->ins_name);
	if (rc != SQLITE_DONE)
		return -1;
	sqlite3_bind_text(st->get_name, 1, name, -1, SQLITE_STATIC);
	int64_t id = sqlite3_step(st->get_name) == SQLITE_ROW
	                     ? sqlite3_column_int64(st->get_name, 0)
	                     : -1;
	sqlite3_reset(st->get_name);
	return id;
}

typedef struct signals_ctx {
	const vs_result *r;
	const int64_t *ids; /* signal_name ids of r's names */
} signals_ctx;

static void bind_signal(sqlite3_stmt *s, int base, int64_t i, const void *ctx)
{
	const signals_ctx *c = ctx;
	const vs_signal_row *g = &c->r->signals[i];
	sqlite3_bind_int64(s, base + 1, (int64_t)c->r->variant);
	sqlite3_bind_int64(s, base + 2, g->actor_id);
	sqlite3_bind_int64(s, base + 3, g->step);
	sqlite3_bind_int64(s, base + 4, c->ids[g->name]);
	bind_real_or_null(s, base + 5, g->value);
}

/* Signal rows (names stored once) and plugin messages. */
static vs_rc put_signals_logs(vs_store *st, const vs_result *r, vs_error *err)
{
	int64_t *ids = vs_xcalloc((size_t)r->n_signal_names + 1, sizeof *ids);
	for (int i = 0; i < r->n_signal_names; i++)
		if ((ids[i] = signal_id(st, r->signal_names[i],
		                        r->signal_units ? r->signal_units[i]
		                                        : NULL)) < 0) {
			free(ids);
			return vs_store_db_fail(st, err, "writing signal names");
		}
	signals_ctx c = {r, ids};
	int put = vs_batch_put(&st->ins_signals, r->n_signals, bind_signal, &c);
	free(ids);
	if (put != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing signal rows");
	sqlite3_stmt *s = st->ins_log;
	int64_t n_logs = r->n_logs < VS_LOG_ROWS_KEPT ? r->n_logs
	                                              : VS_LOG_ROWS_KEPT;
	for (int64_t i = 0; i < n_logs; i++) {
		const vs_log_row *l = &r->logs[i];
		sqlite3_bind_int64(s, 1, (int64_t)r->variant);
		sqlite3_bind_int64(s, 2, l->actor_id);
		sqlite3_bind_double(s, 3, l->t);
		sqlite3_bind_int(s, 4, l->level);
		sqlite3_bind_text(s, 5, l->plugin, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, l->message, -1, SQLITE_STATIC);
		int rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return vs_store_db_fail(st, err, "writing plugin messages");
	}
	return VS_RC_OK;
}

vs_rc vs_store_variant_begin(vs_store *st, uint64_t variant, vs_error *err)
{
	if (st->var_open || !st->in_tx) {
		vs_error_set(err, "%s: variant %llu begun outside a transaction "
		             "or inside another variant (internal error)",
		             st->path, (unsigned long long)variant);
		return VS_RC_IO;
	}
	if (vs_store_exec(st, "SAVEPOINT vs_variant", err))
		return VS_RC_IO;
	st->rows_tx_at_var = st->rows_tx;
	st->var_open = 1;
	st->var_id = variant;
	return VS_RC_OK;
}

vs_rc vs_store_variant_rows(vs_store *st, const vs_result *part,
                            vs_error *err)
{
	if (!st->var_open || part->variant != st->var_id) {
		vs_error_set(err, "%s: rows of variant %llu, which is not being "
		             "stored (internal error)", st->path,
		             (unsigned long long)part->variant);
		return VS_RC_IO;
	}
	/* The signal rows alone: the logs come with the variant's end. */
	vs_result v = *part;
	v.n_logs = 0;
	if (put_rows(st, part, err) || put_signals_logs(st, &v, err))
		return VS_RC_IO;
	if (vs_store_pairs_put(&st->ins_pairs, part->variant, part->pairs,
	                       part->n_pairs) != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing pair rows");
	return VS_RC_OK;
}

void vs_store_variant_cancel(vs_store *st)
{
	if (!st->var_open)
		return;
	/* Failing, the transaction's rollback drops the rows all the same. */
	if (sqlite3_exec(st->db, "ROLLBACK TO vs_variant", NULL, NULL,
	                 NULL) != SQLITE_OK)
		st->rows_before = -1; /* rows may stay: count them at the end */
	sqlite3_exec(st->db, "RELEASE vs_variant", NULL, NULL, NULL);
	st->rows_tx = st->rows_tx_at_var;
	st->var_open = 0;
}

vs_rc vs_store_put(vs_store *st, const vs_result *r, vs_error *err)
{
	if (st->var_open && r->variant != st->var_id) {
		vs_error_set(err, "%s: variant %llu ended while %llu is being "
		             "stored (internal error)", st->path,
		             (unsigned long long)r->variant,
		             (unsigned long long)st->var_id);
		return VS_RC_IO;
	}
	if (put_rows(st, r, err))
		return VS_RC_IO;
	if (put_actors(st, r, err) || put_wheels(st, r, err) ||
	    put_events(st, r, err) || put_signals_logs(st, r, err))
		return VS_RC_IO;
	if (vs_store_pairs_put(&st->ins_pairs, r->variant, r->pairs,
	                       r->n_pairs) != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing pair rows");
	sqlite3_stmt *s = st->ins_variant;
	sqlite3_bind_int64(s, 1, (int64_t)r->variant);
	sqlite3_bind_int(s, 2, (int)r->status);
	bind_text_or_null(s, 3, r->status == VS_VARIANT_FAILED ? r->error
	                                                       : NULL);
	sqlite3_bind_text(s, 4, r->params_json ? r->params_json : "{}", -1,
	                  SQLITE_STATIC);
	sqlite3_bind_double(s, 5, r->wall_seconds);
	bind_text_or_null(s, 6, r->label);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return vs_store_db_fail(st, err, "writing the variant row");
	if (st->var_open) {
		/* Its rows are now the transaction's, with its variant row. */
		if (vs_store_exec(st, "RELEASE vs_variant", err))
			return VS_RC_IO;
		st->var_open = 0;
	}
	return VS_RC_OK;
}
