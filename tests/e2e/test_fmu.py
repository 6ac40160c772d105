"""FMUs as vehicle models, end to end, with the test FMUs meson builds
from tests/fmu/single_track.c (the linear single-track model):

- FMI 2.0 and 3.0, with x0/y0/yaw0 (world frame) and without (placed by
  the start pose): the trajectory of a 20 s step-steer equals
  bicycle_linear's with the same parameters to 1e-9 m, and the FMU's
  other outputs are signals fmu.NAME, each with the unit
  modelDescription.xml declares (its declaredType's when it has none);
- a sweep over param: vehicle_model.m moves the steady CG radius as the
  closed form (1 + A V^2) l / delta says;
- each malformed FMU gives a clear message (exit 2), an FMU returning
  Error fails its variant with the FMU's message (exit 1);
- an FMU instantiable once per process runs its variants one at a time;
- the unpacked directory is gone after the run, also after SIGINT;
- a resume refuses a changed FMU; `vsweep plugins --fmu` lists it.
"""
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import VSWEEP, FmuTempDirCase, query  # noqa: E402
from test_dynamics import fit_circle  # noqa: E402

FMUS = os.environ["VSWEEP_TEST_FMU_DIR"]
M, L, LF, KF, KR, IZ = 2000.0, 3.0, 1.4, 30e3, 30e3, 3000.0
V = 15.0                                  # m/s
DELTA = math.radians(30) / 15             # rad, road wheels
FRONT_AXLE_Y = 4.8 / 2 - 0.9              # m, the sedan's (actor frame)
CG_Y = FRONT_AXLE_Y - LF                  # m, CG ahead of the origin

SCENARIO = """vsweep: 1
name: fmu
step: 0.01
duration: %(duration)s
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [10, -5, 0], yaw: 0.7}
    speed: 15
    vehicle_model: %(model)s
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
"""
LINEAR = ("{plugin: bicycle_linear, params: {m: 2000, lf: 1.4, Kf: 30e3, "
          "Kr: 30e3, Iz: 3000, steering_ratio: 15}}")


def fmu_model(path, extra=""):
    return ("{fmu: %s, params: {m: 2000, lf: 1.4, l: 3.0, cg_y: %r%s}}"
            % (path, CG_Y, extra))


def rezip(src, dst, edit=None, drop=(), rename=None):
    """Copies the FMU src to dst; edit(text) rewrites modelDescription.xml,
    drop lists entries to leave out, rename maps entry names."""
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for info in zi.infolist():
            if info.filename in drop:
                continue
            data = zi.read(info.filename)
            if info.filename == "modelDescription.xml" and edit:
                data = edit(data.decode()).encode()
            name = (rename or {}).get(info.filename, info.filename)
            zo.writestr(name, data)
    return dst


def md_line(fmu, text):
    """The line of modelDescription.xml in fmu where text first is."""
    with zipfile.ZipFile(fmu) as z:
        md = z.read("modelDescription.xml").decode()
    return md[:md.index(text)].count("\n") + 1


def edit_once(old, new):
    """An edit for rezip replacing the first old (which must be there)."""
    def edit(text):
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


