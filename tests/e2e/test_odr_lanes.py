"""OpenDRIVE lanes across and along: the road surface over lanes with
level="true" (kept level on a banked road, at the height of the inner
neighbour's outer edge) and with <height> records (raised by inner at the
inner edge and outer at the outer edge, linear across, record by record
along s), against closed forms of the bank; lane_info.width, the lane's
mean width over s, against the exact mean of its width records; and a
<width> record starting past its lane section's end, which never applies
and is skipped."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run  # noqa: E402

# A straight 50 m road along +X, superelevation SUPER (rad), right lanes
# LANES (each "<lane .../>" text).
ROAD = """\
<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="6"/>
<road id="L" length="50" junction="-1"><planView>
<geometry s="0" x="0" y="0" hdg="0" length="50"><line/></geometry>
</planView>
<lateralProfile><superelevation s="0" a="%s" b="0" c="0" d="0"/>\
</lateralProfile>
<lanes><laneSection s="0"><center><lane id="0" type="none"/></center>
<right>%s</right></laneSection>
</lanes></road></OpenDRIVE>
"""


def lane(i, width, kind="driving", level=None, heights=""):
    """A right lane's text: width (m), level attribute, height records."""
    lv = ' level="%s"' % level if level is not None else ""
    return ('<lane id="%d" type="%s"%s><width sOffset="0" a="%r" b="0" '
            'c="0" d="0"/>%s</lane>\n' % (i, kind, lv, width, heights))


def height(s0, inner, outer):
    return '<height sOffset="%r" inner="%r" outer="%r"/>' % (s0, inner,
                                                             outer)


SCENARIO = """\
vsweep: 1
name: parked
step: 0.1
duration: 0.2
map: {opendrive: %s}
assets:
  box: {length: 0.4, width: 0.2, height: 1.5}
actors:
%s"""


def parked(points):
    """Actors at (road, lane, s, offset), ids 1, 2, ..."""
    return "".join(
        '  - id: %d\n    asset: box\n    start: {position: {road: "%s", '
        'lane: %d, s: %r, offset: %r}}\n' % (k + 1, r, ln, s, off)
        for k, (r, ln, s, off) in enumerate(points))


