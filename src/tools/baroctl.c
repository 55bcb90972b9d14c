/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baroctl: talk to a running barod over its control socket.
 *
 *   baroctl [-s SOCKET] status | get [NAME] | set NAME VALUE
 *                     | inject ... | scenario load FILE | scenario stop
 *   baroctl keygen FILE     (local: a MAVLink signing key, no barod)
 *
 * Checks the command's shape itself, sends it as one line, prints the
 * reply; exit 0 when it ends in "ok", 1 when it ends in "error", 2 on bad
 * usage (barod is not contacted) or when barod cannot be reached.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "mavlink-sign.h"
#include "px4-failure.h"
#include "util-strings.h"

/* Help's column for the commands' descriptions, and its width. */
#define HELP_INDENT 26
#define HELP_WIDTH 79

/* words (blank-separated) after lead, wrapped at HELP_WIDTH with
 * continuation lines at HELP_INDENT; col is where lead starts. */
static void
wrap(FILE *out, int col, const char *lead, const char *words,
     const char *tail)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", words);
	col += fprintf(out, "%s", lead);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		/* The last word keeps its tail on its line. */
		const bool last = !save || !*save;
		int len = (int)strlen(w) + (last ? (int)strlen(tail) : 0);
		if (col + 1 + len > HELP_WIDTH)
			col = fprintf(out, "\n%*s", HELP_INDENT, "") - 1;
		else if (w != buf)
			col += fprintf(out, " ");
		col += fprintf(out, "%s", w);
	}
	fprintf(out, "%s", tail);
}

static int
usage(FILE *out, int status)
{
	char types[128];

	/* inject's types from barod's own table (px4-failure.c), so this
	 * list cannot fall behind the types barod takes. */
	px4_failure_names(types, sizeof(types), " ");
	fputs("Usage: baroctl [-s SOCKET] COMMAND [ARGS]\n"
	      "  -s, --socket SOCKET     barod's control socket (default "
	      "below)\n"
	      "  -h, --help              this text\n"
	      "  -V, --version           the version\n"
	      "Commands:\n"
	      "  status                  instances, counters, current faults\n"
	      "  get [NAME]              one or all SIM_* parameters\n"
	      "  set NAME VALUE          change a SIM_* parameter now\n"
	      "  inject TYPE INSTANCE [VALUE]\n",
	      out);
	wrap(out, 0, "                          PX4-style fault (", types, ");");
	fputs("\n"
	      "                          VALUE: wrong metres, slow every Nth, "
	      "delayed ms\n"
	      "  scenario load FILE      run a scenario file on barod's clock\n"
	      "  scenario stop           end it and restore every fault\n"
	      "  keygen FILE             write a MAVLink signing key (mode 0600) "
	      "from the\n"
	      "                          passphrase on standard input, as "
	      "MAVProxy and\n"
	      "                          QGroundControl make theirs "
	      "(barod is not contacted)\n"
	      "The socket defaults to $RUNTIME_DIRECTORY/control, "
	      "$XDG_RUNTIME_DIR/barod.control,\n"
	      "/run/barod/control or $TMPDIR/barod-UID/control, as barod "
	      "chose.\n",
	      out);
	return status;
}

