/* Finding map items by name (hidx.h): a lane by its UUID (behaviours name
 * lanes so in every host call), a lane by road, lane section and lane id
 * (its neighbours and successors), an OpenDRIVE road or junction by id
 * (where a lane's links lead). Each was a scan or a binary search with a
 * string comparison per step; IDM traffic on a map of 4000 lanes spent
 * 31 % of its simulation finding lanes by UUID and 13 % finding
 * neighbours, and both grow with the map. Built with the map, read-only
 * after. */
#include <string.h>

#include "map/map_internal.h"
#include "map/odr.h"

static uint64_t lane_key_hash(const char *road, int section, int id)
{
	uint64_t h = map_hidx_mix(0x9e3779b97f4a7c15u, (uintptr_t)road);
	h = map_hidx_mix(h, (uint32_t)section);
	h = map_hidx_mix(h, (uint32_t)id);
	return h ^ (h >> 32);
}

static int same_lane_key(const vs_lane *l, const char *road, int section,
                         int id)
{
	return l->road == road && l->section == section && l->lane == id;
}

/* Entry i of names, keyed by the string key (i ascending: an equal key
 * already there keeps the lower entry). */
static void add_name(map_hidx *t, const char *key, int i,
                     const char *(*name)(const vs_map *, int),
                     const vs_map *m)
{
	uint64_t h = map_hidx_bytes(key, strlen(key));
	for (size_t k = map_hidx_home(t, h);; k = map_hidx_next(t, k)) {
		int64_t j = map_hidx_at(t, k, h);
		if (j == -1) {
			map_hidx_put(t, k, h, i);
			return;
		}
		if (j >= 0 && strcmp(name(m, (int)j), key) == 0)
			return;
	}
}

/* The entry named key, or -1. */
static int find_name(const map_hidx *t, const char *key,
                     const char *(*name)(const vs_map *, int),
                     const vs_map *m)
{
	if (!t->slots || !key)
		return -1;
	uint64_t h = map_hidx_bytes(key, strlen(key));
	for (size_t k = map_hidx_home(t, h);; k = map_hidx_next(t, k)) {
		int64_t j = map_hidx_at(t, k, h);
		if (j == -1)
			return -1;
		if (j >= 0 && strcmp(name(m, (int)j), key) == 0)
			return (int)j;
	}
}

static const char *uuid_name(const vs_map *m, int i)
{
	return m->lanes[i].uuid;
}

static const char *road_name(const vs_map *m, int i)
{
	return m->odr->roads[i].id;
}

static const char *junction_name(const vs_map *m, int i)
{
	return m->odr->junctions[i].id;
}

void map_names_build(vs_map *m)
{
	map_hidx_init(&m->by_uuid, m->n_lanes);
	map_hidx_init(&m->by_lane, m->n_lanes);
	for (int i = 0; i < m->n_lanes; i++) {
		const vs_lane *l = &m->lanes[i];
		add_name(&m->by_uuid, l->uuid, i, uuid_name, m);
		uint64_t h = lane_key_hash(l->road, l->section, l->lane);
		map_hidx *t = &m->by_lane;
		for (size_t k = map_hidx_home(t, h);; k = map_hidx_next(t, k)) {
			int64_t j = map_hidx_at(t, k, h);
			if (j == -1) {
				map_hidx_put(t, k, h, i);
				break;
			}
			if (j >= 0 && same_lane_key(&m->lanes[j], l->road,
			                            l->section, l->lane))
				break;
		}
	}
	const odr_net *odr = m->odr;
	map_hidx_init(&m->odr_roads, odr ? odr->n_roads : 0);
	map_hidx_init(&m->odr_junctions, odr ? odr->n_junctions : 0);
	for (int r = 0; odr && r < odr->n_roads; r++)
		add_name(&m->odr_roads, odr->roads[r].id, r, road_name, m);
	for (int j = 0; odr && j < odr->n_junctions; j++)
		add_name(&m->odr_junctions, odr->junctions[j].id, j,
		         junction_name, m);
}

void map_names_free(vs_map *m)
{
	map_hidx_free(&m->by_uuid);
	map_hidx_free(&m->by_lane);
	map_hidx_free(&m->odr_roads);
	map_hidx_free(&m->odr_junctions);
}

/* A string longer than any UUID is measured no further than that. */
int vs_map_find_lane(const vs_map *map, const char *uuid)
{
	if (!map || !uuid || !map->by_uuid.slots)
		return -1;
	size_t len = strnlen(uuid, VS_MAP_UUID_LEN + 1);
	if (len > VS_MAP_UUID_LEN)
		return -1; /* every lane's UUID fits its field */
	const map_hidx *t = &map->by_uuid;
	uint64_t h = map_hidx_bytes(uuid, len);
	for (size_t k = map_hidx_home(t, h);; k = map_hidx_next(t, k)) {
		int64_t j = map_hidx_at(t, k, h);
		if (j == -1)
			return -1;
		const char *u = j >= 0 ? map->lanes[j].uuid : NULL;
		if (u && memcmp(u, uuid, len) == 0 && u[len] == '\0')
			return (int)j;
	}
}

int map_lane_of(const vs_map *m, const char *road, int section, int id)
{
	const map_hidx *t = &m->by_lane;
	if (!t->slots)
		return -1;
	uint64_t h = lane_key_hash(road, section, id);
	for (size_t k = map_hidx_home(t, h);; k = map_hidx_next(t, k)) {
		int64_t j = map_hidx_at(t, k, h);
		if (j == -1)
			return -1;
		if (j >= 0 && same_lane_key(&m->lanes[j], road, section, id))
			return (int)j;
	}
}

const odr_road *map_odr_road(const vs_map *m, const char *id)
{
	int r = find_name(&m->odr_roads, id, road_name, m);
	return r >= 0 ? &m->odr->roads[r] : NULL;
}

const odr_junction *map_odr_junction(const vs_map *m, const char *id)
{
	int j = find_name(&m->odr_junctions, id, junction_name, m);
	return j >= 0 ? &m->odr->junctions[j] : NULL;
}
