"""vsweep plot: SVG charts whose paths map back to the stored rows.

The mapping the SVG documents (tools/vsweep/plot.h):
- trajectory paths hold world metres inside <g id="trajectories"
  transform="matrix(s 0 0 -s tx ty)">;
- speed paths hold screen px inside <g id="series" data-t="t0 t1"
  data-speed="v0 v1" data-box="x y w h">;
- data-stride="K": stored rows 0, K, 2K, ... and always the last;
- with --aspect free (and --kind lateral) trajectory paths hold screen px
  inside a group with data-x="x0 x1" data-y="y0 y1" data-box="x y w h";
- event markers are <circle class="event-mark"> in screen px.
Expected values come from SQL on the results file, not from the plotter.
"""
import math
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (TEST_PLUGINS, TempDirCase, query, run,  # noqa: E402
                        scenario)

SVG = "{http://www.w3.org/2000/svg}"
MAX_POINTS = 2000      # plot.h PLOT_MAX_POINTS
MAX_VARIANTS = 20      # plot.h PLOT_MAX_VARIANTS
TOL = 1e-3             # m: paths coincide with stored positions
RING_R = 57.3          # m, circle.yaml's reference circle
LANE_W = 3.5           # m, its lane width

# Viridis anchors, from matplotlib's published table (not the plotter).
VIRIDIS = ["#440154", "#46327e", "#365c8d", "#277f8e", "#1fa187",
           "#4ac16d", "#a0da39", "#fde725"]


def numbers(text):
    return [float(v) for v in
            re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text)]


def path_points(d):
    """Points of a path made of M/L (absolute) and implicit line-tos."""
    assert re.fullmatch(r"[\sMLZ0-9eE.,+-]*", d), d[:80]
    v = numbers(d)
    assert len(v) % 2 == 0
    return list(zip(v[0::2], v[1::2]))


def matrix(transform):
    m = re.fullmatch(r"\s*matrix\(([^)]*)\)\s*", transform)
    assert m, transform
    v = numbers(m.group(1))
    assert len(v) == 6
    return v


def luminance(colour):
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def stored(db, variant, actor):
    return query(db, "SELECT t, x, y, vx, vy, vz FROM actor_state WHERE "
                 "variant_id = ? AND actor_id = ? ORDER BY step",
                 variant, actor)


def decimate(rows, stride):
    kept = rows[::stride]
    if (len(rows) - 1) % stride:
        kept.append(rows[-1])
    return kept


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


