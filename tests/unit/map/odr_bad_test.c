/* Malformed and unsupported OpenDRIVE files, table-driven: each is written
 * to a temporary file and must give "FILE:LINE:COL: message" (elements
 * are at column 1: libxml2 keeps no element columns). Also a directory
 * for a file, a lane of no width anywhere (which loads), and the map:
 * key's `opendrive:` path from a scenario file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map/odr.h"
#include "test_map.h"

/* A file of lines; ROAD(...) puts its geometry at line 5, its lanes at
 * line 6. */
#define HEAD "<?xml version=\"1.0\"?>\n<OpenDRIVE>\n" \
	"<header revMajor=\"1\" revMinor=\"6\"/>\n"
#define GEOM(s, len, shape)                                                \
	"<geometry s=\"" s "\" x=\"0\" y=\"0\" hdg=\"0\" length=\"" len "\">" \
	shape "</geometry>\n"
#define LANE(id, w) \
	"<lane id=\"" id "\" type=\"driving\"><width sOffset=\"0\" a=\"" w \
	"\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
#define BLANE(id, t) \
	"<lane id=\"" id "\" type=\"driving\"><border sOffset=\"0\" a=\"" t \
	"\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
#define SECTION(s, right)                                               \
	"<laneSection s=\"" s "\"><center><lane id=\"0\" type=\"none\"/>" \
	"</center><right>" right "</right></laneSection>\n"
#define ROAD(attrs, plan, lanes)                                          \
	"<road id=\"r\" length=\"10\" " attrs ">\n<planView>\n" plan       \
	"</planView>\n<lanes>\n" lanes "</lanes>\n</road>\n"
/* A road of id ID, 8 lines as ROAD's. */
#define ROAD_ID(id)                                                       \
	"<road id=\"" id "\" length=\"10\">\n<planView>\n" OK_PLAN        \
	"</planView>\n<lanes>\n" OK_LANES "</lanes>\n</road>\n"
#define OK_PLAN GEOM("0", "10", "<line/>")
#define OK_LANES SECTION("0", LANE("-1", "3"))
#define END "</OpenDRIVE>\n"

typedef struct bad_odr {
	const char *xml;
	const char *msg; /* after "FILE:" */
} bad_odr;

