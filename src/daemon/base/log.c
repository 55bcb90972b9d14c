/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util-strings.h"

static const char *const level_names[] = {
	[LOG_LEVEL_ERR] = "error: ",
	[LOG_LEVEL_WARNING] = "warning: ",
	[LOG_LEVEL_NOTICE] = "",
	[LOG_LEVEL_INFO] = "",
	[LOG_LEVEL_DEBUG] = "debug: ",
};

size_t
log_format_line(char *buf, size_t len, bool prefix, enum log_level level,
		const char *text)
{
	if (len < 2)
		return 0;
	if (level < LOG_LEVEL_ERR)
		level = LOG_LEVEL_ERR;
	if (level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;

	int n = prefix ? snprintf(buf, len, "<%d>%s", (int)level, text)
		       : snprintf(buf, len, "barod: %s%s", level_names[level],
				  text);
	size_t used = n < 0 ? 0 : (size_t)n;
	/* A cut line still ends the line, so the next one starts clean. */
	if (used > len - 2)
		used = len - 2;
	buf[used++] = '\n';
	buf[used] = '\0';
	return used;
}

bool
log_journal_stream_matches(const char *value, uint64_t dev, uint64_t ino)
{
	char field[32];
	uint64_t d, i;

	if (!value)
		return false;
	const char *colon = strchr(value, ':');
	if (!colon || (size_t)(colon - value) >= sizeof(field))
		return false;
	memcpy(field, value, (size_t)(colon - value));
	field[colon - value] = '\0';
	return str_to_u64(field, &d) == 0 && str_to_u64(colon + 1, &i) == 0 &&
	       d == dev && i == ino;
}

void
log_ratelimit_init(struct log_ratelimit *rl, unsigned burst,
		   uint64_t interval_us)
{
	memset(rl, 0, sizeof(*rl));
	rl->burst = burst;
	rl->interval_us = interval_us;
}

static bool
window_over(const struct log_ratelimit *rl, const struct log_rl_slot *s,
	    uint64_t now_us)
{
	return now_us - s->window_us >= rl->interval_us;
}

static void
take_report(struct log_rl_slot *s, struct log_rl_report *report)
{
	report->n = s->suppressed;
	report->level = s->level;
	memcpy(report->first, s->first, sizeof(report->first));
	s->suppressed = 0;
}

/* The slot for key: its own, a free one, or one whose window ended with
 * nothing held back (forgetting it loses no count).  NULL when none. */
static struct log_rl_slot *
find_slot(struct log_ratelimit *rl, const char *key, uint64_t now_us)
{
	struct log_rl_slot *spare = NULL;

	for (size_t i = 0; i < LOG_RL_SLOTS; i++) {
		struct log_rl_slot *s = &rl->slot[i];
		if (s->key == key)
			return s;
		if (!spare && (!s->key || (s->suppressed == 0 &&
					   window_over(rl, s, now_us))))
			spare = s;
	}
	if (spare) {
		memset(spare, 0, sizeof(*spare));
		spare->key = key;
		spare->window_us = now_us;
	}
	return spare;
}

bool
log_ratelimit_allow(struct log_ratelimit *rl, const char *key,
		    enum log_level level, const char *text, uint64_t now_us,
		    struct log_rl_report *report)
{
	report->n = 0;
	struct log_rl_slot *s = find_slot(rl, key, now_us);
	if (!s)
		return true;
	if (window_over(rl, s, now_us)) {
		if (s->suppressed)
			take_report(s, report);
		s->window_us = now_us;
		s->printed = 0;
	}
	if (s->printed < rl->burst) {
		s->printed++;
		return true;
	}
	if (s->suppressed++ == 0) {
		s->level = level;
		snprintf(s->first, sizeof(s->first), "%s", text);
	} else if (level < s->level) {
		s->level = level;
	}
	return false;
}

int
log_ratelimit_take(struct log_ratelimit *rl, uint64_t now_us, bool all,
		   struct log_rl_report *report)
{
	for (size_t i = 0; i < LOG_RL_SLOTS; i++) {
		struct log_rl_slot *s = &rl->slot[i];
		if (s->key && s->suppressed &&
		    (all || window_over(rl, s, now_us))) {
			take_report(s, report);
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void
emit(const struct logger *l, enum log_level level, const char *text)
{
	char line[1100];
	size_t len = log_format_line(line, sizeof(line), l->prefix, level,
				     text);

	/* One write per line: lines from barod and anything sharing the
	 * stream never interleave mid-line. */
	for (size_t off = 0; off < len;) {
		ssize_t w = write(STDERR_FILENO, line + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* nowhere left to say so */
		off += (size_t)w;
	}
}

static void
emit_report(const struct logger *l, const struct log_rl_report *r)
{
	char text[200];

	snprintf(text, sizeof(text),
		 "suppressed %" PRIu64 " similar message%s, the first: %s",
		 r->n, r->n == 1 ? "" : "s", r->first);
	emit(l, r->level, text);
}

void
log_init(struct logger *l, enum log_level max)
{
	struct stat st;

	l->max = max;
	l->prefix = fstat(STDERR_FILENO, &st) == 0 &&
		    log_journal_stream_matches(getenv("JOURNAL_STREAM"),
					       (uint64_t)st.st_dev,
					       (uint64_t)st.st_ino);
	log_ratelimit_init(&l->rl, LOG_RL_BURST, LOG_RL_INTERVAL_US);
}

void
log_msg(struct logger *l, enum log_level level, const char *fmt, ...)
{
	struct log_rl_report report;
	char text[1024];
	va_list ap;

	if (level > l->max)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	bool print = log_ratelimit_allow(&l->rl, fmt, level, text, now_us(),
					 &report);
	if (report.n)
		emit_report(l, &report);
	if (print)
		emit(l, level, text);
}

void
log_flush_suppressed(struct logger *l, bool all)
{
	struct log_rl_report report;
	const uint64_t now = now_us();

	while (log_ratelimit_take(&l->rl, now, all, &report))
		emit_report(l, &report);
}
