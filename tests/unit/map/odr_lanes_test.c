/* OpenDRIVE lanes against closed forms, on maps written here: a lane's
 * direction along short clothoids (MapLocation Angle against the
 * clothoid's heading hdg + k0·ds + c·ds²/2), <border> records (the outer
 * edge's t from the reference line), a lane with both <width> and
 * <border> (the widths count), lane UUIDs of road ids longer than 200
 * bytes (Python's uuid5 of the whole id), and what is within the
 * tolerances for s and lengths (1e-6 (1 + s) m). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_internal.h"
#include "test_map.h"

#define A_TOL 1e-3 /* rad: MapLocation Angle, as documented */

#define HEAD "<?xml version=\"1.0\"?>\n<OpenDRIVE>\n" \
	"<header revMajor=\"1\" revMinor=\"6\"/>\n"
#define CENTRE "<center><lane id=\"0\" type=\"none\"/></center>"
#define WLANE(id, w) \
	"<lane id=\"" id "\" type=\"driving\"><width sOffset=\"0\" a=\"" w \
	"\" b=\"0\" c=\"0\" d=\"0\"/></lane>"

/* ∫ (cos, sin)(h + k0·t + c·t²/2) dt over [0, d]: Simpson, 2000 pieces
 * (error far below a micrometre on the few metres used here). */
static void clothoid(double h, double k0, double c, double d, double *x,
                     double *y)
{
	const int n = 2000;
	double sx = 0, sy = 0, step = d / n;
	for (int i = 0; i <= n; i++) {
		double t = i * step, th = h + k0 * t + c * t * t / 2;
		double w = i == 0 || i == n ? 1 : i % 2 ? 4 : 2;
		sx += w * cos(th);
		sy += w * sin(th);
	}
	*x = sx * step / 3;
	*y = sy * step / 3;
}

/* A road from the origin heading +X: an arc of k0 over la (none if la is
 * 0), a spiral k0 -> k1 over ls, an arc of k1 over la; lanes 1 and -1 of
 * width w. Each lane's centre, at 40 points of the spiral, is on the lane
 * and travels along the clothoid's heading. */
static void short_spiral(double k0, double k1, double ls, double la,
                         double w)
{
	double x1 = 0, y1 = 0, h1 = 0; /* the spiral's start */
	if (la > 0) {
		x1 = sin(k0 * la) / k0;
		y1 = (1 - cos(k0 * la)) / k0;
		h1 = k0 * la;
	}
	double c = (k1 - k0) / ls, dx, dy;
	clothoid(h1, k0, c, ls, &dx, &dy);
	double h2 = h1 + k0 * ls + c * ls * ls / 2;
	char plan[2048], xml[4096];
	int n = 0;
	if (la > 0)
		n += snprintf(plan + n, sizeof plan - (size_t)n,
		              "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" "
		              "length=\"%.17g\"><arc curvature=\"%.17g\"/>"
		              "</geometry>\n", la, k0);
	n += snprintf(plan + n, sizeof plan - (size_t)n,
	              "<geometry s=\"%.17g\" x=\"%.17g\" y=\"%.17g\" "
	              "hdg=\"%.17g\" length=\"%.17g\"><spiral curvStart="
	              "\"%.17g\" curvEnd=\"%.17g\"/></geometry>\n", la, x1,
	              y1, h1, ls, k0, k1);
	if (la > 0)
		snprintf(plan + n, sizeof plan - (size_t)n,
		         "<geometry s=\"%.17g\" x=\"%.17g\" y=\"%.17g\" "
		         "hdg=\"%.17g\" length=\"%.17g\"><arc curvature="
		         "\"%.17g\"/></geometry>\n", la + ls, x1 + dx, y1 + dy,
		         h2, la, k1);
	snprintf(xml, sizeof xml, HEAD "<road id=\"S\" length=\"%.17g\">\n"
	         "<planView>\n%s</planView>\n<lanes><laneSection s=\"0\">"
	         "<left><lane id=\"1\" type=\"driving\"><width sOffset=\"0\" "
	         "a=\"%.17g\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>" CENTRE
	         "<right><lane id=\"-1\" type=\"driving\"><width sOffset="
	         "\"0\" a=\"%.17g\" b=\"0\" c=\"0\" d=\"0\"/></lane></right>"
	         "</laneSection></lanes>\n</road>\n</OpenDRIVE>\n",
	         2 * la + ls, plan, w, w);
	vs_error err;
	vs_map *m = load_xodr_text(xml, &err);
	ck_assert_msg(m, "%s", err.msg);
	for (int i = 0; i < 40; i++) {
		double d = ls * (i + 0.5) / 40, x, y;
		clothoid(h1, k0, c, d, &x, &y);
		double th = h1 + k0 * d + c * d * d / 2;
		for (int side = -1; side <= 1; side += 2) {
			double t = side * w / 2;
			vs_map_location l;
			vs_map_locate(m, x1 + x - t * sin(th),
			              y1 + y + t * cos(th), 0,
			              th + (side > 0 ? PI : 0), &l);
			const vs_lane *got = vs_map_lane(m, l.lane);
			ck_assert_msg(l.is_on_lane && got && got->lane == side,
			              "spiral %g -> %g over %g m, ds %g, lane "
			              "%d: not on it", k0, k1, ls, d, side);
			ck_assert_msg(fabs(wrap(l.angle)) <= A_TOL,
			              "spiral %g -> %g over %g m, ds %g, lane "
			              "%d: Angle %.6g rad on the lane's tangent",
			              k0, k1, ls, d, side, l.angle);
		}
	}
	vs_map_unref(m);
}

