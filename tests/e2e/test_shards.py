"""--shard K/N and vsweep merge: a merged file stores exactly the rows of a
single run; shards of another sweep, duplicated, missing or incomplete
shards are refused; the output is never half-written. Signal units are
merged (shards with two units for one signal refused), also from files
written before units were stored, which resume with units added."""
import os
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (VSWEEP, TempDirCase, differences, query,  # noqa
                        run, scenario)
from test_signals import LINEAR, SCENARIO  # noqa: E402

SCN = scenario("two_cars.yaml")
SWEEP = scenario("two_cars_sweep.yaml")


class ShardTest(TempDirCase):
    def shard(self, k, n, sweep=SWEEP, name=None):
        db = self.path(name or "s%d_%d.db" % (k, n))
        rc, _, err = run("run", SCN, "--sweep", sweep, "-o", db, "--shard",
                         "%d/%d" % (k, n), "-j", "1")
        self.assertEqual(rc, 0, err)
        return db

    def test_merge_equals_single_run(self):
        single = self.path("single.db")
        rc, _, err = run("run", SCN, "--sweep", SWEEP, "-o", single, "-j", "2")
        self.assertEqual(rc, 0, err)
        for n in (1, 3, 5):
            shards = [self.shard(k, n) for k in range(n)]
            self.assertEqual(
                [v for (v,) in query(shards[-1], "SELECT variant_id FROM "
                                     "variant ORDER BY 1")],
                list(range(n - 1, 8, n)))
            out = self.path("merged%d.db" % n)
            rc, stdout, err = run("merge", out, *reversed(shards))
            self.assertEqual(rc, 0, err)
            self.assertIn("8 variants from %d shards" % n, stdout)
            self.assertEqual(differences(out, single), [])
            self.assertEqual(dict(query(out, "SELECT key, value FROM meta "
                                        "WHERE key = 'shard'")),
                             {"shard": "0/1"})
            # a file of its own: no shard's identity
            ids = [query(f, "SELECT value FROM meta WHERE key = "
                         "'file_id'")[0][0] for f in shards + [out]]
            self.assertEqual(len(set(ids)), n + 1, ids)
            self.assertRegex(ids[-1], "^[0-9a-f]{32}$")

    def test_refusals(self):
        s0, s1, s2 = (self.shard(k, 3) for k in range(3))
        other = self.write("other.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                           "      - [{actor: 1, speed: 3}]\n"
                           "      - [{actor: 1, speed: 4}]\n"
                           "      - [{actor: 1, speed: 5}]\n")
        o1 = self.shard(1, 3, other, "other1.db")
        for args, msg in [
            ((s0, o1, s2), "not a shard of the sweep"),
            ((s0, s1, s1, s2), "already given"),
            ((s0, s2), "shard 1/3 is missing"),
            ((s0, self.path("nope.db")), "nope.db: no such results file"),
        ]:
            out = self.path("m.db")
            rc, _, err = run("merge", out, *args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn(msg, err)
            self.assertFalse(os.path.exists(out))
            self.assertEqual([f for f in os.listdir(self.tmp)
                              if "partial" in f], [])
        # What exists, on request.
        out = self.path("partial.db")
        rc, stdout, err = run("merge", out, s0, s2, "--allow-partial")
        self.assertEqual(rc, 0, err)
        self.assertIn("3 missing", stdout)
        self.assertEqual([v for (v,) in query(out, "SELECT variant_id FROM "
                                              "variant ORDER BY 1")],
                         [0, 2, 3, 5, 6])
        # An existing output is never replaced.
        rc, _, err = run("merge", out, s0, s1, s2)
        self.assertEqual(rc, 2)
        self.assertIn("exists", err)

    def test_incomplete_shard_is_refused(self):
        s0 = self.shard(0, 2)
        s1 = self.shard(1, 2)
        # Make s1 look interrupted: drop its last variant.
        import sqlite3
        c = sqlite3.connect(s1)
        c.execute("DELETE FROM variant WHERE variant_id = 7")
        c.commit()
        c.close()
        rc, _, err = run("merge", self.path("m.db"), s0, s1)
        self.assertEqual(rc, 2)
        self.assertIn("holds 3 of its 4 variants", err)


# One car whose vehicle model outputs 7 signals at every step (ABI 1.1).
SIGNALS = SCENARIO % dict(model=LINEAR, duration=0.5, v=20)
# Their units, as bicycle_linear declares them (plugins/linear_track.h).
UNITS = {"bicycle_linear.beta": "rad", "bicycle_linear.yaw_rate": "rad/s",
         "bicycle_linear.ay": "m/s^2", "bicycle_linear.alpha_f": "rad",
         "bicycle_linear.alpha_r": "rad", "bicycle_linear.Fyf": "N",
         "bicycle_linear.Fyr": "N"}
# actor_signal as files written before signal units define it.
OLD_SIGNAL_VIEW = """CREATE VIEW actor_signal AS
  SELECT s.variant_id AS variant_id, s.actor_id AS actor_id,
         s.step AS step,
         CAST(s.step * (SELECT num FROM step_decimal) AS REAL)
           / (SELECT den FROM step_decimal) AS t,
         n.name AS name, s.value AS value
  FROM signal_row s JOIN signal_name n ON n.id = s.name_id"""


class SignalMergeTest(TempDirCase):
    def shards_and_single(self, count):
        scn = self.write("s.yaml", SIGNALS)
        sweep = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                           "  - random:\n      count: %d\n      axes:\n"
                           "        - {actor: 1, speed: {uniform: [5, 25]}}"
                           "\n" % count)
        shards = []
        t0 = time.monotonic()
        for k in (0, 1):
            db = self.path("k%d.db" % k)
            rc, _, err = run("run", scn, "--sweep", sweep, "-o", db,
                             "--record", "state,signals", "--shard",
                             "%d/2" % k)
            self.assertEqual(rc, 0, err)
            shards.append(db)
        write = time.monotonic() - t0  # s, both shards
        single = self.path("single.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", single,
                         "--record", "state,signals")
        self.assertEqual(rc, 0, err)
        return shards, single, write

    def as_rowid_table(self, db, moved=None):
        """db's signal rows as a file written before signal_row had its
        key holds them: a rowid table in the order written; with moved,
        that variant's rows after all others (no vsweep writes that)."""
        import sqlite3
        with sqlite3.connect(db) as c:
            c.execute("ALTER TABLE signal_row RENAME TO keyed")
            c.execute("CREATE TABLE signal_row (variant_id INTEGER NOT "
                      "NULL, actor_id INTEGER NOT NULL, step INTEGER NOT "
                      "NULL, name_id INTEGER NOT NULL, value REAL)")
            order = " ORDER BY variant_id, step, actor_id, name_id"
            c.execute("INSERT INTO signal_row SELECT * FROM keyed WHERE "
                      "variant_id IS NOT ?" + order, (moved,))
            if moved is not None:
                c.execute("INSERT INTO signal_row SELECT * FROM keyed "
                          "WHERE variant_id = ?" + order, (moved,))
            c.execute("DROP TABLE keyed")

    def test_shards_of_the_previous_layout(self):
        """Shards whose signal_row is a rowid table (files written before
        its key): one in the order written is read in rowid order, one
        not in variant order (variant 1's rows last) with one lookup per
        variant; the merged file equals a single run's either way."""
        shards, single, _ = self.shards_and_single(40)
        self.as_rowid_table(shards[0])
        self.as_rowid_table(shards[1], moved=1)
        self.assertEqual(query(shards[1], "SELECT variant_id FROM "
                               "signal_row ORDER BY rowid DESC LIMIT 1"),
                         [(1,)])
        out = self.path("m.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(out, single), [])

    def as_unitless(self, db):
        """db as a file written before signal units were stored: no unit
        column in signal_name, none in actor_signal."""
        import sqlite3
        with sqlite3.connect(db) as c:
            c.execute("DROP VIEW actor_signal")
            c.execute("ALTER TABLE signal_name RENAME TO later")
            c.execute("CREATE TABLE signal_name (id INTEGER PRIMARY KEY, "
                      "name TEXT NOT NULL UNIQUE)")
            c.execute("INSERT INTO signal_name SELECT id, name FROM later")
            c.execute("DROP TABLE later")
            c.execute(OLD_SIGNAL_VIEW)

    def test_units_merged(self):
        """The merged file's signals carry the units bicycle_linear
        declares (plugins/linear_track.h); a shard written before units
        were stored merges with one that has them, which then gives
        them; two without give ''."""
        shards, single, _ = self.shards_and_single(4)
        out = self.path("m.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(dict(query(out, "SELECT name, unit FROM "
                                    "signal_name")), UNITS)
        self.assertEqual(set(query(out, "SELECT DISTINCT name, unit FROM "
                                   "actor_signal")), set(UNITS.items()))
        self.as_unitless(shards[0])
        out = self.path("m_old_first.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(dict(query(out, "SELECT name, unit FROM "
                                    "signal_name")), UNITS)
        self.assertEqual(differences(out, single), [])
        self.as_unitless(shards[1])
        out = self.path("m_old.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(set(u for (u,) in query(out, "SELECT unit FROM "
                                                 "signal_name")), {""})

    def test_names_from_a_shard_without_signals(self):
        """A shard whose variants all failed before simulating stores no
        signal names; merged first, the other shard's names are still
        the merged file's, and it equals the single run. A shard that
        numbers a name otherwise is refused (its rows' ids could not
        stand)."""
        import sqlite3
        scn = self.write("s.yaml", SIGNALS)
        # variant 0: a width under the 1.6 m track fails when built;
        # variant 1 simulates (--shard k/2 takes the variants i % 2 = k)
        sweep = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                           "  - random:\n      count: 1\n      axes:\n"
                           "        - {actor: 1, dimension.width: "
                           "{uniform: [1.0, 1.2]}}\n  - list:\n"
                           "      - [{actor: 1, speed: 10}]\n")
        shards = []
        for k in (0, 1):
            db = self.path("k%d.db" % k)
            rc, _, err = run("run", scn, "--sweep", sweep, "-o", db,
                             "--record", "state,signals", "--shard",
                             "%d/2" % k)
            shards.append(db)
        self.assertEqual(query(shards[0], "SELECT count(*) FROM "
                               "signal_name"), [(0,)])
        single = self.path("single.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", single,
                         "--record", "state,signals")
        self.assertEqual(query(single, "SELECT status FROM variant_info "
                               "ORDER BY variant_id"),
                         [("failed",), ("done",)])
        out = self.path("m.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(dict(query(out, "SELECT name, unit FROM "
                                    "signal_name")), UNITS)
        self.assertEqual(query(out, "SELECT count(*) FROM actor_signal"),
                         [(7 * 51,)])  # 7 outputs, steps 0..50
        self.assertEqual(differences(out, single), [])
        # the same shards, but the second numbers beta as yaw_rate
        with sqlite3.connect(shards[1]) as c:
            c.execute("UPDATE signal_name SET id = -id")
            c.execute("UPDATE signal_name SET id = CASE id WHEN -1 THEN 2 "
                      "WHEN -2 THEN 1 ELSE -id END")
        with sqlite3.connect(shards[0]) as c:
            c.execute("INSERT INTO signal_name (id, name, unit) VALUES "
                      "(1, 'bicycle_linear.beta', 'rad')")
        rc, _, err = run("merge", self.path("m2.db"), *shards)
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: signal id 1 is bicycle_linear.yaw_rate here and "
                      "bicycle_linear.beta in an earlier input: the inputs "
                      "are not shards of one sweep" % shards[1], err)
        self.assertFalse(os.path.exists(self.path("m2.db")))

    def test_unit_mismatch_refused(self):
        """Shards whose same signal has two units (two builds of its
        plugin) are not merged; the message names both files, the
        signal and both units."""
        import sqlite3
        shards, _, _ = self.shards_and_single(4)
        with sqlite3.connect(shards[1]) as c:
            c.execute("UPDATE signal_name SET unit = 'deg' WHERE name = "
                      "'bicycle_linear.beta'")
        out = self.path("m.db")
        rc, _, err = run("merge", out, *shards)
        self.assertEqual(rc, 2, err)
        for part in (shards[0], shards[1], "bicycle_linear.beta", "'rad'",
                     "'deg'"):
            self.assertIn(part, err)
        self.assertFalse(os.path.exists(out))

    def test_resume_adds_units(self):
        """A file written before signal units were stored resumes: the
        resume adds the unit column and view, and the names it stores
        again get their units."""
        import sqlite3
        scn = self.write("s.yaml", SIGNALS)
        sweep = self.write("sw.yaml", "vsweep: 1\nblocks:\n  - list:\n"
                           "      - [{actor: 1, speed: 10}]\n"
                           "      - [{actor: 1, speed: 12}]\n"
                           "      - [{actor: 1, speed: 14}]\n")
        db = self.path("r.db")
        args = ("run", scn, "--sweep", sweep, "-o", db, "--record",
                "state,signals")
        rc, _, err = run(*args)
        self.assertEqual(rc, 0, err)
        with sqlite3.connect(db) as c:  # as if killed after variant 0
            for (t,) in c.execute("SELECT m.name FROM sqlite_master m "
                                  "WHERE m.type = 'table' AND EXISTS "
                                  "(SELECT 1 FROM pragma_table_info(m.name)"
                                  " p WHERE p.name = 'variant_id')"
                                  ).fetchall():
                c.execute('DELETE FROM "%s" WHERE variant_id > 0' % t)
        self.as_unitless(db)
        rc, _, err = run(*args, "--resume")
        self.assertEqual(rc, 0, err)
        self.assertEqual(dict(query(db, "SELECT name, unit FROM "
                                    "signal_name")), UNITS)
        self.assertEqual(query(db, "SELECT count(*) FROM actor_signal WHERE "
                               "variant_id = 0 AND unit = 'rad/s'"),
                         [(51,)])

    def test_signal_rows_read_once_per_merge(self):
        """2000 variants x 51 steps x 7 signals in two shards. When
        signal_row was a rowid table without an index, the merge read it
        variant by variant with WHERE variant_id = ?, each variant a scan
        of the whole shard table (2000 x 357,000 rows: 24.5 s on the
        development machine, where writing the shards took 1.5 s). Now
        each variant's rows are a key range, read once."""
        shards, single, write = self.shards_and_single(2000)
        out = self.path("m.db")
        t0 = time.monotonic()
        rc, _, err = run("merge", out, *shards)
        merge = time.monotonic() - t0
        self.assertEqual(rc, 0, err)
        self.assertLess(merge, 6 * write + 2, (merge, write))
        self.assertEqual(query(out, "SELECT count(*) FROM signal_row"),
                         [(2000 * 51 * 7,)])
        self.assertEqual(differences(out, single), [])

