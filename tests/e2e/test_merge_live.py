"""vsweep merge of a file a run is still writing, and a merge stopped by
a signal.

A run held mid-way (the crash test plugin stalls one variant while a gate
file exists) is refused without --allow-partial; with it, the merge holds
the file as it stood when opened, whole variants only, even when the run
commits more while the merge copies (the merge is held half-way by its
test hook, VSWEEP_TEST_MERGE_GATE, while the run is let go and finishes).
A merge ended by SIGINT, SIGTERM, SIGHUP or SIGPIPE exits 130 (docs/cli.md,
exit statuses) and leaves neither OUT nor its temporary file, nor the
shards' -wal and -shm; the temporary file of a merge that died is removed
by the next merge into the same OUT."""
import os
import signal
import sqlite3
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, VSWEEP, TempDirCase,  # noqa
                        gated_run, query, run, wait_for)
from test_resume import scenario_text, sweep_text  # noqa: E402

CRASH = os.path.join(TEST_PLUGINS, "crash")
# two_cars.yaml: 20 s at 0.01 s, step 0 included, two actors
STEPS, ACTORS = 2001, 2


def start_merge(args, gate):
    """vsweep merge held by its test hook once its first variant is
    copied; returns the process once it waits there."""
    open(gate, "w").close()
    env = dict(os.environ, VSWEEP_TEST_MERGE_GATE=gate)
    env.pop("VSWEEP_PLUGIN_PATH", None)
    p = subprocess.Popen([VSWEEP, "merge", *args], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, stdin=subprocess.DEVNULL)
    held = gate + ".held"

    def waits():
        try:
            with open(held) as f:
                return f.read().endswith("\n")
        except OSError:
            return False
    if not wait_for(lambda: waits() or p.poll() is not None, 120) or \
            p.poll() is not None:
        os.unlink(gate)
        raise AssertionError("merge not held: %s" % (p.communicate(),))
    return p


class LiveShardTest(TempDirCase):
    N, GATED = 24, 6  # variants 0..5 stored while 6 stalls

    def setUp(self):
        super().setUp()
        self.scn = self.write("two_cars.yaml", scenario_text())
        self.sweep = self.write("sweep.yaml", sweep_text(self.N, self.GATED))

    def test_merge_of_a_file_being_written(self):
        ref = self.path("ref.db")
        rc, _, err = run("run", self.scn, "--sweep", self.sweep, "-o", ref,
                         "--plugin-path", CRASH)
        self.assertEqual(rc, 0, err)
        live, mark, gate = (self.path("live.db"), self.path("mark"),
                            self.path("gate"))
        args = ["run", self.scn, "--sweep", self.sweep, "-o", live, "-j",
                "1", "--plugin-path", CRASH]
        stored = lambda: query(live, "SELECT count(*) FROM variant")[0][0]
        with gated_run(args, mark, gate) as p:
            self.assertTrue(wait_for(lambda: os.path.exists(mark) and
                                     stored() == self.GATED, 120))
            # refused while its run writes it
            out = self.path("refused.db")
            rc, _, err = run("merge", out, live)
            self.assertEqual(rc, 2, err)
            self.assertIn("%s: is still being written by pid %d" %
                          (live, p.pid), err)
            self.assertFalse(os.path.exists(out))
            # --allow-partial: held after its first variant while the run
            # is let go and commits every other variant
            out, mgate = self.path("m.db"), self.path("mgate")
            m = start_merge([out, live, "--allow-partial"], mgate)
            try:
                os.unlink(gate)
                self.assertEqual(p.wait(timeout=300), 0)
                self.assertEqual(stored(), self.N)
            finally:
                os.unlink(mgate)
                stdout, err = m.communicate(timeout=300)
            open(gate, "w").close()  # gated_run removes it
        self.assertEqual(m.returncode, 0, err)
        rows = query(out, "SELECT v.variant_id, (SELECT count(*) "
                     "FROM state s WHERE s.variant_id = v.variant_id), "
                     "(SELECT count(*) FROM summary s WHERE s.variant_id = "
                     "v.variant_id) FROM variant v ORDER BY 1")
        # every variant merged is whole
        for vid, states, summaries in rows:
            self.assertEqual((states, summaries), (ACTORS * STEPS, 1), vid)
        # the file as it stood when the merge opened it
        self.assertEqual([r[0] for r in rows], list(range(self.GATED)))
        self.assertIn("%d variants from 1 shards, %d missing" %
                      (self.GATED, self.N - self.GATED), stdout)
        # each of them as a complete run stores it
        with sqlite3.connect(out) as c:
            c.execute("ATTACH DATABASE ? AS r", (ref,))
            for table, cols in (("state", "*"), ("actor", "*"),
                                ("wheel", "*"), ("summary", "*"),
                                ("event_row", "*"), ("pair_row", "*"),
                                ("variant", "variant_id, status, error, "
                                            "params, label")):
                for x, y in (("main", "r"), ("r", "main")):
                    n = c.execute(
                        "SELECT count(*) FROM (SELECT %s FROM %s.%s WHERE "
                        "variant_id < ? EXCEPT SELECT %s FROM %s.%s)" %
                        (cols, x, table, cols, y, table),
                        (self.GATED,)).fetchone()[0]
                    self.assertEqual(n, 0, (table, x))


class MergeSignalTest(TempDirCase):
    def setUp(self):
        super().setUp()
        self.scn = self.write("two_cars.yaml", scenario_text())
        self.sweep = self.write("sweep.yaml", sweep_text(8, -1))
        self.shards = []
        for k in range(2):
            db = self.path("s%d.db" % k)
            rc, _, err = run("run", self.scn, "--sweep", self.sweep,
                             "--shard", "%d/2" % k, "-o", db,
                             "--plugin-path", CRASH)
            self.assertEqual(rc, 0, err)
            self.shards.append(db)

    def leftovers(self):
        """out.db, merges' temporary files, the shards' -wal and -shm."""
        return sorted(f for f in os.listdir(self.tmp)
                      if ".partial-" in f or f == "out.db" or
                      (f.startswith("s") and f[-4:] in ("-wal", "-shm")))

    def test_signals_end_the_merge_with_130(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                    signal.SIGPIPE):
            out, gate = self.path("out.db"), self.path("gate")
            m = start_merge([out, *self.shards], gate)
            try:
                with open(gate + ".held") as f:
                    self.assertEqual(int(f.read()), m.pid)
                m.send_signal(sig)
                stdout, err = m.communicate(timeout=120)
            finally:
                os.unlink(gate)
                os.unlink(gate + ".held")
            self.assertEqual(m.returncode, 130, (sig, err))
            self.assertIn("vsweep: interrupted; %s not written" % out, err)
            self.assertEqual(self.leftovers(), [], sig)

    def test_temporary_file_of_a_dead_merge_removed(self):
        dead = subprocess.Popen(["true"])
        dead.wait()
        out = self.path("out.db")
        stale = "%s.partial-%d" % (out, dead.pid)
        for f in (stale, stale + "-wal", stale + "-shm"):
            open(f, "w").close()
        # a live process's is not touched
        live = "%s.partial-%d" % (out, os.getpid())
        open(live, "w").close()
        rc, _, err = run("merge", out, *self.shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(out, "SELECT count(*) FROM variant"), [(8,)])
        os.unlink(live)
        self.assertEqual(self.leftovers(), ["out.db"])


if __name__ == "__main__":
    unittest.main()
