/* The seed scenario the grid and random block tests share: test_sweep.c's.
 * Actor 1 a car (length 4, front overhang 0.8, rear 0.7, 2 axles) with
 * bicycle_steady and constant_steer; actor 2 a car on a route; actor 3 a
 * box. setup/teardown make and free it around each test. */
#ifndef VS_TEST_SWEEP_SEED_H
#define VS_TEST_SWEEP_SEED_H

#include <check.h>
#include <string.h>

#include "fake_registry.h"
#include "input/scenario.h"

static const char seed_text[] =
	"vsweep: 1\n"
	"step: 0.1\n"
	"duration: 10\n"
	"assets:\n"
	"  car: {length: 4, width: 2, height: 1.5, wheelbase: 2.5, "
	"front_overhang: 0.8}\n"
	"  box: {length: 1, width: 1, height: 1}\n"
	"actors:\n"
	"  - id: 1\n"
	"    asset: car\n"
	"    start: {position: [0, 0, 0], yaw: 0}\n"
	"    speed: 7\n"
	"    vehicle_model: {plugin: bicycle_steady, params: {lf: 1.2}}\n"
	"    behaviour: {plugin: constant_steer}\n"
	"  - id: 2\n"
	"    asset: car\n"
	"    waypoints: [[0, 0, 0], [50, 0, 0]]\n"
	"    speed: 5\n"
	"    yaw: [-1.5707963267948966, -1.5707963267948966]\n"
	"  - id: 3\n"
	"    asset: box\n"
	"    start: {position: [5, 5, 0]}\n";

#include "seed_fixture.h"

#define GRID "vsweep: 1\nblocks:\n  - grid:\n"

#endif
