/* Command-line options about plugins: which plugin outputs --record
 * stores (signals), and --plugin-log's level. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input/scenario.h"
#include "plugin/registry.h"
#include "sim/signals.h"
#include "sim/sim.h"

/* Inserts name into the sorted comma list (no duplicates), so that equal
 * choices give equal --record text (a resume compares it). */
static int add_name(char *list, size_t cap, const char *name)
{
	char *names[128];
	int n = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", list);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t && n < 127;
	     t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 0;
	int at = n;
	while (at > 0 && strcmp(names[at - 1], name) > 0)
		at--;
	memmove(names + at + 1, names + at, (size_t)(n - at) * sizeof *names);
	names[at] = (char *)name;
	n++;
	char out[1024] = "";
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		int w = snprintf(out + len, sizeof out - len, "%s%s",
		                 i ? "," : "", names[i]);
		if (w < 0 || (size_t)w >= sizeof out - len)
			return -1;
		len += (size_t)w;
	}
	if (len >= cap)
		return -1;
	memcpy(list, out, len + 1);
	return 0;
}

/* "plugin.output": two identifiers joined by one dot. */
static int signal_name_ok(const char *s)
{
	const char *dot = strchr(s, '.');
	if (!dot || dot == s || !dot[1] || strchr(dot + 1, '.'))
		return 0;
	for (; *s; s++)
		if (!(*s == '.' || *s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

int cli_record_signal(const char *tok, cli_run_args *a)
{
	if (!strcmp(tok, "signals")) {
		strcpy(a->signals, "*");
		return 1;
	}
	const char *name = NULL;
	if (!strncmp(tok, "signals=", 8))
		name = tok + 8;
	else if (strchr(tok, '.') && a->signals[0] &&
	         strcmp(a->signals, "*"))
		name = tok; /* the list after signals= goes on */
	if (!name)
		return strchr(tok, '.') ? -1 : 0;
	if (!signal_name_ok(name) || !strcmp(a->signals, "*"))
		return -1;
	return add_name(a->signals, sizeof a->signals, name) ? -1 : 1;
}

int cli_parse_plugin_log(const char *v, cli_run_args *a)
{
	static const char *const names[] = {"debug", "info", "warning",
	                                    "error"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i])) {
			a->plugin_log = i + 1;
			return 0;
		}
	if (!strcmp(v, "none")) {
		a->plugin_log = VS_SIM_LOG_NONE;
		return 0;
	}
	return -1;
}

/* The plugin called name: one the scenario's actors use (an FMU among
 * them), else the plugin path's NAME.so; NULL if neither has it. */
static const vs_plugin *plugin_named(const vs_registry *reg,
                                     const vs_scenario *scn,
                                     const char *name)
{
	for (int i = 0; i < scn->n_actors; i++) {
		const vs_plugin_use *u[2] = {&scn->actors[i].vehicle_model,
		                             &scn->actors[i].behaviour};
		for (int k = 0; k < 2; k++)
			if (u[k]->loaded && !strcmp(u[k]->loaded->desc->name, name))
				return u[k]->loaded->desc;
	}
	const vs_loaded_plugin *lp = vs_registry_find(reg, name);
	return lp ? lp->desc : NULL;
}

/* An output both uses store under one name (PLUGIN.OUTPUT) with units
 * that differ: two different FMUs (every FMU's name is "fmu") declaring
 * one variable name in two units. A signal name has one unit in the
 * results file, so recording both would label one actor's values with
 * the other's unit: a message and EXIT_BAD_INPUT. */
static int check_units(const cli_prog *me, const vs_actor_spec *a,
                       const vs_plugin_use *ua, const vs_actor_spec *b,
                       const vs_plugin_use *ub, const char *signals)
{
	const vs_plugin *pa = ua->loaded->desc, *pb = ub->loaded->desc;
	if (pa == pb || strcmp(pa->name, pb->name))
		return 0;
	size_t na = 0, nb = 0;
	const vs_output *oa = vs_plugin_outputs(pa, &na);
	const vs_output *ob = vs_plugin_outputs(pb, &nb);
	for (size_t i = 0; i < na; i++)
		for (size_t k = 0; k < nb; k++) {
			if (strcmp(oa[i].name, ob[k].name))
				continue;
			const char *x = oa[i].unit ? oa[i].unit : "";
			const char *y = ob[k].unit ? ob[k].unit : "";
			char full[256];
			snprintf(full, sizeof full, "%s.%s", pa->name,
			         oa[i].name);
			if (!strcmp(x, y) || !vs_signal_selected(signals, full))
				continue;
			if (!me->quiet)
				fprintf(stderr, "%s: --record signals: actor "
				        "%lld (%s) and actor %lld (%s) store '%s' "
				        "in '%s' (%s) and in '%s' (%s), but a "
				        "signal has one unit in the results file: "
				        "leave it out (list the outputs to record, "
				        "signals=PLUGIN.OUTPUT,...) or give the "
				        "variable one unit in both FMUs\n", me->name,
				        (long long)a->id, a->name, (long long)b->id,
				        b->name, full, x,
				        ua->fmu ? ua->fmu : pa->name, y,
				        ub->fmu ? ub->fmu : pb->name);
			return EXIT_BAD_INPUT;
		}
	return 0;
}

/* check_units over every two plugin uses of the scenario. */
static int check_scenario_units(const cli_prog *me, const vs_scenario *scn,
                                const char *signals)
{
	for (int i = 0; i < scn->n_actors; i++)
		for (int j = i; j < scn->n_actors; j++) {
			const vs_actor_spec *a = &scn->actors[i];
			const vs_actor_spec *b = &scn->actors[j];
			const vs_plugin_use *ua[2] = {&a->vehicle_model,
			                              &a->behaviour};
			const vs_plugin_use *ub[2] = {&b->vehicle_model,
			                              &b->behaviour};
			for (int k = 0; k < 2; k++)
				for (int m = 0; m < 2; m++)
					if (ua[k]->loaded && ub[m]->loaded &&
					    check_units(me, a, ua[k], b,
					                ub[m], signals))
						return EXIT_BAD_INPUT;
		}
	return 0;
}

int cli_check_signals(const cli_prog *me, const vs_registry *reg,
                      const vs_scenario *scn, const char *signals)
{
	if (!signals[0])
		return 0;
	if (check_scenario_units(me, scn, signals))
		return EXIT_BAD_INPUT;
	if (!strcmp(signals, "*"))
		return 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", signals);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *dot = strchr(t, '.');
		*dot = 0; /* signal_name_ok let in only PLUGIN.OUTPUT */
		const vs_plugin *p = plugin_named(reg, scn, t);
		if (!p) {
			if (!me->quiet)
				fprintf(stderr, "%s: --record signals=%s.%s: no "
				        "plugin '%s' in the scenario or the plugin "
				        "path\n", me->name, t, dot + 1, t);
			return EXIT_BAD_INPUT;
		}
		size_t n = 0;
		const vs_output *o = vs_plugin_outputs(p, &n);
		size_t k = 0;
		while (k < n && strcmp(o[k].name, dot + 1))
			k++;
		if (k == n) {
			if (!me->quiet)
				fprintf(stderr, "%s: --record signals=%s.%s: plugin "
				        "'%s' has no output '%s' (`vsweep plugins` "
				        "lists its outputs)\n", me->name, t, dot + 1,
				        t, dot + 1);
			return EXIT_BAD_INPUT;
		}
	}
	return 0;
}
