/* The varied-property table (sweep_props.h) and the look-ups the sweep
 * loader's other files make in it. Calls nothing of input/ above it. */
#include "input/sweep_props.h"

#include <stdio.h>
#include <string.h>

#include "yaml/yamltree.h"

#define M(f) ((long)offsetof(vs_actor_spec, f))
#define NONE VS_PROP_NO_MEMBER

/* The order of the rows is the order keys are listed in messages. */
const vs_prop_def vs_prop_defs[] = {
/* name                  prop               field       group
 *     shape             sign           apply              member
 *     flags  doc */
{"speed",                VS_PROP_SPEED,     NULL,       NULL,
     VS_SHAPE_SPEED,     VS_Y_NONNEG,   VS_APPLY_SPEED,    NONE,
     0, "m/s, >= 0: one speed, or a list (a speed per waypoint)"},
{"waypoints",            VS_PROP_WAYPOINTS, NULL,       NULL,
     VS_SHAPE_ROWS,      VS_Y_ANY,      VS_APPLY_ROUTE,    NONE,
     0, "m: rows [x, y, z] (or {road, lane, s, offset} on an OpenDRIVE "
        "map), at least 2, consecutive rows differ"},
{"yaw",                  VS_PROP_YAW,       NULL,       NULL,
     VS_SHAPE_LIST,      VS_Y_ANY,      VS_APPLY_YAW,      NONE,
     0, "rad: one yaw per waypoint"},
{"dimension.length",     VS_PROP_DIMENSION, "length",   "dimension",
     VS_SHAPE_NUMBER,    VS_Y_POSITIVE, VS_APPLY_SIZE,     M(length),
     VS_PROPF_MOVES_REAR, "m, > 0: bounding-box length; the axles stay"},
{"dimension.width",      VS_PROP_DIMENSION, "width",    "dimension",
     VS_SHAPE_NUMBER,    VS_Y_POSITIVE, VS_APPLY_SIZE,     M(width),
     0, "m, > 0: bounding-box width"},
{"dimension.height",     VS_PROP_DIMENSION, "height",   "dimension",
     VS_SHAPE_NUMBER,    VS_Y_POSITIVE, VS_APPLY_SIZE,     M(height),
     0, "m, > 0: bounding-box height"},
{"dimension.front_overhang", VS_PROP_DIMENSION, "front_overhang",
     "dimension",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_OVERHANG,
     M(front_overhang),
     0, "m, >= 0, or >= the asset's own when its front axle sits ahead "
        "of its box: front bumper to front axle"},
{"dimension.rear_overhang", VS_PROP_DIMENSION, "rear_overhang",
     "dimension",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_OVERHANG,
     M(rear_overhang),
     0, "m, >= 0, or >= the asset's own when its rear axle sits behind "
        "its box: rear axle to rear bumper"},
{"start.position",       VS_PROP_START,     "position", "start",
     VS_SHAPE_VEC3,      VS_Y_ANY,      VS_APPLY_START,    M(start_pos),
     0, "m: [x, y, z] of the actor origin, world frame"},
{"start.yaw",            VS_PROP_START,     "yaw",      "start",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(start_yaw),
     0, "rad: heading at the start"},
{"start.x",              VS_PROP_START,     "x",        "start",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(start_pos[0]),
     0, "m: one coordinate of the start position"},
{"start.y",              VS_PROP_START,     "y",        "start",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(start_pos[1]),
     0, "m: one coordinate of the start position"},
{"start.z",              VS_PROP_START,     "z",        "start",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(start_pos[2]),
     0, "m: one coordinate of the start position"},
{"start.s",              VS_PROP_START,     "s",        "start",
     VS_SHAPE_NUMBER,    VS_Y_NONNEG,   VS_APPLY_START,    M(start_s),
     0, "m, >= 0: a start in lane coordinates, moved along the "
        "road's reference line"},
{"start.offset",         VS_PROP_START,     "offset",   "start",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(start_offset),
     0, "m: a start in lane coordinates, moved across its lane "
        "(left > 0)"},
{"attach.offset",        VS_PROP_ATTACH,    "offset",   "attach",
     VS_SHAPE_VEC3,      VS_Y_ANY,      VS_APPLY_START,    M(attach.offset),
     0, "m: the attached actor's offset from the parent's point, parent "
        "frame"},
{"attach.heading",       VS_PROP_ATTACH,    "heading",  "attach",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(attach.heading),
     0, "deg, in [-180, 180]: the attached actor's heading about its +Z"},
{"attach.slope",         VS_PROP_ATTACH,    "slope",    "attach",
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_START,    M(attach.slope),
     0, "deg, in [-180, 180]: a fixed child's pitch relative to its "
        "parent, nose up positive (a trailer's must be 0)"},
{"param",                VS_PROP_PARAM,     NULL,       NULL,
     VS_SHAPE_NUMBER,    VS_Y_ANY,      VS_APPLY_PARAM,    NONE,
     0, "vehicle_model.NAME or behaviour.NAME with value: a plugin param, "
        "within its range"},
};
const int vs_n_prop_defs = (int)(sizeof vs_prop_defs / sizeof vs_prop_defs[0]);

