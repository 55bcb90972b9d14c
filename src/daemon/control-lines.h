/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The control socket's line framing, apart from the socket: what a client
 * sent so far is cut into commands, one per "\n" (a "\r" before it is
 * dropped).  No I/O, so the fuzz target and the tests run it on bytes.
 */
#ifndef BAROD_CONTROL_LINES_H
#define BAROD_CONTROL_LINES_H

#include <stdbool.h>
#include <stddef.h>

/* A client's receive buffer holds this much; a line must end within it. */
#define CONTROL_MAX_LINE 1024

struct control_line_ops {
	/* One command, NUL-terminated without its line end.  false: stop
	 * (the client is gone). */
	bool (*line)(void *user, const char *text);
	/* A reply the framing gives itself (text ends in "\n"), for a line
	 * it refuses; false: stop. */
	bool (*refuse)(void *user, const char *text, size_t len);
};

enum control_lines_result {
	CONTROL_LINES_OK,	/* what is left waits for more bytes */
	CONTROL_LINES_STOPPED,	/* a callback said stop */
	/* buf is full without a line end: the caller answers
	 * CONTROL_LINES_TOO_LONG_MSG and hangs up. */
	CONTROL_LINES_TOO_LONG,
};

#define CONTROL_LINES_TOO_LONG_MSG "error line longer than 1024 bytes\n"

/*
 * Take every whole line out of buf[0 .. *len) (len <= CONTROL_MAX_LINE,
 * buf CONTROL_MAX_LINE + 1 bytes): each goes to ops->line, or, when it
 * holds a NUL byte (which would cut the command short), to ops->refuse
 * with "error NUL byte in command\n".  The partial line left moves to
 * the front of buf and *len becomes its length.
 */
enum control_lines_result
control_lines_take(char *buf, size_t *len, const struct control_line_ops *ops,
		   void *user);

#endif
