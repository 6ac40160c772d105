"""The host's broad phase for behaviours (docs/plugins.md, Host services:
lane_actors, actors_near, actor_reach) changes no result: IDM's lead search
through it gives, bit for bit, the rows of the same search over every actor
at every step (idm_exhaustive: plugins/idm.c built with LL_EXHAUSTIVE, the
search a host without the broad phase gets), on randomised traffic of some
200 actors: a three-lane ring with lane changes, a two-way road crossing it,
semi-trailer trucks, cars stopped across the lanes, pedestrians crossing.
Before the broad phase, every IDM actor looked at every actor, and looked
each one up by a scan: an IDM crowd's cost per actor-step grew with the
square of its size (512 cars: 283 us per actor-step against 0.9 at 2;
tools/bench/run.sh prints the series)."""
import math
import os
import random
import unittest

from vsweep_e2e import SRC, TempDirCase, TEST_PLUGINS, query, run

HEAD = """vsweep: 1
name: broad phase traffic
step: 0.02
duration: 8
map:
  roads:
    - id: ring
      circle: {center: [0, 0], radius: 150}
      lanes: {right: 3, width: 3.5}
    - id: cross
      line: [[-400, 0, 0], [400, 0, 0]]
      lanes: {left: 1, right: 1, width: 3.5}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
  tractor: {length: 6.2, width: 2.5, height: 3.8, axles: [2.1, -1.6, -2.9],
            track: 2.05, wheel_radius: 0.52,
            points: {attach_fifth_wheel: [0, -1.95, 1.2]}}
  semi: {length: 13.6, width: 2.55, height: 4.0,
         axles: [-0.79, -2.1, -3.41], track: 2.04, wheel_radius: 0.45,
         points: {hitch: [0, 5.6, 1.2]}}
  walker: {kind: character, length: 0.5, width: 0.5, height: 1.8}
actors:
"""


def traffic(seed, plugin):
    """The scenario's text: the same actors for one seed, whichever
    plugin drives the IDM cars."""
    rnd = random.Random(seed)
    out = [HEAD]
    next_id = [1]

    def actor(text):
        out.append("  - {id: %d, %s}\n" % (next_id[0], text))
        next_id[0] += 1
        return next_id[0] - 1

    def idm(extra=""):
        return ("behaviour: {plugin: %s, params: {v0: %.3f, T: %.2f, "
                "s0: 2%s}}" % (plugin, rnd.uniform(10, 30),
                               rnd.uniform(0.8, 2.0), extra))

    # The ring: counter-clockwise, lane k's centre at 151.75 + 3.5 k m;
    # slots 7.2 deg apart (19 m on the inner lane), some left empty.
    slots = 50
    for k in range(3):
        r = 151.75 + 3.5 * k
        taken = set()
        if k == 2:  # three trucks in the outer lane: 3 slots each,
            # moving over into the middle lane, across the cars there
            for j in rnd.sample(range(0, slots, 5), 3):
                taken.update({j, j - 1, j - 2})
                th = 2 * math.pi * j / slots
                t = actor("asset: tractor, start: {position: [%r, %r, 0], "
                          "yaw: %r}, speed: %.2f, %s"
                          % (r * math.cos(th), r * math.sin(th), th,
                             rnd.uniform(5, 15),
                             idm(", change_time: %.2f, change_side: 1"
                                 % rnd.uniform(0.5, 3))))
                actor("asset: semi, attach: {parent: %d, type: trailer, "
                      "child_point: hitch, parent_point: "
                      "attach_fifth_wheel, offset: [0, 0, 0], heading: 0, "
                      "slope: 0}" % t)
        for j in range(slots):
            if j in taken or rnd.random() < 0.3:
                continue
            th = 2 * math.pi * (j + 0.5 * k) / slots
            x, y = r * math.cos(th), r * math.sin(th)
            if rnd.random() < 0.05:  # stopped across the lane
                actor("asset: sedan, start: {position: [%r, %r, 0], "
                      "yaw: %r}, speed: 0, "
                      "behaviour: {plugin: constant_steer}"
                      % (x, y, th + math.pi / 2))
                continue
            change = ""
            if rnd.random() < 0.25:
                change = (", change_time: %.2f, change_side: %d"
                          % (rnd.uniform(0.5, 6), rnd.choice((-1, 1))))
            actor("asset: sedan, start: {position: [%r, %r, 0], yaw: %r}, "
                  "speed: %.2f, %s" % (x, y, th, rnd.uniform(3, 20),
                                       idm(change)))
    # The crossing road, both ways, outside the ring and inside it.
    for x in rnd.sample(range(-380, 380, 12), 24):
        if 135 < abs(x) < 175:
            continue
        east = rnd.random() < 0.5
        actor("asset: sedan, start: {position: [%d, %r, 0], yaw: %r}, "
              "speed: %.2f, %s"
              % (x, -1.75 if east else 1.75,
                 -math.pi / 2 if east else math.pi / 2,
                 rnd.uniform(5, 20), idm()))
    # Pedestrians crossing it.
    for x in rnd.sample(range(-120, 120, 9), 10):
        actor("asset: walker, waypoints: [[%d, -6, 0], [%d, 6, 0]], "
              "speed: 1.4, behaviour: {plugin: pedestrian, params: "
              "{start_delay: %.2f}}" % (x, x, rnd.uniform(0, 4)))
    return "".join(out)


