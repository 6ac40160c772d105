/* lane_lead.h — the lead ahead in the lane, for the idm behaviour.
 *
 * Header-only, as lane_common.h, on whose lc_lane it works; every answer
 * is about the previous step (ABI 1.1 host services).
 *
 * The lanes searched are a chain: the reference lane, its successor, and
 * further successors while they begin less than a reach (m) ahead of the
 * actor. An actor is in the way when its footprint (the width x length
 * rectangle about its origin, turned by its yaw) overlaps a lane of the
 * chain ahead: one located (MapLocation) in a lane of the chain at any
 * distance; one located in a neighbour of the reference lane when it
 * travels this way and reaches over the edge (a car cutting in); any
 * other within the reach, found by projecting it on the chain's lanes (a
 * car stopped across the lane at a crossroads is located in the crossing
 * road's lane, the one it is most aligned with). */
#ifndef VSWEEP_PLUGINS_LANE_LEAD_H
#define VSWEEP_PLUGINS_LANE_LEAD_H

#include "lane_common.h"

#define LL_MAX_CHAIN 16

/* Whether the footprint of actor `a` in state *st overlaps lane (UUID)
 * at s (m, the foot of its origin on the centre line; *c the lane point
 * there for lc_overlaps_at): its centre's
 * distance across the lane less than half the lane's width plus half the
 * rectangle's extent across it, and its centre within the lane's s range
 * widened by half its extent along it. lane_point clamps s to the lane,
 * so a car beyond its end has its distance past the end along the
 * tangent there, and a car driven off the end of a dead end is not in
 * the lane however straight ahead it is. Touching is not overlapping, as
 * in MapLocation. */
static inline int lc_overlaps_at(const vs_lane_point *c, double s,
                                 const vs_state *st, const vs_actor_attr *a)
{
	double rel = st->yaw + LC_PI / 2.0 - c->heading; /* rad */
	double cr = fabs(cos(rel)), sr = fabs(sin(rel));
	double half = 0.5 * (a->width * cr + a->length * sr); /* m, across */
	if (!(fabs(lc_across(c, st->x, st->y)) < 0.5 * c->width + half))
		return 0;
	double along = 0.5 * (a->length * cr + a->width * sr); /* m */
	double at = s + (st->x - c->x) * cos(c->heading) +
	            (st->y - c->y) * sin(c->heading); /* m, its centre's s */
	return at > -along && at < c->length + along;
}

static inline int lc_overlaps(const lc_lane *lc, const vs_state *st,
                              const vs_actor_attr *a, const char *lane,
                              double s)
{
	vs_lane_point c;
	return !lc->host->lane_point(lc->ctx, lane, s, &c) &&
	       lc_overlaps_at(&c, s, st, a);
}

/* The foot of the perpendicular from (x, y) on lane's centre line, by
 * sliding along the tangent from s (m): exact in one step on a straight
 * lane, converging fast on a curve of a radius much larger than the
 * distance. Returns its s (m, within the lane; at an end for a point
 * beyond it) with *c the lane point there, or NAN for an unknown lane. */
static inline double lc_foot(const lc_lane *lc, const char *lane, double x,
                             double y, double s, vs_lane_point *c)
{
	s = fmax(s, 0.0);
	for (int i = 0; i < 8; i++) {
		if (lc->host->lane_point(lc->ctx, lane, s, c))
			return NAN;
		s = fmin(s, c->length);
		double next = s + (x - c->x) * cos(c->heading) +
		              (y - c->y) * sin(c->heading); /* m */
		next = fmin(fmax(next, 0.0), c->length);
		if (fabs(next - s) < 1e-6)
			return s;
		s = next;
	}
	return lc->host->lane_point(lc->ctx, lane, s, c) ? NAN : s;
}

/* The lanes searched ahead of an actor at s (m) on lane: lane[0] the
 * lane itself, start[k] the distance (m) along the chain from the actor's
 * s to lane k's start (-s for its own). The successor is always in it
 * (as it always was), later ones while they begin less than reach (m)
 * ahead; a lane met again ends it (a ring's own lane is its successor:
 * ring is then set, and what is behind is ahead round it). */
