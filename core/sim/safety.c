/* Safety KPIs (safety.h). The lead of an actor is the nearest other actor
 * ahead on the same lane (MapLocation of this step, travelling the lane's
 * way), the gap bumper to bumper along s (the centres' distance minus half
 * of each length; round a ring when it is closed). With the follower's
 * speed v and the lead's u (the origins' speeds), TTC = gap / (v - u)
 * while closing (v > u), headway = gap / v while v > 0. Deceleration and
 * jerk come from finite differences of each actor's speed over the step
 * (the start counting as steady: acceleration 0 at step 0),
 * so a speed that jumps (a model that tracks its commanded speed at once)
 * shows as the jump over dt. A character (a pedestrian) on the lane
 * ahead is a lead whichever way it walks, even across the lane, and its
 * speed u is its velocity's component along the lane (u cos Angle), so a
 * car closing on a crossing pedestrian has TTC = gap / v; only while the
 * gap is positive (level with the car's body the person is beside it,
 * and the footprints' distance is the measure) and while the person's
 * origin is on the lane (on the kerb it is not in the way). Any lead has
 * its origin on the lane (one that drove off the lane's end keeps
 * position 1 but is no longer ahead on it), and is never of the
 * follower's own combination (a semi-trailer is not behind its tractor:
 * they are one vehicle, as for min_distance). A near_miss event marks
 * the step where an actor's TTC falls below the scenario's near_miss_ttc
 * (again after it rose above it). Characters are left out of
 * deceleration and jerk: a point mass that starts and stops within a
 * step would outweigh every vehicle's braking. Each KPI names its actor; of equal values, the
 * lower actor ID (monitor.h's vs_kpi_beats). */
#include "sim/safety.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"
#include "common/util.h"
#include "map/map.h"
#include "sim/monitor.h"

struct vs_safety {
	int n;
	int64_t *ids;
	double *length;        /* m */
	double *v, *a;         /* m/s, m/s^2: last step's speed and accel */
	double *speed;         /* m/s, this step's, of every actor: hypot is
	                          slow (~20 ns) and headway needs it again */
	unsigned char *below;  /* TTC below near_miss_ttc last step */
	unsigned char *person; /* a character: a lead whatever its angle */
	int *combo;            /* the index of an actor's combination: of
	                          the actors attached to one another, at
	                          any depth, one of them */
	int *order;            /* this step's located actors by (lane,
	                          position, index): leads are looked for
	                          among the next ones in the lane */
	int *rank;             /* an actor's place in order; -1: none */
	int *run;              /* per place in order: where its lane's
	                          run of places begins */
	int n_order;
	int64_t steps;         /* steps seen */
	double dt;             /* s */
	double near_miss;      /* s; 0: none */
	const struct vs_map *map;
	vs_summary k;          /* the KPI fields of it */
};

vs_safety *vs_safety_create(int n, const int64_t *ids, const double *length,
                            double dt, const struct vs_map *map,
                            double near_miss_ttc)
{
	vs_safety *sf = vs_xcalloc(1, sizeof *sf);
	size_t m = (size_t)n + 1;
	sf->n = n;
	sf->ids = vs_xcalloc(m, sizeof *sf->ids);
	sf->length = vs_xcalloc(m, sizeof *sf->length);
	sf->v = vs_xcalloc(m, sizeof *sf->v);
	sf->a = vs_xcalloc(m, sizeof *sf->a);
	sf->speed = vs_xcalloc(m, sizeof *sf->speed);
	sf->below = vs_xcalloc(m, 1);
	sf->person = vs_xcalloc(m, 1);
	sf->combo = vs_xcalloc(m, sizeof *sf->combo);
	sf->order = vs_xcalloc(m, sizeof *sf->order);
	sf->rank = vs_xcalloc(m, sizeof *sf->rank);
	sf->run = vs_xcalloc(m, sizeof *sf->run);
	for (int i = 0; i < n; i++) {
		sf->combo[i] = i;
		sf->rank[i] = -1; /* in no step's order yet */
	}
	memcpy(sf->ids, ids, (size_t)n * sizeof *ids);
	memcpy(sf->length, length, (size_t)n * sizeof *length);
	sf->dt = dt;
	sf->map = map;
	sf->near_miss = near_miss_ttc;
	sf->k.min_ttc = sf->k.min_thw = INFINITY;
	sf->k.max_decel = sf->k.max_jerk = -INFINITY;
	return sf;
}

void vs_safety_set_character(vs_safety *sf, int i)
{
	sf->person[i] = 1;
}

