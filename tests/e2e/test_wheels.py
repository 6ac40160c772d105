"""WheelPoses of a kinematic bicycle on the seed circle, against the
closed-form geometry of steady turning: order, positions, Ackermann angles,
steer sign in a left turn, and spin against distance / radius."""
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import query, run, scenario  # noqa: E402

L, T, RW = 3.0, 1.6, 0.34          # m: wheelbase, track, wheel radius
DELTA = math.radians(45) / 15      # rad, bicycle road-wheel angle
V = 10.0                           # m/s, rear-axle speed (variant 1)
R = L / math.tan(DELTA)            # m, rear-axle radius
W = V / R                          # rad/s, yaw rate
DT = 0.01                          # s


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


class WheelPoseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls._dir.name, "w.db")
        rc, _, err = run("run", scenario("circle.yaml"), "--sweep",
                         scenario("circle_speed.yaml"), "-o", cls.db)
        assert rc == 0, err
        cls.rows = {}
        for r in query(cls.db, "SELECT * FROM wheel_pose WHERE variant_id = "
                       "1 ORDER BY step, wheel"):
            cls.rows.setdefault(r[2], []).append(r)

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_four_wheels_in_order_at_their_places(self):
        self.assertEqual(query(self.db, "SELECT wheel_count FROM actor_info "
                               "WHERE variant_id = 1"), [(4,)])
        # Axles at y = length/2 - front_overhang = 1.5 and one wheelbase
        # behind; left (x < 0, the actor's X points right) before right.
        want = [(-T / 2, 1.5), (T / 2, 1.5), (-T / 2, -1.5), (T / 2, -1.5)]
        for step in (0, 500, 3000):
            wheels = self.rows[step]
            self.assertEqual([w[3] for w in wheels], [0, 1, 2, 3])
            for w, (x, y) in zip(wheels, want):
                m = w[4:]
                self.assertAlmostEqual(m[3], x, places=12)
                self.assertAlmostEqual(m[7], y, places=12)
                self.assertAlmostEqual(m[11], RW, places=12)
                self.assertEqual(m[12:], (0.0, 0.0, 0.0, 1.0))

    def test_ackermann_angles_in_a_left_turn(self):
        for step in (1, 1000, 3000):
            m = [w[4:] for w in self.rows[step]]
            steer = [math.atan2(w[4], w[0]) for w in m]   # Rz: m21, m11
            # Each front wheel points square to the turn centre, which
            # lies R to the left of the rear axle.
            self.assertAlmostEqual(steer[0], math.atan(L / (R - T / 2)),
                                   places=12)
            self.assertAlmostEqual(steer[1], math.atan(L / (R + T / 2)),
                                   places=12)
            self.assertGreater(steer[0], steer[1])        # inner wheel more
            self.assertGreater(steer[1], 0)               # left turn: +
            self.assertAlmostEqual(1 / math.tan(steer[1]) -
                                   1 / math.tan(steer[0]), T / L, places=9)
            self.assertEqual(steer[2], 0)
            self.assertEqual(steer[3], 0)

    def test_spin_is_distance_over_radius(self):
        # Steady turning: each wheel centre runs on a circle about the turn
        # centre at the yaw rate; its radius from the geometry.
        radius = [math.hypot(R - T / 2, L), math.hypot(R + T / 2, L),
                  R - T / 2, R + T / 2]
        for step in (100, 1000, 2999):
            t = step * DT
            for w, rho in zip(self.rows[step], radius):
                m = w[4:]
                spin = math.atan2(m[9], m[10])            # Rx: m32, m33
                # Rolling forward turns the wheel negatively about +X.
                want = -rho * W * t / RW
                # The first step starts from straight-ahead: at most a
                # half step of yaw rate, far below this tolerance.
                self.assertAlmostEqual(wrap(spin - want), 0, delta=0.02,
                                       msg="wheel %d step %d" % (w[3], step))

    def test_rotation_is_rz_times_rx(self):
        for w in self.rows[1234]:
            m = w[4:]
            a = math.atan2(m[4], m[0])
            p = math.atan2(m[9], m[10])
            want = [math.cos(a), -math.sin(a) * math.cos(p),
                    math.sin(a) * math.sin(p), math.sin(a),
                    math.cos(a) * math.cos(p), -math.cos(a) * math.sin(p),
                    0.0, math.sin(p), math.cos(p)]
            got = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]
            for g, e in zip(got, want):
                self.assertAlmostEqual(g, e, places=12)


if __name__ == "__main__":
    unittest.main()
