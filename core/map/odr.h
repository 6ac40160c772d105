/* An ASAM OpenDRIVE road network as read from a .xodr file (odr_read.c),
 * and the exact geometry of its roads (odr_geom.c): reference lines,
 * lane boundary offsets, elevation and superelevation. Internal to the
 * map module; map building (odr_build.c) turns it into lanes and records.
 *
 * Units are those of the file: metres and radians. s is the road's
 * reference-line arc length, t the lateral offset from the reference line
 * in plan (left > 0), as in OpenDRIVE. */
#ifndef VS_MAP_ODR_H
#define VS_MAP_ODR_H

#include "common/error.h"

enum odr_kind {
	ODR_LINE,
	ODR_ARC,
	ODR_SPIRAL,
	ODR_POLY3,
	ODR_PARAM_POLY3
};

/* One planView geometry record. */
typedef struct odr_geom {
	double s, x, y, hdg, len; /* m, m, m, rad, m */
	int kind;                 /* enum odr_kind */
	double k0, k1;            /* 1/m: arc (k0), spiral start and end */
	double a[4], b[4];        /* poly3: a = v(u) coefficients; paramPoly3:
	                             a = U(p), b = V(p) */
	int normalized;           /* paramPoly3: p in [0, 1], else p = ds */
	double *u_of_s;           /* poly3: u at POLY3_TABLE + 1 even steps of
	                             arc length, for Newton's first guess */
	vs_mark mark;
} odr_geom;

#define ODR_POLY3_TABLE 64

/* A cubic a + b·d + c·d² + d·d³ in d = s - s0 (s0 absolute or relative,
 * as the record says). */
typedef struct odr_poly {
	double s0, c[4];
} odr_poly;

/* A <height> record: the lane's surface raised by inner (m) at its inner
 * edge and outer (m) at its outer edge, linear across, from s0 (relative
 * to the section's start) to the next record. */
typedef struct odr_height {
	double s0, inner, outer;
} odr_height;

typedef struct odr_link {
	int has;         /* 0: none */
	int is_junction; /* elementType junction */
	char *id;        /* elementId */
	int contact_end; /* 1: contactPoint end */
	int has_contact; /* contactPoint given (else start is assumed) */
	vs_mark mark;
} odr_link;

typedef struct odr_lane {
	int id;              /* OpenDRIVE lane id: > 0 left, < 0 right */
	char *type;          /* "driving", "border", ... */
	int is_border;       /* widths are <border> records: the outer
	                        edge's t (m, from the reference line) */
	int n_width;
	odr_poly *width;     /* s0 relative to the section's start */
	int level;           /* level="true": no superelevation across it */
	int n_height;
	odr_height *height;  /* s0 relative to the section's start */
	int has_pred, has_succ;
	int pred, succ;      /* lane links (kept for routing later) */
	vs_mark mark, pred_mark, succ_mark;
} odr_lane;

typedef struct odr_section {
	double s;            /* m, start along the road */
	int n_lanes;
	odr_lane *lanes;     /* left lanes outward (1, 2, ...), then right
	                        lanes outward (-1, -2, ...); no centre lane */
	int n_left;
	int single_side;     /* singleSide="true" */
	vs_mark mark;
} odr_section;

typedef struct odr_road {
	char *id;
	char *junction;      /* "-1" or the junction's id */
	double length;       /* m */
	int lht;             /* rule="LHT": left lanes run along the line */
	int n_geom;
	odr_geom *geom;
	int n_offset, n_elev, n_super;
	odr_poly *offset, *elev, *super; /* s0 absolute */
	int n_sec;
	odr_section *sec;
	odr_link pred, succ;
	vs_mark mark;
} odr_road;

typedef struct odr_connection {
	char *incoming, *connecting;
	int contact_end, has_contact;
	int n_links;
	int *from, *to;      /* laneLink pairs */
	vs_mark mark;
	vs_mark *link_marks; /* each laneLink's */
} odr_connection;

typedef struct odr_junction {
	char *id;
	int n_conn;
	odr_connection *conn;
	vs_mark mark;
} odr_junction;

typedef struct odr_net {
	char *path;
	char digest[17];     /* the file's bytes as read (vs_digest_stream) */
	int n_roads;
	odr_road *roads;
	int n_junctions;
	odr_junction *junctions;
} odr_net;

/* Where a reading's messages go: the file's path and the error. */
typedef struct odr_reader {
	const char *path;
	vs_error *err;
} odr_reader;

/* Every id net's roads, links, connections and lane links name is there,
 * and no two roads or two junctions share an id (odr_refs.c); 0, or -1
 * with the first in file order said in rd->err. */
int odr_check_refs(const odr_reader *rd, const odr_net *net);

/* Reads an OpenDRIVE file. On error returns NULL and sets err to
 * "FILE:LINE:COL: message". */
odr_net *odr_read(const char *path, vs_error *err);

void odr_free(odr_net *net);

/* The reference line at s (clamped to the road): position (m) and
 * heading (rad); curvature (1/m) when k is not NULL. */
void odr_ref(const odr_road *r, double s, double *x, double *y, double *hdg,
             double *k);

/* A cubic record list at s: its value and derivative. Records are sorted
 * by s0; rel is subtracted from s first (section-relative records). An
 * empty list gives 0. */
double odr_poly_at(const odr_poly *p, int n, double s, double *deriv);

/* The section of road r that holds s. */
int odr_section_at(const odr_road *r, double s);

/* The lateral offset t (m) of the outer boundary of lane index k of
 * section sec at s, and its derivative dt/ds. k = -1 is the centre lane
 * (laneOffset). */
double odr_boundary(const odr_road *r, int sec, int k, double s,
                    double *dt);

/* The road surface's height z (m) at (s, t) in section sec of road r,
 * and its slopes dz/ds at constant t and dz/dt (odr_surface.c). */
double odr_surface(const odr_road *r, int sec, double s, double t,
                   double *dzds, double *dzdt);

/* Prepares a poly3 record's arc-length table (odr_read calls it). */
void odr_geom_prepare(odr_geom *g);

/* A paramPoly3 record's curve length (m) over its range of p. */
double odr_pp3_arc_length(const odr_geom *g);

/* Does this lane type take part in MapLocation? */
int odr_type_is_lane(const char *type);

#endif
