"""The OpenDRIVE file a scenario reads (map: {opendrive: FILE}) is part of
a results file's identity, by the digest of its bytes (meta map_digest,
FNV-1a 64 as for plugins): shards run on two versions of the map do not
merge, a stopped run does not resume on another version (nor passes
`vsweep check --resume`), while the same bytes at another path do both.
A file an earlier build wrote without the record resumes and merges, and
gains it. Expected digests are FNV-1a 64 computed here from its
definition."""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (SRC, TEST_PLUGINS, VSWEEP, TempDirCase,  # noqa
                        differences, query, run, stop_held)

CRASH = os.path.join(TEST_PLUGINS, "crash")
STRAIGHT = os.path.join(SRC, "tests", "data", "xodr", "straight.xodr")

# One car on lane -1 of a straight 100 m road, driven straight by the
# crash test behaviour; a variant whose trigger is 1 stalls at step 5
# while the file CRASH_STALL_GATE names exists (test_resume.py), so that
# a run on one thread can be stopped after the first variant, the ones
# after the stalling one not begun.
SCENARIO = """\
vsweep: 1
step: 0.05
duration: 2
map: {opendrive: map.xodr}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0}
actors:
  - id: 1
    asset: sedan
    start: {position: [10, -1.75, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: crash_segv, params: {armed: -1, stall: 1,
                                             stall_seconds: 0}}
"""

N = 4  # variants
GATED = 1  # the one that stalls on the gate


def sweep_text():
    lines = ["vsweep: 1", "blocks:", "  - list:"]
    for i in range(N):
        gate = (", {actor: 1, param: behaviour.trigger, value: 1}"
                if i == GATED else "")
        lines.append("      - [{actor: 1, speed: %d}%s]" % (5 + i, gate))
    return "\n".join(lines) + "\n"


def fnv1a64(path):
    """FNV-1a 64 of a file's bytes as docs/results.md gives it: from the
    start value 1469598103934665603 (not FNV's usual offset basis), each
    byte xor-ed in, then times the prime 1099511628211 modulo 2^64; 16
    hex digits."""
    h = 1469598103934665603
    with open(path, "rb") as f:
        for b in f.read():
            h = ((h ^ b) * 1099511628211) % (1 << 64)
    return "%016x" % h


def raised(text, metres):
    """The straight road raised by metres (an elevation record)."""
    return text.replace(
        "<planView>", '<elevationProfile><elevation s="0" a="%g" b="0" '
        'c="0" d="0"/></elevationProfile><planView>' % metres, 1)


def meta(db, key):
    rows = query(db, "SELECT value FROM meta WHERE key = ?", key)
    return rows[0][0] if rows else None


