"""The plugin path: the first NAME.so on it is the plugin the user means.
A first copy that fails the load checks (a rebuilt plugin with a mistake
in it) is an error naming it, why, and the later copy not used in its
place; never a silent run of that other copy."""
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TEST_PLUGINS, TempDirCase, query, run  # noqa

FIRST_BROKEN = os.path.join(TEST_PLUGINS, "first_broken")
GOOD = os.path.join(TEST_PLUGINS, "fail_at.so")

SCENARIO = """\
vsweep: 1
step: 0.1
duration: 1
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: fail_at}
"""


def host_abi():
    """The host's ABI (major, minor), from the SDK header."""
    with open(os.path.join(SRC, "core", "include", "vsweep",
                           "plugin.h")) as f:
        text = f.read()
    return tuple(int(re.search(r"#define VS_ABI_%s (\d+)" % w,
                               text).group(1))
                 for w in ("MAJOR", "MINOR"))


def reasons():
    """flaw -> what the checks must say of it (plugins.md: a default
    outside its range; an ABI the host does not support, both versions
    named). broken.c: gain 5 in [0, 1]; ABI one minor newer."""
    major, minor = host_abi()
    return {
        "bad_param": "plugin 'fail_at': param 'gain' default 5 is "
                     "outside its range [0, 1]",
        "abi_next": "plugin ABI %d.%d is not supported by this vsweep "
                    "(ABI %d.%d)" % (major, minor + 1, major, minor),
    }


class FirstBrokenTest(TempDirCase):
    def broken_first(self, flaw):
        """A folder holding the flawed build as fail_at.so."""
        folder = self.path("new_" + flaw)
        os.mkdir(folder)
        shutil.copy(os.path.join(FIRST_BROKEN, "fail_at_%s.so" % flaw),
                    os.path.join(folder, "fail_at.so"))
        return folder

    def test_good_copy_alone_runs(self):
        # The scenario and the later copy are fine: the errors below are
        # the broken first copy's.
        scn = self.write("s.yaml", SCENARIO)
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT path FROM plugin WHERE "
                               "name = 'fail_at'"), [(GOOD,)])

    def test_broken_first_copy_is_an_error(self):
        scn = self.write("s.yaml", SCENARIO)
        for flaw, why in reasons().items():
            folder = self.broken_first(flaw)
            broken = os.path.join(folder, "fail_at.so")
            for cmd in ("run", "check"):
                with self.subTest(flaw=flaw, cmd=cmd):
                    db = self.path("%s_%s.db" % (flaw, cmd))
                    args = [cmd, scn, "--plugin-path", folder,
                            "--plugin-path", TEST_PLUGINS]
                    if cmd == "run":
                        args += ["-o", db]
                    rc, out, err = run(*args)
                    self.assertEqual(rc, 2, err)
                    self.assertIn("%s: %s" % (broken, why), err)
                    self.assertIn("not used in its place: %s" % GOOD, err)
                    self.assertFalse(os.path.exists(db))

    def test_available_lists_no_broken_plugin(self):
        # "available:" leaves out the name whose file did not load, and
        # still says why it did not; the folder's good plugin is listed.
        scn = self.write("s.yaml", SCENARIO)
        folder = self.broken_first("bad_param")
        shutil.copy(os.path.join(TEST_PLUGINS, "nan_model.so"), folder)
        rc, _, err = run("check", scn, "--plugin-path", folder)
        self.assertEqual(rc, 2, err)
        self.assertIn("%s/fail_at.so: %s" % (folder, reasons()["bad_param"]),
                      err)
        listed = err.split("available:", 1)[1].strip().split(", ")
        self.assertNotIn("fail_at", listed, err)
        self.assertIn("nan_model", listed, err)

    def test_available_names_each_once(self):
        # Two good copies: a name, not a file, so listed once.
        mine = self.path("mine")
        os.mkdir(mine)
        shutil.copy(GOOD, os.path.join(mine, "fail_at.so"))
        scn = self.write("s.yaml", SCENARIO.replace("fail_at", "nosuch"))
        rc, _, err = run("check", scn, "--plugin-path", mine,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 2, err)
        listed = err.split("available:", 1)[1].strip().split(", ")
        self.assertEqual(listed.count("fail_at"), 1, err)

    def test_plugins_says_the_later_copy_is_not_used(self):
        folder = self.broken_first("abi_next")
        rc, out, err = run("plugins", "--plugin-path", folder,
                           "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 0, err)
        self.assertIn("note: plugin 'fail_at': %s/fail_at.so does not load, "
                      "and %s is not used in its place" % (folder, GOOD),
                      err)
        self.assertIn("broken: %s/fail_at.so: %s"
                      % (folder, reasons()["abi_next"]), out)
        # not listed as a plugin that loads
        self.assertNotIn("\nfail_at ", out)


if __name__ == "__main__":
    unittest.main()
