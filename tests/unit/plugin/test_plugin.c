/* The plugin loader and registry: every refusal, checked by what its
 * message tells the user, and the search order of a registry. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin/fake_host.h"
#include "plugin/plugin_internal.h"
#include "plugin/registry.h"

#define ck_assert_contains(hay, needle)                                    \
	ck_assert_msg(strstr((hay), (needle)) != NULL,                     \
	              "expected \"%s\" in: %s", (needle), (hay))

/* ---- vs_plugin_open ------------------------------------------------- */

START_TEST(open_missing_file)
{
	vs_loaded_plugin lp = {(char *)"untouched", (void *)&lp, NULL,
	                      NULL};
	vs_error err = {{0}};
	const char *path = "/nonexistent/vsweep/nowhere.so";
	ck_assert_int_eq(vs_plugin_open(path, &fake_host, &lp, &err), -1);
	ck_assert_contains(err.msg, path);
	ck_assert_contains(err.msg, "no such plugin file");
	/* dlerror's own text is passed on */
	ck_assert_contains(err.msg, "No such file");
	/* out is untouched on error */
	ck_assert_str_eq(lp.path, "untouched");
	ck_assert_ptr_eq(lp.handle, (void *)&lp);
}
END_TEST

START_TEST(open_not_elf)
{
	char dir[] = "/tmp/vsweep_test_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/junk.so", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("this is not a shared object\n", f);
	fclose(f);
	vs_loaded_plugin lp = {0};
	vs_error err = {{0}};
	ck_assert_int_eq(vs_plugin_open(path, &fake_host, &lp, &err), -1);
	ck_assert_contains(err.msg, path);
	ck_assert_contains(err.msg, "cannot load plugin");
	ck_assert_ptr_null(strstr(err.msg, "no such plugin file"));
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Each deliberately broken plugin and what its refusal must say. */
static const struct {
	const char *file;
	const char *says[3];
} broken_cases[] = {
	{"broken_no_entry.so", {"not a vsweep plugin", "vsweep_plugin_entry"}},
	{"broken_abi_major.so",
	 {"plugin ABI 2.1 is not supported by this vsweep (ABI 1.1)",
	  "rebuild the plugin against this SDK"}},
	{"broken_abi_minor.so",
	 {"plugin ABI 1.99 is not supported by this vsweep (ABI 1.1)",
	  "rebuild the plugin against this SDK"}},
	{"broken_null_desc.so", {"vsweep_plugin_entry returned no descriptor"}},
	{"broken_no_step.so",
	 {"'broken_no_step'", "behaviour", "has no behaviour_step function"}},
	{"broken_bad_name.so", {"'Bad-Name'", "not valid", "lower-case"}},
	{"broken_bad_param.so",
	 {"'gain'", "default 5 is outside its range [0, 1]"}},
	{"broken_small_struct.so", {"smaller than ABI 1.0"}},
	{"broken_bad_kind.so", {"kind 7 is unknown"}},
	{"broken_bad_output.so", {"output 'x' is declared twice"}},
};

START_TEST(open_broken)
{
	char rel[128];
	snprintf(rel, sizeof rel, "tests/plugins/%s", broken_cases[_i].file);
	char *path = build_path(rel);
	vs_loaded_plugin lp = {0};
	vs_error err = {{0}};
	ck_assert_int_eq(vs_plugin_open(path, &fake_host, &lp, &err), -1);
	/* The message starts with the file it is about. */
	ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0,
	              "message does not start with %s: %s", path, err.msg);
	for (int k = 0; k < 3 && broken_cases[_i].says[k]; k++)
		ck_assert_contains(err.msg, broken_cases[_i].says[k]);
	ck_assert_ptr_null(lp.path);
	ck_assert_ptr_null(lp.desc);
	free(path);
}
END_TEST

/* The good plugins load, with the kinds and defaults they declare. */
static const struct {
	const char *rel;
	const char *name;
	vs_kind kind;
	const char *param; /* one param and its default, or NULL */
	double default_value;
} good_cases[] = {
	{"plugins/kinematic_bicycle.so", "kinematic_bicycle",
	 VS_KIND_VEHICLE_MODEL, "steering_ratio", 15.0},
	{"plugins/kinematic_bicycle.so", "kinematic_bicycle",
	 VS_KIND_VEHICLE_MODEL, "max_steer_deg", 45.0},
	{"plugins/constant_steer.so", "constant_steer", VS_KIND_BEHAVIOUR,
	 "steering_wheel_deg", 0.0},
	{"plugins/waypoints.so", "waypoints", VS_KIND_BEHAVIOUR, NULL, 0},
	{"tests/plugins/fail_at.so", "fail_at", VS_KIND_BEHAVIOUR, "fail_step",
	 -1.0},
	{"tests/plugins/nan_model.so", "nan_model", VS_KIND_VEHICLE_MODEL,
	 "nan_step", -1.0},
	{"tests/plugins/nan_model.so", "nan_model", VS_KIND_VEHICLE_MODEL,
	 "steering_ratio", 15.0},
	/* a behaviour: refusing it as a vehicle model is the binder's job */
	{"tests/plugins/wrong_kind_vm.so", "wrong_kind_vm", VS_KIND_BEHAVIOUR,
	 NULL, 0},
};

