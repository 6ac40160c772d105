"""Events and variant_summary on closed-form set-ups: two cars on a
collision course collide at the computed time (± one step); passing cars
keep the computed gap; the circle's summary is V r and V / R. A
lane_change is a move sideways between lanes (docs/results.md: "the
actor's lane (`lane_id`) changes while its origin stays on lanes"): on
an OpenDRIVE map, driving on into the next lane section or through a
junction's connecting road into the road after it follows the lane
links and is none; moving over to the next lane is one."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run, scenario  # noqa: E402

L, W = 4.8, 1.9  # m, sedan length and width

HEAD_ON = """\
vsweep: 1
name: head on
step: 0.01
duration: 8
%s
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [0, 0, 0], yaw: -1.5707963267948966}   # faces +X
    speed: 10
  - id: 2
    asset: sedan
    start: {position: [100, 0, 0], yaw: 1.5707963267948966}  # faces -X
    speed: 10
"""

PASS_BY = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 2, start: {position: [100, 0, 0], yaw: 1.5707963267948966}}]
      - [{actor: 2, start: {position: [100, 5, 0], yaw: 1.5707963267948966}}]
"""


class EventTest(TempDirCase):
    def test_head_on_collision_time(self):
        scn = self.write("s.yaml", HEAD_ON % "")
        sw = self.write("w.yaml", PASS_BY)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "--sweep", sw, "-o", db)
        self.assertEqual(rc, 0, err)
        # Fronts meet when the centres are one length apart, closing at
        # 20 m/s from 100 m.
        t_hit = (100 - L) / 20
        ev = query(db, "SELECT t, actor_id, kind, other_actor_id FROM event "
                   "WHERE variant_id = 0")
        self.assertEqual(len(ev), 1, ev)
        t, a, kind, other = ev[0]
        self.assertEqual((a, kind, other), (1, "collision", 2))
        self.assertLessEqual(abs(t - t_hit), 0.01 + 1e-9)
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE "
                               "variant_id = 1"), [(0,)])
        rows = dict((r[0], r[1:]) for r in query(
            db, "SELECT variant_id, collisions, min_distance, lane_changes, "
            "time_on_lane_pct FROM variant_summary"))
        self.assertEqual(rows[0][0], 1)
        self.assertEqual(rows[0][1], 0.0)
        # Side by side, 5 m apart: the footprints' gap is 5 - W.
        self.assertEqual(rows[1][0], 0)
        self.assertAlmostEqual(rows[1][1], 5 - W, places=9)
        self.assertEqual(rows[1][2], 0)
        self.assertIsNone(rows[1][3])  # no map: not defined

    def test_stop_at_first_collision(self):
        scn = self.write("s.yaml", HEAD_ON % "stop_at_collision: true")
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db)
        self.assertEqual(rc, 0, err)
        (t_ev,), = query(db, "SELECT t FROM event")
        (t_end,), = query(db, "SELECT max(t) FROM actor_state")
        self.assertEqual(t_end, t_ev)
        self.assertLess(t_end, 5)

    def test_circle_summary(self):
        db = self.path("c.db")
        rc, _, err = run("run", scenario("circle.yaml"), "--sweep",
                         scenario("circle_speed.yaml"), "-o", db)
        self.assertEqual(rc, 0, err)
        l, delta = 3.0, math.radians(45) / 15
        r_rear = l / math.tan(delta)
        r_origin = math.hypot(r_rear, 1.5)  # origin 1.5 m ahead of the axle
        for vid, speed, lat, yaw_rate, mind in query(
                db, "SELECT variant_id, json_extract(params, "
                "'$.actor1.speed'), max_lateral_acceleration, max_yaw_rate, "
                "min_distance FROM variant_summary"):
            w = speed / r_rear
            self.assertAlmostEqual(yaw_rate, w, places=9)
            # The origin runs at w * r_origin: a_lat = V_origin * r.
            self.assertAlmostEqual(lat, w * r_origin * w, places=9)
            self.assertIsNone(mind)  # one actor


XODR = os.path.join(SRC, "tests", "data", "xodr")

# A car on an OpenDRIVE map at constant speed; %s: its start or route.
ODR_CAR = """\
vsweep: 1
step: 0.05
duration: %r
map: {opendrive: %s}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    speed: 10
%s"""

