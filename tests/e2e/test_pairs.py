"""The pair view actor_pair against closed forms: two cars on one line at
constant speeds (no behaviour, no model: each goes straight at its start
speed), one behind the other or head-on. With gap g0 between the origins,
lengths l1 and l2 and speeds along the line, at t = k * step

    centre gap     g(t) = g0 - c t        (c: the closing speed)
    distance       d(t) = g(t) - l1/2 - l2/2
    TTC            d(t) / c while c > 0, NULL otherwise

each pair both ways round; rows only within the recorded reach (50 m by
default, --record pairs=R), only at recorded steps, none without `pairs`
in --record; and the planner reads one variant's pairs by key, never
through an automatic index."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, differences, query, run  # noqa: E402

STEP = 0.1
L1, L2 = 4.0, 6.0  # m, car and van


def two(y2, v1, v2, yaw2=0.0, duration=3):
    """Car 1 at the origin facing +Y at v1; van 2 at (0, y2) with yaw2 at
    v2 (m/s)."""
    return """\
vsweep: 1
step: %r
duration: %r
assets:
  car: {length: %r, width: 2, height: 1.5, wheelbase: 2.5}
  van: {length: %r, width: 2, height: 2, wheelbase: 3.5}
actors:
  - {id: 1, asset: car, start: {position: [0, 0, 0], yaw: 0}, speed: %r}
  - {id: 2, asset: van, start: {position: [0, %r, 0], yaw: %r}, speed: %r}
""" % (STEP, duration, L1, L2, v1, y2, yaw2, v2)


PAIR = ("SELECT step, t, actor_id, other_actor_id, distance, centre_gap, "
        "closing_speed, ttc FROM actor_pair WHERE variant_id = 0 "
        "ORDER BY step, actor_id")


class PairView(TempDirCase):
    def results(self, text, *args):
        scn = self.write("s.yaml", text)
        db = self.path("r%d.db" % len(os.listdir(self.tmp)))
        rc, _, err = run("run", scn, "-o", db, *args)
        self.assertEqual(rc, 0, err)
        return db

    def check(self, db, g0, c, steps):
        rows = query(db, PAIR)
        self.assertEqual(len(rows), 2 * len(steps))
        for n, k in enumerate(steps):
            t = k * STEP
            g = g0 - c * t
            d = g - L1 / 2 - L2 / 2
            for r, (a, b) in zip(rows[2 * n:2 * n + 2], [(1, 2), (2, 1)]):
                with self.subTest(step=k, actor=a):
                    self.assertEqual(r[0], k)
                    self.assertAlmostEqual(r[1], t, places=12)
                    self.assertEqual((r[2], r[3]), (a, b))
                    self.assertAlmostEqual(r[4], d, places=9)
                    self.assertAlmostEqual(r[5], g, places=9)
                    self.assertAlmostEqual(r[6], c, places=9)
                    if c > 0:
                        self.assertAlmostEqual(r[7], d / c, places=9)
                    else:
                        self.assertIsNone(r[7])

    def test_follower_closes_on_slower_lead(self):
        # 20 m/s behind 10 m/s, origins 50 m apart: closing at 10 m/s,
        # bumpers 45 m apart at t = 0, TTC 4.5 s then.
        db = self.results(two(50, 20, 10))
        self.check(db, 50, 10, range(31))
        self.assertEqual(query(db, "SELECT ttc FROM actor_pair WHERE "
                               "step = 0 AND actor_id = 2")[0][0], 4.5)

    def test_head_on(self):
        # 20 m/s north against 10 m/s south, 50 m: closing at 30 m/s.
        db = self.results(two(50, 20, 10, yaw2=math.pi, duration=1))
        self.check(db, 50, 30, range(11))

    def test_receding_has_no_ttc(self):
        # The lead is faster: the gap opens at 10 m/s, TTC NULL.
        db = self.results(two(20, 10, 20))
        self.check(db, 20, -10, range(31))

    def test_reach(self):
        # Bumpers 100.5 - 10 t apart: within 50 m from t = 5.05 s (the
        # first step 51), within pairs=80 from t = 2.05 s (step 21).
        text = two(105.5, 20, 10, duration=8)
        self.check(self.results(text), 105.5, 10, range(51, 81))
        self.check(self.results(text, "--record", "state,pairs=80"), 105.5,
                   10, range(21, 81))
        db = self.results(text, "--record", "state,pairs=80",
                          "--record-every", "20")
        self.check(db, 105.5, 10, [40, 60, 80])
        for rec in ("state,wheels,map", "summary"):
            db = self.results(text, "--record", rec)
            self.assertEqual(query(db, "SELECT count(*) FROM pair_row"),
                             [(0,)], rec)
        self.assertAlmostEqual(query(db, "SELECT min_distance FROM "
                                     "variant_summary")[0][0], 20.5,
                               places=9)

    def test_record_names_pairs(self):
        db = self.results(two(50, 20, 10))
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = "
                               "'record'"), [("state,wheels,map,pairs",)])
        db = self.results(two(50, 20, 10), "--record", "map,pairs=50")
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = "
                               "'record'"), [("state,map,pairs",)])
        db = self.results(two(50, 20, 10), "--record", "pairs=12.5")
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = "
                               "'record'"), [("state,pairs=12.5",)])
        for bad in ("pairs=0", "pairs=-3", "pairs=x", "pairs=", "pairs=nan"):
            scn = self.write("s.yaml", two(50, 20, 10))
            rc, _, err = run("run", scn, "-o", self.path("bad.db"),
                             "--record", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn("pairs=METRES", err)

    def test_plans_read_by_key(self):
        db = self.results(two(50, 20, 10))
        idioms = [
            "SELECT * FROM actor_pair WHERE variant_id = 0",
            "SELECT * FROM actor_pair WHERE variant_id = 0 AND step = 5",
            "SELECT variant_id, min(ttc) FROM actor_pair WHERE actor_id = 1 "
            "AND other_actor_id = 2 GROUP BY variant_id",
            "SELECT json_extract(i.params, '$.actor1.speed'), "
            "min(p.distance) FROM variant_info i JOIN actor_pair p ON "
            "p.variant_id = i.variant_id WHERE p.actor_id = 1 "
            "GROUP BY i.variant_id",
            "SELECT p.t, p.distance, s.vx, s.vy FROM actor_pair p JOIN "
            "actor_state s ON s.variant_id = p.variant_id AND s.step = "
            "p.step AND s.actor_id = p.actor_id WHERE p.variant_id = 0",
        ]
        for sql in idioms:
            plan = " | ".join(r[3] for r in
                              query(db, "EXPLAIN QUERY PLAN " + sql))
            with self.subTest(sql):
                self.assertNotIn("AUTOMATIC", plan)
                if "variant_id = 0" in sql:
                    self.assertIn("SEARCH p USING PRIMARY KEY (variant_id=?",
                                  plan)


def speeds(*v):
    """A sweep of the follower's speed, one variant per value (m/s)."""
    return "vsweep: 1\nblocks:\n  - list:\n" + "".join(
        "      - [{actor: 1, speed: %r}]\n" % x for x in v)


