/* Shared by the map suite's files: helpers and each file's test case. */
#ifndef VS_TEST_MAP_H
#define VS_TEST_MAP_H

#include <check.h>
#include <math.h>

#include "map/map.h"

#define PI 3.14159265358979323846
#define EPS 1e-9

/* Wraps an angle to (-pi, pi]. */
static inline double wrap(double a)
{
	a = remainder(a, 2 * PI);
	return a <= -PI ? a + 2 * PI : a;
}

/* Angles compare on the circle: pi and -pi + 1e-15 are neighbours. */
#define ck_angle_eq(a, b, tol) \
	ck_assert_msg(fabs(wrap((a) - (b))) <= (tol), "angle %.17g != %.17g", \
	              (double)(a), (double)(b))

/* A map from YAML text (its root is the map: node), named "m.yaml" in
 * messages; NULL with err set on error, or with err empty for no map. */
vs_map *parse_map(const char *yaml, vs_error *err);

/* The same, the YAML read as if from the file at path. */
vs_map *parse_map_at(const char *path, const char *yaml, vs_error *err);

/* An OpenDRIVE map from the text of a .xodr, written to a temporary
 * file; NULL with err set on error. */
vs_map *load_xodr_text(const char *xml, vs_error *err);

TCase *bad_map_tcase(void);    /* bad_maps.c */
TCase *odr_lanes_tcase(void);  /* odr_lanes_test.c */
TCase *odr_geom_tcase(void);   /* odr_geom_test.c */
TCase *odr_locate_tcase(void); /* odr_locate_test.c */
TCase *odr_bad_tcase(void);    /* odr_bad_test.c */
TCase *index_tcase(void);      /* brute_force.c */
TCase *straddle_tcase(void);   /* straddle_test.c */

#endif
