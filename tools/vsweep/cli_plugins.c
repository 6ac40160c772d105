/* Finding plugins for the command line, and `vsweep plugins`. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sim/sim.h"

/* True when this executable runs from the build tree, whose plugins then
 * come before the installed ones. */
static int in_build_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	size_t root = strlen(VS_BUILD_ROOT);
	return strncmp(exe, VS_BUILD_ROOT, root) == 0 && exe[root] == '/';
}

vs_registry *cli_registry(const char *const *extra, int n_extra)
{
	char *dirs[256];
	int n = 0;
	for (int i = 0; i < n_extra && n < 200; i++) {
		/* a typo here would only show as a plugin not found later */
		struct stat st;
		int e = stat(extra[i], &st) != 0 ? errno : 0;
		if (e || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "vsweep: note: --plugin-path %s: %s; not "
			        "searched\n", extra[i],
			        e == ENOENT ? "no such directory"
			        : e         ? strerror(e)
			                    : "not a directory");
			continue; /* nor listed as searched (`plugins`) */
		}
		dirs[n++] = vs_strdup(extra[i]);
	}
	const char *env = getenv("VSWEEP_PLUGIN_PATH");
	if (env && *env) {
		char *copy = vs_strdup(env), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d && n < 250;
		     d = strtok_r(NULL, ":", &save))
			dirs[n++] = vs_strdup(d);
		free(copy);
	}
	dirs[n++] = vs_strdup(in_build_tree() ? VS_BUILD_PLUGINDIR
	                                      : VS_INSTALL_PLUGINDIR);
	vs_registry *reg = vs_registry_create((const char *const *)dirs, n,
	                                      vs_sim_host());
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	return reg;
}

static const char *kind_name(vs_kind k)
{
	return k == VS_KIND_VEHICLE_MODEL ? "vehicle model" : "behaviour";
}

void cli_registry_notes(const vs_registry *reg)
{
	for (int i = 0; reg && i < reg->n_notes; i++)
		fprintf(stderr, "vsweep: %s\n", reg->notes[i]);
}

int cli_plugins(vs_registry *reg)
{
	printf("searched:");
	for (int i = 0; i < reg->n_dirs; i++)
		printf(" %s", reg->dirs[i]);
	printf("\n");
	/* `run` and `check` load only the plugins a scenario names; a list
	 * of them all has to load them all, which runs their code. */
	printf("loading every *.so in these folders (their code runs in "
	       "this process)\n");
	vs_registry_load_all(reg);
	cli_registry_notes(reg);
	for (int i = 0; i < reg->n; i++) {
		const vs_plugin *p = reg->plugins[i]->desc;
		/* a behaviour for characters says so: naming it for a
		 * vehicle (or a vehicle's for a character) is refused */
		uint32_t drives = vs_plugin_drives(p);
		const char *who =
			p->kind != VS_KIND_BEHAVIOUR ||
			        !(drives & VS_DRIVES_CHARACTER) ? ""
			: drives & VS_DRIVES_VEHICLE ? ", drives vehicles and "
			                               "characters"
			                             : ", drives characters";
		/* and one that needs a map: naming it in a scenario
		 * without one is refused */
		const char *needs = vs_plugin_needs(p) & VS_NEEDS_MAP
		                    ? ", needs a map" : "";
		printf("\n%s %s (%s%s%s) — %s\n  %s\n", p->name,
		       p->version ? p->version : "", kind_name(p->kind), who,
		       needs, p->doc ? p->doc : "", reg->plugins[i]->path);
		for (size_t k = 0; k < p->n_params; k++) {
			const vs_param *q = &p->params[k];
			printf("  %-20s default %-10g range [%g, %g] %-6s %s\n",
			       q->name, q->default_value, q->min, q->max,
			       q->unit ? q->unit : "", q->doc ? q->doc : "");
		}
		size_t n_out = 0;
		const vs_output *o = vs_plugin_outputs(p, &n_out);
		for (size_t k = 0; k < n_out; k++)
			printf("  output %-13s %-8s %s\n", o[k].name, o[k].unit,
			       o[k].doc);
	}
	for (int i = 0; i < reg->n_broken; i++)
		printf("\nbroken: %s\n", reg->broken[i].reason);
	return reg->n > 0 ? EXIT_OK : EXIT_BAD_INPUT;
}
