/* The parent's wait for a contained child's result (contain.c says why
 * variants run in a child): reading it off the result socket and
 * decoding it, while the child's output pipe is kept drained and its
 * memory watched.
 *
 * Why one poll loop for all three: the child blocks on a full output
 * pipe (either: its plugins' or its own) as on a full result socket,
 * and can outgrow its memory limit or hang at any time, so no read may
 * wait on one descriptor alone: each waits at most a tick (MEM_POLL_MS
 * with a memory limit), drains the output, looks at the memory and at a
 * stop, then tries again.
 *
 * Invariants:
 * - Nothing the child sent is allocated for or used before
 *   contain_check.c has checked it: counts before their arrays, rows
 *   and indices before they reach the sink or the caller.
 * - A chunk of rows is handed to the sink, which waits for the writer,
 *   before the next is read: the child blocks meanwhile on the full
 *   socket, so memory stays bounded whatever the variant's length.
 * - What the child printed becomes log rows (level 'output',
 *   OUTPUT_ROWS_KEPT lines, each kept as a logged message is: whole up
 *   to VS_LOG_MESSAGE_MAX bytes, else cut on a character boundary and
 *   marked, and escaped; then one line saying how many more), whatever
 *   they start with; the child's own lines (vs_log_add's "vsweep: ...",
 *   on their own pipe) pass to vsweep's stderr within the run's cap on
 *   plugin lines, whole (own_line[] holds the longest vs_log_add prints),
 *   in order, and escaped too. No byte a plugin printed reaches the
 *   results file or the terminal raw, nor vsweep's stderr at all.
 * Called by contain.c. */
#include "run/contain_parent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hugemem.h"
#include "common/quota.h"
#include "common/util.h"
#include "run/contain_check.h"
#include "sim/signals.h"

/* A log row's level for what a contained plugin printed (schema.sql's
 * log view calls it 'output'). */
#define VS_LOG_OUTPUT 4
/* ms between two looks at a child's memory while it simulates. */
#define MEM_POLL_MS 10

/* Whether the child has grown past its limit: its resident set now over
 * its size at the fork (contain_growth_kb), read every MEM_POLL_MS. */
static int over_limit(vs_contain *c)
{
	return contain_growth_kb(c, "VmRSS:") > c->limit_kb;
}

/* One line the child's own code said (c->own_total bytes, as many as
 * fit held in c->own_line: vs_log_add's "vsweep: ...") to vsweep's
 * stderr, whole. Escaped: already by vs_log_add (a no-op then), but the
 * child's memory is a plugin's to corrupt. */
static void own_line(vs_contain *c)
{
	size_t held = c->own_total < sizeof c->own_line ? c->own_total
	                                                : sizeof c->own_line - 1;
	/* the run's cap on plugin lines counts every child's: each child's
	 * own count (signals.c) sees only its variants */
	int say = vs_quota_take(VS_QUOTA_PLUGIN);
	if (say < 0) {
		fprintf(stderr, "%s\n", vs_quota_notice(VS_QUOTA_PLUGIN));
	} else if (say) {
		size_t size = 4 * held + 1;
		char *safe = vs_xcalloc(size, 1);
		vs_escape_bytes(safe, size, c->own_line, held);
		fprintf(stderr, "%s%s\n", safe,
		        held < c->own_total ? "..." : "");
		free(safe);
	}
	c->own_total = 0;
}

/* One line the child printed (c->line_total bytes, as many as fit held
 * in c->line), a plugin's whatever it starts with (vsweep's own come
 * down the other pipe), to the variant's log rows, kept as a logged
 * message is (vs_log_text: whole up to VS_LOG_MESSAGE_MAX bytes, else
 * cut and marked; escaped): a plugin prints any bytes, and an ESC would
 * reach the terminal of whoever reads the log view, bytes that are not
 * UTF-8 would make the message column unreadable as text (a NUL would
 * cut it). */
static void output_line(vs_contain *c)
{
	if (c->n_out < OUTPUT_ROWS_KEPT) {
		vs_log_row *r = &c->out[c->n_out++];
		memset(r, 0, sizeof *r);
		r->level = VS_LOG_OUTPUT;
		r->plugin = ""; /* a pipe does not say which plugin wrote */
		r->message = vs_log_text(c->line, c->line_total, 1);
	} else {
		c->n_dropped++;
	}
	c->line_total = 0;
}

/* Reads what is in the pipe *fd so far into line[size] (*total bytes
 * of its line so far, held or counted only), done(c) at each newline;
 * at the pipe's end closes it (*fd -1). */
