"""A sweep killed at any moment resumes without losing or duplicating a
variant, and ends bit-identical to an uninterrupted run."""
import os
import random
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (VSWEEP, TempDirCase, differences, query, run,  # noqa
                        scenario)

SCENARIO = scenario("two_cars.yaml")


def sweep_text(n):
    lines = ["vsweep: 1", "blocks:", "  - list:"]
    for i in range(n):
        lines.append("      - [{actor: 1, speed: %d.%d}, {actor: 2, speed: "
                     "[%d, %d]}]" % (5 + i % 20, i % 10, 8 + i % 7,
                                     12 + i % 5))
    return "\n".join(lines) + "\n"


class ResumeTest(TempDirCase):
    N = 240  # variants: about 1e6 actor-steps, a second or more to run

    def setUp(self):
        super().setUp()
        self.sweep = self.write("sweep.yaml", sweep_text(self.N))
        self.ref = self.path("ref.db")
        rc, _, err = run("run", SCENARIO, "--sweep", self.sweep, "-o",
                         self.ref, "-j", "2")
        self.assertEqual(rc, 0, err)

    def start(self, db, *extra):
        return subprocess.Popen(
            [VSWEEP, "run", SCENARIO, "--sweep", self.sweep, "-o", db,
             "-j", "2", *extra], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)

    def stored(self, db):
        return query(db, "SELECT count(*) FROM variant")[0][0]

    def test_sigkill_at_random_points_then_resume(self):
        db = self.path("killed.db")
        rnd = random.Random(20261202)
        kills, extra = 0, ()
        for _ in range(12):
            if kills >= 2:
                break
            p = self.start(db, *extra)
            # Wait until the file holds some variants, then a random moment.
            t0 = time.time()
            while time.time() - t0 < 30 and p.poll() is None:
                if os.path.exists(db) and self.stored_safely(db) > 0:
                    break
                time.sleep(0.02)
            time.sleep(rnd.uniform(0.0, 0.4))
            p.send_signal(signal.SIGKILL)
            p.communicate()
            extra = ("--resume",)
            if p.returncode == -signal.SIGKILL:
                kills += 1
                n = self.stored(db)
                self.assertLess(n, self.N)
                # Whatever is stored is a prefix, each variant whole.
                ids = [v for (v,) in query(db, "SELECT variant_id FROM "
                                           "variant ORDER BY 1")]
                self.assertEqual(ids, list(range(n)))
        self.assertGreaterEqual(kills, 2, "the run finished before a kill")
        rc, out, err = run("run", SCENARIO, "--sweep", self.sweep, "-o", db,
                           "-j", "2", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("already stored", out)
        self.assertEqual(self.stored(db), self.N)
        self.assertEqual(differences(db, self.ref), [])

    def test_disk_full_then_resume(self):
        # RLIMIT_FSIZE makes writes past 8 MiB fail with EFBIG, as a full
        # disk would (SIGXFSZ ignored, so the process sees the error).
        import resource

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))

        db = self.path("full.db")
        p = subprocess.run(
            [VSWEEP, "run", SCENARIO, "--sweep", self.sweep, "-o", db, "-j",
             "2"], preexec_fn=limit, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=300)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("--resume", p.stderr)
        n = self.stored(db)
        self.assertGreater(n, 0)
        self.assertLess(n, self.N)
        ids = [v for (v,) in query(db, "SELECT variant_id FROM variant "
                                   "ORDER BY 1")]
        self.assertEqual(ids, list(range(n)))
        rc, _, err = run("run", SCENARIO, "--sweep", self.sweep, "-o", db,
                         "-j", "2", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, self.ref), [])

    def stored_safely(self, db):
        try:
            return self.stored(db)
        except Exception:  # the schema may not be committed yet
            return 0

    def test_sigint_stops_cleanly_and_says_how_to_resume(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            db = self.path("int%d.db" % sig)
            p = self.start(db)
            t0 = time.time()
            while time.time() - t0 < 30 and not (
                    os.path.exists(db) and self.stored_safely(db) > 0):
                time.sleep(0.02)
            p.send_signal(sig)
            t1 = time.time()
            _, err = p.communicate(timeout=30)
            self.assertLess(time.time() - t1, 5, "stop took too long")
            self.assertEqual(p.returncode, 130, err)
            self.assertIn("--resume", err)
            self.assertLess(self.stored(db), self.N)
            rc, _, err = run("run", SCENARIO, "--sweep", self.sweep, "-o",
                             db, "-j", "1", "--resume")
            self.assertEqual(rc, 0, err)
            self.assertEqual(differences(db, self.ref), [])


if __name__ == "__main__":
    unittest.main()