# The lanes the car was on, in order, as (road, lane, section), and the
# lane_change events and count.
LANES = ("SELECT l.road, l.lane, l.section FROM map_location m "
         "JOIN lane_info l USING (lane_id) ORDER BY m.step")


class LaneChangeTest(TempDirCase):
    def drive(self, xodr, duration, actor):
        db = self.path("r.db")
        scn = self.write("s.yaml", ODR_CAR % (
            duration, os.path.join(XODR, xodr), actor))
        rc, _, err = run("run", scn, "-o", db, "--overwrite")
        self.assertEqual(rc, 0, err)
        seq = []
        for row in query(db, LANES):
            if not seq or seq[-1] != row:
                seq.append(row)
        uuid = dict(((r, n, k), u) for u, r, n, k in query(
            db, "SELECT lane_id, road, lane, section FROM lane_info"))
        changes = [d for (d,) in query(db, "SELECT detail FROM event WHERE "
                                       "kind = 'lane_change' ORDER BY t")]
        (count,), = query(db, "SELECT lane_changes FROM variant_summary")
        self.assertEqual(query(db, "SELECT count(*) FROM event WHERE kind "
                               "IN ('off_road', 'back_on_road')"), [(0,)])
        return seq, uuid, changes, count

    def test_into_the_next_lane_section_is_no_lane_change(self):
        # sections.xodr: road s2's lane -1 runs on from its first lane
        # section into the second at s = 60 m (lane links successor -1,
        # predecessor -1). From s = 5 at 10 m/s the car crosses at 5.5 s.
        seq, _, changes, count = self.drive(
            "sections.xodr", 8, "    start: {position: {road: s2, lane: -1, "
            "s: 5}}\n    behaviour: {plugin: lane_follow}\n")
        self.assertEqual(seq, [("s2", -1, 0), ("s2", -1, 1)])
        self.assertEqual(changes, [])
        self.assertEqual(count, 0)

    def test_through_a_junction_is_no_lane_change(self):
        # junction.xodr: road 1's lane -1 leads through the junction's
        # connecting road 100 (connection 0) into road 2's lane -1;
        # from s = 80 at 10 m/s, 40 m: into 100 at 2 s, road 2 at 4 s.
        seq, _, changes, count = self.drive(
            "junction.xodr", 6, "    start: {position: {road: \"1\", lane: "
            "-1, s: 80}}\n    behaviour: {plugin: lane_follow}\n")
        self.assertEqual(seq, [("1", -1, 0), ("100", -1, 0), ("2", -1, 0)])
        self.assertEqual(changes, [])
        self.assertEqual(count, 0)

    def test_into_a_junction_by_its_second_connection_is_none(self):
        # junction.xodr's connection 1 links road 1's lane -1 to the
        # left turn 101 (a quarter circle of 10 m radius, 15.7 m): the
        # car turns into it at 2 s and is still on it at 3 s.
        seq, _, changes, count = self.drive(
            "junction.xodr", 3, "    waypoints: [{road: \"1\", lane: -1, "
            "s: 80}, {road: \"1\", lane: -1, s: 99}, {road: \"101\", "
            "lane: -1, s: 7.85}, {road: \"3\", lane: -1, s: 1}]\n"
            "    behaviour: {plugin: waypoints}\n")
        self.assertEqual(seq, [("1", -1, 0), ("101", -1, 0)])
        self.assertEqual(changes, [])
        self.assertEqual(count, 0)

    def test_a_move_to_the_next_lane_still_counts(self):
        # sections.xodr's first section has lanes -1 and -2 side by side:
        # from lane -2 over to lane -1, then on into the second section
        # along lane -1's link: one lane change, -2 -> -1 in section 0.
        seq, uuid, changes, count = self.drive(
            "sections.xodr", 9, "    waypoints: [{road: s2, lane: -2, s: 5},"
            " {road: s2, lane: -2, s: 15}, {road: s2, lane: -1, s: 45},"
            " {road: s2, lane: -1, s: 95}]\n"
            "    behaviour: {plugin: waypoints}\n")
        self.assertEqual(seq, [("s2", -2, 0), ("s2", -1, 0), ("s2", -1, 1)])
        self.assertEqual(changes, ["%s -> %s" % (uuid[("s2", -2, 0)],
                                                 uuid[("s2", -1, 0)])])
        self.assertEqual(count, 1)


if __name__ == "__main__":
    unittest.main()
