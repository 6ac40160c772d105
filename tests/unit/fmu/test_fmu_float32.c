/* Unit tests of FMI 3.0 Float32 variables: read from modelDescription.xml
 * as ports vsweep exchanges (scalars only), and the FMU of
 * tests/fmu/float32.c, packed here, driven through its descriptor: a
 * straight run at v is x = x0 - v t sin(yaw0), y = y0 + v t cos(yaw0),
 * its inputs arrive rounded to the nearest float, a value no float holds
 * is refused, arrays and integers on a port still are. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "fake_host.h"
#include "fmu/fmu.h"
#include "fmu/fmu_internal.h"
#include "fmu_unit.h"

START_TEST(reads_float32)
{
	write_md("<fmiModelDescription fmiVersion=\"3.0\" modelName=\"c\" "
	         "instantiationToken=\"t\">\n"
	         "<CoSimulation modelIdentifier=\"c\"/>\n"
	         "<TypeDefinitions><Float32Type name=\"Len\" unit=\"m\"/>"
	         "</TypeDefinitions>\n<ModelVariables>\n"
	         "<Float32 name=\"speed\" valueReference=\"0\" "
	         "causality=\"input\" start=\"0\" unit=\"m/s\"/>\n"
	         "<Float32 name=\"x\" valueReference=\"1\" causality=\"output\" "
	         "declaredType=\"Len\"/>\n"
	         "<Float32 name=\"m\" valueReference=\"2\" "
	         "causality=\"parameter\" start=\"1500.5\" min=\"100\" "
	         "max=\"5000\"/>\n"
	         /* FLT_MAX and a little: its nearest float is FLT_MAX */
	         "<Float32 name=\"big\" valueReference=\"3\" "
	         "causality=\"parameter\" start=\"3.4028235e38\"/>\n"
	         "<Float32 name=\"a\" valueReference=\"4\" causality=\"output\">"
	         "<Dimension start=\"2\"/></Float32>\n"
	         "<Float64 name=\"y\" valueReference=\"5\" "
	         "causality=\"output\"/>\n"
	         "</ModelVariables>\n</fmiModelDescription>\n");
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_msg(vs_fmu_md_read("c.fmu", tmp, &md, &err) == 0, "%s",
	              err.msg);
	const fmu_var *speed = vs_fmu_md_find(&md, "speed");
	ck_assert_int_eq(speed->is_real, 1);
	ck_assert_int_eq(speed->float32, 1);
	ck_assert_str_eq(speed->unit, "m/s");
	ck_assert_str_eq(speed->type, "Float32");
	/* its declaredType's unit, as a Float64's */
	ck_assert_str_eq(vs_fmu_md_find(&md, "x")->unit, "m");
	const fmu_var *m = vs_fmu_md_find(&md, "m");
	ck_assert_int_eq(m->float32, 1);
	ck_assert_double_eq(m->start, 1500.5);
	ck_assert_double_eq(m->min, 100);
	ck_assert_double_eq(m->max, 5000);
	ck_assert_double_eq(vs_fmu_md_find(&md, "big")->start, 3.4028235e38);
	/* an array is no port, whatever its type */
	const fmu_var *a = vs_fmu_md_find(&md, "a");
	ck_assert_int_eq(a->array, 1);
	ck_assert_int_eq(a->is_real, 0);
	ck_assert_int_eq(a->float32, 0);
	const fmu_var *y = vs_fmu_md_find(&md, "y");
	ck_assert_int_eq(y->is_real, 1);
	ck_assert_int_eq(y->float32, 0);
	vs_fmu_md_free(&md);
}
END_TEST

/* A Float32 description whose one variable, on line 4, is el. */
static void write_f32(const char *el)
{
	char md[1024];
	snprintf(md, sizeof md,
	         "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"c\" "
	         "instantiationToken=\"t\">\n"
	         "<CoSimulation modelIdentifier=\"c\"/>\n"
	         "<ModelVariables>\n%s\n</ModelVariables>\n"
	         "</fmiModelDescription>\n", el);
	write_md(md);
}

#define F32_PARAM(attrs)                                                   \
	"<Float32 name=\"w\" valueReference=\"1\" causality=\"parameter\" " \
	attrs "/>"

/* A Float32's start, min and max are xs:floats: each is the nearest
 * float to what is written, and they are compared as those floats
 * (2.7 and 2.7000000476837158 are both 2.7f, 0x1.59999ap+1), shown to
 * 9 digits; a bound whose nearest float is infinite is INF. */
