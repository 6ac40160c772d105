/* The `fmu:` form of a vehicle_model (use_fmu.h): its path, resolved
 * against the scenario file's directory, and the `variables:` renamings
 * from vsweep's names to the FMU's. */
#include "input/use_fmu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vs_use_parse_fmu(const vs_ydoc *doc, const vs_ynode *m,
                     vs_plugin_use *use, vs_error *err)
{
	const vs_ynode *fn = vs_ymap_get(m, "fmu");
	const vs_ynode *vars = vs_ymap_get(m, "variables");
	if (!fn) {
		if (vars) {
			vs_error_at(err, doc->path, vars->mark,
			            "variables: applies to an fmu: model only");
			return -1;
		}
		return 0;
	}
	const char *path;
	if (vs_y_string(doc, fn, "fmu", &path, err))
		return -1;
	if (vs_ymap_get(m, "plugin")) {
		vs_error_at(err, doc->path, fn->mark,
		            "name either plugin: or fmu:, not both");
		return -1;
	}
	/* Relative to the scenario file, as map files are. */
	const char *slash = strrchr(doc->path, '/');
	if (path[0] != '/' && slash) {
		size_t n = (size_t)(slash - doc->path) + strlen(path) + 2;
		use->fmu = vs_xcalloc(n, 1);
		snprintf(use->fmu, n, "%.*s/%s", (int)(slash - doc->path),
		         doc->path, path);
	} else {
		use->fmu = vs_strdup(path);
	}
	use->mark = fn->mark;
	if (vs_y_is_null(vars))
		return 1;
	if (vs_y_map(doc, vars, "variables", err))
		return -1;
	use->var_from = vs_xcalloc((size_t)vars->n + 1, sizeof *use->var_from);
	use->var_to = vs_xcalloc((size_t)vars->n + 1, sizeof *use->var_to);
	for (int i = 0; i < vars->n; i++) {
		const char *to;
		if (vs_y_string(doc, vs_ymap_value(vars, i),
		                vs_ymap_key(vars, i)->str, &to, err))
			return -1;
		use->var_from[i] = vs_strdup(vs_ymap_key(vars, i)->str);
		use->var_to[i] = vs_strdup(to);
		use->n_vars++;
	}
	return 1;
}

const vs_loaded_plugin *vs_use_bind_fmu(const vs_scenario *scn,
                                        const vs_registry *reg,
                                        const vs_plugin_use *use,
                                        const char *what, vs_error *err)
{
	vs_error e = {{0}};
	const vs_loaded_plugin *lp =
		reg && reg->fmus
			? vs_registry_fmu(reg, use->fmu,
			                  (const char *const *)use->var_from,
			                  (const char *const *)use->var_to,
			                  use->n_vars, &e)
			: NULL;
	if (lp && vs_registry_fmu_check_step(reg, lp, scn->step, &e))
		lp = NULL;
	if (!lp)
		vs_error_at(err, scn->path, use->mark, "%s: %s", what,
		            e.msg[0] ? e.msg : "FMUs cannot be loaded here");
	return lp;
}

static char **copy_strings(char *const *s, int n)
{
	if (!s)
		return NULL;
	char **d = vs_xcalloc((size_t)n + 1, sizeof *d);
	for (int i = 0; i < n; i++)
		d[i] = vs_strdup(s[i]);
	return d;
}

void vs_use_copy_fmu(vs_plugin_use *d, const vs_plugin_use *s)
{
	d->fmu = s->fmu ? vs_strdup(s->fmu) : NULL;
	d->var_from = copy_strings(s->var_from, s->n_vars);
	d->var_to = copy_strings(s->var_to, s->n_vars);
}

void vs_use_free_fmu(vs_plugin_use *u)
{
	free(u->fmu);
	for (int i = 0; i < u->n_vars; i++) {
		free(u->var_from[i]);
		free(u->var_to[i]);
	}
	free(u->var_from);
	free(u->var_to);
}
