/* The run's own projection of the disk it needs (room.h).
 *
 * The bytes per variant are this run's mean so far: the file's pages (WAL
 * included, as of the last commit) less those it had at the start, over
 * the variants stored since. The file then needs that times the variants
 * left, plus what it holds already beyond the file's current size on the
 * disk (pages still only in the WAL, copied in later); the WAL itself is
 * already on the disk. */
#include "run/room.h"

#include <stdio.h>

#include "common/disk.h"
#include "common/util.h"

#define ROOM_FIRST 2.0  /* s: the first look, once a mean means something */
#define ROOM_EVERY 10.0 /* s between looks */

void vs_room_init(vs_room *r, vs_store *st, const char *path,
                  uint64_t written, int progress)
{
	r->newline = progress;
	r->path = path;
	r->bytes0 = vs_store_bytes(st);
	r->written0 = written;
	r->last = vs_now() - ROOM_EVERY + ROOM_FIRST;
	r->warned = 0;
}

void vs_room_after_commit(vs_room *r, vs_store *st, uint64_t written,
                          uint64_t total)
{
	double now = vs_now();
	if (r->warned || r->bytes0 < 0 || now - r->last < ROOM_EVERY ||
	    written <= r->written0 || written >= total)
		return;
	r->last = now;
	int64_t bytes = vs_store_bytes(st);
	if (bytes < 0)
		return;
	double per = (double)(bytes - r->bytes0) /
	             (double)(written - r->written0);
	double need = per * (double)(total - written) + (double)bytes -
	              vs_file_bytes(r->path);
	char dir[4096];
	double avail = vs_disk_free(r->path, dir, sizeof dir);
	if (avail < 0 || need <= avail)
		return;
	char a[32], b[32], c[32];
	fprintf(stderr, "%svsweep: warning: %s: at this rate (%s per variant "
	        "over the %llu stored so far) the %llu variants left need "
	        "about %s more; %s has %s free\n", r->newline ? "\n" : "",
	        r->path,
	        vs_bytes_text(per, c, sizeof c),
	        (unsigned long long)(written - r->written0),
	        (unsigned long long)(total - written),
	        vs_bytes_text(need, a, sizeof a), dir,
	        vs_bytes_text(avail, b, sizeof b));
	r->warned = 1;
}
