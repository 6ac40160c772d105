/* Check suite for actor body geometry (sim/geometry.h, sim/actor.h): where
 * axles and contact points lie for an asset and a dimension change. The
 * expected positions are worked out by hand from the rules in geometry.h
 * (the front axle front_overhang behind the front bumper, the rearmost
 * rear_overhang ahead of the rear one, axles between at their fraction of
 * the asset's spacing; imported points measured from the front bumper). */
#include <check.h>
#include <string.h>

#include "input/scenario.h"
#include "sim/actor.h"
#include "geom/geometry.h"

#define TOL 1e-12

/* A semi tractor: 6.2 m long, axles at 2.1, -1.6, -2.9 (so the front
 * overhang is 3.1 - 2.1 = 1.0 m and the rear 3.1 - 2.9 = 0.2 m). */
static const double truck_axles[3] = {2.1, -1.6, -2.9};

static vs_geom_body truck(double length, double fo, double ro)
{
	return (vs_geom_body){.length = length, .front_overhang = fo,
	                      .rear_overhang = ro, .asset_length = 6.2,
	                      .n_axles = 3, .asset_axle_y = truck_axles};
}

static void expect_axles(const vs_geom_body *b, const double *want, int n)
{
	double y[8];
	ck_assert_int_eq(vs_geom_axles(b, y), n);
	for (int k = 0; k < n; k++)
		ck_assert_double_eq_tol(y[k], want[k], TOL);
}

START_TEST(asset_dimensions_give_asset_axles)
{
	vs_geom_body b = truck(6.2, 1.0, 0.2);
	expect_axles(&b, truck_axles, 3);
}
END_TEST

/* A length change alone: the sweep adds it to rear_overhang, so the box
 * grows behind and, with the origin mid-box, every axle moves forward by
 * half the change; the spacing stays. */
START_TEST(length_change_shifts_axles_by_half)
{
	vs_geom_body b = truck(7.0, 1.0, 0.2 + 0.8);
	const double want[3] = {2.5, -1.2, -2.5};
	expect_axles(&b, want, 3);
	double y[3], front, rear;
	vs_geom_axles(&b, y);
	vs_geom_axle_refs(y, 3, &front, &rear);
	ck_assert_double_eq_tol(front, 2.5, TOL);
	ck_assert_double_eq_tol(rear, (-1.2 - 2.5) / 2, TOL); /* tandem centre */
	ck_assert_double_eq_tol(front - rear, 4.35, TOL);     /* wheelbase kept */
	ck_assert_double_eq_tol(vs_geom_axle_centre(y, 3), -0.4, TOL);
}
END_TEST

/* Overhang changes move the end axles; the middle axle keeps its fraction
 * (2.1 + 1.6) / (2.1 + 2.9) = 0.74 of the way from front to rear. */
START_TEST(overhang_changes_move_end_axles)
{
	vs_geom_body b = truck(6.2, 1.5, 0.2);
	const double front[3] = {1.6, 1.6 - 0.74 * 4.5, -2.9};
	expect_axles(&b, front, 3);
	b = truck(6.2, 1.0, 0.6);
	const double rear[3] = {2.1, 2.1 - 0.74 * 4.6, -2.5};
	expect_axles(&b, rear, 3);
}
END_TEST

START_TEST(single_axle_is_its_own_reference)
{
	static const double one[1] = {-5.2};
	vs_geom_body b = {.length = 13.6, .front_overhang = 6.8 + 5.2,
	                  .rear_overhang = 6.8 - 5.2, .asset_length = 13.6,
	                  .n_axles = 1, .asset_axle_y = one};
	double y[1], front, rear;
	ck_assert_int_eq(vs_geom_axles(&b, y), 1);
	ck_assert_double_eq_tol(y[0], -5.2, TOL);
	vs_geom_axle_refs(y, 1, &front, &rear);
	ck_assert_double_eq_tol(front, -5.2, TOL);
	ck_assert_double_eq_tol(rear, -5.2, TOL);
	ck_assert_double_eq_tol(vs_geom_axle_centre(y, 1), -5.2, TOL);
	vs_geom_body crate = {.length = 2, .asset_length = 2};
	ck_assert_int_eq(vs_geom_axles(&crate, y), 0);
}
END_TEST

/* Front and Rear follow the box's ends; an imported point keeps its place
 * behind the front bumper, so it moves by half the length change. */