static const bad_odr bad_odrs[] = {
	/* found by fuzz_odr: the first successor's id leaked */
	{HEAD "<road id=\"r\" length=\"10\">\n<link><successor elementType="
	 "\"road\" elementId=\"a\"/><successor elementType=\"road\" "
	 "elementId=\"b\"/></link>\n<planView>\n" OK_PLAN "</planView>\n"
	 "<lanes>\n" OK_LANES "</lanes>\n</road>\n" END,
	 "5:1: <successor> is given twice in one <link>"},
	{HEAD ROAD("", GEOM("0", "10", "<clothoid/>"), OK_LANES) END,
	 "6:1: <geometry>: unknown shape <clothoid> (vsweep reads line, arc, "
	 "spiral, poly3, paramPoly3)"},
	{HEAD ROAD("", "<geometry s=\"0\" x=\"0\" y=\"0\" length=\"10\">"
	               "<line/></geometry>\n", OK_LANES) END,
	 "6:1: <geometry>: missing attribute 'hdg'"},
	{HEAD ROAD("", GEOM("0", "6", "<line/>") GEOM("5", "5", "<line/>"),
	           OK_LANES) END,
	 "7:1: <geometry>: s=5 goes back: the one before ends at s=6"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-1", "-0.5"))) END,
	 "9:1: road 'r': lane -1: width -0.5 m at s=0 (widths must be >= 0)"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-1", "3"))
	                        SECTION("0", LANE("-1", "3"))) END,
	 "10:1: <laneSection>: s=0 does not go forward from 0"},
	{HEAD ROAD("rule=\"MHT\"", OK_PLAN, OK_LANES) END,
	 "4:1: <road id=\"r\">: rule must be RHT or LHT"},
	{HEAD ROAD("", GEOM("0", "8", "<line/>"), OK_LANES) END,
	 "4:1: <road id=\"r\">: length=10 but the geometries end at s=8 "
	 "(they may differ by 1e-6 (1 + length) m of rounding)"},
	{HEAD ROAD("", GEOM("0", "10", "<arc curvature=\"x1\"/>"), OK_LANES)
	 END, "6:1: <arc>: attribute curvature=\"x1\" is not a finite number"},
	{HEAD ROAD("", GEOM("0", "10", "<spiral curvStart=\"0\"/>"), OK_LANES)
	 END, "6:1: <spiral>: missing attribute 'curvEnd'"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-2", "3"))) END,
	 "9:1: <laneSection s=\"0\">: lane -1 is missing or repeated (ids run "
	 "1, 2, ... left and -1, -2, ... right)"},
	{HEAD ROAD("", GEOM("0", "10", "<paramPoly3 aU=\"0\" bU=\"1\" cU=\"0\" "
	               "dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0\" dV=\"0\" "
	               "pRange=\"unit\"/>"), OK_LANES) END,
	 "6:1: <paramPoly3>: pRange=\"unit\" is neither arcLength nor "
	 "normalized"},
	{HEAD ROAD("", OK_PLAN, "") END, "4:1: <road id=\"r\">: no "
	 "<laneSection>"},
	{HEAD ROAD("", GEOM("0", "10", "<arc curvature=\"-0.5\"/>"),
	           OK_LANES) END,
	 "9:1: road 'r': lane -1: its edge -3 m from the reference line "
	 "passes the centre of the curve (radius 2 m) at s=0"},
	{HEAD ROAD("", GEOM("0", "10", "<spiral curvStart=\"0\" "
	                     "curvEnd=\"999\"/>"), OK_LANES) END,
	 "6:1: <spiral>: turns by about 10090 rad; vsweep takes spirals of "
	 "at most 1000 rad"},
	{HEAD "<road id=\"r\" length=\"10\">\n<planView>\n" OK_PLAN
	 "</planView>\n<elevationProfile>\n<elevation s=\"0\" a=\"0\" b=\"0\" "
	 "c=\"0\" d=\"0\"/>\n<elevation s=\"-1\" a=\"0\" b=\"0\" c=\"0\" "
	 "d=\"0\"/>\n</elevationProfile>\n</road>\n" END,
	 "10:1: <elevation>: s=-1 goes back from 0 (records must be in order "
	 "of s)"},
	{HEAD ROAD("", OK_PLAN, OK_LANES) "<road id=\"r\" length=\"10\">\n"
	 "<planView>\n" OK_PLAN "</planView>\n<lanes>\n" OK_LANES
	 "</lanes>\n</road>\n" END,
	 "12:1: <road id=\"r\">: the id is used twice"},
	/* the first repeat in file order, whatever order ids sort in */
	{HEAD ROAD_ID("r") ROAD_ID("q") ROAD_ID("q") ROAD_ID("r") END,
	 "20:1: <road id=\"q\">: the id is used twice"},
	{HEAD ROAD_ID("q") ROAD_ID("r") ROAD_ID("q") ROAD_ID("r") END,
	 "20:1: <road id=\"q\">: the id is used twice"},
	{HEAD ROAD_ID("b") ROAD_ID("a") ROAD_ID("a") ROAD_ID("a") ROAD_ID("b")
	 END, "20:1: <road id=\"a\">: the id is used twice"},
	{HEAD ROAD("", OK_PLAN, OK_LANES) "<junction id=\"J\">\n</junction>\n"
	 "<junction id=\"J\">\n</junction>\n" END,
	 "14:1: <junction id=\"J\">: the id is used twice"},
	{"<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"2\"/>\n"
	 END, "3:1: <header>: revMajor=2; vsweep reads OpenDRIVE 1.x"},
	/* the versions docs/scenario.md promises, 1.4 to 1.8 */
	{"<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" "
	 "revMinor=\"6.5\"/>\n" END,
	 "3:1: <header>: revMinor=6.5; vsweep reads OpenDRIVE 1.4 to 1.8"},
	{"<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" "
	 "revMinor=\"3\"/>\n" END,
	 "3:1: <header>: revMinor=3; vsweep reads OpenDRIVE 1.4 to 1.8"},
	{"<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\"/>\n"
	 END, "3:1: <header>: missing attribute 'revMinor'"},
	/* a section of the centre lane alone: qsort(NULL, 0) (UBSan) and
	 * no lanes to place */
	{HEAD ROAD("", OK_PLAN, "<laneSection s=\"0\"><center><lane id=\"0\" "
	           "type=\"none\"/></center></laneSection>\n") END,
	 "9:1: <laneSection s=\"0\">: no lanes but the centre lane (a section "
	 "needs a lane in <left> or <right>)"},
	/* out of range is not "not a finite number": the limit is said */
	{HEAD ROAD("", "<geometry s=\"0\" x=\"1e9\" y=\"0\" hdg=\"0\" "
	               "length=\"10\"><line/></geometry>\n", OK_LANES) END,
	 "6:1: <geometry>: attribute x=\"1e9\" is out of range: vsweep takes "
	 "numbers of at most 1e+08 in size"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-99999999999", "3"))) END,
	 "9:1: <lane>: attribute id=\"-99999999999\" is out of range: vsweep "
	 "takes integers of at most 1e+06 in size"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-1.5", "3"))) END,
	 "9:1: <lane>: attribute id=-1.5 must be an integer"},
	/* links: the words are exact, the ids name something */
	{HEAD "<road id=\"r\" length=\"10\">\n<link><successor elementType="
	 "\"junktion\" elementId=\"J\"/></link>\n<planView>\n" OK_PLAN
	 "</planView>\n<lanes>\n" OK_LANES "</lanes>\n</road>\n" END,
	 "5:1: <successor>: elementType=\"junktion\" is neither road nor "
	 "junction"},
	{HEAD "<road id=\"r\" length=\"10\">\n<link><successor elementType="
	 "\"road\" elementId=\"r\" contactPoint=\"End\"/></link>\n<planView>\n"
	 OK_PLAN "</planView>\n<lanes>\n" OK_LANES "</lanes>\n</road>\n" END,
	 "5:1: <successor>: contactPoint=\"End\" is neither start nor end"},
	{HEAD "<road id=\"r\" length=\"10\">\n<link><successor elementType="
	 "\"road\" elementId=\"q\" contactPoint=\"start\"/></link>\n"
	 "<planView>\n" OK_PLAN "</planView>\n<lanes>\n" OK_LANES "</lanes>\n"
	 "</road>\n" END,
	 "5:1: <successor>: elementId=\"q\" names no road"},
	{HEAD ROAD("junction=\"J\"", OK_PLAN, OK_LANES) END,
	 "4:1: <road id=\"r\">: junction=\"J\" names no junction"},
	{HEAD ROAD("", OK_PLAN,
	           "<laneSection s=\"0\"><center><lane id=\"0\" type=\"none\"/>"
	           "</center><right><lane id=\"-1\" type=\"driving\"><link>"
	           "<successor id=\"-2\"/></link><width sOffset=\"0\" a=\"3\" "
	           "b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection>\n"
	           SECTION("5", LANE("-1", "3"))) END,
	 "9:1: road 'r': lane -1: its successor, lane -2, is not in the next "
	 "lane section (s=5)"},
	{HEAD "<road id=\"r\" length=\"10\">\n<link><successor elementType="
	 "\"road\" elementId=\"r\"/></link>\n<planView>\n" OK_PLAN
	 "</planView>\n<lanes>\n<laneSection s=\"0\"><center><lane id=\"0\" "
	 "type=\"none\"/></center><right><lane id=\"-1\" type=\"driving\">"
	 "<link><successor id=\"-2\"/></link><width sOffset=\"0\" a=\"3\" "
	 "b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection>\n</lanes>\n"
	 "</road>\n" END,
	 "10:1: road 'r': lane -1: its successor, lane -2, is not a lane of "
	 "road 'r' at either end"},
	/* planView records tile the road from s = 0 (a gap was bridged by
	 * a chord), within 1e-6 (1 + s) m */
	{HEAD ROAD("", GEOM("0", "5", "<line/>") GEOM("6", "4", "<line/>"),
	           OK_LANES) END,
	 "7:1: <geometry>: s=6 leaves a gap: the one before ends at s=5"},
	{HEAD ROAD("", GEOM("5", "5", "<line/>"), OK_LANES) END,
	 "6:1: <geometry>: s=5: the first geometry must start at s=0"},
	/* length against the geometries: 1e-6 (1 + length) m (it was
	 * 0.1 %, the rest clamped) */
	{HEAD ROAD("", GEOM("0", "9.9999", "<line/>"), OK_LANES) END,
	 "4:1: <road id=\"r\">: length=10 but the geometries end at "
	 "s=9.9999 (they may differ by 1e-6 (1 + length) m of rounding)"},
	{HEAD ROAD("", OK_PLAN, SECTION("5", LANE("-1", "3"))) END,
	 "9:1: <laneSection>: s=5: the first lane section must start at s=0"},
	/* a paramPoly3 as long as its record, within 0.1 % */
	{HEAD ROAD("", GEOM("0", "10", "<paramPoly3 aU=\"0\" bU=\"0\" "
	               "cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0\" "
	               "dV=\"0\"/>"), OK_LANES) END,
	 "6:1: <paramPoly3>: the curve is 0 m long over its pRange but its "
	 "<geometry> length=10"},
	{HEAD ROAD("", GEOM("0", "10", "<paramPoly3 aU=\"0\" bU=\"2\" "
	               "cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0\" "
	               "dV=\"0\" pRange=\"arcLength\"/>"), OK_LANES) END,
	 "6:1: <paramPoly3>: the curve is 20 m long over its pRange but its "
	 "<geometry> length=10"},
	{HEAD ROAD("", OK_PLAN, OK_LANES "</lanes>\n<lanes>\n" OK_LANES) END,
	 "11:1: <road id=\"r\">: a second <lanes> (a road has one)"},
	/* decimal only, as the YAML reader */
	{HEAD ROAD("", "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0x1p-2\" "
	               "length=\"10\"><line/></geometry>\n", OK_LANES) END,
	 "6:1: <geometry>: attribute hdg=\"0x1p-2\" is not a decimal number "
	 "(hexadecimal is not read)"},
	/* singleSide: the side left out would go on from the section
	 * before; it ended there */
	{HEAD ROAD("", OK_PLAN, "<laneSection s=\"0\"><left>" LANE("1", "3")
	           "</left><center><lane id=\"0\" type=\"none\"/></center>"
	           "<right>" LANE("-1", "3") "</right></laneSection>\n"
	           "<laneSection s=\"5\" singleSide=\"true\"><center><lane "
	           "id=\"0\" type=\"none\"/></center><right>" LANE("-1", "3")
	           "</right></laneSection>\n") END,
	 "10:1: <laneSection s=\"5\">: singleSide=\"true\" without its left "
	 "lanes is not supported (give both sides in each lane section)"},
	/* a <border> is the outer edge's t: on the wrong side of the inner
	 * edge is a negative width (the lane was drawn on the left) */
	{HEAD ROAD("", OK_PLAN, SECTION("0", BLANE("-1", "3"))) END,
	 "9:1: road 'r': lane -1: its <border> at t=3 m is 3 m left of its "
	 "inner edge (t=0 m) at s=0 (a border is the outer edge's t, left "
	 "> 0)"},
	{HEAD ROAD("", OK_PLAN, SECTION("0", BLANE("-1", "-3")
	                                     BLANE("-2", "-2"))) END,
	 "9:1: road 'r': lane -2: its <border> at t=-2 m is 1 m left of its "
	 "inner edge (t=-3 m) at s=0 (a border is the outer edge's t, left "
	 "> 0)"},
	{HEAD ROAD("", OK_PLAN, "<laneSection s=\"0\"><left>" BLANE("1",
	           "-0.5") "</left><center><lane id=\"0\" type=\"none\"/>"
	           "</center></laneSection>\n") END,
	 "9:1: road 'r': lane 1: its <border> at t=-0.5 m is 0.5 m right of "
	 "its inner edge (t=0 m) at s=0 (a border is the outer edge's t, "
	 "left > 0)"},
	{"<?xml version=\"1.0\"?>\n<Other/>\n",
	 "2:1: the root element is not <OpenDRIVE>"},
	{HEAD ROAD("", OK_PLAN, OK_LANES), /* truncated: no </OpenDRIVE> */
	 "12:1: not well-formed XML: Premature end of data in tag OpenDRIVE "
	 "line 2"}, /* end of file: line 12, column 1 */
	{HEAD "<road id=\"r\" length=\"10\">\n<planView>\n<geometry s=\"0\" "
	 "x=\"0\" y=", /* ends after column 24 of line 6 */
	 "6:25: not well-formed XML: Premature end of data in tag planView "
	 "line 5"},
};

