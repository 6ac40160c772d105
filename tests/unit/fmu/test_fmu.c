/* Unit tests of core/fmu: modelDescription.xml of FMI 2.0 and 3.0 read
 * into variables, archives unpacked (and hostile entries refused), and the
 * adapter stepping the test FMUs through their descriptors, checked
 * against closed forms (a straight run: x = x0 - V t sin(yaw0),
 * y = y0 + V t cos(yaw0)) and against an FMU reporting Error. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "fake_host.h"
#include "fmu/fmu.h"
#include "fmu/fmu_internal.h"

#define ck_assert_contains(s, sub)                                         \
	ck_assert_msg(strstr((s), (sub)) != NULL, "expected \"%s\" in: %s",  \
	              (sub), (s))

static char tmp[256];

static void setup(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/vsweep_fmu_unit_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	setenv("TMPDIR", tmp, 1);
}

/* Whatever the test unpacked is gone again: only its own files remain. */
static void teardown(void)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		ck_assert_msg(strncmp(e->d_name, "vsweep-fmu-", 11) != 0,
		              "left behind: %s", e->d_name);
		char p[512];
		snprintf(p, sizeof p, "%s/%s", tmp, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmp);
}

static void write_md(const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/modelDescription.xml", tmp);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static const char md2[] =
	"<?xml version=\"1.0\"?>\n"
	"<fmiModelDescription fmiVersion=\"2.0\" modelName=\"car\" "
	"guid=\"{abc}\">\n"
	"  <CoSimulation modelIdentifier=\"car_cs\" "
	"canBeInstantiatedOnlyOncePerProcess=\"true\"/>\n"
	"  <ModelVariables>\n"
	"    <ScalarVariable name=\"m\" valueReference=\"7\" "
	"causality=\"parameter\" variability=\"fixed\" description=\"mass\">\n"
	"      <Real start=\"1500\" unit=\"kg\" min=\"100\" max=\"5000\"/>\n"
	"    </ScalarVariable>\n"
	"    <ScalarVariable name=\"k\" valueReference=\"8\" "
	"causality=\"parameter\" variability=\"constant\"><Real start=\"1\"/>"
	"</ScalarVariable>\n"
	"    <ScalarVariable name=\"gear\" valueReference=\"9\" "
	"causality=\"input\"><Integer start=\"1\"/></ScalarVariable>\n"
	"    <ScalarVariable name=\"x\" valueReference=\"1\" "
	"causality=\"output\"><Real/></ScalarVariable>\n"
	"  </ModelVariables>\n"
	"</fmiModelDescription>\n";

static const char md3[] =
	"<fmiModelDescription fmiVersion=\"3.0\" modelName=\"car3\" "
	"instantiationToken=\"tok\">\n"
	"  <CoSimulation modelIdentifier=\"car3\"/>\n"
	"  <ModelVariables>\n"
	"    <Float64 name=\"lf\" valueReference=\"4\" causality=\"parameter\" "
	"variability=\"tunable\" start=\"1.2\" unit=\"m\"/>\n"
	"    <Int32 name=\"n\" valueReference=\"5\" causality=\"output\"/>\n"
	"    <Float64 name=\"y\" valueReference=\"6\" causality=\"output\"/>\n"
	"  </ModelVariables>\n"
	"</fmiModelDescription>\n";

START_TEST(reads_fmi2)
{
	write_md(md2);
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("car.fmu", tmp, &md, &err), 0);
	ck_assert_int_eq(md.fmi, 2);
	ck_assert_str_eq(md.model_id, "car_cs");
	ck_assert_str_eq(md.token, "{abc}");
	ck_assert_int_eq(md.once, 1);
	ck_assert_int_eq(md.n_vars, 4);
	const fmu_var *m = vs_fmu_md_find(&md, "m");
	ck_assert_int_eq(m->vr, 7);
	ck_assert_int_eq(m->causality, FMU_CAUS_PARAMETER);
	ck_assert_int_eq(m->is_real, 1);
	ck_assert_int_eq(m->has_start, 1);
	ck_assert_double_eq(m->start, 1500);
	ck_assert_double_eq(m->min, 100);
	ck_assert_double_eq(m->max, 5000);
	ck_assert_str_eq(m->unit, "kg");
	ck_assert_str_eq(m->doc, "mass");
	/* a constant is not a parameter the host may set */
	ck_assert_int_eq(vs_fmu_md_find(&md, "k")->causality, FMU_CAUS_OTHER);
	ck_assert_int_eq(vs_fmu_md_find(&md, "gear")->is_real, 0);
	const fmu_var *x = vs_fmu_md_find(&md, "x");
	ck_assert_int_eq(x->causality, FMU_CAUS_OUTPUT);
	ck_assert_int_eq(x->has_start, 0);
	ck_assert(isinf(x->min) && x->min < 0);
	vs_fmu_md_free(&md);
}
END_TEST

