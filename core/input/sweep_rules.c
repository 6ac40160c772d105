/* varyActorProperties' rules on which properties a set of changes touches
 * (sweep_rules.h): the same for a list variant and for the template of a
 * grid or random block. Calls sweep_props.c only; reports through the
 * reader's context of sweep_values.h. */
#include "input/sweep_rules.h"

#include <string.h>

static int same_field(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A start coordinate (x, y, z) and the whole position overlap. */
/* Which way a start field sets the start position: 0 it does not (yaw),
 * 1 whole (position), 2 a coordinate (x, y, z), 3 in lane coordinates
 * (s, offset: applied last, so with x it would silently win). */
static int start_way(const char *field)
{
	if (!strcmp(field, "yaw"))
		return 0;
	if (!strcmp(field, "position"))
		return 1;
	return !strcmp(field, "s") || !strcmp(field, "offset") ? 3 : 2;
}

static int start_overlap(const vs_change *a, const vs_change *b)
{
	if (a->prop != VS_PROP_START || b->prop != VS_PROP_START)
		return 0;
	int wa = start_way(a->field), wb = start_way(b->field);
	return wa && wb && wa != wb;
}

/* "an object", "a character", "a vehicle": actor i's kind. */
static const char *kind_text(const vs_scenario *seed, int i)
{
	const char *k = vs_actor_kind_name(seed, i);
	return !strcmp(k, "object") ? "an object"
	       : !strcmp(k, "character") ? "a character" : "a vehicle";
}

/* A change the actor's kind gives nothing to act on would be stored and
 * have no effect: a speed for an actor that nothing moves (sim.c holds
 * it at rest), an overhang for an asset without the axle it places
 * (geom/geometry.c). */
static int check_effect(vs_sweep_ctx *c, const vs_change *ch)
{
	const char *path = c->doc->path;
	int idx = vs_scenario_find_actor(c->seed, ch->actor);
	const vs_actor_spec *a = &c->seed->actors[idx];
	const vs_asset *as = &c->seed->assets[a->asset];
	int character = vs_actor_is_character(c->seed, idx);
	long long id = (long long)ch->actor;
	if (ch->prop == VS_PROP_SPEED && !a->attach.present &&
	    !a->vehicle_model.loaded && !(character && a->behaviour.loaded)) {
		vs_error_at(c->err, path, ch->mark,
		            "actor %lld: %s%s%s%s without %s: nothing moves it, "
		            "so a speed change has no effect", id,
		            kind_text(c->seed, idx),
		            character ? "" : " (asset '",
		            character ? "" : as->name,
		            character ? "" : "' has no axles)",
		            character ? "waypoints or a behaviour"
		                      : "a vehicle_model");
		return -1;
	}
	if (ch->prop != VS_PROP_DIMENSION || !strstr(ch->field, "overhang"))
		return 0;
	int front = !strcmp(ch->field, "front_overhang");
	if (as->n_axles == 0) {
		vs_error_at(c->err, path, ch->mark,
		            "actor %lld: %s, whose asset '%s' has no axles: "
		            "%s places the %s axle, so a %s change has no "
		            "effect",
		            id, kind_text(c->seed, idx), as->name, ch->field,
		            front ? "front" : "rearmost", ch->field);
		return -1;
	}
	if (as->n_axles == 1 && !front) {
		vs_error_at(c->err, path, ch->mark,
		            "actor %lld: asset '%s' has one axle, which "
		            "front_overhang places, so a rear_overhang change "
		            "has no effect", id, as->name);
		return -1;
	}
	return 0;
}

int vs_sweep_check_rules(vs_sweep_ctx *c, const vs_change_set *set,
                         const char *scope)
{
	const char *path = c->doc->path;
	for (int i = 0; i < set->n; i++) {
		const vs_change *ch = &set->changes[i];
		long long id = (long long)ch->actor;
		for (int j = 0; j < i; j++) {
			const vs_change *o = &set->changes[j];
			if (o->actor != ch->actor)
				continue;
			if (start_overlap(o, ch)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: start.%s and start.%s (at "
				            "line %d) both set the start position; "
				            "give one", id, ch->field, o->field,
				            o->mark.line);
				return -1;
			}
			if (o->prop != ch->prop || !same_field(o->field, ch->field))
				continue;
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: %s%s%s is changed twice in this "
			            "%s (first at line %d)", id,
			            vs_sweep_prop_name(ch->prop), ch->field ? " " : "",
			            ch->field ? ch->field : "", scope, o->mark.line);
			return -1;
		}
		const vs_actor_spec *a =
			&c->seed->actors[vs_scenario_find_actor(c->seed, ch->actor)];
		if (a->attach.present && ch->prop != VS_PROP_DIMENSION &&
		    ch->prop != VS_PROP_ATTACH) {
			/* Its parent places and moves it: a route, start or
			 * plugin change would be stored but have no effect. */
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: is attached to actor %lld, which "
			            "moves it; only its dimension and attach.* can "
			            "vary", id, (long long)a->attach.parent_id);
			return -1;
		}
		if (ch->prop == VS_PROP_ATTACH && !a->attach.present) {
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: attach.%s: the actor is not "
			            "attached (give it attach: in the scenario)", id,
			            ch->field);
			return -1;
		}
		if (ch->prop == VS_PROP_WAYPOINTS) {
			if (!vs_change_find(set, ch->actor, VS_PROP_SPEED)) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: a waypoints change needs a "
				            "speed change for the same actor in the "
				            "same %s", id, scope);
				return -1;
			}
			if (!a->behaviour.plugin && a->n_waypoints == 0) {
				vs_error_at(c->err, path, ch->mark,
				            "actor %lld: has no behaviour to follow "
				            "waypoints (give it behaviour: {plugin: "
				            "waypoints} in the scenario)", id);
				return -1;
			}
		}
		const vs_loaded_plugin *b = a->behaviour.loaded;
		int route = ch->prop == VS_PROP_WAYPOINTS ||
		            ch->prop == VS_PROP_YAW ||
		            (ch->prop == VS_PROP_SPEED && ch->n > 1);
		if (route && b && !vs_plugin_follows_route(b->desc)) {
			/* The change would be stored and have no effect. */
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: its behaviour '%s' does not "
			            "follow a route, so a %s change has no "
			            "effect (use a behaviour that does, such "
			            "as waypoints)", id, b->desc->name,
			            ch->prop == VS_PROP_SPEED
			                ? "speed vector"
			                : vs_sweep_prop_name(ch->prop));
			return -1;
		}
		if (route && !b && !a->behaviour.plugin &&
		    a->n_waypoints == 0) {
			/* No behaviour, no route: it keeps its first speed
			 * and drives straight ahead (scenario.md). */
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: has neither a behaviour nor "
			            "waypoints, so it keeps its first speed and "
			            "a %s change has no effect (give a scalar "
			            "speed, or the actor waypoints and behaviour: "
			            "{plugin: waypoints})", id,
			            ch->prop == VS_PROP_SPEED
			                ? "speed vector"
			                : vs_sweep_prop_name(ch->prop));
			return -1;
		}
		if (ch->prop == VS_PROP_YAW &&
		    (!vs_change_find(set, ch->actor, VS_PROP_WAYPOINTS) ||
		     !vs_change_find(set, ch->actor, VS_PROP_SPEED))) {
			vs_error_at(c->err, path, ch->mark,
			            "actor %lld: a yaw change needs waypoints and "
			            "speed changes for the same actor in the same "
			            "%s", id, scope);
			return -1;
		}
	}
	/* After the rules above, whose messages say more about a route. */
	for (int i = 0; i < set->n; i++)
		if (check_effect(c, &set->changes[i]))
			return -1;
	return 0;
}
