/* "Did you mean": the nearest of the known words to a misspelt one, for
 * unknown options, commands and YAML keys alike. */
#ifndef VS_SUGGEST_H
#define VS_SUGGEST_H

/* The known word nearest to word by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1) when it is near
 * enough to be a misspelling — a third of the word's letters, at least 1,
 * at most 3, and fewer than all of them — else NULL. known holds n words, or is NULL-terminated when
 * n < 0. */
const char *vs_did_you_mean(const char *word, const char *const *known,
                            int n);

#endif
