/* The monitor of one variant (monitor.h): after every simulated step k,
 * recorded or not, it turns the actors' states and map locations into
 * events and the running summary.
 *
 * Called by sim.c only: created once the variant's instances have started,
 * told each actor's identity and box, stepped once per step from 0 on,
 * finished once (writing the summary).
 *
 * Invariants: touching[i * n + j] (i < j) says whether the footprints of
 * actors i and j overlapped at the previous step, so a collision event is
 * written once, when a contact begins, and touch_list names exactly the
 * pairs set there; sum.min_distance is the closest approach so far, which
 * bounds the broad phase's reach (near_pairs.h) without losing an event;
 * last holds the previous step's map locations once have_last is set;
 * box[i] is actor i's footprint as of the round box_round[i] (a round:
 * one call of pairs or vs_monitor_pairs, one state of the actors).
 * Actors attached to one another are never a colliding pair, nor a pair
 * row. Each KPI of sum keeps the actor (for min_distance the pair, lower
 * ID first) it is of: the lowest ID among equal values, whatever the
 * order of actors and steps. */
#include "sim/monitor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/util.h"
#include "map/map.h"
#include "sim/near_pairs.h"
#include "sim/obb.h"

/* What the monitor keeps of an actor. */
typedef struct watched {
	int64_t id, parent_id;   /* parent 0: the world */
	double hw, hl;           /* m, half width and half length */
	int combo;               /* index of its combination's first actor
	                            (root of its attach links); -1: not
	                            worked out yet */
} watched;

/* An actor's cos and sin of the yaw last asked for, by the yaw's bits:
 * every pair the actor is in needs them, and a yaw that stays (a car
 * going straight) needs them once. */
typedef struct yaw_trig {
	int have;
	uint64_t bits;
	vs_obb_trig t;
} yaw_trig;

struct vs_monitor {
	int n;
	watched *actors;
	const struct vs_map *map;
	unsigned char *touching;  /* n x n: footprints overlapped last step */
	vs_pair *touch_list;      /* the pairs set in touching */
	size_t n_touch, cap_touch;
	vs_near_pairs near;       /* broad phase scratch */
	double *cx, *cy, *radius; /* m, footprint bounding circles this step */
	yaw_trig *trig;           /* each actor's last yaw's cos and sin */
	vs_obb_box *box;          /* each actor's footprint, made ready */
	uint64_t *box_round;      /* the round box[i] was made ready in */
	uint64_t round;           /* pair checks so far, 1.. (one state) */
	vs_map_row *last;         /* map locations last step */
	int have_last;
	int64_t actor_steps, on_lane_steps;
	vs_summary sum;
};

vs_monitor *vs_monitor_create(int n, const struct vs_map *map)
{
	vs_monitor *m = vs_xcalloc(1, sizeof *m);
	m->n = n;
	m->actors = vs_xcalloc((size_t)n, sizeof *m->actors);
	m->map = map;
	m->touching = vs_xcalloc((size_t)n * (size_t)n, 1);
	m->last = vs_xcalloc((size_t)n, sizeof *m->last);
	m->cx = vs_xcalloc((size_t)n, sizeof *m->cx);
	m->cy = vs_xcalloc((size_t)n, sizeof *m->cy);
	m->radius = vs_xcalloc((size_t)n, sizeof *m->radius);
	m->trig = vs_xcalloc((size_t)n + 1, sizeof *m->trig);
	m->box = vs_xcalloc((size_t)n + 1, sizeof *m->box);
	m->box_round = vs_xcalloc((size_t)n + 1, sizeof *m->box_round);
	m->cap_touch = 16;
	m->touch_list = vs_xcalloc(m->cap_touch, sizeof *m->touch_list);
	m->sum.max_lat_acc = 0;
	m->sum.max_yaw_rate = 0;
	m->sum.min_distance = INFINITY;
	return m;
}

void vs_monitor_actor(vs_monitor *m, int i, const vs_actor_info *info,
                      int64_t parent_id)
{
	watched *w = &m->actors[i];
	*w = (watched){info->id, parent_id, info->width / 2, info->length / 2,
	               -1};
	m->radius[i] = hypot(w->hw, w->hl);
}

static const char *const event_kinds[VS_EVENT_KINDS] = {
    "collision", "lane_change", "off_road", "back_on_road", "near_miss"};

int32_t vs_event_kind_index(const char *kind)
{
	for (int32_t k = 0; kind && k < VS_EVENT_KINDS; k++)
		if (strcmp(kind, event_kinds[k]) == 0)
			return k;
	return -1;
}

