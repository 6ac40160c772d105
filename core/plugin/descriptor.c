/* A plugin's descriptor, checked field by field (registry.h).
 *
 * A plugin is trusted only after its descriptor has been checked: the host
 * calls through these pointers from many threads for hours, so a bad
 * descriptor must fail at load, with a message that names the file,
 * rather than later as a crash inside a variant. Also the readers of the
 * fields added after ABI 1.0, which look only as far as struct_size
 * says the plugin's header reached. */
#include "plugin/plugin_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The descriptor as ABI 1.0 defines it ends with destroy; a plugin built
 * against any 1.x header has at least these bytes. */
#define ABI_1_0_SIZE (offsetof(vs_plugin, destroy) + sizeof(void (*)(void *)))
/* ABI 1.1 added outputs and n_outputs at the end, then follows_route,
 * then drives, then needs. */
#define ABI_1_1_SIZE (offsetof(vs_plugin, n_outputs) + sizeof(size_t))
#define ROUTE_SIZE (offsetof(vs_plugin, follows_route) + sizeof(uint32_t))
#define DRIVES_SIZE (offsetof(vs_plugin, drives) + sizeof(uint32_t))
#define NEEDS_SIZE (offsetof(vs_plugin, needs) + sizeof(uint32_t))

/* [a-z0-9_]+: what a scenario file names the plugin by. */
int vs_plugin_name_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

/* A C-like identifier: parameter names appear as YAML keys and in
 * "vehicle_model.NAME" sweep paths (the design's examples use Kf, lf). */
static int valid_param_name(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static const char *kind_name(vs_kind kind)
{
	switch (kind) {
	case VS_KIND_VEHICLE_MODEL:
		return "vehicle model";
	case VS_KIND_BEHAVIOUR:
		return "behaviour";
	}
	return "unknown kind";
}

/* Checks the parameter table; returns 0 or -1 with err set. */
static int check_params(const char *path, const vs_plugin *d, vs_error *err)
{
	vs_mark none = {0, 0};
	if (d->n_params > 0 && !d->params) {
		vs_error_at(err, path, none,
		            "plugin '%s' declares %zu params but no param table",
		            d->name, d->n_params);
		return -1;
	}
	for (size_t i = 0; i < d->n_params; i++) {
		const vs_param *p = &d->params[i];
		if (!valid_param_name(p->name)) {
			vs_error_at(err, path, none,
			            "plugin '%s': param %zu has no valid name "
			            "(want letters, digits and '_')",
			            d->name, i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(d->params[j].name, p->name) == 0) {
				vs_error_at(err, path, none,
				            "plugin '%s': param '%s' is declared twice",
				            d->name, p->name);
				return -1;
			}
		if (!p->unit || !p->doc) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' needs a unit and a doc "
			            "string (\"\" for none)",
			            d->name, p->name);
			return -1;
		}
		/* Infinite bounds are allowed (an open-ended range); NaN is not,
		 * and the default must be a usable value. */
		if (isnan(p->min) || isnan(p->max) || !(p->min <= p->max)) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' has an empty range "
			            "[%g, %g]",
			            d->name, p->name, p->min, p->max);
			return -1;
		}
		if (!isfinite(p->default_value) || p->default_value < p->min ||
		    p->default_value > p->max) {
			vs_error_at(err, path, none,
			            "plugin '%s': param '%s' default %g is outside "
			            "its range [%g, %g]",
			            d->name, p->name, p->default_value, p->min,
			            p->max);
			return -1;
		}
	}
	return 0;
}

/* The 1.1 outputs table; 0 or -1 with err set. Read only when the
 * descriptor's struct_size says the plugin's header had it. */
