/* Sweep changes refused when the sweep is read, in every block kind
 * (sweep.md, "Rules"): a change that would have no effect on its actor,
 * and a value outside a domain that depends on the actor (a start in
 * lane coordinates on its road, an attached actor's angles). Each case
 * gives the whole message, with its FILE:LINE:COL. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_registry.h"
#include "input/scenario.h"
#include "input/sweep.h"

/* Actor 1 a car started in lane coordinates on the ring (lane -1, whose
 * centre lies 1.75 m outside the 50 m reference circle: an offset of
 * 51.75 m or more puts the point past the centre), 2 pi 50 =
 * 314.159 m round, driven by constant_steer (no route); 2 a cone (no
 * axles, no vehicle_model: static); 3 a character without a route or
 * behaviour (static); 4 a one-axle dolly started in x y z; 5 a trailer
 * towed by 1; 6 a crate fixed on 1; 7 a character on a route. */
static const char seed_text[] =
	"vsweep: 1\n"
	"step: 0.1\n"
	"duration: 1\n"
	"map:\n"
	"  roads:\n"
	"    - id: ring\n"
	"      circle: {center: [0, 0], radius: 50}\n"
	"      lanes: {left: 1, right: 2, width: 3.5}\n"
	"assets:\n"
	"  car: {length: 4, width: 2, height: 1.5, wheelbase: 2.5, "
	"front_overhang: 0.8}\n"
	"  cone: {length: 0.4, width: 0.4, height: 0.7}\n"
	"  walker: {kind: character, length: 0.5, width: 0.5, height: 1.8}\n"
	"  dolly: {length: 3, width: 2, height: 1, axles: [-1], track: 1.6, "
	"wheel_radius: 0.3}\n"
	"  trailer: {length: 12, width: 2.5, height: 4, axles: [-4, -5.3], "
	"track: 2, wheel_radius: 0.5, points: {hitch: [0, 5.5, 1]}}\n"
	"  crate: {length: 1, width: 1, height: 1}\n"
	"actors:\n"
	"  - id: 1\n"
	"    asset: car\n"
	"    start: {position: {road: ring, lane: -1, s: 30}}\n"
	"    speed: 10\n"
	"    vehicle_model: {plugin: bicycle_steady}\n"
	"    behaviour: {plugin: constant_steer}\n"
	"  - id: 2\n"
	"    asset: cone\n"
	"    start: {position: [50, 5, 0]}\n"
	"  - id: 3\n"
	"    asset: walker\n"
	"    start: {position: [0, 10, 0]}\n"
	"  - id: 4\n"
	"    asset: dolly\n"
	"    start: {position: [0, -20, 0]}\n"
	"    speed: 2\n"
	"  - id: 5\n"
	"    asset: trailer\n"
	"    attach: {parent: 1, type: trailer, child_point: hitch, "
	"parent_point: Rear}\n"
	"  - id: 6\n"
	"    asset: crate\n"
	"    attach: {parent: 1, type: fixed, offset: [0, 0, 1.5]}\n"
	"  - id: 7\n"
	"    asset: walker\n"
	"    waypoints: [[0, 20, 0], [0, 30, 0]]\n"
	"    speed: 1.5\n";

#include "seed_fixture.h"
#define VECTOR                                                             \
	"actor 1: its behaviour 'constant_steer' does not follow a route, so " \
	"a speed vector change has no effect (use a behaviour that does, "   \
	"such as waypoints)"
#define NO_ROUTE                                                           \
	"actor 4: has neither a behaviour nor waypoints, so it keeps its "   \
	"first speed and a speed vector change has no effect (give a "       \
	"scalar speed, or the actor waypoints and behaviour: {plugin: "      \
	"waypoints})"
#define RING "is off road 'ring' (0 to 314.159 m)"
#define NOT_LANE                                                           \
	" needs a start position in lane coordinates ({road, lane, s, "      \
	"offset}); the scenario gives this actor's start in x y z"
#define CONE_SPEED                                                         \
	"actor 2: an object (asset 'cone' has no axles) without a "          \
	"vehicle_model: nothing moves it, so a speed change has no effect"

