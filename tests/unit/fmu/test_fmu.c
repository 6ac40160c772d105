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
#include "fmu_unit.h"

char tmp[256];

void setup(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/vsweep_fmu_unit_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	setenv("TMPDIR", tmp, 1);
}

/* Whatever the test unpacked is gone again: only its own files remain. */
void teardown(void)
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

void write_md(const char *text)
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
	{"<fmiModelDescription fmiVersion=\"2.0\" guid=\"g\"><ModelExchange "
	 "modelIdentifier=\"a\"/></fmiModelDescription>",
	 "no CoSimulation interface"},
	{"<fmiModelDescription fmiVersion=\"3.0\" instantiationToken=\"t\">\n"
	 "<ScheduledExecution "
	 "modelIdentifier=\"a\"/></fmiModelDescription>",
	 "modelDescription.xml:2: the FMU has no CoSimulation interface "
	 "(scheduled execution FMUs are not supported)"},
	{"<fmiModelDescription fmiVersion=\"3.0\" instantiationToken=\"t\">"
	 "<CoSimulation modelIdentifier=\"../a\"/></fmiModelDescription>",
	 "no valid modelIdentifier"},
	{"<fmiModelDescription fmiVersion=\"3.0\" instantiationToken=\"t\">"
	 "<CoSimulation modelIdentifier=\"a\"/><ModelVariables><Float64 name=\"v\" "
	 "valueReference=\"x\"/></ModelVariables></fmiModelDescription>",
	 "variable 'v' has no valid valueReference"},
	/* the token the FMU checks at instantiation is required */
	{"<fmiModelDescription fmiVersion=\"2.0\">\n<CoSimulation "
	 "modelIdentifier=\"a\"/></fmiModelDescription>",
	 "modelDescription.xml:1: fmiModelDescription has no guid (FMI 2.0 "
	 "requires it)"},
	{"<fmiModelDescription fmiVersion=\"3.0\" guid=\"g\">\n<CoSimulation "
	 "modelIdentifier=\"a\"/></fmiModelDescription>",
	 "modelDescription.xml:1: fmiModelDescription has no instantiationToken "
	 "(FMI 3.0 requires it)"},
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

/* Descriptions around a list of variables, one a line from line 4. */
#define MD2(vars)                                                          \
	"<fmiModelDescription fmiVersion=\"2.0\" modelName=\"c\" guid=\"g\">\n" \
	"<CoSimulation modelIdentifier=\"c\"/>\n<ModelVariables>\n" vars     \
	"</ModelVariables>\n</fmiModelDescription>\n"
#define MD3(vars)                                                          \
	"<fmiModelDescription fmiVersion=\"3.0\" modelName=\"c\" "             \
	"instantiationToken=\"t\">\n"                                          \
	"<CoSimulation modelIdentifier=\"c\"/>\n<ModelVariables>\n" vars     \
	"</ModelVariables>\n</fmiModelDescription>\n"
#define SV(name, vr, caus, type)                                           \
	"<ScalarVariable name=\"" name "\" valueReference=\"" vr "\" "      \
	"causality=\"" caus "\">" type "</ScalarVariable>\n"
#define PAR2(name, vr, start)                                              \
	SV(name, vr, "parameter", "<Real start=\"" start "\"/>")
#define PAR3(name, vr, start)                                              \
	"<Float64 name=\"" name "\" valueReference=\"" vr "\" "             \
	"causality=\"parameter\" start=\"" start "\"/>\n"

/* What the standard does not allow in ModelVariables, and the refusal:
 * the line of the variable (of its type element, for start, min, max:
 * the same line here) and its name. */
