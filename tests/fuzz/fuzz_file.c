/* A private scratch file for the file-reading fuzz targets (fuzz_file.h). */
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[256];
static char path[512];

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "%s/vsweep-fuzz-XXXXXX",
		         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	return dir;
}

const char *fuzz_write_file(const char *name, const uint8_t *data,
                            size_t size)
{
	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	size_t w = fwrite(data, 1, size, f);
	if (fclose(f) != 0 || w != size)
		return NULL;
	return path;
}