static const refusal bad_cases[] = {
	/* a speed vector on a behaviour without routes, in every form */
	{L "[{actor: 1, speed: [5, 10]}]\n", "w.yaml:4:21: " VECTOR},
	{G "{actor: 1, speed: {values: [[5, 10], [6, 7]]}}\n",
	 "w.yaml:4:20: " VECTOR},
	{G "{actor: 1, speed: {values: [5, [6, 7]]}}\n", "w.yaml:4:20: " VECTOR},
	{G "{actor: 1, speed: [5, 10], dimension.height: {values: [1.4]}}\n",
	 "w.yaml:4:20: " VECTOR},
	{R "{actor: 1, speed: {choice: {values: [[5, 10], [6, 7]]}}}\n",
	 "w.yaml:6:22: " VECTOR},
	/* ... and on a vehicle with neither behaviour nor waypoints, which
	 * keeps its first speed (scenario.md) */
	{L "[{actor: 4, speed: [1, 2]}]\n", "w.yaml:4:21: " NO_ROUTE},
	{G "{actor: 4, speed: {values: [[1, 2], [1, 5]]}}\n",
	 "w.yaml:4:20: " NO_ROUTE},
	/* two changes that both set the start position: the lane
	 * coordinates, applied last, would silently win over start.x */
	{L "[{actor: 1, start.x: 5, start.s: 20}]\n",
	 "w.yaml:4:33: actor 1: start.s and start.x (at line 4) both set the "
	 "start position; give one"},
	{L "[{actor: 1, start.position: [1, 2, 0], start.y: 3}]\n",
	 "w.yaml:4:48: actor 1: start.y and start.position (at line 4) both "
	 "set the start position; give one"},
	/* start.s past the road's end (a value, a range's to, a uniform's
	 * b, a normal's max; a normal without one) */
	{L "[{actor: 1, start.s: 400}]\n",
	 "w.yaml:4:30: actor 1: start.s: s = 400 m " RING},
	{L "[{actor: 1, start: {s: 314.2}}]\n",
	 "w.yaml:4:32: actor 1: start.s: s = 314.2 m " RING},
	{G "{actor: 1, start.s: {values: [0, 400]}}\n",
	 "w.yaml:4:42: actor 1: start.s: s = 400 m " RING},
	{G "{actor: 1, start.s: {from: 0, to: 400, step: 100}}\n",
	 "w.yaml:4:43: actor 1: start.s: s = 400 m " RING},
	{R "{actor: 1, start.s: {uniform: [0, 600]}}\n",
	 "w.yaml:6:45: actor 1: start.s: s = 600 m " RING},
	{R "{actor: 1, start.s: {normal: {mean: 30, sd: 5, min: 0, "
	   "max: 315}}}\n",
	 "w.yaml:6:71: actor 1: start.s: s = 315 m " RING},
	{R "{actor: 1, start.s: {normal: {mean: 30, sd: 5, min: 0}}}\n",
	 "w.yaml:6:40: start.s: give the normal a max: actor 1: start.s must "
	 "keep the start on road 'ring' (s from 0 to 314.159 m), and an "
	 "unbounded normal does not"},
	{R "{actor: 1, start.s: {choice: {values: [10, 320]}}}\n",
	 "w.yaml:6:54: actor 1: start.s: s = 320 m " RING},
	/* start.offset past the ring's centre */
	{L "[{actor: 1, start.offset: 52}]\n",
	 "w.yaml:4:35: actor 1: start.offset: offset 52 m puts the point past "
	 "the centre of road 'ring'"},
	{G "{actor: 1, start.offset: {from: -1, to: 60, step: 1}}\n",
	 "w.yaml:4:49: actor 1: start.offset: offset 60 m puts the point past "
	 "the centre of road 'ring'"},
	{R "{actor: 1, start.offset: {normal: {mean: 0, sd: 1}}}\n",
	 "w.yaml:6:45: start.offset: give the normal a max: actor 1: "
	 "start.offset must keep the start on road 'ring', and an unbounded "
	 "normal does not"},
	/* start.s and start.offset on a start not in lane coordinates */
	{L "[{actor: 4, start.s: 5}]\n", "w.yaml:4:21: actor 4: start.s" NOT_LANE},
	{G "{actor: 4, start.offset: {values: [0, 1]}}\n",
	 "w.yaml:4:20: actor 4: start.offset" NOT_LANE},
	{R "{actor: 4, start.s: {uniform: [0, 1]}}\n",
	 "w.yaml:6:22: actor 4: start.s" NOT_LANE},
	/* a speed on an actor that nothing moves */
	{L "[{actor: 2, speed: 3}]\n", "w.yaml:4:21: " CONE_SPEED},
	{G "{actor: 2, speed: {values: [1, 2]}}\n", "w.yaml:4:20: " CONE_SPEED},
	{R "{actor: 2, speed: {uniform: [1, 2]}}\n", "w.yaml:6:22: " CONE_SPEED},
	{L "[{actor: 3, speed: 1}]\n",
	 "w.yaml:4:21: actor 3: a character without waypoints or a "
	 "behaviour: nothing moves it, so a speed change has no effect"},
	/* an overhang without the axle it places */
	{L "[{actor: 2, dimension.front_overhang: 0.1}]\n",
	 "w.yaml:4:21: actor 2: an object, whose asset 'cone' has no axles: "
	 "front_overhang places the front axle, so a front_overhang change "
	 "has no effect"},
	{L "[{actor: 3, dimension: {rear_overhang: 0.1}}]\n",
	 "w.yaml:4:33: actor 3: a character, whose asset 'walker' has no "
	 "axles: rear_overhang places the rearmost axle, so a rear_overhang "
	 "change has no effect"},
	{G "{actor: 2, dimension.front_overhang: {values: [0.1, 0.2]}}\n",
	 "w.yaml:4:20: actor 2: an object, whose asset 'cone' has no axles: "
	 "front_overhang places the front axle, so a front_overhang change "
	 "has no effect"},
	{R "{actor: 4, dimension.rear_overhang: {uniform: [0.5, 1]}}\n",
	 "w.yaml:6:22: actor 4: asset 'dolly' has one axle, which "
	 "front_overhang places, so a rear_overhang change has no effect"},
	/* an attached actor's angles over a whole block */
	{G "{actor: 6, attach.heading: {values: [0, 200]}}\n",
	 "w.yaml:4:49: actor 6: attach.heading must be in [-180, 180] deg, "
	 "got 200"},
	{R "{actor: 6, attach.heading: {uniform: [-500, 0]}}\n",
	 "w.yaml:6:49: actor 6: attach.heading must be in [-180, 180] deg, "
	 "got -500"},
	{R "{actor: 6, attach.slope: {normal: {mean: 0, sd: 5, min: -10}}}\n",
	 "w.yaml:6:45: attach.slope: give the normal a max: actor 6: "
	 "attach.slope must be in [-180, 180] deg, and an unbounded normal "
	 "does not"},
	{G "{actor: 5, attach.slope: {from: 0, to: 5, step: 5}}\n",
	 "w.yaml:4:48: actor 5: attach.slope: a trailer's wheels stay on the "
	 "ground, so its slope must be 0"},
	{L "[{actor: 6, attach.heading: -181}]\n",
	 "w.yaml:4:37: actor 6: attach.heading must be in [-180, 180] deg, "
	 "got -181"},
};