/* The commands barod takes, with how many words may follow each. */
static const struct {
	const char *name, *sub;	/* sub: the second word, if it has one */
	int min, max;		/* words after the command (and sub) */
	const char *shape;
} commands[] = {
	{ "status", NULL, 0, 0, "status" },
	{ "get", NULL, 0, 1, "get [NAME]" },
	{ "set", NULL, 2, 2, "set NAME VALUE" },
	{ "inject", NULL, 2, 3, "inject TYPE INSTANCE [VALUE]" },
	{ "scenario", "load", 1, 1, "scenario load FILE" },
	{ "scenario", "stop", 0, 0, "scenario stop" },
	{ "keygen", NULL, 1, 1, "keygen FILE" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The command's name (and sub-command) and its argument count, checked
 * here so a typo is a usage error, not a round trip to barod; what the
 * arguments mean (names, ranges, instances) is barod's to judge. */
static int
check_command(int argc, char **argv)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	bool known = false;

	for (size_t k = 0; k < N_COMMANDS; k++) {
		size_t d = str_edit_distance_below(argv[0], commands[k].name,
						   true, best_d);
		if (d < best_d) {
			best_d = d;
			best = commands[k].name;
		}
		if (strcmp(argv[0], commands[k].name) != 0)
			continue;
		known = true;
		int skip = commands[k].sub ? 2 : 1;
		if (commands[k].sub &&
		    (argc < 2 || strcmp(argv[1], commands[k].sub) != 0))
			continue;
		int n = argc - skip;
		if (n >= commands[k].min && n <= commands[k].max)
			return 0;
		fprintf(stderr, "baroctl: %s: expected '%s' (see --help)\n",
			argv[0], commands[k].shape);
		return -EINVAL;
	}
	if (best_d <= 2 && !known) {
		fprintf(stderr, "baroctl: unknown command '%s' (did you mean "
				"%s? see --help)\n", argv[0], best);
		return -EINVAL;
	}
	/* The choices from the table: a command's shapes when it has
	 * sub-commands, every command's name otherwise. */
	if (known)
		fprintf(stderr, "baroctl: %s: expected ", argv[0]);
	else
		fprintf(stderr, "baroctl: unknown command '%s' (", argv[0]);
	const char *sep = "";
	for (size_t k = 0; k < N_COMMANDS; k++) {
		if (known ? strcmp(argv[0], commands[k].name) != 0
			  : k > 0 && strcmp(commands[k - 1].name,
					    commands[k].name) == 0)
			continue;
		fprintf(stderr, known ? "%s'%s'" : "%s%s", sep,
			known ? commands[k].shape : commands[k].name);
		sep = known ? " or " : ", ";
	}
	fprintf(stderr, known ? " (see --help)\n" : "; see --help)\n");
	return -EINVAL;
}

/* The key MAVProxy's "signing setup PASSPHRASE", QGroundControl and
 * Mission Planner use: SHA-256 of the passphrase.  Read from standard
 * input (one line), not argv, which other users can see in ps.  A new
 * file only, owner-only from its creation: barod refuses anything else,
 * and overwriting a key would lock out every ground station using it. */
static int
keygen(const char *path)
{
	char pass[1024];
	uint8_t key[MAVLINK_SIGN_KEY_LEN];

	if (!fgets(pass, sizeof(pass), stdin)) {
		fprintf(stderr, "baroctl: keygen: no passphrase on standard "
				"input (printf '%%s\\n' 'PASSPHRASE' | "
				"baroctl keygen %s)\n", path);
		return 2;
	}
	size_t n = strcspn(pass, "\r\n");
	pass[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "baroctl: keygen: empty passphrase\n");
		return 2;
	}
	mavlink_sign_key_from_passphrase(pass, n, key);
	memset(pass, 0, sizeof(pass));
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "baroctl: keygen: %s: %s%s\n", path,
			strerror(errno),
			errno == EEXIST ? " (a key is not overwritten: remove "
					  "it first)" : "");
		return 2;
	}
	ssize_t w = write(fd, key, sizeof(key));
	memset(key, 0, sizeof(key));
	if (w != (ssize_t)sizeof(key) || fsync(fd) < 0) {
		fprintf(stderr, "baroctl: keygen: %s: %s\n", path,
			w < 0 ? strerror(errno) : "short write");
		close(fd);
		unlink(path);
		return 2;
	}
	close(fd);
	printf("%s: a 32-byte signing key; [mavlink] signing_key = %s in "
	       "barod.conf, and the same passphrase in the ground station\n",
	       path, path);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char path[108];
	char line[CONTROL_MAX_LINE];
	int c;

	(void)control_default_path(path, sizeof(path), false, NULL, 0);
	/* '+': options end at the command, so "inject wrong 0 -5" keeps its
	 * negative value. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strlen(optarg) >= sizeof(path)) {
				fprintf(stderr, "baroctl: -s: '%s' is longer "
						"than a socket path can be\n",
					optarg);
				return 2;
			}
			snprintf(path, sizeof(path), "%s", optarg);
			break;
		case 'h':
			return usage(stdout, 0);
		case 'V':
			printf("baroctl %s\n", BAROD_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "baroctl: option '%s' needs a value\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "baroctl: unknown option '%s' (see "
					"--help)\n", argv[optind - 1]);
			return 2;
		}
	}
	int i = optind;
	if (i >= argc) {
		fprintf(stderr, "baroctl: no command (see --help)\n");
		return 2;
	}
	if (check_command(argc - i, argv + i) < 0)
		return 2;
	if (strcmp(argv[i], "keygen") == 0)
		return keygen(argv[i + 1]);

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
	/* barod may have answered and closed before the line went out (it
	 * refuses a client beyond its places at once): its answer is
	 * still there to read, and says more than "Broken pipe". */
	const int sent_errno =
		send(fd, line, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : errno;

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
	if (sent_errno)
		fprintf(stderr, "baroctl: %s: %s\n", path,
			strerror(sent_errno));
	else
		fprintf(stderr, "baroctl: %s: connection closed before a "
			"reply\n", path);
	if (in)
		fclose(in);
	return 2;
}