void vs_safety_attach(vs_safety *sf, int child, int parent)
{
	/* Merges the two combinations, in whatever order the links come:
	 * a road train's second trailer may be linked before the first. */
	int from = sf->combo[child], to = sf->combo[parent];
	for (int i = 0; i < sf->n; i++)
		if (sf->combo[i] == from)
			sf->combo[i] = to;
}

static double speed_of(const vs_state *s)
{
	return hypot(s->vx, s->vy);
}

/* Whether j can be i's lead at ds (m ahead along their lane, > 0). */
static int may_lead(const vs_safety *sf, int i, int j, const vs_map_row *loc,
                    double ds)
{
	if (j == i || !loc[j].on_lane || sf->combo[j] == sf->combo[i] ||
	    (fabs(loc[j].angle) >= VS_PI / 2 && !sf->person[j]))
		return 0;
	/* a person level with the car's body is beside it, not ahead:
	 * min_distance and collisions judge that encounter */
	return !(sf->person[j] && ds <= 0.5 * (sf->length[i] + sf->length[j]));
}

/* qsort's comparison for order: the rows are this step's, set aside for
 * the sort (qsort has no context argument; one variant's monitor runs on
 * one thread). */
static _Thread_local const vs_map_row *sort_loc;

static int order_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	const vs_map_row *x = &sort_loc[a], *y = &sort_loc[b];
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	return (a > b) - (a < b);
}

/* Whether actor i has a place in order: a position not finite has no
 * ds, and is neither lead nor led. */
static int orderable(const vs_safety *sf, const vs_map_row *loc, int i)
{
	return vs_map_lane(sf->map, loc[i].lane) && isfinite(loc[i].position);
}

/* order and rank for this step's locations. The actors come in the last
 * step's order (read ahead of where the new one is written), then those
 * not in it (rank still the last step's): they keep their places from
 * step to step, so vs_sort_nearly has little to do (a qsort at every
 * step was 2 % of the benchmark sweep's simulation, two cars, and more
 * in traffic). order_cmp is a total order: the same order either way. */
static void sort_leads(vs_safety *sf, const vs_map_row *loc)
{
	int k = 0;
	for (int r = 0; r < sf->n_order; r++)
		if (orderable(sf, loc, sf->order[r]))
			sf->order[k++] = sf->order[r];
	for (int i = 0; i < sf->n; i++)
		if (sf->rank[i] < 0 && orderable(sf, loc, i))
			sf->order[k++] = i;
	for (int i = 0; i < sf->n; i++)
		sf->rank[i] = -1;
	sort_loc = loc;
	vs_sort_nearly(sf->order, (size_t)k, sizeof *sf->order, order_cmp);
	sort_loc = NULL;
	for (int r = 0; r < k; r++) {
		sf->rank[sf->order[r]] = r;
		sf->run[r] = r > 0 && loc[sf->order[r - 1]].lane ==
		                              loc[sf->order[r]].lane
		                     ? sf->run[r - 1]
		                     : r;
	}
	sf->n_order = k;
}

/* Actor i's lead: its index (or -1) and the gap (m). The nearest ahead
 * (least ds; of equal ds the lowest index) among the actors after it in
 * order, in its lane; round a ring, those at or behind it with ds + the
 * lane's length. Sorted by position, ds only grows along either run, so
 * each stops at the first actor beyond the best: O(1) an actor in
 * traffic, where a pass over every actor made the KPIs' cost per
 * actor-step grow with the number of actors. */
static int lead_of(const vs_safety *sf, int i, const vs_map_row *loc,
                   double *gap)
{
	const vs_lane *l = vs_map_lane(sf->map, loc[i].lane);
	if (!l || !loc[i].on_lane || fabs(loc[i].angle) >= VS_PI / 2 ||
	    sf->rank[i] < 0)
		return -1;
	int best = -1, lane = loc[i].lane;
	double best_ds = INFINITY;
	/* ahead: ds > 0; equal positions (ds 0) belong to the ring's run */
	for (int r = sf->rank[i] + 1; r < sf->n_order; r++) {
		int j = sf->order[r];
		if (loc[j].lane != lane)
			break;
		double ds = (loc[j].position - loc[i].position) * l->length;
		if (!(ds > 0))
			continue;
		if (ds > best_ds)
			break;
		if (may_lead(sf, i, j, loc, ds) &&
		    (ds < best_ds || j < best)) {
			best_ds = ds;
			best = j;
		}
	}
	/* round a ring: from the lane's first actor, those not ahead */
	for (int r = sf->run[sf->rank[i]]; l->closed && r < sf->n_order;
	     r++) {
		int j = sf->order[r];
		if (loc[j].lane != lane)
			break;
		double ds = (loc[j].position - loc[i].position) * l->length;
		if (ds > 0)
			break; /* the run ahead, done above */
		ds += l->length;
		if (ds > best_ds)
			break;
		if (ds > 0 && may_lead(sf, i, j, loc, ds) &&
		    (ds < best_ds || j < best)) {
			best_ds = ds;
			best = j;
		}
	}
	if (best >= 0)
		*gap = best_ds - 0.5 * (sf->length[i] + sf->length[best]);
	return best;
}