START_TEST(odr_bad_file)
{
	const bad_odr *b = &bad_odrs[_i];
	char path[] = "/tmp/vsweep_odr_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(b->xml, f);
	fclose(f);
	vs_error err = {{0}};
	odr_net *net = odr_read(path, &err);
	unlink(path);
	ck_assert_ptr_null(net);
	char want[1200];
	snprintf(want, sizeof want, "%s:%s", path, b->msg);
	ck_assert_str_eq(err.msg, want);
}
END_TEST

/* A road whose one lane has no width anywhere is a map with a lane but no
 * patches (build.c copied the 0 patches from NULL: UBSan). */
START_TEST(odr_zero_width)
{
	char path[] = "/tmp/vsweep_odr_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(HEAD ROAD("", OK_PLAN, SECTION("0", LANE("-1", "0"))) END, f);
	fclose(f);
	vs_error err = {{0}};
	vs_map *m = vs_map_load_opendrive(path, &err);
	unlink(path);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 1);
	vs_map_location l;
	vs_map_locate(m, 5, 0, 0, 0, &l);
	ck_assert_int_eq(l.is_on_lane, 0);
	vs_map_unref(m);
}
END_TEST

/* A directory opens and reads as an empty document: said before libxml2
 * sees it (it printed "I/O error : Is a directory" on stderr). */
