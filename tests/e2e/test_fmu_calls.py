"""What the host owes an FMU and what it makes of the FMU's answers, end to
end, with the probe FMU of tests/fmu/probe.c (a straight-line kinematic
model: y += speed * h in its own units, yaw, wx, wy from parameters),
packed here with the modelDescription.xml each case needs:

- FMI 3 terminateSimulation fails the variant at that step, and an early
  return vsweep did not allow is an error of the FMU (FMI 3.0 fmi3DoStep);
- after Fatal, no function of that FMU is called again in the process
  (FMI 2.0 / 3.0: every instance is corrupted): contained, the next
  variant gets a new process; uncontained, it fails saying why;
- the resource location is an RFC 3986 file URI (FMI 2.0) or an absolute
  path ending in '/' (FMI 3.0), under a $TMPDIR with a space, '%', '#' and
  non-ASCII letters, and under a relative $TMPDIR;
- messages the FMU logs from a second thread during a step are all kept;
- wx, wy of an FMU in the actor's start frame are turned into the world,
  as vx, vy are;
- declared units (deg, km/h) are converted to SI; a unit of the wrong
  dimension, or one UnitDefinitions does not define, is refused.
"""
import math
import os
import subprocess
import sys
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import VSWEEP, FmuTempDirCase, query, run  # noqa: E402

FMUS = os.environ["VSWEEP_TEST_FMU_DIR"]
TOKEN = "{probe-5e1f}"

# name, value reference, causality, start, unit (probe.c's enum)
VARS = [("speed", 0, "input", 0.0, "m/s"),
        ("steering_wheel", 1, "input", 0.0, "rad"),
        ("x", 2, "output", None, "m"), ("y", 3, "output", None, "m"),
        ("yaw", 4, "output", None, "rad"),
        ("wx", 5, "output", None, "rad/s"), ("wy", 6, "output", None, "rad/s"),
        ("vx", 7, "output", None, "m/s"), ("vy", 8, "output", None, "m/s"),
        ("mode", 10, "parameter", 0.0, ""), ("when", 11, "parameter", 1e9, "s"),
        ("yaw_out", 12, "parameter", 0.0, ""),
        ("wx_out", 13, "parameter", 0.0, ""),
        ("wy_out", 14, "parameter", 0.0, ""),
        ("n_log", 15, "parameter", 0.0, "")]
UNITS = {"m": 'm="1"', "m/s": 'm="1" s="-1"', "rad": 'rad="1"',
         "rad/s": 'rad="1" s="-1"', "s": 's="1"',
         "deg": 'rad="1" factor="0.017453292519943295"',
         "km/h": 'm="1" s="-1" factor="0.2777777777777778"'}


def pack(dst, fmi, units=None, undefined=(), once=False, resources=True,
         edit=None):
    """Writes the probe FMU: units maps variable -> unit (defined in
    UnitDefinitions unless listed in undefined); edit(text) rewrites the
    modelDescription.xml written."""
    units = units or {}
    vs = [(n, vr, c, s, units.get(n, u)) for n, vr, c, s, u in VARS]
    used = sorted({v[4] for v in vs if v[4] and v[4] not in undefined})
    ident = "probe%d" % fmi
    head = ('<fmiModelDescription fmiVersion="%s" modelName="probe" %s="%s">'
            % ("2.0" if fmi == 2 else "3.0",
               "guid" if fmi == 2 else "instantiationToken", TOKEN))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', head,
             '<CoSimulation modelIdentifier="%s"%s/>'
             % (ident, ' canBeInstantiatedOnlyOncePerProcess="true"'
                if once else ""), "<UnitDefinitions>"]
    lines += ['<Unit name="%s"><BaseUnit %s/></Unit>' % (u, UNITS[u])
              for u in used]
    lines += ["</UnitDefinitions>", "<ModelVariables>"]
    for n, vr, c, s, u in vs:
        var = ' variability="tunable"' if c == "parameter" else ""
        st = ' start="%r"' % s if s is not None else ""
        un = ' unit="%s"' % u if u else ""
        if fmi == 2:
            lines.append('<ScalarVariable name="%s" valueReference="%d" '
                         'causality="%s"%s><Real%s%s/></ScalarVariable>'
                         % (n, vr, c, var, st, un))
        else:
            lines.append('<Float64 name="%s" valueReference="%d" '
                         'causality="%s"%s%s%s/>' % (n, vr, c, var, st, un))
    lines += ["</ModelVariables>", "</fmiModelDescription>"]
    plat = "linux64" if fmi == 2 else "x86_64-linux"
    with zipfile.ZipFile(dst, "w") as z:
        text = "\n".join(lines) + "\n"
        z.writestr("modelDescription.xml", edit(text) if edit else text)
        z.write(os.path.join(FMUS, ident + ".so"),
                "binaries/%s/%s.so" % (plat, ident))
        if resources:
            z.writestr("resources/data.txt", "probe\n")
    return dst