static int check_outputs(const char *path, const vs_plugin *d, vs_error *err)
{
	vs_mark none = {0, 0};
	size_t n = 0;
	const vs_output *o = vs_plugin_outputs(d, &n);
	if (n > 0 && !o) {
		vs_error_at(err, path, none,
		            "plugin '%s' declares %zu outputs but no output table",
		            d->name, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!valid_param_name(o[i].name) || !o[i].unit || !o[i].doc) {
			vs_error_at(err, path, none,
			            "plugin '%s': output %zu needs a valid name "
			            "(letters, digits, '_'), a unit and a doc",
			            d->name, i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(o[j].name, o[i].name) == 0) {
				vs_error_at(err, path, none,
				            "plugin '%s': output '%s' is declared "
				            "twice", d->name, o[i].name);
				return -1;
			}
	}
	return 0;
}

const vs_output *vs_plugin_outputs(const vs_plugin *d, size_t *n)
{
	*n = 0;
	if (!d || d->struct_size < ABI_1_1_SIZE)
		return NULL;
	*n = d->n_outputs;
	return d->outputs;
}

int vs_plugin_follows_route(const vs_plugin *d)
{
	return d && d->struct_size >= ROUTE_SIZE && d->follows_route != 0;
}

uint32_t vs_plugin_drives(const vs_plugin *d)
{
	uint32_t bits = d && d->struct_size >= DRIVES_SIZE ? d->drives : 0;
	return bits ? bits : VS_DRIVES_VEHICLE;
}

uint32_t vs_plugin_needs(const vs_plugin *d)
{
	return d && d->struct_size >= NEEDS_SIZE ? d->needs : 0;
}

/* Checks a descriptor the plugin returned; returns 0 or -1 with err set. */
int vs_plugin_check_descriptor(const char *path, const vs_plugin *d,
                            vs_error *err)
{
	vs_mark none = {0, 0};
	/* The version comes first: under another major the rest of the
	 * layout means nothing, so no other field may be read. */
	if (d->abi_major != VS_ABI_MAJOR || d->abi_minor > VS_ABI_MINOR) {
		vs_error_at(err, path, none,
		            "plugin ABI %u.%u is not supported by this vsweep "
		            "(ABI %d.%d): rebuild the plugin against this SDK",
		            (unsigned)d->abi_major, (unsigned)d->abi_minor,
		            VS_ABI_MAJOR, VS_ABI_MINOR);
		return -1;
	}
	if (d->struct_size < ABI_1_0_SIZE) {
		vs_error_at(err, path, none,
		            "plugin descriptor is %u bytes, smaller than ABI 1.0's "
		            "%zu: the plugin was not built with this SDK header",
		            (unsigned)d->struct_size, (size_t)ABI_1_0_SIZE);
		return -1;
	}
	/* Fields added after 1.0 are read only when struct_size covers
	 * them (vs_plugin_outputs). */
	if (d->kind != VS_KIND_VEHICLE_MODEL && d->kind != VS_KIND_BEHAVIOUR) {
		vs_error_at(err, path, none,
		            "plugin kind %d is unknown (want %d, vehicle model, "
		            "or %d, behaviour)",
		            (int)d->kind, (int)VS_KIND_VEHICLE_MODEL,
		            (int)VS_KIND_BEHAVIOUR);
		return -1;
	}
	if (!vs_plugin_name_ok(d->name)) {
		vs_error_at(err, path, none,
		            "plugin name '%s' is not valid: use lower-case "
		            "letters, digits and '_'",
		            d->name ? d->name : "(null)");
		return -1;
	}
	if (!d->version || !d->doc) {
		vs_error_at(err, path, none,
		            "plugin '%s' has no %s string", d->name,
		            d->version ? "doc" : "version");
		return -1;
	}
	const char *missing = NULL;
	if (!d->create)
		missing = "create";
	else if (!d->reset)
		missing = "reset";
	else if (!d->destroy)
		missing = "destroy";
	else if (d->kind == VS_KIND_VEHICLE_MODEL && !d->vehicle_step)
		missing = "vehicle_step";
	else if (d->kind == VS_KIND_BEHAVIOUR && !d->behaviour_step)
		missing = "behaviour_step";
	if (missing) {
		vs_error_at(err, path, none,
		            "plugin '%s' (%s) has no %s function", d->name,
		            kind_name(d->kind), missing);
		return -1;
	}
	if (vs_plugin_drives(d) &
	    ~(uint32_t)(VS_DRIVES_VEHICLE | VS_DRIVES_CHARACTER)) {
		vs_error_at(err, path, none,
		            "plugin '%s': drives has unknown bits 0x%x (want "
		            "VS_DRIVES_VEHICLE and/or VS_DRIVES_CHARACTER)",
		            d->name, (unsigned)vs_plugin_drives(d));
		return -1;
	}
	/* A bit this host does not know is a need it cannot check: running
	 * the plugin anyway could give results it would refuse to make. */
	if (vs_plugin_needs(d) & ~(uint32_t)VS_NEEDS_MAP) {
		vs_error_at(err, path, none,
		            "plugin '%s': needs has unknown bits 0x%x (want "
		            "VS_NEEDS_MAP)", d->name,
		            (unsigned)vs_plugin_needs(d));
		return -1;
	}
	return check_params(path, d, err) || check_outputs(path, d, err) ? -1
	                                                                : 0;
}