class PlotTest(TempDirCase):
    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        d = cls._dir.name
        cls.circle = os.path.join(d, "circle.db")
        cls.two = os.path.join(d, "two.db")
        for db, scn, sweep in [(cls.circle, "circle.yaml",
                                "circle_speed.yaml"),
                               (cls.two, "two_cars.yaml",
                                "two_cars_sweep.yaml")]:
            rc, _, err = run("run", scenario(scn), "--sweep",
                             scenario(sweep), "-o", db, "-j", "2")
            assert rc == 0, err

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def plot(self, db, *args, name="out.svg"):
        """Runs vsweep plot; returns the parsed root and the SVG path."""
        out = self.path(name)
        rc, _, err = run("plot", db, *args, "-o", out)
        self.assertEqual(rc, 0, err)
        root = ET.parse(out).getroot()
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(root.get("version"), "1.1")
        return root, out

    @staticmethod
    def group(root, gid):
        for g in root.iter(SVG + "g"):
            if g.get("id") == gid:
                return g
        raise AssertionError("no <g id=%r>" % gid)

    @staticmethod
    def series_paths(g):
        return [p for p in g.iter(SVG + "path") if p.get("data-variant")]

    def check_trajectories(self, db, root, variants):
        g = self.group(root, "trajectories")
        s, b, c, s2, tx, ty = matrix(g.get("transform"))
        # north up, equal scale: x -> s x + tx, y -> -s y + ty
        self.assertGreater(s, 0)
        self.assertEqual((b, c), (0, 0))
        self.assertEqual(s2, -s)
        rect = [r for r in root.iter(SVG + "rect")
                if r.get("id") == "plot-box"][0]
        bx, by = float(rect.get("x")), float(rect.get("y"))
        bw, bh = float(rect.get("width")), float(rect.get("height"))
        seen = set()
        for p in self.series_paths(g):
            v, a = int(p.get("data-variant")), int(p.get("data-actor"))
            stride = int(p.get("data-stride"))
            rows = stored(db, v, a)
            want = decimate(rows, stride)
            if len(rows) > MAX_POINTS:
                self.assertLessEqual(len(want), MAX_POINTS)
                self.assertGreater(stride, 1)
            else:
                self.assertEqual(stride, 1)
            pts = path_points(p.get("d"))
            self.assertEqual(len(pts), len(want), (v, a))
            for (x, y), r in zip(pts, want):
                self.assertLessEqual(math.hypot(x - r[1], y - r[2]), TOL,
                                     (v, a, x, y, r))
                # on screen, inside the plot box
                self.assertTrue(bx - 0.01 <= s * x + tx <= bx + bw + 0.01)
                self.assertTrue(by - 0.01 <= -s * y + ty <= by + bh + 0.01)
            seen.add((v, a))
        want = {(v, a) for v in variants for (a,) in query(
            db, "SELECT actor_id FROM actor_info WHERE variant_id = ?", v)}
        self.assertEqual(seen, want)
        return s

    def test_trajectories_match_stored_positions(self):
        root, _ = self.plot(self.circle)
        self.check_trajectories(self.circle, root, range(6))
        # 3001 rows per actor: decimated, stride 2
        strides = {p.get("data-stride") for p in
                   self.series_paths(self.group(root, "trajectories"))}
        self.assertEqual(strides, {"2"})
        root, _ = self.plot(self.two, name="two.svg")
        self.check_trajectories(self.two, root, range(8))

    def test_legend_scale_bar_grid(self):
        root, _ = self.plot(self.two)
        s = matrix(self.group(root, "trajectories").get("transform"))[0]
        legend = self.group(root, "legend")
        ids = [int(g.get("data-variant")) for g in legend.iter(SVG + "g")
               if g.get("class") == "legend-variant"]
        self.assertEqual(ids, list(range(8)))
        text = "".join(legend.itertext())
        self.assertIn("actor1.speed=12", text)
        self.assertIn("ego", text)
        self.assertIn("lead", text)
        bar = self.group(root, "scale-bar")
        length = float(bar.get("data-length"))
        mant = length / 10 ** math.floor(math.log10(length))
        self.assertIn(round(mant, 9), (1, 2, 5))
        # the drawn bar is the length at the map's scale
        d = bar.find(SVG + "path").get("d")
        self.assertAlmostEqual(numbers(d)[3], length * s, places=2)
        self.assertIn("%g m" % length, "".join(bar.itertext()))
        grid = self.group(root, "grid")
        self.assertGreaterEqual(len(grid.findall(SVG + "path")), 4)
        ticks = "".join(self.group(root, "ticks").itertext())
        self.assertIn("x (m, east)", ticks)
        self.assertIn("y (m, north)", ticks)

    def test_lanes_of_the_stored_map(self):
        root, _ = self.plot(self.circle)
        lanes = self.group(root, "lanes")
        # the same world transform as the trajectories
        self.assertEqual(lanes.get("transform"),
                         self.group(root, "trajectories").get("transform"))
        edges = [p for p in lanes.iter(SVG + "path")
                 if p.get("class") == "lane-boundary"]
        centres = [p for p in lanes.iter(SVG + "path")
                   if p.get("class") == "lane-centre"]
        self.assertEqual(len(edges), 16)    # 8 lanes, two edges each
        self.assertEqual(len(centres), 8)
        # lanes 4 inside and 4 outside the 57.3 m reference circle
        edge_r = [RING_R + k * LANE_W for k in range(-4, 5)]
        centre_r = [RING_R + (k + 0.5) * LANE_W for k in range(-4, 4)]
        for paths, radii in [(edges, edge_r), (centres, centre_r)]:
            used = set()
            for p in paths:
                pts = path_points(p.get("d"))
                self.assertGreater(len(pts), 50)  # arcs, finely split
                r = [math.hypot(x, y) for x, y in pts]
                k = min(range(len(radii)), key=lambda i: abs(radii[i] - r[0]))
                for ri in r:
                    self.assertAlmostEqual(ri, radii[k], delta=TOL)
                used.add(k)
            self.assertEqual(used, set(range(len(radii))))
        for p in centres:
            self.assertTrue(p.get("stroke-dasharray"))
        self.assertIn("lane", "".join(self.group(root, "legend").itertext()))

    def test_colour_by_orders_colours(self):
        root, _ = self.plot(self.circle, "--colour-by", "actor1.speed")
        paths = self.series_paths(self.group(root, "trajectories"))
        self.assertEqual(len(paths), 6)
        speed = dict(query(self.circle, "SELECT variant_id, json_extract("
                           "params, '$.actor1.speed') FROM variant_info"))
        for p in paths:
            self.assertEqual(float(p.get("data-value")),
                             speed[int(p.get("data-variant"))])
        paths.sort(key=lambda p: float(p.get("data-value")))
        lum = [luminance(p.get("stroke")) for p in paths]
        self.assertEqual(lum, sorted(lum))
        self.assertEqual(len(set(lum)), 6)
        # the ends of the map are viridis' ends
        self.assertEqual(paths[0].get("stroke"), VIRIDIS[0])
        self.assertEqual(paths[-1].get("stroke"), VIRIDIS[-1])
        bar = self.group(root, "colour-bar")
        self.assertEqual(float(bar.get("data-min")), 5)
        self.assertEqual(float(bar.get("data-max")), 30)
        text = "".join(self.group(root, "legend").itertext())
        self.assertIn("actor1.speed", text)
        self.assertIn("30", text)
        # a parameter only one variant sets: the others have no value
        root, _ = self.plot(self.two, "--colour-by",
                            "actor1.vehicle_model.steering_ratio",
                            name="sr.svg")
        paths = self.series_paths(self.group(root, "trajectories"))
        valued = {p.get("data-variant") for p in paths
                  if p.get("data-value")}
        self.assertEqual(valued, {"5"})
        self.assertIn("no value (7 variants)",
                      "".join(self.group(root, "legend").itertext()))

    def test_speed_series_match_stored_speeds(self):
        root, _ = self.plot(self.two, "--kind", "speed")
        self.assertEqual(root.get("data-kind"), "speed")
        g = self.group(root, "series")
        t0, t1 = numbers(g.get("data-t"))
        v0, v1 = numbers(g.get("data-speed"))
        bx, by, bw, bh = numbers(g.get("data-box"))
        seen = set()
        for p in self.series_paths(g):
            v, a = int(p.get("data-variant")), int(p.get("data-actor"))
            want = decimate(stored(self.two, v, a),
                            int(p.get("data-stride")))
            pts = path_points(p.get("d"))
            self.assertEqual(len(pts), len(want))
            for (x, y), (t, _, _, vx, vy, vz) in zip(pts, want):
                self.assertAlmostEqual(t0 + (x - bx) / bw * (t1 - t0), t,
                                       delta=1e-3)
                self.assertAlmostEqual(v1 - (y - by) / bh * (v1 - v0),
                                       math.sqrt(vx * vx + vy * vy + vz * vz),
                                       delta=1e-3)
            seen.add((v, a))
        self.assertEqual(seen, {(v, a) for v in range(8) for a in (1, 2)})
        labels = "".join(self.group(root, "ticks").itertext())
        self.assertIn("t (s)", labels)
        self.assertIn("m/s", labels)
        self.assertEqual(len([g for g in self.group(root, "legend").iter(
            SVG + "g") if g.get("class") == "legend-variant"]), 8)

    def test_variant_selection(self):
        root, _ = self.plot(self.two, "--variant", "2", "4")
        self.check_trajectories(self.two, root, [2, 4])
        root, _ = self.plot(self.two, "--variant", "1,3", "--variant", "6",
                            "--kind", "speed")
        vs = {p.get("data-variant") for p in
              self.series_paths(self.group(root, "series"))}
        self.assertEqual(vs, {"1", "3", "6"})

    def test_at_most_20_variants_without_variant(self):
        with open(scenario("circle.yaml"), encoding="utf-8") as f:
            text = f.read().replace("duration: 30", "duration: 0.05")
        scn = self.write("short.yaml", text)
        sweep = self.write("many.yaml", "vsweep: 1\nseed: 1\nblocks:\n"
                           "  - list:\n" + "".join(
                               "      - [{actor: 1, speed: %g}]\n"
                               % (5 + 0.1 * i) for i in range(25)))
        db = self.path("many.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", db, "-j", "2")
        self.assertEqual(rc, 0, err)
        out = self.path("many.svg")
        rc, _, err = run("plot", db, "-o", out)
        self.assertEqual(rc, 0, err)
        self.assertIn("plotting the first 20 of 25 variants (5 left out); "
                      "choose others with --variant", err)
        root = ET.parse(out).getroot()
        vs = {p.get("data-variant") for p in
              self.series_paths(self.group(root, "trajectories"))}
        self.assertEqual(vs, {str(i) for i in range(MAX_VARIANTS)})
        rc, _, err = run("plot", db, "--variant", "24", "-o", out)
        self.assertEqual(rc, 0, err)

    def test_failed_variants_are_drawn_and_marked(self):
        scn = self.write("f.yaml", """\
vsweep: 1
name: failures
step: 0.1
duration: 5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 5
    behaviour: {plugin: fail_at, params: {fail_step: -1}}
""")
        sweep = self.write("fw.yaml", """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 6}]
      - [{actor: 1, param: behaviour.fail_step, value: 20}]
""")
        db = self.path("f.db")
        rc, _, err = run("run", scn, "--sweep", sweep, "-o", db,
                         "--plugin-path", TEST_PLUGINS)
        self.assertEqual(rc, 1, err)
        root, _ = self.plot(db)
        self.check_trajectories(db, root, [0, 1])
        legend = {g.get("data-variant"): "".join(g.itertext()) for g in
                  self.group(root, "legend").iter(SVG + "g")
                  if g.get("class") == "legend-variant"}
        self.assertIn("(failed)", legend["1"])
        self.assertNotIn("(failed)", legend["0"])

    @unittest.skipIf(shutil.which("rsvg-convert") is None,
                     "rsvg-convert not installed (tools/deps.sh installs it)")
    def test_svg_renders(self):
        for db, args in [(self.circle, ()),
                         (self.circle, ("--colour-by", "actor1.speed")),
                         (self.two, ("--kind", "speed"))]:
            root, svg = self.plot(db, *args)
            png = self.path("out.png")
            p = subprocess.run(["rsvg-convert", "-o", png, svg],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            w, h = png_size(png)
            self.assertEqual((w, h), (int(root.get("width")),
                                      int(root.get("height"))))
            self.assertGreaterEqual(w, 800)
            self.assertGreaterEqual(h, 300)
            self.assertLessEqual(max(w, h), 4000)

    def test_errors(self):
        out = self.path("e.svg")
        text = self.write("not.db", "this is not a database\n" * 100)
        empty = self.path("empty.db")
        sqlite3.connect(empty).execute("CREATE TABLE x (y)").connection \
            .close()
        missing = self.path("missing.db")
        for args, status, msg in [
            (("plot", missing, "-o", out), 2, "missing.db"),
            (("plot", text, "-o", out), 2, "not.db"),
            (("plot", empty, "-o", out), 2, "empty.db"),
            (("plot", self.two, "--variant", "99", "-o", out), 2,
             "no variant 99"),
            (("plot", self.two, "--variant", "x", "-o", out), 2,
             "--variant"),
            (("plot", self.two, "--colour-by", "actor1.nope", "-o", out), 2,
             "actor1.nope"),
            (("plot", self.two, "--colour-by", "a b'", "-o", out), 2,
             "--colour-by"),
            (("plot", self.two, "--kind", "pie", "-o", out), 2, "--kind"),
            (("plot", self.two), 2, "-o"),
            (("plot", "-o", out), 2, "results.db"),
            (("plot", self.two, "--bogus", "-o", out), 2, "--bogus"),
            (("plot", self.two, "-o", self.path("no/such/dir/x.svg")), 3,
             "x.svg"),
        ]:
            rc, _, err = run(*args)
            self.assertEqual(rc, status, (args, err))
            self.assertTrue(err.startswith("vsweep: "), err)
            self.assertIn(msg, err, args)
        self.assertFalse(os.path.exists(missing))  # never created
        self.assertFalse(os.path.exists(out))
        if os.path.exists("/dev/full"):
            rc, _, err = run("plot", self.two, "-o", "/dev/full")
            self.assertEqual(rc, 3, err)


# A 1 km straight road along +x (reference line y = 0, two right lanes of
# 3.5 m) and a car that changes from lane -1 (centre y = -1.75) to lane -2
# (centre y = -5.25) between x = 400 and 460 m: a lane change of 3.5 m
# that equal axes squash to a few pixels.
HIGHWAY = """\
vsweep: 1
name: highway lane change
step: 0.05
duration: 40
map:
  roads:
    - id: hw
      polyline: [[0, 0, 0], [1000, 0, 0]]
      lanes: {left: 0, right: 2, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0, track: 1.6,
          wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    waypoints: [[0, -1.75, 0], [400, -1.75, 0], [460, -5.25, 0], [1000, -5.25, 0]]
    speed: 25
    behaviour: {plugin: waypoints}
  - id: 2
    asset: sedan
    waypoints: [[0, -5.25, 0], [1000, -5.25, 0]]
    speed: 10
    behaviour: {plugin: waypoints}
"""


class PlotHighwayTest(TempDirCase):
    """--aspect, limits, --actor, event markers, --kind lateral, PNG."""

    def setUp(self):
        super().setUp()
        self.db = self.path("hw.db")
        rc, _, err = run("run", self.write("hw.yaml", HIGHWAY), "-o", self.db)
        self.assertEqual(rc, 0, err)

    def plot(self, *args, name="out.svg"):
        out = self.path(name)
        rc, so, err = run("plot", self.db, *args, "-o", out)
        self.assertEqual(rc, 0, err)
        return ET.parse(out).getroot(), so

    @staticmethod
    def free_map(g):
        """(x, y) in m -> screen px, from the group's data attributes."""
        x0, x1 = numbers(g.get("data-x"))
        y0, y1 = numbers(g.get("data-y"))
        bx, by, bw, bh = numbers(g.get("data-box"))
        return lambda x, y: (bx + (x - x0) / (x1 - x0) * bw,
                             by + (y1 - y) / (y1 - y0) * bh), (bx, by, bw, bh)

    def test_free_aspect_scales_y_to_the_data(self):
        root, _ = self.plot("--aspect", "free", "--actor", "1")
        g = PlotTest.group(root, "trajectories")
        self.assertIsNone(g.get("transform"))
        to_px, (bx, by, bw, bh) = self.free_map(g)
        paths = PlotTest.series_paths(g)
        self.assertEqual([p.get("data-actor") for p in paths], ["1"])
        pts = path_points(paths[0].get("d"))
        rows = stored(self.db, 0, 1)
        ys = [r[2] for r in rows]
        # y is scaled to the data: the road's 7 m (two 3.5 m lanes below
        # y = 0, around the trajectory) plus 3 % on each side fill the
        # box height, whatever the 1 km of x
        y0, y1 = numbers(g.get("data-y"))
        self.assertAlmostEqual(y0, -3.5 - 7 * 1.06 / 2, places=6)
        self.assertAlmostEqual(y1, -3.5 + 7 * 1.06 / 2, places=6)
        span_px = max(p[1] for p in pts) - min(p[1] for p in pts)
        self.assertGreater(max(ys) - min(ys), 3.4)
        self.assertAlmostEqual(span_px, (max(ys) - min(ys)) / (7 * 1.06) * bh,
                               delta=0.01)
        self.assertGreater(span_px, 0.45 * bh)
        # and every point is the stored position through that map
        stride = int(paths[0].get("data-stride"))
        for (px, py), r in zip(pts, decimate(rows, stride)):
            ex, ey = to_px(r[1], r[2])
            self.assertAlmostEqual(px, ex, delta=2e-3)
            self.assertAlmostEqual(py, ey, delta=2e-3)
        # equal aspect (the default) shows the same 3.5 m as a few pixels,
        # and says how to see more
        out = self.path("eq.svg")
        rc, _, err = run("plot", self.db, "-o", out)
        self.assertEqual(rc, 0, err)
        self.assertIn("--aspect free scales each axis to the data", err)
        g = PlotTest.group(ET.parse(out).getroot(), "trajectories")
        s = matrix(g.get("transform"))[0]
        self.assertLess(s * (max(ys) - min(ys)), 0.1 * bh)

    def test_limits_and_around(self):
        root, _ = self.plot("--aspect", "free", "--xlim", "300,600",
                            "--ylim", "-8,1")
        g = PlotTest.group(root, "trajectories")
        self.assertEqual(numbers(g.get("data-x")), [300, 600])
        self.assertEqual(numbers(g.get("data-y")), [-8, 1])
        # --around 2: the window holds actor 2's path (x 0..~400 m in 40 s
        # at 10 m/s), not actor 1's 1 km
        root, _ = self.plot("--aspect", "free", "--around", "2")
        x0, x1 = numbers(PlotTest.group(root, "trajectories").get("data-x"))
        xs = [r[1] for r in stored(self.db, 0, 2)]
        self.assertLessEqual(x0, min(xs))
        self.assertGreaterEqual(x1, max(xs))
        self.assertLess(x1 - x0, 1.2 * (max(xs) - min(xs)))
        # and every actor is still drawn in it (--around was read as
        # --actor: only actor 2 was)
        actors = {p.get("data-actor") for p in PlotTest.series_paths(
            PlotTest.group(root, "trajectories"))}
        self.assertEqual(len(actors),
                         query(self.db, "SELECT count(DISTINCT actor_id) "
                               "FROM actor_info")[0][0], actors)
        for bad in [("--xlim", "5,1"), ("--xlim", "a,b"), ("--aspect", "round"),
                    ("--actor", "x"), ("--kind", "signal")]:
            rc, _, err = run("plot", self.db, *bad, "-o", self.path("x.svg"))
            self.assertEqual(rc, 2, bad)
        # an actor the file does not hold is named (it read "the chosen
        # variants have no stored states"); a 17th --actor is refused
        for o in ("--actor", "--around"):
            rc, _, err = run("plot", self.db, o, "99", "-o",
                             self.path("x.svg"))
            self.assertEqual(rc, 2, err)
            self.assertIn("no actor 99 in this file (%s)" % o, err)
        rc, _, err = run("plot", self.db, *(["--actor", "1"] * 17), "-o",
                         self.path("x.svg"))
        self.assertEqual(rc, 2, err)
        self.assertIn("--actor: at most 16 actors", err)
        # a file recorded without signals says so
        rc, _, err = run("plot", self.db, "--kind", "signal", "--signal",
                         "bicycle_linear.beta", "-o", self.path("x.svg"))
        self.assertEqual(rc, 2)
        self.assertIn("--record signals", err)

    def test_event_markers_at_stored_event_positions(self):
        events = query(self.db, "SELECT t, actor_id, kind FROM event WHERE "
                       "kind IN ('collision', 'lane_change') ORDER BY t")
        self.assertTrue(any(e[2] == "lane_change" for e in events), events)
        root, so = self.plot("--aspect", "free")
        g = PlotTest.group(root, "trajectories")
        to_px, _ = self.free_map(g)
        marks = [c for c in root.iter(SVG + "circle")
                 if c.get("class") == "event-mark"]
        self.assertEqual(len(marks), len(events))
        for m, (t, actor, kind) in zip(marks, events):
            self.assertEqual(m.get("data-kind"), kind)
            self.assertEqual(int(m.get("data-actor")), actor)
            x, y = query(self.db, "SELECT x, y FROM actor_state WHERE "
                         "variant_id = 0 AND actor_id = ? AND "
                         "abs(t - ?) < 1e-9", actor, t)[0]
            self.assertAlmostEqual(float(m.get("data-x")), x, places=9)
            self.assertAlmostEqual(float(m.get("data-y")), y, places=9)
            ex, ey = to_px(x, y)
            self.assertAlmostEqual(float(m.get("cx")), ex, delta=2e-3)
            self.assertAlmostEqual(float(m.get("cy")), ey, delta=2e-3)
            # a lane change from -1 to -2 happens where the car crosses
            # the shared edge y = -3.5 (within one step of 25 m/s travel)
            if kind == "lane_change":
                self.assertAlmostEqual(y, -3.5, delta=0.5)
        self.assertIn("%d events" % len(events), so)
        # --actor 2 keeps only actor 2's markers (it changes no lane)
        root, _ = self.plot("--actor", "2")
        marks = [c for c in root.iter(SVG + "circle")
                 if c.get("class") == "event-mark"]
        self.assertEqual([m for m in marks if m.get("data-actor") != "2"], [])

    def test_lateral_offset_over_s(self):
        # On a straight road along +x from x = 0 with its reference line
        # on y = 0, a right-lane actor's s is x and its offset is y.
        root, _ = self.plot("--kind", "lateral", "--actor", "1")
        g = PlotTest.group(root, "trajectories")
        to_px, _ = self.free_map(g)
        p = PlotTest.series_paths(g)[0]
        pts = path_points(p.get("d"))
        rows = decimate(stored(self.db, 0, 1), int(p.get("data-stride")))
        self.assertEqual(len(pts), len(rows))
        for (px, py), r in zip(pts, rows):
            ex, ey = to_px(r[1], r[2])
            self.assertAlmostEqual(px, ex, delta=0.05)
            self.assertAlmostEqual(py, ey, delta=0.05)

    def test_png_output(self):
        out = self.path("hw.png")
        rc, _, err = run("plot", self.db, "--aspect", "free", "-o", out)
        self.assertEqual(rc, 0, err)
        w, h = png_size(out)
        self.assertGreater(w, 500)
        self.assertGreater(h, 300)


SIGNALS = """\
vsweep: 1
name: signals
step: 0.01
duration: 5
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          track: 1.6, wheel_radius: 0.34, front_overhang: 0.9}
actors:
  - id: 1
    asset: sedan
    start: {position: [0, 0, 0], yaw: 0}
    speed: 15
    vehicle_model: {plugin: bicycle_linear, params: {m: 2000, lf: 1.4,
                    Kf: 30e3, Kr: 30e3, Iz: 3000, steering_ratio: 15}}
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
"""


class PlotSignalTest(TempDirCase):
    def test_signal_over_time_matches_stored_values(self):
        db = self.path("s.db")
        rc, _, err = run("run", self.write("s.yaml", SIGNALS), "-o", db,
                         "--record", "state,signals")
        self.assertEqual(rc, 0, err)
        out = self.path("beta.svg")
        rc, _, err = run("plot", db, "--kind", "signal", "--signal",
                         "bicycle_linear.beta", "-o", out)
        self.assertEqual(rc, 0, err)
        root = ET.parse(out).getroot()
        g = PlotTest.group(root, "series")
        t0, t1 = numbers(g.get("data-t"))
        v0, v1 = numbers(g.get("data-speed"))
        bx, by, bw, bh = numbers(g.get("data-box"))
        rows = query(db, "SELECT t, value FROM actor_signal WHERE variant_id"
                     " = 0 AND actor_id = 1 AND name = 'bicycle_linear.beta' "
                     "ORDER BY step")
        # beta settles negative here: the axis reaches below zero
        self.assertLess(min(r[1] for r in rows), 0)
        self.assertLessEqual(v0, min(r[1] for r in rows))
        paths = PlotTest.series_paths(g)
        self.assertEqual(len(paths), 1)
        want = decimate(rows, int(paths[0].get("data-stride")))
        pts = path_points(paths[0].get("d"))
        self.assertEqual(len(pts), len(want))
        for (x, y), (t, value) in zip(pts, want):
            self.assertAlmostEqual(t0 + (x - bx) / bw * (t1 - t0), t,
                                   delta=1e-3)
            self.assertAlmostEqual(v1 - (y - by) / bh * (v1 - v0), value,
                                   delta=1e-4 * (v1 - v0))
        # the axis says the unit bicycle_linear declares for beta
        # (plugins/linear_track.h)
        self.assertIn("bicycle_linear.beta (rad)",
                      "".join(PlotTest.group(root, "ticks").itertext()))
        # a unit of any length (an FMU's comes from its description) is
        # named whole
        import sqlite3
        long_unit = "m/s^2 " + "\u00b0" * 40
        with sqlite3.connect(db) as c:
            c.execute("UPDATE signal_name SET unit = ? WHERE name = "
                      "'bicycle_linear.ay'", (long_unit,))
        rc, _, err = run("plot", db, "--kind", "signal", "--signal",
                         "bicycle_linear.ay", "-o", self.path("ay.svg"))
        self.assertEqual(rc, 0, err)
        self.assertIn("bicycle_linear.ay (%s)" % long_unit, "".join(
            PlotTest.group(ET.parse(self.path("ay.svg")).getroot(),
                           "ticks").itertext()))
        # an unknown name lists the stored ones; the pair goes together
        rc, _, err = run("plot", db, "--kind", "signal", "--signal", "nope",
                         "-o", out)
        self.assertEqual(rc, 2)
        self.assertIn("bicycle_linear.yaw_rate", err)
        rc, _, err = run("plot", db, "--kind", "signal", "-o", out)
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
