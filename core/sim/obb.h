/* Actor footprints as oriented rectangles on the ground plane. */
#ifndef VS_OBB_H
#define VS_OBB_H

/* A footprint: centre (the actor origin), half extents along the actor's
 * X (right) and Y (forward), and its yaw (rad, 0 faces +Y). */
typedef struct vs_obb {
	double cx, cy;   /* m */
	double hw, hl;   /* m, half width, half length */
	double yaw;      /* rad */
} vs_obb;

/* True when the two footprints overlap (touching is not overlapping). */
int vs_obb_overlap(const vs_obb *a, const vs_obb *b);

/* The distance between two footprints (m): 0 when they overlap, else the
 * shortest distance between their boundaries. */
double vs_obb_distance(const vs_obb *a, const vs_obb *b);

/* cos(yaw) and sin(yaw) of a footprint, as libm gives them. */
typedef struct vs_obb_trig {
	double c, s;
} vs_obb_trig;

/* vs_obb_distance with each footprint's cos and sin of its yaw given (the
 * monitor keeps them per actor: an actor in k pairs would need them k
 * times); the same result, bit for bit, for ta and tb libm's. */
double vs_obb_distance_trig(const vs_obb *a, vs_obb_trig ta, const vs_obb *b,
                            vs_obb_trig tb);

#endif