const char *vs_event_kind_name(int32_t k)
{
	return k >= 0 && k < VS_EVENT_KINDS ? event_kinds[k] : NULL;
}

vs_event_row *vs_monitor_add_event(vs_result *res, int64_t step,
                                   int64_t actor, const char *kind,
                                   int64_t other)
{
	if (res->n_events == res->cap_events) {
		res->cap_events = res->cap_events ? 2 * res->cap_events : 16;
		res->events = vs_xrealloc(res->events, (size_t)res->cap_events *
		                                         sizeof *res->events);
	}
	vs_event_row *e = &res->events[res->n_events++];
	memset(e, 0, sizeof *e);
	e->step = step;
	e->actor_id = actor;
	e->kind = kind;
	e->other_id = other;
	return e;
}

/* The index of the actor at the root of i's attach links (a tractor for
 * each of its trailers, at any depth); i itself when unattached. Worked
 * out once: the links do not change during a variant. A parent that is
 * not watched, or a loop (refused by the scenario reader), ends the
 * walk. */
static int combo_of(vs_monitor *m, int i)
{
	if (m->actors[i].combo >= 0)
		return m->actors[i].combo;
	int r = i;
	for (int hops = 0; hops < m->n && m->actors[r].parent_id; hops++) {
		int p = -1;
		for (int k = 0; k < m->n && p < 0; k++)
			if (m->actors[k].id == m->actors[r].parent_id)
				p = k;
		if (p < 0)
			break;
		r = p;
	}
	m->actors[i].combo = r;
	return r;
}

/* Attached actors touch their parents by design, and a tractor's second
 * trailer is a part of one vehicle with it: a combination (a tractor,
 * its trailers, theirs) is never compared with itself, as leads are
 * never one of the follower's own combination (safety.c). */
static int related(vs_monitor *m, int i, int j)
{
	if (!m->actors[i].parent_id && !m->actors[j].parent_id)
		return 0; /* two unattached actors: the common case, at once */
	return combo_of(m, i) == combo_of(m, j);
}

static vs_obb footprint(const watched *a, const vs_state *s)
{
	return (vs_obb){s->x, s->y, a->hw, a->hl, s->yaw};
}

/* Actor i's cos and sin of yaw, libm's, worked out once per yaw. */
static vs_obb_trig trig_of(vs_monitor *m, int i, double yaw)
{
	yaw_trig *y = &m->trig[i];
	uint64_t u = vs_bits_of(yaw);
	if (!y->have || y->bits != u)
		*y = (yaw_trig){1, u, {cos(yaw), sin(yaw)}};
	return y->t;
}

/* Actor i's footprint in state s, made ready once per round of pair
 * checks: an actor in k pairs would need its corners and edges k times. */
static const vs_obb_box *box_of(vs_monitor *m, int i, const vs_state *s)
{
	if (m->box_round[i] != m->round) {
		vs_obb o = footprint(&m->actors[i], s);
		vs_obb_ready(&o, trig_of(m, i, s->yaw), &m->box[i]);
		m->box_round[i] = m->round;
	}
	return &m->box[i];
}

/* The distance between actors i and j's footprints (m). */
static double distance(vs_monitor *m, int i, int j, const vs_state *cur)
{
	return vs_obb_box_distance(box_of(m, i, &cur[i]),
	                           box_of(m, j, &cur[j]));
}

/* A micrometre and a relative 1e-9 above a distance bound: the gap of
 * circles is rounded differently from the exact footprint distance. */
static double widen(double d)
{
	return d * (1 + 1e-9) + 1e-6;
}

/* The pair (lo < hi) at distance d (m) beats the closest approach so
 * far: it is closer, or as close and lower in (lo, hi) order. */
static int closer(const vs_summary *s, double d, int64_t lo, int64_t hi)
{
	if (s->min_distance_actor == 0 || d < s->min_distance)
		return 1;
	return d == s->min_distance &&
	       (lo < s->min_distance_actor ||
	        (lo == s->min_distance_actor && hi < s->min_distance_other));
}

/* The reach of this step's broad phase: the closest distance so far. At
 * first (none yet) every pair would qualify, an O(n^2) step; instead grow a
 * trial reach until the pairs within it hold one whose footprints are no
 * farther apart than the reach itself: then every pair that can be closer
 * than that one is within it too. */
