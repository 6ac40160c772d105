/* The varied-property vocabulary of sweep files, as one table: a row per
 * property a change or an axis may name (SQLite's pragma.h is the model).
 * The readers (sweep_values.c, sweep_list.c, sweep_blocks.c), the rules on
 * values, the params JSON writer and the application to a scenario
 * (variant_build.c) all read a property's facts from its row; adding a
 * property is adding a row (and, when its value is a new kind of thing, a
 * case where vs_prop is switched on).
 *
 * The bottom layer of the sweep loader: it calls nothing of input/ above
 * it. Internal to input/ (and the key listing of input/keys.h). */
#ifndef VS_SWEEP_PROPS_H
#define VS_SWEEP_PROPS_H

#include <stddef.h>

#include "input/sweep.h"

/* How a property's value reads in a list change. */
typedef enum vs_shape {
	VS_SHAPE_NUMBER, /* one number: dimension.*, start.yaw/x/y/z, params */
	VS_SHAPE_SPEED,  /* a number, or a list of numbers (a speed vector) */
	VS_SHAPE_LIST,   /* a list of numbers: yaw */
	VS_SHAPE_VEC3,   /* three numbers: start.position */
	VS_SHAPE_ROWS    /* rows of x y z: waypoints */
} vs_shape;

/* When a change is applied to the variant (lower first): routes before
 * what depends on them, sizes before the overhangs they would move. */
enum {
	VS_APPLY_ROUTE,    /* waypoints (drop the seed's yaws, derive a start) */
	VS_APPLY_SPEED,
	VS_APPLY_YAW,
	VS_APPLY_START,
	VS_APPLY_SIZE,     /* dimension.length, width, height */
	VS_APPLY_OVERHANG, /* dimension.front_overhang, rear_overhang */
	VS_APPLY_PARAM,
	VS_N_APPLY
};

/* Flags of a row. */
enum {
	/* A change keeps the axles where they are relative to the front
	 * bumper: the rear bumper moves, so rear_overhang grows with it
	 * (vehicles with axles only). */
	VS_PROPF_MOVES_REAR = 1
};

#define VS_PROP_NO_MEMBER (-1L)

typedef struct vs_prop_def {
	const char *name;  /* the key in an axis or list change: "speed",
	                      "dimension.length", "param" */
	vs_prop prop;      /* what it changes */
	const char *field; /* vs_change.field ("length", "x"); NULL for a
	                      whole property, and for param, whose field is
	                      the param's path "vehicle_model.NAME" */
	const char *group; /* the mapping it sits in, in a list change
	                      (dimension: {length: 5}) and in the params JSON;
	                      NULL at the top level (a param's group is the
	                      plugin part of its path) */
	vs_shape shape;    /* how its value reads */
	int sign;          /* the rule on its numbers: VS_Y_ANY, VS_Y_NONNEG
	                      or VS_Y_POSITIVE (a param: its plugin's range) */
	int apply;         /* VS_APPLY_*: when variant_build.c applies it */
	long member;       /* offsetof the vs_actor_spec doubles it sets, or
	                      VS_PROP_NO_MEMBER (arrays, params) */
	int flags;         /* VS_PROPF_* */
	const char *doc;   /* one line: its value, unit and rule */
} vs_prop_def;

extern const vs_prop_def vs_prop_defs[];
extern const int vs_n_prop_defs;

/* The row of a key as written in an axis ("dimension.length", "param"),
 * or NULL. */
const vs_prop_def *vs_prop_def_find(const char *name);

/* The row of a change (by its prop and field). Never NULL for a change
 * the readers made. */
const vs_prop_def *vs_prop_def_of(const vs_change *ch);

/* The first change in set for (actor, prop), or NULL. */
const vs_change *vs_change_find(const vs_change_set *set, int64_t actor,
                                vs_prop prop);

/* Whether name is a group's mapping key ("dimension", "start"). */
int vs_prop_is_group(const char *name);

/* "speed", "dimension", "param": a property as a whole, for messages. */
const char *vs_sweep_prop_name(vs_prop p);

/* Which keys a mapping of changes takes, for vs_y_check_keys. */
typedef enum vs_prop_keys_form {
	VS_KEYS_CHANGE, /* a list change: actor, every name, the groups'
	                   mappings (dimension, start), value */
	VS_KEYS_AXIS,   /* a grid or random axis: actor, every name, value,
	                   values (groups only by their dotted names) */
	VS_KEYS_GROUP   /* one group's mapping (dimension: {...}): its
	                   fields */
} vs_prop_keys_form;

#define VS_PROP_MAX_KEYS 48 /* room for any form's list, NULL included */

/* Fills keys[VS_PROP_MAX_KEYS] with the form's keys in table order,
 * NULL-terminated (group: the group's name, for VS_KEYS_GROUP only). */
void vs_prop_keys(vs_prop_keys_form form, const char *group,
                  const char *keys[VS_PROP_MAX_KEYS]);

/* Writes "speed, waypoints, yaw, dimension, start or param" into buf:
 * every property as a whole, for "give a property" messages. */
void vs_prop_kinds_text(char *buf, size_t size);

#endif
