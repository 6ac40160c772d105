"""vsweep-mpi: `mpirun -np R vsweep-mpi run` stores exactly the rows of a
single `vsweep run`; a job killed with SIGKILL leaves part files of whole
variants that `--resume` (with another rank count) completes, identical
again; `vsweep merge` takes the part files given explicitly.

Runs in a sandbox: as root (Open MPI's opt-in variables), without network
or ssh (shared-memory transport, no remote launch agent). Skips only when
mpirun is absent; tools/deps.sh installs it."""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, TempDirCase, differences,  # noqa
                        query, run, scenario)

SCENARIO = scenario("two_cars.yaml")
VSWEEP_MPI = os.environ.get("VSWEEP_MPI", "")
MPIRUN = os.environ.get("MPIRUN") or shutil.which("mpirun")

# Open MPI's own allocations are never freed; LeakSanitizer (the ASan
# build) must not blame vsweep-mpi for them. Components stay loaded so that
# their frames keep a library name to match, and the full unwinder is used
# because Open MPI is built without frame pointers. vsweep's leaks are
# still reported: they have no Open MPI frame.
LSAN_SUPPRESSIONS = """\
leak:libmpi.so
leak:libopen-pal.so
leak:libopen-rte.so
leak:libpmix.so
leak:libhwloc.so
leak:libevent
leak:mca_
"""


def sweep_text(n, base=5):
    lines = ["vsweep: 1", "blocks:", "  - list:"]
    for i in range(n):
        lines.append("      - [{actor: 1, speed: %d.%d}, {actor: 2, speed: "
                     "[%d, %d]}]" % (base + i % 17, i % 10, 8 + i % 7,
                                     12 + i % 5))
    return "\n".join(lines) + "\n"


@unittest.skipUnless(MPIRUN, "mpirun not found (tools/deps.sh installs "
                     "openmpi-bin)")
