/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Logging to stderr, one write(2) per line.  When stderr is the journal
 * (JOURNAL_STREAM names stderr's device and inode, as systemd sets it for
 * StandardError=journal) or when asked, each line starts with the
 * sd-daemon priority prefix "<N>" so the journal keeps the level;
 * otherwise lines read "barod: warning: ...".
 *
 * Each call site (its format string) may print LOG_RL_BURST lines per
 * LOG_RL_INTERVAL_US; further ones are counted and reported as one
 * "suppressed N similar messages" line, so a flapping sensor or a
 * misbehaving peer cannot flood the journal.
 */
#ifndef BAROD_LOG_H
#define BAROD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Enough for every call site barod has, so none competes for a slot. */
#define LOG_RL_SLOTS 64
#define LOG_RL_BURST 10u
#define LOG_RL_INTERVAL_US (30u * 1000000u)

struct log_rl_slot {
	const char *key;	/* the call site's format; NULL: free */
	uint64_t window_us;	/* when its current window started */
	unsigned printed;	/* lines printed in the window */
	uint64_t suppressed;	/* lines held back in the window */
	enum log_level level;	/* most urgent of those held back */
	char first[120];	/* the first line held back, cut */
};

struct log_ratelimit {
	unsigned burst;
	uint64_t interval_us;
	struct log_rl_slot slot[LOG_RL_SLOTS];
};

struct logger {
	enum log_level max;	/* print messages at this level or more urgent */
	bool prefix;		/* "<N>" sd-daemon prefixes */
	struct log_ratelimit rl;
};

/* Plain or prefixed as the environment says (see above); the caller may
 * set l->prefix afterwards to force it. */
void
log_init(struct logger *l, enum log_level max);

void
log_msg(struct logger *l, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Report call sites whose window ended with lines held back, or every
 * held-back count when all is true (at exit).  Call it now and then so a
 * storm that stopped is still reported. */
void
log_flush_suppressed(struct logger *l, bool all);

/* ------------------------------------------------------------------ */
/* The pure parts, for tests. */

/* One line as written: "<4>text\n" or "barod: warning: text\n", cut to
 * fit len (always newline-terminated when len >= 2, NUL-terminated as
 * well when there is room).  Returns the number of bytes to write. */
size_t
log_format_line(char *buf, size_t len, bool prefix, enum log_level level,
		const char *text);

/* Whether a JOURNAL_STREAM value ("DEV:INO", decimal) names the file
 * with this device and inode. */
bool
log_journal_stream_matches(const char *value, uint64_t dev, uint64_t ino);

void
log_ratelimit_init(struct log_ratelimit *rl, unsigned burst,
		   uint64_t interval_us);

/*
 * May this line (text, at level, from call site key) print at now_us?
 * When the call site's previous window held lines back and has ended,
 * *report says so (to print before this line); otherwise report->n is 0.
 * With every slot busy in a live window, lines print unlimited rather
 * than be lost uncounted.
 */
struct log_rl_report {
	uint64_t n;		/* lines held back; 0: nothing to report */
	enum log_level level;	/* the most urgent of them */
	char first[120];	/* the first of them */
};

bool
log_ratelimit_allow(struct log_ratelimit *rl, const char *key,
		    enum log_level level, const char *text, uint64_t now_us,
		    struct log_rl_report *report);

/* Take one call site whose window has ended (or any, with all) holding
 * lines back: 1 with *report filled and the count cleared; 0 when there
 * is none. */
int
log_ratelimit_take(struct log_ratelimit *rl, uint64_t now_us, bool all,
		   struct log_rl_report *report);

#endif