/* The lane direction was linear between stations that bounded chord sag
 * and position but not heading: 2.5e-3 rad on the first, 1.2e-3 to 1.8e-3
 * on the others. */
START_TEST(odr_short_spirals)
{
	short_spiral(-0.02, 0.02, 0.5, 20, 3.5); /* an S-bend */
	short_spiral(0, 0.1, 2, 0, 3);
	short_spiral(-0.1, 0.1, 1, 0, 3);
}
END_TEST

/* Lane coordinates on a road along +X from the origin: lane `lane` of
 * road at s has its centre at t_centre (m) and travels along heading. */
static void lane_at(const vs_map *m, const char *road, int lane, double s,
                    double t_centre, double heading)
{
	double p[3], h;
	char why[512];
	ck_assert_msg(!vs_map_odr_point(m, road, lane, s, 0, p, &h, why,
	                                sizeof why), "%s", why);
	ck_assert_msg(fabs(p[0] - s) < 1e-9 && fabs(p[1] - t_centre) < 1e-9,
	              "lane %d at s=%g: (%g, %g), want (%g, %g)", lane, s,
	              p[0], p[1], s, t_centre);
	ck_angle_eq(h, heading, 1e-9);
}

static int on_lane(const vs_map *m, double x, double y, double h)
{
	vs_map_location l;
	vs_map_locate(m, x, y, 0, h, &l);
	return l.is_on_lane ? vs_map_lane(m, l.lane)->lane : 0;
}

/* ASAM: a <border> is the lane's outer limit, a t coordinate, whatever
 * the lanes inside it. A line along +X, laneOffset 0.5; lane 1 width 3
 * (t 0.5 to 3.5); lane -1 border -3 - 0.01 s; lane -2 border -6.5. A
 * border was taken as a distance outward from the centre lane: -3 put
 * lane -1 on the left, and no point had a lane. */
