/* The road map: roads made of lanes, and where a point is on them
 * (docs/conventions.md "Map location", "Roads and lanes").
 *
 * Roads are circles or polylines with lanes on either side of the reference
 * line, numbered outward OpenDRIVE style: 1, 2, ... on the left, -1, -2, ...
 * on the right. Traffic keeps right, so a lane's centre line (and its s)
 * runs along the reference line for right lanes and against it for left
 * lanes. A circle's reference line starts at centre + (radius, 0) and runs
 * counter-clockwise, so its left side is the inside.
 *
 * Geometry is in plan view (x, y): a lane is the area between its left and
 * right boundaries, the curves at constant lateral offset from the
 * reference line. Circle lanes are exact arcs (annuli). Polyline lanes are
 * mitred: at each interior point the lane edges meet on the bisector of the
 * turn, so a lane is a chain of trapezoids that tile the road without gaps
 * or overlaps; s across a trapezoid is measured along the lines from one
 * mitre to the next, so it is continuous and, on the centre line, the
 * 3-D arc length. z only follows the reference line (no banking) and
 * breaks ties between equally aligned lanes (stacked roads); it never
 * decides whether a point is on a lane, because vehicle models may keep z
 * fixed while a road climbs. Lanes of different roads may overlap
 * (junctions, crossings): the most aligned one wins.
 *
 * OpenDRIVE networks (map: {opendrive: FILE}, odr_*.c) add lanes whose
 * areas are patches: side-by-side lanes between stations of a lane
 * section, their edges chords bent back onto the true curves (see
 * map_internal.h); s and Angle change linearly across a patch.
 *
 * A map is built once and is then read-only: any number of threads may call
 * the query functions at the same time. It is reference counted (atomic),
 * so variants share their seed's map instead of copying it. */
#ifndef VS_MAP_H
#define VS_MAP_H

#include "common/error.h"

struct vs_ydoc;
struct vs_ynode;

#define VS_MAP_UUID_LEN 38      /* "{8-4-4-4-12}": braces, hex, dashes */
#define VS_MAP_MAX_LANES 64     /* per side of one road */
#define VS_MAP_MAX_COORD 1e7    /* m: |x|, |y|, |z|, radius, widths */
#define VS_MAP_SLOW_SPEED 0.1   /* m/s: below it the heading is the travel
                                   direction (docs/conventions.md) */

typedef struct vs_map vs_map;

/* One lane, as the store's lane_info view needs it. */
typedef struct vs_lane {
	char uuid[VS_MAP_UUID_LEN + 1]; /* "{xxxxxxxx-xxxx-5xxx-yxxx-...}" */
	const char *road;               /* the road's id (owned by the map) */
	int road_index;                 /* into the roads as given */
	int lane;                       /* signed index: 1.. left, -1.. right */
	double length;                  /* m, along the 3-D centre line */
	double width;                   /* m */
	double inner, outer;            /* m, lateral offsets of the lane's
	                                   edges from the reference line,
	                                   left > 0; |inner| < |outer| */
	int closed;                     /* 1: a ring (circle road), s wraps */
	int section;                    /* OpenDRIVE lane section index from
	                                   0; 0 for YAML roads */
	const char *type;               /* OpenDRIVE lane type ("driving",
	                                   ...); "driving" for YAML roads */
} vs_lane;

/* A road to build, for vs_map_create (the YAML parser fills the same). */
typedef struct vs_map_road {
	const char *id;        /* unique, non-empty */
	int is_circle;         /* 1: circle, 0: polyline */
	double center[2];      /* m, circle */
	double radius;         /* m, circle, > 0 */
	double z;              /* m, circle */
	int n_points;          /* polyline: >= 2 */
	const double *points;  /* m, polyline: n_points rows of x y z */
	int n_left, n_right;   /* lanes on each side, 0..VS_MAP_MAX_LANES,
	                          at least one in all */
	const double *widths;  /* m, > 0, n_left + n_right of them: left lanes
	                          1..n_left (inner to outer), then right lanes
	                          -1..-n_right (inner to outer) */
} vs_map_road;