static const struct {
	const char *text, *says;
} bad_vars[] = {
	/* FMI 2.0 allows no NaN or INF in modelDescription.xml, however
	 * spelled; a number beyond a double is infinite too */
	{MD2(PAR2("m", "1", "1") PAR2("Iz", "2", "nan")),
	 "car.fmu: modelDescription.xml:5: variable 'Iz' has start \"nan\", "
	 "which is not a finite number (FMI 2.0 allows no NaN or INF"},
	{MD2(PAR2("Iz", "2", "inf")), ":4: variable 'Iz' has start \"inf\", "
	 "which is not a finite number"},
	{MD2(PAR2("Iz", "2", "-inf")), ":4: variable 'Iz' has start \"-inf\", "
	 "which is not a finite number"},
	{MD2(PAR2("Iz", "2", "1e999")), ":4: variable 'Iz' has start "
	 "\"1e999\", which is not a finite number"},
	{MD2(PAR2("Iz", "2", "NaN")), ":4: variable 'Iz' has start \"NaN\", "
	 "which is not a finite number"},
	{MD2(PAR2("Iz", "2", "-INF")), ":4: variable 'Iz' has start "
	 "\"-INF\", which is not a finite number"},
	{MD2(SV("y", "3", "output", "<Real start=\"INF\"/>")),
	 ":4: variable 'y' has start \"INF\", which is not a finite number"},
	/* starts that are not numbers of their type */
	{MD2(PAR2("Iz", "2", "abc")), ":4: variable 'Iz' has start \"abc\", "
	 "which is not a number"},
	{MD2(PAR2("Iz", "2", "")), ":4: variable 'Iz' has start \"\", which "
	 "is not a number"},
	{MD2(PAR2("Iz", "2", "1.5x")), ":4: variable 'Iz' has start "
	 "\"1.5x\", which is not a number"},
	{MD2(PAR2("Iz", "2", "0x10")), "start \"0x10\", which is not a "
	 "number"},
	{MD2(PAR2("Iz", "2", "1 2")), "start \"1 2\", which is not a number"},
	{MD2(SV("n", "4", "input", "<Integer start=\"1.5\"/>")),
	 ":4: variable 'n' has start \"1.5\", which is not an integer"},
	{MD2(SV("n", "4", "input", "<Integer start=\"abc\"/>")),
	 "start \"abc\", which is not an integer"},
	{MD2(SV("n", "4", "input", "<Integer start=\"3000000000\"/>")),
	 "start \"3000000000\", which is outside Integer's range "
	 "[-2147483648, 2147483647]"},
	{MD2(SV("e", "4", "input", "<Enumeration declaredType=\"E\" "
	                           "start=\"x\"/>")),
	 "variable 'e' has start \"x\", which is not an integer"},
	{MD2(SV("b", "5", "input", "<Boolean start=\"yes\"/>")),
	 ":4: variable 'b' has start \"yes\", which is not a Boolean (true, "
	 "false, 1 or 0)"},
	{MD2(SV("b", "5", "input", "<Boolean start=\"\"/>")),
	 "variable 'b' has start \"\", which is not a Boolean"},
	{MD2(SV("m", "1", "parameter", "<Real start=\"1\" min=\"abc\"/>")),
	 ":4: variable 'm' has min \"abc\", which is not a number"},
	{MD2(SV("m", "1", "parameter", "<Real start=\"1\" max=\"inf\"/>")),
	 ":4: variable 'm' has max \"inf\", which is not an XML number"},
	/* a parameter's start within its min and max; min <= max */
	{MD2(SV("m", "1", "parameter",
	        "<Real start=\"50\" min=\"100\" max=\"5000\"/>")),
	 ":4: parameter 'm' has start 50, outside its range [100, 5000] "
	 "(min and max)"},
	{MD3("<Float64 name=\"m\" valueReference=\"1\" causality="
	     "\"parameter\" variability=\"fixed\" start=\"6000\" "
	     "max=\"5000\"/>\n"),
	 ":4: parameter 'm' has start 6000, outside its range [-inf, 5000]"},
	{MD2(SV("y", "1", "output", "<Real min=\"2\" max=\"1\"/>")),
	 ":4: variable 'y' has min 2 above its max 1"},
	/* names are unique: the second is named, with the first's line */
	{MD2(PAR2("Iz", "1", "1") PAR2("m", "2", "1") PAR2("Iz", "3", "2")),
	 "car.fmu: modelDescription.xml:6: the name 'Iz' is declared twice "
	 "(first on line 4): variable names must be unique"},
	/* two variables the host sets may not be aliases in FMI 2.0 */
	{MD2(PAR2("a", "1", "1") PAR2("b", "1", "2")),
	 ":5: variable 'b' has valueReference 1, as has 'a' on line 4, and "
	 "both are set from outside (parameter, input or independent): FMI "
	 "2.0 does not allow such variables to be aliases"},
	{MD2(SV("u", "1", "input", "<Real start=\"0\"/>") PAR2("p", "1", "2")),
	 ":5: variable 'p' has valueReference 1, as has 'u' on line 4"},
	/* causality and variability from the standard's lists */
	{MD2(SV("p", "1", "param", "<Real start=\"1\"/>")),
	 ":4: variable 'p' has causality \"param\", which FMI 2.0 does not "
	 "know (parameter, calculatedParameter, input, output, local, "
	 "independent)"},
	{MD2(SV("p", "1", "structuralParameter", "<Real start=\"1\"/>")),
	 "causality \"structuralParameter\", which FMI 2.0 does not know"},
	{MD2("<ScalarVariable name=\"p\" valueReference=\"1\" causality="
	     "\"parameter\" variability=\"Tunable\"><Real start=\"1\"/>"
	     "</ScalarVariable>\n"),
	 ":4: variable 'p' has variability \"Tunable\", which FMI 2.0 does "
	 "not know (constant, fixed, tunable, discrete, continuous)"},
	/* FMI 3.0: NaN, INF, -INF are XML numbers; others' spellings and
	 * numbers beyond a double are not */
	{MD3(PAR3("Iz", "2", "nan")), ":4: variable 'Iz' has start \"nan\", "
	 "which is not an XML number (XML spells these NaN, INF and -INF)"},
	{MD3(PAR3("Iz", "2", "inf")), "start \"inf\", which is not an XML "
	 "number"},
	{MD3(PAR3("Iz", "2", "-inf")), "start \"-inf\", which is not an XML "
	 "number"},
	{MD3(PAR3("Iz", "2", "1e999")), ":4: variable 'Iz' has start "
	 "\"1e999\", which is beyond the range of a double"},
	{MD3(PAR3("Iz", "2", "abc")), ":4: variable 'Iz' has start \"abc\", "
	 "which is not a number"},
	{MD3(PAR3("Iz", "2", "1 2")), "start \"1 2\", which is not a number"},
	{MD3("<Int8 name=\"n\" valueReference=\"1\" start=\"200\"/>\n"),
	 ":4: variable 'n' has start \"200\", which is outside Int8's range "
	 "[-128, 127]"},
	{MD3("<UInt64 name=\"n\" valueReference=\"1\" start=\"-1\"/>\n"),
	 "start \"-1\", which is outside UInt64's range"},
	{MD3("<Boolean name=\"b\" valueReference=\"1\" start=\"2\"/>\n"),
	 ":4: variable 'b' has start \"2\", which is not a Boolean"},
	/* a Float32's start is a number its nearest float is: FLT_MAX and
	 * half its ulp, 2^128 - 2^103 = 3.40282357e38, is infinite */
	{MD3("<Float32 name=\"p\" valueReference=\"1\" causality="
	     "\"parameter\" start=\"3.4028236e38\"/>\n"),
	 ":4: variable 'p' has start \"3.4028236e38\", which is beyond the "
	 "range of a Float32 (infinity is written INF)"},
	{MD3("<Float32 name=\"p\" valueReference=\"1\" start=\"-1e39\"/>\n"),
	 ":4: variable 'p' has start \"-1e39\", which is beyond the range of "
	 "a Float32"},
	{MD3("<Float64 name=\"a\" valueReference=\"1\" start=\"1 x 3\">"
	     "<Dimension start=\"3\"/></Float64>\n"),
	 ":4: variable 'a' has start item \"x\", which is not a number"},
	{MD3(PAR3("Iz", "1", "1") PAR3("Iz", "2", "2")),
	 ":5: the name 'Iz' is declared twice (first on line 4)"},
	/* an alias's name is unique among variables and aliases */
	{MD3("<Float64 name=\"m\" valueReference=\"1\">\n"
	     "<Alias name=\"Iz\"/></Float64>\n" PAR3("Iz", "2", "1")),
	 ":6: the name 'Iz' is declared twice (first on line 5)"},
	{MD3("<Float64 name=\"m\" valueReference=\"1\">\n"
	     "<Alias name=\"m\"/></Float64>\n"),
	 ":5: the name 'm' is declared twice (first on line 4)"},
	/* FMI 3.0: every value reference is unique, whatever the types */
	{MD3("<Float64 name=\"y\" valueReference=\"7\" causality=\"output\"/>\n"
	     "<Int32 name=\"n\" valueReference=\"7\" causality=\"output\"/>\n"),
	 ":5: variable 'n' has valueReference 7, as has 'y' on line 4: FMI "
	 "3.0 requires unique value references"},
	{MD3("<Float64 name=\"y\" valueReference=\"1\" causality=\"out\"/>\n"),
	 ":4: variable 'y' has causality \"out\", which FMI 3.0 does not know "
	 "(parameter, calculatedParameter, input, output, local, independent, "
	 "structuralParameter)"},
	{MD3("<Float64 name=\"y\" valueReference=\"1\" variability=\"x\"/>\n"),
	 ":4: variable 'y' has variability \"x\", which FMI 3.0 does not "
	 "know"},
	{MD3("<Float64 name=\"\" valueReference=\"1\"/>\n"),
	 ":4: a variable without name or valueReference"},
};