START_TEST(open_good)
{
	vs_loaded_plugin lp = {0};
	open_built(good_cases[_i].rel, &lp);
	ck_assert_str_eq(lp.desc->name, good_cases[_i].name);
	ck_assert_int_eq(lp.desc->kind, good_cases[_i].kind);
	ck_assert_ptr_nonnull(strstr(lp.path, good_cases[_i].rel));
	if (good_cases[_i].param) {
		int found = 0;
		for (size_t k = 0; k < lp.desc->n_params; k++)
			if (!strcmp(lp.desc->params[k].name,
			            good_cases[_i].param)) {
				ck_assert_double_eq(
					lp.desc->params[k].default_value,
					good_cases[_i].default_value);
				found = 1;
			}
		ck_assert_msg(found, "no param %s", good_cases[_i].param);
	}
	/* Built with hidden visibility: the entry is the only export. */
	ck_assert_ptr_nonnull(dlsym(lp.handle, VS_ENTRY_SYMBOL));
	ck_assert_ptr_null(dlsym(lp.handle, "descriptor"));
	ck_assert_ptr_null(dlsym(lp.handle, "params"));
	vs_plugin_close(&lp);
	ck_assert_ptr_null(lp.path);
	vs_plugin_close(NULL);
}
END_TEST

/* vs_plugin.needs: the shipped lane behaviours say they need a map;
 * route followers and a 1.0 plugin need nothing. */
static const struct {
	const char *rel;
	uint32_t needs;
} needs_cases[] = {
	{"plugins/lane_follow.so", VS_NEEDS_MAP},
	{"plugins/idm.so", VS_NEEDS_MAP},
	{"plugins/cut_in.so", VS_NEEDS_MAP},
	{"plugins/waypoints.so", 0},
	{"plugins/kinematic_bicycle.so", 0},
	{"tests/plugins/abi10_straight.so", 0},
};

START_TEST(open_needs)
{
	vs_loaded_plugin lp = {0};
	open_built(needs_cases[_i].rel, &lp);
	ck_assert_uint_eq(vs_plugin_needs(lp.desc), needs_cases[_i].needs);
	vs_plugin_close(&lp);
}
END_TEST

static vs_status n_create(const vs_create_args *a, void **inst)
{
	(void)a;
	*inst = NULL;
	return VS_ERROR;
}

static vs_status n_reset(void *inst, vs_state *st)
{
	(void)inst;
	(void)st;
	return VS_OK;
}

static vs_status n_step(void *inst, double t, double dt,
                        const vs_state *self, vs_control *c)
{
	(void)inst, (void)t, (void)dt, (void)self, (void)c;
	return VS_OK;
}

static void n_destroy(void *inst)
{
	(void)inst;
}

/* A descriptor built against a header without needs ends before it: what
 * lies there is not the plugin's, and is not read. A bit the host does
 * not know is refused, naming the file. */
START_TEST(needs_by_struct_size)
{
	vs_plugin d = {
		.abi_major = VS_ABI_MAJOR,
		.abi_minor = VS_ABI_MINOR,
		.struct_size = sizeof(vs_plugin),
		.kind = VS_KIND_BEHAVIOUR,
		.name = "n",
		.version = "1",
		.doc = "",
		.create = n_create,
		.reset = n_reset,
		.behaviour_step = n_step,
		.destroy = n_destroy,
		.needs = 4,
	};
	vs_error err = {{0}};
	ck_assert_int_eq(vs_plugin_check_descriptor("n.so", &d, &err), -1);
	ck_assert_contains(err.msg, "n.so");
	ck_assert_contains(err.msg, "plugin 'n': needs has unknown bits 0x4");
	d.struct_size = (uint32_t)offsetof(vs_plugin, needs);
	ck_assert_uint_eq(vs_plugin_needs(&d), 0);
	ck_assert_int_eq(vs_plugin_check_descriptor("n.so", &d, &err), 0);
	d.struct_size = sizeof(vs_plugin);
	d.needs = VS_NEEDS_MAP;
	ck_assert_uint_eq(vs_plugin_needs(&d), VS_NEEDS_MAP);
	ck_assert_int_eq(vs_plugin_check_descriptor("n.so", &d, &err), 0);
}
END_TEST

/* ---- the registry --------------------------------------------------- */