/* Where an actor is. */
typedef struct vs_map_location {
	int is_on_lane;   /* 1: the point (the actor origin) lies between the
	                     left and right boundaries of some lane, not
	                     necessarily the reported one */
	int lane;         /* index into the map's lanes; -1: no lane at all
	                     (empty map, or coordinates not finite) */
	double position;  /* normalised s in [0, 1] along the lane's centre
	                     line, in its travel direction */
	double angle;     /* rad in (-pi, pi]: from the lane tangent at that s
	                     to the travel direction, counter-clockwise > 0 */
	double distance;  /* m, in plan from the point to the lane's area;
	                     0 on the lane */
} vs_map_location;

/* An actor's footprint: its bounding box projected on the ground, a
 * rectangle centred on the actor origin. */
typedef struct vs_map_footprint {
	double half_width;  /* m, along the actor's X (right), >= 0 */
	double half_length; /* m, along its Y (forward), >= 0 */
	double yaw;         /* rad, RoadRunner yaw: 0 faces +Y */
} vs_map_footprint;

/* Builds a map from roads (n_roads >= 0; the strings and arrays are copied).
 * On error returns NULL and sets err to "road 'ID': message". */
vs_map *vs_map_create(const vs_map_road *roads, int n_roads, vs_error *err);

/* Reads the scenario's map: node (may be NULL or null: no map)
 * `{roads: [{id, circle: {center: [x, y], radius, z}, lanes}, {id,
 * polyline: [[x, y, z], ...], lanes}, {id, line: [[x, y, z], [x, y, z]],
 * lanes}, ...]}` with `lanes: {left: n, right: n, width: w | [w, ...]}`.
 * A circle's z defaults to 0, left and right to 0 (one lane at least); a
 * width list has one width per lane, left lanes 1..n first, then right
 * lanes -1..-n (each side from the reference line outward). Unknown keys
 * are errors. Sets *out to the map, or to NULL when there is no map or it
 * has no roads. Returns 0, or -1 with *out NULL and err set to
 * "FILE:LINE:COL: message". */
int vs_map_parse(const struct vs_ydoc *doc, const struct vs_ynode *node,
                 vs_map **out, vs_error *err);

/* Takes one more reference (map may be NULL); returns map. Thread-safe. */
vs_map *vs_map_ref(const vs_map *map);
/* Drops one reference and frees the map with the last. Accepts NULL.
 * Thread-safe, as long as nobody still queries through this reference. */
void vs_map_unref(vs_map *map);

/* Number of lanes (0 for NULL), and lane i of them in road order: each
 * road's left lanes 1..n, then its right lanes -1..-n; then the OpenDRIVE
 * lanes, road by road, section by section, each section's from its
 * rightmost lane to its leftmost. */
int vs_map_lane_count(const vs_map *map);
const vs_lane *vs_map_lane(const vs_map *map, int i);

/* The OpenDRIVE file map was read from (map: {opendrive: FILE}, joined
 * to the scenario file's directory) with the digest of its bytes as read
 * (vs_digest_stream) in *digest; NULL (and *digest NULL) for no map or
 * one without. A results file keeps the digest as identity: another
 * version of the file is another map. */
const char *vs_map_opendrive(const vs_map *map, const char **digest);

/* Index of the lane with this UUID, or -1. */
int vs_map_find_lane(const vs_map *map, const char *uuid);

/* Where (x, y, z) (m) is, for travel in direction travel_heading (rad from
 * +X): the lane that contains the point in plan and is most aligned with
 * the travel (smallest |angle|; ties: smaller |dz| to the lane, then lower
 * lane index), or when none contains it the lane whose area is nearest
 * (ties: lower lane index), with is_on_lane 0. A NULL or empty map, or a
 * non-finite argument, gives lane -1. Thread-safe; costs about the same
 * whatever the size of the map. */
void vs_map_locate(const vs_map *map, double x, double y, double z,
                   double travel_heading, vs_map_location *out);