static double first_reach(vs_monitor *m, const vs_state *cur)
{
	if (isfinite(m->sum.min_distance))
		return widen(m->sum.min_distance);
	double r_max = 0;
	for (int i = 0; i < m->n; i++)
		r_max = vs_fmax(r_max, m->radius[i]);
	for (double trial = vs_fmax(1.0, 2 * r_max); trial < 1e9; trial *= 4) {
		const vs_pair *cand;
		size_t n = vs_near_pairs_find(&m->near, m->n, m->cx, m->cy,
		                              m->radius, trial, &cand);
		double best = INFINITY;
		for (size_t k = 0; k < n; k++) {
			int i = cand[k].i, j = cand[k].j;
			if (related(m, i, j))
				continue;
			best = vs_fmin(best, distance(m, i, j, cur));
		}
		if (best <= trial)
			return widen(best);
	}
	return INFINITY;
}

/* Collisions and the closest approach. Only pairs whose bounding circles
 * come within the closest distance seen so far (or touch) can lower it or
 * collide, so the broad phase hands over just those, in the order of an
 * exhaustive loop: events and min_distance equal the exhaustive check's.
 * Pairs left out are apart (gap > 0), so they stop touching. */
static int pairs(vs_monitor *m, int64_t step, const vs_state *cur,
                 vs_result *res)
{
	int began = 0;
	m->round++;
	for (int i = 0; i < m->n; i++) {
		m->cx[i] = cur[i].x;
		m->cy[i] = cur[i].y;
	}
	double reach = first_reach(m, cur);
	const vs_pair *cand;
	size_t n_cand = vs_near_pairs_find(&m->near, m->n, m->cx, m->cy,
	                                   m->radius, reach, &cand);
	for (size_t k = 0; k < m->n_touch; k++) {
		vs_pair p = m->touch_list[k];
		if (!vs_near_pairs_within(m->cx, m->cy, m->radius, p.i, p.j,
		                          reach))
			m->touching[p.i * m->n + p.j] = 0;
	}
	m->n_touch = 0;
	for (size_t k = 0; k < n_cand; k++) {
		int i = cand[k].i, j = cand[k].j;
		if (related(m, i, j))
			continue;
		double d = distance(m, i, j, cur);
		int64_t lo = m->actors[i].id, hi = m->actors[j].id;
		if (lo > hi) {
			int64_t t = lo;
			lo = hi;
			hi = t;
		}
		if (closer(&m->sum, d, lo, hi)) {
			m->sum.min_distance = d;
			m->sum.min_distance_actor = lo;
			m->sum.min_distance_other = hi;
		}
		unsigned char *t = &m->touching[i * m->n + j];
		int now = d == 0;
		if (now && !*t) {
			/* One event per contact, when it begins. */
			vs_monitor_add_event(res, step, m->actors[i].id, "collision",
			          m->actors[j].id);
			m->sum.collisions++;
			began++;
		}
		*t = (unsigned char)now;
		if (now) {
			if (m->n_touch == m->cap_touch) {
				m->cap_touch *= 2;
				m->touch_list = vs_xrealloc(
					m->touch_list,
					m->cap_touch * sizeof *m->touch_list);
			}
			m->touch_list[m->n_touch++] = cand[k];
		}
	}
	return began;
}

void vs_monitor_pairs(vs_monitor *m, int64_t step, const vs_state *cur,
                      double range, vs_result *res)
{
	m->round++;
	for (int i = 0; i < m->n; i++) {
		m->cx[i] = cur[i].x;
		m->cy[i] = cur[i].y;
	}
	const vs_pair *cand;
	size_t n_cand = vs_near_pairs_find(&m->near, m->n, m->cx, m->cy,
	                                   m->radius, widen(range), &cand);
	for (size_t k = 0; k < n_cand; k++) {
		int i = cand[k].i, j = cand[k].j;
		if (related(m, i, j))
			continue;
		double d = distance(m, i, j, cur);
		if (d > range)
			continue;
		if (m->actors[i].id > m->actors[j].id) {
			int t = i;
			i = j;
			j = t;
		}
		/* In plan: the gap between the origins and its rate of
		 * decrease, -(dp . dv) / |dp| (the same whichever actor is
		 * first). */
		double dx = cur[j].x - cur[i].x, dy = cur[j].y - cur[i].y;
		double dvx = cur[j].vx - cur[i].vx, dvy = cur[j].vy - cur[i].vy;
		double gap = hypot(dx, dy);
		if (res->n_pairs == res->cap_pairs) {
			res->cap_pairs = res->cap_pairs ? 2 * res->cap_pairs : 256;
			res->pairs = vs_xrealloc(res->pairs,
			                         (size_t)res->cap_pairs *
			                                 sizeof *res->pairs);
		}
		res->pairs[res->n_pairs++] = (vs_pair_row){
			step, m->actors[i].id, m->actors[j].id, d, gap,
			gap > 0 ? -(dx * dvx + dy * dvy) / gap : NAN};
	}
}

