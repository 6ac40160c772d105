/* An actor's body as geometry: where its axles and contact points lie in
 * the actor frame (X right, Y forward, Z up, origin at the middle of the
 * bounding box on the ground), given its asset and its possibly varied
 * dimensions. Every formula for these is here once.
 *
 * Pure: numbers in, numbers out. This folder includes nothing of core/
 * but common/, so it sits below both input/ (which checks contact points
 * and a trailer's hitch when it reads a file) and sim/ (which places
 * actors every variant).
 *
 * What a dimension change does (the variant is built by input/, which
 * sets length and the overhangs; see vs_sweep_apply_dimensions):
 *   - the front axle sits front_overhang behind the front bumper and the
 *     rearmost rear_overhang ahead of the rear bumper; axles between keep
 *     their relative spacing from the asset. A length change alone moves
 *     rear_overhang by the same amount, so every axle shifts by
 *     dlength / 2 and the wheelbase stays;
 *   - Front and Rear are the ends of the box, (0, +-length/2, 0); Origin
 *     is (0, 0, 0);
 *   - an asset's imported point is measured from the front bumper: it
 *     shifts by dlength / 2 in y, like the axles. */
#ifndef VS_GEOM_GEOMETRY_H
#define VS_GEOM_GEOMETRY_H

#include "common/util.h"

/* m: a trailer's contact point must lie at least this far ahead of its
 * axles' centre; below it the trailer's yaw rate has no finite value. */
#define VS_GEOM_MIN_TOW 1e-3

/* What the geometry of one actor depends on. */
typedef struct vs_geom_body {
	double length;             /* m, the actor's box (varied or not) */
	double front_overhang;     /* m, front bumper to front axle */
	double rear_overhang;      /* m, rearmost axle to rear bumper */
	double asset_length;       /* m, the asset's box, which its axles
	                              and points were measured on */
	int n_axles;               /* 0: not a vehicle */
	const double *asset_axle_y; /* m, the asset's axles, front first */
} vs_geom_body;

/* Contact points (RoadRunner's ActorAttachmentPoint): computed from the
 * box, or one of the asset's imported points. */
typedef enum vs_geom_point {
	VS_GEOM_FRONT = 1,
	VS_GEOM_ORIGIN = 2,
	VS_GEOM_REAR = 3,
	VS_GEOM_IMPORTED = 4
} vs_geom_point;

/* The actor's axle positions y (m, actor frame, front first) into axle_y,
 * which holds b->n_axles values; returns the count (0: no axles). With
 * the asset's own length and overhangs these are the asset's axles. */
int vs_geom_axles(const vs_geom_body *b, double *axle_y);

/* The axles plugins steer about: the front axle, and the rear reference,
 * the centre of the axles behind the front one (a tandem turns about its
 * middle; a single axle is its own reference). n > 0. */
void vs_geom_axle_refs(const double *axle_y, int n, double *front_y,
                       double *rear_y);

/* The centre of all n > 0 axles (m): where an unsteered axle group, such
 * as a trailer's, turns. */
double vs_geom_axle_centre(const double *axle_y, int n);

/* Where a contact point lies, actor frame (m). asset_p is the imported
 * point as the asset gives it (used only for VS_GEOM_IMPORTED; NULL there
 * gives the origin). */
void vs_geom_point_pos(const vs_geom_body *b, vs_geom_point kind,
                       const double asset_p[3], double out[3]);

#endif
