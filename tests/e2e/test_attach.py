"""A semi-trailer truck (scenarios/semi_trailer.yaml and its sweep) through
the real binary: actor_info's Parent / Children columns, the kingpin on the
fifth wheel at every step (from actor_pose), no lateral slip at the
trailer's axle centre, off-tracking in the turn, the trailer's wheels."""
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import query, run, scenario  # noqa: E402

FIFTH_WHEEL = (0.0, -1.95, 1.2)   # m, tractor frame (semi_trailer.yaml)
HITCH = (0.0, 5.6, 1.2)           # m, trailer frame at its 13.6 m length
SEMI_LENGTH = 13.6                # m
TRIDEM_CENTRE = -2.1              # m, trailer frame, mean of its axles
TRIDEM = (-0.79, -2.1, -3.41)     # m
TRACK, WHEEL_RADIUS = 2.04, 0.45  # m
STEPS = 3501
SPEEDS = [5, 5, 8, 8, 12, 12]
LENGTHS = [12.0, 13.6] * 3


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


def front_shift(length):
    """Imported points and axles are measured from the front bumper: a
    length change moves them by half of it in the actor frame."""
    return (length - SEMI_LENGTH) / 2


class SemiTrailerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls._dir.name, "semi.db")
        cls.rc, cls.out, cls.err = run(
            "run", scenario("semi_trailer.yaml"), "--sweep",
            scenario("semi_trailer_sweep.yaml"), "-o", cls.db, "-j", "3")

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_all_variants_done(self):
        self.assertEqual(self.rc, 0, self.err)
        rows = query(self.db, "SELECT variant_id, status, error FROM "
                     "variant_info ORDER BY variant_id")
        self.assertEqual(rows, [(i, "done", None) for i in range(6)])

    def test_actor_info_parent_and_attach_type(self):
        rows = query(self.db, "SELECT variant_id, actor_id, kind, parent_id, "
                     "attach_type, length, wheel_count, vehicle_model, "
                     "behaviour FROM actor_info ORDER BY variant_id, "
                     "actor_id")
        self.assertEqual(len(rows), 12)
        for v in range(6):
            tractor, semi = rows[2 * v], rows[2 * v + 1]
            self.assertEqual(tractor[1:5], (1, "vehicle", 0, None))
            self.assertEqual(tractor[6:], (6, "kinematic_bicycle",
                                           "waypoints"))
            self.assertEqual(semi[1:5], (2, "vehicle", 1, "trailer"))
            self.assertAlmostEqual(semi[5], LENGTHS[v], places=12)
            self.assertEqual(semi[6:], (6, None, None))

    def test_children_are_the_rows_whose_parent_is_the_tractor(self):
        for v in range(6):
            kids = query(self.db, "SELECT actor_id FROM actor_info WHERE "
                         "variant_id = ? AND parent_id = 1", v)
            self.assertEqual(kids, [(2,)])
            roots = query(self.db, "SELECT actor_id FROM actor_info WHERE "
                          "variant_id = ? AND parent_id = 0", v)
            self.assertEqual(roots, [(1,)])

    def test_kingpin_on_the_fifth_wheel_every_step(self):
        # Both points through the stored poses, in SQL: M * (x, y, z, 1).
        fx, fy, fz = FIFTH_WHEEL
        hx, _, hz = HITCH
        sql = """
          SELECT a.variant_id, count(*),
            max(abs((a.m11*:fx + a.m12*:fy + a.m13*:fz + a.m14) -
                    (b.m11*:hx + b.m12*(:hy + (i.length - :len)/2)
                     + b.m13*:hz + b.m14))),
            max(abs((a.m21*:fx + a.m22*:fy + a.m23*:fz + a.m24) -
                    (b.m21*:hx + b.m22*(:hy + (i.length - :len)/2)
                     + b.m23*:hz + b.m24))),
            max(abs((a.m31*:fx + a.m32*:fy + a.m33*:fz + a.m34) -
                    (b.m31*:hx + b.m32*(:hy + (i.length - :len)/2)
                     + b.m33*:hz + b.m34)))
          FROM actor_pose a
          JOIN actor_pose b ON b.variant_id = a.variant_id
                           AND b.step = a.step AND b.actor_id = 2
          JOIN actor_info i ON i.variant_id = a.variant_id
                           AND i.actor_id = 2
          WHERE a.actor_id = 1
          GROUP BY a.variant_id ORDER BY a.variant_id"""
        import sqlite3
        with sqlite3.connect(self.db) as c:
            rows = c.execute(sql, {"fx": fx, "fy": fy, "fz": fz, "hx": hx,
                                   "hy": HITCH[1], "hz": hz,
                                   "len": SEMI_LENGTH}).fetchall()
        self.assertEqual([r[0] for r in rows], list(range(6)))
        for v, n, dx, dy, dz in rows:
            self.assertEqual(n, STEPS)
            self.assertLess(max(dx, dy, dz), 1e-9,
                            "variant %d: gap %g %g %g m" % (v, dx, dy, dz))

    def _states(self, v, actor):
        return query(self.db, "SELECT step, x, y, yaw, vx, vy, wz FROM "
                     "actor_state WHERE variant_id = ? AND actor_id = ? "
                     "ORDER BY step", v, actor)

    def test_no_lateral_slip_and_off_tracking(self):
        for v in range(6):
            yc = TRIDEM_CENTRE + front_shift(LENGTHS[v])
            tractor, semi = self._states(v, 1), self._states(v, 2)
            self.assertEqual(len(semi), STEPS)
            worst, art_max = 0.0, 0.0
            for (_, _, _, yaw1, *_), (_, x, y, yaw, vx, vy, wz) in zip(
                    tractor, semi):
                # axle centre r = R(yaw) (0, yc); v + w x r, across the
                # trailer's +X axis (cos yaw, sin yaw)
                rx, ry = -math.sin(yaw) * yc, math.cos(yaw) * yc
                lat = (math.cos(yaw) * (vx - wz * ry) +
                       math.sin(yaw) * (vy + wz * rx))
                worst = max(worst, abs(lat))
                art_max = max(art_max, abs(wrap(yaw - yaw1)))
            self.assertLess(worst, 1e-9, "variant %d" % v)
            # In the turn (about 23 m at the tractor's rear axle) the
            # trailer lags the tractor by some 16 deg (18 deg when
            # settled: asin(7.7 / 23)); 60 m of straight later it has
            # lined up again (the articulation decays about as
            # exp(-s / 7.7 m)).
            self.assertGreater(math.degrees(art_max), 12, "variant %d" % v)
            end = wrap(semi[-1][3] - tractor[-1][3])
            self.assertLess(abs(math.degrees(end)), 1.0, "variant %d" % v)

    def test_trailer_cuts_inside_the_tractor_path(self):
        # Off-tracking: the tridem centre's path runs inside the tractor's
        # rear axle path, nearer the turn's centre at (60, 25). A point
        # (0, y) of an actor is at origin + (-sin(yaw) y, cos(yaw) y).
        def nearest(points):
            return min(math.hypot(x - 60, y - 25) for x, y in points)
        tractor, semi = self._states(3, 1), self._states(3, 2)
        rear = [(x + math.sin(yaw) * 2.25, y - math.cos(yaw) * 2.25)
                for _, x, y, yaw, *_ in tractor]
        axle = [(x + math.sin(yaw) * 2.1, y - math.cos(yaw) * 2.1)
                for _, x, y, yaw, *_ in semi]
        # Settled on the 23 m radius it would be sqrt(23^2 + 0.3^2 -
        # 7.7^2) = 21.7 m, 1.3 m inside; a quarter turn gets most of it.
        self.assertLess(nearest(axle), nearest(rear) - 0.7)

    def test_trailer_wheels_in_wheel_pose(self):
        for v in (0, 5):
            shift = front_shift(LENGTHS[v])
            rows = query(self.db, "SELECT step, wheel, m11, m14, m24, m34 "
                         "FROM wheel_pose WHERE variant_id = ? AND "
                         "actor_id = 2 ORDER BY step, wheel", v)
            self.assertEqual(len(rows), 6 * STEPS)
            want = [(s * TRACK / 2, y + shift) for y in TRIDEM
                    for s in (-1, 1)]
            for step, wheel, m11, x, y, z in rows[:12] + rows[-6:]:
                self.assertAlmostEqual(x, want[wheel][0], places=12)
                self.assertAlmostEqual(y, want[wheel][1], places=12)
                self.assertAlmostEqual(z, WHEEL_RADIUS, places=12)
                self.assertAlmostEqual(m11, 1.0, places=12)  # unsteered
            # The wheels roll: spin changes between the first and last
            # step (m22 = cos(spin)).
            spins = query(self.db, "SELECT m22, m32 FROM wheel_pose WHERE "
                          "variant_id = ? AND actor_id = 2 AND wheel = 0 "
                          "AND step IN (0, 1000) ORDER BY step", v)
            self.assertNotEqual(spins[0], spins[1])


if __name__ == "__main__":
    unittest.main()
