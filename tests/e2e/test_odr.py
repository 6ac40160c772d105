"""OpenDRIVE end to end: a sweep of a car following waypoints given in lane
coordinates on
tests/data/xodr/junction.xodr from road 1 through the junction's straight
connecting road 100 (which overlaps the left turn 101) and over road 2's
5 m hill. Stored z and the nose-up angle follow the hill's closed form
(z = 0.0015 s^2 - 0.00001 s^3, then back down), the lane sequence read
in SQL is 1 -> 100 -> 2, and lane_info carries section and type. Files
made from junction.xodr and straight.xodr by one change each are refused
with FILE:LINE:COL and what is wrong (a reference to no road, junction or
lane, a word misspelt, a number out of range, a section without lanes, a
directory), or load (lanes of no width)."""
import math
import os
import re
import sys
import unittest
import uuid
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

XODR = os.path.join(SRC, "tests", "data", "xodr", "junction.xodr")
STRAIGHT = os.path.join(SRC, "tests", "data", "xodr", "straight.xodr")

SCENARIO = """\
vsweep: 1
name: junction and hill
step: 0.05
duration: 18
map: {opendrive: %s}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    waypoints: [{road: "1", lane: -1, s: 10},   # (-90, -1.75)
                {road: "2", lane: -1, s: 195}]  # (215, -1.75)
    speed: 16
    behaviour: {plugin: waypoints}
""" % XODR

SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 16}]
      - [{actor: 1, speed: 16.5}]
"""


def hill(s):
    """Road 2's elevation (m) and slope at s (m from its start, x = 20)."""
    if s < 100:
        return 0.0015 * s * s - 0.00001 * s ** 3, 0.003 * s - 0.00003 * s * s
    d = s - 100
    return (5 - 0.0015 * d * d + 0.00001 * d ** 3,
            -0.003 * d + 0.00003 * d * d)


def on_an_edge(x, y):
    """Distance (m) from (x, y) to the nearest lane edge of junction.xodr,
    from its geometry: roads 1, 100 and 2 along y = 0 (edges at 0, +-3.5),
    road 3 along x = 10 (edges 10, 13.5) from y = 10, the turn 101 round
    (0, 10) (radii 10, 13.5)."""
    d = [abs(y - e) for e in (0, 3.5, -3.5) if -100 <= x <= 220]
    if y >= 10:
        d += [abs(x - e) for e in (10, 13.5)]
    if x >= -1e-6 and y <= 10 + 1e-6:
        d += [abs(math.hypot(x, y - 10) - r) for r in (10, 13.5)]
    return min(d)


PARKED = """\
vsweep: 1
name: parked on the hill
step: 0.1
duration: 0.2
map: {opendrive: %s}
assets:
  box: {length: 4, width: 2, height: 1.5}
actors:
  - id: 1
    asset: box
    start: {position: {road: "2", lane: -1, s: 20}}
""" % XODR

CHECK = """\
vsweep: 1
name: a map
step: 0.1
duration: 0.2
map: {opendrive: %s}
assets:
  box: {length: 4, width: 2, height: 1.5}
actors:
  - id: 1
    asset: box
    start: {position: [-50, -1.75, 0]}
"""


