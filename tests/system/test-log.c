/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The daemon's logging: sd-daemon prefixes, journal detection and the
 * per-call-site rate limit; log_msg itself through a redirected stderr. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "test-files.h"

static void
test_format_prefix(void **state)
{
	char buf[64];

	(void)state;
	for (int lv = LOG_LEVEL_ERR; lv <= LOG_LEVEL_DEBUG; lv++) {
		char want[32];
		size_t n = log_format_line(buf, sizeof(buf), true,
					   (enum log_level)lv, "x y");
		snprintf(want, sizeof(want), "<%d>x y\n", lv);
		assert_string_equal(buf, want);
		assert_int_equal(n, strlen(want));
	}
}

static void
test_format_plain(void **state)
{
	char buf[64];

	(void)state;
	log_format_line(buf, sizeof(buf), false, LOG_LEVEL_ERR, "bad");
	assert_string_equal(buf, "barod: error: bad\n");
	log_format_line(buf, sizeof(buf), false, LOG_LEVEL_WARNING, "w");
	assert_string_equal(buf, "barod: warning: w\n");
	log_format_line(buf, sizeof(buf), false, LOG_LEVEL_NOTICE, "n");
	assert_string_equal(buf, "barod: n\n");
	log_format_line(buf, sizeof(buf), false, LOG_LEVEL_INFO, "i");
	assert_string_equal(buf, "barod: i\n");
	log_format_line(buf, sizeof(buf), false, LOG_LEVEL_DEBUG, "d");
	assert_string_equal(buf, "barod: debug: d\n");
}

/* A line too long for the buffer is cut but still ends the line; a level
 * out of range (a peer's number passed through) is clamped. */
static void
test_format_cut_and_clamp(void **state)
{
	char buf[8];

	(void)state;
	size_t n = log_format_line(buf, sizeof(buf), true, LOG_LEVEL_ERR,
				   "abcdefghijkl");
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "<3>abc\n", 7);
	assert_int_equal(buf[7], '\0');
	char big[32];
	log_format_line(big, sizeof(big), true, (enum log_level)0, "a");
	assert_string_equal(big, "<3>a\n");
	log_format_line(big, sizeof(big), true, (enum log_level)9, "a");
	assert_string_equal(big, "<7>a\n");
	assert_int_equal(log_format_line(big, 1, true, LOG_LEVEL_ERR, "a"), 0);
}

static void
test_journal_stream(void **state)
{
	(void)state;
	assert_true(log_journal_stream_matches("2049:123456", 2049, 123456));
	assert_false(log_journal_stream_matches("2049:123456", 2049, 123457));
	assert_false(log_journal_stream_matches("2048:123456", 2049, 123456));
	assert_false(log_journal_stream_matches(NULL, 0, 0));
	assert_false(log_journal_stream_matches("", 0, 0));
	assert_false(log_journal_stream_matches("2049", 2049, 0));
	assert_false(log_journal_stream_matches(":5", 0, 5));
	assert_false(log_journal_stream_matches("1:", 1, 0));
	assert_false(log_journal_stream_matches("1:5x", 1, 5));
	assert_false(log_journal_stream_matches("-1:5", UINT64_MAX, 5));
	assert_false(log_journal_stream_matches(
		"111111111111111111111111111111111111:5", 1, 5));
}

static void
test_ratelimit_burst_then_report(void **state)
{
	struct log_ratelimit rl;
	struct log_rl_report r;
	static const char site[] = "site %d";
	char text[32];

	(void)state;
	log_ratelimit_init(&rl, 3, 1000);
	for (int i = 0; i < 10; i++) {
		snprintf(text, sizeof(text), "line %d", i);
		bool ok = log_ratelimit_allow(&rl, site,
					      i == 6 ? LOG_LEVEL_ERR
						     : LOG_LEVEL_WARNING,
					      text, 100u + (uint64_t)i, &r);
		assert_int_equal(ok, i < 3);
		assert_int_equal(r.n, 0);
	}
	/* Nothing to take while the window lasts. */
	assert_int_equal(log_ratelimit_take(&rl, 1099, false, &r), 0);
	/* The next window: the count comes with the first line. */
	assert_true(log_ratelimit_allow(&rl, site, LOG_LEVEL_INFO, "again",
					1100, &r));
	assert_int_equal(r.n, 7);
	assert_int_equal(r.level, LOG_LEVEL_ERR);
	assert_string_equal(r.first, "line 3");
	assert_true(log_ratelimit_allow(&rl, site, LOG_LEVEL_INFO, "x", 1101,
					&r));
	assert_int_equal(r.n, 0);
}

/* Call sites are counted apart; a storm that stops is still reported by
 * take() once its window ends, or at once with all. */
static void
test_ratelimit_sites_and_take(void **state)
{
	struct log_ratelimit rl;
	struct log_rl_report r;
	static const char a[] = "a", b[] = "b";

	(void)state;
	log_ratelimit_init(&rl, 1, 1000);
	assert_true(log_ratelimit_allow(&rl, a, LOG_LEVEL_ERR, "a1", 0, &r));
	assert_true(log_ratelimit_allow(&rl, b, LOG_LEVEL_ERR, "b1", 0, &r));
	assert_false(log_ratelimit_allow(&rl, a, LOG_LEVEL_ERR, "a2", 1, &r));
	assert_false(log_ratelimit_allow(&rl, a, LOG_LEVEL_ERR, "a3", 2, &r));
	assert_false(log_ratelimit_allow(&rl, b, LOG_LEVEL_ERR, "b2", 3, &r));

	assert_int_equal(log_ratelimit_take(&rl, 500, true, &r), 1);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.first, "a2");
	assert_int_equal(log_ratelimit_take(&rl, 1000, false, &r), 1);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.first, "b2");
	assert_int_equal(log_ratelimit_take(&rl, 1000, true, &r), 0);
	/* Taken counts are not reported twice. */
	assert_true(log_ratelimit_allow(&rl, a, LOG_LEVEL_ERR, "a4", 2000, &r));
	assert_int_equal(r.n, 0);
}