class FmuTest(FmuTempDirCase):
    def fmu(self, name):
        return os.path.join(FMUS, name + ".fmu")

    def scenario(self, model, duration=20, name="s.yaml"):
        return self.write(name, SCENARIO % dict(model=model,
                                                 duration=duration))

    def states(self, db):
        return query(db, "SELECT step, x, y, yaw, wz FROM actor_state "
                     "ORDER BY step")

    def test_same_trajectory_as_native(self):
        ref = self.path("ref.db")
        rc, _, err = self.vsweep("run", self.scenario(LINEAR), "-o", ref,
                                 "--record", "signals")
        self.assertEqual(rc, 0, err)
        want = self.states(ref)
        beta = dict(query(ref, "SELECT step, value FROM actor_signal WHERE "
                          "name = 'bicycle_linear.beta'"))
        self.assertEqual(len(want), 2001)
        for name in ("st2_start", "st2_local", "st3_start", "st3_local"):
            db = self.path(name + ".db")
            rc, _, err = self.vsweep(
                "run", self.scenario(fmu_model(self.fmu(name))), "-o", db,
                "--record", "signals")
            self.assertEqual(rc, 0, name + err)
            got = self.states(db)
            self.assertEqual(len(got), len(want), name)
            worst = max(max(abs(a[1] - b[1]), abs(a[2] - b[2]))
                        for a, b in zip(got, want))
            self.assertLess(worst, 1e-9, name)
            for a, b in zip(got, want):
                self.assertAlmostEqual(a[3], b[3], delta=1e-12)
                self.assertAlmostEqual(a[4], b[4], delta=1e-9)
            # the FMU's other outputs are signals
            fb = dict(query(db, "SELECT step, value FROM actor_signal "
                            "WHERE name = 'fmu.beta'"))
            self.assertEqual(len(fb), 2001, name)
            self.assertLess(max(abs(fb[k] - beta[k]) for k in beta), 1e-12)
            names = {n for (n,) in query(db, "SELECT DISTINCT name FROM "
                                         "actor_signal")}
            self.assertEqual(names, {"fmu." + n for n in (
                "beta", "yaw_rate", "ay", "alpha_f", "alpha_r", "Fyf",
                "Fyr")})
            kind = query(db, "SELECT vehicle_model FROM actor_info")
            self.assertEqual(kind, [("fmu",)])

    def md_units(self, fmu):
        """Each Real output's unit as fmu's modelDescription.xml declares
        it on the variable (FMI 2.0: its <Real>; 3.0: the <Float64>)."""
        import xml.etree.ElementTree as ET
        with zipfile.ZipFile(fmu) as z:
            root = ET.fromstring(z.read("modelDescription.xml"))
        out = {}
        for v in root.find("ModelVariables"):
            if v.get("causality") != "output":
                continue
            t = v.find("Real") if v.tag == "ScalarVariable" else v
            out["fmu." + v.get("name")] = t.get("unit", "")
        return out

    def test_signal_units(self):
        """An FMU's signals carry the units its modelDescription.xml
        declares (make_fmu.py: beta rad, ay m/s2, Fyf N); a variable
        without a unit of its own takes its declaredType's, and a unit
        with a display unit (deg) is stored as the unit the FMU computes
        in (rad), the values unchanged."""
        got = {}
        for name in ("st2_start", "st3_local"):
            db = self.path(name + ".db")
            rc, _, err = self.vsweep(
                "run", self.scenario(fmu_model(self.fmu(name)), 0.2), "-o",
                db, "--record", "signals")
            self.assertEqual(rc, 0, name + err)
            got[name] = dict(query(db, "SELECT DISTINCT name, unit FROM "
                                   "actor_signal"))
            want = self.md_units(self.fmu(name))
            self.assertEqual(got[name],
                             {n: u for n, u in want.items() if n in got[name]})
            self.assertEqual(len(got[name]), 7, name)
            for n, u in (("beta", "rad"), ("ay", "m/s2"), ("Fyf", "N")):
                self.assertEqual(got[name]["fmu." + n], u, name)
        typed = rezip(self.fmu("st2_start"), self.path("typed.fmu"),
                      edit_once('<Unit name="rad"><BaseUnit rad="1"/></Unit>',
                                '<Unit name="rad"><BaseUnit rad="1"/>'
                                '<DisplayUnit name="deg" '
                                'factor="57.29577951308232"/></Unit>'))
        typed = rezip(typed, self.path("typed2.fmu"), edit_once(
            "  <ModelVariables>",
            '  <TypeDefinitions>\n    <SimpleType name="Angle"><Real '
            'quantity="Angle" unit="rad" displayUnit="deg"/></SimpleType>'
            '\n    <SimpleType name="Rate"><Real unit="deg/s"/>'
            '</SimpleType>\n  </TypeDefinitions>\n  <ModelVariables>'))
        typed = rezip(typed, self.path("typed3.fmu"), edit_once(
            'description="CG sideslip">\n      <Real unit="rad"/>',
            'description="CG sideslip">\n      <Real declaredType="Angle" '
            'displayUnit="deg"/>'))
        def own_unit(text):  # yaw_rate's, not wz's (both "yaw rate")
            at = text.index('name="yaw_rate"')
            return text[:at] + text[at:].replace(
                '<Real unit="rad/s"/>',
                '<Real declaredType="Rate" unit="rad/s"/>', 1)
        typed = rezip(typed, self.path("typed4.fmu"), own_unit)
        db = self.path("typed.db")
        rc, _, err = self.vsweep(
            "run", self.scenario(fmu_model(typed), 0.2, "t.yaml"), "-o", db,
            "--record", "signals")
        self.assertEqual(rc, 0, err)
        units = dict(query(db, "SELECT name, unit FROM signal_name"))
        self.assertEqual(units["fmu.beta"], "rad")
        self.assertEqual(units["fmu.yaw_rate"], "rad/s")
        sql = ("SELECT step, value FROM actor_signal WHERE name = 'fmu.beta'"
               " ORDER BY step")
        self.assertEqual(query(db, sql),
                         query(self.path("st2_start.db"), sql))

    def test_two_fmus_one_signal_two_units_refused(self):
        """Every FMU stores its outputs as fmu.NAME; two different FMUs
        declaring beta in rad and in deg would store one name with one
        unit for both actors' values: --record signals refuses it (exit
        2, naming both actors, files and units); recording what does not
        clash, or one FMU on both actors, runs."""
        a = self.fmu("st2_start")
        b = rezip(a, self.path("deg.fmu"), edit_once(
            'description="CG sideslip">\n      <Real unit="rad"/>',
            'description="CG sideslip">\n      <Real unit="deg"/>'))
        two = SCENARIO % dict(model=fmu_model(a), duration=0.2) + (
            "  - id: 2\n    name: other\n    asset: sedan\n"
            "    start: {position: [10, 50, 0], yaw: 0.7}\n    speed: 15\n"
            "    vehicle_model: %s\n    behaviour: {plugin: constant_steer, "
            "params: {steering_wheel_deg: 30}}\n" % fmu_model(b))
        s = self.write("two.yaml", two)
        for record in ("signals", "signals=fmu.beta,fmu.ay"):
            for cmd in ("run", "check"):
                with self.subTest(record=record, cmd=cmd):
                    db = self.path("two.db")
                    rc, _, err = self.vsweep(cmd, s, "-o", db, "--record",
                                             record)
                    self.assertEqual(rc, 2, err)
                    self.assertIn(
                        "vsweep: --record signals: actor 1 (actor1) and "
                        "actor 2 (other) store 'fmu.beta' in 'rad' (%s) and "
                        "in 'deg' (%s), but a signal has one unit in the "
                        "results file" % (a, b), err)
                    self.assertFalse(os.path.exists(db))
        db = self.path("ay.db")
        rc, _, err = self.vsweep("run", s, "-o", db, "--record",
                                 "signals=fmu.ay")
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT DISTINCT actor_id, unit FROM "
                               "actor_signal ORDER BY 1"),
                         [(1, "m/s2"), (2, "m/s2")])
        same = self.write("same.yaml", two.replace(fmu_model(b),
                                                   fmu_model(a)))
        rc, _, err = self.vsweep("run", same, "-o", self.path("same.db"),
                                 "--record", "signals")
        self.assertEqual(rc, 0, err)

    def test_sweep_fmu_mass(self):
        masses = [1500.0, 2000.0, 2500.0]
        sweep = self.write("m.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                           "  - grid:\n      - {actor: 1, param: "
                           "vehicle_model.m, values: %s}\n" % masses)
        db = self.path("r.db")
        rc, _, err = self.vsweep(
            "run", self.scenario(fmu_model(self.fmu("st3_start")), 30),
            "--sweep", sweep, "-o", db, "-j", "2")
        self.assertEqual(rc, 0, err)
        # the swept parameter's unit and the seed's value: the FMU's
        # modelDescription (make_fmu.py) declares m in kg, Kf in N/rad
        self.assertEqual(query(db, "SELECT name, unit, value, plugin FROM "
                               "actor_param WHERE actor_id = 1 AND role = "
                               "'vehicle_model' AND name IN ('m', 'Kf') "
                               "ORDER BY name"),
                         [("Kf", "N/rad", 30000.0, "fmu:st3_start.fmu"),
                          ("m", "kg", 2000.0, "fmu:st3_start.fmu")])
        radii = []
        for vid, m in enumerate(masses):
            pm = query(db, "SELECT json_extract(params, "
                       "'$.actor1.vehicle_model.m') FROM variant_info "
                       "WHERE variant_id = ?", vid)[0][0]
            self.assertEqual(float(pm), m)
            rows = query(db, "SELECT x, y, yaw FROM actor_state WHERE "
                         "variant_id = ? AND step >= 2000", vid)
            cg = [(x + CG_Y * math.cos(yaw + math.pi / 2),
                   y + CG_Y * math.sin(yaw + math.pi / 2))
                  for x, y, yaw in rows]
            _, _, r = fit_circle(cg)
            a = -m / (2 * L * L) * (LF * KF - (L - LF) * KR) / (KF * KR)
            want = (1 + a * V * V) * L / DELTA
            self.assertAlmostEqual(r, want, delta=1e-3 * want)
            radii.append(r)
        self.assertLess(radii[0], radii[1])
        self.assertLess(radii[1], radii[2])

    def test_malformed(self):
        good = self.fmu("st2_start")
        good3 = self.fmu("st3_start")
        p = self.path
        cases = [
            ("not a zip", lambda: self.write("a.fmu", "hello"),
             "", "not an FMU: not a zip archive"),
            ("missing file", lambda: p("nowhere.fmu"), "",
             "cannot open the FMU"),
            ("no modelDescription",
             lambda: rezip(good, p("b.fmu"), drop={"modelDescription.xml"}),
             "", "the archive has no modelDescription.xml"),
            ("wrong FMI version",
             lambda: rezip(good, p("c.fmu"), edit=lambda t: t.replace(
                 'fmiVersion="2.0"', 'fmiVersion="1.0"')),
             "", 'fmiVersion "1.0" is not supported'),
            # the standard requires the token the FMU checks at
            # instantiation: without it every variant would fail there
            ("no guid (FMI 2.0)",
             lambda: rezip(good, p("c2.fmu"), edit=lambda t: re.sub(
                 r' guid="[^"]*"', "", t, count=1)),
             "", "modelDescription.xml:2: fmiModelDescription has no guid "
                 "(FMI 2.0 requires it)"),
            ("no instantiationToken (FMI 3.0)",
             lambda: rezip(good3, p("c3.fmu"), edit=lambda t: re.sub(
                 r' instantiationToken="[^"]*"', "", t, count=1)),
             "", "modelDescription.xml:2: fmiModelDescription has no "
                 "instantiationToken (FMI 3.0 requires it)"),
            # the 64 MiB of every input file; within it libxml2's own
            # limits are lifted, so no entity may be declared
            ("larger than the limit",
             lambda: rezip(good, p("c4.fmu"), edit=lambda t: t.replace(
                 "<CoSimulation", "<!--%s-->\n<CoSimulation"
                 % ("x" * (64 << 20)), 1)),
             "", "modelDescription.xml: larger than the 64 MiB limit"),
            ("an entity declared",
             lambda: rezip(good, p("c5.fmu"), edit=lambda t: t.replace(
                 "<fmiModelDescription", '<!DOCTYPE fmiModelDescription '
                 '[<!ENTITY g "{x}">]>\n<fmiModelDescription', 1)),
             "", "modelDescription.xml:2: entity declaration 'g': a model "
                 "description needs no entities, and vsweep reads none"),
            ("not well-formed",
             lambda: rezip(good, p("d.fmu"), edit=lambda t: t[:-30]),
             "", "not well-formed XML"),
            ("no binary for this platform",
             lambda: rezip(good, p("e.fmu"), rename={
                 "binaries/linux64/st2_start.so":
                     "binaries/win64/st2_start.dll"}),
             "", "no binary for this platform: the archive has no "
                 "binaries/linux64/st2_start.so (it has binaries for: "
                 "win64)"),
            ("missing required output",
             lambda: rezip(good, p("f.fmu"), edit=lambda t: t.replace(
                 'name="yaw"', 'name="heading"')),
             "", "not a vehicle model: it has no Real output 'yaw'"),
            ("missing required output (FMI 3.0: its own types)",
             lambda: rezip(good3, p("f3.fmu"), edit=lambda t: t.replace(
                 'name="yaw"', 'name="heading"')),
             "", "not a vehicle model: it has no Float64 or Float32 output "
                 "'yaw'"),
            ("mapped to nothing (FMI 3.0)", lambda: good3,
             ", variables: {yaw: psi}", "variables: yaw -> 'psi': the FMU "
             "has no Float64 or Float32 output"),
            ("unknown variables name", lambda: good,
             ", variables: {psi: yaw}",
             "variables: 'psi' is not a name vsweep exchanges"),
            ("mapped to nothing", lambda: good, ", variables: {yaw: psi}",
             "variables: yaw -> 'psi': the FMU has no Real output"),
            ("non-finite start (FMI 2.0)",
             lambda: rezip(good, p("i.fmu"), edit=edit_once(
                 '<Real start="3000.0"', '<Real start="nan"')),
             "", "modelDescription.xml:%d: variable 'Iz' has start \"nan\", "
                 "which is not a finite number (FMI 2.0 allows no NaN or "
                 "INF in modelDescription.xml)"
                 % md_line(good, '<Real start="3000.0"')),
            ("start beyond a double (FMI 3.0)",
             lambda: rezip(good3, p("j.fmu"), edit=edit_once(
                 'start="3000.0"', 'start="1e999"')),
             "", "modelDescription.xml:%d: variable 'Iz' has start "
                 "\"1e999\", which is beyond the range of a double"
                 % md_line(good3, 'start="3000.0"')),
            ("start not a number",
             lambda: rezip(good, p("k.fmu"), edit=edit_once(
                 '<Real start="3000.0"', '<Real start="1.5x"')),
             "", "variable 'Iz' has start \"1.5x\", which is not a number"),
            ("two variables of one name",
             lambda: rezip(good, p("l.fmu"), edit=edit_once(
                 'name="lf"', 'name="Iz"')),
             "", "modelDescription.xml:%d: the name 'Iz' is declared twice "
                 "(first on line %d): variable names must be unique"
                 % (md_line(good, 'name="lf"'), md_line(good, 'name="Iz"'))),
            ("two variables of one name (FMI 3.0)",
             lambda: rezip(good3, p("m.fmu"), edit=edit_once(
                 'name="lf"', 'name="Iz"')),
             "", "modelDescription.xml:%d: the name 'Iz' is declared twice"
                 % md_line(good3, 'name="lf"')),
            ("two parameters of one valueReference",
             lambda: rezip(good, p("n.fmu"), edit=edit_once(
                 'name="lf" valueReference="18"',
                 'name="lf" valueReference="17"')),
             "", "variable 'lf' has valueReference 17, as has 'Iz' on line "
                 "%d, and both are set from outside"
                 % md_line(good, 'name="Iz"')),
            ("two variables of one valueReference (FMI 3.0)",
             lambda: rezip(good3, p("o.fmu"), edit=edit_once(
                 'name="beta" valueReference="9"',
                 'name="beta" valueReference="10"')),
             "", "variable 'yaw_rate' has valueReference 10, as has 'beta' "
                 "on line %d: FMI 3.0 requires unique value references"
                 % md_line(good3, 'name="beta"')),
            ("unknown causality",
             lambda: rezip(good, p("q.fmu"), edit=edit_once(
                 'causality="parameter"', 'causality="param"')),
             "", "has causality \"param\", which FMI 2.0 does not know"),
            ("climbing archive entry",
             lambda: rezip(good, p("g.fmu"), rename={
                 "modelDescription.xml": "../modelDescription.xml"}),
             "", "refusing archive entry '../modelDescription.xml'"),
        ]
        for what, make, variables, says in cases:
            with self.subTest(what):
                path = make()
                text = SCENARIO % dict(duration=1, model=(
                    "{fmu: %s, params: {m: 2000}%s}" % (path, variables)))
                s = self.write("bad.yaml", text)
                rc, out, err = self.vsweep("check", s)
                self.assertEqual(rc, 2, err)
                self.assertIn(says, err)
                self.assertIn("bad.yaml:13:", err)  # the fmu: key
                self.assertEqual(err.count("\n"), 1, err)
        # an unknown param lists the FMU's
        s = self.scenario(fmu_model(good, ", mass: 3"), 1)
        rc, _, err = self.vsweep("check", s)
        self.assertEqual(rc, 2)
        self.assertIn("has no param 'mass'; its params: m, Iz, lf, Kf, "
                      "Kr, steering_ratio, max_steer_deg, l, cg_y", err)

    def test_long_comment_loads(self):
        # a comment over 10 MB, libxml2's own limit, was refused as
        # "Comment too big" in a file well within the 64 MiB limit
        fmu = rezip(self.fmu("st2_start"), self.path("c.fmu"),
                    edit=edit_once("<CoSimulation", "<!--%s-->\n<CoSimulation"
                                   % ("x" * 12 * 10**6)))
        s = self.scenario("{fmu: %s, params: {m: 2000}}" % fmu, 1)
        rc, _, err = self.vsweep("check", s)
        self.assertEqual((rc, err), (0, ""))

    def test_bad_variable_refused_by_every_command(self):
        """A non-finite start (FMI 2.0) or a repeated name is refused
        before anything runs: by plugins --fmu, check and run alike, with
        exit status 2 and the line of modelDescription.xml."""
        good = self.fmu("st2_start")
        bad = {
            "nan": (rezip(good, self.path("nan.fmu"), edit=edit_once(
                '<Real start="3000.0"', '<Real start="nan"')),
                "nan.fmu: modelDescription.xml:%d: variable 'Iz' has start "
                "\"nan\"" % md_line(good, '<Real start="3000.0"')),
            "twice": (rezip(good, self.path("twice.fmu"), edit=edit_once(
                'name="lf"', 'name="Iz"')),
                "twice.fmu: modelDescription.xml:%d: the name 'Iz' is "
                "declared twice" % md_line(good, 'name="lf"')),
        }
        for what, (fmu, says) in bad.items():
            with self.subTest(what):
                rc, out, err = self.vsweep("plugins", "--fmu", fmu)
                self.assertEqual(rc, 2, err)
                self.assertIn(says, err)
                self.assertEqual(out, "")
                s = self.scenario(fmu_model(fmu, ", Iz: 4000"), 1)
                rc, _, err = self.vsweep("check", s)
                self.assertEqual(rc, 2, err)
                self.assertIn(says, err)
                db = self.path(what + ".db")
                rc, _, err = self.vsweep("run", s, "-o", db)
                self.assertEqual(rc, 2, err)
                self.assertIn(says, err)

    def test_fmi3_infinite_start_is_not_a_param(self):
        """FMI 3.0 allows start="INF": the FMU is used, and the parameter
        keeps the FMU's own value, for a param needs a finite default;
        the listing says why it is not one."""
        fmu = rezip(self.fmu("st3_start"), self.path("inf.fmu"),
                    edit=edit_once('start="3000.0"', 'start="INF"'))
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 0, err)
        iz = [ln for ln in out.splitlines() if ln.startswith("  Iz ")]
        self.assertEqual(len(iz), 1, out)
        self.assertRegex(iz[0], r"start inf .*not settable \(start not "
                                r"finite\)")
        rc, _, err = self.vsweep("check", self.scenario(fmu_model(fmu), 1))
        self.assertEqual(rc, 0, err)
        rc, _, err = self.vsweep("check", self.scenario(
            fmu_model(fmu, ", Iz: 4000"), 1))
        self.assertEqual(rc, 2, err)
        self.assertIn("has no param 'Iz'", err)

    def test_renamed_variable(self):
        fmu = rezip(self.fmu("st3_start"), self.path("h.fmu"),
                    edit=lambda t: t.replace('name="yaw"', 'name="psi"'))
        db = self.path("r.db")
        rc, _, err = self.vsweep("run", self.scenario(
            fmu_model(fmu).replace("}}", "}, variables: {yaw: psi}}"), 1),
            "-o", db)
        self.assertEqual(rc, 0, err)
        yaw = query(db, "SELECT yaw FROM actor_state WHERE step = 100")[0][0]
        self.assertNotAlmostEqual(yaw, 0.7, delta=1e-3)  # it turned

    def test_fmu_error_fails_variant(self):
        db = self.path("r.db")
        s = self.scenario(fmu_model(self.fmu("st2_fail"),
                                    ", fail_time: 2.5"), 5)
        rc, _, err = self.vsweep("run", s, "-o", db)
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM "
                                 "variant_info")
        self.assertEqual(status, "failed")
        self.assertIn("simulated failure at t = 2.5 s", error)
        self.assertIn("actor 1", error)
        # rows up to the step before, and the message in the log view
        self.assertEqual(query(db, "SELECT max(step) FROM actor_state"),
                         [(249,)])
        self.assertEqual(query(db, "SELECT t, level, plugin FROM log"),
                         [(2.5, "error", "fmu")])
        self.assertIn("simulated failure", err)

    def test_fmu_warning_is_logged(self):
        db = self.path("r.db")
        s = self.scenario(fmu_model(self.fmu("st2_fail"),
                                    ", warn_time: 0.5"), 1)
        rc, _, err = self.vsweep("run", s, "-o", db)
        self.assertEqual(rc, 0, err)
        self.assertEqual(query(db, "SELECT status FROM variant_info"),
                         [("done",)])
        self.assertEqual(query(db, "SELECT t, level, plugin, message FROM "
                               "log"),
                         [(0.5, "warning", "fmu", "single_track: simulated "
                           "warning at t = 0.5 s (warn_time)")])
        self.assertIn("simulated warning", err)

    def test_once_per_process(self):
        sweep = self.write("m.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                           "  - grid:\n      - {actor: 1, param: "
                           "vehicle_model.m, values: [1500, 1800, 2100, "
                           "2400]}\n")
        # Uncontained, every worker is this process: one at a time.
        self.env["VSWEEP_NO_CONTAINMENT"] = "1"
        db = self.path("r.db")
        rc, _, err = self.vsweep("run", self.scenario(
            fmu_model(self.fmu("st3_once")), 2), "--sweep", sweep, "-o", db,
            "-j", "2")
        self.assertEqual(rc, 0, err)
        self.assertIn("may be instantiated only once per process: "
                      "variants run one at a time", err)
        self.assertEqual(query(db, "SELECT count(*) FROM variant_info "
                               "WHERE status = 'done'"), [(4,)])
        # the progress lines for a log say so too
        db2 = self.path("r2.db")
        rc, _, err = self.vsweep("run", self.scenario(
            fmu_model(self.fmu("st3_once")), 2), "--sweep", sweep, "-o", db2,
            "-j", "2", "--progress", "--progress-interval", "0.1")
        self.assertEqual(rc, 0, err)
        lines = [l for l in err.splitlines() if "variants (" in l]
        self.assertTrue(lines, err)
        for l in lines:
            self.assertTrue(l.endswith("; one at a time: st3_once.fmu runs "
                                       "once per process"), l)
        # Contained, each worker's child is a process of its own: -j 2
        # holds, and the rows are those of -j 1.
        del self.env["VSWEEP_NO_CONTAINMENT"]
        db3 = self.path("r3.db")
        saved = os.environ.pop("VSWEEP_NO_CONTAINMENT", None)  # sanitizers
        try:
            rc, _, err = self.vsweep("run", self.scenario(
                fmu_model(self.fmu("st3_once")), 2), "--sweep", sweep, "-o",
                db3, "-j", "2")
        finally:
            if saved is not None:
                os.environ["VSWEEP_NO_CONTAINMENT"] = saved
        self.assertEqual(rc, 0, err)
        self.assertNotIn("one at a time", err)
        rows = "SELECT * FROM actor_state ORDER BY variant_id, step"
        self.assertEqual(query(db3, rows), query(db, rows))

    def test_once_per_process_two_actors_refused(self):
        # Two actors on one such FMU: a variant would need two instances
        # in its process. Refused when the scenario is read.
        s = self.scenario(fmu_model(self.fmu("st3_once")), 1)
        text = open(s).read()
        actor = text[text.index("  - id: 1"):]
        second = actor.replace("id: 1", "id: 2").replace(
            "position: [10, -5, 0]", "position: [10, 5, 0]")
        s = self.write("two.yaml", text + second)
        line = text.count("\n") + second[:second.index("vehicle_model")] \
            .count("\n") + 1
        for cmd in (("check", s), ("run", s, "-o", self.path("r.db"))):
            rc, out, err = self.vsweep(*cmd)
            self.assertEqual(rc, 2, out + err)
            self.assertIn("two.yaml:%d:" % line, err)
            self.assertIn("actor 2: vehicle_model: %s may be instantiated "
                          "only once per process" % self.fmu("st3_once"),
                          err)
            self.assertIn("actor 1 uses it too", err)
        self.assertFalse(os.path.exists(self.path("r.db")))

    def test_resume_refuses_changed_fmu(self):
        fmu = self.path("mine.fmu")
        shutil.copy(self.fmu("st2_start"), fmu)
        s = self.scenario(fmu_model(fmu), 1)
        db = self.path("r.db")
        rc, _, err = self.vsweep("run", s, "-o", db)
        self.assertEqual(rc, 0, err)
        digest = query(db, "SELECT digest FROM plugin WHERE name = 'fmu:mine.fmu'")
        self.assertEqual(len(digest), 1)
        rc, _, err = self.vsweep("run", s, "-o", db, "--resume")
        self.assertEqual(rc, 0, err)
        rezip(self.fmu("st2_start"), fmu, edit=lambda t: t + "\n")
        rc, _, err = self.vsweep("run", s, "-o", db, "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("cannot resume: plugin fmu:mine.fmu (%s) is not the "
                      "build" % fmu, err)

    def test_accel_reaches_an_fmu_with_an_accel_input(self):
        """IDM on a free road from 15 m/s asks a (1 - (v/v0)^4) = 0.9375
        m/s^2 at its first step; the FMU's accel input receives it (its
        echo is the signal fmu.accel_seen). A behaviour that gives no
        accel (constant_steer) hands the FMU 0."""
        road = ("vsweep: 1\nname: accel\nstep: 0.01\nduration: 0.05\n"
                "map:\n  roads:\n    - id: main\n"
                "      line: [[0, 0, 0], [600, 0, 0]]\n"
                "      lanes: {right: 1, width: 3.5}\n"
                "assets:\n  sedan: {length: 4.8, width: 1.9, height: 1.5, "
                "wheelbase: 3.0, track: 1.6, wheel_radius: 0.34, "
                "front_overhang: 0.9}\n"
                "actors:\n  - id: 1\n    asset: sedan\n"
                "    start: {position: [10, -1.75, 0], yaw: %r}\n"
                "    speed: 15\n    vehicle_model: %s\n"
                "    behaviour: %s\n")
        model = fmu_model(self.fmu("st3_accel"))
        for behaviour, want in (
                ("{plugin: idm, params: {v0: 30, a: 1}}",
                 1.0 * (1 - (15.0 / 30.0) ** 4)),
                ("{plugin: constant_steer, params: {steering_wheel_deg: 0}}",
                 0.0)):
            db = self.path("accel.db")
            for f in (db, db + "-wal", db + "-shm"):
                if os.path.exists(f):
                    os.unlink(f)
            s = self.write("accel.yaml",
                           road % (-math.pi / 2, model, behaviour))
            rc, _, err = self.vsweep("run", s, "-o", db, "--record",
                                     "signals")
            self.assertEqual(rc, 0, err)
            got = query(db, "SELECT value FROM actor_signal WHERE name = "
                        "'fmu.accel_seen' AND step = 1")
            self.assertEqual(len(got), 1, behaviour)
            self.assertAlmostEqual(got[0][0], want, places=12, msg=behaviour)

    def test_every_fmu_of_a_scenario_is_recorded(self):
        """Two actors on two FMUs: both files' digests are in the record,
        and a change to the second one alone is refused on resume."""
        a, b = self.path("a.fmu"), self.path("b.fmu")
        shutil.copy(self.fmu("st2_start"), a)
        shutil.copy(self.fmu("st3_start"), b)
        text = open(self.scenario(fmu_model(a), 1)).read()
        text += ("  - id: 2\n    asset: sedan\n"
                 "    start: {position: [40, -5, 0], yaw: 0.7}\n"
                 "    speed: 15\n    vehicle_model: %s\n"
                 "    behaviour: {plugin: constant_steer, params: "
                 "{steering_wheel_deg: 30}}\n" % fmu_model(b))
        s = self.write("two.yaml", text)
        db = self.path("two.db")
        rc, _, err = self.vsweep("run", s, "-o", db)
        self.assertEqual(rc, 0, err)
        rows = query(db, "SELECT name, path FROM plugin WHERE kind = "
                     "'vehicle_model' ORDER BY name")
        self.assertEqual(rows, [("fmu:a.fmu", a), ("fmu:b.fmu", b)])
        rezip(self.fmu("st3_start"), b, edit=lambda t: t + "\n")
        rc, _, err = self.vsweep("run", s, "-o", db, "--resume")
        self.assertEqual(rc, 2)
        self.assertIn("plugin fmu:b.fmu (%s) is not the build" % b, err)

    def test_unpacked_dir_removed_after_sigint(self):
        # 50 M steps (about a minute): still running when the signal
        # comes, however fast the store gets or however late a loaded
        # machine lets this test send it (200,000 steps once finished
        # within 0.35 s)
        s = self.scenario(fmu_model(self.fmu("st3_local")), 500000)
        db = self.path("r.db")
        e = dict(os.environ)
        e.update(self.env)
        p = subprocess.Popen([VSWEEP, "run", s, "-o", db, "-j", "1"],
                             env=e, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        # wait for the unpacked directory, then for the run to be going
        for _ in range(200):
            if os.listdir(self.tmpdir):
                break
            time.sleep(0.05)
        self.assertTrue(os.listdir(self.tmpdir))
        time.sleep(0.3)
        self.assertIsNone(p.poll(), "finished before the signal")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("--resume", err)
        # tearDown checks that tmpdir is empty

    def test_plugins_listing(self):
        rc, out, err = self.vsweep("plugins", "--fmu", self.fmu("st3_start"))
        self.assertEqual(rc, 0, err)
        self.assertIn("FMI 3.0 co-simulation", out)
        lines = {ln.split()[0]: ln for ln in out.splitlines()
                 if ln.startswith("  ")}
        self.assertRegex(lines["m"], r"m\s+Float64\s+start 2000\s+kg\s+"
                                     r"vehicle mass")
        self.assertRegex(lines["lf"], r"start 1.4\s+m\s+CG to front axle")
        self.assertIn("set from the start pose", lines["x0"])
        self.assertIn("vsweep control", lines["steering_wheel"])
        self.assertIn("signal fmu.NAME", lines["Fyf"])
        for section in ("parameters:", "inputs:", "outputs:"):
            self.assertIn(section, out)
        rc, out, err = self.vsweep("plugins", "--fmu", self.write("z.fmu",
                                                                   "x"))
        self.assertEqual(rc, 2)
        self.assertIn("not a zip archive", err)


if __name__ == "__main__":
    unittest.main()