/* After vs_safety_step has set sf->speed from this step's states. */
static void headway(vs_safety *sf, int64_t step, const vs_map_row *loc,
                    vs_result *res)
{
	sort_leads(sf, loc);
	for (int i = 0; i < sf->n; i++) {
		double gap = 0.0, v = sf->speed[i];
		int j = lead_of(sf, i, loc, &gap);
		double ttc = INFINITY;
		if (j >= 0) {
			double u = sf->speed[j];
			if (sf->person[j]) /* along the lane only */
				u *= cos(loc[j].angle);
			if (v > u)
				ttc = fmax(gap, 0.0) / (v - u);
			double thw = v > 0 ? fmax(gap, 0.0) / v : INFINITY;
			if (vs_kpi_beats(thw, sf->ids[i], sf->k.min_thw,
			                 sf->k.min_thw_actor, -1)) {
				sf->k.min_thw = thw;
				sf->k.min_thw_actor = sf->ids[i];
			}
		}
		if (vs_kpi_beats(ttc, sf->ids[i], sf->k.min_ttc,
		                 sf->k.min_ttc_actor, -1)) {
			sf->k.min_ttc = ttc;
			sf->k.min_ttc_actor = sf->ids[i];
		}
		int below = sf->near_miss > 0 && ttc < sf->near_miss;
		if (below && !sf->below[i]) {
			vs_event_row *e = vs_monitor_add_event(
				res, step, sf->ids[i], "near_miss", sf->ids[j]);
			snprintf(e->detail, sizeof e->detail,
			         "ttc %.3f s, gap %.3f m", ttc, gap);
		}
		sf->below[i] = (unsigned char)below;
	}
}

void vs_safety_step(vs_safety *sf, int64_t step, const vs_state *cur,
                    const vs_map_row *loc, vs_result *res)
{
	for (int i = 0; i < sf->n; i++)
		sf->speed[i] = speed_of(&cur[i]);
	for (int i = 0; i < sf->n; i++) {
		double v = sf->speed[i];
		double a = sf->steps ? (v - sf->v[i]) / sf->dt : 0.0; /* m/s^2 */
		if (sf->person[i])
			continue; /* starts and stops at once: not a KPI */
		if (sf->steps >= 1 &&
		    vs_kpi_beats(-a, sf->ids[i], sf->k.max_decel,
		                 sf->k.max_decel_actor, 1)) {
			sf->k.max_decel = -a;
			sf->k.max_decel_actor = sf->ids[i];
		}
		if (sf->steps >= 1) { /* a = 0 at step 0: a steady start */
			double j = fabs(a - sf->a[i]) / sf->dt; /* m/s^3 */
			if (vs_kpi_beats(j, sf->ids[i], sf->k.max_jerk,
			                 sf->k.max_jerk_actor, 1)) {
				sf->k.max_jerk = j;
				sf->k.max_jerk_actor = sf->ids[i];
			}
		}
		sf->v[i] = v;
		sf->a[i] = a;
	}
	sf->steps++;
	if (loc && sf->map)
		headway(sf, step, loc, res);
}

void vs_safety_finish(vs_safety *sf, vs_result *res)
{
	vs_summary *s = &res->summary;
	if (!sf) { /* the variant failed before its first step */
		s->min_ttc = s->min_thw = s->max_decel = s->max_jerk = NAN;
		return;
	}
	s->min_ttc = isfinite(sf->k.min_ttc) ? sf->k.min_ttc : NAN;
	s->min_thw = isfinite(sf->k.min_thw) ? sf->k.min_thw : NAN;
	s->max_decel = isfinite(sf->k.max_decel) ? sf->k.max_decel : NAN;
	s->max_jerk = isfinite(sf->k.max_jerk) ? sf->k.max_jerk : NAN;
	s->min_ttc_actor = sf->k.min_ttc_actor;
	s->min_thw_actor = sf->k.min_thw_actor;
	s->max_decel_actor = sf->k.max_decel_actor;
	s->max_jerk_actor = sf->k.max_jerk_actor;
	free(sf->ids);
	free(sf->length);
	free(sf->v);
	free(sf->a);
	free(sf->speed);
	free(sf->below);
	free(sf->person);
	free(sf->combo);
	free(sf->order);
	free(sf->rank);
	free(sf->run);
	free(sf);
}
