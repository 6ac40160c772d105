/* The FMUs a run uses, opened once each (registry.h): every actor and
 * every variant naming the same FMU with the same `variables:` shares one
 * unpacked directory and one loaded binary, and all are closed (their
 * directories removed) with the registry. */
#include "plugin/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu/fmu.h"

typedef struct fmu_entry {
	char *key;              /* path, then the renamings */
	vs_fmu *fmu;
	vs_loaded_plugin lp;    /* path: the FMU file, handle NULL */
} fmu_entry;

struct vs_fmu_cache {
	int n;
	fmu_entry **e;          /* pointers: lp addresses stay put */
};

vs_fmu_cache *vs_fmu_cache_create(void)
{
	return vs_xcalloc(1, sizeof(vs_fmu_cache));
}

void vs_fmu_cache_destroy(vs_fmu_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		vs_fmu_close(c->e[i]->fmu);
		free(c->e[i]->lp.path);
		free(c->e[i]->lp.dir);
		free(c->e[i]->key);
		free(c->e[i]);
	}
	free(c->e);
	free(c);
}

static char *make_key(const char *path, const char *const *from,
                      const char *const *to, int n)
{
	size_t len = strlen(path) + 2;
	for (int i = 0; i < n; i++)
		len += strlen(from[i]) + strlen(to[i]) + 2;
	char *k = vs_xcalloc(len, 1);
	strcpy(k, path);
	for (int i = 0; i < n; i++) {
		strcat(k, "\n");
		strcat(k, from[i]);
		strcat(k, "=");
		strcat(k, to[i]);
	}
	return k;
}

const vs_loaded_plugin *vs_registry_fmu(const vs_registry *reg,
                                        const char *path,
                                        const char *const *from,
                                        const char *const *to, int n,
                                        vs_error *err)
{
	vs_fmu_cache *c = reg->fmus;
	char *key = make_key(path, from, to, n);
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->e[i]->key, key)) {
			free(key);
			return &c->e[i]->lp;
		}
	vs_fmu *f = vs_fmu_open(path, from, to, n, err);
	if (!f) {
		free(key);
		return NULL;
	}
	fmu_entry *e = vs_xcalloc(1, sizeof *e);
	e->key = key;
	e->fmu = f;
	e->lp.path = vs_strdup(path);
	e->lp.handle = NULL;
	e->lp.dir = vs_strdup(vs_fmu_dir(f));
	e->lp.desc = vs_fmu_plugin(f);
	c->e = vs_xrealloc(c->e, (size_t)(c->n + 1) * sizeof *c->e);
	c->e[c->n++] = e;
	return &e->lp;
}

const char *vs_registry_fmu_once(const vs_registry *reg)
{
	const vs_fmu_cache *c = reg ? reg->fmus : NULL;
	for (int i = 0; c && i < c->n; i++)
		if (vs_fmu_once(c->e[i]->fmu))
			return c->e[i]->lp.path;
	return NULL;
}

int vs_registry_fmu_is_once(const vs_registry *reg,
                            const vs_loaded_plugin *lp)
{
	const vs_fmu_cache *c = reg ? reg->fmus : NULL;
	for (int i = 0; c && i < c->n; i++)
		if (&c->e[i]->lp == lp)
			return vs_fmu_once(c->e[i]->fmu);
	return 0;
}

int vs_registry_fmu_check_step(const vs_registry *reg,
                               const vs_loaded_plugin *lp, double step,
                               vs_error *err)
{
	const vs_fmu_cache *c = reg ? reg->fmus : NULL;
	for (int i = 0; c && i < c->n; i++)
		if (&c->e[i]->lp == lp)
			return vs_fmu_check_step(c->e[i]->fmu, step, err);
	return 0;
}
