/* vsweep's commands that read a sweep without running it. */
#ifndef VS_CLI_VARIANTS_H
#define VS_CLI_VARIANTS_H

/* `vsweep variants SCENARIO --sweep SWEEP [--format csv|json]
 * [--plugin-path DIR]`: the variant table on stdout. Returns an exit
 * status. */
int cli_variants(int argc, char **argv);

#endif