def text_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# (file, text replaced, by, the message after "FILE:")
REFUSED = [
    (XODR, 'connectingRoad="100"', 'connectingRoad="999"',
     '46:1: <connection>: connectingRoad="999" names no road'),
    (XODR, 'incomingRoad="1" connectingRoad="101"',
     'incomingRoad="999" connectingRoad="101"',
     '47:1: <connection>: incomingRoad="999" names no road'),
    (XODR, 'connectingRoad="100" contactPoint="start"><laneLink from="-1"',
     'connectingRoad="100" contactPoint="start"><laneLink from="-7"',
     "46:1: junction 'J': <laneLink from=\"-7\">: road '1' (the incoming "
     "road) has no lane -7 at its end"),
    (XODR, 'connectingRoad="101" contactPoint="start"><laneLink from="-1" '
     'to="-1"', 'connectingRoad="101" contactPoint="start"><laneLink '
     'from="-1" to="-9"',
     "47:1: junction 'J': <laneLink to=\"-9\">: road '101' (the connecting "
     "road) has no lane -9 at its start"),
    (XODR, '<predecessor id="-1"/>', '<predecessor id="-5"/>',
     "17:1: road '100': lane -1: its predecessor, lane -5, is not a lane of "
     "road '1' at its end"),
    (XODR, '<successor id="-1"/>', '<successor id="-2"/>',
     "17:1: road '100': lane -1: its successor, lane -2, is not a lane of "
     "road '2' at its start"),
    (XODR, '<road id="100" length="20.0" junction="J">',
     '<road id="100" length="20.0" junction="NOPE">',
     '12:1: <road id="100">: junction="NOPE" names no junction'),
    (XODR, '<successor elementType="junction" elementId="J"/>',
     '<successor elementType="junction" elementId="NOPE"/>',
     '5:1: <successor>: elementId="NOPE" names no junction'),
    (XODR, 'elementType="road" elementId="2"',
     'elementType="road" elementId="NOPE"',
     '13:1: <successor>: elementId="NOPE" names no road'),
    (XODR, 'elementId="2" contactPoint="start"',
     'elementId="2" contactPoint="Start"',
     '13:1: <successor>: contactPoint="Start" is neither start nor end'),
    (XODR, 'connectingRoad="101" contactPoint="start"',
     'connectingRoad="101" contactPoint="middle"',
     '47:1: <connection>: contactPoint="middle" is neither start nor end'),
    (XODR, '<successor elementType="junction"',
     '<successor elementType="junktion"',
     '5:1: <successor>: elementType="junktion" is neither road nor '
     'junction'),
    (XODR, 'revMinor="6"', 'revMinor="6.5"',
     "3:1: <header>: revMinor=6.5; vsweep reads OpenDRIVE 1.4 to 1.8"),
    (XODR, 'revMinor="6"', 'revMinor="9"',
     "3:1: <header>: revMinor=9; vsweep reads OpenDRIVE 1.4 to 1.8"),
    (STRAIGHT, 'x="0"', 'x="1e9"',
     '6:1: <geometry>: attribute x="1e9" is out of range: vsweep takes '
     'numbers of at most 1e+08 in size'),
    # with libxml2's own limits lifted (a long comment), entities could
    # expand without bound: a declaration is refused where it starts
    (STRAIGHT, '<OpenDRIVE>',
     '<!DOCTYPE OpenDRIVE [<!ENTITY w "3.5">]>\n<OpenDRIVE>',
     "2:%d: entity declaration 'w': an OpenDRIVE file needs no entities, "
     "and vsweep reads none" % (len('<!DOCTYPE OpenDRIVE [') + 1)),
    (STRAIGHT, '<lane id="-1"', '<lane id="-99999999999"',
     '8:1: <lane>: attribute id="-99999999999" is out of range: vsweep '
     'takes integers of at most 1e+06 in size'),
    (STRAIGHT, re.search(r"<laneSection.*</laneSection>",
                         text_of(STRAIGHT)).group(0),
     '<laneSection s="0"><center><lane id="0" type="none"/></center>'
     '</laneSection>',
     '8:1: <laneSection s="0">: no lanes but the centre lane (a section '
     'needs a lane in <left> or <right>)'),
]

# (file, text replaced, by) and still loading: a contactPoint left out,
# of a road link or a connection, lets either end of the road do
LOADS = [
    (XODR, 'elementId="1" contactPoint="end"/><successor elementType="road" '
     'elementId="2"', 'elementId="1"/><successor elementType="road" '
     'elementId="2"'),
    (XODR, 'connectingRoad="100" contactPoint="start"',
     'connectingRoad="100"'),
    # lanes of no width anywhere: lanes without patches (build.c copied
    # 0 patches from NULL: UBSan)
    (STRAIGHT, 'a="3.5"', 'a="0"'),
]


def changed(path, old, new):
    """The text of path with old, found there, replaced by new."""
    text = text_of(path)
    assert old in text, old
    return text.replace(old, new)


PARKED_SWEEP = """\
vsweep: 1
blocks:
  - grid:
      - {actor: 1, start.s: {from: 20, to: 180, step: 40}}
      - {actor: 1, start.offset: {values: [0, 0.5]}}
"""


# Road s3: lane -2 in the sections from 0 and from 80 m, not in the one
# from 60 m between them.
SECTIONS = text_of(os.path.join(SRC, "tests", "data", "xodr",
                                "sections.xodr")).replace('"s2"', '"s3"')
SECTIONS = SECTIONS.replace(
    "</laneSection></lanes>",
    "</laneSection>" + re.search(r"<laneSection s=\"0\">.*?</laneSection>",
                                 SECTIONS).group(0).replace(
        'laneSection s="0"', 'laneSection s="80.0"').replace(
        "<link><successor id=\"-1\"/></link>", "") + "</lanes>", 1)

RANDOM_S = """\
vsweep: 1
blocks:
  - random:
      count: 4
      axes:
        - {actor: 1, start.s: %s}
"""


