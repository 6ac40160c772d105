"""The seed article's circle: positions on the 57.3 m circle, poses in
RoadRunner's convention (yaw = heading - pi/2)."""
import math
import sys
import unittest

sys.path.insert(0, __import__("os").path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

L = 3.0                          # m, wheelbase (scenario)
DELTA = math.radians(45) / 15    # rad, road-wheel angle: 45 deg / 15
R_ARTICLE = L / DELTA            # m, 57.3: the article's l / delta


def wrap(a):
    """An angle in (-pi, pi]."""
    return math.pi - (math.pi - a) % (2 * math.pi)


def fit_circle(pts):
    """Kasa algebraic least-squares circle fit: (cx, cy, r)."""
    n = len(pts)
    sx = sum(p[0] for p in pts) / n
    sy = sum(p[1] for p in pts) / n
    u = [(p[0] - sx, p[1] - sy) for p in pts]
    suu = sum(a * a for a, _ in u)
    svv = sum(b * b for _, b in u)
    suv = sum(a * b for a, b in u)
    suuu = sum(a ** 3 for a, _ in u)
    svvv = sum(b ** 3 for _, b in u)
    suvv = sum(a * b * b for a, b in u)
    svuu = sum(b * a * a for a, b in u)
    rhs1 = 0.5 * (suuu + suvv)
    rhs2 = 0.5 * (svvv + svuu)
    det = suu * svv - suv * suv
    uc = (rhs1 * svv - rhs2 * suv) / det
    vc = (suu * rhs2 - suv * rhs1) / det
    r = math.sqrt(uc * uc + vc * vc + (suu + svv) / n)
    return sx + uc, sy + vc, r


class CircleTest(TempDirCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._dir = tempfile.TemporaryDirectory()
        cls.db = cls._dir.name + "/circle.db"
        cls.rc, cls.out, cls.err = run(
            "run", scenario("circle.yaml"), "--sweep",
            scenario("circle_speed.yaml"), "-o", cls.db, "-j", "2")

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_exit_and_variants(self):
        self.assertEqual(self.rc, 0, self.err)
        rows = query(self.db, "SELECT variant_id, status FROM variant_info "
                     "ORDER BY variant_id")
        self.assertEqual(rows, [(i, "done") for i in range(6)])
        speeds = query(self.db, "SELECT json_extract(params, '$.actor1.speed')"
                       " FROM variant_info ORDER BY variant_id")
        self.assertEqual([s[0] for s in speeds], [5, 10, 15, 20, 25, 30])

    def test_positions_on_the_articles_circle(self):
        for v in range(6):
            pts = query(self.db, "SELECT x, y FROM actor_state WHERE "
                        "variant_id = ? AND actor_id = 1", v)
            self.assertEqual(len(pts), 3001)  # 30 s at 0.01 s, plus t = 0
            cx, cy, r = fit_circle(pts)
            self.assertAlmostEqual(r / R_ARTICLE, 1.0, delta=0.005,
                                   msg="variant %d radius %.4f" % (v, r))
            for x, y in pts:
                d = math.hypot(x - cx, y - cy)
                self.assertAlmostEqual(d / R_ARTICLE, 1.0, delta=0.005)

    def test_speed_and_time(self):
        rows = query(self.db, "SELECT step, t, vx, vy FROM actor_state "
                     "WHERE variant_id = 2 ORDER BY step")
        for step, t, vx, vy in rows:
            self.assertAlmostEqual(t, step * 0.01, places=12)
            # The origin is ahead of the rear axle, so it runs a little
            # faster than the commanded rear-axle speed: R_o / R_rear.
            r_rear = L / math.tan(DELTA)
            expect = 15.0 * math.hypot(r_rear, 1.5) / r_rear if step else 15
            self.assertAlmostEqual(math.hypot(vx, vy), expect, places=6)

    def test_counter_clockwise_and_yaw_rate(self):
        rows = query(self.db, "SELECT wz FROM actor_state WHERE variant_id "
                     "= 1 AND step > 0")
        r_rear = L / math.tan(DELTA)
        for (wz,) in rows:
            self.assertAlmostEqual(wz, 10.0 / r_rear, places=9)

    def test_pose_matrix_is_rr_convention(self):
        states = query(self.db, "SELECT step, x, y, z, roll, pitch, yaw, vx,"
                       " vy FROM actor_state WHERE variant_id = 3 ORDER BY "
                       "step")
        poses = query(self.db, "SELECT * FROM actor_pose WHERE variant_id = "
                      "3 ORDER BY step")
        self.assertEqual(len(states), len(poses))
        for (step, x, y, z, roll, pitch, yaw, vx, vy), p in zip(states, poses):
            self.assertEqual(p[2], step)
            m = p[4:]
            cr, sr = math.cos(roll), math.sin(roll)
            cp, sp = math.cos(pitch), math.sin(pitch)
            cy, sy = math.cos(yaw), math.sin(yaw)
            rz = [[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]]
            # Rz(yaw) Rx(pitch) Ry(roll): pitch about X, roll about Y
            rx = [[1, 0, 0], [0, cp, -sp], [0, sp, cp]]
            ry = [[cr, 0, sr], [0, 1, 0], [-sr, 0, cr]]
            mul = lambda a, b: [[sum(a[i][k] * b[k][j] for k in range(3))
                                 for j in range(3)] for i in range(3)]
            r = mul(mul(rz, rx), ry)
            want = [r[0] + [x], r[1] + [y], r[2] + [z], [0, 0, 0, 1]]
            for i in range(4):
                for j in range(4):
                    self.assertAlmostEqual(m[4 * i + j], want[i][j],
                                           places=12)
            # yaw = heading - pi/2: the actor's +Y axis (column 2 of R)
            # points along the heading, which the origin's velocity
            # follows up to the small angle of the origin off the rear
            # axle's path: atan(1.5 / R_rear).
            heading = math.atan2(m[5], m[1])  # R[1][1], R[0][1]
            self.assertAlmostEqual(wrap(heading - yaw - math.pi / 2), 0.0,
                                   places=12)
            if step > 0:
                vel_dir = math.atan2(vy, vx)
                slip = math.atan2(1.5, L / math.tan(DELTA))
                self.assertAlmostEqual(wrap(vel_dir - heading - slip), 0.0,
                                       places=9)


if __name__ == "__main__":
    unittest.main()
