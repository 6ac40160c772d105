/* vsweep export: one variant of a sweep as a scenario file of its own. */
#ifndef VS_CLI_EXPORT_H
#define VS_CLI_EXPORT_H

/* `vsweep export SCENARIO --sweep SWEEP --variant I -o FILE.yaml
 * [--plugin-path DIR]`. Returns an exit status. */
int cli_export(int argc, char **argv);

#endif
