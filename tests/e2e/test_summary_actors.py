"""variant_summary names the actor each KPI is of, the lowest ID among
equals. Closed forms: a kinematic bicycle whose rear axle is its origin
(front overhang = length/2 - wheelbase) holding road-wheel angle delta at
speed v turns at yaw rate v tan(delta) / l and has lateral acceleration
v^2 tan(delta) / l = v^2 / R; the closest of three cars in file is the
pair whose footprints are nearest. min_ttc and min_time_headway are of
an actor's lead, "the nearest other actor ahead on the same lane"
(docs/results.md): never an actor of its own combination (a trailer is
not behind its tractor), nor one that has left the lane off its end."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run  # noqa: E402

L = 2.5        # m, wheelbase
RATIO = 15     # steering ratio
V = 10.0       # m/s

HEAD = """\
vsweep: 1
step: 0.01
duration: 2
assets:
  car: {length: 6, width: 2, height: 1.5, wheelbase: %r, front_overhang: 0.5}
actors:
""" % L


def circler(i, x, wheel_deg):
    return ("  - {id: %d, asset: car, start: {position: [%r, 0, 0], yaw: 0}, "
            "speed: %r, vehicle_model: {plugin: kinematic_bicycle, params: "
            "{steering_ratio: %r}}, behaviour: {plugin: constant_steer, "
            "params: {steering_wheel_deg: %r}}}\n"
            % (i, x, V, RATIO, wheel_deg))


def straight(i, y):
    return ("  - {id: %d, asset: car, start: {position: [0, %r, 0], yaw: 0}, "
            "speed: %r}\n" % (i, y, V))


KPIS = ("SELECT max_lateral_acceleration, max_lateral_acceleration_actor_id, "
        "max_yaw_rate, max_yaw_rate_actor_id, min_distance, "
        "min_distance_actor_id, min_distance_other_actor_id "
        "FROM variant_summary")


class SummaryActors(TempDirCase):
    def kpis(self, text):
        scn = self.write("s.yaml", text)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db, "--overwrite")
        self.assertEqual(rc, 0, err)
        return query(db, KPIS)[0]

    def test_sharper_circle_has_the_larger_lateral_acceleration(self):
        # Actor 2 turns on the tighter circle (60 deg at the wheel against
        # 30 deg): it has both maxima; actor 1 is listed first.
        lat, lat_id, yaw, yaw_id, _, _, _ = self.kpis(
            HEAD + circler(1, 0, 30) + circler(2, 1000, 60))
        delta = math.radians(60) / RATIO
        self.assertAlmostEqual(lat, V * V * math.tan(delta) / L, places=9)
        self.assertAlmostEqual(yaw, V * math.tan(delta) / L, places=12)
        self.assertEqual((lat_id, yaw_id), (2, 2))

    def test_ties_go_to_the_lowest_id(self):
        # Actors 5 and 4 turn alike (and tighter than 2): of equal maxima
        # the lower ID, though 5 is listed first.
        lat, lat_id, _, yaw_id, _, _, _ = self.kpis(
            HEAD + circler(5, 0, 60) + circler(2, 1000, 30) +
            circler(4, 2000, 60))
        delta = math.radians(60) / RATIO
        self.assertAlmostEqual(lat, V * V * math.tan(delta) / L, places=9)
        self.assertEqual((lat_id, yaw_id), (4, 4))

    def test_min_distance_names_the_closest_pair(self):
        # Three 6 m cars in a column at one speed, listed 3, 1, 2, origins
        # at y = 0, 10, 30: bumper gaps 4 (3-1), 14 (1-2) and 24 (3-2) m;
        # the pair is named lower ID first.
        row = self.kpis(HEAD + straight(3, 0) + straight(1, 10) +
                        straight(2, 30))
        self.assertAlmostEqual(row[4], 4.0, places=9)
        self.assertEqual(row[5:], (1, 3))
        # No turning: every lateral acceleration is 0, a tie of all three.
        self.assertEqual(row[0:4], (0.0, 1, 0.0, 1))

    def test_one_actor_has_no_pair(self):
        row = self.kpis(HEAD + straight(7, 0))
        self.assertEqual(row[4:], (None, None, None))
        self.assertEqual(row[1], 7)


# A straight one-lane road along +X (lane -1, centre y = -1.75), 400 m.
LEADS_HEAD = """\
vsweep: 1
step: 0.02
duration: %r
near_miss_ttc: 3
map:
  roads:
    - {id: r, line: [[0, 0, 0], [%r, 0, 0]], lanes: {right: 1, width: 3.5}}
assets:
  car: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0}
  # Origins mid-box; points in the actor frame (Y forward): the fifth
  # wheel 1.5 m behind the tractor's centre, each trailer's kingpin 4 m
  # ahead of its centre, its tail coupling 4.8 m behind it.
  tractor: {length: 6, width: 2.5, height: 3.5, axles: [1.8, -2.2],
            track: 2, wheel_radius: 0.5, points: {attach_fifth: [0, -1.5, 1.2]}}
  trailer: {length: 10, width: 2.5, height: 3.5, axles: [-3, -4],
            track: 2, wheel_radius: 0.45,
            points: {hitch: [0, 4, 1.2], attach_tail: [0, -4.8, 1.2]}}