START_TEST(contact_points_follow_length)
{
	const double fifth[3] = {0, -1.95, 1.2};
	double p[3];
	for (int v = 0; v < 2; v++) {
		double L = v ? 7.0 : 6.2;
		vs_geom_body b = truck(L, 1.0, 0.2 + (L - 6.2));
		vs_geom_point_pos(&b, VS_GEOM_FRONT, NULL, p);
		ck_assert_double_eq_tol(p[0], 0, TOL);
		ck_assert_double_eq_tol(p[1], L / 2, TOL);
		ck_assert_double_eq_tol(p[2], 0, TOL);
		vs_geom_point_pos(&b, VS_GEOM_REAR, NULL, p);
		ck_assert_double_eq_tol(p[1], -L / 2, TOL);
		vs_geom_point_pos(&b, VS_GEOM_ORIGIN, NULL, p);
		ck_assert_double_eq_tol(p[0] * p[0] + p[1] * p[1] + p[2] * p[2],
		                        0, TOL);
		vs_geom_point_pos(&b, VS_GEOM_IMPORTED, fifth, p);
		ck_assert_double_eq_tol(p[0], 0, TOL);
		ck_assert_double_eq_tol(p[1], (v ? -1.55 : -1.95), TOL);
		ck_assert_double_eq_tol(p[2], 1.2, TOL);
		/* 3.1 - 1.95 = 1.15 m behind the front bumper either way */
		ck_assert_double_eq_tol(L / 2 - p[1], 3.1 + 1.95, TOL);
	}
}
END_TEST

/* The same through a scenario: an actor whose length a variant changed
 * (length and rear_overhang as the sweep sets them) has its axles, its
 * vs_actor_info and its hitch where the closed forms above put them. */
START_TEST(scenario_actor_reads_its_body)
{
	static const char text[] =
		"vsweep: 1\nstep: 0.1\nduration: 0.1\n"
		"assets:\n"
		"  truck: {length: 6.2, width: 2.5, height: 3.6, axles: [2.1, "
		"-1.6, -2.9], track: 2.05, wheel_radius: 0.5, points: "
		"{attach_fifth_wheel: [0, -1.95, 1.2]}}\n"
		"actors:\n"
		"  - {id: 1, asset: truck, start: {position: [0, 0, 0]}}\n";
	vs_error err = {{0}};
	vs_scenario *s = vs_scenario_parse("t.yaml", text, strlen(text), &err);
	ck_assert_msg(s, "%s", err.msg);
	vs_actor_spec *a = &s->actors[0];
	ck_assert_double_eq_tol(a->front_overhang, 1.0, TOL);
	ck_assert_double_eq_tol(a->rear_overhang, 0.2, TOL);
	a->rear_overhang += 7.0 - a->length;
	a->length = 7.0;
	double y[VS_MAX_AXLES];
	ck_assert_int_eq(vs_sim_axles(s, 0, y), 3);
	ck_assert_double_eq_tol(y[0], 2.5, TOL);
	ck_assert_double_eq_tol(y[1], -1.2, TOL);
	ck_assert_double_eq_tol(y[2], -2.5, TOL);
	vs_actor_info info;
	vs_sim_actor_info(s, 0, &info);
	ck_assert_int_eq(info.n_axles, 3);
	ck_assert_double_eq_tol(info.front_axle_y, 2.5, TOL);
	ck_assert_double_eq_tol(info.rear_axle_y, -1.85, TOL);
	ck_assert_double_eq_tol(info.wheelbase, 4.35, TOL);
	vs_attach_point pt = {.kind = VS_POINT_IMPORTED, .index = 0};
	double p[3];
	vs_sim_point_pos(s, 0, &pt, p);
	ck_assert_double_eq_tol(p[1], -1.55, TOL);
	ck_assert_double_eq_tol(p[2], 1.2, TOL);
	pt = (vs_attach_point){.kind = VS_POINT_REAR, .index = -1};
	vs_sim_point_pos(s, 0, &pt, p);
	ck_assert_double_eq_tol(p[1], -3.5, TOL);
	/* unresolved imported point: the origin */
	pt = (vs_attach_point){.kind = VS_POINT_IMPORTED, .index = -1};
	vs_sim_point_pos(s, 0, &pt, p);
	ck_assert_double_eq_tol(p[0] * p[0] + p[1] * p[1] + p[2] * p[2], 0,
	                        TOL);
	vs_scenario_destroy(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("geometry");
	TCase *tc = tcase_create("geometry");
	tcase_add_test(tc, asset_dimensions_give_asset_axles);
	tcase_add_test(tc, length_change_shifts_axles_by_half);
	tcase_add_test(tc, overhang_changes_move_end_axles);
	tcase_add_test(tc, single_axle_is_its_own_reference);
	tcase_add_test(tc, contact_points_follow_length);
	tcase_add_test(tc, scenario_actor_reads_its_body);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