START_TEST(refuses_bad_vars)
{
	write_md(bad_vars[_i].text);
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("car.fmu", tmp, &md, &err), -1);
	ck_assert_contains(err.msg, bad_vars[_i].says);
	ck_assert_contains(err.msg, "car.fmu: modelDescription.xml:");
	vs_fmu_md_free(&md);
}
END_TEST

/* What the standard allows is read: FMI 2 aliases the host does not both
 * set, a value reference shared across base types, numbers as XML Schema
 * spells them; FMI 3 NaN and INF, arrays, aliases, structural
 * parameters. */
START_TEST(reads_legal_vars)
{
	write_md(MD2(PAR2("m", "1", " +1.5e3 ")
	             SV("m_out", "1", "calculatedParameter", "<Real/>")
	             SV("y", "2", "output", "<Real/>")
	             SV("y_alias", "2", "local", "<Real/>")
	             SV("n", "1", "parameter", "<Integer start=\"-7\"/>")
	             SV("b", "1", "input", "<Boolean start=\"true\"/>")
	             SV("tiny", "3", "local", "<Real start=\"1e-999\"/>")
	             SV("lf", "4", "parameter",
	                "<Real start=\"1.\" min=\"-INF\" max=\"NaN\"/>")
	             SV("s", "1", "input", "<String start=\"nan\"/>")));
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_msg(vs_fmu_md_read("car.fmu", tmp, &md, &err) == 0, "%s",
	              err.msg);
	const fmu_var *m = vs_fmu_md_find(&md, "m");
	ck_assert_double_eq(m->start, 1500);
	ck_assert_int_eq(m->line, 4);
	ck_assert_double_eq(vs_fmu_md_find(&md, "n")->start, -7);
	ck_assert_double_eq(vs_fmu_md_find(&md, "b")->start, 1);
	ck_assert_double_eq(vs_fmu_md_find(&md, "tiny")->start, 0);
	const fmu_var *lf = vs_fmu_md_find(&md, "lf");
	ck_assert_double_eq(lf->start, 1);
	ck_assert(isinf(lf->min) && isinf(lf->max) && lf->max > 0);
	vs_fmu_md_free(&md);

	write_md(MD3(PAR3("vmax", "1", "INF")
	             PAR3("nan", "2", "NaN")
	             "<Float64 name=\"a\" valueReference=\"3\" "
	             "causality=\"output\" start=\"1 INF\n-2.5\">"
	             "<Dimension start=\"3\"/><Alias name=\"a_alias\"/>"
	             "</Float64>\n"
	             "<UInt64 name=\"len\" valueReference=\"4\" "
	             "causality=\"structuralParameter\" variability=\"fixed\" "
	             "start=\"18446744073709551615\"/>\n"
	             "<Int8 name=\"k\" valueReference=\"5\" start=\"-128\"/>\n"
	             "<Boolean name=\"on\" valueReference=\"6\" start=\"0\"/>\n"
	             "<String name=\"s\" valueReference=\"7\">"
	             "<Start value=\"x\"/></String>\n"));
	ck_assert_msg(vs_fmu_md_read("car.fmu", tmp, &md, &err) == 0, "%s",
	              err.msg);
	const fmu_var *vmax = vs_fmu_md_find(&md, "vmax");
	ck_assert_int_eq(vmax->has_start, 1);
	ck_assert(isinf(vmax->start) && vmax->start > 0);
	ck_assert(isnan(vs_fmu_md_find(&md, "nan")->start));
	const fmu_var *a = vs_fmu_md_find(&md, "a");
	ck_assert_int_eq(a->array, 1);
	ck_assert_int_eq(a->is_real, 0); /* vsweep exchanges scalars only */
	ck_assert_int_eq(a->has_start, 0);
	ck_assert_double_eq(vs_fmu_md_find(&md, "k")->start, -128);
	ck_assert_int_eq(vs_fmu_md_find(&md, "on")->has_start, 1);
	vs_fmu_md_free(&md);
}
END_TEST