class OpenDriveTest(TempDirCase):
    def test_start_s_and_offset_axes(self):
        db = self.path("p.db")
        rc, _, err = run("run", self.write("p.yaml", PARKED), "--sweep",
                         self.write("pw.yaml", PARKED_SWEEP), "-o", db)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT v.variant_id, json_extract(v.params, "
                     "'$.actor1.start.s'), json_extract(v.params, "
                     "'$.actor1.start.offset'), s.x, s.y, s.z, s.yaw "
                     "FROM variant_info v JOIN actor_state s USING "
                     "(variant_id) WHERE s.step = 0 ORDER BY v.variant_id")
        self.assertEqual(len(rows), 10)
        for k, (v, s, off, x, y, z, yaw) in enumerate(rows):
            self.assertEqual((s, off), (20 + 40 * (k // 2), 0.5 * (k % 2)))
            self.assertAlmostEqual(x, 20 + s, delta=1e-9)
            self.assertAlmostEqual(y, -1.75 + off, delta=1e-9)
            self.assertAlmostEqual(z, hill(s)[0], delta=1e-6)
            self.assertAlmostEqual(yaw, -math.pi / 2, delta=1e-12)
        # off the road's end, on an actor started in x y z, and over a
        # lane section without the lane: refused when the sweep is read
        # (sweep.md, "Rules"), at the value or the distribution
        sections = self.write("sec.xodr", SECTIONS)
        gap = PARKED.replace(XODR, sections).replace(
            '{road: "2", lane: -1, s: 20}', '{road: "s3", lane: -2, s: 10}')
        for scn, sweep, why in [
                (PARKED, PARKED_SWEEP.replace("to: 180", "to: 220"),
                 "bad.yaml:4:44: actor 1: start.s: s = 220 m is off road "
                 "'2' (0 to 200 m)"),
                (PARKED.replace('{road: "2", lane: -1, s: 20}',
                                "[40, -1.75, 0]"), PARKED_SWEEP,
                 "bad.yaml:4:20: actor 1: start.s needs a start position "
                 "in lane coordinates ({road, lane, s, offset}); the "
                 "scenario gives this actor's start in x y z"),
                (gap, RANDOM_S % "{uniform: [0, 90]}",
                 "bad.yaml:6:41: actor 1: start.s: for s in [0, 90] m: road "
                 "'s3' has no lane -2 at s = 60 m (lane section 1: lanes -1 "
                 "to 1)"),
                (gap, RANDOM_S % "{choice: {values: [10, 85]}}", None)]:
            rc, _, err = run("check", self.write("bad_s.yaml", scn),
                             "--sweep", self.write("bad.yaml", sweep))
            if why is None:
                self.assertEqual(rc, 0, err)
                continue
            self.assertEqual(rc, 2, err)
            self.assertEqual(err, "vsweep: %s\n" % self.path(why))

    def test_junction_and_hill(self):
        db = self.path("o.db")
        rc, _, err = run("run", self.write("o.yaml", SCENARIO), "--sweep",
                         self.write("w.yaml", SWEEP), "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(
            query(db, "SELECT road, section, lane, type FROM lane_info "
                  "ORDER BY road, lane"),
            [("1", 0, -1, "driving"), ("1", 0, 1, "driving"),
             ("100", 0, -1, "driving"), ("101", 0, -1, "driving"),
             ("2", 0, -1, "driving"), ("2", 0, 1, "driving"),
             ("3", 0, -1, "driving")])
        for v in (0, 1):
            rows = query(db, "SELECT s.x, s.y, s.z, s.roll, s.pitch, "
                         "l.road, l.lane, m.is_on_lane FROM actor_state s "
                         "JOIN map_location m USING (variant_id, actor_id, "
                         "step) JOIN lane_info l USING (lane_id) WHERE "
                         "variant_id = ? ORDER BY s.step", v)
            seq, checked = [], 0
            for x, y, z, roll, pitch, road, lane, on in rows:
                self.assertEqual(on, 1, (x, y))
                self.assertEqual(lane, -1)
                if not seq or seq[-1] != road:
                    seq.append(road)
                if x > 20.5:  # on road 2: the hill under the origin
                    want, slope = hill(x - 20)
                    self.assertAlmostEqual(z, want, delta=1e-3)
                    # R = Rz(yaw) Rx(pitch) Ry(roll): pitch lifts the
                    # nose by the slope ahead, nothing across
                    self.assertAlmostEqual(pitch, math.atan(slope),
                                           delta=1e-4)
                    self.assertAlmostEqual(roll, 0, delta=1e-9)
                    checked += 1
                elif x < -0.5:
                    self.assertEqual((z, roll, pitch), (0, 0, 0))
            self.assertEqual(seq, ["1", "100", "2"])
            self.assertGreater(checked, 100)
            # the pose's forward axis (its second column) rises at the
            # hill's slope: z component slope / sqrt(1 + slope^2)
            for x, m32 in query(db, "SELECT s.x, p.m32 FROM actor_state s "
                                "JOIN actor_pose p USING (variant_id, "
                                "actor_id, step) WHERE variant_id = ? AND "
                                "s.x > 20.5", v):
                _, slope = hill(x - 20)
                self.assertAlmostEqual(m32, slope / math.hypot(1, slope),
                                       delta=1e-4)
            # over the top of the hill
            self.assertGreater(max(r[2] for r in rows), 4.99)

        # vsweep plot draws the lanes: two edges each, on the true edges
        out = self.path("o.svg")
        rc, _, err = run("plot", db, "-o", out)
        self.assertEqual(rc, 0, err)
        svg = "{http://www.w3.org/2000/svg}"
        edges = [p for p in ET.parse(out).getroot().iter(svg + "path")
                 if p.get("class") == "lane-boundary"]
        self.assertEqual(len(edges), 14)
        for p in edges:
            v = [float(t) for t in re.findall(r"[-+0-9.eE]+", p.get("d"))]
            for x, y in zip(v[0::2], v[1::2]):
                self.assertLess(on_an_edge(x, y), 2e-3, (x, y))

    def test_refused(self):
        bad = self.path("bad.xodr")
        scn = self.write("c.yaml", CHECK % bad)
        for path, old, new, msg in REFUSED:
            with self.subTest(new=new):
                self.write("bad.xodr", changed(path, old, new))
                rc, _, err = run("check", scn)
                self.assertEqual((rc, err), (2, "vsweep: %s:%s\n" %
                                             (bad, msg)))

    def test_loads(self):
        scn = self.write("c.yaml", CHECK % self.path("ok.xodr"))
        for path, old, new in LOADS:
            with self.subTest(new=new):
                self.write("ok.xodr", changed(path, old, new))
                rc, _, err = run("check", scn)
                self.assertEqual((rc, err), (0, ""))

    def test_size_limit(self):
        """Input files may be up to 64 MiB (docs/scenario.md): a .xodr
        of 70 MB loaded, while one with a comment over 10 MB (libxml2's
        own limit) was refused as 'Comment too big'."""
        text = text_of(STRAIGHT)
        cut = text.index("<OpenDRIVE>") + len("<OpenDRIVE>")
        scn = self.write("c.yaml", CHECK % self.path("m.xodr"))

        def with_comment(total):
            pad = total - len(text.encode()) - len("<!---->")
            with open(self.path("m.xodr"), "w", encoding="utf-8") as f:
                f.write(text[:cut] + "<!--" + "x" * pad + "-->" + text[cut:])
            self.assertEqual(os.path.getsize(self.path("m.xodr")), total)
            rc, _, err = run("check", scn)
            return rc, err

        for total in (12 * 10**6, 64 << 20):
            with self.subTest(total=total):
                self.assertEqual(with_comment(total), (0, ""))
        self.assertEqual(with_comment((64 << 20) + 1),
                         (2, "vsweep: %s: larger than the 64 MiB limit\n"
                          % self.path("m.xodr")))

    def test_long_road_ids(self):
        # the lane UUID's name took the first 200 bytes of the road id:
        # two roads alike that far had one UUID, and run failed on the
        # results file's unique lane_id ("writing lanes") while check
        # passed. The UUIDs are uuid5 of the whole id.
        road = ('<road id="%s" length="100"><planView><geometry s="0" '
                'x="0" y="%d" hdg="0" length="100"><line/></geometry>'
                '</planView><lanes><laneSection s="0"><center><lane '
                'id="0" type="none"/></center><right><lane id="-1" '
                'type="driving"><width sOffset="0" a="3" b="0" c="0" '
                'd="0"/></lane></right></laneSection></lanes></road>\n')
        ids = ["R" * 200 + "a", "R" * 200 + "b"]
        self.write("long.xodr", '<?xml version="1.0"?>\n<OpenDRIVE>\n'
                   '<header revMajor="1" revMinor="6"/>\n' +
                   road % (ids[0], 0) + road % (ids[1], 10) +
                   "</OpenDRIVE>\n")
        db = self.path("long.db")
        rc, _, err = run("run", self.write("l.yaml", CHECK %
                                           self.path("long.xodr")),
                         "-o", db)
        self.assertEqual((rc, err), (0, ""))
        got = query(db, "SELECT road, lane_id FROM lane_info ORDER BY road")
        want = [(i, "{%s}" % uuid.uuid5(uuid.NAMESPACE_URL,
                                        "vsweep:odr:%s:0:-1" % i))
                for i in ids]
        self.assertEqual([(r, u.lower()) for r, u in got], want)

    def test_directory(self):
        # libxml2 printed "I/O error : Is a directory" on stderr, and
        # the reader an empty document at line 1
        scn = self.write("d.yaml", CHECK % ".")
        rc, _, err = run("check", scn)
        self.assertEqual((rc, err), (2, "vsweep: %s/.: is a directory; "
                                     "opendrive: names a .xodr file\n" %
                                     self.tmp))


if __name__ == "__main__":
    unittest.main()
