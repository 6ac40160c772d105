/* `vsweep plot -o FILE.png`: the same SVG chart rendered to PNG by
 * rsvg-convert (Debian's librsvg2-bin; librsvg draws with cairo), fed on
 * a pipe, so the PNG shows exactly what the SVG does. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
