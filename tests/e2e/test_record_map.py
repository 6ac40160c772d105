"""--record chooses what is stored, never what is simulated: leaving `map`
out stores no map_location rows, and nothing else changes. The map still
serves behaviours' host services (an IDM ego finds its lead, a cut-in car
finds its gap, map_location answers a probe), puts actors on an OpenDRIVE
road's surface (z and pitch on a hill, checked against the elevation
polynomial of tests/data/xodr/hill.xodr) and gives the lane events and
lane KPIs. Each scenario runs with `--record state` and `--record
state,map`; every stored row but map_location's must be the same."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from vsweep_e2e import (SRC, TEST_PLUGINS, TempDirCase, query,  # noqa: E402
                        run, scenario)

HILL_XODR = os.path.join(SRC, "tests", "data", "xodr", "hill.xodr")

# Road "hill" of hill.xodr runs along +X from the origin; its elevation
# from s = 0 is a + b s + c s^2 + d s^3 with a = b = 0, c = 0.0015,
# d = -1e-5 (the file's <elevation s="0" .../>), up to s = 100 m. An
# actor with no model goes straight along its lane at its start speed.
HILL = """\
vsweep: 1
name: hill
step: 0.1
duration: 10
map: {opendrive: %s}
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, -1.75, 0], yaw: -1.5707963267948966}
    speed: 10
""" % HILL_XODR

# probe_map (tests/plugins) logs what map_location answers, every step.
PROBE = """\
vsweep: 1
name: probe
step: 0.1
duration: 0.5
map:
  roads:
    - id: main
      line: [[0, 0, 0], [300, 0, 0]]
      lanes: {right: 2, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0}
actors:
  - id: 1
    name: prober
    asset: sedan
    start: {position: [20, -1.75, 0], yaw: -1.5707963267948966}
    speed: 10
    behaviour: {plugin: probe_map}
"""

# Every column of the views below but these (wall-clock time).
SKIP = {"wall_seconds"}
VIEWS = ("actor_state", "actor_pose", "wheel_pose", "variant_summary",
         "event", "actor_info", "variant_info", "log")


def rows(db, view):
    cols = [r[1] for r in query(db, "PRAGMA table_info(%s)" % view)
            if r[1] not in SKIP]
    return query(db, "SELECT %s FROM %s ORDER BY %s" % (
        ",".join(cols), view, ",".join(str(i + 1)
                                       for i in range(len(cols)))))


class RecordMapTest(TempDirCase):
    def both(self, scn, *extra):
        """Runs scn with --record state and with --record state,map;
        checks that they store the same rows in every view but
        map_location, which only the second fills. Returns the second's
        file."""
        dbs = []
        for record in ("state", "state,map"):
            db = self.path(record + ".db")
            rc, _, err = run("run", scn, "-o", db, "--record", record,
                             *extra)
            self.assertEqual(rc, 0, err)
            dbs.append(db)
        without, with_map = dbs
        for view in VIEWS:
            self.assertEqual(rows(without, view), rows(with_map, view),
                             view)
        self.assertEqual(query(without, "SELECT count(*) FROM "
                               "map_location"), [(0,)])
        self.assertGreater(query(with_map, "SELECT count(*) FROM "
                                 "map_location")[0][0], 0)
        return with_map

    def test_cut_in_happens_without_map_rows(self):
        """scenarios/cut_in.yaml: the IDM ego and the cutter find each
        other through the map; the cutter (actor 2, in lane -2, centre
        y = -5.25 m) moves over towards the ego's lane -1 (y = -1.75 m)
        whether or not map rows are stored."""
        db = self.both(scenario("cut_in.yaml"))
        y = query(db, "SELECT y FROM actor_state WHERE actor_id = 2 "
                  "ORDER BY step DESC LIMIT 1")[0][0]
        self.assertGreater(y, -5.25 + 1.0)
        # The ego slowed for its lead: IDM's only reason to brake here.
        self.assertGreater(query(db, "SELECT max_deceleration FROM "
                                 "variant_summary")[0][0], 0)

    def test_hill_surface_without_map_rows(self):
        db = self.both(self.write("hill.yaml", HILL))
        x, z, pitch = query(db, "SELECT x, z, pitch FROM actor_state "
                            "WHERE step = 50")[0]
        self.assertAlmostEqual(x, 50.0, delta=1e-9)
        # z(50) = 0.0015 * 50^2 - 1e-5 * 50^3 = 3.75 - 1.25 m; nose up
        # by atan(z'(50)), z' = 0.003 s - 3e-5 s^2 = 0.075.
        self.assertAlmostEqual(z, 2.5, delta=1e-9)
        self.assertAlmostEqual(pitch, math.atan(0.075), delta=1e-9)

    def test_host_services_without_map_rows(self):
        db = self.both(self.write("probe.yaml", PROBE), "--plugin-path",
                       TEST_PLUGINS, "--plugin-log", "info")
        said = [m for (m,) in query(db, "SELECT message FROM log")]
        self.assertTrue(any(m.startswith("probe id=1 lane=") for m in said),
                        said)
        self.assertFalse(any("nomap" in m for m in said), said)


if __name__ == "__main__":
    unittest.main()