static void drain(vs_contain *c, int *fd, char *line, size_t size,
                  size_t *total, void (*done)(vs_contain *))
{
	char buf[4096];
	while (*fd >= 0) {
		ssize_t n = read(*fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* EAGAIN: nothing more for now */
		if (n == 0) {
			close(*fd); /* at its end: poll no more */
			*fd = -1;
			return;
		}
		for (ssize_t k = 0; k < n; k++) {
			if (buf[k] == '\n') {
				done(c);
				continue;
			}
			if (*total + 1 < size)
				line[*total] = buf[k];
			++*total; /* past line[]: counted only */
		}
	}
}

void contain_drain_output(vs_contain *c)
{
	drain(c, &c->print, c->line, sizeof c->line, &c->line_total,
	      output_line);
	drain(c, &c->own, c->own_line, sizeof c->own_line, &c->own_total,
	      own_line);
}

void contain_take_output(vs_contain *c, vs_result *res)
{
	if (c->own_total > 0)
		own_line(c); /* the child died before its newline */
	if (c->line_total > 0)
		output_line(c); /* a last line without its newline */
	if (c->n_dropped > 0 && c->n_out == OUTPUT_ROWS_KEPT) {
		vs_log_row *r = &c->out[OUTPUT_ROWS_KEPT - 1];
		char say[64];
		snprintf(say, sizeof say, "(%lld more lines of output not "
		         "kept)", c->n_dropped + 1);
		free(r->message);
		r->message = vs_strdup(say);
	}
	int64_t kept = res->n_logs < VS_LOG_ROWS_KEPT ? res->n_logs
	                                              : VS_LOG_ROWS_KEPT;
	int64_t room = VS_LOG_ROWS_KEPT - kept;
	int64_t n = c->n_out < room ? c->n_out : room;
	if (n > 0) {
		res->logs = vs_xrealloc(res->logs, (size_t)(kept + n) *
		                                   sizeof *res->logs);
		memcpy(res->logs + kept, c->out, (size_t)n * sizeof *c->out);
		res->n_logs = kept + n;
	}
	for (int64_t j = n > 0 ? n : 0; j < c->n_out; j++)
		free(c->out[j].message); /* no room left in the log */
	c->n_out = 0;
	c->n_dropped = 0;
}

/* The parent's wait for the result socket fd, one tick at most: keeps the
 * child's output drained and its memory watched meanwhile. 0: fd is
 * readable; -1: not yet; 4: the child is over its memory limit. */
static int await_result(vs_contain *c, int fd)
{
	/* poll passes over a pipe closed at its end (fd -1) */
	struct pollfd q[3] = {{fd, POLLIN, 0}, {c->print, POLLIN, 0},
	                      {c->own, POLLIN, 0}};
	int tick = c->limit_kb ? MEM_POLL_MS : 100; /* ms: notice stops */
	int n = poll(q, 3, tick);
	if (n > 0 && (q[1].revents || q[2].revents))
		contain_drain_output(c);
	if (c->limit_kb && vs_now() >= c->next_look) {
		c->next_look = vs_now() + MEM_POLL_MS / 1000.0;
		if (over_limit(c))
			return 4;
	}
	return n > 0 && q[0].revents ? 0 : -1;
}

/* Reads n bytes of the result socket fd into p, giving up on a stop or
 * past the deadline (0: none). Returns 0, 1 (stop), 2 (deadline), 3 (end
 * of file: the child is gone) or 4 (the child outgrew its memory
 * limit). */
static int read_exact(vs_contain *c, int fd, void *p, size_t n,
                      const vs_sim_opts *so, double deadline)
{
	char *b = p;
	while (n > 0) {
		if (so->stop && *so->stop)
			return 1;
		if (deadline > 0 && vs_now() > deadline)
			return 2;
		int w = await_result(c, fd);
		if (w > 0)
			return w;
		if (w < 0)
			continue;
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 3;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Reads n signal names and their units (contain_child.c's send_names)
 * into r's new arrays (owned); 0, or read_exact's 1 to 4. */
static int receive_names(vs_contain *c, const vs_sim_opts *so,
                         double deadline, int n, vs_result *r)
{
	r->signal_names = vs_xcalloc((size_t)n + 1, sizeof *r->signal_names);
	r->signal_units = vs_xcalloc((size_t)n + 1, sizeof *r->signal_units);
	r->n_signal_names = 0;
	for (int k = 0; k < n; k++) {
		/* counted once both are allocated: freed if cut */
		r->signal_names[k] = vs_xcalloc(1, 1);
		r->signal_units[k] = vs_xcalloc(1, 1);
		r->n_signal_names = k + 1;
		for (int u = 0; u < 2; u++) {
			char **s = u ? &r->signal_units[k] : &r->signal_names[k];
			uint32_t len;
			int why = read_exact(c, c->from, &len, sizeof len, so,
			                     deadline);
			if (why)
				return why;
			if (len > 4096)
				return 3;
			free(*s);
			*s = vs_xcalloc(1, (size_t)len + 1);
			if ((why = read_exact(c, c->from, *s, len, so,
			                      deadline)))
				return why;
		}
	}
	return 0;
}

/* Reads the messages of res's first n log rows (send_messages), each
 * owned by its row as soon as it is allocated. 0, read_exact's 1 to 4,
 * or 6 when one is longer than any the child makes or holds a NUL (what
 * is wrong in c->bad). */
static int receive_messages(vs_contain *c, const vs_sim_opts *so,
                            double deadline, vs_result *res, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		uint32_t len;
		int why = read_exact(c, c->from, &len, sizeof len, so, deadline);
		if (why)
			return why;
		if (len > VS_LOG_TEXT_MAX) {
			snprintf(c->bad, sizeof c->bad, "log row %lld: a message "
			         "of %lu bytes", (long long)j, (unsigned long)len);
			return 6;
		}
		char *m = vs_xcalloc(1, (size_t)len + 1);
		res->logs[j].message = m;
		if ((why = read_exact(c, c->from, m, len, so, deadline)))
			return why;
		if (memchr(m, '\0', len)) {
			snprintf(c->bad, sizeof c->bad, "log row %lld: a NUL in "
			         "its message", (long long)j);
			return 6;
		}
	}
	return 0;
}

/* Into rows (n_rows of them), the state rows the child put in the
 * window (contain_proto.h); it waits meanwhile. 0, or 6 when that many
 * cannot be there (what is wrong in c->bad). */
static int rows_from_window(vs_contain *c, vs_state_row *rows, int64_t n)
{
	if (n < 0 || (uint64_t)n > CONTAIN_WINDOW_BYTES / sizeof *rows) {
		snprintf(c->bad, sizeof c->bad, "%lld state rows said to be "
		         "in the window", (long long)n);
		return 6;
	}
	memcpy(rows, contain_window(c->words), sizeof *rows * (size_t)n);
	return 0;
}

/* Reads a chunk of the variant's rows (its magic read already) and hands
 * it to so->sink; the time that takes moves *deadline on. 0, or
 * read_exact's 1 to 4 (1 also when the sink says stop), or 6 when it
 * fails a check (what is wrong in c->bad). */
static int receive_chunk(vs_contain *c, const vs_sim_opts *so,
                         double *deadline, const vs_result *res)
{
	contain_chunk_head h;
	int why = read_exact(c, c->from, (char *)&h + sizeof h.magic,
	                     sizeof h - sizeof h.magic, so, *deadline);
	if (why)
		return why;
	if (!so->sink)
		return 3;
	const char *bad = vs_contain_check_counts(
		c->variant, c->variant->n_actors, 0, h.n_rows, 0,
		h.n_signal_names, h.n_signals, h.n_pairs, 0, 0);
	if (bad) {
		snprintf(c->bad, sizeof c->bad, "chunk: %s", bad);
		return 6;
	}
	vs_result part;
	memset(&part, 0, sizeof part);
	part.variant = res->variant;
	part.rows = vs_huge_alloc((size_t)h.n_rows + 1, sizeof *part.rows);
	part.signals = vs_xcalloc((size_t)h.n_signals + 1,
	                          sizeof *part.signals);
	part.pairs = vs_xcalloc((size_t)h.n_pairs + 1, sizeof *part.pairs);
	if (h.rows_in_window) {
		/* then the child may go on: it waits for this byte */
		char ack = CONTAIN_WINDOW_ACK;
		if (!(why = rows_from_window(c, part.rows, h.n_rows)) &&
		    contain_send(c->to, &ack, 1))
			why = 3;
	} else {
		why = read_exact(c, c->from, part.rows, sizeof *part.rows *
		                 (size_t)h.n_rows, so, *deadline);
	}
	if (!why &&
	    !(why = read_exact(c, c->from, part.signals, sizeof *part.signals *
	                       (size_t)h.n_signals, so, *deadline)) &&
	    !(why = read_exact(c, c->from, part.pairs, sizeof *part.pairs *
	                       (size_t)h.n_pairs, so, *deadline)))
		why = receive_names(c, so, *deadline, h.n_signal_names,
		                    &part);
	if (!why) {
		part.n_rows = part.cap_rows = h.n_rows;
		part.n_signals = part.cap_signals = h.n_signals;
		part.n_pairs = part.cap_pairs = h.n_pairs;
		if (vs_contain_check_part(c->variant, &part, &c->last_step,
		                          c->bad, sizeof c->bad))
			why = 6;
	}
	if (!why) {
		double t0 = vs_now();
		if (so->sink->flush(so->sink->ctx, &part))
			why = 1;
		if (*deadline > 0)
			*deadline += vs_now() - t0; /* the writer's time */
	}
	vs_result_finish(&part);
	return why;
}

int contain_receive(vs_contain *c, const vs_sim_opts *so, double *deadline,
                    vs_result *res, int *sim_rc)
{
	contain_head h;
	int why;
	for (;;) {
		if ((why = read_exact(c, c->from, &h.magic, sizeof h.magic, so,
		                      *deadline)))
			return why;
		if (h.magic != CONTAIN_CHUNK_MAGIC)
			break;
		if ((why = receive_chunk(c, so, deadline, res)))
			return why;
	}
	why = read_exact(c, c->from, (char *)&h + sizeof h.magic,
	                 sizeof h - sizeof h.magic, so, *deadline);
	if (why)
		return why;
	if (h.magic != CONTAIN_MAGIC)
		return 3;
	const char *bad = vs_contain_check_counts(
		c->variant, h.n_actors, h.n_wheels, h.n_rows, h.n_events,
		h.n_signal_names, h.n_signals, h.n_pairs, h.n_logs,
		h.n_logs_kept);
	if (bad) {
		snprintf(c->bad, sizeof c->bad, "%s", bad);
		return 6;
	}
	res->status = (vs_variant_status)h.status;
	memcpy(res->error, h.error, sizeof res->error);
	res->summary = h.summary;
	res->summary_void = h.summary_void != 0;
	*sim_rc = h.sim_rc;
	res->actors = vs_xcalloc((size_t)h.n_actors + 1, sizeof *res->actors);
	res->wheels = vs_xcalloc((size_t)h.n_wheels + 1, sizeof *res->wheels);
	res->rows = vs_huge_alloc((size_t)h.n_rows + 1, sizeof *res->rows);
	res->events = vs_xcalloc((size_t)h.n_events + 1, sizeof *res->events);
	res->signals = vs_xcalloc((size_t)h.n_signals + 1,
	                          sizeof *res->signals);
	res->logs = vs_xcalloc((size_t)h.n_logs_kept + 1, sizeof *res->logs);
	res->pairs = vs_xcalloc((size_t)h.n_pairs + 1, sizeof *res->pairs);
	if ((why = read_exact(c, c->from, res->actors, sizeof *res->actors *
	                      (size_t)h.n_actors, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->wheels, sizeof *res->wheels *
	                      (size_t)h.n_wheels, so, *deadline)) ||
	    (why = h.rows_in_window
	                   ? rows_from_window(c, res->rows, h.n_rows)
	                   : read_exact(c, c->from, res->rows,
	                                sizeof *res->rows * (size_t)h.n_rows,
	                                so, *deadline)) ||
	    (why = read_exact(c, c->from, res->events, sizeof *res->events *
	                      (size_t)h.n_events, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->signals, sizeof *res->signals *
	                      (size_t)h.n_signals, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->logs, sizeof *res->logs *
	                      (size_t)h.n_logs_kept, so, *deadline)) ||
	    (why = read_exact(c, c->from, res->pairs, sizeof *res->pairs *
	                      (size_t)h.n_pairs, so, *deadline)))
		return why;
	/* The log rows' message pointers are the child's: their texts come
	 * after the names (receive_messages). */
	for (int64_t j = 0; j < h.n_logs_kept; j++)
		res->logs[j].message = NULL;
	/* The indices that stand for the events' kinds and the log rows'
	 * plugins (send_indices). */
	int32_t *idx = vs_xcalloc((size_t)(h.n_events + h.n_logs_kept) + 1,
	                          sizeof *idx);
	if ((why = read_exact(c, c->from, idx, sizeof *idx *
	                      (size_t)(h.n_events + h.n_logs_kept), so,
	                      *deadline))) {
		free(idx);
		return why;
	}
	why = receive_names(c, so, *deadline, h.n_signal_names, res);
	res->n_actors = h.n_actors;
	res->n_wheels = h.n_wheels;
	res->n_rows = res->cap_rows = h.n_rows;
	res->n_events = res->cap_events = h.n_events;
	res->n_signals = res->cap_signals = h.n_signals;
	res->n_pairs = res->cap_pairs = h.n_pairs;
	res->n_logs = h.n_logs;
	if (!why)
		why = receive_messages(c, so, *deadline, res, h.n_logs_kept);
	uint32_t end = 0;
	if (!why)
		why = read_exact(c, c->from, &end, sizeof end, so, *deadline);
	if (!why && end != CONTAIN_MAGIC)
		why = 3;
	if (!why && vs_contain_check(c->variant, res, idx, idx + h.n_events,
	                             h.n_logs_kept, &c->last_step, c->bad,
	                             sizeof c->bad))
		why = 6;
	free(idx);
	return why;
}
