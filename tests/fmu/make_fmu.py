"""Packs a test FMU: writes modelDescription.xml for tests/fmu/single_track.c
(the variables and value references of its build flags) and zips it with
the shared object under binaries/<platform>/<modelIdentifier>.so.

usage: make_fmu.py --fmi 2|3 --so LIB.so --out X.fmu [--start] [--fail]
                   [--once] [--accel] [--resource]

--resource adds resources/data.txt (what -DWITH_RESOURCE reads).
"""
import argparse
import os
import zipfile
from xml.sax.saxutils import quoteattr

TOKEN = "{8c4e810f-3df3-4a00-8276-176fa3c9f000}"

INPUTS = [("speed", "m/s", "commanded CG speed"),
          ("steering_wheel", "rad", "steering-wheel angle, + = left")]
STATE = [("x", "m", "actor origin, world X"), ("y", "m", "actor origin, world Y"),
         ("yaw", "rad", "heading, 0 faces +Y"),
         ("vx", "m/s", "origin velocity X"), ("vy", "m/s", "origin velocity Y"),
         ("wz", "rad/s", "yaw rate"), ("steer", "rad", "road-wheel angle")]
SIGNALS = [("beta", "rad", "CG sideslip"), ("yaw_rate", "rad/s", "yaw rate"),
           ("ay", "m/s2", "lateral acceleration"),
           ("alpha_f", "rad", "front slip angle"),
           ("alpha_r", "rad", "rear slip angle"),
           ("Fyf", "N", "front axle side force"),
           ("Fyr", "N", "rear axle side force")]
PARAMS = [("m", 2000, "kg", "vehicle mass"),
          ("Iz", 3000, "kg.m2", "yaw moment of inertia"),
          ("lf", 1.4, "m", "CG to front axle"),
          ("Kf", 30e3, "N/rad", "front cornering power per tyre"),
          ("Kr", 30e3, "N/rad", "rear cornering power per tyre"),
          ("steering_ratio", 15, "", "steering wheel : road wheel"),
          ("max_steer_deg", 45, "deg", "road-wheel angle limit"),
          ("l", 3.0, "m", "wheelbase"),
          ("cg_y", 0.1, "m", "CG ahead of the actor origin")]
START = [("x0", 0, "m", "start X"), ("y0", 0, "m", "start Y"),
         ("yaw0", 0, "rad", "start yaw")]
FAIL = [("fail_time", -1, "s", "report Error at this time; < 0 never"),
        ("warn_time", -1, "s", "report Warning at this time; < 0 never")]
ACCEL = [("accel", "input", 0.0, "m/s2", "longitudinal acceleration"),
         ("accel_seen", "output", None, "m/s2", "the accel input, echoed")]


# Every unit the variables use, defined as the standard asks (a unit
# attribute names a <Unit> of UnitDefinitions): BaseUnit exponents and
# factor to SI.
UNITS = {"m": 'm="1"', "m/s": 'm="1" s="-1"', "m/s2": 'm="1" s="-2"',
         "rad": 'rad="1"', "rad/s": 'rad="1" s="-1"', "s": 's="1"',
         "N": 'kg="1" m="1" s="-2"', "kg": 'kg="1"', "kg.m2": 'kg="1" m="2"',
         "N/rad": 'kg="1" m="1" s="-2" rad="-1"',
         "deg": 'rad="1" factor="0.017453292519943295"'}


def variables(fmi, start, fail, accel=False):
    """(name, vr, causality, start, unit, doc) in value-reference order,
    the enum of single_track.c."""
    out, vr = [], 0
    for group, caus in ((INPUTS, "input"), (STATE, "output"),
                        (SIGNALS, "output")):
        for name, unit, doc in group:
            s = 0.0 if caus == "input" else None
            out.append((name, vr, caus, s, unit, doc))
            vr += 1
    for group, present in ((PARAMS, True), (START, start), (FAIL, True)):
        for name, s, unit, doc in group:
            if present and (group is not FAIL or fail):
                out.append((name, vr, "parameter", s, unit, doc))
            vr += 1
    for name, caus, s, unit, doc in ACCEL:
        if accel:
            out.append((name, vr, caus, s, unit, doc))
        vr += 1
    return out


def description(fmi, ident, start, fail, once, accel=False):
    once_attr = ' canBeInstantiatedOnlyOncePerProcess="true"' if once else ""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    if fmi == 2:
        lines.append('<fmiModelDescription fmiVersion="2.0" modelName='
                     '"single_track" guid="%s" version="1.0">' % TOKEN)
    else:
        lines.append('<fmiModelDescription fmiVersion="3.0" modelName='
                     '"single_track" instantiationToken="%s" version="1.0">'
                     % TOKEN)
    lines.append('  <CoSimulation modelIdentifier="%s"%s/>' % (ident, once_attr))
    used = sorted({v[4] for v in variables(fmi, start, fail, accel) if v[4]})
    lines.append('  <UnitDefinitions>')
    for u in used:
        lines.append('    <Unit name="%s"><BaseUnit %s/></Unit>' % (u, UNITS[u]))
    lines.append('  </UnitDefinitions>')
    lines.append('  <ModelVariables>')
    for name, vr, caus, s, unit, doc in variables(fmi, start, fail, accel):
        var = ' variability="tunable"' if caus == "parameter" else ""
        st = ' start="%r"' % float(s) if s is not None else ""
        un = ' unit="%s"' % unit if unit else ""
        if fmi == 2:
            lines.append('    <ScalarVariable name="%s" valueReference="%d" '
                         'causality="%s"%s description=%s>'
                         % (name, vr, caus, var, quoteattr(doc)))
            lines.append('      <Real%s%s/>' % (st, un))
            lines.append('    </ScalarVariable>')
        else:
            lines.append('    <Float64 name="%s" valueReference="%d" '
                         'causality="%s"%s description=%s%s%s/>'
                         % (name, vr, caus, var, quoteattr(doc), st, un))
    lines.append('  </ModelVariables>')
    lines.append('</fmiModelDescription>')
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fmi", type=int, choices=(2, 3), required=True)
    ap.add_argument("--so", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--start", action="store_true")
    ap.add_argument("--fail", action="store_true")
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--accel", action="store_true")
    ap.add_argument("--resource", action="store_true")
    a = ap.parse_args()
    ident = os.path.splitext(os.path.basename(a.so))[0]
    plat = "linux64" if a.fmi == 2 else "x86_64-linux"
    with zipfile.ZipFile(a.out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("modelDescription.xml",
                   description(a.fmi, ident, a.start, a.fail, a.once,
                               a.accel))
        z.write(a.so, "binaries/%s/%s.so" % (plat, ident))
        if a.resource:
            z.writestr("resources/data.txt", "a table the model reads\n")


if __name__ == "__main__":
    main()