START_TEST(float32_bounds_are_floats)
{
	static const struct {
		const char *el;
		double start, min, max;
	} ok[] = {
		{F32_PARAM("start=\"2.7000000476837158\" min=\"0.5\" "
		           "max=\"2.7\""), 2.7000000476837158, 0.5,
		 0x1.59999ap+1},
		/* 2.7000001 is 2.7f too: min = max */
		{F32_PARAM("start=\"2.7\" min=\"2.7000001\" max=\"2.7\""), 2.7,
		 0x1.59999ap+1, 0x1.59999ap+1},
		/* FLT_MAX, 2^128 - 2^104, as usually written */
		{F32_PARAM("start=\"3.4028235e+38\" max=\"3.4028235e+38\""),
		 3.4028235e+38, -HUGE_VAL, 0x1.fffffep+127},
		/* nearest float infinite: INF, which bounds nothing */
		{F32_PARAM("start=\"1\" min=\"-1e39\" max=\"3.4028236e+38\""),
		 1, -HUGE_VAL, HUGE_VAL},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		write_f32(ok[i].el);
		fmu_md md;
		vs_error err = {{0}};
		ck_assert_msg(vs_fmu_md_read("c.fmu", tmp, &md, &err) == 0,
		              "%zu: %s", i, err.msg);
		const fmu_var *w = vs_fmu_md_find(&md, "w");
		ck_assert_double_eq(w->start, ok[i].start);
		ck_assert_double_eq(w->min, ok[i].min);
		ck_assert_double_eq(w->max, ok[i].max);
		vs_fmu_md_free(&md);
	}
	static const struct {
		const char *el, *says;
	} bad[] = {
		/* 2.7000003 is the float after 2.7f, 0x1.59999cp+1 */
		{F32_PARAM("start=\"2.7000003\" min=\"0.5\" max=\"2.7\""),
		 "c.fmu: modelDescription.xml:4: parameter 'w' has start "
		 "2.70000029 (as a Float32), outside its range [0.5, "
		 "2.70000005] (min and max)"},
		{F32_PARAM("start=\"-3.4028235e+38\" min=\"-3.4028233e+38\""),
		 "c.fmu: modelDescription.xml:4: parameter 'w' has start "
		 "-3.40282347e+38 (as a Float32), outside its range "
		 "[-3.40282326e+38, inf]"},
		{"<Float32 name=\"w\" valueReference=\"1\" causality=\"output\""
		 " min=\"2.7000003\" max=\"2.7\"/>",
		 "c.fmu: modelDescription.xml:4: variable 'w' has min "
		 "2.70000029 above its max 2.70000005 (as Float32s)"},
		/* a start is no bound: its nearest float must be finite */
		{F32_PARAM("start=\"3.4028236e+38\""),
		 "c.fmu: modelDescription.xml:4: variable 'w' has start "
		 "\"3.4028236e+38\", which is beyond the range of a Float32"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		write_f32(bad[i].el);
		fmu_md md;
		vs_error err = {{0}};
		ck_assert_int_eq(vs_fmu_md_read("c.fmu", tmp, &md, &err), -1);
		ck_assert_contains(err.msg, bad[i].says);
		vs_fmu_md_free(&md);
	}
}
END_TEST

/* float32.c's variables (its enum), one a line from line 4 of the
 * description; replace, when given, stands for the one named so. */
static const struct {
	const char *name, *vr, *type, *caus, *start;
} f32_vars[] = {
	{"speed", "0", "Float32", "input", "0"},
	{"steering_wheel", "1", "Float32", "input", "0"},
	{"x", "2", "Float32", "output", NULL},
	{"y", "3", "Float32", "output", NULL},
	{"yaw", "4", "Float32", "output", NULL},
	{"vx", "5", "Float32", "output", NULL},
	{"vy", "6", "Float32", "output", NULL},
	{"speed_seen", "7", "Float32", "output", NULL},
	{"dist", "8", "Float64", "output", NULL},
	{"x0", "10", "Float32", "parameter", "0"},
	{"y0", "11", "Float32", "parameter", "0"},
	{"yaw0", "12", "Float32", "parameter", "0"},
	{"ratio", "13", "Float32", "parameter", "15"},
	{"wheelbase", "14", "Float32", "parameter", "3"},
};

/* Packs tmp/f.fmu: the description and float32.so; returns its path. */
static char *pack_f32(const char *name, const char *replace)
{
	char md[4096];
	size_t n = (size_t)snprintf(md, sizeof md,
		"<fmiModelDescription fmiVersion=\"3.0\" modelName=\"float32\" "
		"instantiationToken=\"{float32-7d2a}\">\n"
		"<CoSimulation modelIdentifier=\"float32\"/>\n"
		"<ModelVariables>\n");
	for (size_t i = 0; i < sizeof f32_vars / sizeof *f32_vars; i++) {
		const char *caus = f32_vars[i].caus;
		char start[48] = "";
		if (f32_vars[i].start)
			snprintf(start, sizeof start, " start=\"%s\"",
			         f32_vars[i].start);
		if (name && !strcmp(name, f32_vars[i].name))
			n += (size_t)snprintf(md + n, sizeof md - n, "%s\n", replace);
		else
			n += (size_t)snprintf(md + n, sizeof md - n,
			                      "<%s name=\"%s\" valueReference=\"%s\" "
			                      "causality=\"%s\"%s%s/>\n",
			                      f32_vars[i].type, f32_vars[i].name,
			                      f32_vars[i].vr, caus,
			                      strcmp(caus, "parameter")
			                              ? "" : " variability=\"tunable\"",
			                      start);
	}
	snprintf(md + n, sizeof md - n,
	         "</ModelVariables>\n</fmiModelDescription>\n");
	const char *d = getenv("VSWEEP_TEST_FMU_DIR");
	ck_assert_ptr_nonnull(d);
	char so[1024];
	snprintf(so, sizeof so, "%s/float32.so", d);
	char *path = malloc(strlen(tmp) + 16);
	sprintf(path, "%s/f.fmu", tmp);
	int e = 0;
	zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
	ck_assert_ptr_nonnull(z);
	zip_source_t *s = zip_source_buffer(z, md, strlen(md), 0);
	ck_assert_int_ge(zip_file_add(z, "modelDescription.xml", s, 0), 0);
	zip_source_t *b = zip_source_file(z, so, 0, -1);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_ge(zip_file_add(z, "binaries/x86_64-linux/float32.so", b,
	                              0), 0);
	ck_assert_int_eq(zip_close(z), 0);
	return path;
}

/* 10.1 m/s, not a float, for 1 s from (5, 7) at yaw 0.3. */
START_TEST(drives_float32_ports)
{
	char *path = pack_f32(NULL, NULL);
	vs_error err = {{0}};
	vs_fmu *f = vs_fmu_open(path, NULL, NULL, 0, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	const vs_plugin *d = vs_fmu_plugin(f);
	ck_assert_int_eq(d->n_params, 2); /* ratio, wheelbase */
	ck_assert_int_eq(d->n_outputs, 2);
	ck_assert_str_eq(d->outputs[0].name, "speed_seen");
	ck_assert_str_eq(d->outputs[1].name, "dist");
	/* a Float32 param's range is a float's: every double whose nearest
	 * float is finite, up to 2^128 - 2^103 (halfway from FLT_MAX to
	 * 2^128, which rounds to infinity) less a double's ulp there, 2^75 */
	ck_assert(d->params[0].min == -0x1.fffffefffffffp+127);
	ck_assert(d->params[0].max == 0x1.fffffefffffffp+127);
	vs_actor_info a = sedan_info();
	a.start.x = 5;
	a.start.y = 7;
	a.start.yaw = 0.3;
	a.start.speed = 10.1;
	double params[4], out[2] = {0};
	default_params(d, params, 4);
	vs_create_args args = {sizeof args, &a, params, NULL, &fake_host,
	                       out, d};
	void *inst = NULL;
	fake_log_clear();
	ck_assert_int_eq(d->create(&args, &inst), VS_OK);
	vs_state s = a.start;
	ck_assert_int_eq(d->reset(inst, &s), VS_OK);
	ck_assert_double_eq(s.x, 5);
	vs_control c = {.speed = 10.1, .steering_wheel = 0, .accel = NAN};
	for (int k = 1; k <= 100; k++)
		ck_assert_int_eq(d->vehicle_step(inst, k * 0.01, 0.01, &c, &s),
		                 VS_OK);
	const double v = 10.1f; /* what the FMU is given */
	ck_assert_double_eq_tol(s.x, 5 - v * sin(0.3), 1e-4 * v);
	ck_assert_double_eq_tol(s.y, 7 + v * cos(0.3), 1e-4 * v);
	ck_assert_double_eq_tol(s.yaw, 0.3, 1e-7);
	ck_assert(out[0] == v);   /* the nearest float, widened exactly */
	ck_assert(out[0] != 10.1);
	ck_assert_double_eq_tol(out[1], v, 1e-12); /* Float64, v * 1 s */
	ck_assert_int_eq(fake_log_errors(), 0);
	d->destroy(inst);

	/* A param no float holds (past the host's range check): the
	 * variant is refused, naming the variable and the value. */
	set_param(d, params, "ratio", 1e39);
	fake_log_clear();
	ck_assert_int_eq(d->create(&args, &inst), VS_ERROR);
	ck_assert_ptr_null(inst);
	/* the double nearest 1e39, to 17 digits */
	ck_assert_contains(fake_log_text(), "variable 'ratio' (a param) is a "
	                   "Float32 and cannot take 9.9999999999999994e+38");
	vs_fmu_close(f);
	free(path);
}
END_TEST

/* A Float32 param's range in the descriptor holds exactly the doubles
 * whose nearest float is in [min, max] as floats: from halfway to the
 * float below min to halfway to the float above max, a halfway point
 * itself in when it rounds to the bound (ties to even: 0.5f's last bit
 * is 0, 2.7f's and FLT_MAX's are 1). */
START_TEST(float32_param_range_holds_its_floats)
{
	static const struct {
		const char *name, *el;
		size_t at;
		double lo, hi;
		float flo, fhi;
	} cases[] = {
		/* 0.5 - 2^-26; 2.7f (0x1.59999ap+1) and halfway to the float
		 * after it, 0x1.59999bp+1, less a double's ulp */
		{"wheelbase", "<Float32 name=\"wheelbase\" valueReference=\"14\" "
		 "causality=\"parameter\" start=\"2.7000000476837158\" "
		 "min=\"0.5\" max=\"2.7\"/>", 1,
		 0x1.ffffffp-2, 0x1.59999afffffffp+1, 0.5f, 0x1.59999ap+1f},
		/* FLT_MAX written shortest: 2^128 - 2^103 less 2^75 */
		{"ratio", "<Float32 name=\"ratio\" valueReference=\"13\" "
		 "causality=\"parameter\" start=\"15\" "
		 "min=\"-3.4028235e+38\" max=\"3.4028235e+38\"/>", 0,
		 -0x1.fffffefffffffp+127, 0x1.fffffefffffffp+127, -FLT_MAX,
		 FLT_MAX},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *path = pack_f32(cases[i].name, cases[i].el);
		vs_error err = {{0}};
		vs_fmu *f = vs_fmu_open(path, NULL, NULL, 0, &err);
		ck_assert_msg(f != NULL, "%s", err.msg);
		const vs_param *p = &vs_fmu_plugin(f)->params[cases[i].at];
		ck_assert_str_eq(p->name, cases[i].name);
		ck_assert(p->min == cases[i].lo);
		ck_assert(p->max == cases[i].hi);
		/* C's own rounding agrees: the bounds round to the floats,
		 * the doubles past them to others */
		ck_assert((float)p->min == cases[i].flo);
		ck_assert((float)p->max == cases[i].fhi);
		/* (past FLT_MAX, infinity: there the closed form says it) */
		if (cases[i].flo > -FLT_MAX)
			ck_assert((float)nextafter(p->min, -INFINITY) <
			          cases[i].flo);
		if (cases[i].fhi < FLT_MAX)
			ck_assert((float)nextafter(p->max, INFINITY) >
			          cases[i].fhi);
		ck_assert(p->default_value >= p->min &&
		          p->default_value <= p->max);
		vs_fmu_close(f);
		free(path);
	}
}
END_TEST

/* Still refused on a port: a Float32 array, an integer; with the line
 * of the variable (line 4 + its index: speed 4, x 6). */
START_TEST(refuses_float32_arrays_and_integers)
{
	static const struct {
		const char *name, *element, *says;
	} cases[] = {
		{"speed", "<Float32 name=\"speed\" valueReference=\"0\" "
		          "causality=\"input\"><Dimension start=\"2\"/></Float32>",
		 "f.fmu: modelDescription.xml:4: variable 'speed' is an array "
		 "(Float32 with <Dimension>), but vsweep exchanges speed as a "
		 "scalar Float64 or Float32; not supported"},
		{"x", "<Int32 name=\"x\" valueReference=\"2\" "
		      "causality=\"output\"/>",
		 "f.fmu: modelDescription.xml:6: variable 'x' is of type Int32, "
		 "but vsweep exchanges x as a scalar Float64 or Float32"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *path = pack_f32(cases[i].name, cases[i].element);
		vs_error err = {{0}};
		ck_assert_ptr_null(vs_fmu_open(path, NULL, NULL, 0, &err));
		ck_assert_contains(err.msg, cases[i].says);
		free(path);
	}
}
END_TEST

TCase *float32_tcase(void)
{
	TCase *tc = tcase_create("float32");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_float32);
	tcase_add_test(tc, float32_bounds_are_floats);
	tcase_add_test(tc, drives_float32_ports);
	tcase_add_test(tc, float32_param_range_holds_its_floats);
	tcase_add_test(tc, refuses_float32_arrays_and_integers);
	return tc;
}
