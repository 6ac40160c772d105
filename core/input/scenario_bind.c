/* Binding a read scenario to its plugins (scenario.h, vs_scenario_bind):
 * each actor's vehicle model and behaviour found on the plugin path (or
 * its FMU loaded), of the right kind, its parameters checked against the
 * descriptor's domains; the defaults a file leaves out filled in. Every
 * refusal names the FILE:LINE:COL of the key that chose the plugin. */
#include "input/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "input/use_fmu.h"
#include "map/map.h"
#include "plugin/registry.h"
#include "yaml/yamltree.h"

#define DEFAULT_VEHICLE_MODEL "kinematic_bicycle"
#define DEFAULT_ROUTE_BEHAVIOUR "waypoints"
#define DEFAULT_CHARACTER_BEHAVIOUR "pedestrian"

static const char *kind_name(vs_kind k)
{
	return k == VS_KIND_VEHICLE_MODEL ? "vehicle model" : "behaviour";
}

/* Resolves one plugin use named name (the file's, or a default). */
static int bind_use(const vs_scenario *scn, const vs_registry *reg,
                    vs_plugin_use *use, const char *name, vs_kind kind,
                    const char *what, vs_error *err)
{
	free(use->params);
	use->params = NULL;
	use->loaded = NULL;
	const char *dflt = use->plugin ? "" : " (the default when none is named)";
	const vs_loaded_plugin *lp =
		use->fmu ? vs_use_bind_fmu(scn, reg, use, what, err)
		         : vs_registry_find(reg, name);
	if (use->fmu && !lp)
		return -1;
	if (!lp) {
		vs_error hint = {{0}};
		vs_registry_explain_missing(reg, name, &hint);
		vs_error_at(err, scn->path, use->mark, "%s%s: %s", what, dflt,
		            hint.msg);
		return -1;
	}
	const vs_plugin *d = lp->desc;
	if (d->kind != kind) {
		vs_error_at(err, scn->path, use->mark,
		            "%s: '%s' is a %s plugin (%s), not a %s", what, name,
		            kind_name(d->kind), lp->path, kind_name(kind));
		return -1;
	}
	double *p = vs_xcalloc(d->n_params, sizeof *p);
	for (size_t j = 0; j < d->n_params; j++)
		p[j] = d->params[j].default_value;
	for (int i = 0; i < use->n_set; i++) {
		size_t j = 0;
		while (j < d->n_params &&
		       strcmp(d->params[j].name, use->set_names[i]) != 0)
			j++;
		if (j == d->n_params) {
			char list[512] = "";
			for (size_t k = 0; k < d->n_params; k++)
				vs_y_join(list, sizeof list, d->params[k].name);
			vs_error_at(err, scn->path, use->set_marks[i],
			            "%s: plugin '%s' has no param '%s'; %s%s", what,
			            name, use->set_names[i],
			            d->n_params ? "its params: " : "it takes none",
			            list);
			free(p);
			return -1;
		}
		const vs_param *pd = &d->params[j];
		double v = use->set_values[i];
		if (!(v >= pd->min && v <= pd->max)) {
			const char *u = pd->unit ? pd->unit : "";
			const char *sp = *u ? " " : "";
			char lo[VS_NUM_CHARS], hi[VS_NUM_CHARS];
			vs_error_at(err, scn->path, use->set_marks[i],
			            "%s: param %s = %.15g%s%s is outside [%s, %s]%s%s",
			            what, pd->name, v, sp, u, vs_num(pd->min, lo),
			            vs_num(pd->max, hi), sp, u);
			free(p);
			return -1;
		}
		p[j] = v;
	}
	use->loaded = lp;
	use->params = p;
	return 0;
}

/* Whether actor i's behaviour can drive it (vs_plugin.drives): a
 * vehicle behaviour writes a speed and a steering angle, which mean
 * nothing without a vehicle model, and a character behaviour writes a
 * point mass's motion, which a vehicle model cannot take. */
static int check_drives(const vs_scenario *scn, int i, vs_error *err)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_plugin *d = a->behaviour.loaded->desc;
	int character = vs_actor_is_character(scn, i);
	uint32_t want = character ? VS_DRIVES_CHARACTER : VS_DRIVES_VEHICLE;
	if (vs_plugin_drives(d) & want)
		return 0;
	vs_error_at(err, scn->path, a->behaviour.mark,
	            "actor %lld (%s): behaviour '%s' drives %s only, and "
	            "asset '%s' is a %s; %s", (long long)a->id, a->name,
	            d->name, character ? "vehicles" : "characters",
	            scn->assets[a->asset].name,
	            character ? "character (kind: character)" : "vehicle",
	            character ? "name a behaviour that drives characters, "
	                        "such as " DEFAULT_CHARACTER_BEHAVIOUR
	                      : "use it on an asset of kind: character");
	return -1;
}

/* Whether the scenario gives use, actor i's what ("behaviour",
 * "vehicle_model"), what its plugin needs (vs_plugin.needs). A lane
 * plugin without a map gets no answer from map_location, lane_point or
 * lane_link, and would run every variant to `done` doing something else
 * than it says (driving straight, never cutting in): refused here, before
 * any variant runs, as check does. An actor off every lane of a map is
 * fine: it is located in its nearest lane. */
