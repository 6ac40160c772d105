"""The seed article's two-wheel models end to end: scenarios/article.yaml
with the speed x lf sweep, run by the real binary with bicycle_steady (as
shipped) and with bicycle_linear (the same file, model swapped), checked in
SQL against closed forms:

- the CG's circle: rho = (1 + A V^2) l / delta, A = -m/(2 l^2)
  (lf Kf - lr Kr)/(Kf Kr), Kf and Kr per tyre (two tyres per axle);
- variants at or above an oversteering car's critical speed 1 / sqrt(-A)
  are failed with a reason naming it; the others done; exit status 1;
- actor_pose: heading from +X = yaw + pi/2, and the origin moves along the
  heading plus its body slip, computed here in closed form.
"""
import math
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import query, run, scenario  # noqa: E402

M, L, KF, KR, IZ = 2000.0, 3.0, 30e3, 30e3, 3000.0  # kg, m, N/rad, kg m^2
DELTA = math.radians(45) / 15      # rad, road wheels: 45 deg / ratio 15
FRONT_AXLE_Y = 4.8 / 2 - 0.9       # m, the sedan's front axle (actor frame)
STEPS = 3001                       # 30 s at 0.01 s, plus t = 0


def wrap(a):
    """An angle in (-pi, pi]."""
    return math.pi - (math.pi - a) % (2 * math.pi)


def stability_factor(lf):
    lr = L - lf
    return -M / (2 * L * L) * (lf * KF - lr * KR) / (KF * KR)


def rho(v, lf):
    """The article's steady radius of the CG, m."""
    return (1 + stability_factor(lf) * v * v) * L / DELTA


def critical_speed(lf):
    a = stability_factor(lf)
    return 1 / math.sqrt(-a) if a < 0 else math.inf


def steady_beta(v, lf):
    """The linear model's steady CG sideslip (Abe), rad."""
    lr = L - lf
    return ((1 - M * lf * v * v / (2 * L * lr * KR))
            / (1 + stability_factor(lf) * v * v) * lr / L * DELTA)


def slowest_pole(v, lf):
    """The real part of the linear model's slower eigenvalue, 1/s."""
    lr = L - lf
    p = 2 * (KF + KR) / (M * v) + 2 * (lf * lf * KF + lr * lr * KR) / (IZ * v)
    q = 4 * KF * KR * L * L * (1 + stability_factor(lf) * v * v) / (M * IZ * v * v)
    d = p * p / 4 - q
    return -p / 2 + math.sqrt(d) if d > 0 else -p / 2


def fit_circle(pts):
    """Kasa algebraic least-squares circle fit: (cx, cy, r)."""
    n = len(pts)
    sx = sum(p[0] for p in pts) / n
    sy = sum(p[1] for p in pts) / n
    u = [(p[0] - sx, p[1] - sy) for p in pts]
    suu = sum(a * a for a, _ in u)
    svv = sum(b * b for _, b in u)
    suv = sum(a * b for a, b in u)
    rhs1 = 0.5 * sum(a ** 3 + a * b * b for a, b in u)
    rhs2 = 0.5 * sum(b ** 3 + b * a * a for a, b in u)
    det = suu * svv - suv * suv
    uc = (rhs1 * svv - rhs2 * suv) / det
    vc = (suu * rhs2 - suv * rhs1) / det
    return sx + uc, sy + vc, math.sqrt(uc * uc + vc * vc + (suu + svv) / n)


def cg(x, y, yaw, lf):
    """The CG: front_axle_y - lf ahead of the origin along the heading."""
    h = yaw + math.pi / 2
    c = FRONT_AXLE_Y - lf
    return x + c * math.cos(h), y + c * math.sin(h)