static void make_link(const char *dir, const char *name, const char *rel)
{
	char *target = build_path(rel);
	char link[512];
	snprintf(link, sizeof link, "%s/%s", dir, name);
	ck_assert_msg(symlink(target, link) == 0, "symlink %s", link);
	free(target);
}

static void copy_file(const char *dir, const char *name, const char *rel)
{
	char *src = build_path(rel);
	char dst[512];
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
	free(src);
}

static void remove_in(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (unlink(p) != 0)
		rmdir(p);
}

START_TEST(registry_two_dirs)
{
	char a[] = "/tmp/vsweep_reg_a_XXXXXX";
	char b[] = "/tmp/vsweep_reg_b_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(a));
	ck_assert_ptr_nonnull(mkdtemp(b));
	/* a: one good plugin, broken files (one named like a real plugin),
	 * a directory called *.so and a file that is not *.so. */
	make_link(a, "constant_steer.so", "plugins/constant_steer.so");
	make_link(a, "b_abi.so", "tests/plugins/broken_abi_major.so");
	make_link(a, "a_null.so", "tests/plugins/broken_null_desc.so");
	make_link(a, "waypoints.so", "tests/plugins/broken_no_step.so");
	make_link(a, "notes.txt", "tests/plugins/broken_no_step.so");
	char sub[512];
	snprintf(sub, sizeof sub, "%s/dir.so", a);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	/* b: its own copy of constant_steer (loses to a's) and two more */
	copy_file(b, "constant_steer.so", "plugins/constant_steer.so");
	make_link(b, "waypoints.so", "plugins/waypoints.so");
	make_link(b, "kinematic_bicycle.so", "plugins/kinematic_bicycle.so");

	const char *dirs[] = {a, "/nonexistent/vsweep_dir", b};
	vs_registry *reg = vs_registry_create(dirs, 3, &fake_host);
	ck_assert_ptr_nonnull(reg);
	ck_assert_int_eq(reg->n_dirs, 3);
	ck_assert_str_eq(reg->dirs[1], "/nonexistent/vsweep_dir");

	/* Nothing is loaded until it is named. */
	ck_assert_int_eq(reg->n, 0);
	ck_assert_int_eq(reg->n_broken, 0);
	/* NAME.so, the first directory's first. */
	const vs_loaded_plugin *cs = vs_registry_find(reg, "constant_steer");
	ck_assert_ptr_nonnull(cs);
	ck_assert_ptr_eq(strstr(cs->path, a), cs->path);
	ck_assert_ptr_eq(vs_registry_find(reg, "constant_steer"), cs);
	ck_assert_int_eq(reg->n, 1);
	/* ... and the file it shadows is named. */
	ck_assert_int_eq(reg->n_notes, 1);
	ck_assert_contains(reg->notes[0], "shadows");
	ck_assert_contains(reg->notes[0], b);
	/* a's waypoints.so is broken: listed, and b's is not used in its
	 * place (the first on the path is the one meant). */
	ck_assert_ptr_null(vs_registry_find(reg, "waypoints"));
	ck_assert_int_eq(reg->n_broken, 1);
	ck_assert_contains(reg->broken[0].path, "waypoints.so");
	vs_error werr = {{0}};
	vs_registry_explain_missing(reg, "waypoints", &werr);
	ck_assert_contains(werr.msg, "has no behaviour_step function");
	char unused[600];
	snprintf(unused, sizeof unused, "not used in its place: %s/"
	         "waypoints.so", b);
	ck_assert_contains(werr.msg, unused);
	ck_assert_ptr_null(vs_registry_find(reg, "nothing"));
	ck_assert_ptr_null(vs_registry_find(reg, NULL));
	/* a_null.so was never named, so never loaded. */
	ck_assert_ptr_null(vs_registry_find_loaded(reg, "kinematic_bicycle"));
	ck_assert_int_eq(reg->n, 1);

	/* A name with a broken file: the file and its reason, and where
	 * vsweep looked. */
	ck_assert_ptr_null(vs_registry_find(reg, "b_abi"));
	vs_error err = {{0}};
	vs_registry_explain_missing(reg, "b_abi", &err);
	ck_assert_contains(err.msg, "plugin 'b_abi' cannot be used: ");
	ck_assert_ptr_null(strstr(err.msg, "no plugin named"));
	ck_assert_contains(err.msg, "b_abi.so");
	ck_assert_contains(err.msg, "plugin ABI 2.1 is not supported");
	ck_assert_contains(err.msg, "searched");
	ck_assert_contains(err.msg, a);
	ck_assert_contains(err.msg, b);
	ck_assert_contains(err.msg, "/nonexistent/vsweep_dir (not a directory)");
	/* Each name once, none whose first file did not load (b_abi,
	 * waypoints); a_null was never tried, and is not run to see. */
	ck_assert_contains(err.msg, "; available: a_null, constant_steer, "
	                   "kinematic_bicycle");
	ck_assert_ptr_null(strstr(err.msg, "waypoints"));

	/* Loading all (`vsweep plugins`): every file, in directory order,
	 * the first of a name only. */
	vs_registry_load_all(reg);
	ck_assert_int_eq(reg->n, 2);
	ck_assert_ptr_nonnull(vs_registry_find_loaded(reg,
	                                              "kinematic_bicycle"));
	ck_assert_ptr_null(vs_registry_find_loaded(reg, "waypoints"));
	ck_assert_int_eq(reg->n_broken, 4); /* waypoints, b_abi, a_null,
	                                        dir.so */
	for (int i = 0; i < reg->n_broken; i++)
		ck_assert_ptr_eq(strstr(reg->broken[i].reason,
		                        reg->broken[i].path),
		                 reg->broken[i].reason);

	/* A name with no file at all. */
	vs_error err2 = {{0}};
	vs_registry_explain_missing(reg, "bicycle_steady", &err2);
	ck_assert_contains(err2.msg, "no plugin named 'bicycle_steady'");
	ck_assert_contains(err2.msg, "searched");
	ck_assert_ptr_null(strstr(err2.msg, "ABI"));

	vs_registry_destroy(reg);
	const char *in_a[] = {"constant_steer.so", "b_abi.so", "a_null.so",
	                      "waypoints.so", "notes.txt", "dir.so"};
	for (size_t i = 0; i < sizeof in_a / sizeof in_a[0]; i++)
		remove_in(a, in_a[i]);
	const char *in_b[] = {"constant_steer.so", "waypoints.so",
	                      "kinematic_bicycle.so"};
	for (size_t i = 0; i < sizeof in_b / sizeof in_b[0]; i++)
		remove_in(b, in_b[i]);
	ck_assert_int_eq(rmdir(a), 0);
	ck_assert_int_eq(rmdir(b), 0);
}
END_TEST

