/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The control socket: a UNIX stream socket (owner-only by default) taking
 * one command per line and answering with lines, the last of which starts
 * with "ok" or "error".  baroctl is its client.
 */
#ifndef BAROD_CONTROL_H
#define BAROD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "control-lines.h"
#include "event-loop.h"

#define CONTROL_MAX_CLIENTS 8
#define CONTROL_MAX_REPLY 65536
/* With every place taken, a newcomer takes the place of the client quiet
 * longest if it has been quiet (nothing asked, nothing left to read) this
 * long; else it is refused. */
#define CONTROL_IDLE_US 2000000u

/* Run one command; write the reply lines (ending with ok/error) to out. */
typedef void (*control_command_cb)(void *user, const char *line, FILE *out);

struct control_client {
	struct event_source src;
	struct control *ctl;
	char in[CONTROL_MAX_LINE + 1];
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	uint64_t last_us;	/* connected, asked, or read its reply */
};

struct control {
	struct event_source listen;
	struct event_loop *loop;
	char path[108];
	control_command_cb command;
	void *user;
	struct control_client clients[CONTROL_MAX_CLIENTS];
};

#define CONTROL_RUN_DIR "/run/barod"

/* The path barod and baroctl agree on when none is configured:
 * $RUNTIME_DIRECTORY/control (systemd), $XDG_RUNTIME_DIR/barod.control,
 * else /run/barod/control when that directory is there or can be made
 * (root), else $TMPDIR/barod-UID/control (/tmp without TMPDIR), a
 * directory only that user may use.  barod passes create to make the
 * directory; baroctl does not, and takes whichever of the last two holds
 * a socket.  Fails (create only) with err naming the directory barod
 * cannot use. */
int
control_default_path(char *buf, size_t len, bool create, char *err,
		     size_t errlen);

/*
 * Whether a process accepts connections on the socket at path: 1 yes,
 * 0 no (no file, or a socket nobody listens on: stale), or a negative
 * errno when it cannot tell (-ENOTSOCK: some other kind of file).
 */
int
control_in_use(const char *path);

/* Listen on path; -EBUSY when a live process answers there. */
int
control_open(struct control *ctl, const char *path, unsigned mode,
	     struct event_loop *loop, control_command_cb command, void *user,
	     char *err, size_t errlen);

void
control_close(struct control *ctl);

#endif
