/* The map's insides, shared by its source files (not a public interface). */
#ifndef VS_MAP_INTERNAL_H
#define VS_MAP_INTERNAL_H

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/util.h"
#include "map/hidx.h"
#include "map/map.h"

struct odr_net;

#define MAP_PI 3.14159265358979323846

/* One segment of a polyline road's reference line, in plan. A point p has
 * local coordinates x = (p - start)·u along and y = (p - start)·n across
 * (n = u turned left). The lateral line through the start vertex is
 * x = ks·y, through the end vertex x = len + ke·y: the mitre lines, so the
 * lane edges of neighbouring segments meet on them. */
typedef struct map_seg {
	double ux, uy;   /* unit direction */
	double len;      /* m, plan length */
	double dz;       /* m, rise from start to end */
	double ks, ke;   /* mitre slopes at start and end (0 at road ends) */
} map_seg;

typedef struct map_road {
	char *id;
	int is_circle;
	double cx, cy, radius, z; /* m, circle */
	int n_points;             /* polyline */
	double *points;           /* m, rows of x y z */
	map_seg *segs;            /* n_points - 1 */
	int first_lane, n_lanes;  /* the road's lanes in vs_map.lanes */
} map_road;

/* What the lane query needs beyond vs_lane. */
typedef struct map_lane {
	int dir;          /* +1: travels along the reference line (right lanes),
	                     -1: against it (left lanes) */
	double centre;    /* m: lateral offset of the centre line (polyline),
	                     or its radius (circle) */
	double *seg_s;    /* polyline: 3-D centre-line length from the
	                     reference line's start to each vertex, n_points */
	int n_st;         /* OpenDRIVE lane: its centre line at the stations
	                     of its section, in travel order; 0 otherwise */
	struct map_station *st;
} map_lane;

/* A point of an OpenDRIVE lane's centre line. */
typedef struct map_station {
	double x, y, z;   /* m */
	double heading;   /* rad from +X, the travel direction */
	double p;         /* normalised position along the lane */
	double half;      /* m: half the lane's width there */
} map_station;

/* The pieces of road area the index points at ("records"): a polyline
 * road's trapezoid over one reference segment, all its lanes side by side
 * (a quad), or a whole circle road (a ring). A lookup tests the records
 * of its cell for containment, then finds the lane across the record, so
 * what that test needs is kept apart and small: a quad is one cache line,
 * a ring half of one; the rest, needed only by candidates, is in
 * map_info. Record ids: quads 0..n_quads-1, then rings. */

/* A quad in its own frame: origin at its corner on the start mitre line
 * and the road's right edge, x along the reference segment, y across it
 * to the left. The piece is 0 <= y <= w, ks·y <= x <= len + ke·y. */
typedef struct map_quad {
	double ox, oy;   /* m: the corner */
	double ux, uy;   /* the reference segment's unit direction */
	double len;      /* m: the right edge's length (> 0) */
	double ks, ke;   /* mitre slopes at the start and end (0 at road
	                    ends) */
	double w;        /* m: the road's width */
} map_quad;

/* A patch: side by side lanes (a run of lanes for MapLocation, no other
 * lane between them) of an OpenDRIVE lane section between two stations,
 * the quadrilateral a (start, right edge), b (end, right), c (end, left),
 * d (start, left), right and left, start and end as the reference line
 * runs. A point's (u, v) in it are found by inverting the bilinear map
 * a + u·(b - a) + v·(d - a) + u·v·(a - b + c - d); neighbouring patches
 * share corners, so they tile the road without gaps. Its lanes are the
 * map_slane entries info.across .. + info.n_lanes. */
typedef struct map_patch {
	double x[4], y[4]; /* m: a, b, c, d */
} map_patch;

/* One lane of a patch: where it is across (v, from the right edge) at
 * the start and end, and what changes linearly in u along it. */
typedef struct map_slane {
	double lo0, hi0, lo1, hi1; /* v of its right and left edges, at the
	                              start (u = 0) and end (u = 1) */
	double p0, p1;             /* normalised lane position there */
	double h0, dh;             /* rad: travel direction at u = 0, and
	                              its change to u = 1 */
	double blo, bhi;           /* bends of its right and left edges
	                              (v units, + towards larger v): the
	                              edge is at lin(u) + 4·b·u·(1 - u) */
	double z0, dz;             /* m: centre-line z, and its rise */
	int32_t lane;              /* index into vs_map.lanes */
} map_slane;