typedef struct lc_chain {
	int n, ring;
	const char *lane[LL_MAX_CHAIN];
	double start[LL_MAX_CHAIN]; /* m */
	double length[LL_MAX_CHAIN]; /* m */
} lc_chain;

static inline int lc_chain_find(const lc_chain *ch, const char *lane)
{
	for (int k = 0; k < ch->n; k++)
		if (strcmp(ch->lane[k], lane) == 0)
			return k;
	return -1;
}

static inline int lc_chain_build(const lc_lane *lc, const char *lane,
                                 double s, double reach, lc_chain *ch)
{
	vs_lane_point p;
	if (lc->host->lane_point(lc->ctx, lane, 0, &p))
		return -1;
	ch->n = 1;
	ch->ring = 0;
	ch->lane[0] = lane;
	ch->start[0] = -s;
	ch->length[0] = p.length;
	while (ch->n < LL_MAX_CHAIN) {
		int k = ch->n;
		const char *next = lc->host->lane_link(
			lc->ctx, ch->lane[k - 1], VS_LANE_SUCCESSOR);
		if (!next)
			break;
		if (lc_chain_find(ch, next) >= 0) {
			ch->ring = k == 1 && strcmp(next, lane) == 0;
			break;
		}
		/* the successor's start as it always was: length - s */
		double start = k == 1 ? p.length - s
		                      : ch->start[k - 1] + ch->length[k - 1];
		if (k >= 2 && !(start < reach))
			break;
		if (lc->host->lane_point(lc->ctx, next, 0, &p))
			break;
		ch->lane[k] = next;
		ch->start[k] = start;
		ch->length[k] = p.length;
		ch->n++;
	}
	return 0;
}

/* How far the rear of a combination reaches behind its head's centre
 * (m, along heading h, rad from +X; negative: behind): the nearest end
 * of every actor attached to `a` (in state *head), a trailer's rear
 * bumper, turned by its angle to the lane as the head's extent is. */
static inline double lc_tail(const lc_lane *lc, const vs_actor_attr *a,
                             const vs_state *head, double h, double near,
                             int depth)
{
	for (size_t j = 0; depth < 8 && j < a->n_children; j++) {
		const vs_actor_attr *ca = lc->host->actor_attr(lc->ctx,
		                                               a->children[j]);
		const vs_state *cs = lc->host->previous_state(lc->ctx,
		                                              a->children[j]);
		if (!ca || !cs)
			continue;
		double rel = cs->yaw + LC_PI / 2.0 - h; /* rad */
		double end = (cs->x - head->x) * cos(h) +
		             (cs->y - head->y) * sin(h) -
		             0.5 * (ca->length * fabs(cos(rel)) +
		                    ca->width * fabs(sin(rel))); /* m */
		near = lc_tail(lc, ca, head, h, fmin(near, end), depth + 1);
	}
	return near;
}

/* Where actor `a` (state *st, MapLocation *o), located in no lane of
 * the chain, is in the way: the least s ahead of the actor at s on the
 * chain (m, centre to centre along it, > 0) of a lane of the chain its
 * footprint overlaps — a character's origin, as its origin must be on
 * the lane — with *ang its angle to that lane (rad) and *h the lane's
 * heading there; NAN when none. One travelling the other way (more than
 * 90 deg off the lane) whose origin is off the lane, in a lane within
 * 45 deg of parallel to it, passes by: an oncoming car in its own lane
 * reaching over the centre line, however wide, or one going the wrong
 * way in the neighbour lane. d: how far ahead of the searching actor
 * it is along the lane's tangent there (m), where to start looking. */
