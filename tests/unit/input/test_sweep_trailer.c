/* The overhangs' domain and a trailer's contact point, checked when the
 * sweep is read in every block kind (sweep.md, "Rules"). Each case gives
 * the whole message, with its FILE:LINE:COL; the numbers come from the
 * geometry worked out below, not from the code.
 *
 * Actor 1 is a sedan (length 4.8 m, wheelbase 3 m, overhangs 0.9 m).
 * Actors 3 and 4 are the trailer of docs/scenario.md, towed by 1: box
 * 12 m long, axles at y = -4, -5.3 and -6.6 m, so its front overhang is
 * 6 - 4 = 10 m and its rear overhang 6 - 6.6 = -0.6 m (the rear axle
 * 0.6 m behind the box); the middle axle sits halfway between the
 * others. Actor 3 is towed at its hitch (y = 5.5 m, 0.5 m behind the
 * front bumper), actor 4 at its Origin (y = 0). Actor 5 has its front
 * axle 0.5 m ahead of its 4 m box (front overhang -0.5 m).
 *
 * With front overhang fo and rear overhang ro on a box of length L the
 * axles lie at F = L/2 - fo, R = -L/2 + ro and (F + R)/2, so their
 * centre is (F + R)/2 = (ro - fo)/2. A length change alone keeps the
 * axles' distances to the front bumper (ro = -0.6 + L - 12), so the
 * centre is (L - 12.6 - fo)/2; the hitch keeps its distance to the
 * front bumper too (y = L/2 - 0.5), the Origin stays at 0. The contact
 * point must lie ahead of the centre (by 1 mm at least):
 *   actor 4, length L (fo 10): centre (L - 22.6)/2, behind the Origin
 *   for L < 22.6 m: at L = 24 it is at 0.7 m, ahead of it, and at
 *   L = 20 with fo 4 at (20 - 12.6 - 4)/2 = 1.7 m;
 *   actor 3, fo 0.2 and ro 11.5: centre (11.5 - 0.2)/2 = 5.65 m, ahead of
 *   the hitch at 5.5 m (the axles F = 5.8, R = 5.5 inside the box). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_registry.h"
#include "input/scenario.h"
#include "input/sweep.h"

static const char seed_text[] =
	"vsweep: 1\n"
	"step: 0.1\n"
	"duration: 1\n"
	"assets:\n"
	"  sedan: {length: 4.8, width: 1.9, height: 1.5, wheelbase: 3.0, "
	"front_overhang: 0.9}\n"
	"  trailer: {length: 12, width: 2.5, height: 4, axles: [-4.0, -5.3, "
	"-6.6], track: 2.0, wheel_radius: 0.5, points: {hitch: [0, 5.5, "
	"1.0]}}\n"
	"  ahead: {length: 4, width: 2, height: 1.5, axles: [2.5, -1.5]}\n"
	"actors:\n"
	"  - id: 1\n"
	"    asset: sedan\n"
	"    waypoints: [[0, 0, 0], [100, 0, 0]]\n"
	"    speed: 10\n"
	"  - id: 3\n"
	"    asset: trailer\n"
	"    attach: {parent: 1, type: trailer}\n"
	"  - id: 4\n"
	"    asset: trailer\n"
	"    attach: {parent: 1, type: trailer, child_point: Origin}\n"
	"  - id: 5\n"
	"    asset: ahead\n"
	"    start: {position: [0, 20, 0]}\n";

#include "seed_fixture.h"
#define RO3                                                                \
	"actor 3: dimension.rear_overhang must be >= -0.6 m (the rearmost "  \
	"axle inside the body, or behind it by no more than the asset's "    \
	"0.6 m)"
#define TOW "a trailer's contact point must lie ahead of its axles' centre"
#define TOW4(y) "actor 4: attach: " TOW " (y = " y " m); child_point Origin " \
	"is at y = 0 m"
#define TOW3 "actor 3: attach: " TOW " (y = 5.65 m); child_point hitch is " \
	"at y = 5.5 m"

static const refusal bad_cases[] = {
	/* a rear overhang further out than the asset's own -0.6 m */
	{L "[{actor: 3, dimension.rear_overhang: -0.7}]\n",
	 "w.yaml:4:46: " RO3 ", got -0.7"},
	{L "[{actor: 3, dimension: {rear_overhang: -1}}]\n",
	 "w.yaml:4:48: " RO3 ", got -1"},
	{G "{actor: 3, dimension.rear_overhang: {values: [-0.6, -0.7]}}\n",
	 "w.yaml:4:61: " RO3 ", got -0.7"},
	{G "{actor: 3, dimension.rear_overhang: {from: -0.8, to: 0, "
	   "step: 0.2}}\n",
	 "w.yaml:4:52: " RO3 ", got -0.8"},
	{R "{actor: 3, dimension.rear_overhang: {uniform: [-0.7, 0]}}\n",
	 "w.yaml:6:58: " RO3 ", got -0.7"},
	{R "{actor: 3, dimension.rear_overhang: {normal: {mean: -0.3, "
	   "sd: 0.1}}}\n",
	 "w.yaml:6:56: dimension.rear_overhang: give the normal a min: " RO3
	 ", and an unbounded normal does not"},
	{R "{actor: 3, dimension.rear_overhang: {choice: {values: [0, "
	   "-0.65]}}}\n",
	 "w.yaml:6:69: " RO3 ", got -0.65"},
	/* an asset whose axles are inside its box keeps them there */
	{L "[{actor: 1, dimension.rear_overhang: -0.1}]\n",
	 "w.yaml:4:46: actor 1: dimension.rear_overhang must be >= 0 m (the "
	 "rearmost axle inside the body), got -0.1"},
	{G "{actor: 1, dimension.front_overhang: {values: [0, -0.1]}}\n",
	 "w.yaml:4:59: actor 1: dimension.front_overhang must be >= 0 m (the "
	 "front axle inside the body), got -0.1"},
	{L "[{actor: 5, dimension.front_overhang: -0.6}]\n",
	 "w.yaml:4:47: actor 5: dimension.front_overhang must be >= -0.5 m "
	 "(the front axle inside the body, or ahead of it by no more than "
	 "the asset's 0.5 m), got -0.6"},
	/* the contact point behind the axles' centre */
	{L "[{actor: 4, dimension.length: 24}]\n", "w.yaml:4:21: " TOW4("0.7")},
	{L "[{actor: 3, dimension: {front_overhang: 0.2, rear_overhang: "
	   "11.5}}]\n",
	 "w.yaml:4:54: " TOW3},
	{G "{actor: 4, dimension.length: {values: [12, 24]}}\n",
	 "w.yaml:4:52: block 1 (grid), axis 1 (dimension.length = 24): "
	 TOW4("0.7")},
	{G "{actor: 4, dimension.length: {from: 12, to: 24, step: 6}}\n",
	 "w.yaml:4:38: block 1 (grid), axis 1 (dimension.length = 24): "
	 TOW4("0.7")},
	{G "{actor: 3, dimension.front_overhang: {values: [10, 0.2]}, "
	   "dimension.rear_overhang: {values: [-0.6, 11.5]}}\n",
	 "w.yaml:4:108: block 1 (grid), axis 1 (dimension.front_overhang = "
	 "0.2, dimension.rear_overhang = 11.5): " TOW3},
	{R "{actor: 4, dimension.length: {uniform: [12, 24]}}\n",
	 "w.yaml:6:40: block 1 (random), axis 1 (dimension.length = 24): "
	 TOW4("0.7")},
	{R "{actor: 4, dimension.length: {normal: {mean: 12, sd: 2, min: 10, "
	   "max: 24}}}\n",
	 "w.yaml:6:40: block 1 (random), axis 1 (dimension.length = 24): "
	 TOW4("0.7")},
	{R "{actor: 4, dimension.length: {normal: {mean: 12, sd: 2, "
	   "min: 10}}}\n",
	 "w.yaml:6:40: block 1 (random), axis 1: dimension.length: give the "
	 "normal a max: actor 4: attach: " TOW ", and an unbounded normal "
	 "does not"},
	{R "{actor: 4, dimension.length: {choice: {values: [12, 24]}}}\n",
	 "w.yaml:6:63: block 1 (random), axis 1 (dimension.length = 24): "
	 TOW4("0.7")},
	{R "{actor: 3, dimension.front_overhang: {choice: {values: [10, 0.2]}}, "
	   "dimension.rear_overhang: {choice: {values: [-0.6, 11.5]}}}\n",
	 "w.yaml:6:129: block 1 (random), axis 1 (dimension.front_overhang = "
	 "0.2, dimension.rear_overhang = 11.5): " TOW3},
	{R "{actor: 4, dimension.length: {uniform: [12, 20]}}\n"
	   "        - {actor: 4, dimension.front_overhang: {uniform: [4, 10]}}\n",
	 "w.yaml:6:40: block 1 (random), axis 1 (dimension.length = 20), "
	 "axis 2 (dimension.front_overhang = 4): " TOW4("1.7")},
};

