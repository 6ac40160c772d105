/* Plugin outputs (ABI 1.1) as signal rows of a variant's result, and
 * plugin messages as its log rows. */
#ifndef VS_SIGNALS_H
#define VS_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/result.h"

/* One plugin instance's outputs array and which of them are recorded. */
typedef struct vs_signal_src {
	int64_t actor_id;
	const vs_plugin *plugin;
	double *buf;  /* n doubles, handed to the plugin */
	size_t n;
	int *name;    /* per output: index into res->signal_names, -1: not
	                 recorded */
} vs_signal_src;

typedef struct vs_signals {
	const char *select; /* NULL none, "*" all, else "plugin.output,..." */
	int n;
	vs_signal_src *src;
} vs_signals;

/* Makes the outputs array for the instance of p of this actor (none when
 * p declares no outputs), zeroed; its selected outputs get names in res.
 * Owned by S. Called for every instance before any is created, so that
 * every variant of a scenario numbers its names alike (shards merge). */
void vs_signals_add(vs_signals *S, vs_result *res, int64_t actor_id,
                    const vs_plugin *p);

/* The array vs_signals_add made for this actor and plugin, or NULL. */
double *vs_signals_buffer(const vs_signals *S, int64_t actor_id,
                          const vs_plugin *p);

/* Appends the selected outputs of every instance at this step to res. */
void vs_signals_record(const vs_signals *S, int64_t step, vs_result *res);

/* Frees the arrays; call after the instances are destroyed. */
void vs_signals_free(vs_signals *S);

/* Whether "plugin.output" is in select (NULL none, "*" all, else a comma
 * list). */
int vs_signal_selected(const char *select, const char *name);

/* A log row's message from text as a plugin gave it, total bytes long
 * (text holds at least its first min(total, VS_LOG_MESSAGE_MAX + 1)
 * bytes; what follows them is not read): whole up to VS_LOG_MESSAGE_MAX
 * bytes; longer, the whole characters within the first
 * VS_LOG_MESSAGE_MAX bytes (a UTF-8 character is never split), then
 * "\u2026 [N more bytes]", N the bytes left out. With escape, control
 * characters (a NUL too) and bytes that are not UTF-8 in what is kept
 * become visible escapes (error.h's vs_escape_bytes): how every stored
 * message and printed line is made. Owned; at most VS_LOG_TEXT_MAX
 * bytes. */
char *vs_log_text(const char *text, size_t total, int escape);

/* Stores a plugin message in res (up to a cap per variant) and prints it
 * on stderr, the first few per variant only, the rest counted in one
 * line: a model that warns every step must not drown the terminal. msg:
 * as vs_log_text made it (copied). Not thread-safe on one res: its
 * caller (sim.c's host_log) holds the variant's log lock, plugins
 * logging from threads of their own. */
void vs_log_add(vs_result *res, int64_t actor_id, double t, int level,
                const char *plugin, const char *msg);

/* "debug", "info", "warning", "error". */
const char *vs_log_level_name(int level);

#endif