def as_reader(*args):
    """vsweep with args as a user whom the permissions bind: this
    process's user, or user nobody (65534) when this is root, who may
    write any file. (exit status, stdout, stderr); None when nobody cannot
    run it here (no setuid: a container's user namespace; the build out
    of its reach)."""
    if os.geteuid() != 0:
        return run(*args)
    e = dict(os.environ)
    e.pop("VSWEEP_PLUGIN_PATH", None)
    try:
        p = subprocess.run([VSWEEP, *args], capture_output=True, text=True,
                           timeout=300, env=e, stdin=subprocess.DEVNULL,
                           user=65534, group=65534, extra_groups=[])
    except (PermissionError, subprocess.SubprocessError):
        return None
    return p.returncode, p.stdout, p.stderr


def wal_holds_last_variant(db, variant):
    """db as a killed run leaves it: the row of its variant `variant`
    stored in db-wal (with db-shm), not yet in db."""
    pid = os.fork()
    if pid == 0:
        c = sqlite3.connect(db, isolation_level=None)
        c.execute("PRAGMA wal_autocheckpoint = 0")
        row = c.execute("SELECT * FROM variant WHERE variant_id = ?",
                        (variant,)).fetchone()
        c.execute("DELETE FROM variant WHERE variant_id = ?", (variant,))
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.execute("INSERT INTO variant VALUES (%s)" %
                  ", ".join("?" * len(row)), row)
        os._exit(0)  # no close: the WAL stays, as after a SIGKILL
    os.waitpid(pid, 0)


