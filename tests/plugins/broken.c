/* Deliberately broken plugins for the loader's tests: one source, built
 * once per flaw with -DBROKEN_<FLAW> (tests/plugins/meson.build), each
 * into broken_<flaw>.so (and, calling itself fail_at, into
 * first_broken/fail_at_<flaw>.so, which its test copies to fail_at.so).
 * Apart from its one flaw each is a valid behaviour named after its file,
 * so a test failing here points at the check for that flaw and nothing
 * else. */
#include <stddef.h>

#include <vsweep/plugin.h>

#ifndef BROKEN_NAME
#error "build with -DBROKEN_NAME=\"...\" and one BROKEN_<FLAW>"
#endif

static vs_status b_create(const vs_create_args *args, void **instance)
{
	(void)args;
	static int dummy;
	*instance = &dummy;
	return VS_OK;
}

static vs_status b_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static vs_status b_step(void *instance, double t, double dt,
                        const vs_state *self, vs_control *control)
{
	(void)instance;
	(void)t;
	(void)dt;
	(void)self;
	control->speed = 0;
	control->steering_wheel = 0;
	return VS_OK;
}

static void b_destroy(void *instance)
{
	(void)instance;
}

static const vs_param params[] = {
#ifdef BROKEN_BAD_PARAM
	/* default outside [min, max] */
	{"gain", 5.0, 0.0, 1.0, "", "a gain whose default is out of range"},
#else
	{"gain", 0.5, 0.0, 1.0, "", "a gain"},
#endif
};

#ifdef BROKEN_BAD_OUTPUT
/* an ABI 1.1 output table naming one output twice */
static const vs_output outputs[] = {
	{"x", "m", "one"},
	{"x", "m", "the same name again"},
};
#endif

static const vs_plugin descriptor = {
#ifdef BROKEN_ABI_MAJOR
	.abi_major = VS_ABI_MAJOR + 1,
#else
	.abi_major = VS_ABI_MAJOR,
#endif
#ifdef BROKEN_ABI_MINOR
	.abi_minor = 99,
#elif defined(BROKEN_ABI_NEXT)
	.abi_minor = VS_ABI_MINOR + 1, /* built against a newer SDK */
#else
	.abi_minor = VS_ABI_MINOR,
#endif
#ifdef BROKEN_SMALL_STRUCT
	.struct_size = offsetof(vs_plugin, destroy), /* destroy cut off */
#else
	.struct_size = sizeof(vs_plugin),
#endif
#ifdef BROKEN_BAD_KIND
	.kind = (vs_kind)7,
#else
	.kind = VS_KIND_BEHAVIOUR,
#endif
#ifdef BROKEN_BAD_NAME
	.name = "Bad-Name",
#else
	.name = BROKEN_NAME,
#endif
	.version = "0.0.1",
	.doc = "a deliberately broken plugin for the loader tests",
	.params = params,
	.n_params = 1,
	.create = b_create,
	.reset = b_reset,
	.vehicle_step = NULL,
#ifdef BROKEN_NO_STEP
	.behaviour_step = NULL, /* b_step is referenced in the entry below */
#else
	.behaviour_step = b_step,
#endif
	.destroy = b_destroy,
#ifdef BROKEN_BAD_OUTPUT
	.outputs = outputs,
	.n_outputs = 2,
#endif
};

#ifdef BROKEN_NO_ENTRY
/* Exports something, just not the entry symbol. */
VS_EXPORT const vs_plugin *vsweep_plugin_entry_v2(const vs_host *host);
VS_EXPORT const vs_plugin *vsweep_plugin_entry_v2(const vs_host *host)
{
	(void)host;
	return &descriptor;
}
#else
VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *host)
{
	(void)host;
#ifdef BROKEN_NO_STEP
	(void)b_step;
#endif
#ifdef BROKEN_NULL_DESC
	(void)descriptor;
	return NULL; /* the plugin refuses to load */
#else
	return &descriptor;
#endif
}
#endif
