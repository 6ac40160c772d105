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
static int start_overlap(const vs_change *a, const vs_change *b)
{
	if (a->prop != VS_PROP_START || b->prop != VS_PROP_START)
		return 0;
	int pa = !strcmp(a->field, "position"), pb = !strcmp(b->field, "position");
	return pa != pb && strcmp(a->field, "yaw") && strcmp(b->field, "yaw");
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
	return 0;
}
