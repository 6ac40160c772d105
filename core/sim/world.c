/* The ABI 1.1 host services' answers (world.h): MapLocations and actor
 * attributes of the previous step, and lane geometry from the map. */
#include "sim/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "map/map.h"
#include "sim/world_index.h"

static int id_cmp(const void *a, const void *b)
{
	const struct world_id *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

void vs_sim_world_init(vs_sim_world *w, const vs_scenario *scn)
{
	int n = scn->n_actors;
	w->attrs = vs_xcalloc((size_t)n + 1, sizeof *w->attrs);
	w->children = vs_xcalloc((size_t)n + 1, sizeof *w->children);
	for (int i = 0; i < n; i++) {
		const vs_actor_spec *a = &scn->actors[i];
		vs_actor_attr *t = &w->attrs[i];
		t->id = a->id;
		t->name = a->name;
		t->kind = vs_actor_kind_name(scn, i);
		t->length = a->length;
		t->width = a->width;
		t->height = a->height;
		t->parent_id = a->attach.present ? a->attach.parent_id : 0;
	}
	/* IDs are looked up in every host call, for every other actor a
	 * behaviour considers: by binary search, not a scan (a scan made
	 * an IDM crowd's cost per actor-step grow with the square of its
	 * size). Scenario IDs are unique. */
	size_t m = (size_t)n + 1;
	w->by_id = vs_xcalloc(m, sizeof *w->by_id);
	for (int i = 0; i < n; i++)
		w->by_id[i] = (struct world_id){scn->actors[i].id, i};
	qsort(w->by_id, (size_t)n, sizeof *w->by_id, id_cmp);
	/* Dense IDs (within 4 n + 16 of one another) get a direct table:
	 * a binary search over hundreds of IDs, three per actor a lead
	 * search considers, was a sixth of an IDM crowd's CPU. */
	if (n > 0 && (uint64_t)w->by_id[n - 1].id - (uint64_t)w->by_id[0].id <
	                     4 * (uint64_t)n + 16) {
		w->id_min = w->by_id[0].id;
		w->id_span = (int64_t)((uint64_t)w->by_id[n - 1].id -
		                       (uint64_t)w->id_min) + 1;
		w->id_slot = vs_xcalloc((size_t)w->id_span,
		                        sizeof *w->id_slot);
		for (int64_t k = 0; k < w->id_span; k++)
			w->id_slot[k] = -1;
		for (int i = 0; i < n; i++)
			w->id_slot[(uint64_t)w->by_id[i].id -
			           (uint64_t)w->id_min] = w->by_id[i].idx;
	}
	w->parent_idx = vs_xcalloc(m, sizeof *w->parent_idx);
	w->n = n; /* vs_sim_world_index reads it */
	for (int i = 0; i < n; i++) {
		int64_t p = w->attrs[i].parent_id;
		w->parent_idx[i] = p ? vs_sim_world_index(w, p) : -1;
	}
	/* Each actor's children, in scenario order, packed: counted, then
	 * placed (a pass over every actor for each was a variant's O(n^2)
	 * start). An actor has one parent at most, so the lists together
	 * hold fewer than n entries. */
	size_t *start = vs_xcalloc(m + 1, sizeof *start);
	for (int i = 0; i < n; i++)
		if (w->parent_idx[i] >= 0)
			start[w->parent_idx[i] + 1]++;
	for (int i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (int i = 0; i < n; i++) {
		w->attrs[i].children = w->children + start[i];
		w->attrs[i].n_children = 0;
	}
	for (int j = 0; j < n; j++) {
		int p = w->parent_idx[j];
		if (p >= 0)
			w->children[start[p] + w->attrs[p].n_children++] =
				scn->actors[j].id;
	}
	free(start);
	w->loc_memo = vs_xcalloc(m, sizeof *w->loc_memo);
	w->loc_rc = vs_xcalloc(m, sizeof *w->loc_rc);
	w->loc_gen = vs_xcalloc(m, sizeof *w->loc_gen);
	w->gen = 1; /* loc_gen 0: nothing memoised yet */
}

void vs_sim_world_free(vs_sim_world *w)
{
	free(w->attrs);
	free(w->children);
	free(w->by_id);
	free(w->id_slot);
	free(w->parent_idx);
	free(w->loc_memo);
	free(w->loc_rc);
	free(w->loc_gen);
	world_index_free(w);
}

int vs_sim_world_index(const vs_sim_world *w, int64_t id)
{
	if (w->id_slot) {
		/* unsigned: an ID far below id_min wraps to far above */
		uint64_t k = (uint64_t)id - (uint64_t)w->id_min;
		return k < (uint64_t)w->id_span ? w->id_slot[k] : -1;
	}
	int lo = 0, hi = w->n; /* first entry with ID >= id in [lo, hi] */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (w->by_id[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n && w->by_id[lo].id == id ? w->by_id[lo].idx : -1;
}

static int index_of(const vs_sim_world *w, int64_t id)
{
	return vs_sim_world_index(w, id);
}

static int locate(const vs_sim_world *w, int i, vs_lane_location *out);

/* Memoised per gen: a lead search asks for every actor it considers,
 * and each answer evaluates the lane's geometry. */
int vs_sim_world_location(vs_sim_world *w, int64_t id,
                          vs_lane_location *out)
{
	int i = index_of(w, id);
	if (i < 0) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	if (w->loc_gen[i] != w->gen) {
		w->loc_rc[i] = locate(w, i, &w->loc_memo[i]);
		w->loc_gen[i] = w->gen;
	}
	*out = w->loc_memo[i];
	return w->loc_rc[i];
}

static int locate(const vs_sim_world *w, int i, vs_lane_location *out)
{
	memset(out, 0, sizeof *out);
	if (!w->map)
		return -1;
	const vs_map_row *m = &w->loc[i];
	const vs_lane *l = vs_map_lane(w->map, m->lane);
	if (!l)
		return -1;
	const vs_state *s = &(*w->prev)[i];
	double c[3], h;
	vs_map_lane_point(w->map, m->lane, m->position, 0.0, c, &h);
	snprintf(out->lane, sizeof out->lane, "%s", l->uuid);
	out->is_on_lane = m->on_lane;
	out->position = m->position;
	out->length = l->length;
	out->s = m->position * l->length;
	/* Left of the travel direction h is (-sin h, cos h). */
	out->lateral = -(s->x - c[0]) * sin(h) + (s->y - c[1]) * cos(h);
	out->width = vs_map_lane_width_at(w->map, m->lane, m->position);
	out->angle = m->angle;
	return 0;
}

int vs_sim_world_lane_point(const vs_sim_world *w, const char *lane, double s,
                            vs_lane_point *out)
{
	memset(out, 0, sizeof *out);
	int i = lane ? vs_map_find_lane(w->map, lane) : -1;
	const vs_lane *l = vs_map_lane(w->map, i);
	if (!l || !isfinite(s))
		return -1;
	double p = l->length > 0 ? s / l->length : 0.0, c[3];
	vs_map_lane_point(w->map, i, p, 0.0, c, &out->heading);
	out->x = c[0];
	out->y = c[1];
	out->z = c[2];
	out->width = vs_map_lane_width_at(w->map, i, p);
	out->length = l->length;
	return 0;
}

const char *vs_sim_world_lane_link(const vs_sim_world *w, const char *lane,
                                   int relation)
{
	int i = lane ? vs_map_find_lane(w->map, lane) : -1;
	if (i < 0)
		return NULL;
	int j = relation == VS_LANE_LEFT    ? vs_map_lane_neighbour(w->map, i, 1)
	        : relation == VS_LANE_RIGHT ? vs_map_lane_neighbour(w->map, i, -1)
	        : relation == VS_LANE_SUCCESSOR ? vs_map_lane_successor(w->map, i)
	                                        : -1;
	const vs_lane *l = vs_map_lane(w->map, j);
	return l ? l->uuid : NULL;
}

const vs_actor_attr *vs_sim_world_attr(const vs_sim_world *w, int64_t id)
{
	int i = index_of(w, id);
	return i < 0 ? NULL : &w->attrs[i];
}
