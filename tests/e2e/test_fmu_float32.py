"""FMI 3.0 FMUs whose ports are Float32, end to end, with the FMU of
tests/fmu/float32.c (a kinematic vehicle in single precision: inputs,
outputs and parameters Float32, one Float64 output), packed here with its
modelDescription.xml (docs/plugins.md, "FMUs at run time"):

- it drives as its equations say: a straight run at v is
  x = x0 - v t sin(yaw0), y = y0 + v t cos(yaw0), a steady steer the arc
  of yaw rate v * steering_wheel / (ratio * wheelbase), to float
  precision (1e-4 of the distance run);
- inputs reach it rounded to the nearest float: its signal speed_seen is
  the commanded 10.1 m/s as a float, stored exactly; its Float64 signal
  dist beside them;
- a Float32 param is set (ratio 30 halves the yaw rate), its range is a
  float's: a sweep value beyond it is refused with the file's line;
- a Float32's start, min and max are xs:floats, compared as the floats
  they are (start 2.7000000476837158 with max 2.7: both 2.7f), and so is
  a scenario's or sweep's value against them: ratio 3.4028235e+38, with
  max written so, is FLT_MAX, which the FMU receives exactly (its output
  ratio_seen); a value whose nearest float is infinite (2^128 - 2^103
  and above) is refused with its line;
- an input a Float32 cannot hold (10.1 m/s in a unit of 1e-38 m/s) fails
  the variant, naming the FMU, the variable, the actor and the value;
- results are bit-identical at -j 1 and -j 2.
"""
import math
import os
import struct
import sys
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import FmuTempDirCase, dump, query  # noqa: E402

FMUS = os.environ["VSWEEP_TEST_FMU_DIR"]
TOKEN = "{float32-7d2a}"

# name, value reference, type, causality, start, unit (float32.c's enum)
VARS = [("speed", 0, "Float32", "input", 0.0, "m/s"),
        ("steering_wheel", 1, "Float32", "input", 0.0, "rad"),
        ("x", 2, "Float32", "output", None, "m"),
        ("y", 3, "Float32", "output", None, "m"),
        ("yaw", 4, "Float32", "output", None, "rad"),
        ("vx", 5, "Float32", "output", None, "m/s"),
        ("vy", 6, "Float32", "output", None, "m/s"),
        ("speed_seen", 7, "Float32", "output", None, "m/s"),
        ("dist", 8, "Float64", "output", None, "m"),
        ("x0", 10, "Float32", "parameter", 0.0, "m"),
        ("y0", 11, "Float32", "parameter", 0.0, "m"),
        ("yaw0", 12, "Float32", "parameter", 0.0, "rad"),
        ("ratio", 13, "Float32", "parameter", 15.0, ""),
        ("wheelbase", 14, "Float32", "parameter", 3.0, "m"),
        ("ratio_seen", 15, "Float32", "output", None, "")]
FIRST_VAR_LINE = 10           # of modelDescription.xml, as pack writes it
UNITS = {"m": 'm="1"', "m/s": 'm="1" s="-1"', "rad": 'rad="1"',
         "fast": 'm="1" s="-1" factor="1e-38"'}

V = 10.1                      # m/s, commanded
FLT_MAX = (2 - 2 ** -23) * 2 ** 127
HALFWAY = 2 ** 128 - 2 ** 103  # to 2^128 from FLT_MAX: rounds to infinity
STEP = 0.01                   # s