static inline double lc_projected(const lc_lane *lc, const lc_chain *ch,
                                  const vs_state *st,
                                  const vs_actor_attr *a,
                                  const vs_lane_location *o, int person,
                                  double d, double *ang, double *h)
{
	vs_actor_attr dot = *a;
	if (person)
		dot.length = dot.width = 0.0; /* its origin */
	double best = NAN;
	for (int k = 0; k < ch->n; k++) {
		vs_lane_point c;
		double sf = lc_foot(lc, ch->lane[k], st->x, st->y,
		                    d - ch->start[k], &c); /* m */
		if (!isfinite(sf) || !lc_overlaps_at(&c, sf, st, &dot))
			continue;
		double ds = ch->start[k] + sf; /* m */
		if (!(ds > 0) || ds >= best)
			continue;
		double rel = lc_wrap(st->yaw + LC_PI / 2.0 - c.heading); /* rad */
		vs_lane_point ol;
		if (!person && cos(rel) < 0 &&
		    !(fabs(lc_across(&c, st->x, st->y)) < 0.5 * c.width) &&
		    !lc->host->lane_point(lc->ctx, o->lane, o->s, &ol) &&
		    fabs(cos(ol.heading - c.heading)) > cos(LC_PI / 4.0))
			continue;
		best = ds;
		*ang = rel;
		*h = c.heading;
	}
	return best;
}

/* What lc_lead_on asks about every actor it considers: the chain, the
 * reference lane's neighbours, and the searching actor. */
typedef struct lc_search {
	lc_chain ch;
	int64_t self_id;
	const vs_state *me; /* NULL when unknown */
	const char *lane;   /* the reference lane */
	const char *l, *r;  /* its neighbours, or NULL */
	double s;           /* m, the searching actor's s on lane */
	double length;      /* m, the searching actor's */
	double reach;       /* m */
	double me_h;        /* rad, the lane's heading at me: when first
	                       needed */
	int listed;         /* 1: the lane passes of lc_lead_broad are done,
	                       so an actor on the road in a lane of the
	                       chain, or in a neighbour travelling this way,
	                       has had its turn (or could not beat the
	                       best) */
} lc_search;

/* The gap (m) to actor id when it is in the way ahead (the rule of
 * lc_lead), with *along the cosine of its angle to the lane; NAN when it
 * is not. */
static inline double lc_gap_to(const lc_lane *lc, lc_search *q, int64_t id,
                               double *along)
{
	const lc_chain *ch = &q->ch;
	const vs_state *me = q->me;
	double s = q->s, length = q->length;
	if (id == q->self_id)
		return NAN;
	vs_lane_location o;
	if (lc->host->map_location(lc->ctx, id, &o))
		return NAN;
	const vs_actor_attr *a = lc->host->actor_attr(lc->ctx, id);
	const vs_state *st = lc->host->previous_state(lc->ctx, id);
	if (!a || a->parent_id || !st)
		return NAN; /* a trailer is behind its tractor */
	int person = a->kind && strcmp(a->kind, "character") == 0;
	if (person && !o.is_on_lane)
		return NAN;
	int k = lc_chain_find(ch, o.lane);
	int nb = (q->l && strcmp(o.lane, q->l) == 0) ||
	         (q->r && strcmp(o.lane, q->r) == 0);
	int same_way = nb && (person || fabs(o.angle) < LC_PI / 2);
	if (q->listed && o.is_on_lane && (k >= 0 || same_way))
		return NAN; /* lane_actors lists those on the road */
	double ds, ang = o.angle, h = NAN; /* m; rad; rad */
	if (k >= 0) {
		if (!person && !lc_overlaps(lc, st, a, o.lane, o.s))
			return NAN; /* off the road, its lane the nearest */
		ds = k == 0 ? o.s - s : ch->start[k] + o.s;
		if (k == 0 && ds <= 0 && ch->ring)
			ds += ch->length[0]; /* a ring: ahead, round */
	} else if (same_way) {
		/* the neighbour's normalised position: exact on a
		 * circle, where lanes side by side differ in length */
		if (!lc_overlaps(lc, st, a, q->lane,
		                 o.position * ch->length[0]))
			return NAN;
		ds = o.position * ch->length[0] - s;
	} else {
		if (!me || !(hypot(st->x - me->x, st->y - me->y) < q->reach))
			return NAN;
		vs_lane_point p;
		if (!isfinite(q->me_h) &&
		    !lc->host->lane_point(lc->ctx, q->lane, s, &p))
			q->me_h = p.heading;
		double d = (st->x - me->x) * cos(q->me_h) +
		           (st->y - me->y) * sin(q->me_h); /* m */
		if (!isfinite(d))
			return NAN;
		ds = lc_projected(lc, ch, st, a, &o, person, d, &ang, &h);
		if (!isfinite(ds))
			return NAN;
	}
	if (!(ds > 0))
		return NAN;
	double c = cos(ang), sn = sin(ang);
	double g = ds - 0.5 * (length + a->length * fabs(c) +
	                       a->width * fabs(sn)); /* m */
	if (a->n_children) {
		vs_lane_point p;
		if (!isfinite(h) &&
		    !lc->host->lane_point(lc->ctx, o.lane, o.s, &p))
			h = p.heading;
		double near = -0.5 * (a->length * fabs(c) +
		                      a->width * fabs(sn)); /* m */
		double tail = isfinite(h) ? lc_tail(lc, a, st, h, near, 0)
		                          : near;
		if (tail < near)
			g = ds + tail - 0.5 * length;
	}
	*along = c;
	return g;
}

