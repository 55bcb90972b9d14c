/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void
log_init(struct logger *l, enum log_level max)
{
	l->max = max;
	l->journal = getenv("JOURNAL_STREAM") != NULL;
}

void
log_msg(const struct logger *l, enum log_level level, const char *fmt, ...)
{
	static const char *const names[] = {
		[LOG_LEVEL_ERR] = "error: ",
		[LOG_LEVEL_WARNING] = "warning: ",
		[LOG_LEVEL_NOTICE] = "",
		[LOG_LEVEL_INFO] = "",
		[LOG_LEVEL_DEBUG] = "debug: ",
	};
	char line[1024];
	va_list ap;

	if (level > l->max)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (l->journal)
		fprintf(stderr, "<%d>%s\n", (int)level, line);
	else
		fprintf(stderr, "barod: %s%s\n", names[level], line);
}
