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

/* A footprint made ready for distances (vs_obb_ready): its corners, axes
 * and edges, worked out once per step for all the pairs an actor is in. */
typedef struct vs_obb_box {
	double p[4][2];        /* m, corners counter-clockwise, world */
	double c, s;           /* cos yaw, sin yaw */
	double cx, cy, hw, hl; /* m, as the vs_obb's */
	double ex[4], ey[4];   /* m, edge j: p[j + 1] - p[j] */
	double len2[4];        /* m^2, its squared length */
	double scale;          /* m, 1 + the largest a coordinate can be */
} vs_obb_box;

/* b made ready from o with t its yaw's cos and sin (libm's). */
void vs_obb_ready(const vs_obb *o, vs_obb_trig t, vs_obb_box *b);

/* vs_obb_distance of two ready footprints: the same result, bit for bit. */
double vs_obb_box_distance(const vs_obb_box *a, const vs_obb_box *b);

#endif