/* The best lead so far: the least gap, and among equal gaps the actor
 * first in scenario order, which is what one pass over every actor in
 * that order keeps. */
typedef struct lc_best {
	int64_t id; /* 0: none yet */
	double gap; /* m */
	double along;
} lc_best;

static inline void lc_offer(const lc_lane *lc, lc_search *q, int64_t id,
                            lc_best *b)
{
	double along = 1.0;
	double g = lc_gap_to(lc, q, id, &along);
	if (!(g <= b->gap) || id == b->id)
		return;
	if (g == b->gap) {
		/* a tie (rare): the one earlier in scenario order */
		const int64_t *ids;
		size_t n = lc->host->actor_ids(lc->ctx, &ids);
		size_t i = 0;
		while (i < n && ids[i] != id && ids[i] != b->id)
			i++;
		if (!b->id || i == n || ids[i] != id)
			return;
	}
	b->id = id;
	b->gap = g;
	b->along = along;
}

/* The host's broad phase (lane_actors, actors_near, actor_reach). */
static inline int lc_host_broad(const vs_host *h)
{
	return h && h->struct_size >= offsetof(vs_host, actor_reach) +
	                                  sizeof h->actor_reach;
}

/* The entries of a lane_actors answer (s ascending) from the first
 * whose s is above `after` (m). */
static inline size_t lc_first_after(const double *ss, size_t n, double after)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ss[mid] <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* lc_lead_on through the host's broad phase, with the same answer as a
 * pass over every actor: a lead's gap is at least its distance ahead
 * along the lanes (centre to centre, ds) less `slack` (half the searching
 * actor's length and the host's actor_reach, which bounds a lead's
 * extent and its trailers' reach behind it), so the actors on the road
 * located in a lane of the chain, or in a neighbour (lane_actors), are
 * taken in order of ds until ds - slack passes the best gap. Any other
 * (off the road too: a car that drove off a lane's end is located at
 * its end) is in the way only over a lane of the chain, ds ahead: its origin is then less than ds plus the
 * searching actor's distance from the lane's centre, half the lane's
 * width, twice actor_reach and the gaps between the chain's lanes (an
 * OpenDRIVE link need not join roads that meet) from the searching
 * actor's origin, which bounds the circle of the last look
 * (actors_near), with a margin of 10 m for lanes whose width changes
 * between the ends where it is taken and for a foot (lc_foot) that did
 * not quite converge on a tight curve. Returns 0, or -1 when the bound is not known (a position not
 * finite): then every actor is considered. */
