/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "control-lines.h"

#include <string.h>

enum control_lines_result
control_lines_take(char *buf, size_t *len, const struct control_line_ops *ops,
		   void *user)
{
	static const char nul_msg[] = "error NUL byte in command\n";
	size_t off = 0;
	char *nl;

	while ((nl = memchr(buf + off, '\n', *len - off))) {
		char *line = buf + off;
		size_t n = (size_t)(nl - line);
		*nl = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		off += (size_t)(nl - line) + 1;
		bool go = memchr(line, '\0', n)
				  ? ops->refuse(user, nul_msg,
						sizeof(nul_msg) - 1)
				  : ops->line(user, line);
		if (!go) {
			*len = 0;
			return CONTROL_LINES_STOPPED;
		}
	}
	memmove(buf, buf + off, *len - off);
	*len -= off;
	return *len >= CONTROL_MAX_LINE ? CONTROL_LINES_TOO_LONG
					: CONTROL_LINES_OK;
}