/* The same properties, within their domains and with an effect. */
static const char *const good_cases[] = {
	G "{actor: 1, speed: {values: [5, 10]}}\n",
	L "[{actor: 1, start.s: 314.159}, {actor: 1, start.offset: 51.7}]\n",
	L "[{actor: 1, start.s: 20, start.offset: 1, start.yaw: 0.1}]\n",
	L "[{actor: 4, start.x: 1, start.y: 2, start.yaw: 0.1}]\n",
	G "{actor: 1, start.s: {from: 0, to: 300, step: 100}}\n",
	R "{actor: 1, start.s: {uniform: [0, 314]}}\n",
	R "{actor: 1, start.s: {normal: {mean: 30, sd: 5, min: 0, max: 60}}}\n",
	R "{actor: 1, start.offset: {normal: {mean: 0, sd: 1, max: 1}}}\n",
	L "[{actor: 4, speed: 3, dimension.front_overhang: 0.5}]\n",
	L "[{actor: 7, speed: 2}]\n",
	G "{actor: 6, attach.heading: {values: [-180, 180]}}\n",
	R "{actor: 6, attach.slope: {normal: {mean: 0, sd: 5, min: -10, "
	"max: 10}}}\n",
};

#define CASES_SUITE "sweep_effects"
#include "sweep_cases.h"