# Road b is road a's successor but starts 40 m to the side of a's end
# (OpenDRIVE links roads whatever their geometry). Box 3, in b's lane -2,
# reaches over into lane -1, the chain's: the lead, found only by
# projection, 45 m ahead along the chain but 110 m away in a straight
# line. The broad phase's circle once left it out (the IDM car followed
# box 2 instead).
APART_XODR = """<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="6" name="apart"/>
  <road id="a" length="100.0" junction="-1">
    <link><successor elementType="road" elementId="b" contactPoint="start"/></link>
    <planView><geometry s="0" x="0" y="0" hdg="0" length="100.0"><line/></geometry></planView>
    <lanes><laneSection s="0"><center><lane id="0" type="none" level="false"/></center>
      <right><lane id="-1" type="driving" level="false"><link><successor id="-1"/></link>
        <width sOffset="0.0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection></lanes>
  </road>
  <road id="b" length="300.0" junction="-1">
    <link><predecessor elementType="road" elementId="a" contactPoint="end"/></link>
    <planView><geometry s="0" x="100" y="-40" hdg="0" length="300.0"><line/></geometry></planView>
    <lanes><laneSection s="0"><center><lane id="0" type="none" level="false"/></center>
      <right><lane id="-1" type="driving" level="false"><link><predecessor id="-1"/></link>
        <width sOffset="0.0" a="3.5" b="0" c="0" d="0"/></lane>
      <lane id="-2" type="driving" level="false">
        <width sOffset="0.0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection></lanes>
  </road>
</OpenDRIVE>
"""

APART = """vsweep: 1
name: successor apart
step: 0.05
duration: 2
map: {opendrive: apart.xodr}
assets:
  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0,
          front_overhang: 0.9}
  box: {length: 4.8, width: 1.9, height: 1.5}
actors:
  - {id: 1, asset: sedan, start: {position: {road: a, lane: -1, s: 90}},
     speed: 3, behaviour: {plugin: PLUGIN}}
  - {id: 2, asset: box, start: {position: {road: b, lane: -1, s: 8}}}
  - {id: 3, asset: box, start: {position: {road: b, lane: -2, s: 6,
                                          offset: 1.2}}}
"""


