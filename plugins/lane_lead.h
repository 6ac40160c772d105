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

/* The lead of an actor (self_id, *me, length m) at s (m) on lane: as
 * lc_lead, on the chain from that lane. */
static inline int64_t lc_lead_on(const lc_lane *lc, int64_t self_id,
                                 const vs_state *me, const char *lane,
                                 double s, double length, double reach,
                                 double *gap, double *v_lead)
{
	lc_chain ch;
	if (lc_chain_build(lc, lane, s, reach, &ch))
		return 0;
	const char *l = lc->host->lane_link(lc->ctx, lane, VS_LANE_LEFT);
	const char *r = lc->host->lane_link(lc->ctx, lane, VS_LANE_RIGHT);
	const int64_t *ids;
	size_t n = lc->host->actor_ids(lc->ctx, &ids);
	int64_t best = 0;
	double best_gap = HUGE_VAL, best_along = 1.0;
	double me_h = NAN; /* rad, the lane's heading at me: when first needed */
	for (size_t i = 0; i < n; i++) {
		if (ids[i] == self_id)
			continue;
		vs_lane_location o;
		if (lc->host->map_location(lc->ctx, ids[i], &o))
			continue;
		const vs_actor_attr *a = lc->host->actor_attr(lc->ctx, ids[i]);
		const vs_state *st = lc->host->previous_state(lc->ctx, ids[i]);
		if (!a || a->parent_id || !st)
			continue; /* a trailer is behind its tractor */
		int person = a->kind && strcmp(a->kind, "character") == 0;
		if (person && !o.is_on_lane)
			continue;
		int k = lc_chain_find(&ch, o.lane);
		int nb = (l && strcmp(o.lane, l) == 0) ||
		         (r && strcmp(o.lane, r) == 0);
		double ds, ang = o.angle, h = NAN; /* m; rad; rad */
		if (k >= 0) {
			if (!person && !lc_overlaps(lc, st, a, o.lane, o.s))
				continue; /* off the road, its lane the nearest */
			ds = k == 0 ? o.s - s : ch.start[k] + o.s;
			if (k == 0 && ds <= 0 && ch.ring)
				ds += ch.length[0]; /* a ring: ahead, round */
		} else if (nb && (person || fabs(o.angle) < LC_PI / 2)) {
			/* the neighbour's normalised position: exact on a
			 * circle, where lanes side by side differ in length */
			if (!lc_overlaps(lc, st, a, lane,
			                 o.position * ch.length[0]))
				continue;
			ds = o.position * ch.length[0] - s;
		} else {
			if (!me || !(hypot(st->x - me->x, st->y - me->y) < reach))
				continue;
			vs_lane_point p;
			if (!isfinite(me_h) &&
			    !lc->host->lane_point(lc->ctx, lane, s, &p))
				me_h = p.heading;
			double d = (st->x - me->x) * cos(me_h) +
			           (st->y - me->y) * sin(me_h); /* m */
			if (!isfinite(d))
				continue;
			ds = lc_projected(lc, &ch, st, a, &o, person, d, &ang,
			                  &h);
			if (!isfinite(ds))
				continue;
		}
		if (!(ds > 0))
			continue;
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
		if (g < best_gap) {
			best_gap = g;
			best = ids[i];
			best_along = c;
		}
	}
	if (best) {
		const vs_state *st = lc->host->previous_state(lc->ctx, best);
		*gap = best_gap;
		*v_lead = st ? st->speed * best_along : 0.0;
	}
	return best;
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