static const char *lane_name(const vs_monitor *m, int lane)
{
	return lane >= 0 && m->map ? vs_map_lane(m->map, lane)->uuid : "?";
}

/* Lanes a and b follow one another along s (one leads into the other
 * at its end: the next lane section, a junction's connecting lane, the
 * road after it, either way round for a car that backs up): driving on
 * from one into the other is no lane change, which is a move sideways. */
static int along(const vs_monitor *m, int a, int b)
{
	return vs_map_lane_leads_into(m->map, a, b) ||
	       vs_map_lane_leads_into(m->map, b, a);
}

static void lanes_step(vs_monitor *m, int64_t step, const vs_map_row *lp,
                       vs_result *res)
{
	for (int i = 0; i < m->n; i++) {
		m->actor_steps++;
		m->on_lane_steps += lp[i].on_lane != 0;
		if (!m->have_last)
			continue;
		const vs_map_row *was = &m->last[i];
		int64_t id = m->actors[i].id;
		if (was->on_lane && !lp[i].on_lane) {
			vs_event_row *e = vs_monitor_add_event(
				res, step, id, "off_road", 0);
			snprintf(e->detail, sizeof e->detail, "%s",
			         lane_name(m, was->lane));
		} else if (!was->on_lane && lp[i].on_lane) {
			vs_event_row *e = vs_monitor_add_event(res, step, id,
			                            "back_on_road", 0);
			snprintf(e->detail, sizeof e->detail, "%s",
			         lane_name(m, lp[i].lane));
		} else if (was->on_lane && lp[i].on_lane &&
		           was->lane != lp[i].lane &&
		           !along(m, was->lane, lp[i].lane)) {
			vs_event_row *e = vs_monitor_add_event(res, step, id,
			                            "lane_change", 0);
			snprintf(e->detail, sizeof e->detail, "%s -> %s",
			         lane_name(m, was->lane),
			         lane_name(m, lp[i].lane));
			m->sum.lane_changes++;
		}
	}
	memcpy(m->last, lp, (size_t)m->n * sizeof *lp);
	m->have_last = 1;
}

int vs_monitor_step(vs_monitor *m, int64_t step, const vs_state *cur,
                    const vs_map_row *loc, vs_result *res)
{
	for (int i = 0; i < m->n; i++) {
		const vs_state *s = &cur[i];
		/* Lateral acceleration of steady cornering, V r: free of the
		 * spikes a finite difference shows where a kinematic model
		 * steers instantly. */
		double v = sqrt(s->vx * s->vx + s->vy * s->vy + s->vz * s->vz);
		double lat = fabs(v * s->wz), yaw_rate = fabs(s->wz);
		int64_t id = m->actors[i].id;
		if (vs_kpi_beats(lat, id, m->sum.max_lat_acc,
		                 m->sum.max_lat_acc_actor, 1)) {
			m->sum.max_lat_acc = lat;
			m->sum.max_lat_acc_actor = id;
		}
		if (vs_kpi_beats(yaw_rate, id, m->sum.max_yaw_rate,
		                 m->sum.max_yaw_rate_actor, 1)) {
			m->sum.max_yaw_rate = yaw_rate;
			m->sum.max_yaw_rate_actor = id;
		}
	}
	int began = pairs(m, step, cur, res);
	if (loc)
		lanes_step(m, step, loc, res);
	return began;
}

void vs_monitor_finish(vs_monitor *m, vs_result *res)
{
	if (!m)
		return;
	res->summary = m->sum;
	if (!isfinite(res->summary.min_distance))
		res->summary.min_distance = NAN;
	res->summary.on_lane_pct =
		m->actor_steps ? 100.0 * (double)m->on_lane_steps /
		                     (double)m->actor_steps
		               : NAN;
	free(m->actors);
	free(m->touching);
	free(m->touch_list);
	vs_near_pairs_finish(&m->near);
	free(m->cx);
	free(m->cy);
	free(m->radius);
	free(m->trig);
	free(m->box);
	free(m->box_round);
	free(m->last);
	free(m);
}