static inline int lc_lead_broad(const lc_lane *lc, lc_search *q, lc_best *b)
{
	const vs_host *H = lc->host;
	const lc_chain *ch = &q->ch;
	double R = H->actor_reach(lc->ctx); /* m */
	vs_lane_point p;
	if (!isfinite(R) || !q->me ||
	    H->lane_point(lc->ctx, q->lane, q->s, &p))
		return -1;
	double lat = hypot(q->me->x - p.x, q->me->y - p.y); /* m */
	double w = p.width;                                /* m */
	double slack = R + 0.5 * q->length + 1e-3;         /* m */
	if (!isfinite(lat) || !isfinite(w) || !isfinite(slack))
		return -1;
	const int64_t *ids;
	const double *ss;
	double jump = 0.0; /* m: how far successors start from where the
	                      lane before them ends, together */
	for (int k = 0; k < ch->n; k++) {
		size_t n = H->lane_actors(lc->ctx, ch->lane[k], &ids, &ss);
		vs_lane_point end;
		if (k > 0 && !H->lane_point(lc->ctx, ch->lane[k], 0, &p) &&
		    !H->lane_point(lc->ctx, ch->lane[k - 1], ch->length[k - 1],
		                   &end)) {
			/* OpenDRIVE links roads whatever their geometry */
			jump += hypot(p.x - end.x, p.y - end.y);
			w = fmax(w, fmax(p.width, end.width));
		} else if (k > 0) {
			return -1;
		}
		/* own lane: from just ahead, and round a ring */
		size_t j0 = k == 0 ? lc_first_after(ss, n, q->s) : 0;
		size_t m = k == 0 && ch->ring ? n : n - j0;
		for (size_t t = 0; t < m; t++) {
			size_t j = (j0 + t) % n;
			double ds = k > 0 ? ch->start[k] + ss[j]
			            : j >= j0 ? ss[j] - q->s
			                      : ss[j] - q->s + ch->length[0];
			if (ds - slack > b->gap)
				break;
			lc_offer(lc, q, ids[j], b);
		}
	}
	const char *side[2] = {q->l, q->r};
	for (int k = 0; k < 2; k++) {
		if (!side[k] || H->lane_point(lc->ctx, side[k], 0, &p) ||
		    !(p.length > 0))
			continue;
		double scale = ch->length[0] / p.length; /* its s to ours */
		size_t n = H->lane_actors(lc->ctx, side[k], &ids, &ss);
		/* from a metre back: its s scaled may round either way */
		for (size_t j = lc_first_after(ss, n, q->s / scale - 1.0);
		     j < n; j++) {
			if (ss[j] * scale - q->s - slack > b->gap)
				break;
			lc_offer(lc, q, ids[j], b);
		}
	}
	double radius = fmin(q->reach, b->gap + slack + lat + jump +
	                                   0.5 * w + 2.0 * R + 10.0); /* m */
	/* the lead rule's own test is hypot < reach: a hair more here */
	size_t n = H->actors_near(lc->ctx, q->me->x, q->me->y,
	                          radius * (1.0 + 1e-9) + 1e-6, &ids);
	q->listed = 1;
	for (size_t j = 0; j < n; j++)
		lc_offer(lc, q, ids[j], b);
	q->listed = 0;
	return 0;
}

/* The lead of an actor (self_id, *me, length m) at s (m) on lane: as
 * lc_lead, on the chain from that lane. LL_EXHAUSTIVE (a test build)
 * considers every actor, as a host without the broad phase has it. */
static inline int64_t lc_lead_on(const lc_lane *lc, int64_t self_id,
                                 const vs_state *me, const char *lane,
                                 double s, double length, double reach,
                                 double *gap, double *v_lead)
{
	lc_search q = {.self_id = self_id, .me = me, .lane = lane, .s = s,
	               .length = length, .reach = reach, .me_h = NAN};
	if (lc_chain_build(lc, lane, s, reach, &q.ch))
		return 0;
	q.l = lc->host->lane_link(lc->ctx, lane, VS_LANE_LEFT);
	q.r = lc->host->lane_link(lc->ctx, lane, VS_LANE_RIGHT);
	lc_best b = {0, HUGE_VAL, 1.0};
	int all = 1;
#ifndef LL_EXHAUSTIVE
	if (lc_host_broad(lc->host))
		all = lc_lead_broad(lc, &q, &b) != 0;
#endif
	if (all) {
		const int64_t *ids;
		size_t n = lc->host->actor_ids(lc->ctx, &ids);
		for (size_t i = 0; i < n; i++)
			lc_offer(lc, &q, ids[i], &b);
	}
	if (b.id) {
		const vs_state *st = lc->host->previous_state(lc->ctx, b.id);
		*gap = b.gap;
		*v_lead = st ? st->speed * b.along : 0.0;
	}
	return b.id;
}