static int check_needs(const vs_scenario *scn, int i,
                       const vs_plugin_use *use, const char *what,
                       vs_error *err)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_plugin *d = use->loaded->desc;
	if (!(vs_plugin_needs(d) & VS_NEEDS_MAP) ||
	    vs_map_lane_count(scn->map) > 0)
		return 0;
	vs_error_at(err, scn->path, use->mark,
	            "actor %lld (%s): %s %s needs a map: %s",
	            (long long)a->id, a->name, what, d->name,
	            scn->map ? "the scenario's map: has no lanes"
	                     : "the scenario has no map:");
	return -1;
}

/* A character: no vehicle model (nothing to model: the behaviour moves
 * it as a point mass); with a route and no behaviour named, the
 * pedestrian one; with neither, it stands (a static object). */
static int bind_character(vs_scenario *scn, const vs_registry *reg, int i,
                          vs_error *err)
{
	vs_actor_spec *a = &scn->actors[i];
	vs_plugin_use *vm = &a->vehicle_model, *bh = &a->behaviour;
	if (vm->plugin || vm->fmu) {
		vs_error_at(err, scn->path, vm->mark,
		            "actor %lld (%s): vehicle_model: asset '%s' is a "
		            "character (kind: character), which its behaviour "
		            "moves as a point mass; remove vehicle_model",
		            (long long)a->id, a->name, scn->assets[a->asset].name);
		return -1;
	}
	if (!bh->plugin && a->n_waypoints == 0)
		return 0;
	if (!bh->plugin)
		bh->mark = a->mark;
	char what[96];
	snprintf(what, sizeof what, "actor %lld: behaviour", (long long)a->id);
	if (bind_use(scn, reg, bh,
	             bh->plugin ? bh->plugin : DEFAULT_CHARACTER_BEHAVIOUR,
	             VS_KIND_BEHAVIOUR, what, err))
		return -1;
	return check_drives(scn, i, err) ||
	       check_needs(scn, i, bh, "behaviour", err) ? -1 : 0;
}

/* Two actors on one FMU that may be instantiated only once per process
 * (canBeInstantiatedOnlyOncePerProcess): a variant simulates all its
 * actors in one process, so it could never create both instances. */
static int check_once(const vs_scenario *scn, const vs_registry *reg,
                      vs_error *err)
{
	for (int j = 0; j < scn->n_actors; j++) {
		const vs_plugin_use *b = &scn->actors[j].vehicle_model;
		if (!b->fmu || !b->loaded || !vs_registry_fmu_is_once(reg,
		                                                      b->loaded))
			continue;
		for (int i = 0; i < j; i++) {
			const vs_plugin_use *a = &scn->actors[i].vehicle_model;
			if (!a->fmu || !a->loaded || strcmp(a->fmu, b->fmu))
				continue;
			vs_error_at(err, scn->path, b->mark,
			            "actor %lld: vehicle_model: %s may be "
			            "instantiated only once per process "
			            "(canBeInstantiatedOnlyOncePerProcess), and "
			            "actor %lld uses it too: a variant runs all its "
			            "actors in one process, so it cannot have both "
			            "instances; give one of them another model",
			            (long long)scn->actors[j].id, b->fmu,
			            (long long)scn->actors[i].id);
			return -1;
		}
	}
	return 0;
}

int vs_scenario_bind(vs_scenario *scn, const vs_registry *reg,
                     vs_error *err)
{
	for (int i = 0; i < scn->n_actors; i++) {
		vs_actor_spec *a = &scn->actors[i];
		if (a->attach.present) /* moved by its parent: no plugins */
			continue;
		if (vs_actor_is_character(scn, i)) {
			if (bind_character(scn, reg, i, err))
				return -1;
			continue;
		}
		char what[96];
		snprintf(what, sizeof what, "actor %lld: vehicle_model",
		         (long long)a->id);
		vs_plugin_use *vm = &a->vehicle_model;
		if (!vm->plugin && !vm->fmu &&
		    scn->assets[a->asset].n_axles == 0) {
			/* An object without axles and without a model of its
			 * own stands still (a static obstacle). */
			if (a->n_waypoints > 0 || a->behaviour.plugin) {
				vs_error_at(err, scn->path, a->mark,
				            "actor %lld: asset '%s' has no axles, "
				            "so nothing moves it: name a "
				            "vehicle_model, or remove its route and "
				            "behaviour to make it a static object",
				            (long long)a->id,
				            scn->assets[a->asset].name);
				return -1;
			}
			continue;
		}
		if (!vm->plugin && !vm->fmu)
			vm->mark = a->mark;
		if (bind_use(scn, reg, vm,
		             vm->fmu      ? vm->fmu
		             : vm->plugin ? vm->plugin
		                          : DEFAULT_VEHICLE_MODEL,
		             VS_KIND_VEHICLE_MODEL, what, err) ||
		    check_needs(scn, i, vm, "vehicle_model", err))
			return -1;
		/* No behaviour and no route: the host holds speed and heading. */
		vs_plugin_use *bh = &a->behaviour;
		if (!bh->plugin && a->n_waypoints == 0)
			continue;
		if (!bh->plugin)
			bh->mark = a->mark;
		snprintf(what, sizeof what, "actor %lld: behaviour",
		         (long long)a->id);
		if (bind_use(scn, reg, bh,
		             bh->plugin ? bh->plugin : DEFAULT_ROUTE_BEHAVIOUR,
		             VS_KIND_BEHAVIOUR, what, err) ||
		    check_drives(scn, i, err) ||
		    check_needs(scn, i, bh, "behaviour", err))
			return -1;
	}
	return check_once(scn, reg, err);
}