@unittest.skipUnless(VSWEEP_MPI, "vsweep-mpi not built (no MPI found)")
class MpiTest(TempDirCase):
    def setUp(self):
        super().setUp()
        supp = self.write("lsan.supp", LSAN_SUPPRESSIONS)
        asan = os.environ.get("ASAN_OPTIONS", "")
        self.env = dict(os.environ)
        self.env.pop("VSWEEP_PLUGIN_PATH", None)
        self.env.update({
            "OMPI_ALLOW_RUN_AS_ROOT": "1",
            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OMPI_MCA_mca_base_component_disable_dlclose": "1",
            "PMIX_MCA_mca_base_component_disable_dlclose": "1",
            "ASAN_OPTIONS": (asan + ":" if asan else "") +
                            "fast_unwind_on_malloc=0",
            "LSAN_OPTIONS": "suppressions=%s:print_suppressions=0" % supp,
        })

    def mpirun(self, np_, *args):
        return [MPIRUN, "--oversubscribe", "--bind-to", "none",
                "-np", str(np_),
                "--mca", "btl", "self,vader",
                "--mca", "btl_vader_single_copy_mechanism", "none",
                "--mca", "plm_rsh_agent", "false",
                VSWEEP_MPI, "run", SCENARIO, *args]

    def mpi(self, np_, *args, timeout=300):
        p = subprocess.run(self.mpirun(np_, *args), capture_output=True,
                           text=True, timeout=timeout, env=self.env,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr

    def reference(self, sweep, name):
        db = self.path(name)
        rc, _, err = run("run", SCENARIO, "--sweep", sweep, "-o", db,
                         "-j", "2")
        self.assertEqual(rc, 0, err)
        return db

    def parts(self, db):
        d = db + ".parts"
        if not os.path.isdir(d):
            return []
        return sorted(os.path.join(d, f) for f in os.listdir(d)
                      if f.startswith("rank-") and f.endswith(".db"))

    def test_help_and_version_said_once(self):
        """--help and --version come before MPI starts, and each rank
        printed them: said once now, by rank 0."""
        base = self.mpirun(2)[:-2]  # ... VSWEEP_MPI, without run SCENARIO
        for extra, want in ((["--version"], "vsweep-mpi "),
                            (["run", SCENARIO, "--help"], "usage:")):
            p = subprocess.run(base + extra, capture_output=True,
                               text=True, timeout=120, env=self.env,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.count(want), 1, p.stdout)

    def test_two_ranks_store_a_single_runs_rows(self):
        sweep = self.write("sweep.yaml", sweep_text(40))
        ref = self.reference(sweep, "ref.db")
        out = self.path("out.db")
        t0 = time.time()
        rc, stdout, err = self.mpi(2, "--sweep", sweep, "-o", out,
                                   "-j", "1")
        self.assertEqual(rc, 0, err)
        self.assertIn("40 variants (40 done, 0 failed, 0 already stored) "
                      "on 2 ranks", stdout)
        sys.stderr.write("mpirun -np 2, 40 variants: %.2f s\n"
                         % (time.time() - t0))
        self.assertEqual(differences(out, ref), [])
        self.assertEqual(query(out, "SELECT value FROM meta WHERE key = "
                               "'shard'"), [("0/1",)])
        # The parts are gone once merged.
        self.assertFalse(os.path.exists(out + ".parts"))
        # An existing output is not overwritten without being told.
        rc, _, err = self.mpi(2, "--sweep", sweep, "-o", out)
        self.assertEqual(rc, 2, err)
        self.assertIn("exists; use --resume", err)
        # --resume on a finished output: nothing to do.
        rc, stdout, err = self.mpi(1, "--sweep", sweep, "-o", out,
                                   "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("nothing to do", stdout)

    def held_merge(self, sweep, out, gate, *extra):
        """mpirun -np 2 whose rank 0 waits half-way through its merge
        (vs_merge's test hook); returns mpirun and rank 0's pid."""
        open(gate, "w").close()
        held = gate + ".held"
        if os.path.exists(held):
            os.unlink(held)
        p = subprocess.Popen(
            self.mpirun(2, "--sweep", sweep, "-o", out, "-j", "1", *extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(self.env, VSWEEP_TEST_MERGE_GATE=gate),
            stdin=subprocess.DEVNULL)
        t0 = time.time()
        while p.poll() is None and time.time() - t0 < 120:
            try:
                with open(held) as f:
                    text = f.read()
                if text.endswith("\n"):
                    return p, int(text)
            except OSError:
                pass
            time.sleep(0.01)
        os.unlink(gate)
        self.fail("merge not held: %s" % (p.communicate(),))

    def partials(self, out):
        d, base = os.path.split(out)
        return [f for f in os.listdir(d) if f.startswith(base + ".partial-")]

    def test_signal_while_rank_0_merges(self):
        """SIGTERM, SIGHUP to rank 0 while it merges: the merge stops, its
        temporary file goes, status 130 and the resume hint (docs/cli.md);
        SIGTERM to mpirun then: whatever it leaves, --resume merges and
        no temporary file stays."""
        sweep = self.write("sweep.yaml", sweep_text(40))
        ref = self.reference(sweep, "ref.db")
        out, gate = self.path("out.db"), self.path("gate")
        for sig, extra in ((signal.SIGTERM, []),
                           (signal.SIGHUP, ["--resume"])):
            p, rank0 = self.held_merge(sweep, out, gate, *extra)
            try:
                os.kill(rank0, sig)
                _, err = p.communicate(timeout=60)
            finally:
                os.unlink(gate)
            self.assertEqual(p.returncode, 130, (sig, err))
            self.assertIn("vsweep-mpi: interrupted while merging; %s.parts "
                          "keeps every variant and %s is not written. "
                          "Resume with the same command and --resume" %
                          (out, out), err)
            self.assertFalse(os.path.exists(out))
            self.assertEqual(self.partials(out), [], sig)
            self.assertEqual(len(self.parts(out)), 2)
        p, rank0 = self.held_merge(sweep, out, gate, "--resume")
        try:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=300)
        finally:
            os.unlink(gate)
        self.assertNotEqual(p.returncode, 0, err)
        self.assertFalse(os.path.exists(out))
        rc, stdout, err = self.mpi(2, "--sweep", sweep, "-o", out, "-j",
                                   "1", "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("40 already stored", stdout)
        self.assertEqual(self.partials(out), [])
        self.assertEqual(differences(out, ref), [])

    def sweep_record(self, db):
        return query(db, "SELECT key, value FROM meta WHERE key IN "
                     "('sweep_text', 'variant_count', 'sweep_path') "
                     "ORDER BY key")

    def test_resume_does_not_extend(self):
        """A sweep that extends a finished output (entries appended) is
        refused by vsweep-mpi --resume, the output left as it was: it was
        refused too, but with its sweep record already rewritten to the
        new sweep's, which then took the old sweep for another.
        vsweep run --resume extends it."""
        sweep = self.write("sweep.yaml", sweep_text(10))
        more = self.write("more.yaml", sweep_text(14))
        out = self.path("out.db")
        rc, _, err = self.mpi(2, "--sweep", sweep, "-o", out, "-j", "1")
        self.assertEqual(rc, 0, err)
        before = self.sweep_record(out)
        rc, _, err = self.mpi(2, "--sweep", more, "-o", out, "-j", "1",
                              "--resume")
        self.assertEqual(rc, 2, err)
        self.assertIn("%s: cannot resume: its sweep_text differs from this "
                      "run's; vsweep-mpi does not extend a sweep" % out, err)
        self.assertEqual(self.sweep_record(out), before)
        rc, stdout, err = self.mpi(1, "--sweep", sweep, "-o", out,
                                   "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("nothing to do", stdout)
        rc, stdout, err = run("run", SCENARIO, "--sweep", more, "-o", out,
                              "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("4 done", stdout)
        self.assertEqual(differences(out, self.reference(more, "ref.db")),
                         [])

    def stored_in_parts(self, db):
        n = 0
        for p in self.parts(db):
            try:
                n += query(p, "SELECT count(*) FROM variant")[0][0]
            except Exception:  # being created
                pass
        return n

    def kill_job(self, p):
        """SIGKILL to mpirun's process group and to every process of its
        session: Open MPI puts each rank in a process group of its own."""
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in self.session(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.communicate()
        t0 = time.time()
        while self.session(p.pid) and time.time() - t0 < 30:
            time.sleep(0.05)
        self.assertEqual(self.session(p.pid), [], "ranks outlived mpirun")

    @staticmethod
    def session(sid):
        """Live (not zombie) processes of session sid."""
        pids = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                pids.append(int(d))
        return pids

    def crash_scenario(self, name, params):
        """One car driven by the crash test plugin with these params."""
        return self.write(name, "\n".join([
            "vsweep: 1", "name: %s" % name, "step: 0.01",
            "duration: 20", "assets:",
            "  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7,"
            " front_overhang: 0.9}",
            "actors:", "  - id: 1", "    name: ego", "    asset: car",
            "    start: {position: [0, 0, 0], yaw: 0}", "    speed: 5",
            "    behaviour: {plugin: crash_segv, params: {%s}}" % params,
            ""]))

    def crash_mpirun(self, scn, np_, *args):
        cmd = self.mpirun(np_, *args, "--plugin-path",
                          os.path.join(TEST_PLUGINS, "crash"))
        cmd[cmd.index(SCENARIO)] = scn
        return cmd

    def start_held(self, cmd, mark, gate, ready, **popen):
        """Starts cmd with the crash plugin's gate closed and returns once
        the held variant waits (its mark is written) and ready() is true;
        fails if the job ended first."""
        open(gate, "w").close()
        p = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(self.env, CRASH_STALL_MARK=mark, CRASH_STALL_GATE=gate),
            stdin=subprocess.DEVNULL, **popen)
        t0 = time.time()
        while (p.poll() is None and time.time() - t0 < 120 and
               not (os.path.exists(mark) and ready())):
            time.sleep(0.01)
        if p.poll() is not None:
            os.unlink(gate)
            self.fail("finished before it was held: %s" % (p.communicate(),))
        return p

    def test_sigkill_then_resume_with_another_rank_count(self):
        """Killed mid-run, deterministically: variant 150 of 200 waits
        while a gate file exists (crash plugin, stall; the mark says when
        it waits), and the kill comes once it waits and some variants are
        stored, so they cannot all be. Polling for the first commit alone
        raced a fast writer: CI once saw all 200 stored, the merge under
        way, before the poller woke."""
        n, steps = 200, 2001  # 20 s at 0.01 s, step 0 included
        scn = self.crash_scenario("stall.yaml", "armed: -1, stall: 150, "
                                  "stall_seconds: 0")
        sweep_for = lambda first: self.write(
            "w%d.yaml" % first, "vsweep: 1\nblocks:\n  - grid:\n"
            "      - {actor: 1, param: behaviour.trigger, "
            "value: {from: %d, to: %d, step: 1}}\n" % (first, first + n - 1))
        sweep = sweep_for(0)
        crash = os.path.join(TEST_PLUGINS, "crash")
        mark, gate = self.path("stall.mark"), self.path("gate")
        mpirun = lambda *a: self.crash_mpirun(scn, *a)
        ref = self.path("ref.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", ref, "-j", "2",
                         "--plugin-path", crash)
        self.assertEqual(rc, 0, err)
        out = self.path("out.db")
        p = self.start_held(mpirun(2, "--sweep", sweep, "-o", out, "-j", "1"),
                            mark, gate, lambda: self.stored_in_parts(out),
                            start_new_session=True)
        self.kill_job(p)
        os.unlink(gate)
        self.assertFalse(os.path.exists(out))
        parts = self.parts(out)
        self.assertTrue(parts)
        # What is stored: whole variants, none twice, not the sleeper.
        seen = set()
        for part in parts:
            rows = query(part, "SELECT v.variant_id, (SELECT count(*) FROM "
                         "state s WHERE s.variant_id = v.variant_id), "
                         "(SELECT count(*) FROM actor a WHERE a.variant_id "
                         "= v.variant_id) FROM variant v")
            for vid, states, actors in rows:
                self.assertEqual((states, actors), (steps, 1), (part, vid))
                self.assertNotIn(vid, seen)
                seen.add(vid)
        self.assertGreater(len(seen), 0)
        self.assertNotIn(150, seen)
        # Parts of this sweep do not continue another one (every variant's
        # trigger differs; appending variants would extend it).
        cmd = mpirun(1, "--sweep", sweep_for(1), "-o", out, "--resume")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=self.env, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("cannot resume: its sweep_text differs", p.stderr)
        # Nor one that extends it (a block appended): vsweep-mpi extends
        # no sweep, and every part stays as it was (they were rewritten
        # to the new sweep one by one as they were checked).
        with open(sweep) as f:
            text = f.read()
        more = self.write("more.yaml", text + "  - grid:\n      - {actor: "
                          "1, param: behaviour.trigger, value: {from: 900, "
                          "to: 901, step: 1}}\n")
        records = [self.sweep_record(part) for part in parts]
        cmd = mpirun(1, "--sweep", more, "-o", out, "--resume")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=self.env, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("cannot resume: its sweep_text differs from this "
                      "run's; vsweep-mpi does not extend a sweep", p.stderr)
        self.assertEqual([self.sweep_record(part) for part in parts],
                         records)
        # One rank where there were two: it continues rank-0.db, leaves
        # rank-1.db as it is, and merges both.
        cmd = mpirun(1, "--sweep", sweep, "-o", out, "-j", "2", "--resume")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=self.env, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("%d already stored) on 1 ranks" % len(seen), p.stdout)
        self.assertEqual(differences(out, ref), [])
        self.assertFalse(os.path.exists(out + ".parts"))

    def test_a_crashing_plugin_costs_one_variant(self):
        """A plugin that dereferences NULL in variant 17 of 30: the rank
        simulating it goes on (containment, as in vsweep run), and the
        merged file is the one `vsweep run` writes, the crash stored
        failed with its reason in both."""
        scn = self.write("crash.yaml", "\n".join([
            "vsweep: 1", "name: crash under MPI", "step: 0.1",
            "duration: 2", "assets:",
            "  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7,"
            " front_overhang: 0.9}",
            "actors:", "  - id: 1", "    name: ego", "    asset: car",
            "    start: {position: [0, 0, 0], yaw: 0}", "    speed: 5",
            "    behaviour: {plugin: crash_segv, params: {armed: 17}}",
            ""]))
        sweep = self.write("w.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                           "      - {actor: 1, param: behaviour.trigger, "
                           "value: {from: 0, to: 29, step: 1}}\n")
        crash = os.path.join(TEST_PLUGINS, "crash")
        out, ref = self.path("out.db"), self.path("ref.db")
        self.env.pop("VSWEEP_NO_CONTAINMENT", None)  # about containment
        # a sanitizer build's ASan would turn the fault into exit(1)
        asan = ":".join(x for x in (
            os.environ.get("ASAN_OPTIONS", ""), "detect_leaks=0",
            "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0")
            if x)
        self.env["ASAN_OPTIONS"] = asan
        cmd = self.mpirun(2, "--sweep", sweep, "-o", out, "-j", "1",
                          "--plugin-path", crash)
        cmd[cmd.index(SCENARIO)] = scn
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=300, env=self.env,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 1, p.stderr)
        # the crash counted apart, as vsweep run counts it (docs/cli.md)
        self.assertIn("30 variants (29 done, 1 failed (1 crashed), 0 "
                      "already stored) on 2 ranks", p.stdout)
        reason = ("crashed: signal 11 (SIGSEGV) in plugin crash_segv, "
                  "actor 1 (ego), step 5")
        self.assertEqual(query(out, "SELECT variant_id, error FROM "
                               "variant_info WHERE status = 'failed'"),
                         [(17, reason)])
        # said once, by the rank that ran it, naming it; no line of
        # vsweep's ("vsweep: "), whose rank would be unknown
        said = [x for x in p.stderr.splitlines() if "variant 17" in x]
        self.assertEqual(len(said), 1, p.stderr)
        self.assertRegex(said[0], r"^vsweep-mpi: rank [01]: variant 17: "
                         r"failed: %s$" % re.escape(reason))
        self.assertEqual([x for x in p.stderr.splitlines()
                          if x.startswith("vsweep:")], [], p.stderr)
        saved = os.environ.pop("VSWEEP_NO_CONTAINMENT", None)
        try:
            rc, _, err = run("run", scn, "--sweep", sweep, "-o", ref,
                             "-j", "2", "--plugin-path", crash,
                             env={"ASAN_OPTIONS": asan})
        finally:
            if saved is not None:
                os.environ["VSWEEP_NO_CONTAINMENT"] = saved
        self.assertEqual(rc, 1, err)
        self.assertEqual(differences(out, ref), [])

    def test_vsweep_merge_takes_parts(self):
        sweep = self.write("sweep.yaml", sweep_text(40))
        ref = self.reference(sweep, "ref.db")
        out = self.path("out.db")
        rc, _, err = self.mpi(3, "--sweep", sweep, "-o", out, "-j", "1",
                              "--keep-parts")
        self.assertEqual(rc, 0, err)
        parts = self.parts(out)
        self.assertEqual([os.path.basename(p) for p in parts],
                         ["rank-0.db", "rank-1.db", "rank-2.db"])
        self.assertEqual(query(parts[1], "SELECT value FROM meta WHERE key "
                               "= 'shard'"), [("part 1",)])
        merged = self.path("merged.db")
        rc, stdout, err = run("merge", merged, *reversed(parts))
        self.assertEqual(rc, 0, err)
        self.assertIn("40 variants from 3 shards", stdout)
        self.assertEqual(differences(merged, ref), [])
        # Parts with K/N shards: refused; a part missing: refused unless
        # --allow-partial.
        shard = self.path("s0.db")
        rc, _, err = run("run", SCENARIO, "--sweep", sweep, "-o", shard,
                         "--shard", "0/2", "-j", "1")
        self.assertEqual(rc, 0, err)
        for args, msg in [((shard, *parts), "merge parts only with parts"),
                          (parts[:2], "of the sweep's 40 variants")]:
            rc, _, err = run("merge", self.path("m.db"), *args)
            self.assertEqual(rc, 2, err)
            self.assertIn(msg, err)
            self.assertFalse(os.path.exists(self.path("m.db")))
        held = sum(query(p, "SELECT count(*) FROM variant")[0][0]
                   for p in parts[:2])
        rc, stdout, err = run("merge", self.path("m.db"), *parts[:2],
                              "--allow-partial")
        self.assertEqual(rc, 0, err)
        self.assertIn("%d missing" % (40 - held), stdout)
        # The parts of a finished run resume to the same result (nothing
        # simulated) once the output is gone.
        os.unlink(out)
        rc, stdout, err = self.mpi(2, "--sweep", sweep, "-o", out,
                                   "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("(0 done, 0 failed, 40 already stored)", stdout)
        self.assertEqual(differences(out, ref), [])

    def test_status_of_a_part(self):
        """Found in review: `vsweep status` took a part ("part R") for
        a whole sweep's file: "stopped (continue it with vsweep run ...
        --resume): 5/24", which run refuses. It names the part and the
        advice that works, and counts what the part holds of the sweep:
        the parts' counts add up to its 24 variants. Here the output is
        gone (as after a merge that was stopped); following the advice
        merges the parts into it."""
        sweep = self.write("sweep.yaml", sweep_text(24))
        out = self.path("out.db")
        rc, _, err = self.mpi(3, "--sweep", sweep, "-o", out, "-j", "1",
                              "--keep-parts")
        self.assertEqual(rc, 0, err)
        os.unlink(out)
        total = 0
        for r, part in enumerate(self.parts(out)):
            n = query(part, "SELECT count(*) FROM variant")[0][0]
            total += n
            rc, stdout, err = run("status", part)
            self.assertEqual(rc, 0, err)
            self.assertIn(": part %d of a vsweep-mpi run (vsweep run "
                          "--resume does not take it: vsweep-mpi run ... "
                          "-o %s --resume continues that run and merges its "
                          "parts): %d of the sweep's 24 variants (%d done, "
                          "0 failed)" % (r, out, n, n), stdout)
        self.assertEqual(total, 24)
        rc, _, err = run("run", SCENARIO, "--sweep", sweep, "-o",
                         self.parts(out)[0], "--resume")
        self.assertEqual(rc, 2, err)  # as status said
        rc, stdout, err = self.mpi(2, "--sweep", sweep, "-o", out,
                                   "--resume")
        self.assertEqual(rc, 0, err)
        rc, stdout, err = run("status", out)
        self.assertIn(": finished: 24/24 variants (24 done, 0 failed)",
                      stdout)

    def test_lock_timeout_is_honoured(self):
        """--lock-timeout reaches each rank's writer: another program
        holds the write lock on rank 0's part for 4 s; with
        --lock-timeout 1 the rank gives up after 1 s (exit 3, the parts
        kept; without the option it would wait up to 600 s and finish),
        and --resume completes the sweep as a single run stores it."""
        # Variant 0 waits at the crash plugin's gate until the lock is
        # held: the rank has stored nothing and holds no transaction, so
        # the lock can be taken, and all its variants are still to store.
        # (Taking it after a first commit raced a writer that, paced or
        # not, could store everything while this test was starved.)
        n = 60
        scn = self.crash_scenario("held.yaml", "armed: -1, stall: 0, "
                                  "stall_seconds: 0")
        sweep = self.write("sweep.yaml", "vsweep: 1\nblocks:\n  - grid:\n"
                           "      - {actor: 1, param: behaviour.trigger, "
                           "value: {from: 0, to: %d, step: 1}}\n" % (n - 1))
        out = self.path("out.db")
        mark, gate = self.path("stall.mark"), self.path("gate")
        p = self.start_held(
            self.crash_mpirun(scn, 1, "--sweep", sweep, "-o", out, "-j", "1",
                              "--lock-timeout", "1"),
            mark, gate, lambda: self.parts(out))
        part = self.parts(out)[0]
        c = sqlite3.connect(part, timeout=10, isolation_level=None)
        try:
            c.execute("BEGIN EXCLUSIVE")
            stored = c.execute("SELECT count(*) FROM variant").fetchone()[0]
            self.assertEqual(stored, 0)
            self.assertIsNone(p.poll(), "finished before the lock")
        finally:
            os.unlink(gate)
        time.sleep(4)
        c.execute("COMMIT")
        c.close()
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 3, err)
        # said by the rank whose writer waited (docs/cli.md)
        self.assertRegex(err, r"vsweep-mpi: rank 0: %s: gave up after "
                         r"[12] s waiting "
                         r"for another program's lock \(--lock-timeout\)"
                         % re.escape(part))
        self.assertIn("rerun with --resume", err)
        p = subprocess.run(
            self.crash_mpirun(scn, 1, "--sweep", sweep, "-o", out, "-j", "2",
                              "--resume"),
            capture_output=True, text=True, timeout=300, env=self.env,
            stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        ref = self.path("ref.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", ref, "-j", "2",
                         "--plugin-path", os.path.join(TEST_PLUGINS, "crash"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(differences(out, ref), [])

    def test_usage(self):
        rc, _, err = self.mpi(1, "--shard", "0/2")
        self.assertEqual(rc, 2)
        self.assertIn("--shard is vsweep's", err)
        # vsweep run's own options, spelt right: refused as not this
        # program's, not met with a suggestion of themselves
        for o in (["--progress-interval", "5"], ["--variants", "1"]):
            rc, _, err = self.mpi(1, *o)
            self.assertEqual(rc, 2, err)
            self.assertIn("vsweep-mpi does not take %s (vsweep run does)"
                          % o[0], err)
            self.assertNotIn("did you mean", err)
        # its own --chunk given twice, as vsweep run's options are:
        # refused with both values, said once (by rank 0) for two ranks
        rc, out, err = self.mpi(2, "--chunk", "2", "--chunk", "4", "-o",
                                self.path("c.db"))
        self.assertEqual(rc, 2, err)
        self.assertEqual(err.count("vsweep-mpi: --chunk given twice ('2', "
                                   "then '4'): give it once"), 1, err)
        self.assertEqual(os.listdir(self.tmp), ["lsan.supp"])
        # --record signals= is checked as vsweep run checks it: an output
        # no plugin has is refused, said once, nothing written
        rc, out, err = self.mpi(2, "--record", "signals=nope.x", "-o",
                                self.path("s.db"))
        self.assertEqual(rc, 2, err)
        self.assertEqual(err.count("vsweep-mpi: --record signals=nope.x: "
                                   "no plugin 'nope' in the scenario or "
                                   "the plugin path"), 1, err)
        self.assertEqual(os.listdir(self.tmp), ["lsan.supp"])
        for args in (["--help"], ["run", "--help"],
                     ["run", "x.yaml", "-j", "2", "--help"]):
            p = subprocess.run([VSWEEP_MPI, *args], capture_output=True,
                               text=True, env=self.env)
            self.assertEqual(p.returncode, 0, (args, p.stderr))
            self.assertIn("mpirun -np R vsweep-mpi run", p.stdout)


if __name__ == "__main__":
    unittest.main()
