/* Unpacking an FMU (a zip archive) into a private temporary directory with
 * libzip, and removing it again: at close, at exit, and so also after a
 * SIGINT that stops the run cleanly.
 *
 * Only the process that unpacked a directory removes it. Crash
 * containment's children are forks of this process: they inherit the
 * list and the atexit hook, and an FMU (or plugin) that calls exit() in
 * one would otherwise remove, mid-run, the directory every other child
 * and variant still loads resources from.
 *
 * The archive is untrusted input: entry names that are absolute or climb
 * out with ".." are refused, and the unpacked size is capped, so that a
 * crafted file cannot write outside the directory or fill the disk. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fmu/fmu_internal.h"

#include "fmu/fmu_adapter.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#define MAX_UNPACKED (2ull << 30) /* bytes, all entries together */

/* Directories still to remove at exit, each with the process that
 * unpacked it. */
static pthread_mutex_t dirs_mu = PTHREAD_MUTEX_INITIALIZER;
static char *live_dirs[64];
static pid_t live_owner[64];
static int n_live, atexit_set;

static int remove_entry(const char *p, const struct stat *st, int flag,
                        struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* In a forked child (its copy of the list is the parent's): nothing
 * removed, the list left as it is. */
static void remove_all_at_exit(void)
{
	pthread_mutex_lock(&dirs_mu);
	pid_t me = getpid();
	int kept = 0;
	for (int i = 0; i < n_live; i++) {
		if (live_owner[i] != me) {
			live_dirs[kept] = live_dirs[i];
			live_owner[kept++] = live_owner[i];
			continue;
		}
		remove_tree(live_dirs[i]);
		free(live_dirs[i]);
	}
	n_live = kept;
	pthread_mutex_unlock(&dirs_mu);
}

static void remember(const char *dir)
{
	pthread_mutex_lock(&dirs_mu);
	if (!atexit_set) {
		atexit(remove_all_at_exit);
		atexit_set = 1;
	}
	if (n_live < (int)(sizeof live_dirs / sizeof *live_dirs)) {
		live_owner[n_live] = getpid();
		live_dirs[n_live++] = vs_strdup(dir);
	}
	pthread_mutex_unlock(&dirs_mu);
}

void vs_fmu_dir_remove(const char *dir)
{
	if (!dir)
		return;
	pthread_mutex_lock(&dirs_mu);
	int theirs = 0; /* unpacked by another process: left to it */
	for (int i = 0; i < n_live; i++)
		if (!strcmp(live_dirs[i], dir)) {
			theirs = live_owner[i] != getpid();
			if (theirs)
				break;
			free(live_dirs[i]);
			live_dirs[i] = live_dirs[--n_live];
			live_owner[i] = live_owner[n_live];
			break;
		}
	pthread_mutex_unlock(&dirs_mu);
	if (!theirs)
		remove_tree(dir);
}

const char *vs_fmu_dir(const vs_fmu *f)
{
	return f->dir;
}

/* A relative name with no "..", "." or empty components. */
static int safe_name(const char *n)
{
	if (!*n || *n == '/')
		return 0;
	for (const char *p = n; *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == 2 && !strncmp(p, "..", 2)) ||
		    (len == 1 && *p == '.') || (len == 0 && e))
			return 0;
		p += len + (e ? 1 : 0);
	}
	return 1;
}

/* mkdir -p of the directories above (and, for a name ending in '/', of)
 * path. */
static int make_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int rc = mkdir(path, 0700);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return 0;
}

static int extract_one(zip_t *z, zip_int64_t i, const char *dir,
                       unsigned long long *total, const char *fmu,
                       vs_error *err)
{
	const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
	if (!name || !safe_name(name)) {
		vs_error_set(err, "%s: refusing archive entry '%s' (absolute "
		             "or climbing out with '..')", fmu,
		             name ? name : "?");
		return -1;
	}
	size_t need = strlen(dir) + strlen(name) + 2;
	char *out = vs_xcalloc(need, 1);
	snprintf(out, need, "%s/%s", dir, name);
	int rc = -1;
	if (make_parents(out)) {
		vs_error_set(err, "%s: cannot unpack %s: %s", fmu, name,
		             strerror(errno));
		goto done;
	}
	if (name[strlen(name) - 1] == '/') {
		rc = 0; /* a directory entry */
		goto done;
	}
	zip_file_t *zf = zip_fopen_index(z, (zip_uint64_t)i, 0);
	FILE *f = zf ? fopen(out, "wb") : NULL;
	if (!zf || !f) {
		vs_error_set(err, "%s: cannot unpack %s: %s", fmu, name,
		             zf ? strerror(errno) : zip_strerror(z));
		if (zf)
			zip_fclose(zf);
		goto done;
	}
	char buf[65536];
	zip_int64_t n;
	rc = 0;
	while ((n = zip_fread(zf, buf, sizeof buf)) > 0) {
		*total += (unsigned long long)n;
		if (*total > MAX_UNPACKED ||
		    fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
			vs_error_set(err, "%s: cannot unpack %s: %s", fmu, name,
			             *total > MAX_UNPACKED
			                     ? "more than 2 GiB unpacked"
			                     : strerror(errno));
			rc = -1;
			break;
		}
	}
	if (n < 0 && rc == 0) {
		vs_error_set(err, "%s: cannot unpack %s: %s", fmu, name,
		             zip_file_strerror(zf));
		rc = -1;
	}
	zip_fclose(zf);
	if (fclose(f) && rc == 0) {
		vs_error_set(err, "%s: cannot unpack %s: %s", fmu, name,
		             strerror(errno));
		rc = -1;
	}
done:
	free(out);
	return rc;
}

char *vs_fmu_unpack(const char *path, vs_error *err)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_RDONLY, &zerr);
	if (!z) {
		zip_error_t ze;
		zip_error_init_with_code(&ze, zerr);
		if (zerr == ZIP_ER_NOENT || zerr == ZIP_ER_OPEN)
			vs_error_set(err, "%s: cannot open the FMU: %s", path,
			             zip_error_strerror(&ze));
		else
			vs_error_set(err, "%s: not an FMU: not a zip archive "
			             "(%s)", path, zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return NULL;
	}
	const char *tmp = getenv("TMPDIR");
	char templ[4096];
	snprintf(templ, sizeof templ, "%s/vsweep-fmu-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		vs_error_set(err, "%s: cannot make a directory to unpack it "
		             "(%s): %s", path, templ, strerror(errno));
		zip_discard(z);
		return NULL;
	}
	char *dir = vs_strdup(templ);
	remember(dir);
	unsigned long long total = 0;
	zip_int64_t n = zip_get_num_entries(z, 0);
	for (zip_int64_t i = 0; i < n; i++)
		if (extract_one(z, i, dir, &total, path, err)) {
			zip_discard(z);
			vs_fmu_dir_remove(dir);
			free(dir);
			return NULL;
		}
	zip_discard(z);
	return dir;
}