def junction_traffic(seed, plugin):
    """IDM traffic through tests/data/xodr/junction.xodr: road 1 (x -100
    to 0, both ways) into a junction of a straight connector and a left
    turn (the first connection, followed) onto road 2 (x 20 to 220) and
    road 3 (north from (10, 10)); road 2's westbound lane ends at the
    junction (nothing leads on). Cars in every lane, some stopped across
    the junction, pedestrians crossing road 2."""
    rnd = random.Random(seed)
    xodr = os.path.join(SRC, "tests", "data", "xodr", "junction.xodr")
    out = ["vsweep: 1\nname: junction traffic\nstep: 0.05\nduration: 6\n"
           "map: {opendrive: %s}\n" % xodr,
           HEAD[HEAD.index("assets:"):]]
    n = [0]

    def actor(text):
        n[0] += 1
        out.append("  - {id: %d, %s}\n" % (n[0], text))

    def idm():
        return ("behaviour: {plugin: %s, params: {v0: %.2f, T: %.2f}}"
                % (plugin, rnd.uniform(8, 25), rnd.uniform(0.8, 2.0)))

    for road, lane, length in (("1", -1, 100), ("1", 1, 100),
                               ("2", -1, 200), ("2", 1, 200),
                               ("3", -1, 100)):
        for s in rnd.sample(range(2, int(length) - 2, 8),
                            int(length) // 20):
            actor("asset: sedan, start: {position: {road: '%s', lane: %d, "
                  "s: %d}}, speed: %.2f, %s"
                  % (road, lane, s, rnd.uniform(3, 15), idm()))
    for x in rnd.sample(range(0, 20, 4), 2):  # across the junction
        actor("asset: sedan, start: {position: [%d, %.2f, 0], yaw: 0}, "
              "speed: 0, behaviour: {plugin: constant_steer}"
              % (x, rnd.uniform(-3, 0)))
    for x in rnd.sample(range(40, 200, 10), 4):
        actor("asset: walker, waypoints: [[%d, -6, 0], [%d, 6, 0]], "
              "speed: 1.4, behaviour: {plugin: pedestrian, params: "
              "{start_delay: %.2f}}" % (x, x, rnd.uniform(0, 3)))
    return "".join(out)


class BroadPhaseTest(TempDirCase):
    def rows(self, seed, plugin, make=None):
        scn = self.write("%s_%d.yaml" % (plugin, seed),
                         (make or traffic)(seed, plugin))
        db = self.path("%s_%d.db" % (plugin, seed))
        rc, _, err = run("run", scn, "-o", db, "--plugin-path",
                         os.path.join(TEST_PLUGINS, "exhaustive"))
        self.assertEqual(rc, 0, err)
        out = {}
        for table in ("state", "summary", "event_row", "pair_row"):
            out[table] = [tuple(v.hex() if isinstance(v, float) else v
                                for v in r)
                          for r in query(db, "SELECT * FROM %s ORDER BY "
                                             "1, 2, 3" % table)]
        return out

    def test_through_a_junction(self):
        """OpenDRIVE lanes: successors through a junction's connecting
        roads, a lane that ends, cars stopped across the junction."""
        for seed in (3, 4):
            broad = self.rows(seed, "idm", junction_traffic)
            every = self.rows(seed, "idm_exhaustive", junction_traffic)
            self.assertGreater(len(broad["state"]), 25 * 121)
            for table in broad:
                self.assertTrue(broad[table] == every[table],
                                "seed %d: table %s differs" % (seed, table))

    def test_successor_road_apart(self):
        self.write("apart.xodr", APART_XODR)
        rows = {}
        for plugin in ("idm", "idm_exhaustive"):
            scn = self.write(plugin + ".yaml",
                             APART.replace("PLUGIN", plugin))
            db = self.path(plugin + ".db")
            rc, _, err = run("run", scn, "-o", db, "--plugin-path",
                             os.path.join(TEST_PLUGINS, "exhaustive"))
            self.assertEqual(rc, 0, err)
            rows[plugin] = query(db, "SELECT * FROM state ORDER BY 1, 2, 3")
        self.assertEqual(len(rows["idm"]), 3 * 41)
        self.assertTrue(rows["idm"] == rows["idm_exhaustive"])

    def test_rows_equal_the_search_over_every_actor(self):
        for seed in (1, 2):
            broad = self.rows(seed, "idm")
            every = self.rows(seed, "idm_exhaustive")
            # the traffic is what it should be: many actors, lane
            # changes among them
            self.assertGreater(len(broad["state"]), 120 * 401)
            kinds = dict(query(self.path("idm_%d.db" % seed),
                               "SELECT kind, count(*) FROM event "
                               "GROUP BY kind"))
            self.assertGreater(kinds.get("lane_change", 0), 5)
            for table in broad:
                a, b = broad[table], every[table]
                # the first difference only: unittest's diff of lists
                # of 10^5 rows would take minutes
                first = next((i for i, (x, y) in enumerate(zip(a, b))
                              if x != y), min(len(a), len(b)))
                self.assertTrue(a == b, "seed %d: table %s differs from "
                                "row %d (%d and %d rows): %r against %r"
                                % (seed, table, first, len(a), len(b),
                                   a[first:first + 1], b[first:first + 1]))


if __name__ == "__main__":
    unittest.main()
