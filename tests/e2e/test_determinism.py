"""-j 1 and -j 2 store bit-identical rows, and so does every way a
contained child's rows reach the parent (the shared window, the socket,
or no child at all)."""
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, __import__("os").path.dirname(__file__))
from vsweep_e2e import TempDirCase, dump, run, scenario  # noqa: E402

# A variant of 2 cars x 5001 steps (1 ms): 10 002 state rows, ~1.8 MB in
# memory, more than a chunk (1 MiB): streamed.
LONG = """\
vsweep: 1
name: long variant
step: 0.001
duration: 5
assets:
  car: {length: 4.5, width: 1.8, height: 1.4, wheelbase: 2.7, front_overhang: 0.9}
actors:
  - id: 1
    name: ego
    asset: car
    start: {position: [0, 0, 0], yaw: 0}
    speed: 10
    behaviour: {plugin: constant_steer, params: {steering_wheel_deg: 30}}
  - id: 2
    name: other
    asset: car
    start: {position: [0, 50, 0], yaw: 0}
    speed: 5
"""
LONG_SWEEP = """\
vsweep: 1
blocks:
  - list:
      - [{actor: 1, speed: 8}]
      - [{actor: 1, speed: 12}]
      - [{actor: 1, speed: 16}]
"""


class DeterminismTest(TempDirCase):
    def test_thread_count_does_not_change_results(self):
        dumps = []
        for j in ("1", "2"):
            db = self.path("j%s.db" % j)
            rc, _, err = run("run", scenario("two_cars.yaml"), "--sweep",
                             scenario("two_cars_sweep.yaml"), "-o", db,
                             "-j", j)
            self.assertEqual(rc, 0, err)
            dumps.append(dump(db))
        a, b = dumps
        self.assertGreater(len(a["state"]), 8 * 2 * 2000)
        self.assertEqual(len(a["variant"]), 8)
        for table in a:
            self.assertEqual(a[table], b[table], table)


    def test_transport_does_not_change_results(self):
        """A contained child's state rows reach the parent through memory
        they share (the window) when they fit, else down the socket;
        VSWEEP_TEST_WINDOW_BYTES (a test build's hook) narrows the
        window: 0 sends everything down the socket, 900 000 bytes takes
        a short variant's rows (736 kB) but not a 1 MiB chunk. Every
        way stores what an uncontained run stores, for short variants
        and for streamed ones."""
        long_scn, long_swp = self.path("long.yaml"), self.path("long_s.yaml")
        with open(long_scn, "w") as f:
            f.write(LONG)
        with open(long_swp, "w") as f:
            f.write(LONG_SWEEP)
        cases = [(scenario("two_cars.yaml"), scenario("two_cars_sweep.yaml"),
                  8 * 2 * 2001), (long_scn, long_swp, 3 * 2 * 5001)]
        ways = [("window", {}), ("socket", {"VSWEEP_TEST_WINDOW_BYTES": "0"}),
                ("both", {"VSWEEP_TEST_WINDOW_BYTES": "900000"}),
                ("uncontained", {"VSWEEP_NO_CONTAINMENT": "1"})]
        for k, (scn, swp, rows) in enumerate(cases):
            dumps = {}
            for name, env in ways:
                db = self.path("t%d_%s.db" % (k, name))
                # contained even where the suite runs without (sanitizers)
                with mock.patch.dict(os.environ):
                    os.environ.pop("VSWEEP_NO_CONTAINMENT", None)
                    rc, _, err = run("run", scn, "--sweep", swp, "-o", db,
                                     "-j", "2", env=env)
                self.assertEqual(rc, 0, err)
                dumps[name] = dump(db)
            self.assertEqual(len(dumps["uncontained"]["state"]), rows)
            for name, _ in ways[:-1]:
                for table in dumps[name]:
                    self.assertEqual(dumps[name][table],
                                     dumps["uncontained"][table],
                                     "%s: %s" % (name, table))


if __name__ == "__main__":
    unittest.main()