/* During a lane change, the actor's s (m) on the old lane while its
 * footprint (actor *me, attributes a) still overlaps it, following the
 * old lane into its successor past its end; NAN once it has left it, and
 * from then on. */
static inline double lc_from_s(lc_lane *lc, const vs_state *me,
                               const vs_actor_attr *a)
{
	if (lc->changing != 1 || !lc->from[0])
		return NAN;
	for (int hop = 0; hop < 8; hop++) {
		vs_lane_point c;
		double sf = lc_foot(lc, lc->from, me->x, me->y, lc->from_s, &c);
		if (!isfinite(sf))
			break;
		double past = (me->x - c.x) * cos(c.heading) +
		              (me->y - c.y) * sin(c.heading); /* m */
		const char *next = lc->host->lane_link(lc->ctx, lc->from,
		                                       VS_LANE_SUCCESSOR);
		if (sf >= c.length && past > 0 && next) {
			snprintf(lc->from, sizeof lc->from, "%s", next);
			lc->from_s = 0.0;
			continue;
		}
		lc->from_s = sf;
		if (lc_overlaps(lc, me, a, lc->from, sf))
			return sf;
		break;
	}
	lc->from[0] = '\0';
	return NAN;
}

/* The lead of actor self_id (length m) at s (m) on the reference lane:
 * the other actor in the way ahead with the least gap — on the chain of
 * lanes from the reference lane (lc_chain_build, successors while they
 * begin less than reach m ahead), or during a lane change on the chain
 * from the old lane too, until the body has left it: the car ahead in
 * the old lane is still ahead of the bonnet. In the way: its footprint
 * overlapping a lane of the chain (lc_overlaps) at any heading (a car
 * stopped across the lane, or coming the other way in it, is in the way
 * as much as one ahead), but for one travelling the other way in a lane
 * beside it (lc_projected); from a neighbour of the reference lane only
 * travelling this lane's way (|angle| < 90 deg: a car cutting in, or
 * pulling in from the kerb); a character (a pedestrian) whichever way it
 * walks while its origin is on the lane (at the kerb it is not in the
 * way). *gap is bumper to bumper along the lanes (m): the centres'
 * distance less half of each one's extent along the lane (the lead's
 * length and width turned by its angle to the lane), to the rear of
 * everything attached behind it (a tractor's trailer, which is no lead
 * of its own); *v_lead its velocity along the lane (m/s: speed times cos
 * angle, 0 across the lane, negative coming the other way). Returns its
 * ID, or 0 when the lanes ahead are free. */
static inline int64_t lc_lead(lc_lane *lc, int64_t self_id, double s,
                              double length, double reach, double *gap,
                              double *v_lead)
{
	if (!lc->lane[0])
		return 0;
	const vs_state *me = lc->host->previous_state(lc->ctx, self_id);
	const vs_actor_attr *ma = lc->host->actor_attr(lc->ctx, self_id);
	int64_t best = lc_lead_on(lc, self_id, me, lc->lane, s, length, reach,
	                          gap, v_lead);
	double sf = me && ma ? lc_from_s(lc, me, ma) : NAN; /* m */
	if (isfinite(sf)) {
		double g = HUGE_VAL, v = 0.0; /* m, m/s */
		int64_t old = lc_lead_on(lc, self_id, me, lc->from, sf, length,
		                         reach, &g, &v);
		if (old && (!best || g < *gap)) {
			best = old;
			*gap = g;
			*v_lead = v;
		}
	}
	return best;
}

#endif
