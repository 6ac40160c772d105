/* What a contained child and its parent share (contain.c says why they
 * are two processes): the format a result travels in over the result
 * socket, the page the child writes its last words to, and the child's
 * entry. Both ends are the same build of vsweep, forked from one
 * process, so the format is raw structs and arrays, not a portable
 * encoding; the parent checks what it reads (contain_check.h) because
 * the child's memory may be corrupt, not because the layout may differ.
 * Private to core/run's contain*.c. */
#ifndef VS_RUN_CONTAIN_PROTO_H
#define VS_RUN_CONTAIN_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "input/scenario.h"
#include "input/sweep.h"
#include "sim/result.h"
#include "sim/sim.h"

#define CONTAIN_MAGIC 0x76737770u /* "vswp": a result */
#define CONTAIN_CHUNK_MAGIC 0x76736368u /* "vsch": a chunk of its rows */

/* What precedes a result's arrays on the socket. Then come, in this
 * order: the actor, wheel, state, event and signal rows, the first
 * n_logs_kept log rows, the pair rows, one int32 index per event (its
 * kind) and per kept log row (its plugin use), the signal names, the
 * kept log rows' messages (each a uint32 length and bytes, at most
 * VS_LOG_TEXT_MAX), and CONTAIN_MAGIC again (the trailer: the result
 * came whole). */
typedef struct contain_head {
	uint32_t magic;
	int32_t sim_rc;
	int32_t status;
	int32_t n_actors, n_wheels;
	int64_t n_rows, n_events;
	int32_t n_signal_names;  /* each sent with its unit, each string as
	                            a uint32 length and bytes */
	int64_t n_signals;
	int64_t n_logs, n_logs_kept;
	int64_t n_pairs;
	int32_t summary_void;
	vs_summary summary;
	char error[1024];
} contain_head;

/* What precedes a chunk's arrays on the socket (the runner's vs_row_sink
 * streams a long variant's rows; the parent passes them through): then
 * its state, signal and pair rows and its signal names. */
typedef struct contain_chunk_head {
	uint32_t magic;
	int32_t n_signal_names;  /* each sent with its unit, each string as
	                            a uint32 length and bytes */
	int64_t n_rows, n_signals, n_pairs;
} contain_chunk_head;

/* The page the child writes its last words to (a shared memfd: it
 * outlives the child). */
typedef struct contain_last_words {
	int set;
	volatile int in_plugin; /* where names a plugin (set after where) */
	char where[512]; /* "in plugin P, actor A, step K" */
} contain_last_words;

/* Writes n bytes of p to the socket fd; 0, or -1 when the peer is gone
 * (never SIGPIPE). */
int contain_send(int fd, const void *p, size_t n);

/* The child (contain_child.c): with its stdout and stderr made print,
 * reads variant indices from the socket in, writes each one's result to
 * the socket out, until in closes; every other descriptor is closed.
 * sw, seed, so: the run's, at the parent's addresses. */
_Noreturn void contain_child(int in, int out, int print,
                             contain_last_words *words, const vs_sweep *sw,
                             const vs_scenario *seed, const vs_sim_opts *so);

#endif
