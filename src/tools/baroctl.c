/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baroctl: talk to a running barod over its control socket.
 *
 *   baroctl [-s SOCKET] status | get [NAME] | set NAME VALUE
 *                     | inject ... | scenario load FILE | scenario stop
 *
 * Sends the command as one line, prints the reply; exit 0 when it ends
 * in "ok", 1 when it ends in "error", 2 when barod cannot be reached.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"

static int
usage(FILE *out, int status)
{
	fputs("Usage: baroctl [-s SOCKET] COMMAND [ARGS]\n"
	      "  -s SOCKET               barod's control socket (default below)\n"
	      "  -h, --help              this text\n"
	      "Commands:\n"
	      "  status                  instances, counters, current faults\n"
	      "  get [NAME]              one or all SIM_* parameters\n"
	      "  set NAME VALUE          change a SIM_* parameter now\n"
	      "  inject TYPE INSTANCE [VALUE]\n"
	      "                          PX4-style fault (ok off stuck garbage "
	      "wrong slow delayed\n"
	      "                          intermittent); VALUE: wrong metres, "
	      "slow every Nth, delayed ms\n"
	      "  scenario load FILE      run a scenario file on barod's clock\n"
	      "  scenario stop           end it and restore every fault\n"
	      "The socket defaults to $RUNTIME_DIRECTORY/control, "
	      "$XDG_RUNTIME_DIR/barod.control,\n"
	      "/run/barod/control or $TMPDIR/barod-UID/control, as barod "
	      "chose.\n",
	      out);
	return status;
}

int
main(int argc, char **argv)
{
	char path[108];
	char line[CONTROL_MAX_LINE];
	int i = 1;

	(void)control_default_path(path, sizeof(path), false, NULL, 0);
	if (argc > 2 && strcmp(argv[1], "-s") == 0) {
		snprintf(path, sizeof(path), "%s", argv[2]);
		i = 3;
	}
	if (i >= argc)
		return usage(stderr, 2);
	if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
		return usage(stdout, 0);

	/* barod runs elsewhere: give it an absolute scenario path. */
	size_t n = 0;
	for (int k = i; k < argc; k++) {
		const char *arg = argv[k];
		char abs[PATH_MAX];
		if (k == i + 2 && strcmp(argv[i], "scenario") == 0 &&
		    strcmp(argv[i + 1], "load") == 0) {
			if (!realpath(arg, abs)) {
				fprintf(stderr, "baroctl: %s: %s\n", arg,
					strerror(errno));
				return 2;
			}
			arg = abs;
		}
		int w = snprintf(line + n, sizeof(line) - n, "%s%s",
				 k > i ? " " : "", arg);
		if (w < 0 || (size_t)w >= sizeof(line) - n - 1) {
			fprintf(stderr, "baroctl: command too long\n");
			return 2;
		}
		n += (size_t)w;
	}
	line[n++] = '\n';

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "baroctl: %s: cannot use this socket path\n",
			path);
		return 2;
	}
	strcpy(sa.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "baroctl: %s: %s (is barod running?)\n", path,
			strerror(errno));
		return 2;
	}
	if (send(fd, line, n, MSG_NOSIGNAL) != (ssize_t)n) {
		fprintf(stderr, "baroctl: %s: %s\n", path, strerror(errno));
		return 2;
	}

	/* Read reply lines until the one that starts with ok or error. */
	FILE *in = fdopen(fd, "r");
	char reply[4096];
	while (in && fgets(reply, sizeof(reply), in)) {
		if (strncmp(reply, "ok", 2) == 0 &&
		    (reply[2] == '\n' || reply[2] == ' ')) {
			if (reply[2] == ' ')
				fputs(reply + 3, stdout);
			fclose(in);
			return 0;
		}
		if (strncmp(reply, "error", 5) == 0) {
			fprintf(stderr, "baroctl: %s", reply + (reply[5] == ' ' ? 6 : 5));
			fclose(in);
			return 1;
		}
		fputs(reply, stdout);
	}
	fprintf(stderr, "baroctl: %s: connection closed before a reply\n", path);
	return 2;
}
