#!/usr/bin/env python3
"""Writes the OpenDRIVE test roads of tests/unit/map (test_odr*.c) and
tests/e2e/test_odr*.py. Each road is small and has a closed form; the
comments say which. Run from this directory: python3 gen.py"""

HEAD = '''<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="{minor}" name="{name}"/>
'''


def lane(i, typ="driving", w=(3.5, 0, 0, 0), border=False, extra=""):
    tag = "border" if border else "width"
    ws = w if isinstance(w[0], tuple) else [(0.0,) + tuple(w)]
    recs = "".join(
        f'<{tag} sOffset="{r[0]}" a="{r[1]}" b="{r[2]}" c="{r[3]}" d="{r[4]}"/>'
        for r in ws)
    return f'<lane id="{i}" type="{typ}" level="false">{extra}{recs}</lane>'


def section(s, left=(), right=()):
    out = f'<laneSection s="{s}">'
    if left:
        out += "<left>" + "".join(left) + "</left>"
    out += '<center><lane id="0" type="none" level="false"/></center>'
    if right:
        out += "<right>" + "".join(right) + "</right>"
    return out + "</laneSection>"


def road(rid, length, geoms, sections, junction="-1", rule=None,
         elev=(), superel=(), offset=(), link=""):
    r = f' rule="{rule}"' if rule else ""
    out = f'  <road id="{rid}" length="{length!r}" junction="{junction}"{r}>\n'
    if link:
        out += f"    <link>{link}</link>\n"
    out += "    <planView>\n"
    for g in geoms:
        out += f"      {g}\n"
    out += "    </planView>\n"
    if elev:
        out += "    <elevationProfile>" + "".join(
            f'<elevation s="{e[0]}" a="{e[1]}" b="{e[2]}" c="{e[3]}" d="{e[4]}"/>'
            for e in elev) + "</elevationProfile>\n"
    if superel:
        out += "    <lateralProfile>" + "".join(
            f'<superelevation s="{e[0]}" a="{e[1]}" b="{e[2]}" c="{e[3]}" d="{e[4]}"/>'
            for e in superel) + "</lateralProfile>\n"
    out += "    <lanes>"
    out += "".join(
        f'<laneOffset s="{o[0]}" a="{o[1]}" b="{o[2]}" c="{o[3]}" d="{o[4]}"/>'
        for o in offset)
    out += "".join(sections) + "</lanes>\n"
    out += '    <objects/><signals/>\n  </road>\n'
    return out


def geom(s, x, y, hdg, length, shape):
    return (f'<geometry s="{s!r}" x="{x!r}" y="{y!r}" hdg="{hdg!r}" '
            f'length="{length!r}">{shape}</geometry>')


def write(name, roads, minor=6, extra=""):
    with open(name, "w") as f:
        f.write(HEAD.format(minor=minor, name=name))
        f.write("".join(roads))
        f.write(extra)
        f.write("</OpenDRIVE>\n")


import math

# straight: 100 m along +X from the origin; lanes 1 (3.5), -1 (3.5),
# -2 a border (0.5, not a lane).
write("straight.xodr", [road("1", 100.0, [geom(0, 0, 0, 0, 100.0, "<line/>")],
      [section(0, left=[lane(1)], right=[lane(-1), lane(-2, "border", (0.5, 0, 0, 0))])])],
      minor=4)

# arc: a quarter circle of radius 50 (curvature 0.02) from the origin
# heading +X, centre (0, 50); lanes 1, -1, -2 of 3 m.
L = 50 * math.pi / 2
write("arc.xodr", [road("arc", L, [geom(0, 0, 0, 0, L, '<arc curvature="0.02"/>')],
      [section(0, left=[lane(1, w=(3, 0, 0, 0))],
               right=[lane(-1, w=(3, 0, 0, 0)), lane(-2, w=(3, 0, 0, 0))])])])

