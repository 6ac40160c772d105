/* Lane relations for behaviours (ABI 1.1 host services): a lane's width
 * at a position, its left and right neighbours that travel the same way,
 * and its successor where the map says so — a circle lane is its own, an
 * OpenDRIVE lane follows its lane links into the next lane section, across
 * a road link, or through a junction's connection (the first one in the
 * file that takes it); and whether a lane leads into another (through
 * any connection), which tells driving on along a lane from changing
 * lanes. The map is read-only here, like every query. */
#include <string.h>

#include "map/map_internal.h"
#include "map/odr.h"

double vs_map_lane_width_at(const vs_map *map, int i, double p)
{
	const vs_lane *l = vs_map_lane(map, i);
	if (!l)
		return 0.0;
	const map_lane *q = &map->geo[i];
	if (!q->n_st)
		return l->width;
	p = p > 0 ? (p < 1 ? p : 1) : 0;
	int k = 0;
	while (k < q->n_st - 2 && q->st[k + 1].p <= p)
		k++;
	const map_station *a = &q->st[k], *b = &q->st[k + 1];
	double t = b->p > a->p ? (p - a->p) / (b->p - a->p) : 0.0;
	t = t > 0 ? (t < 1 ? t : 1) : 0;
	return 2.0 * (a->half + t * (b->half - a->half));
}

int vs_map_lane_neighbour(const vs_map *map, int i, int side)
{
	const vs_lane *l = vs_map_lane(map, i);
	if (!l || (side != 1 && side != -1))
		return -1;
	/* Travelling its own way, a lane's left neighbour is the one nearer
	 * the reference line on the same side (|id| - 1), its right one the
	 * next outward (|id| + 1), on either side of the line: a left lane
	 * runs against it. Lane 0 does not exist, so the other side (the
	 * opposite direction) is never a neighbour. */
	int mag = (l->lane < 0 ? -l->lane : l->lane) - side;
	if (mag < 1)
		return -1;
	return map_lane_of(map, l->road, l->section, l->lane < 0 ? -mag : mag);
}

static const odr_lane *odr_lane_of(const odr_road *r, int sec, int id)
{
	if (sec < 0 || sec >= r->n_sec)
		return NULL;
	for (int k = 0; k < r->sec[sec].n_lanes; k++)
		if (r->sec[sec].lanes[k].id == id)
			return &r->sec[sec].lanes[k];
	return NULL;
}

/* The lane id lane on road r entered at its end (contact_end 1) or its
 * start. */
static int enter_road(const vs_map *map, const odr_road *r, int contact_end,
                      int lane)
{
	return map_lane_of(map, r->id, contact_end ? r->n_sec - 1 : 0, lane);
}

/* Through junction jid from road `from`'s lane id `lane`: the first
 * connection whose laneLink takes it; or, with want >= 0, want when any
 * of them leads into it (-1 when none does). */
static int through_junction(const vs_map *map, const char *jid,
                            const odr_road *from, int lane, int want)
{
	const odr_junction *ju = map_odr_junction(map, jid);
	for (int c = 0; ju && c < ju->n_conn; c++) {
		const odr_connection *cn = &ju->conn[c];
		if (strcmp(cn->incoming, from->id) != 0)
			continue;
		const odr_road *to = map_odr_road(map, cn->connecting);
		for (int k = 0; to && k < cn->n_links; k++) {
			if (cn->from[k] != lane)
				continue;
			int in = enter_road(map, to, cn->contact_end, cn->to[k]);
			if (want < 0 || in == want)
				return in;
		}
	}
	return -1;
}

/* As through_junction: the lane l (travelling dir along the reference
 * line) leads into, or with want >= 0 want if it is one of them. */
static int odr_successor(const vs_map *map, const vs_lane *l, int dir,
                         int want)
{
	const odr_road *r = map_odr_road(map, l->road);
	const odr_lane *ol = r ? odr_lane_of(r, l->section, l->lane) : NULL;
	if (!ol)
		return -1;
	/* Links are written along the reference line: a lane travelling
	 * with it leaves by its successor, one against it by its
	 * predecessor. */
	int has = dir > 0 ? ol->has_succ : ol->has_pred;
	int next = dir > 0 ? ol->succ : ol->pred;
	int sec = l->section + dir;
	if (sec >= 0 && sec < r->n_sec)
		return has ? map_lane_of(map, r->id, sec, next) : -1;
	const odr_link *lk = dir > 0 ? &r->succ : &r->pred;
	if (!lk->has)
		return -1;
	if (lk->is_junction)
		return through_junction(map, lk->id, r, l->lane, want);
	const odr_road *to = map_odr_road(map, lk->id);
	return to && has ? enter_road(map, to, lk->contact_end, next) : -1;
}

int vs_map_lane_successor(const vs_map *map, int i)
{
	const vs_lane *l = vs_map_lane(map, i);
	if (!l)
		return -1;
	if (map->geo[i].n_st)
		return map->odr ? odr_successor(map, l, map->geo[i].dir, -1)
		                : -1;
	return l->closed ? i : -1; /* a ring goes on; a polyline ends */
}

int vs_map_lane_leads_into(const vs_map *map, int i, int j)
{
	const vs_lane *l = vs_map_lane(map, i);
	if (!l || !vs_map_lane(map, j))
		return 0;
	if (map->geo[i].n_st)
		return map->odr &&
		       odr_successor(map, l, map->geo[i].dir, j) == j;
	return l->closed && i == j;
}