/* Large models' descriptions run past line 65535, where libxml2 stops
 * counting unless asked not to: the message has the line as it is. */
START_TEST(says_lines_past_65535)
{
	const char *head = MD2("");
	const char *mv = strstr(head, "<ModelVariables>\n") +
	                 strlen("<ModelVariables>\n");
	size_t n = strlen(head) + 80000 + 200;
	char *text = malloc(n);
	ck_assert_ptr_nonnull(text);
	size_t k = (size_t)(mv - head);
	memcpy(text, head, k);
	memset(text + k, '\n', 70000); /* lines 4 to 70003 */
	k += 70000;
	snprintf(text + k, n - k, "%s%s",
	         PAR2("m", "1", "1") PAR2("m", "2", "abc"), mv);
	write_md(text);
	free(text);
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("car.fmu", tmp, &md, &err), -1);
	ck_assert_contains(err.msg, "modelDescription.xml:70005: variable 'm' "
	                   "has start \"abc\"");
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

/* The CoSimulation flags are xs:booleans ("1" is true), and an FMU that
 * cannot handle a variable step takes a whole multiple of its own:
 * fixedInternalStepSize; a DefaultExperiment's stepSize is only a
 * suggestion and binds nothing. */
START_TEST(reads_flags_and_fixed_step)
{
	write_md("<fmiModelDescription fmiVersion=\"3.0\" modelName=\"c\" "
	         "instantiationToken=\"t\">\n"
	         "<CoSimulation modelIdentifier=\"c\" "
	         "canBeInstantiatedOnlyOncePerProcess=\" 1 \" "
	         "needsExecutionTool=\"0\" fixedInternalStepSize=\"0.001\"/>\n"
	         "<DefaultExperiment stepSize=\"0.5\"/>\n"
	         "<ModelVariables/>\n</fmiModelDescription>\n");
	fmu_md md;
	vs_error err = {{0}};
	ck_assert_int_eq(vs_fmu_md_read("c.fmu", tmp, &md, &err), 0);
	ck_assert_int_eq(md.once, 1);
	ck_assert_int_eq(md.needs_tool, 0);
	ck_assert_int_eq(md.variable_step, 0);
	ck_assert_double_eq(md.fixed_step, 0.001);
	ck_assert_int_eq(md.fixed_step_line, 2);
	/* 10 and 1 steps of 1 ms; 0.5 and 1.5 are not whole */
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.01, &err), 0);
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.001, &err), 0);
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.0005, &err), -1);
	ck_assert_contains(err.msg, "c:2: the FMU cannot handle a variable "
	                   "communication step size");
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.0015, &err), -1);
	md.variable_step = 1;
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.0015, &err), 0);
	vs_fmu_md_free(&md);

	/* A DefaultExperiment's stepSize alone gives no step of its own */
	write_md("<fmiModelDescription fmiVersion=\"3.0\" modelName=\"c\" "
	         "instantiationToken=\"t\">\n"
	         "<CoSimulation modelIdentifier=\"c\"/>\n"
	         "<DefaultExperiment stepSize=\"0.5\"/>\n"
	         "<ModelVariables/>\n</fmiModelDescription>\n");
	ck_assert_int_eq(vs_fmu_md_read("c.fmu", tmp, &md, &err), 0);
	ck_assert_double_eq(md.fixed_step, 0);
	ck_assert_int_eq(vs_fmu_md_step_ok("c", &md, 0.1, &err), 0);
	vs_fmu_md_free(&md);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fmu");
	TCase *tc = tcase_create("fmu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_fmi2);
	tcase_add_test(tc, reads_fmi3);
	tcase_add_test(tc, reads_flags_and_fixed_step);
	tcase_add_loop_test(tc, refuses_bad_md, 0,
	                    (int)(sizeof bad_md / sizeof bad_md[0]));
	tcase_add_loop_test(tc, refuses_bad_vars, 0,
	                    (int)(sizeof bad_vars / sizeof bad_vars[0]));
	tcase_add_test(tc, reads_legal_vars);
	tcase_add_test(tc, says_lines_past_65535);
	tcase_add_test(tc, unpack_refuses_climbing_entries);
	tcase_add_loop_test(tc, drives_straight, 0, 4);
	tcase_add_test(tc, error_status_fails);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, float32_tcase());
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
