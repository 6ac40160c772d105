/* Whether the rest of a run fits on the disk, projected from what it has
 * stored so far (room.c). `vsweep check` estimates before a run; this
 * watches the run itself, whose variants may differ from the two the
 * estimate was calibrated on, and whose disk other programs fill too. */
#ifndef VS_RUN_ROOM_H
#define VS_RUN_ROOM_H

#include <stdint.h>

#include "store/store.h"

typedef struct vs_room {
	const char *path;     /* the results file (borrowed) */
	int64_t bytes0;       /* vs_store_bytes at the start */
	uint64_t written0;    /* variants stored at the start */
	double last;          /* s (vs_now): the last look, or its stand-in */
	int warned;
	int newline;          /* a progress line may be open on stderr */
} vs_room;

void vs_room_init(vs_room *r, vs_store *st, const char *path,
                  uint64_t written, int progress);

/* After a commit (writer's thread): at most every few seconds, projects
 * the bytes the remaining variants need at this run's mean per variant so
 * far and, once, warns on stderr if the file's file system has less free:
 * "vsweep: warning: FILE: at this rate ... need about X more; DIR has Y
 * free". The run goes on: space may be freed meanwhile. */
void vs_room_after_commit(vs_room *r, vs_store *st, uint64_t written,
                          uint64_t total);

#endif
