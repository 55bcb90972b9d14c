/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "control-client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "test-util.h"

bool
control_reply_done(const char *reply)
{
	const size_t n = strlen(reply);

	if (n == 0 || reply[n - 1] != '\n')
		return false;
	const char *line = reply + n - 1;
	while (line > reply && line[-1] != '\n')
		line--;
	return strncmp(line, "ok", 2) == 0 || strncmp(line, "error", 5) == 0;
}

char *
control_request(const char *path, const char *cmd, char *reply, size_t cap,
		const struct control_wait *w)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = 0;

	for (int k = 0; k < w->tries; k++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		memcpy(sa.sun_path, path, strlen(path) + 1);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fd);
			usleep(w->interval_us);
			continue;
		}
		reply[0] = '\0';
		assert_int_equal(write(fd, cmd, strlen(cmd)),
				 (ssize_t)strlen(cmd));
		while (n + 1 < cap && !control_reply_done(reply)) {
			struct pollfd pf = { fd, POLLIN, 0 };
			assert_true(poll(&pf, 1, 5000) > 0);
			ssize_t r = read(fd, reply + n, cap - 1 - n);
			if (w->eof_ends && r <= 0)
				break;
			assert_true(r > 0);
			n += (size_t)r;
			reply[n] = '\0';
		}
		close(fd);
		return reply;
	}
	fail_msg("no control socket at %s", path);
	return NULL;
}