/* Within the domains, the contact point ahead of the centre in every
 * variant a block can make (actor 4's up to L = 22 m: 0.3 m ahead). */
static const char *const good_cases[] = {
	L "[{actor: 3, dimension.rear_overhang: -0.6}]\n",
	L "[{actor: 3, dimension: {rear_overhang: 0}}]\n",
	L "[{actor: 1, dimension.rear_overhang: 0}]\n",
	L "[{actor: 1, dimension.front_overhang: 0}]\n",
	L "[{actor: 5, dimension.front_overhang: -0.5}]\n",
	G "{actor: 3, dimension.rear_overhang: {values: [-0.6, -0.2, 0.5]}}\n",
	G "{actor: 3, dimension.rear_overhang: {from: -0.6, to: 0, step: "
	"0.3}}\n",
	R "{actor: 3, dimension.rear_overhang: {uniform: [-0.6, 0]}}\n",
	R "{actor: 3, dimension.rear_overhang: {normal: {mean: -0.3, sd: 0.1, "
	"min: -0.6, max: 1}}}\n",
	L "[{actor: 4, dimension.length: 22}]\n",
	G "{actor: 4, dimension.length: {values: [12, 22]}}\n",
	R "{actor: 4, dimension.length: {uniform: [12, 22]}}\n",
	R "{actor: 4, dimension.length: {normal: {mean: 12, sd: 2, min: 10, "
	"max: 22}}}\n",
	R "{actor: 4, dimension.length: {choice: {values: [12, 24], weights: "
	"[1, 0]}}}\n",
	/* the hitch moves with the front bumper, as the axles do */
	R "{actor: 3, dimension.length: {normal: {mean: 12, sd: 1, min: 12}}}\n",
	R "{actor: 4, dimension.height: {normal: {mean: 4, sd: 0.1, min: 3}}}\n",
};

#define CASES_SUITE "sweep_trailer"
#include "sweep_cases.h"