START_TEST(odr_border_is_t)
{
	vs_error err;
	vs_map *m = load_xodr_text(
		HEAD "<road id=\"b\" length=\"100\">\n<planView>\n<geometry "
		"s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/>"
		"</geometry>\n</planView>\n<lanes>\n<laneOffset s=\"0\" "
		"a=\"0.5\" b=\"0\" c=\"0\" d=\"0\"/>\n<laneSection s=\"0\">"
		"<left>" WLANE("1", "3") "</left>" CENTRE "<right><lane "
		"id=\"-1\" type=\"driving\"><border sOffset=\"0\" a=\"-3\" "
		"b=\"-0.01\" c=\"0\" d=\"0\"/></lane><lane id=\"-2\" type="
		"\"driving\"><border sOffset=\"0\" a=\"-6.5\" b=\"0\" c=\"0\" "
		"d=\"0\"/></lane></right></laneSection>\n</lanes>\n</road>\n"
		"</OpenDRIVE>\n", &err);
	ck_assert_msg(m, "%s", err.msg);
	/* centres at s = 50: (0.5 - 3.5) / 2, (-3.5 - 6.5) / 2, 0.5 + 1.5;
	 * lanes -1 and -2 share the edge of slope -0.01 */
	lane_at(m, "b", -1, 50, -1.5, atan(-0.005));
	lane_at(m, "b", -2, 50, -5, atan(-0.005));
	lane_at(m, "b", 1, 50, 2, PI);
	ck_assert_int_eq(on_lane(m, 50, 0.45, 0), -1);
	ck_assert_int_eq(on_lane(m, 50, 0.55, PI), 1);
	ck_assert_int_eq(on_lane(m, 50, -3.45, 0), -1);
	ck_assert_int_eq(on_lane(m, 50, -3.55, 0), -2);
	ck_assert_int_eq(on_lane(m, 50, -6.45, 0), -2);
	ck_assert_int_eq(on_lane(m, 50, -6.55, 0), 0);
	for (int i = 0; i < vs_map_lane_count(m); i++)
		if (vs_map_lane(m, i)->lane == -1) /* 4 m at s = 50 */
			ck_assert_double_eq_tol(vs_map_lane_width_at(m, i, 0.5),
			                        4, 1e-9);
	vs_map_unref(m);
}
END_TEST

/* ASAM 1.6 on: with both <width> and <border>, the widths count (the
 * lane was refused). The border here, -10, would make lane -1 10 m wide. */
START_TEST(odr_width_and_border)
{
	static const char *const orders[2] = {
		"<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
		"<border sOffset=\"0\" a=\"-10\" b=\"0\" c=\"0\" d=\"0\"/>",
		"<border sOffset=\"0\" a=\"-10\" b=\"0\" c=\"0\" d=\"0\"/>"
		"<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"};
	for (int k = 0; k < 2; k++) {
		char xml[2048];
		snprintf(xml, sizeof xml, HEAD "<road id=\"w\" length=\"100\">"
		         "\n<planView>\n<geometry s=\"0\" x=\"0\" y=\"0\" "
		         "hdg=\"0\" length=\"100\"><line/></geometry>\n"
		         "</planView>\n<lanes>\n<laneSection s=\"0\">" CENTRE
		         "<right><lane id=\"-1\" type=\"driving\">%s</lane>"
		         "</right></laneSection>\n</lanes>\n</road>\n"
		         "</OpenDRIVE>\n", orders[k]);
		vs_error err;
		vs_map *m = load_xodr_text(xml, &err);
		ck_assert_msg(m, "%s", err.msg);
		lane_at(m, "w", -1, 50, -1.75, 0);
		ck_assert_int_eq(on_lane(m, 50, -3.45, 0), -1);
		ck_assert_int_eq(on_lane(m, 50, -3.55, 0), 0);
		vs_map_unref(m);
	}
}
END_TEST

/* A 20 m straight, then an arc of 0.005 1/m, lane -1 of 3 m widening
 * at 0.05 m/m from s = 20: the straight's lane edges are straight lines
 * and its width constant, so no station is needed between its ends. The
 * station at s = 20 took the next records' curvature and width slope as
 * the straight's, and 75 of 91 stations fell on the straight. */