def run_as(args, env, contained):
    """Runs vsweep with env over os.environ, contained or not whatever the
    suite's own VSWEEP_NO_CONTAINMENT (set under sanitizers)."""
    e = dict(os.environ, **env)
    e.pop("VSWEEP_PLUGIN_PATH", None)
    e.pop("VSWEEP_NO_CONTAINMENT", None)
    if not contained:
        e["VSWEEP_NO_CONTAINMENT"] = "1"
    p = subprocess.run([VSWEEP, *args], capture_output=True, text=True,
                       timeout=300, env=e, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def scenario_text(fmu, params="{}", yaw0=0.0, actors=1, duration=1):
    text = ("vsweep: 1\nname: probe\nstep: 0.1\nduration: %s\nassets:\n"
            "  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,"
            "\n          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}"
            "\nactors:\n" % duration)
    for i in range(1, actors + 1):
        p = params if i == 1 else "{}"
        text += ("  - id: %d\n    asset: sedan\n    start: {position: "
                 "[%d, 0, 0], yaw: %r}\n    speed: 10\n    vehicle_model: "
                 "{fmu: %s, params: %s}\n" % (i, 10 * i, yaw0, fmu, p))
    return text


class FmuCallsTest(FmuTempDirCase):
    def fmu(self, fmi, name=None, **kw):
        return pack(self.path(name or "p%d.fmu" % fmi), fmi, **kw)

    def run_one(self, text, *extra):
        s = self.write("s.yaml", text)
        db = self.path("r.db")
        if os.path.exists(db):
            os.remove(db)
        rc, _, err = self.vsweep("run", s, "-o", db, *extra)
        return rc, err, db

    def test_terminate_simulation_fails_the_variant_there(self):
        fmu = self.fmu(3)
        rc, err, db = self.run_one(scenario_text(
            fmu, "{mode: 2, when: 0.3}"))
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM "
                                 "variant_info")
        self.assertEqual(status, "failed")
        for part in ("actor 1", fmu, "asked to terminate the simulation",
                     "step 3 (t = 0.3 s)"):
            self.assertIn(part, error)
        # stepped no further: the rows end at the step before
        self.assertEqual(query(db, "SELECT max(step) FROM actor_state"),
                         [(2,)])

    def test_early_return_not_allowed_is_an_fmu_error(self):
        rc, err, db = self.run_one(scenario_text(
            self.fmu(3), "{mode: 3, when: 0.5}"))
        self.assertEqual(rc, 1, err)
        (status, error), = query(db, "SELECT status, error FROM "
                                 "variant_info")
        self.assertEqual(status, "failed")
        self.assertIn("returned early", error)
        self.assertIn("earlyReturnAllowed = false: an error of the FMU",
                      error)
        self.assertEqual(query(db, "SELECT max(step) FROM actor_state"),
                         [(4,)])

    def fatal_sweep(self, fmi, contained):
        """Three variants of two actors on one FMU; actor 1's instance
        returns Fatal at 0.3 s in variant 0 only."""
        trace = self.path("trace%d%d" % (fmi, contained))
        env = dict(self.env, PROBE_TRACE=trace)
        s = self.write("s.yaml", scenario_text(self.fmu(fmi), "{mode: 1}",
                                               actors=2))
        sw = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: vehicle_model.when, "
                        "values: [0.3, 1e9, 1e9]}\n")
        db = self.path("f%d%d.db" % (fmi, contained))
        rc, _, err = run_as(("run", s, "--sweep", sw, "-o", db, "-j", "1"),
                            env, contained)
        self.assertEqual(rc, 1, err)
        calls = open(trace).read() if os.path.exists(trace) else ""
        self.assertEqual(calls, "", "calls into the FMU after its Fatal")
        rows = query(db, "SELECT variant_id, status, error FROM "
                     "variant_info ORDER BY variant_id")
        self.assertEqual(rows[0][1], "failed")
        self.assertIn("probe: fatal failure", rows[0][2])
        return rows[1:]

    def test_no_call_after_fatal_contained(self):
        for fmi in (2, 3):
            later = self.fatal_sweep(fmi, True)
            self.assertEqual([r[1] for r in later], ["done", "done"])

    def test_no_call_after_fatal_uncontained(self):
        for fmi in (2, 3):
            for _, status, error in self.fatal_sweep(fmi, False):
                self.assertEqual(status, "failed")
                self.assertIn("an earlier variant's call to this FMU "
                              "returned Fatal", error)
                self.assertIn("run with containment", error)

    def test_resource_location_under_odd_tmpdirs(self):
        odd = self.path("a b%20c#d-\u00fc\u6f22")
        os.mkdir(odd)
        for fmi in (2, 3):
            fmu = self.fmu(fmi)
            s = self.write("s.yaml", scenario_text(fmu))
            # an absolute TMPDIR with characters a URI must escape
            db = self.path("odd%d.db" % fmi)
            rc, _, err = run("run", s, "-o", db, env={"TMPDIR": odd})
            self.assertEqual(rc, 0, err)
            self.assertEqual(query(db, "SELECT status FROM variant_info"),
                             [("done",)])
            self.assertEqual(os.listdir(odd), [])
            # a relative TMPDIR: the location must still be absolute
            db = self.path("rel%d.db" % fmi)
            e = dict(os.environ, TMPDIR="reltmp")
            e.pop("VSWEEP_PLUGIN_PATH", None)
            os.makedirs(self.path("reltmp"), exist_ok=True)
            p = subprocess.run([VSWEEP, "run", s, "-o", db], env=e,
                               cwd=self.path("."), capture_output=True,
                               text=True, timeout=120,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(query(db, "SELECT status FROM variant_info"),
                             [("done",)])
            self.assertEqual(os.listdir(self.path("reltmp")), [])

    def test_logging_from_a_second_thread(self):
        # Each of the 10 steps the FMU's calling thread and a second one
        # log 40 warnings each, in lockstep: 800 per variant, under the
        # 1000 rows a variant keeps, so every one must be there.
        fmu = self.fmu(3)
        s = self.write("s.yaml", scenario_text(fmu, "{mode: 4, n_log: 40}"))
        sw = self.write("sw.yaml", "vsweep: 1\nseed: 1\nblocks:\n  - grid:\n"
                        "      - {actor: 1, param: vehicle_model.wx_out, "
                        "values: [0, 1, 2, 3, 4, 5, 6, 7]}\n")
        for contained in (True, False):
            db = self.path("t%d.db" % contained)
            rc, _, err = run_as(("run", s, "--sweep", sw, "-o", db, "-j",
                                 "2"), self.env, contained)
            self.assertEqual(rc, 0, err)
            self.assertEqual(query(db, "SELECT count(*) FROM variant_info "
                                   "WHERE status = 'done'"), [(8,)])
            got = query(db, "SELECT variant_id, plugin, message, count(*) "
                        "FROM log GROUP BY 1, 2, 3 ORDER BY 1, 3")
            want = [(v, "fmu", "probe: from the " + who + " thread", 400)
                    for v in range(8) for who in ("calling", "second")]
            self.assertEqual(got, want)

    def test_long_messages_kept_whole_or_cut_marked(self):
        # The FMU logs one warning of N digits: the log keeps a message of
        # up to 4096 bytes whole, a longer one as its first 4096 bytes and
        # "\u2026 [K more bytes]" (docs/results.md, view log). The stored
        # text is the category, ": ", then the FMU's message.
        digits = "0123456789" * 600
        for fmi in (2, 3):
            fmu = self.fmu(fmi)
            for n in (3000, 5000):
                text = "probe: " + digits[:n]
                want = (text if len(text) <= 4096 else text[:4096] +
                        "\u2026 [%d more bytes]" % (len(text) - 4096))
                s = self.write("s.yaml", scenario_text(
                    fmu, "{mode: 5, when: 0.3, n_log: %d}" % n))
                for contained in (True, False):
                    with self.subTest(fmi=fmi, n=n, contained=contained):
                        db = self.path("l%d%d%d.db" % (fmi, n, contained))
                        rc, _, err = run_as(("run", s, "-o", db), self.env,
                                            contained)
                        self.assertEqual(rc, 0, err)
                        got = query(db, "SELECT plugin, level, message "
                                    "FROM log")
                        self.assertEqual(got, [("fmu", "warning", want)])

    def test_angular_velocity_turned_into_the_world(self):
        yaw0, wx, wy = 0.7, 0.3, -0.5
        rc, err, db = self.run_one(scenario_text(
            self.fmu(3), "{wx_out: %r, wy_out: %r}" % (wx, wy), yaw0=yaw0))
        self.assertEqual(rc, 0, err)
        c, s = math.cos(yaw0), math.sin(yaw0)
        rows = query(db, "SELECT vx, vy, wx, wy FROM actor_state "
                     "WHERE step > 0")
        self.assertEqual(len(rows), 10)
        for vx, vy, gx, gy in rows:
            # the FMU's (0, 10) m/s and (wx, wy) rad/s, turned by Rz(yaw0)
            self.assertAlmostEqual(vx, -s * 10, delta=1e-12)
            self.assertAlmostEqual(vy, c * 10, delta=1e-12)
            self.assertAlmostEqual(gx, c * wx - s * wy, delta=1e-12)
            self.assertAlmostEqual(gy, s * wx + c * wy, delta=1e-12)

    def test_units_converted(self):
        yaw0 = 0.2
        fmu = self.fmu(3, units={"yaw": "deg", "speed": "km/h"})
        rc, err, db = self.run_one(scenario_text(fmu, "{yaw_out: 30}",
                                                 yaw0=yaw0))
        self.assertEqual(rc, 0, err)
        # 10 m/s reaches the FMU as 36 km/h; it moves y by 36 h per step
        # (in its y unit, m); 30 deg of yaw is pi/6 rad
        c, s = math.cos(yaw0), math.sin(yaw0)
        for step, x, y, yaw in query(db, "SELECT step, x, y, yaw FROM "
                                     "actor_state WHERE step > 0"):
            d = 36.0 * 0.1 * step
            self.assertAlmostEqual(x, 10 - s * d, delta=1e-9)
            self.assertAlmostEqual(y, c * d, delta=1e-9)
            self.assertAlmostEqual(yaw, yaw0 + math.pi / 6, delta=1e-12)
        rc, out, err = self.vsweep("plugins", "--fmu", fmu)
        self.assertEqual(rc, 0, err)
        line, = [l for l in out.splitlines() if l.lstrip().startswith("yaw ")]
        self.assertIn("deg", line)
        self.assertIn("in deg: rad = 0.01745329252 * deg", line)

    def test_units_refused(self):
        cases = [({"yaw": "m/s"}, (), 'variable \'yaw\' has unit "m/s" '
                  '(BaseUnit m s^-1), but vsweep uses it as yaw, which '
                  'needs rad'),
                 ({"speed": "rad"}, (), 'variable \'speed\' has unit "rad" '
                  '(BaseUnit rad), but vsweep uses it as speed, which needs '
                  'm/s'),
                 ({"yaw": "deg"}, ("deg",), 'variable \'yaw\' has unit '
                  '"deg", which UnitDefinitions does not define')]
        for units, undefined, msg in cases:
            fmu = self.fmu(2, "bad.fmu", units=units, undefined=undefined)
            s = self.write("s.yaml", scenario_text(fmu))
            for cmd in (("check", s), ("plugins", "--fmu", fmu)):
                rc, out, err = self.vsweep(*cmd)
                self.assertEqual(rc, 2, out + err)
                self.assertIn(fmu + ": modelDescription.xml:", err)
                self.assertIn(msg, err)


if __name__ == "__main__":
    unittest.main()