START_TEST(reads_fmi3)
{
	write_md(md3);
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("car.fmu", tmp, &md, &err), 0);
	ck_assert_int_eq(md.fmi, 3);
	ck_assert_str_eq(md.token, "tok");
	ck_assert_int_eq(md.once, 0);
	const fmu_var *lf = vs_fmu_md_find(&md, "lf");
	ck_assert_int_eq(lf->vr, 4);
	ck_assert_int_eq(lf->is_real, 1);
	ck_assert_double_eq(lf->start, 1.2);
	ck_assert_str_eq(lf->unit, "m");
	ck_assert_int_eq(vs_fmu_md_find(&md, "n")->is_real, 0);
	ck_assert_int_eq(vs_fmu_md_find(&md, "y")->is_real, 1);
	vs_fmu_md_free(&md);
}
END_TEST

/* Each broken description and what the refusal says. */
static const struct {
	const char *text, *says;
} bad_md[] = {
	{"<fmiModelDescription fmiVersion=\"1.0\"/>",
	 "fmiVersion \"1.0\" is not supported"},
	{"<fmiModelDescription fmiVersion=\"2.0\">\n<x></y>",
	 "modelDescription.xml:2: not well-formed XML"},
	{"<other/>", "root element is not fmiModelDescription"},
	{"<fmiModelDescription fmiVersion=\"2.0\"><ModelExchange "
	 "modelIdentifier=\"a\"/></fmiModelDescription>",
	 "no CoSimulation interface"},
	{"<fmiModelDescription fmiVersion=\"3.0\"><CoSimulation "
	 "modelIdentifier=\"../a\"/></fmiModelDescription>",
	 "no valid modelIdentifier"},
	{"<fmiModelDescription fmiVersion=\"3.0\"><CoSimulation "
	 "modelIdentifier=\"a\"/><ModelVariables><Float64 name=\"v\" "
	 "valueReference=\"x\"/></ModelVariables></fmiModelDescription>",
	 "variable 'v' has no valid valueReference"},
};

START_TEST(refuses_bad_md)
{
	write_md(bad_md[_i].text);
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("car.fmu", tmp, &md, &err), -1);
	ck_assert_contains(err.msg, bad_md[_i].says);
	ck_assert_contains(err.msg, "car.fmu");
	vs_fmu_md_free(&md);
}
END_TEST

/* A zip at path with one entry name holding "x". */
static void make_zip(const char *path, const char *name)
{
	int e = 0;
	zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
	ck_assert_ptr_nonnull(z);
	zip_source_t *s = zip_source_buffer(z, "x", 1, 0);
	ck_assert_int_ge(zip_file_add(z, name, s, ZIP_FL_ENC_UTF_8), 0);
	ck_assert_int_eq(zip_close(z), 0);
}

START_TEST(unpack_refuses_climbing_entries)
{
	char zp[512];
	snprintf(zp, sizeof zp, "%s/evil.zip", tmp);
	const char *names[] = {"../escape", "a/../../escape", "/abs"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		make_zip(zp, names[i]);
		vs_error err = {{0}};
		ck_assert_ptr_null(vs_fmu_unpack(zp, &err));
		ck_assert_contains(err.msg, "refusing archive entry");
	}
	char esc[512];
	snprintf(esc, sizeof esc, "%s/../escape", tmp);
	ck_assert_int_ne(access(esc, F_OK), 0);
	make_zip(zp, "dir/ok.txt");
	vs_error err = {{0}};
	char *dir = vs_fmu_unpack(zp, &err);
	ck_assert_ptr_nonnull(dir);
	char ok[600];
	snprintf(ok, sizeof ok, "%s/dir/ok.txt", dir);
	ck_assert_int_eq(access(ok, R_OK), 0);
	vs_fmu_dir_remove(dir);
	ck_assert_int_ne(access(dir, F_OK), 0);
	free(dir);
}
END_TEST