actors:
"""
EAST = "yaw: -1.5707963267948966"  # faces +X

LEAD_KPIS = ("SELECT min_ttc, min_ttc_actor_id, min_time_headway, "
             "min_time_headway_actor_id FROM variant_summary")


class Leads(TempDirCase):
    def run_leads(self, text):
        db = self.path("r.db")
        rc, _, err = run("run", self.write("s.yaml", text), "-o", db,
                         "--overwrite")
        self.assertEqual(rc, 0, err)
        return (query(db, LEAD_KPIS)[0],
                query(db, "SELECT actor_id, other_actor_id, detail FROM "
                      "event WHERE kind = 'near_miss'"))

    def test_road_train_is_no_lead_of_itself(self):
        # Tractor 1 at x = 100 pulls trailer 2 (kingpin on its fifth
        # wheel), which pulls trailer 3 (kingpin on 2's tail), all at
        # 10 m/s along the lane; car 4 follows at 8 m/s. On the line the
        # centres are at 100, 100 - 1.5 - 4 = 94.5 and 94.5 - 4.8 - 4 =
        # 85.7 m: trailer 3's rear at 80.7 m, car 4's front (centre 48.3)
        # at 50.7 m, a gap of 30 m. No actor of the train is another's
        # lead (3 and 1 are attached through 2), so the only follower is
        # car 4: headway 30 / 8 at the start, the gap growing after;
        # nobody closes on a lead: no TTC, no near miss.
        text = LEADS_HEAD % (5, 400) + """\
  - {id: 1, asset: tractor, start: {position: [100, -1.75, 0], %s},
     speed: 10, vehicle_model: {plugin: kinematic_bicycle}}
  - {id: 2, asset: trailer, attach: {parent: 1, type: trailer,
     child_point: hitch, parent_point: attach_fifth}}
  - {id: 3, asset: trailer, attach: {parent: 2, type: trailer,
     child_point: hitch, parent_point: attach_tail}}
  - {id: 4, asset: car, start: {position: [48.3, -1.75, 0], %s},
     speed: 8}
""" % (EAST, EAST)
        (ttc, ttc_id, thw, thw_id), near = self.run_leads(text)
        self.assertIsNone(ttc)
        self.assertIsNone(ttc_id)
        self.assertAlmostEqual(thw, 30 / 8, places=9)
        self.assertEqual(thw_id, 4)
        self.assertEqual(near, [])
        # Nor is the train compared with itself: tractor 1's rear (97 m)
        # is 6.3 m from trailer 3's front (90.7 m), but the closest two
        # actors of different vehicles are trailer 3 and car 4, 30 m
        # apart at the start.
        (d, a, b), = query(self.path("r.db"), "SELECT min_distance, "
                           "min_distance_actor_id, "
                           "min_distance_other_actor_id FROM variant_summary")
        self.assertAlmostEqual(d, 30, places=9)
        self.assertEqual((a, b), (3, 4))
        self.assertEqual(query(self.path("r.db"), "SELECT count(*) FROM "
                               "actor_pair WHERE actor_id IN (1, 2, 3) AND "
                               "other_actor_id IN (1, 2, 3)"), [(0,)])

    def test_semi_trailer_in_a_turn_is_no_follower(self):
        # A tractor and its semi-trailer alone through a 90 deg left
        # turn: in the curve the trailer's origin is at times faster than
        # the tractor's, and ahead of it on the lane is only its own
        # tractor, which is no lead. Alone on the road, nobody has a
        # lead: min_ttc and min_time_headway NULL, no near_miss.
        text = """\
vsweep: 1
step: 0.02
duration: 20
near_miss_ttc: 3
map:
  roads:
    - id: r
      polyline: [[-50, 0, 0], [60, 0, 0], [85, 25, 0], [85, 150, 0]]
      lanes: {right: 1, left: 1, width: 3.5}
assets:
  tractor: {length: 6.2, width: 2.5, height: 3.8, axles: [2.1, -1.6, -2.9],
            track: 2.05, wheel_radius: 0.52,
            points: {attach_fifth_wheel: [0, -1.95, 1.2]}}
  semi: {length: 13.6, width: 2.55, height: 4.0, axles: [-0.79, -2.1, -3.41],
         track: 2.04, wheel_radius: 0.45, points: {hitch: [0, 5.6, 1.2]}}
actors:
  - id: 1
    asset: tractor
    waypoints: [[0, 0, 0], [60, 0, 0], [85, 25, 0], [85, 85, 0]]
    yaw: [-1.5707963, -1.5707963, 0, 0]
    speed: 8
    vehicle_model: {plugin: kinematic_bicycle}
    behaviour: {plugin: waypoints}
  - id: 2
    asset: semi
    attach: {parent: 1, type: trailer, child_point: hitch,
             parent_point: attach_fifth_wheel}
"""
        kpis, near = self.run_leads(text)
        self.assertEqual(kpis, (None, None, None, None))
        self.assertEqual(near, [])

    def test_a_car_off_the_end_of_the_lane_is_no_lead(self):
        # A 100 m lane; car 1 at x = 0 behind car 2 at x = 60, both at
        # 20 m/s: gap 60 - 4.8 = 55.2 m, headway 55.2 / 20 = 2.76 s. At
        # 2 s car 2's origin leaves the lane off its end (it is then on
        # no lane), and car 1 drives on towards x = 100: car 2 is no
        # longer ahead on its lane, so the headway never drops below
        # 2.76 s; at one speed nobody closes: no TTC.
        text = LEADS_HEAD % (6, 100) + """\
  - {id: 1, asset: car, start: {position: [0, -1.75, 0], %s}, speed: 20}
  - {id: 2, asset: car, start: {position: [60, -1.75, 0], %s}, speed: 20}
""" % (EAST, EAST)
        (ttc, ttc_id, thw, thw_id), near = self.run_leads(text)
        self.assertIsNone(ttc)
        self.assertAlmostEqual(thw, 55.2 / 20, places=9)
        self.assertEqual(thw_id, 1)
        self.assertEqual(near, [])


if __name__ == "__main__":
    unittest.main()