/* Where a patch is on its OpenDRIVE road, for the surface under it. */
typedef struct map_psurf {
	int32_t road;         /* into vs_map.odr roads */
	double s0, s1;        /* m: reference-line s at the start and end */
	double lo0, hi0;      /* m: lateral offsets of the right and left
	                         edges at the start */
	double lo1, hi1;      /* ... and at the end */
} map_psurf;

/* A ring: the annulus lo <= |p - o| <= hi. */
typedef struct map_ring {
	double ox, oy;   /* m: the circle's centre */
	double lo, hi;   /* m: the road's inner and outer radius */
} map_ring;

typedef struct map_info {
	double heading;      /* rad from +X: the reference direction (quad);
	                        the travel direction at the start (patch) */
	double oz, dz;       /* m: z at the piece's start and its rise (quad);
	                        the circle's z (ring) */
	int32_t first_lane;  /* the road's lanes: first_lane + k, k < n_lanes;
	                        the first n_left run against the reference */
	int32_t n_lanes, n_left;
	int32_t seg;         /* reference segment; -1: a ring */
	int32_t across;      /* its lanes are across[across + k] */
	/* patches: their right (lo) and left (hi) edges are the chords
	 * between stations bent by a parabola, v + 4·b·u·(1 - u), b in v
	 * units (outward > 0: lo's b is subtracted); reach (m) bounds how
	 * far the bent edges stray outside the chords */
	double blo, bhi, reach;
} map_info;

/* Lane k of a record: where it is across the record, and (quad) its
 * normalised position at the start and end mitre lines. */
typedef struct map_across {
	double y0, y1;   /* m: from the road's right edge (quad), or radii
	                    (ring); y0 < y1 */
	double p0, p1;
} map_across;

/* A cell of a uniform grid, found through an open-addressing hash so that
 * empty space costs nothing. Short record lists sit in the slot itself,
 * so that a cell costs one cache miss; longer ones in map_grid.cell_recs.
 * Four slots to a cache line. */
#define MAP_SLOT_IDS 2
#define MAP_SLOT_MANY 0xffffu  /* count field: the count is stored in
                                  cell_recs just before the list */
typedef struct map_slot {
	uint64_t word;               /* key << 16 | count (at most
	                                MAP_SLOT_MANY), key = iy·nx + ix;
	                                MAP_NO_KEY: empty */
	uint32_t ids[MAP_SLOT_IDS];  /* count <= MAP_SLOT_IDS: the record
	                                ids; else ids[0] is where they start
	                                in cell_recs */
} map_slot;

#define MAP_NO_KEY UINT64_MAX  /* no cell key reaches 2^48 - 1 */

#define MAP_LEVELS 8   /* grids, each 8 times coarser than the last */

/* Cell (ix, iy) covers x0 + [ix, ix + 1)·cell, likewise y; only
 * 0 <= ix < nx, 0 <= iy < ny can hold records. Record indices in a cell
 * ascend. */
typedef struct map_grid {
	double x0, y0, cell;  /* m */
	int64_t nx, ny;
	uint64_t n_slots;
	map_slot *slots;
	uint32_t n_cells;     /* occupied */
	uint64_t *occupied;   /* a bit per cell, set when it holds records, so
	                         that empty cells cost no hash probe; NULL
	                         for grids too large for one */
	uint32_t *cell_recs;
	size_t n_cell_recs;   /* entries of cell_recs */
} map_grid;

struct vs_map {
	atomic_int refs;
	int n_roads;
	map_road *roads;
	int n_lanes;
	vs_lane *lanes;
	map_lane *geo;      /* n_lanes */
	int n_recs, n_quads;
	map_quad *quads;    /* road by road, segment by segment */
	map_ring *rings;    /* n_recs - n_quads, road by road */
	int n_patches;
	map_patch *patches; /* the last n_patches records */
	map_psurf *psurf;   /* n_patches */
	map_slane *slanes;  /* the patches' lanes */
	struct odr_net *odr; /* the OpenDRIVE network, or NULL */
	map_info *info;     /* n_recs, by record id */
	map_across *across; /* per record, one per lane of its road */
	/* levels[0] finds the lanes containing a point; the coarser ones
	 * bound the search for the nearest lane off the road, so that a
	 * point far from any lane costs a few cells too. */
	int n_levels;
	map_grid levels[MAP_LEVELS];
	double (*rec_box)[4]; /* n_recs: each record's plan box, xmin ymin
	                         xmax ymax (m), bent edges included */
	size_t n_across, n_slanes; /* entries of across and slanes */
	/* names.c: lanes by UUID, by (road, section, lane id); OpenDRIVE
	 * roads and junctions by id */
	map_hidx by_uuid, by_lane, odr_roads, odr_junctions;
};