/* MapLocation of an actor whose origin is at (x, y, z) (conventions.md:
 * the most aligned of the lanes it straddles). Candidates are the lanes that
 * hold the origin and those whose area the footprint overlaps (touching
 * is not overlapping); the one with the smallest |angle| wins; ties
 * (within 1e-9 rad against a lane holding the origin) go to a lane
 * holding the origin, then to the smaller |dz|, then to the lower lane
 * index. A lane is evaluated (position, angle, z) where it holds the
 * origin, else at its piece of area nearest the origin (distance is that
 * piece's distance). is_on_lane stays the origin's: 1 when the origin is
 * on some lane, whichever is reported. When the footprint overlaps no
 * lane and the origin is on none, the nearest lane, as vs_map_locate.
 * fp NULL (or a footprint of zero size) is vs_map_locate. An OpenDRIVE
 * lane's area is taken, for the overlap test alone, as the quadrilateral
 * of its corners between two stations (its edges' bends, under a few
 * millimetres, left out). Thread-safe. */
void vs_map_locate_footprint(const vs_map *map, double x, double y, double z,
                             double travel_heading,
                             const vs_map_footprint *fp,
                             vs_map_location *out);

/* The travel direction docs/conventions.md gives: the plan direction of the
 * velocity (m/s), or below VS_MAP_SLOW_SPEED the heading of RoadRunner yaw
 * (rad; yaw 0 faces +Y). Returns rad from +X. */
double vs_map_travel_heading(double vx, double vy, double yaw);

/* The point of lane i at normalised position p in [0, 1] (clamped) and
 * lateral offset (m, > 0 to the left of the travel direction; 0 on the
 * centre line, +-width/2 on the boundaries): xyz (m) and the heading of
 * the lane's travel direction there (rad from +X; may be NULL). Exact for
 * arcs. Returns 0, or -1 if i is not a lane. */
int vs_map_lane_point(const vs_map *map, int i, double p, double lateral,
                      double xyz[3], double *heading);

/* Lane i's width (m) at normalised position p (clamped to [0, 1]): an
 * OpenDRIVE lane's where it is, a YAML lane's everywhere; 0 if i is not a
 * lane. */
double vs_map_lane_width_at(const vs_map *map, int i, double p);

/* Lane i's neighbour travelling the same way on its left (side +1) or
 * right (side -1) as it travels, in the same road (and lane section), or
 * -1 when there is none. */
int vs_map_lane_neighbour(const vs_map *map, int i, int side);

/* The lane that lane i leads into at its end, or -1: a circle lane is its
 * own, a polyline lane has none; an OpenDRIVE lane follows its lane link
 * into the next lane section, across the road link, or through the
 * junction (the first connection in file order whose laneLink takes
 * it). */
int vs_map_lane_successor(const vs_map *map, int i);

/* 1 when lane i leads into lane j at its end, following the links as
 * vs_map_lane_successor does but through every junction connection whose
 * laneLink takes lane i (an incoming lane leads into each connecting
 * lane it is linked to), else 0. A circle lane leads into itself, a
 * polyline lane into none. */
int vs_map_lane_leads_into(const vs_map *map, int i, int j);

/* The curve of lane i at lateral offset (as above) as a polyline in travel
 * order, for drawing: polyline lanes give their vertices exactly, arcs are
 * split so no chord strays more than tolerance (m, > 0) from the arc, and
 * a ring repeats its first point last; an OpenDRIVE lane gives its
 * stations, its lateral offset scaled by the local width over the lane's
 * (mean) width, so that +-width/2 follows its edges where it narrows or
 * widens. Sets *xyz to a malloc'd array of
 * the returned number of rows of x y z (free it); returns -1 if i is not a
 * lane. */
int vs_map_lane_polyline(const vs_map *map, int i, double lateral,
                         double tolerance, double **xyz);