# clothoid: 20 m line, 40 m spiral from curvature 0 to 0.02, 30 m arc of
# 0.02. The spiral's start is (20, 0) heading 0; the arc starts where
# the Fresnel integrals put the spiral's end (written from the series).
def fresnel_end(k1, ln):
    c = k1 / ln  # curvature rate
    # x = ∫0^L cos(c t²/2) dt, y = ∫0^L sin(c t²/2) dt, by series
    x = y = 0.0
    for n in range(30):
        x += (-1) ** n * (c / 2) ** (2 * n) * ln ** (4 * n + 1) / (
            math.factorial(2 * n) * (4 * n + 1))
        y += (-1) ** n * (c / 2) ** (2 * n + 1) * ln ** (4 * n + 3) / (
            math.factorial(2 * n + 1) * (4 * n + 3))
    return x, y, c * ln * ln / 2


fx, fy, fh = fresnel_end(0.02, 40.0)
write("clothoid.xodr", [road("c", 90.0, [
    geom(0, 0, 0, 0, 20.0, "<line/>"),
    geom(20.0, 0, 0, 0, 40.0, '<spiral curvStart="0" curvEnd="0.02"/>').replace(
        'x="0" y="0"', 'x="20.0" y="0.0"'),
    geom(60.0, 20.0 + fx, fy, fh, 30.0, '<arc curvature="0.02"/>')],
    [section(0, left=[lane(1)], right=[lane(-1)])])])

# paramPoly3 S-curve (normalized): U = 100 p, V = 30 p² - 20 p³: from the
# origin heading +X to (100, 10) heading +X again. Road "pa": the same
# curve from (0, 50) in arcLength form, p in [0, Ln] for p/Ln in [0, 1]
# (so the curve is as long as its record: U = 100 p/Ln, V = 30 (p/Ln)² -
# 20 (p/Ln)³).
# Road "p3": poly3 v = 0.003 u² - 0.00002 u³ from (0, 100), heading +X;
# its length is the curve's arc length to u = 100 (Simpson, 20000 pieces).
def arclen(f, a, b, n=20000):
    h = (b - a) / n
    s = f(a) + f(b)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * f(a + i * h)
    return s * h / 3


Lp3 = arclen(lambda u: math.sqrt(1 + (0.006 * u - 0.00006 * u * u) ** 2), 0, 100)
Ln = arclen(lambda p: math.hypot(100, 60 * p - 60 * p * p), 0, 1)
write("parampoly.xodr", [
    road("pn", Ln, [geom(0, 0, 0, 0, Ln,
         '<paramPoly3 aU="0" bU="100" cU="0" dU="0" aV="0" bV="0" cV="30" dV="-20" pRange="normalized"/>')],
         [section(0, right=[lane(-1)])]),
    road("pa", Ln, [geom(0, 0, 50, 0, Ln,
         f'<paramPoly3 aU="0" bU="{100 / Ln!r}" cU="0" dU="0" aV="0" bV="0" cV="{30 / Ln**2!r}" dV="{-20 / Ln**3!r}" pRange="arcLength"/>')],
         [section(0, right=[lane(-1)])]),
    road("p3", Lp3, [geom(0, 0, 100, 0, Lp3, '<poly3 a="0" b="0" c="0.003" d="-0.00002"/>')],
         [section(0, right=[lane(-1)])])])

# widening: 100 m along +X; laneOffset 0.5; lane -1 3 + 0.01 s; lane -2
# 0.0012 s² - 0.000008 s³ (0 to 4 m, flat at both ends); lane 1 has two
# width records: 3 m to s = 50, then 3 + 0.02 (s - 50).
write("widening.xodr", [road("w", 100.0, [geom(0, 0, 0, 0, 100.0, "<line/>")],
      [section(0, left=[lane(1, w=((0.0, 3, 0, 0, 0), (50.0, 3, 0.02, 0, 0)))],
               right=[lane(-1, w=(3, 0.01, 0, 0)), lane(-2, w=(0, 0, 0.0012, -0.000008))])],
      offset=[(0, 0.5, 0, 0, 0)])])

