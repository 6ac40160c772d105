/* Free disk space and byte counts for people (disk.h). */
#include "common/disk.h"

#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

double vs_file_bytes(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (double)sb.st_size : 0;
}

double vs_disk_free(const char *path, char *dir, size_t n)
{
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", path);
	snprintf(dir, n, "%s", dirname(copy));
	struct statvfs fs;
	if (statvfs(dir, &fs) != 0)
		return -1;
	return (double)fs.f_bavail * (double)fs.f_frsize;
}

const char *vs_bytes_text(double b, char *buf, size_t n)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	int u = 0;
	while (b >= 1000 && u < 5) {
		b /= 1000;
		u++;
	}
	snprintf(buf, n, "%.3g %s", b, unit[u]);
	return buf;
}
