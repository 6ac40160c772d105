/* "Did you mean" for the command line: `--progres` and `--overwirte` find
 * their option (the distance is core/common/suggest.c's, shared with the
 * YAML readers). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/suggest.h"

const char *cli_did_you_mean(const char *word, const char *const *known,
                             int n)
{
	return vs_did_you_mean(word, known, n);
}

void cli_unknown_option(const char *who, const char *o,
                        const char *const *known, int n)
{
	char word[64]; /* longer words are never misspelt options */
	/* --opt=value: suggest for the option part */
	snprintf(word, sizeof word, "%s", o);
	char *eq = strchr(word, '=');
	if (eq)
		*eq = 0;
	const char *near = cli_did_you_mean(word, known, n);
	if (near)
		fprintf(stderr, "%s: unknown option '%s'; did you mean '%s'?\n",
		        who, o, near);
	else
		fprintf(stderr, "%s: unknown or incomplete option '%s'\n", who,
		        o);
}
