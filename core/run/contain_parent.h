/* The parent's side of a worker's contained child, as contain.c (the
 * child's life: fork, request, reap, the reason a variant failed) and
 * contain_receive.c (the wait for its result: reading and decoding it
 * while the child's output and memory are watched) share it. Private to
 * core/run's contain*.c. */
#ifndef VS_RUN_CONTAIN_PARENT_H
#define VS_RUN_CONTAIN_PARENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/contain.h"
#include "run/contain_proto.h"

/* Lines of a variant's output kept in its log (level 'output'). */
#define OUTPUT_ROWS_KEPT 100

struct vs_contain {
	vs_contain_server *server; /* NULL: children forked here */
	const vs_sweep *sw;
	const vs_scenario *seed;
	int words_fd;         /* the words page's memfd, for the server */
	pid_t pid;            /* 0: no child */
	int to, from;         /* request and result sockets, parent's ends */
	int print;            /* the child's stdout and stderr, read end */
	int own;              /* what vsweep's code in it says, read end */
	contain_last_words *words; /* shared with the child */
	long limit_kb;        /* growth allowed; 0: none */
	long served;          /* variants this child returned whole */
	long base_kb;         /* the child's resident set at its fork */
	long base_shmem_kb;   /* its shared memory part then */
	double next_look;     /* s (vs_now) of the next memory look */
	/* The variant's output: the line being read (more than vs_log_text
	 * reads of it), the lines kept (messages owned). */
	char line[VS_LOG_MESSAGE_MAX + 2];
	size_t line_total;    /* bytes of the line so far, held or not */
	/* The child's own line being read (room for a logged message as
	 * vs_log_add prints it, with its "vsweep: variant ..." prefix). */
	char own_line[VS_LOG_TEXT_MAX + 1024];
	size_t own_total;     /* bytes of it so far, held or not */
	vs_log_row out[OUTPUT_ROWS_KEPT];
	int n_out;
	long long n_dropped;  /* lines past OUTPUT_ROWS_KEPT */
	/* The variant being simulated (the parent's copy), and what its
	 * result is checked against so far. */
	const vs_scenario *variant;
	int64_t last_step;    /* of the last rows received; -1: none */
	char bad[160];        /* what is wrong with a malformed result */
};

/* Reads the result of the variant just asked for (c->variant) into res,
 * handing the chunks that come first to so->sink (the writer's time
 * moves *deadline on; 0: none). Returns 0 (whole and checked), 1 (a
 * stop, or the sink said stop), 2 (past *deadline), 3 (the child is
 * gone or sent what is no result), 4 (the child outgrew its memory
 * limit) or 6 (malformed: what is wrong in c->bad). */
int contain_receive(vs_contain *c, const vs_sim_opts *so, double *deadline,
                    vs_result *res, int *sim_rc);

/* How far the child's key ("VmRSS:" now, "VmHWM:" its peak) has grown
 * since its fork, in kB, leaving out the window's pages (shared memory
 * of the transport, contain_proto.h); -1 when it cannot be read. */
long contain_growth_kb(const vs_contain *c, const char *key);

/* Reads what the child printed so far and what it said of its own, all
 * of both (the pipes never fill and block the child): the output kept
 * for the variant, its own lines passed to vsweep's stderr as each
 * ends. A pipe at its end (the child is gone) is closed. */
void contain_drain_output(vs_contain *c);

/* The variant's output into res's log rows, after what its plugins
 * logged, within the log's cap, and the child's own last line, should
 * it have died before the newline, to vsweep's stderr; then ready for
 * the next variant. */
void contain_take_output(vs_contain *c, vs_result *res);

#endif