START_TEST(odr_stations_follow_their_piece)
{
	vs_error err;
	vs_map *m = load_xodr_text(
		HEAD "<road id=\"s\" length=\"100\">\n<planView>\n"
		"<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"20\">"
		"<line/></geometry>\n<geometry s=\"20\" x=\"20\" y=\"0\" "
		"hdg=\"0\" length=\"80\"><arc curvature=\"0.005\"/>"
		"</geometry>\n</planView>\n<lanes>\n<laneSection s=\"0\">"
		CENTRE "<right><lane id=\"-1\" type=\"driving\"><width "
		"sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/><width "
		"sOffset=\"20\" a=\"3\" b=\"0.05\" c=\"0\" d=\"0\"/>"
		"</lane></right></laneSection>\n</lanes>\n</road>\n"
		"</OpenDRIVE>\n", &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(m->n_lanes, 1);
	const map_lane *g = &m->geo[0];
	int inside = 0;
	for (int j = 0; j < g->n_st; j++)
		inside += g->st[j].x > 1e-6 && g->st[j].x < 20 - 1e-6;
	ck_assert_int_eq(inside, 0);
	vs_map_unref(m);
}
END_TEST

/* A road of id ID along y = Y, lane -1. */
#define LINE_ROAD(id, y)                                                   \
	"<road id=\"" id "\" length=\"100\">\n<planView>\n<geometry s=\"0\" " \
	"x=\"0\" y=\"" y "\" hdg=\"0\" length=\"100\"><line/></geometry>\n"  \
	"</planView>\n<lanes>\n<laneSection s=\"0\">" CENTRE "<right>"       \
	WLANE("-1", "3") "</right></laneSection>\n</lanes>\n</road>\n"
#define R50 "RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR"
#define R200 R50 R50 R50 R50

/* The UUID's name holds the whole road id: ids alike in their first 200
 * bytes had one UUID, and a run failed on the results file's unique
 * lane_id. Python: uuid.uuid5(uuid.NAMESPACE_URL, "vsweep:odr:" +
 * "R" * 200 + "a:0:-1"), and "b". */
START_TEST(odr_long_road_ids)
{
	vs_error err;
	vs_map *m = load_xodr_text(HEAD LINE_ROAD(R200 "a", "0")
	                           LINE_ROAD(R200 "b", "10") "</OpenDRIVE>\n",
	                           &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 2);
	for (int i = 0; i < 2; i++) {
		const vs_lane *l = vs_map_lane(m, i);
		int b = l->road[200] == 'b';
		ck_assert_str_eq(l->uuid,
		                 b ? "{99d33c78-3498-5bc0-9ae7-a6b2768a09cd}"
		                   : "{5c5d4d9a-3e57-5ba7-bb0e-6bc9f2cd61df}");
	}
	vs_map_unref(m);
}
END_TEST

/* Within 1e-6 (1 + s) m, s and lengths meet: a joint 0.4 mm apart at
 * s = 500 and a length 0.9 mm short of the geometries at 1000 m load. A
 * singleSide section that leaves out a side the section before did not
 * have either changes nothing. */
START_TEST(odr_within_tolerance)
{
	vs_error err;
	vs_map *m = load_xodr_text(
		HEAD "<road id=\"t\" length=\"999.9991\">\n<planView>\n"
		"<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"500\">"
		"<line/></geometry>\n<geometry s=\"500.0004\" x=\"500\" y=\"0\" "
		"hdg=\"0\" length=\"499.9996\"><line/></geometry>\n</planView>\n"
		"<lanes>\n<laneSection s=\"0\">" CENTRE "<right>" WLANE("-1", "3")
		"</right></laneSection>\n<laneSection s=\"500\" singleSide="
		"\"true\">" CENTRE "<right>" WLANE("-1", "3") "</right>"
		"</laneSection>\n</lanes>\n</road>\n</OpenDRIVE>\n", &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(on_lane(m, 700, -1.5, 0), -1);
	vs_map_unref(m);
}
END_TEST

TCase *odr_lanes_tcase(void)
{
	TCase *tc = tcase_create("opendrive lanes");
	tcase_add_test(tc, odr_short_spirals);
	tcase_add_test(tc, odr_border_is_t);
	tcase_add_test(tc, odr_width_and_border);
	tcase_add_test(tc, odr_long_road_ids);
	tcase_add_test(tc, odr_stations_follow_their_piece);
	tcase_add_test(tc, odr_within_tolerance);
	return tc;
}
