"""The results file and the process under pressure (issue 13): foreign
libraries on the plugin path, signals, a second writer, another program's
lock, the WAL, kills in the first milliseconds."""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TempDirCase, query, run, scenario  # noqa: E402

CIRCLE = scenario("circle.yaml")

# A library that is no plugin: its constructor leaves a marker file.
FOREIGN_C = r"""
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void touch(void)
{
	FILE *f = fopen(getenv("MARKER"), "w");
	if (f)
		fclose(f);
}
"""


class PluginPathTest(TempDirCase):
    def foreign(self, folder):
        os.makedirs(folder, exist_ok=True)
        src = self.write("foreign.c", FOREIGN_C)
        cc = shutil.which("cc") or "gcc"
        subprocess.run([cc, "-shared", "-fPIC", "-o",
                        os.path.join(folder, "libforeign.so"), src],
                       check=True)

    def test_foreign_library_is_not_run(self):
        folder = self.path("plugins")
        self.foreign(folder)
        marker = self.path("marker")
        env = {"MARKER": marker}
        for args in (["check", CIRCLE], ["run", CIRCLE, "-o",
                                         self.path("r.db")]):
            rc, _, err = run(*args, "--plugin-path", folder, env=env)
            self.assertEqual(rc, 0, err)
            self.assertFalse(os.path.exists(marker), args)
        # `plugins` lists by loading, and says so.
        rc, out, err = run("plugins", "--plugin-path", folder, env=env)
        self.assertIn("their code runs", out)
        self.assertTrue(os.path.exists(marker))

    def test_world_writable_folder_refused(self):
        folder = self.path("open")
        os.mkdir(folder)
        # A bad constant_steer that would win over the shipped one.
        shutil.copy(os.path.join(os.environ["VSWEEP_TEST_PLUGINDIR"],
                                 "fail_at.so"),
                    os.path.join(folder, "constant_steer.so"))
        os.chmod(folder, 0o777)
        rc, _, err = run("run", CIRCLE, "-o", self.path("r.db"),
                         "--plugin-path", folder)
        self.assertEqual(rc, 0, err)
        self.assertIn("writable by every user: refused", err)
        self.assertIn(folder, err)

    def test_shadowing_is_said(self):
        folder = self.path("mine")
        os.mkdir(folder)
        shipped = os.path.join(os.environ["VSWEEP_BUILD_ROOT"], "plugins",
                               "constant_steer.so")
        shutil.copy(shipped, os.path.join(folder, "constant_steer.so"))
        rc, _, err = run("run", CIRCLE, "-o", self.path("r.db"),
                         "--plugin-path", folder)
        self.assertEqual(rc, 0, err)
        self.assertIn("plugin 'constant_steer': %s/constant_steer.so "
                      "shadows %s" % (folder, shipped), err)
        used = query(self.path("r.db"), "SELECT name FROM plugin")
        self.assertIn(("constant_steer",), used)


if __name__ == "__main__":
    unittest.main()
