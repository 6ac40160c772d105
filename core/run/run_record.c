/* What a run records in its results file about itself, and the checks a
 * file to resume must pass: the vs_store_def of a run (the scenario and
 * sweep texts, the options that decide the rows, the shard, each plugin
 * file's build, the OpenDRIVE map file's digest), an extended sweep's
 * stored variants, the map's lanes; and vs_run_check_file, which
 * applies them without running (and without extending). Used by
 * runner.c's vs_run. */
#include "run/run_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "map/map.h"
#include "run/journal.h"

/* One row per plugin file the scenario uses. Every FMU runs through the
 * one adapter descriptor "fmu", so an FMU's row is named by its file,
 * "fmu:NAME.fmu" (the file name, not the folder, so that a moved tree
 * still resumes): each FMU's digest is recorded and checked. */
static void plugin_row_name(const vs_plugin_use *use, char *buf, size_t n)
{
	const vs_plugin *p = use->loaded->desc;
	if (strcmp(p->name, "fmu") == 0) {
		const char *base = strrchr(use->loaded->path, '/');
		snprintf(buf, n, "fmu:%s", base ? base + 1 : use->loaded->path);
	} else {
		snprintf(buf, n, "%s", p->name);
	}
}

static void add_plugin(vs_run_record *rec, const vs_plugin_use *use)
{
	if (!use->loaded)
		return;
	const vs_plugin *p = use->loaded->desc;
	int n = rec->def.n_plugins;
	if (n == 64)
		return;
	plugin_row_name(use, rec->names[n], sizeof rec->names[n]);
	for (int i = 0; i < n; i++)
		if (strcmp(rec->plugins[i].name, rec->names[n]) == 0)
			return;
	vs_digest_file(use->loaded->path, rec->digests[n]);
	rec->plugins[n] = (vs_plugin_row){
		rec->names[n], vs_store_kind_name(p->kind),
		p->version ? p->version : "", use->loaded->path,
		rec->digests[n]};
	rec->def.n_plugins = n + 1;
}

/* What the results file of this run at path records about it; which of
 * it is identity is store/record.c's to say. */
void vs_run_build_record(vs_run_record *rec, const vs_scenario *seed,
                         const vs_sweep *sw, const vs_run_opts *o,
                         const char *path, vs_store_mode mode)
{
	memset(rec, 0, sizeof *rec);
	if (o->shard_label)
		snprintf(rec->shard, sizeof rec->shard, "%s", o->shard_label);
	else
		vs_store_shard_label(rec->shard, sizeof rec->shard,
		                     o->shard_k, o->shard_n);
	vs_store_def *d = &rec->def;
	*d = vs_store_default_def();
	d->path = path;
	d->mode = mode;
	d->scenario_text = seed->text;
	d->sweep_text = sw->text ? sw->text : "";
	d->step = seed->step;
	d->record_every = o->record_every;
	d->record = o->record ? o->record : "";
	d->shard = rec->shard;
	d->variant_count = sw->count;
	/* A finished sweep may be extended (blocks appended, the last
	 * random block's count raised): vs_run checks its variants. */
	d->extend = mode == VS_STORE_RESUME && !o->source;
	d->plugins = rec->plugins;
	d->scenario_path = seed->path;
	d->sweep_path = sw->path ? sw->path : "";
	const char *map_digest;
	const char *map_path = vs_map_opendrive(seed->map, &map_digest);
	d->map_path = map_path ? map_path : "";
	d->map_digest = map_digest ? map_digest : "";
	d->steps = vs_scenario_steps(seed);
	d->duration = seed->duration;
	d->lock_timeout = o->lock_timeout;
	for (int i = 0; i < seed->n_actors; i++) {
		add_plugin(rec, &seed->actors[i].vehicle_model);
		add_plugin(rec, &seed->actors[i].behaviour);
	}
}

/* The label of a stored or new variant as a message names it. */
static void label_text(char *buf, size_t n, const char *label)
{
	if (label)
		snprintf(buf, n, "'%s'", label);
	else
		snprintf(buf, n, "none");
}

/* Every variant st stores (the file at path) is the same variant of sw
 * (same params, same label); VS_RC_INPUT, err set, when one is not.
 * Reads, never writes: vsweep check --resume asks it as vsweep run
 * --resume does, with the same message. */