const vs_prop_def *vs_prop_def_find(const char *name)
{
	for (int i = 0; i < vs_n_prop_defs; i++)
		if (!strcmp(vs_prop_defs[i].name, name))
			return &vs_prop_defs[i];
	return NULL;
}

const vs_prop_def *vs_prop_def_of(const vs_change *ch)
{
	for (int i = 0; i < vs_n_prop_defs; i++) {
		const vs_prop_def *d = &vs_prop_defs[i];
		if (d->prop == ch->prop &&
		    (!d->field || (ch->field && !strcmp(d->field, ch->field))))
			return d;
	}
	return NULL;
}

const vs_change *vs_change_find(const vs_change_set *set, int64_t actor,
                                vs_prop prop)
{
	for (int i = 0; i < set->n; i++)
		if (set->changes[i].actor == actor && set->changes[i].prop == prop)
			return &set->changes[i];
	return NULL;
}

int vs_prop_is_group(const char *name)
{
	for (int i = 0; i < vs_n_prop_defs; i++)
		if (vs_prop_defs[i].group && !strcmp(vs_prop_defs[i].group, name))
			return 1;
	return 0;
}

/* A property as a whole: its group, or its own name. */
static const char *whole_name(const vs_prop_def *d)
{
	return d->group ? d->group : d->name;
}

/* Whether d is the first row of its property (a group's first field). */
static int first_of_prop(const vs_prop_def *d)
{
	return d == vs_prop_defs || d[-1].prop != d->prop;
}

const char *vs_sweep_prop_name(vs_prop p)
{
	for (int i = 0; i < vs_n_prop_defs; i++)
		if (vs_prop_defs[i].prop == p)
			return whole_name(&vs_prop_defs[i]);
	return "unknown";
}

void vs_prop_keys(vs_prop_keys_form form, const char *group,
                  const char *keys[VS_PROP_MAX_KEYS])
{
	int n = 0;
	if (form != VS_KEYS_GROUP)
		keys[n++] = "actor";
	for (int i = 0; i < vs_n_prop_defs; i++) {
		const vs_prop_def *d = &vs_prop_defs[i];
		if (form == VS_KEYS_GROUP) {
			if (d->group && !strcmp(d->group, group))
				keys[n++] = d->field;
			continue;
		}
		if (form == VS_KEYS_CHANGE && d->group && first_of_prop(d))
			keys[n++] = d->group;
		keys[n++] = d->name;
	}
	if (form != VS_KEYS_GROUP)
		keys[n++] = "value";
	if (form == VS_KEYS_AXIS)
		keys[n++] = "values";
	keys[n] = NULL;
}

void vs_prop_kinds_text(char *buf, size_t size)
{
	int n = 0, total = 0;
	for (int i = 0; i < vs_n_prop_defs; i++)
		total += first_of_prop(&vs_prop_defs[i]);
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < vs_n_prop_defs && len < size; i++) {
		const vs_prop_def *d = &vs_prop_defs[i];
		if (!first_of_prop(d))
			continue;
		n++;
		int w = snprintf(buf + len, size - len, "%s%s",
		                 n == 1 ? "" : n == total ? " or " : ", ",
		                 whole_name(d));
		len += w > 0 ? (size_t)w : 0;
	}
}