/* Moves an array of bytes (malloc'd) to memory the kernel may back with
 * huge pages, when it is large enough for them to matter: a lookup on a
 * large map reads a few records at random, and with 4 KiB pages each of
 * those reads would miss the TLB too. Returns the new home (the old is
 * freed), or p itself. */
void *map_huge(void *p, size_t bytes);

/* Builds the grids over the records (grid.c). */
void map_index_build(vs_map *m);

/* An actor's footprint in plan (footprint.c): its corners, its X axis
 * (unit) and its box. */
typedef struct map_rect {
	double p[4][2];  /* m, corners in order */
	double ax, ay;   /* the actor's X (right) in the world */
	double box[4];   /* m: xmin ymin xmax ymax */
} map_rect;

/* The footprint centred on (x, y) (m) with these half extents (m) and
 * RoadRunner yaw (rad). */
void map_rect_make(double x, double y, double half_width,
                   double half_length, double yaw, map_rect *r);

/* What a ring record's lanes share for one footprint and point: the
 * rectangle's nearest and farthest plan distances from the ring's centre
 * and the point's (m), worked out at the first of its lanes asked about
 * and reused for the others (the same numbers). Zero-initialise (id
 * UINT32_MAX: none) per footprint. */
typedef struct map_ring_span {
	uint32_t id;
	double near, far, d;
} map_ring_span;

/* Does the footprint overlap lane piece j of record id (j: the lane's
 * entry across the record, map_across or map_slane)? If so returns 1 and
 * sets dist to the plan distance (m) from (px, py) to that piece, 0 on
 * it. span carries a ring's distances from lane to lane of one record. */
int map_piece_straddled(const vs_map *m, uint32_t id, int j,
                        const map_rect *r, double px, double py,
                        map_ring_span *span, double *dist);

/* Frees the grids. */
void map_index_free(vs_map *m);

/* The name indexes (names.c), built once the lanes and the OpenDRIVE
 * network are in place, and freed with the map. */
void map_names_build(vs_map *m);
void map_names_free(vs_map *m);

/* The lane of road (the map's own pointer to the road's id, as in
 * vs_lane.road), lane section and lane id, or -1. */
int map_lane_of(const vs_map *m, const char *road, int section, int id);

/* The OpenDRIVE road or junction with this id, or NULL (ids are unique:
 * odr_check_refs). */
struct odr_road;
struct odr_junction;
const struct odr_road *map_odr_road(const vs_map *m, const char *id);
const struct odr_junction *map_odr_junction(const vs_map *m,
                                            const char *id);

/* vs_map_odr_point on the map's hand-written roads (lane_coords.c):
 * 0 with xyz and heading, -1 with why, or 1 when no such road is among
 * them and the map has OpenDRIVE roads (or none at all) to try. */
int map_yaml_lane_point(const vs_map *m, const char *road, int lane,
                        double s, double offset, double xyz[3],
                        double *heading, char *why, size_t why_size);

/* The length (m) of the hand-written road with this id, or NAN. */
double map_yaml_road_length(const vs_map *m, const char *road);

/* Wraps an angle to (-pi, pi]. */
double map_wrap(double a);

/* The RFC 4122 version-5 (SHA-1, URL namespace) UUID of name, as
 * RoadRunner prints it: "{8-4-4-4-12}" lowercase, into out. */
void map_uuid5(const char *name, char out[VS_MAP_UUID_LEN + 1]);

/* Builds like vs_map_create, adding the lanes of an OpenDRIVE network
 * (may be NULL; the map takes it over, freeing it on failure too); marks,
 * when not NULL, place messages in the file at path (see parse.c). */
typedef struct map_marks {
	vs_mark road, id, geom, lanes;
	const vs_mark *points; /* polyline: one per point */
} map_marks;
vs_map *map_build(const vs_map_road *roads, int n_roads,
                  const map_marks *marks, const char *path,
                  struct odr_net *odr, vs_error *err);

/* The lanes and patches of an OpenDRIVE network, laid out on their own
 * (odr_build.c): slanes[].lane counts from the first of these lanes,
 * info[k].across from the first of these slanes. */
typedef struct map_odr_out {
	int n_lanes;
	vs_lane *lanes;
	map_lane *geo;
	int n_patches;
	map_patch *patches;
	map_psurf *psurf;
	map_info *info;
	int n_slanes;
	map_slane *slanes;
} map_odr_out;
void map_odr_layout(const struct odr_net *odr, map_odr_out *out);


