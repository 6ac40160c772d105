"""The README's "write your first model in ten minutes", run as it stands:
install vsweep to a temporary prefix (meson install --destdir, the tree
then used in place, as a --prefix build would have written it), then the
README's block line by line in bash: new-plugin, a build found through
pkg-config alone, a sweep with the new plugin. The stored yaw rates are
checked against the closed form of the template's model: v tan(delta) / L
with delta = steering wheel / steering ratio."""
import math
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

BUILD = os.environ["VSWEEP_BUILD_ROOT"]
MARK = "<!-- walkthrough: tests/e2e/test_walkthrough.py runs the next block -->"


def readme_block():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        text = f.read()
    at = text.index(MARK)
    m = re.search(r"```sh\n(.*?)```", text[at:], re.S)
    return m.group(1)


class WalkthroughTest(TempDirCase):
    def test_first_model_in_ten_minutes(self):
        dest = self.path("dest")
        subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest,
                        "--quiet", "--no-rebuild"], check=True,
                       capture_output=True)
        pcs = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
               if f == "vsweep.pc"]
        self.assertEqual(len(pcs), 1)
        with open(pcs[0], encoding="utf-8") as f:
            pc = f.read()
        configured = re.search(r"^prefix=(.*)$", pc, re.M).group(1)
        prefix = dest + configured
        # what `meson setup --prefix PREFIX` would have written
        with open(pcs[0], "w", encoding="utf-8") as f:
            f.write(re.sub(r"^prefix=.*$", "prefix=" + prefix, pc,
                           count=1, flags=re.M))
        for f in ["bin/vsweep", "include/vsweep/plugin.h",
                  "include/vsweep/vehicle_common.h",
                  "share/vsweep/template/my_model.c",
                  "share/vsweep/template/meson.build"]:
            self.assertTrue(os.path.exists(os.path.join(prefix, f)), f)

        block = readme_block()
        line = 'PREFIX="$HOME/.local"'
        self.assertIn(line, block)
        script = block.replace(line, 'PREFIX="%s"' % prefix, 1)
        work = self.path("work")
        os.mkdir(work)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("VSWEEP") and k != "PKG_CONFIG_PATH"}
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", script],
                           cwd=work, env=env, capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        db = os.path.join(work, "my_car", "my_car.db")
        for f in ["my_car.c", "my_behaviour.c", "meson.build",
                  "scenario.yaml", "sweep.yaml", "build/my_car.so"]:
            self.assertTrue(os.path.exists(os.path.join(work, "my_car", f)),
                            f)
        # the renamed model is what ran
        self.assertEqual(query(db, "SELECT DISTINCT vehicle_model, behaviour "
                               "FROM actor_info"), [("my_car", "my_behaviour")])
        plugin = query(db, "SELECT path FROM plugin WHERE name = 'my_car'")
        self.assertTrue(plugin[0][0].endswith("build/my_car.so"), plugin)
        rows = query(db, "SELECT status, json_extract(params, '$.actor1.speed'),"
                     " json_extract(params, '$.actor1.vehicle_model."
                     "steering_ratio'), max_yaw_rate FROM variant_summary "
                     "ORDER BY variant_id")
        self.assertEqual(len(rows), 6)
        for status, v, ratio, r in rows:
            self.assertEqual(status, "done")
            delta = math.radians(90) / ratio
            self.assertAlmostEqual(r, v * math.tan(delta) / 2.8, places=9)
        # the block's last command printed the table: one row a variant
        last = p.stdout.strip().splitlines()[-6:]
        for i, ln in enumerate(last):
            self.assertRegex(ln, r"^%d\|done\|0\.\d+$" % i)


    def test_new_plugin_behaviour_and_refusals(self):
        out = self.path("lane_keeper")
        rc, so, err = run("new-plugin", "lane_keeper", "--kind", "behaviour",
                          "-o", out)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(out)),
                         ["lane_keeper.c", "meson.build", "my_model.c",
                          "scenario.yaml", "sweep.yaml"])
        with open(os.path.join(out, "lane_keeper.c"), encoding="utf-8") as f:
            c = f.read()
        self.assertIn('.name = "lane_keeper"', c)
        self.assertIn("VS_KIND_BEHAVIOUR", c)
        self.assertNotIn("my_behaviour", c)
        with open(os.path.join(out, "scenario.yaml"), encoding="utf-8") as f:
            self.assertIn("behaviour: {plugin: lane_keeper", f.read())
        with open(os.path.join(out, "meson.build"), encoding="utf-8") as f:
            self.assertIn("['my_model', 'lane_keeper']", f.read())
        # never over an existing directory; names scenarios can use
        for args in [("lane_keeper", "--kind", "behaviour", "-o", out),
                     ("Bad-Name", "--kind", "behaviour", "-o", self.path("b")),
                     ("ok", "--kind", "sensor", "-o", self.path("c")),
                     ("ok", "-o", self.path("d"))]:
            rc, _, err = run("new-plugin", *args)
            self.assertEqual(rc, 2, (args, err))
        # the template's other plugin's name (a review: "File exists",
        # status 3, nothing made)
        for name, kind in (("my_model", "behaviour"),
                           ("my_behaviour", "vehicle_model")):
            dst = self.path("clash_" + name)
            rc, _, err = run("new-plugin", name, "--kind", kind, "-o", dst)
            self.assertEqual(rc, 2, err)
            self.assertIn("is the template's other plugin", err)
            self.assertFalse(os.path.exists(dst))
        # VSWEEP_TEMPLATE_DIR is the one place looked in when set: one
        # without the template is bad input, said as such; the source
        # tree's template directory works
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "template")
        # (a directory with only part of the template is none: nothing
        # is made from it)
        part = self.path("part")
        os.mkdir(part)
        shutil.copy(os.path.join(src, "my_model.c"), part)
        for tdir, want, lacks in ((self.path("nowhere"), 2, "my_model.c"),
                                  (part, 2, "my_behaviour.c"),
                                  (src, 0, None)):
            dst = self.path("t_" + os.path.basename(tdir))
            rc, _, err = run("new-plugin", "tk", "--kind", "behaviour", "-o",
                             dst, env={"VSWEEP_TEMPLATE_DIR": tdir})
            self.assertEqual(rc, want, err)
            self.assertEqual(os.path.exists(dst), want == 0)
            if lacks:
                self.assertIn("vsweep: new-plugin: VSWEEP_TEMPLATE_DIR=%s "
                              "holds no plugin template (it lacks %s)"
                              % (tdir, lacks), err)


if __name__ == "__main__":
    unittest.main()
