/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A client of barod's control socket for the daemon tests: one command,
 * its reply up to the line that starts "ok" or "error".  Failures are
 * cmocka failures.
 */
#ifndef CONTROL_CLIENT_H
#define CONTROL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/* How long to wait for barod to listen, and what a short read means. */
struct control_wait {
	int tries;		/* connects... */
	unsigned interval_us;	/* ...this far apart */
	bool eof_ends;		/* EOF ends the reply; false: a failure */
};

/* Whether reply is complete: its last line starts "ok" or "error". */
bool
control_reply_done(const char *reply);

/* cmd sent to the socket at path; the reply in reply (cap bytes,
 * NUL-ended), each read within 5 s.  Returns reply. */
char *
control_request(const char *path, const char *cmd, char *reply, size_t cap,
		const struct control_wait *w);

#endif
