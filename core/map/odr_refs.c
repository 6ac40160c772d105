/* The references between an OpenDRIVE file's roads and junctions
 * (odr.h: odr_check_refs): every id a road, a link, a connection or a
 * lane link names is there, each road and junction id once. Split from
 * odr_read.c, which calls it once every road and junction is read. */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "map/odr.h"

typedef struct named {
	const char *id;
	int idx;
} named;

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const named *)a)->id, ((const named *)b)->id);
}

/* The ids of the roads and junctions, sorted for look-up. */
typedef struct names {
	const odr_net *net;
	named *roads, *juncs;
} names;

static int find(const named *v, int n, const char *id)
{
	named key = {id, -1};
	const named *f = n ? bsearch(&key, v, (size_t)n, sizeof *v, named_cmp)
	                   : NULL;
	return f ? f->idx : -1;
}

static const odr_road *road_named(const names *nm, const char *id)
{
	int i = find(nm->roads, nm->net->n_roads, id);
	return i < 0 ? NULL : &nm->net->roads[i];
}

static int has_lane(const odr_section *q, int id)
{
	for (int k = 0; k < q->n_lanes; k++)
		if (q->lanes[k].id == id)
			return 1;
	return id == 0; /* the centre lane, which is not kept */
}

/* Ends of a road: bit 0 its start (first section), bit 1 its end. */
enum { AT_START = 1, AT_END = 2 };

/* A contactPoint left out may be either end. */
static int ends_of(int has_contact, int contact_end)
{
	if (!has_contact)
		return AT_START | AT_END;
	return contact_end ? AT_END : AT_START;
}

static const char *ends_name(int ends)
{
	if (ends == AT_START)
		return "at its start";
	return ends == AT_END ? "at its end" : "at either end";
}

static int has_lane_at(const odr_road *r, int ends, int id)
{
	return ((ends & AT_START) && has_lane(&r->sec[0], id)) ||
	       ((ends & AT_END) && has_lane(&r->sec[r->n_sec - 1], id));
}

/* A road's predecessor or successor (what): its element is there. */
static int check_link(const odr_reader *rd, const names *nm, const odr_link *l,
                      const char *what)
{
	if (!l->has)
		return 0;
	const odr_net *net = nm->net;
	int found = l->is_junction
	                    ? find(nm->juncs, net->n_junctions, l->id) >= 0
	                    : find(nm->roads, net->n_roads, l->id) >= 0;
	if (found)
		return 0;
	vs_error_at(rd->err, rd->path, l->mark, "<%s>: elementId=\"%.64s\" "
	            "names no %s", what, l->id,
	            l->is_junction ? "junction" : "road");
	return -1;
}

/* Lane l of section i of road r: its predecessor (succ 0) or successor
 * is a lane of the section before or after, or of the linked road at
 * the contact point. Through a junction its connections say. */
static int check_lane_link(const odr_reader *rd, const names *nm, const odr_road *r,
                           int i, const odr_lane *l, int succ)
{
	if (!(succ ? l->has_succ : l->has_pred))
		return 0;
	int id = succ ? l->succ : l->pred;
	const char *what = succ ? "successor" : "predecessor";
	vs_mark m = succ ? l->succ_mark : l->pred_mark;
	int next = i + (succ ? 1 : -1);
	if (next >= 0 && next < r->n_sec) {
		if (has_lane(&r->sec[next], id))
			return 0;
		vs_error_at(rd->err, rd->path, m, "road '%.64s': lane %d: its "
		            "%s, lane %d, is not in the %s lane section "
		            "(s=%g)", r->id, l->id, what, id,
		            succ ? "next" : "previous", r->sec[next].s);
		return -1;
	}
	const odr_link *lk = succ ? &r->succ : &r->pred;
	const odr_road *to = lk->has && !lk->is_junction
	                             ? road_named(nm, lk->id)
	                             : NULL;
	int ends = to ? ends_of(lk->has_contact, lk->contact_end) : 0;
	if (!to || has_lane_at(to, ends, id))
		return 0;
	vs_error_at(rd->err, rd->path, m, "road '%.64s': lane %d: its %s, "
	            "lane %d, is not a lane of road '%.64s' %s", r->id, l->id,
	            what, id, to->id, ends_name(ends));
	return -1;
}

static int check_road_refs(const odr_reader *rd, const names *nm, const odr_road *r)
{
	if (strcmp(r->junction, "-1") &&
	    find(nm->juncs, nm->net->n_junctions, r->junction) < 0) {
		vs_error_at(rd->err, rd->path, r->mark, "<road id=\"%.64s\">: "
		            "junction=\"%.64s\" names no junction", r->id,
		            r->junction);
		return -1;
	}
	if (check_link(rd, nm, &r->pred, "predecessor") ||
	    check_link(rd, nm, &r->succ, "successor"))
		return -1;
	for (int i = 0; i < r->n_sec; i++)
		for (int k = 0; k < r->sec[i].n_lanes; k++) {
			const odr_lane *l = &r->sec[i].lanes[k];
			if (check_lane_link(rd, nm, r, i, l, 0) ||
			    check_lane_link(rd, nm, r, i, l, 1))
				return -1;
		}
	return 0;
}