/* The road surface under (x, y) (m) for a body with RoadRunner yaw (rad;
 * 0 faces +Y): on an OpenDRIVE lane (one that is a lane for MapLocation),
 * the road's elevation with its superelevation there (z, m), and the
 * angles vs_map_settle describes (rad): pitch, the nose-up slope ahead
 * (about the body's X), and roll, the right-side-down bank (about its
 * Y), as R = Rz(yaw) Rx(pitch) Ry(roll) names them. Returns 1 on such a
 * lane; elsewhere (or without OpenDRIVE roads) 0 with z, pitch and roll
 * 0. Thread-safe. */
int vs_map_surface(const vs_map *map, double x, double y, double yaw,
                   double *z, double *pitch, double *roll);

/* Puts a state on the road surface (vs_map_surface) when the map has
 * OpenDRIVE roads: sets its z, and its pitch and roll so that R = Rz(yaw)
 * Rx(pitch) Ry(roll) lays the body on the surface: pitch (about the
 * body's lateral X axis) lifts the nose by the slope ahead, roll (about
 * its forward Y axis) turns the right side down by the bank; off every
 * road z, pitch and roll are 0. Without OpenDRIVE roads (or a NULL map)
 * the state is left as it is. */
void vs_map_settle(const vs_map *map, vs_state *s);

/* The world point of OpenDRIVE lane coordinates (docs/scenario.md, "Map"):
 * road id, lane id (in the lane section at s), s (m along the road's
 * reference line) and offset (m from the lane's centre, to the
 * left of the reference line > 0): xyz (m, z on the road surface) and the
 * lane's travel heading there (rad from +X). The map's hand-written
 * roads take them too (lane_coords.c: s in plan along the reference line,
 * the lane by its signed index), an OpenDRIVE road of the same id first.
 * Returns 0, or -1 with why (a message) when the map has no roads, or no
 * such road, s or lane. */
int vs_map_odr_point(const vs_map *map, const char *road, int lane, double s,
                     double offset, double xyz[3], double *heading,
                     char *why, size_t why_size);

/* Whether lane coordinates (road, lane, s, offset) are a point for every
 * s in [s0, s1] (m), as vs_map_odr_point takes them: the road exists, s0
 * and s1 lie on it, and the lane is in every lane section the interval
 * meets. *length receives the road's length (m along its reference
 * line), NAN when the map has no such road. Returns 0, or -1 with why
 * (vs_map_odr_point's message at the first s that fails). */
int vs_map_lane_span(const vs_map *map, const char *road, int lane,
                     double s0, double s1, double offset, double *length,
                     char *why, size_t why_size);

/* A point where the scenario takes one: `[x, y, z]` (heading NAN), or
 * `{road: ID, lane: N, s: S, offset: O}` on the map's roads
 * (vs_map_odr_point; offset defaults to 0; heading is the lane's travel direction). Returns
 * 0, or -1 with err set to "FILE:LINE:COL: what: message". */
int vs_map_parse_point(const struct vs_ydoc *doc, const struct vs_ynode *n,
                       const vs_map *map, const char *what, double xyz[3],
                       double *heading, vs_error *err);

/* The lane coordinates of such a point's node (already read by
 * vs_map_parse_point): the road id as the map holds it (valid while the
 * map lives), lane, s and offset. Returns 0, or -1 if it is no such
 * node. */
int vs_map_lane_coords(const vs_map *map, const struct vs_ynode *n,
                       const char **road, int *lane, double *s,
                       double *offset);

/* A list of at least min_rows such points, each at least 1 mm from the
 * one before in x-y (a route's legs need a horizontal run), into a malloc'd row-major *out of *rows rows (as vs_y_rows does). */
int vs_map_parse_points(const struct vs_ydoc *doc, const struct vs_ynode *n,
                        const vs_map *map, const char *what, int min_rows,
                        double **out, int *rows, vs_error *err);

/* Reads an OpenDRIVE file (path as given) into a map of its lanes. On
 * error returns NULL and sets err to "FILE:LINE:COL: message". */
vs_map *vs_map_load_opendrive(const char *path, vs_error *err);

#endif