/* The test plugin directory as other suites use it. */
START_TEST(registry_test_plugins)
{
	char *dir = build_path("tests/plugins");
	const char *dirs[] = {dir};
	vs_registry *reg = vs_registry_create(dirs, 1, &fake_host);
	vs_registry_load_all(reg);
	ck_assert_int_eq(reg->n, 6); /* fail_at, nan_model, wrong_kind_vm,
	                                 probe_map, long_log,
	                                 abi10_straight (ABI 1.0) */
	ck_assert_int_eq(reg->n_broken, 10);
	const vs_loaded_plugin *wk = vs_registry_find(reg, "wrong_kind_vm");
	ck_assert_ptr_nonnull(wk);
	ck_assert_int_eq(wk->desc->kind, VS_KIND_BEHAVIOUR);
	ck_assert_ptr_nonnull(vs_registry_find(reg, "fail_at"));
	ck_assert_ptr_nonnull(vs_registry_find(reg, "nan_model"));
	ck_assert_ptr_null(vs_registry_find(reg, "broken_no_step"));
	vs_error err = {{0}};
	vs_registry_explain_missing(reg, "broken_no_step", &err);
	ck_assert_contains(err.msg, "broken_no_step.so");
	ck_assert_contains(err.msg, "has no behaviour_step function");
	vs_registry_destroy(reg);
	free(dir);
}
END_TEST

START_TEST(registry_empty)
{
	vs_registry *reg = vs_registry_create(NULL, 0, &fake_host);
	ck_assert_ptr_nonnull(reg);
	ck_assert_int_eq(reg->n, 0);
	ck_assert_ptr_null(vs_registry_find(reg, "waypoints"));
	vs_error err = {{0}};
	vs_registry_explain_missing(reg, "waypoints", &err);
	ck_assert_contains(err.msg, "no plugin named 'waypoints'");
	ck_assert_contains(err.msg, "no plugin directories");
	vs_registry_destroy(reg);
	vs_registry_destroy(NULL);
}
END_TEST

static Suite *plugin_suite(void)
{
	Suite *s = suite_create("plugin");
	TCase *tc = tcase_create("open");
	tcase_add_test(tc, open_missing_file);
	tcase_add_test(tc, open_not_elf);
	tcase_add_loop_test(tc, open_broken, 0,
	                    (int)(sizeof broken_cases / sizeof broken_cases[0]));
	tcase_add_loop_test(tc, open_good, 0,
	                    (int)(sizeof good_cases / sizeof good_cases[0]));
	tcase_add_loop_test(tc, open_needs, 0,
	                    (int)(sizeof needs_cases / sizeof needs_cases[0]));
	tcase_add_test(tc, needs_by_struct_size);
	suite_add_tcase(s, tc);
	tc = tcase_create("registry");
	tcase_add_test(tc, registry_two_dirs);
	tcase_add_test(tc, registry_test_plugins);
	tcase_add_test(tc, registry_empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(plugin_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