static vs_rc same_variants(const vs_scenario *seed, const vs_sweep *sw,
                           const char *path, vs_store *st, vs_error *err)
{
	int64_t id;
	const char *stored, *label;
	while (vs_store_next_variant(st, &id, &stored, &label)) {
		char *json = NULL;
		vs_error verr = {{0}};
		vs_scenario *v = (uint64_t)id < sw->count
		                         ? vs_sweep_variant(sw, seed, (uint64_t)id,
		                                            &json, &verr)
		                         : NULL;
		/* a variant whose changes are invalid (v NULL) is the same
		 * when it changes the same */
		int same = json && stored && !strcmp(json, stored);
		vs_scenario_destroy(v);
		free(json);
		/* A label names the variant in variant_info: a relabelled
		 * entry would keep its old name, unlike in a single run. */
		const char *now = (uint64_t)id < sw->count
		                          ? vs_sweep_label(sw, (uint64_t)id)
		                          : NULL;
		int relabelled = same && (!now != !label ||
		                          (now && strcmp(now, label) != 0));
		if (!same || relabelled) {
			char why[512] = "";
			if (relabelled) {
				char a[220], b[220];
				label_text(a, sizeof a, now);
				label_text(b, sizeof b, label);
				snprintf(why, sizeof why, ": its label is %s, the "
				         "file's %s", a, b);
			}
			vs_error_set(err, "%s: cannot resume: its sweep_text differs "
			             "from this run's and does not extend it "
			             "(variant %lld is not the same%s); use "
			             "--overwrite or another -o", path,
			             (long long)id, why);
			while (vs_store_next_variant(st, &id, &stored, &label))
				;
			return VS_RC_INPUT;
		}
	}
	return VS_RC_OK;
}

/* Resumed with another sweep: every stored variant must be the same
 * variant of this sweep (same params, same label), which then becomes
 * the file's sweep. VS_RC_INPUT when one is not. A journal of crashes
 * (journal.c) beside a file made from nothing is its predecessor's, and
 * one beside an extended file numbers the old sweep's variants: it
 * goes. */
vs_rc vs_run_check_extension(const vs_scenario *seed, const vs_sweep *sw,
                             const vs_run_record *rec, vs_store *st,
                             vs_error *err)
{
	if (vs_store_made(st))
		vs_journal_remove(rec->def.path);
	if (!vs_store_sweep_changed(st))
		return VS_RC_OK;
	vs_rc rc = same_variants(seed, sw, rec->def.path, st, err);
	if (rc)
		return rc;
	/* As a single run of the new sweep records it. */
	vs_meta m[3] = {{"sweep_text", 1, rec->def.sweep_text, 0},
	                {"variant_count", 0, NULL,
	                 (double)rec->def.variant_count},
	                {"sweep_path", 1, rec->def.sweep_path, 0}};
	/* The journal first: its variant numbers are the old sweep's, and a
	 * kill between the two must not leave it beside a file that already
	 * says the new sweep. The three records together, or none. */
	vs_journal_remove(rec->def.path);
	return vs_store_set_metas(st, m, 3, err);
}

/* The map's lanes, so that map_location can name them. */
vs_rc vs_run_store_lanes(const vs_scenario *seed, vs_store *st,
                         vs_error *err)
{
	int n = seed->map ? vs_map_lane_count(seed->map) : 0;
	if (n == 0)
		return VS_RC_OK;
	vs_lane_row *rows = vs_xcalloc((size_t)n, sizeof *rows);
	for (int i = 0; i < n; i++) {
		const vs_lane *l = vs_map_lane(seed->map, i);
		rows[i] = (vs_lane_row){l->uuid, l->road, l->lane, l->length,
		                        l->width, l->section, l->type};
	}
	vs_rc rc = vs_store_set_lanes(st, rows, n, err);
	free(rows);
	return rc;
}

/* Appends use's parameters (role: its key in the scenario) to rows. */
static int add_params(vs_actor_param_row *rows, int n, int64_t actor_id,
                      const char *role, const vs_plugin_use *use,
                      char (*plugin)[256])
{
	if (!use->loaded)
		return n;
	const vs_plugin *p = use->loaded->desc;
	plugin_row_name(use, *plugin, sizeof *plugin);
	for (size_t i = 0; i < p->n_params; i++) {
		const vs_param *q = &p->params[i];
		rows[n++] = (vs_actor_param_row){
			actor_id, role, q->name, *plugin, q->unit, q->doc,
			use->params ? use->params[i] : q->default_value,
			q->min, q->max};
	}
	return n;
}

