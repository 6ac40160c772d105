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

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "input/scenario.h"
#include "input/sweep.h"
#include "sim/result.h"
#include "sim/sim.h"

#define CONTAIN_MAGIC 0x76737770u /* "vswp": a result */
#define CONTAIN_CHUNK_MAGIC 0x76736368u /* "vsch": a chunk of its rows */

/* The window: a child's state rows, the bulk of every result (about
 * 0.8 MB for a 2-actor variant of 2001 steps), travel through memory the
 * child shares with its parent rather than down the result socket. The
 * socket cost two copies in the kernel and a poll and a read per 200 kB
 * or so: the relay took 10 % of a full-recording run's CPU (perf). The
 * window is the words' memfd past CONTAIN_WINDOW_OFF: the child copies
 * the rows in, then sends the head saying so (rows_in_window); the
 * parent copies them out while the child cannot write there: after a
 * result the child waits for its next request, after a chunk for the
 * parent's one-byte go-ahead (CONTAIN_WINDOW_ACK on the request socket)
 * once the rows are out. Rows that do not fit (a step of more than
 * CONTAIN_WINDOW_BYTES) go down the socket as before. The parent checks
 * the rows it copied out as it checks those read, and counts the
 * window's pages out of the child's memory growth (--variant-memory):
 * they are the transport's, not the plugins'. */
#define CONTAIN_WINDOW_OFF ((size_t)4096)
#define CONTAIN_WINDOW_BYTES ((size_t)8 << 20)
#define CONTAIN_SHARED_BYTES (CONTAIN_WINDOW_OFF + CONTAIN_WINDOW_BYTES)
#define CONTAIN_WINDOW_ACK 'w'

/* What precedes a result's arrays on the socket. Then come, in this
 * order: the actor, wheel, state (unless rows_in_window), event and
 * signal rows, the first
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
	int32_t rows_in_window;  /* 1: the n_rows state rows are in the
	                            window, not on the socket */
	int64_t n_signals;
	int64_t n_logs, n_logs_kept;
	int64_t n_pairs;
	int32_t summary_void;
	vs_summary summary;
	char error[1024];
} contain_head;

/* What precedes a chunk's arrays on the socket (the runner's vs_row_sink
 * streams a long variant's rows; the parent passes them through): then
 * its state rows (unless rows_in_window: then the child waits for
 * CONTAIN_WINDOW_ACK after sending the rest), signal and pair rows and
 * its signal names. */
typedef struct contain_chunk_head {
	uint32_t magic;
	int32_t n_signal_names;  /* each sent with its unit, each string as
	                            a uint32 length and bytes */
	int64_t n_rows, n_signals, n_pairs;
	int32_t rows_in_window;  /* as contain_head's */
} contain_chunk_head;

/* The page the child writes its last words to (a shared memfd: it
 * outlives the child), the window after it. */
typedef struct contain_last_words {
	int set;
	volatile int in_plugin; /* where names a plugin (set after where) */
	char where[512]; /* "in plugin P, actor A, step K" */
	/* The child's sim.h vs_sim_calling and vs_sim_step, mirrored at
	 * every change (vs_sim_mirror): what the parent names when the
	 * child died with no word (SIGKILL, the OOM killer, _Exit). */
	volatile sig_atomic_t mirror[2]; /* [0] calling, [1] step */
} contain_last_words;
_Static_assert(sizeof(contain_last_words) <= CONTAIN_WINDOW_OFF,
               "the window starts past the words");

/* The window of the shared memory w starts. */
static inline void *contain_window(contain_last_words *w)
{
	return (char *)w + CONTAIN_WINDOW_OFF;
}

/* Writes n bytes of p to the socket fd; 0, or -1 when the peer is gone
 * (never SIGPIPE). */
int contain_send(int fd, const void *p, size_t n);

/* The child (contain_child.c): with its stdout and stderr made print
 * and what vsweep's own code says (error.h's vs_own_stderr) going down
 * the pipe own, reads variant indices from the socket in, writes each
 * one's result to the socket out, until in closes; every other
 * descriptor is closed. sw, seed, so: the run's, at the parent's
 * addresses. */
_Noreturn void contain_child(int in, int out, int print, int own,
                             contain_last_words *words, const vs_sweep *sw,
                             const vs_scenario *seed, const vs_sim_opts *so);

#endif
