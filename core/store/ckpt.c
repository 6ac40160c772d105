/* The checkpointer thread (ckpt.h).
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses its
 * threshold, on the committing thread: it reads every frame back from the
 * WAL, writes it into the file and syncs both. With full recording that
 * thread, the writer, is what bounds a run, and the copy was ~10 % of its
 * time (perf: pread, pwrite and fdatasync). SQLite lets one connection
 * checkpoint while another writes, so a thread of our own does the copy
 * after each commit, on a core the writer is not using.
 *
 * The WAL starts again from its beginning only when a write transaction
 * begins while every frame is back in the file; the writer begins its next
 * transaction right after a commit, before a pass can finish. So once the
 * WAL holds VS_CKPT_RESTART frames the writer waits for a pass begun after
 * its last commit (usually short: the passes asked every VS_CKPT_STEP
 * frames ran beside the writer's batches), and the WAL stays as bounded
 * as the automatic checkpoint kept it. A pass is PASSIVE: it never waits
 * for readers; a reader holding an old snapshot stops it short, and the
 * WAL grows while that reader stays, as it did before.
 *
 * Invariants: the writer's connection is used only by the writer's thread,
 * the checkpointer's only by its thread; mu guards asked, passed, frames,
 * asked_at and quit. passed <= asked. */
#include "store/ckpt.h"

#include <string.h>

#include "store/walvfs.h"

static void *run(void *arg)
{
	vs_ckpt *c = arg;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->quit && c->passed == c->asked)
			pthread_cond_wait(&c->wake, &c->mu);
		if (c->quit)
			break;
		uint64_t want = c->asked;
		pthread_mutex_unlock(&c->mu);
		/* Errors are not the writer's: a pass that fails (a reader,
		 * a full disk the writer will meet on its own) leaves the
		 * frames in the WAL, where they are as safe as committed. */
		sqlite3_wal_checkpoint_v2(c->db, NULL,
		                          SQLITE_CHECKPOINT_PASSIVE, NULL,
		                          NULL);
		pthread_mutex_lock(&c->mu);
		c->passed = want;
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Asks for a pass over every frame committed so far; mu held. */
static void ask(vs_ckpt *c)
{
	c->asked++;
	c->asked_at = c->frames;
	pthread_cond_signal(&c->wake);
}

/* sqlite3_wal_hook: after each commit of the writer, on its thread. */
static int committed(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)db;
	(void)name;
	vs_ckpt *c = arg;
	pthread_mutex_lock(&c->mu);
	c->frames = frames;
	if (frames < c->asked_at) /* the WAL restarted */
		c->asked_at = 0;
	if (frames - c->asked_at >= VS_CKPT_STEP)
		ask(c);
	pthread_mutex_unlock(&c->mu);
	return SQLITE_OK;
}

int vs_ckpt_start(vs_ckpt *c, sqlite3 *writer, const char *path)
{
	memset(c, 0, sizeof *c);
	/* Two connections on two threads need SQLite's own locking. */
	if (!sqlite3_threadsafe())
		return -1;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &c->db, flags, vs_walvfs_name()) !=
	    SQLITE_OK)
		goto fail;
	/* A read opens the connection's WAL (on SQLite before 3.38, a
	 * checkpoint on a connection that has not read finds none). */
	if (sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_schema", NULL,
	                 NULL, NULL) != SQLITE_OK)
		goto fail;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_cond_init(&c->done, NULL);
	if (pthread_create(&c->th, NULL, run, c) != 0) {
		pthread_cond_destroy(&c->done);
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->mu);
		goto fail;
	}
	c->running = 1;
	c->writer = writer;
	sqlite3_wal_hook(writer, committed, c);
	return 0;
fail:
	sqlite3_close(c->db);
	c->db = NULL;
	return -1;
}

void vs_ckpt_before_begin(vs_ckpt *c)
{
	if (!c->running)
		return;
	pthread_mutex_lock(&c->mu);
	if (c->frames >= VS_CKPT_RESTART) {
		if (c->asked_at < c->frames)
			ask(c);
		uint64_t want = c->asked;
		while (c->passed < want)
			pthread_cond_wait(&c->done, &c->mu);
		/* The next commit says how many frames the WAL holds then. */
		c->frames = 0;
		c->asked_at = 0;
	}
	pthread_mutex_unlock(&c->mu);
}

void vs_ckpt_stop(vs_ckpt *c)
{
	if (!c->running)
		return;
	sqlite3_wal_hook(c->writer, NULL, NULL);
	pthread_mutex_lock(&c->mu);
	c->quit = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->th, NULL);
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->mu);
	sqlite3_close(c->db);
	c->db = NULL;
	c->running = 0;
}