vs_rc vs_run_store_actor_params(const vs_scenario *seed, vs_store *st,
                                vs_error *err)
{
	size_t cap = 0;
	for (int i = 0; i < seed->n_actors; i++) {
		const vs_actor_spec *a = &seed->actors[i];
		if (a->vehicle_model.loaded)
			cap += a->vehicle_model.loaded->desc->n_params;
		if (a->behaviour.loaded)
			cap += a->behaviour.loaded->desc->n_params;
	}
	vs_actor_param_row *rows = vs_xcalloc(cap + 1, sizeof *rows);
	/* two plugin names per actor, as table plugin spells them */
	char (*names)[256] = vs_xcalloc(2 * (size_t)seed->n_actors + 1,
	                                sizeof *names);
	int n = 0;
	for (int i = 0; i < seed->n_actors; i++) {
		const vs_actor_spec *a = &seed->actors[i];
		n = add_params(rows, n, a->id, "vehicle_model",
		               &a->vehicle_model, &names[2 * i]);
		n = add_params(rows, n, a->id, "behaviour", &a->behaviour,
		               &names[2 * i + 1]);
	}
	vs_rc rc = vs_store_set_actor_params(st, rows, n, err);
	free(names);
	free(rows);
	return rc;
}

static vs_rc check_file(const vs_scenario *seed, const vs_sweep *sw,
                        const vs_run_opts *o, const char *path,
                        int extend, uint64_t *stored, vs_error *err)
{
	*stored = 0;
	/* vs_store_open would create a missing file. */
	if (access(path, F_OK) != 0) {
		vs_error_set(err, "%s: no such results file", path);
		return VS_RC_INPUT;
	}
	vs_run_record rec;
	vs_run_build_record(&rec, seed, sw, o, path, VS_STORE_RESUME);
	vs_store *st;
	vs_rc rc = vs_store_open(&rec.def, &st, err);
	if (rc)
		return rc;
	if (vs_store_made(st))
		vs_journal_remove(path);
	int64_t n = vs_store_variant_count(st);
	/* Checked, never extended: vsweep-mpi checks its parts and its
	 * output here before any rank writes, and the file's sweep record
	 * would be rewritten before the rest was checked: a finished
	 * output was then refused (it is not continued) with its record
	 * already the new sweep's, and parts rewritten before a later one
	 * was refused stayed so. */
	if (!extend && vs_store_sweep_changed(st)) {
		vs_error_set(err, "%s: cannot resume: its sweep_text differs "
		             "from this run's; vsweep-mpi does not extend a "
		             "sweep (finish it with its own sweep file, then "
		             "extend the merged file with vsweep run --resume); "
		             "use --overwrite or another -o", path);
		rc = VS_RC_INPUT;
	} else if (extend && vs_store_sweep_changed(st)) {
		/* run --resume's own comparison: what it would refuse (a
		 * changed or relabelled variant, a raised count of a random
		 * block that is not the last) is refused here alike */
		rc = same_variants(seed, sw, path, st, err);
	}
	if (!rc && n < 0) {
		vs_error_set(err, "%s: cannot read its variants", path);
		rc = VS_RC_IO;
	}
	vs_error cerr = {{0}};
	if (vs_store_close(st, &cerr) && rc == VS_RC_OK) {
		vs_error_set(err, "%s", cerr.msg);
		rc = VS_RC_IO;
	}
	if (rc == VS_RC_OK)
		*stored = (uint64_t)n;
	return rc;
}

vs_rc vs_run_check_file(const vs_scenario *seed, const vs_sweep *sw,
                        const vs_run_opts *o, const char *path,
                        uint64_t *stored, vs_error *err)
{
	return check_file(seed, sw, o, path, 0, stored, err);
}

vs_rc vs_run_check_resume(const vs_scenario *seed, const vs_sweep *sw,
                          const vs_run_opts *o, const char *path,
                          uint64_t *stored, vs_error *err)
{
	return check_file(seed, sw, o, path, 1, stored, err);
}
