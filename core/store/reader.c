/* Opening a results file to read it, leaving nothing beside it
 * (reader.h). */
#include "store/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

/* SQLite's WAL header: a WAL of this many bytes or fewer has no frame. */
enum { WAL_HEADER_BYTES = 32 };

int vs_store_wal_has_frames(const char *path, double *mtime)
{
	char name[4096];
	struct stat st;
	if (snprintf(name, sizeof name, "%s-wal", path) >= (int)sizeof name ||
	    stat(name, &st) != 0 || st.st_size <= WAL_HEADER_BYTES)
		return 0;
	if (mtime)
		*mtime = (double)st.st_mtime;
	return 1;
}

char *vs_store_uri(const char *path, const char *query)
{
	size_t n = strlen(path);
	char *uri = malloc(3 * n + (query ? strlen(query) : 0) + 16);
	if (!uri)
		return NULL;
	/* "file://" and an empty authority before an absolute path */
	size_t len = (size_t)sprintf(uri, "file:%s", path[0] == '/' ? "//" :
	                             "");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/-_.~", *c))
			uri[len++] = (char)*c;
		else
			len += (size_t)sprintf(uri + len, "%%%02X", *c);
	}
	if (query)
		sprintf(uri + len, "?%s", query);
	else
		uri[len] = '\0';
	return uri;
}

int vs_store_is_settled(const char *path)
{
	return !vs_store_writer_pid(path) &&
	       !vs_store_wal_has_frames(path, NULL);
}

int vs_store_read_errno(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return ENODEV;
	return access(path, R_OK) == 0 ? 0 : errno;
}

const char *vs_store_read_error(int e)
{
	return e == ENODEV ? "not a regular file (a device, FIFO or socket)"
	                   : strerror(e);
}

int vs_store_open_read(const char *path, sqlite3 **db)
{
	*db = NULL;
	if (vs_store_read_errno(path))
		return SQLITE_CANTOPEN; /* never opened: see above */
	if (!vs_store_is_settled(path))
		return sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
	char *uri = vs_store_uri(path, "immutable=1");
	if (!uri)
		return SQLITE_NOMEM;
	int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY |
	                         SQLITE_OPEN_URI, NULL);
	free(uri);
	return rc;
}
