"""The SDK as an outside author uses it: install, find the header and the
plugin directory through pkg-config, build a plugin with one cc command,
and run it."""
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import SRC, TempDirCase, query, run  # noqa: E402

BUILD = os.environ["VSWEEP_BUILD_ROOT"]


# one car on the template's model for 3 s at 0.1 s, at speed %s m/s
EGO_3S = """\
vsweep: 1
step: 0.1
duration: 3
assets:
  car: {length: 4, width: 2, height: 1.5, wheelbase: 2.5, front_overhang: 0.75}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: %s
    vehicle_model: {plugin: my_model}
"""

class SdkTest(TempDirCase):
    def test_out_of_tree_plugin(self):
        dest = self.path("root")
        subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest,
                        "--quiet", "--no-rebuild"], check=True,
                       capture_output=True)
        pcs = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
               if f == "vsweep.pc"]
        self.assertEqual(len(pcs), 1)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
        prefix = subprocess.run(["pkg-config", "--variable=prefix", "vsweep"],
                                env=env, capture_output=True, text=True,
                                check=True).stdout.strip()
        define = ["--define-variable=prefix=" + dest + prefix]
        cflags = subprocess.run(["pkg-config", *define, "--cflags", "vsweep"],
                                env=env, capture_output=True, text=True,
                                check=True).stdout.split()
        plugindir = subprocess.run(
            ["pkg-config", *define, "--variable=plugindir", "vsweep"],
            env=env, capture_output=True, text=True, check=True).stdout.strip()
        # The installed shipped plugins are where plugindir says.
        self.assertTrue(os.path.exists(os.path.join(plugindir,
                                                    "kinematic_bicycle.so")))
        out = self.path("plugins")
        os.mkdir(out)
        cc = shutil.which("cc") or "gcc"
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-pedantic",
                        "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
                        *cflags, "-o", os.path.join(out, "my_model.so"),
                        os.path.join(SRC, "tests", "sdk", "my_model.c"),
                        "-lm"], check=True)
        rc, stdout, err = run("plugins", "--plugin-path", out)
        self.assertEqual(rc, 0, err)
        self.assertIn("my_model 0.1 (vehicle model)", stdout)
        scn = self.write("s.yaml", """\
vsweep: 1
step: 0.1
duration: 2
assets:
  car: {length: 4, width: 2, height: 1.5, wheelbase: 2.5, front_overhang: 0.75}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    vehicle_model: {plugin: my_model}
""")
        db = self.path("r.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", out)
        self.assertEqual(rc, 0, err)
        # Straight north at 5 m/s for 2 s.
        (y,), = query(db, "SELECT y FROM actor_state WHERE step = 20")
        self.assertAlmostEqual(y, 10.0, places=9)


    def template_model(self):
        """The template's model built from the source tree's template and
        header, as a user builds it; the folder it is in."""
        out = self.path("plugins")
        os.mkdir(out)
        cc = shutil.which("cc") or "gcc"
        subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-pedantic",
                        "-Werror", "-shared", "-fPIC", "-fvisibility=hidden",
                        "-I", os.path.join(SRC, "core", "include"),
                        "-o", os.path.join(out, "my_model.so"),
                        os.path.join(SRC, "template", "my_model.c"), "-lm"],
                       check=True)
        return out

    def test_template_keeps_host_ctx(self):
        """The template (vsweep new-plugin) passes its instance's host_ctx
        to every host service: its model logged "state is not finite"
        with NULL, which the host dropped, so a copy's failed variant
        read "my_model: ERROR at step 18" and the log view was empty.
        Built from the source tree's template and header; at 1e308 m/s
        north with 0.1 s steps, y = k * 1e307 m passes DBL_MAX
        (1.798e308) at step k = 18, t = 1.8 s."""
        calls = []
        for name in ("my_model.c", "my_behaviour.c"):
            with open(os.path.join(SRC, "template", name),
                      encoding="utf-8") as f:
                calls += re.findall(r"host->\w+\(\s*(\w+(?:->\w+)?)",
                                    f.read())
        self.assertTrue(calls)
        self.assertNotIn("NULL", calls)
        out = self.template_model()
        scn = self.write("s.yaml", EGO_3S % "1e308")
        db = self.path("t.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", out)
        self.assertEqual(rc, 1, err)
        self.assertEqual(query(db, "SELECT status, error FROM variant_info"),
                         [("failed", "actor 1 (ego): my_model: state is not "
                           "finite")])
        self.assertEqual(query(db, "SELECT actor_id, t, level, plugin, "
                               "message FROM log"),
                         [(1, 1.8, "error", "my_model",
                           "state is not finite")])


    def test_template_model_starts_at_the_scenario_speed(self):
        """A review: the template's reset set speed and velocity to 0
        ("standing at step 0") although the host's start state carries
        the scenario's speed, so step 1 jumped to the behaviour's speed:
        max_jerk 5e4-1.5e5 m/s^3 in every variant of its sweep. Now step
        0 moves at the start speed, north (yaw 0 faces +Y): vy = 10 m/s,
        and a car held at 10 m/s on a straight never decelerates."""
        out = self.template_model()
        scn = self.write("s.yaml", EGO_3S % "10" + "    behaviour: {plugin: "
                         "constant_steer, params: {steering_wheel_deg: "
                         "0}}\n")
        db = self.path("t.db")
        rc, _, err = run("run", scn, "-o", db, "--plugin-path", out)
        self.assertEqual(rc, 0, err)
        (vx, vy), = query(db, "SELECT vx, vy FROM actor_state "
                              "WHERE step = 0")
        self.assertAlmostEqual(vx, 0.0, places=9)
        self.assertAlmostEqual(vy, 10.0, places=9)
        (decel, jerk), = query(db, "SELECT max_deceleration, max_jerk "
                                   "FROM variant_summary")
        self.assertLess(decel or 0.0, 1e-6)
        self.assertLess(jerk or 0.0, 1e-6)

if __name__ == "__main__":
    unittest.main()
