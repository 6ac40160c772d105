"""Behaviours in traffic (ABI 1.1) end to end.

Host services: the test behaviour probe_map (tests/plugins) logs, at every
step k, what map_location, lane_point, lane_link and actor_attr answer
about every actor; each answer must be the previous step's: the stored
map_location rows of step k - 1, and closed-form lane geometry (a straight
road along +X, a circle road) computed here from the stored positions.
"""
import math
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import TEST_PLUGINS, TempDirCase, query, run  # noqa: E402

W = 3.5           # m, lane width
R_CIRCLE = 50.0   # m, the circle road's reference radius
CY = 200.0        # m, its centre's y
R_LANE = R_CIRCLE + W / 2  # m, centre of its lane -1 (outside, CCW)

PROBE = """\
vsweep: 1
name: probe
step: 0.05
duration: 1
map:
  roads:
    - id: main
      line: [[0, 0, 0], [300, 0, 0]]
      lanes: {left: 1, right: 2, width: 3.5}
    - id: ring
      circle: {center: [0, 200], radius: 50}
      lanes: {right: 1, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9, points: {attach_tow: [0, -2.4, 0.5]}}
  trailer: {length: 3.0, width: 1.8, height: 1.4, axles: [-0.5],
            track: 1.5, wheel_radius: 0.3, points: {hitch: [0, 2.0, 0.5]}}
actors:
  - id: 1
    name: prober
    asset: sedan
    start: {position: [20, -1.45, 0], yaw: -1.5707963267948966}
    speed: 10
    behaviour: {plugin: probe_map}
  - id: 2
    name: oncoming
    asset: sedan
    start: {position: [250, 1.95, 0], yaw: 1.5707963267948966}
    speed: 8
  - id: 3
    name: ringer
    asset: sedan
    start: {position: [%r, 200, 0], yaw: 0}
    speed: 5
  - id: 4
    name: towed
    asset: trailer
    attach: {parent: 2, type: trailer, child_point: hitch,
             parent_point: attach_tow, offset: [0, 0, 0],
             heading: 0, slope: 0}
""" % R_LANE

FIELD = re.compile(r"(\w+)=(\S+)")


def wrap(a):
    return math.pi - (math.pi - a) % (2 * math.pi)


class HostServicesTest(TempDirCase):
    def test_probe_sees_the_previous_step(self):
        db = self.path("p.db")
        rc, _, err = run("run", self.write("p.yaml", PROBE), "-o", db,
                         "--plugin-path", TEST_PLUGINS, "--plugin-log",
                         "info")
        self.assertEqual(rc, 0, err)
        lanes = {(road, lane): (lid, length, width) for lid, road, lane,
                 length, width in query(
                     db, "SELECT lane_id, road, lane, length, width "
                         "FROM lane_info")}
        uuid = {k: v[0] for k, v in lanes.items()}
        loc = {(a, k): (lid, on, p, ang) for a, k, lid, on, p, ang in query(
            db, "SELECT actor_id, step, lane_id, is_on_lane, position, "
                "angle FROM map_location")}
        pos = {(a, k): (x, y) for a, k, x, y in query(
            db, "SELECT actor_id, step, x, y FROM actor_state")}
        logs = query(db, "SELECT t, message FROM log WHERE message LIKE "
                         "'probe %' ORDER BY rowid")
        self.assertEqual(len(logs), 20 * 4)  # steps 1..20, 4 actors
        more = {}
        for kind in ("centre", "links"):
            rows = query(db, "SELECT message FROM log WHERE message LIKE "
                             "'%s %%' ORDER BY rowid" % kind)
            self.assertEqual(len(rows), len(logs))
            more[kind] = [dict(FIELD.findall(m)) for (m,) in rows]
        for j, (t, msg) in enumerate(logs):
            f = dict(FIELD.findall(msg))
            f.update(more["centre"][j])
            f.update(more["links"][j])
            a, k = int(f["id"]), round(t / 0.05) - 1  # the previous step
            lid, on, p, ang = loc[(a, k)]
            x, y = pos[(a, k)]
            self.assertEqual(f["lane"], lid)
            self.assertEqual(int(f["on"]), on)
            self.assertAlmostEqual(float(f["p"]), p, delta=1e-11)
            self.assertAlmostEqual(float(f["ang"]), ang, delta=1e-11)
            self.assertAlmostEqual(float(f["w"]), W, delta=1e-9)
            self.assertAlmostEqual(float(f["cw"]), W, delta=1e-9)
            road, lane = next(key for key, v in uuid.items() if v == lid)
            length = lanes[(road, lane)][1]
            s = float(f["s"])
            self.assertAlmostEqual(float(f["len"]), length, delta=1e-9)
            self.assertAlmostEqual(s, p * length, delta=1e-9)
            # closed-form centre line, lateral offset and links
            if road == "main" and lane == -1:
                cx, cy, ch, lat = s, -W / 2, 0.0, y + W / 2
                links = (None, uuid[("main", -2)], None)
            elif road == "main" and lane == 1:
                cx, cy, ch, lat = 300 - s, W / 2, math.pi, W / 2 - y
                links = (None, None, None)
            else:
                self.assertEqual((road, lane), ("ring", -1))
                th = s / R_LANE
                cx, cy = R_LANE * math.cos(th), CY + R_LANE * math.sin(th)
                ch = th + math.pi / 2
                lat = R_LANE - math.hypot(x, y - CY)
                links = (None, None, lid)  # a ring is its own successor
            self.assertAlmostEqual(float(f["cx"]), cx, delta=1e-6)
            self.assertAlmostEqual(float(f["cy"]), cy, delta=1e-6)
            self.assertAlmostEqual(wrap(float(f["ch"]) - ch), 0, delta=1e-9)
            self.assertAlmostEqual(float(f["lat"]), lat, delta=1e-6)
            got = tuple(None if f[n] == "none" else f[n]
                        for n in ("left", "right", "succ"))
            self.assertEqual(got, links)
        attrs = query(db, "SELECT message FROM log WHERE message LIKE "
                          "'attr %' ORDER BY rowid")
        self.assertEqual(len(attrs), 20 * 4)
        for (msg,) in attrs:
            # actor attributes, against the scenario
            f = dict(FIELD.findall(msg))
            a = int(f["id"])
            dims = (3.0, 1.8, 1.4) if a == 4 else (4.8, 1.9, 1.5)
            self.assertEqual((float(f["L"]), float(f["W"]), float(f["H"])),
                             dims)
            self.assertEqual(f["kind"], "vehicle")
            self.assertEqual(int(f["parent"]), 2 if a == 4 else 0)
            self.assertEqual((int(f["children"]), int(f["child0"])),
                             (1, 4) if a == 2 else (0, 0))


if __name__ == "__main__":
    unittest.main()