/* More call sites than slots: a site with no slot prints (nothing is lost
 * uncounted); a slot whose window ended clean is reused. */
static void
test_ratelimit_slots(void **state)
{
	static char keys[LOG_RL_SLOTS + 1][4];
	struct log_ratelimit rl;
	struct log_rl_report r;

	(void)state;
	log_ratelimit_init(&rl, 1, 1000);
	for (size_t i = 0; i < LOG_RL_SLOTS; i++) {
		assert_true(log_ratelimit_allow(&rl, keys[i], LOG_LEVEL_ERR,
						"x", 0, &r));
		assert_false(log_ratelimit_allow(&rl, keys[i], LOG_LEVEL_ERR,
						 "x", 0, &r));
	}
	const char *extra = keys[LOG_RL_SLOTS];
	for (int i = 0; i < 5; i++)
		assert_true(log_ratelimit_allow(&rl, extra, LOG_LEVEL_ERR,
						"x", 10, &r));
	/* Windows over but counts pending: still no slot to take. */
	for (int i = 0; i < 3; i++)
		assert_true(log_ratelimit_allow(&rl, extra, LOG_LEVEL_ERR,
						"x", 2000, &r));
	size_t taken = 0;
	while (log_ratelimit_take(&rl, 2000, false, &r) == 1)
		taken++;
	assert_int_equal(taken, LOG_RL_SLOTS);
	/* Now a slot is free for it, and it is limited. */
	assert_true(log_ratelimit_allow(&rl, extra, LOG_LEVEL_ERR, "x", 2001,
					&r));
	assert_false(log_ratelimit_allow(&rl, extra, LOG_LEVEL_ERR, "x", 2002,
					 &r));
}

/* ------------------------------------------------------------------ */
/* log_msg through stderr redirected to a file. */

struct redirect {
	int saved;
	int fd;
};

static void
redirect_stderr(struct redirect *r)
{
	r->fd = temp_fd(NULL);
	r->saved = dup(STDERR_FILENO);
	assert_true(r->saved >= 0);
	assert_int_equal(dup2(r->fd, STDERR_FILENO), STDERR_FILENO);
}

static char *
restore_stderr(struct redirect *r)
{
	assert_int_equal(dup2(r->saved, STDERR_FILENO), STDERR_FILENO);
	close(r->saved);
	return slurp_fd(r->fd);
}

static unsigned
count(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void
log_storm(struct logger *l)
{
	for (int i = 0; i < 100; i++)
		log_msg(l, LOG_LEVEL_WARNING, "sensor %s: attempt %d", "b0", i);
}

static void
test_log_msg_plain_storm(void **state)
{
	struct redirect r;
	struct logger l;

	(void)state;
	redirect_stderr(&r);
	unsetenv("JOURNAL_STREAM");
	log_init(&l, LOG_LEVEL_NOTICE);
	log_storm(&l);
	log_msg(&l, LOG_LEVEL_INFO, "not shown at notice");
	log_msg(&l, LOG_LEVEL_ERR, "other site");
	log_flush_suppressed(&l, true);
	char *text = restore_stderr(&r);

	assert_false(l.prefix);
	assert_int_equal(count(text, "barod: warning: sensor b0: attempt "),
			 LOG_RL_BURST);
	assert_non_null(strstr(text, "attempt 9\n"));
	assert_null(strstr(text, "warning: sensor b0: attempt 10\n"));
	assert_null(strstr(text, "not shown"));
	assert_non_null(strstr(text, "barod: error: other site\n"));
	char want[128];
	snprintf(want, sizeof(want),
		 "barod: warning: suppressed %u similar messages, the first: "
		 "sensor b0: attempt %u\n", 100 - LOG_RL_BURST, LOG_RL_BURST);
	assert_non_null(strstr(text, want));
	free(text);
}

/* stderr is "the journal" when JOURNAL_STREAM names its device and inode. */
static void
test_log_msg_journal(void **state)
{
	struct redirect r;
	struct logger l;
	struct stat st;
	char env[64];

	(void)state;
	redirect_stderr(&r);
	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	log_init(&l, LOG_LEVEL_DEBUG);
	const bool other_file = l.prefix;
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	log_init(&l, LOG_LEVEL_DEBUG);
	const bool this_file = l.prefix;
	log_msg(&l, LOG_LEVEL_NOTICE, "ready %d", 1);
	log_msg(&l, LOG_LEVEL_DEBUG, "detail");
	unsetenv("JOURNAL_STREAM");
	char *text = restore_stderr(&r);
	assert_false(other_file);
	assert_true(this_file);
	assert_string_equal(text, "<5>ready 1\n<7>detail\n");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_prefix),
		cmocka_unit_test(test_format_plain),
		cmocka_unit_test(test_format_cut_and_clamp),
		cmocka_unit_test(test_journal_stream),
		cmocka_unit_test(test_ratelimit_burst_then_report),
		cmocka_unit_test(test_ratelimit_sites_and_take),
		cmocka_unit_test(test_ratelimit_slots),
		cmocka_unit_test(test_log_msg_plain_storm),
		cmocka_unit_test(test_log_msg_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
