/* Writing `vsweep plot`'s chart: the SVG built in memory, then the file
 * (never over a results file), or for -o FILE.png the same SVG rendered
 * by rsvg-convert (Debian's librsvg2-bin; librsvg draws with cairo), fed
 * on a pipe, so the PNG shows exactly what the SVG does. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"

int plot_write_png(const char *svg, size_t len, const char *out)
{
	int fd[2];
	if (pipe(fd)) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", out,
		        strerror(errno));
		return EXIT_INTERNAL;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", out,
		        strerror(errno));
		return EXIT_INTERNAL;
	}
	if (pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp("rsvg-convert", "rsvg-convert", "--format", "png",
		       "--background-color", "white", "--output", out, (char *)NULL);
		fprintf(stderr, "vsweep: %s: cannot run rsvg-convert (Debian "
		        "package librsvg2-bin, tools/deps.sh): %s\n", out,
		        strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	/* a converter that dies early must not kill us with SIGPIPE */
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd[1], svg + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(fd[1]);
	sigaction(SIGPIPE, &old, NULL);
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (done < len || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 127)
			fprintf(stderr, "vsweep: %s: rsvg-convert could not "
			        "write the PNG\n", out);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

/* Writes the chart: built in memory first, so that a failure to write
 * is one clear I/O error (exit 3) and never a half-drawn chart. */
int plot_write_chart(const char *out, int speed, const plot_data *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(stderr, "vsweep: plot: out of memory\n");
		return EXIT_INTERNAL;
	}
	if (speed)
		plot_speed(m, d);
	else
		plot_trajectory(m, d);
	if (fclose(m)) {
		free(buf);
		fprintf(stderr, "vsweep: plot: out of memory\n");
		return EXIT_INTERNAL;
	}
	int status = EXIT_OK;
	size_t n = strlen(out);
	if (n > 4 && !strcasecmp(out + n - 4, ".png")) {
		status = plot_write_png(buf, len, out);
		free(buf);
		return status;
	}
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fflush(f)) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", out,
		        strerror(errno));
		status = EXIT_INTERNAL;
	}
	if (f && fclose(f) && status == EXIT_OK) {
		fprintf(stderr, "vsweep: %s: cannot write: %s\n", out,
		        strerror(errno));
		status = EXIT_INTERNAL;
	}
	free(buf);
	return status;
}

/* True (with a message) when -o names the results file itself or another
 * SQLite file: a plot never replaces results. */
int plot_clobbers_results(const char *db, const char *out)
{
	struct stat so, sd;
	if (stat(out, &so) != 0)
		return 0;
	if (stat(db, &sd) == 0 && so.st_dev == sd.st_dev &&
	    so.st_ino == sd.st_ino) {
		fprintf(stderr, "vsweep: %s: is the results file being read; give "
		        "another -o\n", out);
		return 1;
	}
	char head[16] = {0};
	FILE *f = fopen(out, "rb");
	size_t n = f ? fread(head, 1, sizeof head, f) : 0;
	if (f)
		fclose(f);
	if (n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0) {
		fprintf(stderr, "vsweep: %s: is an SQLite file; it is not replaced: "
		        "give another -o\n", out);
		return 1;
	}
	return 0;
}
