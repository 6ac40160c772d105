/* The keys of every mapping the scenario and sweep readers accept, said
 * once: the readers check mappings against these arrays (an unknown key
 * is an error), and vs_input_key_tables lists them all, so a test can
 * hold the documentation to them. The varied properties' keys are not
 * here: they come from the property table (sweep_props.h, vs_prop_keys).
 *
 * The bottom of input/: it includes nothing and calls nothing. */
#ifndef VS_INPUT_KEYS_H
#define VS_INPUT_KEYS_H

/* Each array ends in NULL. */
extern const char *const vs_keys_scenario[];  /* the scenario file */
extern const char *const vs_keys_asset[];     /* assets: NAME: {...} */
extern const char *const vs_keys_actor[];     /* actors: - {...} */
extern const char *const vs_keys_start[];     /* an actor's start: */
extern const char *const vs_keys_plugin_use[]; /* vehicle_model:,
                                                  behaviour: */
extern const char *const vs_keys_attach[];    /* an actor's attach: */
extern const char *const vs_keys_sweep[];     /* the sweep file */
extern const char *const vs_keys_entry[];     /* a list entry mapping */
extern const char *const vs_keys_random[];    /* random: {...} */
extern const char *const vs_keys_grid_dist[]; /* a grid axis's values */
extern const char *const vs_keys_random_dist[]; /* a random axis's draw */
extern const char *const vs_keys_range[];     /* {from, to, step} */
extern const char *const vs_keys_normal[];    /* normal: {...} */
extern const char *const vs_keys_choice[];    /* choice: {...} */

typedef struct vs_key_table {
	const char *mapping;     /* where the mapping is, e.g. "actors[]" */
	const char *const *keys; /* the keys it accepts */
} vs_key_table;

/* Every array above with where it applies, ended by {NULL, NULL}. */
extern const vs_key_table vs_input_key_tables[];

#endif
