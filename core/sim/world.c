/* The ABI 1.1 host services' answers (world.h): MapLocations and actor
 * attributes of the previous step, and lane geometry from the map. */
#include "sim/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "map/map.h"

void vs_sim_world_init(vs_sim_world *w, const vs_scenario *scn)
{
	int n = scn->n_actors;
	w->attrs = vs_xcalloc((size_t)n + 1, sizeof *w->attrs);
	w->children = vs_xcalloc((size_t)n + 1, sizeof *w->children);
	size_t used = 0;
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
		/* An actor has one parent at most, so the children lists
		 * together hold fewer than n entries. */
		t->children = w->children + used;
		for (int j = 0; j < n; j++) {
			const vs_attach *at = &scn->actors[j].attach;
			if (at->present && at->parent_id == a->id)
				w->children[used++] = scn->actors[j].id;
		}
		t->n_children = (size_t)(w->children + used - t->children);
	}
}

void vs_sim_world_free(vs_sim_world *w)
{
	free(w->attrs);
	free(w->children);
}

static int index_of(const vs_sim_world *w, int64_t id)
{
	for (int i = 0; i < w->n; i++)
		if (w->ids[i] == id)
			return i;
	return -1;
}

int vs_sim_world_location(const vs_sim_world *w, int64_t id,
                          vs_lane_location *out)
{
	memset(out, 0, sizeof *out);
	int i = index_of(w, id);
	if (i < 0 || !w->map)
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
