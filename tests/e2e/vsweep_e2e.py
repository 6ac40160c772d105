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


def run(*args, timeout=300, env=None):
    """Runs vsweep; returns (exit status, stdout, stderr)."""
    e = dict(os.environ)
    e.pop("VSWEEP_PLUGIN_PATH", None)
    if env:
        e.update(env)
    p = subprocess.run([VSWEEP, *args], capture_output=True, text=True,
                       timeout=timeout, env=e, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


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