def f32(x):
    """x rounded to the nearest float (IEEE single), as a double."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def pack(dst, units=None, attrs=None):
    """Writes the FMU; units maps variable -> unit, attrs variable ->
    attributes written after the others (instead of start, if they have
    one)."""
    units = units or {}
    attrs = attrs or {}
    vs = [(n, vr, t, c, s, units.get(n, u)) for n, vr, t, c, s, u in VARS]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<fmiModelDescription fmiVersion="3.0" modelName="float32" '
             'instantiationToken="%s">' % TOKEN,
             '<CoSimulation modelIdentifier="float32"/>', "<UnitDefinitions>"]
    lines += ['<Unit name="%s"><BaseUnit %s/></Unit>' % (u, UNITS[u])
              for u in sorted({v[5] for v in vs if v[5]})]
    lines += ["</UnitDefinitions>", "<ModelVariables>"]
    for n, vr, t, c, s, u in vs:
        var = ' variability="tunable"' if c == "parameter" else ""
        st = ' start="%r"' % s if s is not None else ""
        ex = " " + attrs[n] if n in attrs else ""
        if "start=" in ex:
            st = ""
        un = ' unit="%s"' % u if u else ""
        lines.append('<%s name="%s" valueReference="%d" causality="%s"%s%s%s%s/>'
                     % (t, n, vr, c, var, st, un, ex))
    lines += ["</ModelVariables>", "</fmiModelDescription>"]
    with zipfile.ZipFile(dst, "w") as z:
        z.writestr("modelDescription.xml", "\n".join(lines) + "\n")
        z.write(os.path.join(FMUS, "float32.so"),
                "binaries/x86_64-linux/float32.so")
    return dst


def scenario_text(fmu, params="{}", steer_deg=None, duration=2):
    beh = ("\n    behaviour: {plugin: constant_steer, params: "
           "{steering_wheel_deg: %r}}" % steer_deg
           if steer_deg is not None else "")
    return ("vsweep: 1\nname: f32\nstep: %r\nduration: %r\nassets:\n"
            "  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,"
            "\n          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}"
            "\nactors:\n  - id: 1\n    asset: sedan\n    start: {position: "
            "[5, 7, 0], yaw: 0.3}\n    speed: %r\n    vehicle_model: "
            "{fmu: %s, params: %s}%s\n"
            % (STEP, duration, V, fmu, params, beh))


class FmuFloat32Test(FmuTempDirCase):
    def run_one(self, text, *extra):
        s = self.write("s.yaml", text)
        db = self.path("r.db")
        if os.path.exists(db):
            os.remove(db)
        rc, _, err = self.vsweep("run", s, "-o", db, *extra)
        return rc, err, db

    def test_straight_run_as_its_equations_say(self):
        fmu = pack(self.path("f.fmu"))
        rc, err, db = self.run_one(scenario_text(fmu), "--record",
                                   "signals")
        self.assertEqual(rc, 0, err)
        v = f32(V)                      # what the FMU was given
        yaw0 = 0.3
        rows = query(db, "SELECT step, x, y, yaw, vx, vy FROM actor_state "
                     "ORDER BY step")
        self.assertEqual(len(rows), 201)
        for step, x, y, yaw, vx, vy in rows:
            d = v * STEP * step
            tol = 1e-4 * d + 1e-6
            self.assertAlmostEqual(x, 5 - d * math.sin(yaw0), delta=tol)
            self.assertAlmostEqual(y, 7 + d * math.cos(yaw0), delta=tol)
            self.assertAlmostEqual(yaw, yaw0, delta=1e-7)
            if step:
                self.assertAlmostEqual(vx, -v * math.sin(yaw0),
                                       delta=1e-4 * v)
                self.assertAlmostEqual(vy, v * math.cos(yaw0),
                                       delta=1e-4 * v)
        # the Float32 signal: 10.1 m/s as the nearest float, exactly
        seen = query(db, "SELECT step, value FROM actor_signal WHERE name "
                     "= 'fmu.speed_seen' AND step > 0")
        self.assertEqual(len(seen), 200)
        self.assertNotEqual(f32(V), V)
        for _, value in seen:
            self.assertEqual(value, f32(V))
        # the Float64 signal beside it: v t, summed in double
        for step, value in query(db, "SELECT step, value FROM actor_signal "
                                 "WHERE name = 'fmu.dist'"):
            self.assertAlmostEqual(value, v * STEP * step,
                                   delta=1e-12 * (1 + step))
        units = dict(query(db, "SELECT name, unit FROM signal_name"))
        self.assertEqual(units.get("fmu.speed_seen"), "m/s")

    def circle(self, db, ratio):
        """Positions on the arc of yaw rate v sw / (ratio l) from (5, 7)
        at yaw 0.3, 30 degrees of steering wheel, to 1e-4 of the way."""
        v, sw, yaw0 = f32(V), math.radians(30), 0.3
        w = v * sw / (ratio * 3.0)
        rows = query(db, "SELECT step, x, y, yaw FROM actor_state "
                     "ORDER BY step")
        self.assertEqual(len(rows), 201)
        for step, x, y, yaw in rows:
            t = STEP * step
            tol = 1e-4 * v * t + 1e-6
            self.assertAlmostEqual(
                x, 5 + v / w * (math.cos(yaw0 + w * t) - math.cos(yaw0)),
                delta=tol)
            self.assertAlmostEqual(
                y, 7 + v / w * (math.sin(yaw0 + w * t) - math.sin(yaw0)),
                delta=tol)
            self.assertAlmostEqual(yaw, yaw0 + w * t, delta=1e-5)

    def test_steady_steer_and_float32_param(self):
        fmu = pack(self.path("f.fmu"))
        rc, err, db = self.run_one(scenario_text(fmu, steer_deg=30))
        self.assertEqual(rc, 0, err)
        self.circle(db, 15.0)
        rc, err, db = self.run_one(scenario_text(fmu, "{ratio: 30}",
                                                 steer_deg=30))
        self.assertEqual(rc, 0, err)
        self.circle(db, 30.0)

    def test_float32_param_range_is_a_floats(self):
        fmu = pack(self.path("f.fmu"))
        s = self.write("s.yaml", scenario_text(fmu))
        sw = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: vehicle_model.ratio, "
                        "values: [15, 1e39]}\n")
        rc, out, err = self.vsweep("check", s, "--sweep", sw)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(sw + ":5:", err)
        # the range: every double whose nearest float is a float, up to
        # the last below the halfway point between FLT_MAX and 2^128
        # (there the tie goes to 2^128: infinite), named exactly
        top = repr(2.0 ** 128 - 2.0 ** 103 - 2.0 ** 75)
        self.assertIn("ratio = 1e+39 is outside [-%s, %s]" % (top, top), err)
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 0, err)
        line, = [l for l in out.splitlines()
                 if l.lstrip().startswith("ratio ")]
        self.assertIn("Float32", line)

    def sweep(self, param, *values):
        return self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                          "  - grid:\n      - {actor: 1, param: "
                          "vehicle_model.%s, values: [%s]}\n"
                          % (param, ", ".join(values)))

    def test_float32_start_and_range_compared_as_floats(self):
        # 2.7000000476837158 is 2.7f, to 17 digits; so is 2.7
        self.assertEqual(f32(2.7), 2.7000000476837158)
        fmu = pack(self.path("f.fmu"), attrs={
            "wheelbase": 'start="2.7000000476837158" min="0.5" max="2.7"'})
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 0, err)
        s = self.write("s.yaml", scenario_text(fmu))
        # 2.7000001 is 2.7f too; 2.7000003 is the float after it
        self.assertEqual(f32(2.7000001), f32(2.7))
        self.assertGreater(f32(2.7000003), f32(2.7))
        rc, out, err = self.vsweep("check", s, "--sweep",
                                   self.sweep("wheelbase", "2.7000001"))
        self.assertEqual(rc, 0, out + err)
        sw = self.sweep("wheelbase", "2.7000001", "2.7000003")
        rc, out, err = self.vsweep("check", s, "--sweep", sw)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(sw + ":5:", err)
        self.assertIn("wheelbase = 2.7000003 is outside", err)
        # a start beyond max as floats is still refused, with its line,
        # shown as floats to 9 digits
        fmu = pack(self.path("g.fmu"), attrs={
            "wheelbase": 'start="2.7000003" min="0.5" max="2.7"'})
        line = FIRST_VAR_LINE + [v[0] for v in VARS].index("wheelbase")
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("g.fmu: modelDescription.xml:%d: parameter "
                      "'wheelbase' has start %.9g (as a Float32), outside "
                      "its range [0.5, %.9g]"
                      % (line, f32(2.7000003), f32(2.7)), err)

    def test_float32_param_at_flt_max(self):
        self.assertEqual(f32(3.4028235e+38), FLT_MAX)
        fmu = pack(self.path("f.fmu"), attrs={
            "ratio": 'start="15" min="-3.4028235e+38" max="3.4028235e+38"'})
        rc, err, db = self.run_one(scenario_text(fmu, "{ratio: 3.4028235e+38}",
                                                 duration=0.1),
                                   "--record", "signals")
        self.assertEqual(rc, 0, err)
        seen = query(db, "SELECT value FROM actor_signal WHERE name = "
                     "'fmu.ratio_seen' AND step > 0")
        self.assertEqual(len(seen), 10)
        for value, in seen:
            self.assertEqual(value, FLT_MAX)
        s = self.write("s.yaml", scenario_text(fmu))
        # the double below halfway rounds to FLT_MAX and is taken
        below = "%.17g" % math.nextafter(HALFWAY, 0)
        self.assertEqual(f32(float(below)), FLT_MAX)
        rc, out, err = self.vsweep("check", s, "--sweep",
                                   self.sweep("ratio", "15", below))
        self.assertEqual(rc, 0, out + err)
        # halfway itself rounds to infinity (FLT_MAX's last bit is 1),
        # as does 3.4028236e+38; each is refused with its line
        for v in ("%.17g" % HALFWAY, "3.4028236e+38", "-3.4028236e+38"):
            self.assertGreaterEqual(abs(float(v)), HALFWAY)
            sw = self.sweep("ratio", "15", v)
            rc, out, err = self.vsweep("check", s, "--sweep", sw)
            self.assertEqual(rc, 2, out + err)
            self.assertIn(sw + ":5:", err)
            self.assertIn("ratio = %.15g is outside" % float(v), err)

    def test_input_beyond_a_float_fails_the_variant(self):
        fmu = pack(self.path("f.fmu"), units={"speed": "fast"})
        rc, err, db = self.run_one(scenario_text(fmu))
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM "
                                 "variant_info")
        self.assertEqual(status, "failed")
        # 10.1 m/s in units of 1e-38 m/s: beyond FLT_MAX, 3.40282347e38
        value = "%.17g" % (V / 1e-38)
        for part in (fmu, "actor 1", "variable 'speed'", "Float32",
                     value + " fast", "nearest float is infinite"):
            self.assertIn(part, error)

    def test_same_results_whatever_j(self):
        fmu = pack(self.path("f.fmu"))
        s = self.write("s.yaml", scenario_text(fmu, steer_deg=30,
                                               duration=1))
        sw = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: vehicle_model.ratio, "
                        "values: [12.5, 15, 20, 30]}\n")
        dumps = []
        for j in ("1", "2"):
            db = self.path("j%s.db" % j)
            rc, _, err = self.vsweep("run", s, "--sweep", sw, "-o", db,
                                     "-j", j, "--record", "signals")
            self.assertEqual(rc, 0, err)
            dumps.append(dump(db))
        self.assertEqual(dumps[0], dumps[1])
        self.assertEqual(len(dumps[0]["variant"]), 4)


if __name__ == "__main__":
    unittest.main()
