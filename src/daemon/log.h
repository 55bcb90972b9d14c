/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Logging to stderr.  Under systemd (JOURNAL_STREAM set) each line carries
 * a <N> syslog priority prefix so the journal classifies it.
 */
#ifndef BAROD_LOG_H
#define BAROD_LOG_H

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

struct logger {
	enum log_level max;	/* print messages at this level or more urgent */
	int journal;		/* prefix <N> */
};

void
log_init(struct logger *l, enum log_level max);

void
log_msg(const struct logger *l, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
