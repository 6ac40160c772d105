/* One writer per results file (store.h, vs_store_writer_lock).
 *
 * SQLite lets two processes write one file in turn, so a second
 * `vsweep run --resume` on a file a first run is still writing would
 * interleave variants with it, and `--overwrite` would delete it under
 * its feet. Each writer holds an fcntl lock on a side file, FILE-writer:
 * a separate inode, so the lock never touches SQLite's own locks on FILE
 * (closing any descriptor of a file drops all of a process's fcntl locks
 * on it). The kernel drops the lock when the writer dies, however hard,
 * so a stale side file never blocks a resume. */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void side_name(char *buf, size_t n, const char *path)
{
	snprintf(buf, n, "%s-writer", path);
}

vs_rc vs_store_writer_lock(const char *path, int *fd_out, vs_error *err)
{
	char side[4096];
	side_name(side, sizeof side, path);
	*fd_out = -1;
	/* A few rounds: the side file may be removed by a writer that is
	 * closing between our open and our lock. */
	for (int round = 0; round < 10; round++) {
		int fd = open(side, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
		if (fd < 0) {
			/* A read-only directory: nobody else can write there
			 * either, and SQLite will say what it can. */
			return VS_RC_OK;
		}
		struct flock fl = {0};
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_SETLK, &fl) != 0) {
			struct flock who = {0};
			who.l_type = F_WRLCK;
			who.l_whence = SEEK_SET;
			long pid = fcntl(fd, F_GETLK, &who) == 0 &&
			                   who.l_type != F_UNLCK
			                   ? (long)who.l_pid
			                   : 0;
			close(fd);
			if (pid == 0)
				continue; /* released meanwhile: try again */
			vs_error_set(err, "%s: another vsweep (pid %ld) is "
			             "writing this file; wait for it to end, or "
			             "stop it and use --resume", path, pid);
			return VS_RC_INPUT;
		}
		/* Still the file at that name? */
		struct stat a, b;
		if (fstat(fd, &a) == 0 && stat(side, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			*fd_out = fd;
			return VS_RC_OK;
		}
		close(fd);
	}
	return VS_RC_OK;
}

void vs_store_writer_unlock(const char *path, int fd)
{
	if (fd < 0)
		return;
	char side[4096];
	side_name(side, sizeof side, path);
	unlink(side); /* before the lock goes: see the stat check above */
	close(fd);
}

long vs_store_writer_pid(const char *path)
{
	char side[4096];
	side_name(side, sizeof side, path);
	/* Read-only: F_GETLK asks about a write lock whatever the mode. */
	int fd = open(side, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no side file: no writer */
	struct flock who = {0};
	who.l_type = F_WRLCK;
	who.l_whence = SEEK_SET;
	long pid = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK
	                   ? (long)who.l_pid
	                   : 0;
	close(fd);
	return pid;
}
