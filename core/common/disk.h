/* Free disk space where a file goes, and byte counts for people (disk.c):
 * shared by `vsweep check`'s estimate and the run's own projection. */
#ifndef VS_DISK_H
#define VS_DISK_H

#include <stddef.h>

/* Bytes an unprivileged writer may still use on the file system of
 * path's directory, copied into dir (n bytes); -1 if it cannot be told
 * (no such directory). */
double vs_disk_free(const char *path, char *dir, size_t n);

/* The size of the file at path in bytes; 0 if there is none. */
double vs_file_bytes(const char *path);

/* b bytes as "3.06 MB", "467 TB" (3 digits, powers of 1000, as df -H),
 * into buf (n bytes); returns buf. */
const char *vs_bytes_text(double b, char *buf, size_t n);

#endif