class DynamicsRun:
    """One run of article.yaml x article_speed_lf.yaml with a model."""

    def __init__(self, tmp, model):
        path = scenario("article.yaml")
        if model != "bicycle_steady":
            with open(path, encoding="utf-8") as f:
                text, n = re.subn(r"plugin: bicycle_steady\b[^\n]*",
                                  "plugin: " + model, f.read())
            assert n == 1, "article.yaml no longer names bicycle_steady"
            path = os.path.join(tmp, model + ".yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        self.db = os.path.join(tmp, model + ".db")
        self.rc, self.out, self.err = run(
            "run", path, "--sweep", scenario("article_speed_lf.yaml"),
            "-o", self.db, "-j", "2")
        rows = query(self.db, "SELECT variant_id, status, error, "
                     "json_extract(params, '$.actor1.speed'), "
                     "json_extract(params, '$.actor1.vehicle_model.lf') "
                     "FROM variant_info ORDER BY variant_id")
        self.variants = [dict(id=i, status=s, error=e, v=float(v), lf=lf)
                         for i, s, e, v, lf in rows]

    def states(self, vid):
        return query(self.db, "SELECT step, x, y, yaw, vx, vy, wz FROM "
                     "actor_state WHERE variant_id = ? AND actor_id = 1 "
                     "ORDER BY step", vid)


class DynamicsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        cls.runs = {m: DynamicsRun(cls._dir.name, m)
                    for m in ("bicycle_steady", "bicycle_linear")}

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_sweep_is_speed_by_lf(self):
        got = [(v["v"], v["lf"]) for v in self.runs["bicycle_steady"].variants]
        want = [(float(v), lf) for v in range(5, 45, 5) for lf in (1.4, 1.5, 1.6)]
        self.assertEqual(len(got), len(want))
        for (v, lf), (wv, wlf) in zip(got, want):
            self.assertEqual(v, wv)
            self.assertAlmostEqual(lf, wlf, places=12)

    def test_critical_speed_fails_the_rest_done(self):
        for model, r in self.runs.items():
            failed = 0
            for v in r.variants:
                vc = critical_speed(v["lf"])
                with self.subTest(model=model, variant=v["id"]):
                    if v["v"] >= vc:
                        failed += 1
                        self.assertEqual(v["status"], "failed")
                        self.assertIn("critical speed %.1f m/s" % vc,
                                      v["error"])
                        self.assertIn("speed %.1f m/s" % v["v"], v["error"])
                        self.assertIn(model, v["error"])
                    else:
                        self.assertEqual(v["status"], "done", v["error"])
                        self.assertIsNone(v["error"])
            # only OS (lf 1.6, Vcrit 36.7 m/s) at 40 m/s
            self.assertEqual(failed, 1, model)
            self.assertEqual(r.rc, 1, r.err)
            self.assertEqual(query(r.db, "SELECT count(*) FROM actor_state "
                                   "WHERE x IS NULL OR x != x OR yaw != yaw")
                             [0][0], 0)

    def test_steady_circle_radius(self):
        r = self.runs["bicycle_steady"]
        worst = 0.0
        for v in r.variants:
            if v["status"] != "done":
                continue
            rows = r.states(v["id"])
            self.assertEqual(len(rows), STEPS)
            want = rho(v["v"], v["lf"])
            pts = [cg(x, y, yaw, v["lf"]) for _, x, y, yaw, *_ in rows]
            cx, cy, got = fit_circle(pts)
            err = abs(got / want - 1)
            worst = max(worst, err)
            self.assertLess(err, 0.005, "variant %d: CG radius %.4f, "
                            "closed form %.4f" % (v["id"], got, want))
            for px, py in pts:
                self.assertAlmostEqual(math.hypot(px - cx, py - cy) / want,
                                       1.0, delta=0.005)
            # The origin, cg_y behind the CG on the body axis, runs on
            # sqrt(rho^2 + cg_y^2) about the same centre.
            c = FRONT_AXLE_Y - v["lf"]
            ro = math.hypot(want, c)
            for _, x, y, *_ in rows:
                self.assertAlmostEqual(math.hypot(x - cx, y - cy) / ro, 1.0,
                                       delta=0.005)
        self.assertLess(worst, 1e-6)

    def test_linear_settles_on_the_same_circle(self):
        r = self.runs["bicycle_linear"]
        checked = 0
        for v in r.variants:
            # Settled within the first 20 s (the fit takes the last 10 s)
            # unless close to the critical speed (OS at 35 m/s: 1/0.1 s).
            if v["status"] != "done" or \
                    math.exp(slowest_pole(v["v"], v["lf"]) * 20) > 1e-3:
                continue
            rows = r.states(v["id"])[-1000:]
            pts = [cg(x, y, yaw, v["lf"]) for _, x, y, yaw, *_ in rows]
            want = rho(v["v"], v["lf"])
            got = fit_circle(pts)[2]
            self.assertAlmostEqual(got / want, 1.0, delta=0.01,
                                   msg="variant %d" % v["id"])
            checked += 1
        self.assertEqual(checked, 22)

    def check_pose(self, model, slip_of):
        """Pose matrix = Rz(yaw), heading = yaw + pi/2, and the origin's
        velocity along the heading plus slip_of(v, lf, step)."""
        r = self.runs[model]
        for v in r.variants[:21:4]:  # both sides of every speed and lf
            states = r.states(v["id"])
            poses = query(r.db, "SELECT * FROM actor_pose WHERE "
                          "variant_id = ? AND actor_id = 1 ORDER BY step",
                          v["id"])
            self.assertEqual(len(states), len(poses))
            for (step, x, y, yaw, vx, vy, _), p in zip(states, poses):
                m = p[4:]
                want = [math.cos(yaw), -math.sin(yaw), 0, x,
                        math.sin(yaw), math.cos(yaw), 0, y,
                        0, 0, 1, 0, 0, 0, 0, 1]
                for a, b in zip(m, want):
                    self.assertAlmostEqual(a, b, places=12)
                heading = math.atan2(m[5], m[1])  # the actor's +Y axis
                self.assertAlmostEqual(wrap(heading - yaw - math.pi / 2), 0,
                                       places=12)
                slip = slip_of(v["v"], v["lf"], step)
                if slip is not None:
                    self.assertAlmostEqual(
                        wrap(math.atan2(vy, vx) - heading - slip), 0,
                        places=6, msg="variant %d step %d" % (v["id"], step))

    def test_pose_steady(self):
        # V f - r cg_y left: slip atan(-cg_y / rho); straight at step 0.
        self.check_pose("bicycle_steady", lambda v, lf, step: 0.0 if step == 0
                        else math.atan(-(FRONT_AXLE_Y - lf) / rho(v, lf)))

    def test_pose_linear(self):
        # Settled: V (cos b, sin b) in body axes, minus r cg_y left.
        def slip(v, lf, step):
            if step == 0:
                return 0.0
            if math.exp(slowest_pole(v, lf) * step * 0.01) > 1e-8:
                return None  # transient: heading checked, slip not
            b, rr = steady_beta(v, lf), v / rho(v, lf)
            c = FRONT_AXLE_Y - lf
            return math.atan2(v * math.sin(b) - rr * c, v * math.cos(b))
        self.check_pose("bicycle_linear", slip)


if __name__ == "__main__":
    unittest.main()