# sections: 100 m along +X; s < 60: lanes -1, -2 (3.5); s >= 60: lanes 1
# and -1 (3.5), lane -1 of section 1 succeeding lane -1 of section 0.
write("sections.xodr", [road("s2", 100.0, [geom(0, 0, 0, 0, 100.0, "<line/>")],
      [section(0, right=[lane(-1, extra='<link><successor id="-1"/></link>'), lane(-2)]),
       section(60.0, left=[lane(1)], right=[lane(-1, extra='<link><predecessor id="-1"/></link>')])])])

# junction: road 1 from (-100, 0) east to the junction at the origin; a
# straight connecting road 100 (origin to (20, 0)) and a left turn 101
# (arc radius 10 from the origin to (10, 10) heading north), overlapping
# near their start; road 2 from (20, 0) east for 200 m over a 5 m hill
# (z = 0.0015 s² - 0.00001 s³ to s = 100, then back down); road 3 from
# (10, 10) north. One right lane each (3.5 m) and a left lane on 1, 2.
hill = [(0, 0, 0, 0.0015, -0.00001), (100.0, 5, 0, -0.0015, 0.00001)]
write("junction.xodr", [
    road("1", 100.0, [geom(0, -100.0, 0, 0, 100.0, "<line/>")],
         [section(0, left=[lane(1)], right=[lane(-1)])],
         link='<successor elementType="junction" elementId="J"/>'),
    road("100", 20.0, [geom(0, 0.0, 0, 0, 20.0, "<line/>")],
         [section(0, right=[lane(-1, extra='<link><predecessor id="-1"/><successor id="-1"/></link>')])],
         junction="J",
         link='<predecessor elementType="road" elementId="1" contactPoint="end"/>'
              '<successor elementType="road" elementId="2" contactPoint="start"/>'),
    road("101", 5 * math.pi, [geom(0, 0.0, 0, 0, 5 * math.pi, '<arc curvature="0.1"/>')],
         [section(0, right=[lane(-1)])], junction="J",
         link='<predecessor elementType="road" elementId="1" contactPoint="end"/>'
              '<successor elementType="road" elementId="3" contactPoint="start"/>'),
    road("2", 200.0, [geom(0, 20.0, 0, 0, 200.0, "<line/>")],
         [section(0, left=[lane(1)], right=[lane(-1)])], elev=hill,
         link='<predecessor elementType="junction" elementId="J"/>'),
    road("3", 100.0, [geom(0, 10.0, 10.0, math.pi / 2, 100.0, "<line/>")],
         [section(0, right=[lane(-1)])],
         link='<predecessor elementType="junction" elementId="J"/>')],
    extra='''  <junction id="J" name="J">
    <connection id="0" incomingRoad="1" connectingRoad="100" contactPoint="start"><laneLink from="-1" to="-1"/></connection>
    <connection id="1" incomingRoad="1" connectingRoad="101" contactPoint="start"><laneLink from="-1" to="-1"/></connection>
  </junction>
''')

# hill and bank: road "hill" as road 2 above but from the origin; road
# "bank": an arc of radius 100 (curvature 0.01, 100 m) from (0, 300)
# heading +X, superelevation 0.05 rad, elevation 2 m; lanes 1 and -1.
write("hill.xodr", [
    road("hill", 200.0, [geom(0, 0, 0, 0, 200.0, "<line/>")],
         [section(0, left=[lane(1)], right=[lane(-1)])], elev=hill),
    road("bank", 100.0, [geom(0, 0, 300.0, 0, 100.0, '<arc curvature="0.01"/>')],
         [section(0, left=[lane(1)], right=[lane(-1)])],
         elev=[(0, 2, 0, 0, 0)], superel=[(0, 0.05, 0, 0, 0)])], minor=8)

# LHT: 100 m along +X, rule LHT: lane 1 runs along +X, lane -1 against.
write("lht.xodr", [road("L", 100.0, [geom(0, 0, 0, 0, 100.0, "<line/>")],
      [section(0, left=[lane(1)], right=[lane(-1)])], rule="LHT")], minor=5)