static char *test_fmu(const char *name)
{
	const char *d = getenv("VSWEEP_TEST_FMU_DIR");
	ck_assert_ptr_nonnull(d);
	char *p = malloc(strlen(d) + strlen(name) + 8);
	sprintf(p, "%s/%s.fmu", d, name);
	return p;
}

/* Straight ahead at 10 m/s from (5, 7) at yaw 0.3 for 1 s: closed form,
 * for both start-pose styles and both FMI versions. */
START_TEST(drives_straight)
{
	static const char *names[] = {"st2_start", "st2_local", "st3_start",
	                              "st3_local"};
	char *path = test_fmu(names[_i]);
	vs_error err = {{0}};
	vs_fmu *f = vs_fmu_open(path, NULL, NULL, 0, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	const vs_plugin *d = vs_fmu_plugin(f);
	ck_assert_str_eq(d->name, "fmu");
	ck_assert_int_eq(d->n_outputs, 7);
	vs_actor_info a = sedan_info();
	a.start.x = 5;
	a.start.y = 7;
	a.start.yaw = 0.3;
	a.start.speed = 10;
	double params[32], out[8] = {0};
	default_params(d, params, 32);
	set_param(d, params, "cg_y", 0.1);
	vs_create_args args = {sizeof args, &a, params, NULL, &fake_host,
	                       out, d};
	void *inst = NULL;
	fake_log_clear();
	ck_assert_int_eq(d->create(&args, &inst), VS_OK);
	vs_state s = a.start;
	ck_assert_int_eq(d->reset(inst, &s), VS_OK);
	ck_assert_double_eq_tol(s.x, 5, 1e-12);
	ck_assert_double_eq_tol(s.yaw, 0.3, 1e-12);
	vs_control c = {.speed = 10, .steering_wheel = 0,
	                .accel = NAN};
	for (int k = 1; k <= 100; k++)
		ck_assert_int_eq(d->vehicle_step(inst, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	ck_assert_double_eq_tol(s.x, 5 - 10 * sin(0.3), 1e-9);
	ck_assert_double_eq_tol(s.y, 7 + 10 * cos(0.3), 1e-9);
	ck_assert_double_eq_tol(s.yaw, 0.3, 1e-12);
	ck_assert_double_eq_tol(s.vx, -10 * sin(0.3), 1e-9);
	ck_assert_double_eq_tol(s.speed, 10, 1e-9);
	ck_assert_double_eq_tol(out[0], 0, 1e-15); /* beta */
	d->destroy(inst);
	vs_fmu_close(f);
	free(path);
}
END_TEST

START_TEST(error_status_fails)
{
	char *path = test_fmu("st2_fail");
	vs_error err = {{0}};
	vs_fmu *f = vs_fmu_open(path, NULL, NULL, 0, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	const vs_plugin *d = vs_fmu_plugin(f);
	vs_actor_info a = sedan_info();
	double params[32];
	default_params(d, params, 32);
	set_param(d, params, "fail_time", 0.05);
	void *inst = create_ok(d, &a, params);
	vs_state s = a.start;
	d->reset(inst, &s);
	vs_control c = {.speed = 10, .steering_wheel = 0,
	                .accel = NAN};
	vs_status st = VS_OK;
	int k = 0;
	while (st == VS_OK && k < 100) {
		k++;
		st = d->vehicle_step(inst, k * 0.01, 0.01, &c, &s);
	}
	ck_assert_int_eq(st, VS_ERROR);
	ck_assert_int_eq(k, 5);
	ck_assert_int_eq(fake_log_errors(), 1);
	ck_assert_contains(fake_log_text(), "simulated failure at t = 0.05 s");
	d->destroy(inst);
	vs_fmu_close(f);
	free(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fmu");
	TCase *tc = tcase_create("fmu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_fmi2);
	tcase_add_test(tc, reads_fmi3);
	tcase_add_loop_test(tc, refuses_bad_md, 0,
	                    (int)(sizeof bad_md / sizeof bad_md[0]));
	tcase_add_test(tc, unpack_refuses_climbing_entries);
	tcase_add_loop_test(tc, drives_straight, 0, 4);
	tcase_add_test(tc, error_status_fails);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