class PairsKept(TempDirCase):
    """Merged shards and a resumed (extended) run hold the pair rows of
    one run: the row-by-row comparison includes pair_row."""

    def run_ok(self, *args):
        rc, _, err = run("run", *args)
        self.assertEqual(rc, 0, err)

    def test_merge_and_resume(self):
        scn = self.write("s.yaml", two(50, 20, 10))
        four = self.write("four.yaml", speeds(20, 24, 30, 15))
        single = self.path("single.db")
        self.run_ok(scn, "--sweep", four, "-o", single)
        # Each variant closes at v - 10 m/s from 45 m for 3 s (at 30 m/s
        # the car runs into the van at t = 2.25 s and through it).
        self.assertEqual(
            query(single, "SELECT variant_id, count(*), round(min(distance),"
                  " 6) FROM actor_pair GROUP BY 1"),
            [(0, 62, 15.0), (1, 62, 3.0), (2, 62, 0.0), (3, 62, 30.0)])
        shards = []
        for k in range(2):
            shards.append(self.path("s%d.db" % k))
            self.run_ok(scn, "--sweep", four, "-o", shards[-1], "--shard",
                        "%d/2" % k)
        merged = self.path("merged.db")
        rc, _, err = run("merge", merged, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(merged, single), [])
        # The first two variants, then --resume with the sweep extended.
        grown = self.path("grown.db")
        self.run_ok(scn, "--sweep", self.write("two.yaml", speeds(20, 24)),
                    "-o", grown)
        self.run_ok(scn, "--sweep", four, "-o", grown, "--resume")
        self.assertEqual(differences(grown, single), [])


if __name__ == "__main__":
    unittest.main()