class MapIdentityTest(TempDirCase):
    def setUp(self):
        super().setUp()
        with open(STRAIGHT, encoding="utf-8") as f:
            self.road = f.read()
        self.a = self.tmp  # the scenario and its map.xodr
        self.scn = self.write("s.yaml", SCENARIO)
        self.sweep = self.write("sweep.yaml", sweep_text())
        self.map = self.write("map.xodr", self.road)
        self.gate = self.path("gate")
        self.mark = self.path("stall.mark")

    def tearDown(self):
        if os.path.exists(self.gate):
            os.unlink(self.gate)  # lets a gated variant still alive go
        super().tearDown()

    def vsweep_run(self, db, *extra, scn=None):
        return run("run", scn or self.scn, "--sweep", self.sweep, "-o", db,
                   "--plugin-path", CRASH, *extra)

    def elsewhere(self):
        """The scenario and a copy of its map in another directory: the
        same scenario text, the same map bytes, another map path."""
        d = self.path("moved")
        os.mkdir(d)
        shutil.copy(self.scn, os.path.join(d, "s.yaml"))
        shutil.copy(self.map, os.path.join(d, "map.xodr"))
        return os.path.join(d, "s.yaml"), os.path.join(d, "map.xodr")

    def stopped(self, db):
        """A run stopped (SIGINT) with the first variant stored and the
        last ones not."""
        open(self.gate, "w").close()
        env = dict(os.environ, CRASH_STALL_GATE=self.gate,
                   CRASH_STALL_MARK=self.mark)
        env.pop("VSWEEP_PLUGIN_PATH", None)
        p = subprocess.Popen(
            [VSWEEP, "run", self.scn, "--sweep", self.sweep, "-o", db,
             "-j", "1", "--plugin-path", CRASH],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL, env=env)

        def stored():
            if not os.path.exists(db):
                return 0  # connecting would make it, before the run
            try:
                return query(db, "SELECT count(*) FROM variant")[0][0]
            except Exception:
                return 0
        t0 = time.time()
        # the gated variant held (its mark written) and the first one
        # stored (the writer commits it within about a second)
        while time.time() - t0 < 60 and p.poll() is None and \
                (stored() < 1 or not os.path.exists(self.mark)):
            time.sleep(0.02)
        if p.poll() is not None:
            self.fail("ended before the signal: %s" % (p.communicate(),))
        out, err = stop_held(p, signal.SIGINT, self.gate)
        self.assertEqual(p.returncode, 130, "stdout: %s\nstderr: %s\n"
                         "stored: %d" % (out, err, stored()))
        self.assertLess(stored(), N)

    def test_records_the_map_digest_and_path(self):
        db = self.path("one.db")
        rc, _, err = self.vsweep_run(db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(meta(db, "map_digest"), fnv1a64(self.map))
        self.assertEqual(meta(db, "map_path"), self.map)
        # on the road as the file says: z 0, and 2 m up on the raised one
        self.assertEqual(query(db, "SELECT DISTINCT z FROM state WHERE "
                               "step = 0"), [(0.0,)])

    def test_shards_on_two_versions_of_the_map_do_not_merge(self):
        s0, s1 = self.path("s0.db"), self.path("s1.db")
        rc, _, err = self.vsweep_run(s0, "--shard", "0/2")
        self.assertEqual(rc, 0, err)
        digest_a = fnv1a64(self.map)
        self.write("map.xodr", raised(self.road, 2))  # re-exported
        digest_b = fnv1a64(self.map)
        self.assertNotEqual(digest_a, digest_b)
        rc, _, err = self.vsweep_run(s1, "--shard", "1/2")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(s1, "SELECT DISTINCT z FROM state WHERE "
                               "step = 0"), [(2.0,)])
        out = self.path("m.db")
        rc, _, err = run("merge", out, s0, s1)
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: not a shard of the sweep of %s: its map %s "
                      "(digest %s) differs from %s's map %s (digest %s)"
                      % (s1, s0, self.map, digest_b, s0, self.map,
                         digest_a), err)
        self.assertFalse(os.path.exists(out))
        # either order
        rc, _, err = run("merge", out, s1, s0)
        self.assertEqual(rc, 2, err)
        self.assertIn("its map %s (digest %s) differs" % (self.map,
                                                          digest_a), err)

    def test_a_stopped_run_does_not_resume_on_another_map(self):
        db = self.path("o.db")
        self.stopped(db)
        digest_a = fnv1a64(self.map)
        self.write("map.xodr", self.road.replace('a="3.5"', 'a="5.0"'))
        digest_b = fnv1a64(self.map)
        before = (query(db, "SELECT key, value FROM meta ORDER BY key"),
                  query(db, "SELECT variant_id, params FROM variant "
                        "ORDER BY 1"))
        want = ("%s: cannot resume: the map %s differs from the one the "
                "file was written with (digest %s, now %s)"
                % (db, self.map, digest_a, digest_b))
        rc, _, err = self.vsweep_run(db, "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn(want, err)
        rc, _, err = run("check", self.scn, "--sweep", self.sweep, "-o", db,
                         "--plugin-path", CRASH, "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn(want, err)
        self.assertEqual((query(db, "SELECT key, value FROM meta ORDER BY "
                                "key"),
                          query(db, "SELECT variant_id, params FROM variant "
                                "ORDER BY 1")), before)
        # the map as it was: the run resumes, to a single run's rows
        self.write("map.xodr", self.road)
        rc, _, err = self.vsweep_run(db, "--resume")
        self.assertEqual(rc, 0, err)
        ref = self.path("ref.db")
        rc, _, err = self.vsweep_run(ref)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, ref), [])

    def test_the_same_map_resumes_and_merges(self):
        ref = self.path("ref.db")
        rc, _, err = self.vsweep_run(ref)
        self.assertEqual(rc, 0, err)
        db = self.path("o.db")
        self.stopped(db)
        rc, _, err = self.vsweep_run(db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(db, ref), [])
        s0, s1 = self.path("s0.db"), self.path("s1.db")
        for k, s in enumerate((s0, s1)):
            rc, _, err = self.vsweep_run(s, "--shard", "%d/2" % k)
            self.assertEqual(rc, 0, err)
        out = self.path("m.db")
        rc, _, err = run("merge", out, s0, s1)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(out, ref), [])
        self.assertEqual(meta(out, "map_digest"), fnv1a64(self.map))

    def test_the_same_bytes_at_another_path_are_the_same_map(self):
        """As a plugin moved with its build unchanged: the digest is the
        identity, the path only where the file was."""
        scn2, map2 = self.elsewhere()
        db = self.path("o.db")
        self.stopped(db)
        rc, _, err = self.vsweep_run(db, "--resume", scn=scn2)
        self.assertEqual(rc, 0, err)
        self.assertEqual(meta(db, "map_path"), self.map)  # as written
        s0, s1 = self.path("s0.db"), self.path("s1.db")
        rc, _, err = self.vsweep_run(s0, "--shard", "0/2")
        self.assertEqual(rc, 0, err)
        rc, _, err = self.vsweep_run(s1, "--shard", "1/2", scn=scn2)
        self.assertEqual(rc, 0, err)
        self.assertEqual(meta(s1, "map_path"), map2)
        out = self.path("m.db")
        rc, _, err = run("merge", out, s0, s1)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(out, db), [])

    def test_a_file_without_the_record_resumes_and_gains_it(self):
        """A file an earlier build wrote has no map_digest or map_path:
        nothing to compare, so it resumes as before and records the map
        it resumed on; merged with files that have it, the merged file
        has it too."""
        db = self.path("o.db")
        self.stopped(db)
        with sqlite3.connect(db) as c:
            c.execute("DELETE FROM meta WHERE key IN ('map_digest', "
                      "'map_path')")
        rc, _, err = self.vsweep_run(db, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")  # nothing to say
        self.assertEqual(meta(db, "map_digest"), fnv1a64(self.map))
        self.assertEqual(meta(db, "map_path"), self.map)
        s0, s1 = self.path("s0.db"), self.path("s1.db")
        for k, s in enumerate((s0, s1)):
            rc, _, err = self.vsweep_run(s, "--shard", "%d/2" % k)
            self.assertEqual(rc, 0, err)
        with sqlite3.connect(s0) as c:
            c.execute("DELETE FROM meta WHERE key IN ('map_digest', "
                      "'map_path')")
        out = self.path("m.db")
        rc, _, err = run("merge", out, s0, s1)
        self.assertEqual(rc, 0, err)
        self.assertEqual(meta(out, "map_digest"), fnv1a64(self.map))
        self.assertEqual(meta(out, "map_path"), self.map)
        self.assertEqual(differences(out, db), [])


if __name__ == "__main__":
    unittest.main()
