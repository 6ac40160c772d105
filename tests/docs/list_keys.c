/* Prints every key the scenario and sweep readers accept, one per line as
 * "WHERE<TAB>KEY", from the code's own tables: input/keys.h, the varied-
 * property table (sweep_props.h), the block kinds, and the map reader's
 * keys (map/ keeps its tables private, so they are read from the
 * "allowed: ..." list of the reader's own unknown-key message). Exits 1
 * when a probe does not give that list, so a reader that stops listing
 * its keys fails the docs test instead of passing it quietly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/keys.h"
#include "input/scenario.h"
#include "input/sweep.h"
#include "input/sweep_props.h"

static void print_list(const char *where, const char *const *keys)
{
	for (; *keys; keys++)
		printf("%s\t%s\n", where, *keys);
}

/* Parses a scenario whose mapping at the probe holds an unknown key and
 * prints the keys the message says are allowed. */
static int probe(const char *where, const char *text)
{
	vs_error err = {{0}};
	vs_scenario *s = vs_scenario_parse("<probe>", text, strlen(text), &err);
	vs_scenario_destroy(s);
	const char *list = strstr(err.msg, "allowed: ");
	if (s || !list || !strstr(err.msg, "'vs_probe_key'")) {
		fprintf(stderr, "list_keys: probe %s: no key list in '%s'\n",
		        where, err.msg);
		return -1;
	}
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", list + strlen("allowed: "));
	for (char *k = strtok(buf, ", "); k; k = strtok(NULL, ", "))
		printf("%s\t%s\n", where, k);
	return 0;
}

#define HEAD "vsweep: 1\nstep: 0.1\nduration: 1\n"
#define ROAD "map: {roads: [{id: r, circle: {center: [0, 0], radius: 50}, "

int main(void)
{
	for (const vs_key_table *t = vs_input_key_tables; t->mapping; t++)
		print_list(t->mapping, t->keys);
	for (vs_block_kind k = VS_BLOCK_LIST; k <= VS_BLOCK_RANDOM; k++)
		printf("blocks[]\t%s\n", vs_block_kind_name(k));

	const char *keys[VS_PROP_MAX_KEYS];
	vs_prop_keys(VS_KEYS_CHANGE, NULL, keys);
	print_list("list change", keys);
	vs_prop_keys(VS_KEYS_AXIS, NULL, keys);
	print_list("grid or random axis", keys);
	for (int i = 0; i < vs_n_prop_defs; i++) {
		const vs_prop_def *d = &vs_prop_defs[i];
		printf("property\t%s\n", d->name);
		if (d->group)
			printf("%s: {...}\t%s\n", d->group, d->field);
	}

	int rc = 0;
	rc |= probe("map", HEAD "map: {vs_probe_key: 1}\n");
	rc |= probe("map.roads[]", HEAD "map: {roads: [{vs_probe_key: 1}]}\n");
	rc |= probe("circle", HEAD "map: {roads: [{id: r, circle: "
	                          "{vs_probe_key: 1}}]}\n");
	rc |= probe("lanes", HEAD ROAD "lanes: {vs_probe_key: 1}}]}\n");
	return rc ? 1 : 0;
}