class ReadOnlyShardTest(TempDirCase):
    """Shards this user may read but not write (another user's, an
    archive's, a read-only mount) merge; a merge leaves no -wal or -shm
    beside them; a file it cannot read is said to be so, and why."""

    def setUp(self):
        super().setUp()
        os.chmod(self.tmp, 0o755)  # user nobody reaches its files
        self.dir = self.path("shards")
        os.mkdir(self.dir)
        self.out = self.path("out")
        os.mkdir(self.out)
        os.chmod(self.out, 0o777)
        self.single = self.path("single.db")
        rc, _, err = run("run", SCN, "--sweep", SWEEP, "-o", self.single,
                         "-j", "2")
        self.assertEqual(rc, 0, err)
        self.shards = []
        for k in range(3):
            db = os.path.join(self.dir, "s%d.db" % k)
            rc, _, err = run("run", SCN, "--sweep", SWEEP, "-o", db,
                             "--shard", "%d/3" % k, "-j", "1")
            self.assertEqual(rc, 0, err)
            self.shards.append(db)

    def tearDown(self):
        os.chmod(self.dir, 0o755)  # its files removable
        super().tearDown()

    def read_only(self):
        for f in os.listdir(self.dir):
            os.chmod(os.path.join(self.dir, f), 0o444)
        os.chmod(self.dir, 0o555)

    def merge(self, name):
        r = as_reader("merge", os.path.join(self.out, name), *self.shards)
        if r is None:
            self.skipTest("running as root, and user nobody cannot run "
                          "%s here (no setuid, or the build is out of its "
                          "reach): nothing to merge as a user the "
                          "permissions bind" % VSWEEP)
        return r

    def test_shards_of_another_user_merge(self):
        self.read_only()
        before = {f: os.stat(os.path.join(self.dir, f)).st_mtime_ns
                  for f in os.listdir(self.dir)}
        rc, stdout, err = self.merge("m.db")
        self.assertEqual(rc, 0, err)
        self.assertIn("8 variants from 3 shards", stdout)
        self.assertEqual(differences(os.path.join(self.out, "m.db"),
                                     self.single), [])
        # nothing beside them, nothing in them changed
        self.assertEqual({f: os.stat(os.path.join(self.dir, f)).st_mtime_ns
                          for f in os.listdir(self.dir)}, before)
        # the directory writable, the files not: still nothing beside them
        os.chmod(self.dir, 0o777)
        rc, _, err = self.merge("m2.db")
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(before))

    def test_a_killed_runs_wal(self):
        # s2.db holds variants 2 and 5; 5 only in its WAL
        wal_holds_last_variant(self.shards[2], 5)
        self.assertGreater(os.path.getsize(self.shards[2] + "-wal"), 32)
        # read through the WAL, read-only: -wal and -shm stay as they were
        self.read_only()
        rc, _, err = self.merge("ro.db")
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(os.path.join(self.out, "ro.db"),
                                     self.single), [])
        # no -shm, and none may be made: said so, with what to do
        os.chmod(self.dir, 0o755)
        os.unlink(self.shards[2] + "-shm")
        os.chmod(self.dir, 0o555)
        rc, _, err = self.merge("no.db")
        self.assertEqual(rc, 2, err)
        self.assertIn("s2.db: cannot read: %s-wal holds stored variants, "
                      "which SQLite reads only with a %s-shm beside it"
                      % (self.shards[2], self.shards[2]), err)
        self.assertFalse(os.path.exists(os.path.join(self.out, "no.db")))
        # the owner's merge folds the WAL into the file, as before
        os.chmod(self.dir, 0o755)
        for f in self.shards:
            os.chmod(f, 0o644)
        out = os.path.join(self.out, "rw.db")
        rc, _, err = run("merge", out, *self.shards)
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(out, self.single), [])
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["s0.db", "s1.db", "s2.db"])
        c = sqlite3.connect("file:%s?immutable=1" % self.shards[2],
                            uri=True)
        self.assertEqual(c.execute("SELECT variant_id FROM variant ORDER "
                                   "BY 1").fetchall(), [(2,), (5,)])
        c.close()

    def test_an_unreadable_shard_says_why(self):
        os.chmod(self.shards[1], 0)
        rc, _, err = self.merge("m.db")
        self.assertEqual(rc, 2, err)
        self.assertIn("vsweep: %s: cannot read: Permission denied"
                      % self.shards[1], err)
        self.assertNotIn("not a vsweep results file", err)
        self.assertEqual(os.listdir(self.out), [])


if __name__ == "__main__":
    unittest.main()
