"""Helpers for the end-to-end tests: run the real binary, read the results."""
import os
import sqlite3
import subprocess
import tempfile
import unittest

SRC = os.environ.get("VSWEEP_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
VSWEEP = os.environ["VSWEEP"]
TEST_PLUGINS = os.environ.get("VSWEEP_TEST_PLUGINDIR", "")


def scenario(name):
    return os.path.join(SRC, "scenarios", name)


def run(*args, timeout=300, env=None, cwd=None):
    """Runs vsweep (in cwd, default this process's); returns (exit
    status, stdout, stderr)."""
    e = dict(os.environ)
    e.pop("VSWEEP_PLUGIN_PATH", None)
    if env:
        e.update(env)
    p = subprocess.run([VSWEEP, *args], capture_output=True, text=True,
                       timeout=timeout, env=e, stdin=subprocess.DEVNULL,
                       cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def start_gated(args, mark, gate):
    """Starts vsweep with args in the background, its crash_* plugins set
    to stall: each writes mark (CRASH_STALL_MARK) and waits while gate
    (CRASH_STALL_GATE, made here) exists. Returns the process."""
    open(gate, "w").close()
    env = dict(os.environ, CRASH_STALL_MARK=mark, CRASH_STALL_GATE=gate)
    env.pop("VSWEEP_PLUGIN_PATH", None)
    # stderr a pipe, for stop_held (vsweep writes little there when it is
    # not a terminal: no progress line)
    return subprocess.Popen([VSWEEP, *args], env=env,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)


STOPPING = "vsweep: stopping:"


def stop_held(p, sig, gate, timeout=60):
    """Stops p, a run one of whose variants the gate holds (its stderr a
    pipe): sends sig, waits for vsweep to say it is stopping, and only
    then removes the gate, so that the held variant, let go, meets the
    stop. Removing the gate straight after the signal let the run go on:
    the handler runs when the kernel schedules the thread it chose, and
    on a loaded machine the let-go worker began and finished the last
    variants first (the run then ended with status 0, every variant
    stored). Returns (stdout, stderr), p ended."""
    import threading
    got = {"out": [], "err": []}
    said = threading.Event()

    def pump(f, key):
        for line in iter(f.readline, ""):
            got[key].append(line)
            if key == "err" and line.startswith(STOPPING):
                said.set()
        if key == "err":
            said.set()  # ended without saying it: the caller's checks fail

    pumps = [threading.Thread(target=pump, args=(f, k), daemon=True)
             for f, k in ((p.stdout, "out"), (p.stderr, "err")) if f]
    for t in pumps:
        t.start()
    p.send_signal(sig)
    said.wait(timeout)
    os.unlink(gate)
    p.wait(timeout=timeout)
    for t in pumps:
        t.join(timeout)
    for f in (p.stdout, p.stderr):
        if f:
            f.close()
    return "".join(got["out"]), "".join(got["err"])


class gated_run:
    """start_gated's run as a context: on leaving, however the test went,
    the run is killed if it still runs and the gate removed."""

    def __init__(self, args, mark, gate):
        self.args, self.mark, self.gate = args, mark, gate

    def __enter__(self):
        self.p = start_gated(self.args, self.mark, self.gate)
        return self.p

    def __exit__(self, *exc):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        if self.p.stderr and not self.p.stderr.closed:
            self.p.stderr.close()
        if os.path.exists(self.gate):  # stop_held removed it
            os.unlink(self.gate)
        return False


def wait_for(done, seconds):
    """Polls done() every 20 ms for up to seconds; its last answer."""
    import time
    t0 = time.monotonic()
    while not done() and time.monotonic() - t0 < seconds:
        time.sleep(0.02)
    return done()


def query(db, sql, *params):
    with sqlite3.connect(db) as c:
        return c.execute(sql, params).fetchall()


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text):
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p


class FmuTempDirCase(TempDirCase):
    """A case running FMUs: vsweep's TMPDIR, where it unpacks them, is a
    directory of the case's own, which must be empty again at the end
    (no unpacked FMU left behind)."""
    def setUp(self):
        super().setUp()
        self.tmpdir = self.path("tmp")
        os.mkdir(self.tmpdir)
        self.env = {"TMPDIR": self.tmpdir}

    def tearDown(self):
        self.assertEqual(os.listdir(self.tmpdir), [],
                         "an unpacked FMU directory was left behind")
        super().tearDown()

    def vsweep(self, *args):
        return run(*args, env=self.env)


def dump(db):
    """Every stored row, wall-clock times excluded, floats as exact bits:
    two dumps are equal only for bit-identical files (state is keyed by
    (variant_id, actor_id, step): its key is its order)."""
    c = sqlite3.connect(db)
    out = {}
    for table, cols in [("state", "*"), ("actor", "*"), ("wheel", "*"),
                        ("variant", "variant_id, status, error, params, "
                                    "label"),
                        ("plugin", "name, kind, version, digest"),
                        ("pair_row", "*")]:
        rows = c.execute("SELECT %s FROM %s ORDER BY 1, 2, 3" % (cols, table))
        out[table] = [tuple(v.hex() if isinstance(v, float) else v
                            for v in r) for r in rows]
    c.close()
    return out


STORED = [("state", "*"), ("actor", "*"), ("wheel", "*"),
          ("event_row", "rowid, *"), ("summary", "*"),
          ("variant", "variant_id, status, error, params, label"),
          ("plugin", "name, kind, version, digest"), ("pair_row", "*"),
          ("signal_row", "*"), ("signal_name", "*"),
          ("log_row", "rowid, *"), ("sqlite_stat1", "*")]


def differences(db_a, db_b):
    """Tables whose stored rows (wall-clock times excluded; event and log
    rows' rowids included, the planner's statistics too) differ
    between two results files; [] when identical. SQLite compares REALs
    by value, so equal rows hold the same doubles (up to the sign of zero,
    which no computation here produces)."""
    c = sqlite3.connect(db_a)
    c.execute("ATTACH DATABASE ? AS other", (db_b,))
    diff = []
    for table, cols in STORED:
        # The planner's statistics exist once a file is final.
        has = [c.execute("SELECT count(*) FROM %s.sqlite_schema WHERE name "
                         "= ?" % db, (table,)).fetchone()[0]
               for db in ("main", "other")]
        if has != [1, 1]:
            if has[0] != has[1]:
                diff.append(table)
            continue
        n_a = c.execute("SELECT count(*) FROM main.%s" % table).fetchone()[0]
        n_b = c.execute("SELECT count(*) FROM other.%s" % table).fetchone()[0]
        extra = c.execute(
            "SELECT count(*) FROM (SELECT %s FROM main.%s EXCEPT "
            "SELECT %s FROM other.%s)" % (cols, table, cols, table)
        ).fetchone()[0]
        if n_a != n_b or extra:
            diff.append(table)
    c.close()
    return diff
