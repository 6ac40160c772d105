/* The edit distance behind vs_did_you_mean (suggest.h). */
#include "common/suggest.h"

#include <string.h>

#define WORD_MAX 64  /* longer words are never misspellings of names */

/* Optimal string alignment distance between a and b. */
static int distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n >= WORD_MAX || m >= WORD_MAX)
		return WORD_MAX;
	int d[WORD_MAX + 1][WORD_MAX + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[n][m];
}

const char *vs_did_you_mean(const char *word, const char *const *known,
                            int n)
{
	const char *best = NULL;
	int best_d = WORD_MAX;
	int limit = (int)strlen(word) / 3;
	limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
	for (int i = 0; n < 0 ? known[i] != NULL : i < n; i++) {
		int dist = distance(word, known[i]);
		if (dist < best_d) {
			best_d = dist;
			best = known[i];
		}
	}
	/* a word all of whose letters change is no misspelling ('c' is not
	 * a misspelt 'a') */
	return best_d <= limit && best_d < (int)strlen(word) ? best : NULL;
}