/* A connection's roads are there, and each laneLink takes a lane of the
 * incoming road where it meets the junction to one of the connecting
 * road at the contact point. */
static int check_junction_refs(const odr_reader *rd, const names *nm,
                               const odr_junction *j)
{
	for (int c = 0; c < j->n_conn; c++) {
		const odr_connection *k = &j->conn[c];
		const odr_road *in = road_named(nm, k->incoming);
		const odr_road *via = road_named(nm, k->connecting);
		if (!in || !via) {
			vs_error_at(rd->err, rd->path, k->mark, "<connection>: "
			            "%s=\"%.64s\" names no road",
			            in ? "connectingRoad" : "incomingRoad",
			            in ? k->connecting : k->incoming);
			return -1;
		}
		/* the incoming road's end whose link names this junction;
		 * either when neither does */
		int in_ends = 0;
		if (in->pred.has && in->pred.is_junction &&
		    strcmp(in->pred.id, j->id) == 0)
			in_ends |= AT_START;
		if (in->succ.has && in->succ.is_junction &&
		    strcmp(in->succ.id, j->id) == 0)
			in_ends |= AT_END;
		if (!in_ends)
			in_ends = AT_START | AT_END;
		int via_ends = ends_of(k->has_contact, k->contact_end);
		for (int l = 0; l < k->n_links; l++) {
			int from_ok = has_lane_at(in, in_ends, k->from[l]);
			if (from_ok && has_lane_at(via, via_ends, k->to[l]))
				continue;
			vs_error_at(rd->err, rd->path, k->link_marks[l],
			            "junction '%.64s': <laneLink %s=\"%d\">: "
			            "road '%.64s' (the %s road) has no lane %d "
			            "%s", j->id, from_ok ? "to" : "from",
			            from_ok ? k->to[l] : k->from[l],
			            from_ok ? via->id : in->id,
			            from_ok ? "connecting" : "incoming",
			            from_ok ? k->to[l] : k->from[l],
			            ends_name(from_ok ? via_ends : in_ends));
			return -1;
		}
	}
	return 0;
}

/* The file index of the first element (in file order) whose id an
 * earlier one has, in v sorted by id; -1 if none. Sorted, not compared
 * pairwise: a city's export has 10^4 roads. */
static int twice(const named *v, int n)
{
	int first = -1;
	for (int i = 0; i < n;) {
		int k = i + 1, lo = v[i].idx, later = -1;
		for (; k < n && strcmp(v[k].id, v[i].id) == 0; k++) {
			/* within the group the order is qsort's: the earliest
			 * is the original, the next earliest its repeat */
			int x = v[k].idx;
			if (x < lo) {
				later = later < 0 || lo < later ? lo : later;
				lo = x;
			} else if (later < 0 || x < later) {
				later = x;
			}
		}
		if (later >= 0 && (first < 0 || later < first))
			first = later;
		i = k;
	}
	return first;
}

/* Every id a road or junction names is there, and no two roads or two
 * junctions share one (read_root, once all are read: a road may name a
 * junction further down). */
int odr_check_refs(const odr_reader *rd, const odr_net *net)
{
	names nm = {net, vs_xcalloc((size_t)net->n_roads + 1, sizeof *nm.roads),
	            vs_xcalloc((size_t)net->n_junctions + 1, sizeof *nm.juncs)};
	for (int i = 0; i < net->n_roads; i++)
		nm.roads[i] = (named){net->roads[i].id, i};
	for (int i = 0; i < net->n_junctions; i++)
		nm.juncs[i] = (named){net->junctions[i].id, i};
	qsort(nm.roads, (size_t)net->n_roads, sizeof *nm.roads, named_cmp);
	qsort(nm.juncs, (size_t)net->n_junctions, sizeof *nm.juncs, named_cmp);
	int rd_dup = twice(nm.roads, net->n_roads);
	int j_dup = rd_dup < 0 ? twice(nm.juncs, net->n_junctions) : -1;
	int rc = rd_dup >= 0 || j_dup >= 0 ? -1 : 0;
	if (rd_dup >= 0)
		vs_error_at(rd->err, rd->path, net->roads[rd_dup].mark,
		            "<road id=\"%.64s\">: the id is used twice",
		            net->roads[rd_dup].id);
	else if (j_dup >= 0)
		vs_error_at(rd->err, rd->path, net->junctions[j_dup].mark,
		            "<junction id=\"%.64s\">: the id is used twice",
		            net->junctions[j_dup].id);
	for (int i = 0; i < net->n_roads && !rc; i++)
		rc = check_road_refs(rd, &nm, &net->roads[i]);
	for (int i = 0; i < net->n_junctions && !rc; i++)
		rc = check_junction_refs(rd, &nm, &net->junctions[i]);
	free(nm.roads);
	free(nm.juncs);
	return rc;
}
