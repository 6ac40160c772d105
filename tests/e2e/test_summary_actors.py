"""variant_summary names the actor each KPI is of, the lowest ID among
equals. Closed forms: a kinematic bicycle whose rear axle is its origin
(front overhang = length/2 - wheelbase) holding road-wheel angle delta at
speed v turns at yaw rate v tan(delta) / l and has lateral acceleration
v^2 tan(delta) / l = v^2 / R; the closest of three cars in file is the
pair whose footprints are nearest."""
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


if __name__ == "__main__":
    unittest.main()