START_TEST(odr_directory)
{
	char path[] = "/tmp/vsweep_odr_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(path));
	vs_error err = {{0}};
	odr_net *net = odr_read(path, &err);
	rmdir(path);
	ck_assert_ptr_null(net);
	char want[1200];
	snprintf(want, sizeof want, "%s: is a directory; opendrive: names a "
	         ".xodr file", path);
	ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(odr_scenario_path)
{
	/* relative to the scenario file, whose directory is the data's */
	char yaml_path[1024];
	const char *root = getenv("VSWEEP_SOURCE_ROOT");
	snprintf(yaml_path, sizeof yaml_path, "%s/tests/data/xodr/s.yaml",
	         root ? root : ".");
	static const char map_yaml[] = "opendrive: straight.xodr\n";
	vs_error err = {{0}};
	vs_map *m = parse_map_at(yaml_path, map_yaml, &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 2);
	vs_map_unref(m);
	static const char both[] =
		"opendrive: straight.xodr\n"
		"roads:\n  - {id: a, line: [[0, 50, 0], [10, 50, 0]], "
		"lanes: {left: 1, width: 3}}\n";
	m = parse_map_at(yaml_path, both, &err);
	ck_assert_msg(m, "%s", err.msg);
	ck_assert_int_eq(vs_map_lane_count(m), 3);
	vs_map_location l;
	vs_map_locate(m, 5, 51, 0, PI, &l);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "a");
	vs_map_locate(m, 5, -1, 0, 0, &l);
	ck_assert_str_eq(vs_map_lane(m, l.lane)->road, "1");
	vs_map_unref(m);
	m = parse_map_at(yaml_path, "opendrive: nowhere.xodr\n", &err);
	ck_assert_ptr_null(m);
	char want[1200];
	snprintf(want, sizeof want,
	         "%s/tests/data/xodr/nowhere.xodr: cannot read the OpenDRIVE "
	         "file: No such file or directory", root ? root : ".");
	ck_assert_str_eq(err.msg, want);
}
END_TEST

TCase *odr_bad_tcase(void)
{
	TCase *tc = tcase_create("opendrive errors");
	tcase_add_loop_test(tc, odr_bad_file, 0,
	                    sizeof bad_odrs / sizeof bad_odrs[0]);
	tcase_add_test(tc, odr_zero_width);
	tcase_add_test(tc, odr_directory);
	tcase_add_test(tc, odr_scenario_path);
	return tc;
}