/* ---- helpers for grid.c and locate.c ----------------------------------- */

static inline int map_is_patch(const vs_map *m, uint32_t id)
{
	return id >= (uint32_t)(m->n_recs - m->n_patches);
}

static inline int map_is_ring(const vs_map *m, uint32_t id)
{
	return id >= (uint32_t)m->n_quads && !map_is_patch(m, id);
}

static inline const map_patch *map_patch_of(const vs_map *m, uint32_t id)
{
	return &m->patches[id - (uint32_t)(m->n_recs - m->n_patches)];
}

static inline const map_psurf *map_psurf_of(const vs_map *m, uint32_t id)
{
	return &m->psurf[id - (uint32_t)(m->n_recs - m->n_patches)];
}

/* Is (px, py) within reach (m) of a patch's corners' box (and a
 * rounding margin)? */
static inline int map_patch_in_box(const map_patch *q, double px, double py,
                                   double reach)
{
	const double m = reach + 1e-9 * (1 + fabs(px) + fabs(py));
	return !((px < q->x[0] - m && px < q->x[1] - m && px < q->x[2] - m &&
	          px < q->x[3] - m) ||
	         (px > q->x[0] + m && px > q->x[1] + m && px > q->x[2] + m &&
	          px > q->x[3] + m) ||
	         (py < q->y[0] - m && py < q->y[1] - m && py < q->y[2] - m &&
	          py < q->y[3] - m) ||
	         (py > q->y[0] + m && py > q->y[1] + m && py > q->y[2] + m &&
	          py > q->y[3] + m));
}

/* Are (u, v) in a patch's unit square, up to rounding? */
static inline int map_in_unit(double u, double v)
{
	const double slack = 1e-9;
	return u >= -slack && u <= 1 + slack && v >= -slack &&
	       v <= 1 + slack;
}

/* (u, v) of the point (px, py) in a patch (map_patch), for points
 * within reach (m) of its box; returns 0 without them when the point is
 * further. */
int map_patch_uv(const map_patch *q, double px, double py, double reach,
                 double *u, double *v);

/* Is v within a patch lane's edges at u (bends included)? */
static inline int map_slane_holds(const struct map_slane *l, double u,
                                  double v)
{
	double bend = 4 * u * (1 - u);
	double lo = l->lo0 + u * (l->lo1 - l->lo0) + bend * l->blo;
	double hi = l->hi0 + u * (l->hi1 - l->hi0) + bend * l->bhi;
	return v >= lo - 1e-9 && v <= hi + 1e-9;
}

/* The first patch (lowest record id) containing (x, y) and the point's
 * (u, v) in it; returns 0, or -1 when no patch holds the point. */
int map_patch_find(const vs_map *m, double x, double y, uint32_t *id,
                   double *u, double *v);

/* Plan distance (m) from (px, py) to a patch, 0 inside, and the (u, v)
 * of the patch's nearest point. */
double map_patch_nearest(const map_patch *q, double px, double py,
                         double *u, double *v);

static inline const map_ring *map_ring_of(const vs_map *m, uint32_t id)
{
	return &m->rings[id - (uint32_t)m->n_quads];
}

/* Coordinates of (px, py) in a quad's frame. */
static inline void map_local(const map_quad *r, double px, double py,
                             double *x, double *y)
{
	double dx = px - r->ox, dy = py - r->oy;
	*x = dx * r->ux + dy * r->uy;
	*y = dy * r->ux - dx * r->uy;
}

/* The quad's corners in its frame, counter-clockwise: start-right,
 * end-right, end-left, start-left. */
static inline void map_corners(const map_quad *r, double c[4][2])
{
	c[0][0] = 0;
	c[0][1] = 0;
	c[1][0] = r->len;
	c[1][1] = 0;
	c[2][0] = r->len + r->ke * r->w;
	c[2][1] = r->w;
	c[3][0] = r->ks * r->w;
	c[3][1] = r->w;
}

static inline uint64_t map_cell_key(const map_grid *g, int64_t ix,
                                    int64_t iy)
{
	return (uint64_t)iy * (uint64_t)g->nx + (uint64_t)ix;
}

/* Where a cell key's probe starts in a grid's slots. */
static inline uint64_t map_slot_hash(const map_grid *g, uint64_t key)
{
	key *= 0x9e3779b97f4a7c15u;
	return (key ^ (key >> 29)) % g->n_slots;
}

#endif