class OdrLanesTest(TempDirCase):
    def states(self, xodr, points):
        """(y, z, pitch, roll) of each parked actor at step 0."""
        path = self.write("r.xodr", xodr)
        db = self.path("r.db")
        if os.path.exists(db):
            os.remove(db)
        rc, _, err = run("run", self.write("r.yaml", SCENARIO % (
            path, parked(points))), "-o", db, "-j", "1")
        self.assertEqual((rc, err), (0, ""))
        return query(db, "SELECT y, z, pitch, roll FROM actor_state WHERE "
                     "step = 0 ORDER BY actor_id"), db

    def check(self, got, want):
        for (y, z, pitch, roll), (wy, wz, wroll) in zip(got, want):
            self.assertAlmostEqual(y, wy, delta=1e-9)
            self.assertAlmostEqual(z, wz, delta=1e-9, msg=(y, z))
            self.assertAlmostEqual(pitch, 0, delta=1e-9)
            self.assertAlmostEqual(roll, wroll, delta=1e-9, msg=(y, roll))

    def test_level_lane(self):
        # banked 0.1 rad about the reference line: lane -1 (4 m) on the
        # bank, z = t tan 0.1 and the body rolled by the bank; lane -2
        # (2 m, level) level at lane -1's outer edge, z = -4 tan 0.1,
        # roll 0; lane -3 (1 m) banked again from lane -2's outer edge
        b = math.tan(0.1)
        lanes = (lane(-1, 4.0, level="false") +
                 lane(-2, 2.0, "shoulder", level="true") + lane(-3, 1.0))
        got, _ = self.states(ROAD % ("0.1", lanes), [
            ("L", -1, 25, 0), ("L", -2, 25, 0), ("L", -2, 25, 0.6),
            ("L", -3, 25, 0)])
        self.check(got, [(-2, -2 * b, 0.1), (-5, -4 * b, 0),
                         (-4.4, -4 * b, 0), (-6.5, -4.5 * b, 0.1)])
        # with no superelevation a level lane changes nothing
        got, _ = self.states(ROAD % ("0", lanes), [("L", -2, 25, 0)])
        self.check(got, [(-5, 0, 0)])

    def test_height(self):
        # a sidewalk raised 0.15 m all across
        lanes = (lane(-1, 4.0, level="false") +
                 lane(-2, 2.0, "sidewalk", level="false",
                      heights=height(0, 0.15, 0.15)))
        got, _ = self.states(ROAD % ("0", lanes), [("L", -2, 25, 0)])
        self.check(got, [(-5, 0.15, 0)])
        # inner 0.1, outer 0.3 over 2 m: rising 0.1 m/m to the right, on
        # a road banked 0.05 rad (falling 0.05 tan to the right); from
        # s = 30 a second record, inner = outer = 0.05
        b = math.tan(0.05)
        lanes = (lane(-1, 4.0) + lane(-2, 2.0, "sidewalk", heights=height(
            0, 0.1, 0.3) + height(30, 0.05, 0.05)))
        got, _ = self.states(ROAD % ("0.05", lanes), [
            ("L", -2, 25, 0), ("L", -2, 25, -0.5), ("L", -1, 25, 0),
            ("L", -2, 40, 0)])
        # R = Rz(yaw) Rx(pitch) Ry(roll): roll lowers the right side by
        # the slope to the right's fall, atan(-rise per m to the right)
        self.check(got, [(-5, -5 * b + 0.2, math.atan(b - 0.1)),
                         (-5.5, -5.5 * b + 0.25, math.atan(b - 0.1)),
                         (-2, -2 * b, math.atan(b)),
                         (-5, -5 * b + 0.05, math.atan(b))])

    def test_bad_level(self):
        xodr = self.write("r.xodr", ROAD % ("0", lane(-1, 4.0,
                                                     level="yes")))
        rc, _, err = run("check", self.write("r.yaml", SCENARIO % (
            xodr, parked([("L", -1, 25, 0)]))))
        self.assertEqual((rc, err), (2, 'vsweep: %s:8:1: <lane id="-1">: '
                                     'level="yes" is neither true nor '
                                     'false\n' % xodr))

    def test_mean_width(self):
        # a 20 m line then an 80 m arc; lane -1 3 m, then from s = 20
        # 3 + 0.05 ds: mean (20 * 3 + 80 * (3 + 0.05 * 40)) / 100 = 4.6
        w = """\
<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="6"/>
<road id="s" length="100" junction="-1"><planView>
<geometry s="0" x="0" y="0" hdg="0" length="20"><line/></geometry>
<geometry s="20" x="20" y="0" hdg="0" length="80"><arc curvature="0.005"/>\
</geometry>
</planView>
<lanes><laneSection s="0"><center><lane id="0" type="none"/></center>
<right><lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" \
d="0"/><width sOffset="20" a="3" b="0.05" c="0" d="0"/></lane></right>\
</laneSection>
</lanes></road></OpenDRIVE>
"""
        _, db = self.states(w, [("s", -1, 1.0, 0)])
        (got,), = query(db, "SELECT width FROM lane_info")
        self.assertAlmostEqual(got, 4.6, delta=1e-9)
        # a line, a spiral and an arc with laneOffset 0.5: lane -1 3 m
        # to s = 10, then 3 + 0.05 ds to s = 80: (10 * 3 + 70 * (3 +
        # 0.05 * 35)) / 80; a cubic width, 1 + 0.03 s - 0.0003 s^2 +
        # 1e-6 s^3 over 80 m: 1 + 0.03 * 40 - 0.0001 * 6400 + 2.5e-7 *
        # 80^3
        t1 = """\
<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="6"/>
<road id="r" length="80" junction="-1"><planView>
<geometry s="0" x="0" y="0" hdg="0" length="20"><line/></geometry>
<geometry s="20" x="20" y="0" hdg="0" length="30"><spiral curvStart="0" \
curvEnd="0.02"/></geometry>
<geometry s="50" x="49.73112266633079" y="2.9807694262868734" hdg="0.3" \
length="30"><arc curvature="0.02"/></geometry>
</planView>
<elevationProfile><elevation s="0" a="1" b="0.02" c="0" d="0"/>\
</elevationProfile>
<lateralProfile><superelevation s="0" a="0.05" b="0" c="0" d="0"/>\
</lateralProfile>
<lanes><laneOffset s="0" a="0.5" b="0" c="0" d="0"/>
<laneSection s="0"><left><lane id="1" type="driving"><width sOffset="0" \
a="3.5" b="0" c="0" d="0"/></lane></left>
<center><lane id="0" type="none"/></center>
<right><lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" \
d="0"/><width sOffset="10" a="3" b="0.05" c="0" d="0"/></lane>
<lane id="-2" type="shoulder"><width sOffset="0" a="1" b="0.03" \
c="-0.0003" d="0.000001"/></lane></right></laneSection>
</lanes></road></OpenDRIVE>
"""
        _, db = self.states(t1, [("r", 1, 5, 0)])
        got = dict(query(db, "SELECT lane, width FROM lane_info"))
        self.assertAlmostEqual(got[1], 3.5, delta=1e-9)
        self.assertAlmostEqual(got[-1], (30 + 70 * 4.75) / 80, delta=1e-9)
        self.assertAlmostEqual(got[-2], 1 + 1.2 - 0.64 + 2.5e-7 * 80 ** 3,
                               delta=1e-9)

    def test_width_past_section_end(self):
        # sOffset 60 on a 50 m road: the record never applies (it was
        # refused as "width -1 m at s=60"); the lane is 3.5 m all along
        lanes = ('<lane id="-1" type="driving"><width sOffset="0" a="3.5" '
                 'b="0" c="0" d="0"/><width sOffset="60" a="-1" b="0" '
                 'c="0" d="0"/></lane>')
        got, db = self.states(ROAD % ("0", lanes), [("L", -1, 49, 0.5)])
        self.check(got, [(-1.25, 0, 0)])
        self.assertEqual(query(db, "SELECT width FROM lane_info"),
                         [(3.5,)])


if __name__ == "__main__":
    unittest.main()
