"""Events and variant_summary on closed-form set-ups: two cars on a
collision course collide at the computed time (± one step); passing cars
keep the computed gap; the circle's summary is V r and V / R."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
