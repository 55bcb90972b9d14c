// SPDX-License-Identifier: GPL-3.0-or-later
/* The control socket's line framing without a socket
 * (src/daemon/control-lines.c): whole lines out, the rest kept, CR LF,
 * NUL bytes and over-long lines refused, a client gone mid-batch. */
#include <string.h>

#include "control-lines.h"
#include "test-util.h"

struct seen {
	char text[8][64];
	size_t n;
	size_t stop_after;	/* 0: never stop */
};

static bool
record(struct seen *s, const char *text)
{
	assert_true(s->n < 8);
	snprintf(s->text[s->n], sizeof(s->text[0]), "%s", text);
	s->n++;
	return s->stop_after == 0 || s->n < s->stop_after;
}

static bool
on_line(void *user, const char *text)
{
	return record(user, text);
}

static bool
on_refuse(void *user, const char *text, size_t len)
{
	assert_int_equal(strlen(text), len);
	return record(user, text);
}

static const struct control_line_ops ops = { on_line, on_refuse };

static enum control_lines_result
take(char *buf, size_t *len, const char *bytes, size_t n, struct seen *s)
{
	memcpy(buf + *len, bytes, n);
	*len += n;
	return control_lines_take(buf, len, &ops, s);
}

static void
test_lines(void **state)
{
	(void)state;
	char buf[CONTROL_MAX_LINE + 1];
	size_t len = 0;
	struct seen s = { 0 };

	/* Two lines and a partial one; CR LF is one line end. */
	assert_int_equal(take(buf, &len, "status\r\nget X\nse", 16, &s),
			 CONTROL_LINES_OK);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.text[0], "status");
	assert_string_equal(s.text[1], "get X");
	assert_int_equal(len, 2);
	/* The rest of it in the next piece; an empty line is a line. */
	assert_int_equal(take(buf, &len, "t A 1\n\n", 7, &s), CONTROL_LINES_OK);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text[2], "set A 1");
	assert_string_equal(s.text[3], "");
	assert_int_equal(len, 0);
	/* A lone CR inside a line stays: only the one before LF goes. */
	assert_int_equal(take(buf, &len, "a\rb\r\r\n", 6, &s), CONTROL_LINES_OK);
	assert_string_equal(s.text[4], "a\rb\r");
}

static void
test_nul_refused(void **state)
{
	(void)state;
	char buf[CONTROL_MAX_LINE + 1];
	size_t len = 0;
	struct seen s = { 0 };

	/* "inject off 0" must not run as "inject": the line is refused,
	 * the next one runs; a NUL just before the line end too. */
	assert_int_equal(take(buf, &len, "inject\0off 0\nstatus\nx\0\r\n", 24,
			      &s),
			 CONTROL_LINES_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.text[0], "error NUL byte in command\n");
	assert_string_equal(s.text[1], "status");
	assert_string_equal(s.text[2], "error NUL byte in command\n");
}

static void
test_too_long(void **state)
{
	(void)state;
	char buf[CONTROL_MAX_LINE + 1], big[CONTROL_MAX_LINE];
	size_t len = 0;
	struct seen s = { 0 };

	memset(big, 'x', sizeof(big));
	/* One byte short of the bound: still waiting for the line end. */
	assert_int_equal(take(buf, &len, big, sizeof(big) - 1, &s),
			 CONTROL_LINES_OK);
	assert_int_equal(len, sizeof(big) - 1);
	assert_int_equal(take(buf, &len, "y", 1, &s), CONTROL_LINES_TOO_LONG);
	assert_int_equal(s.n, 0);
	/* A line of exactly 1023 bytes and its LF fits. */
	len = 0;
	memcpy(big + sizeof(big) - 1, "\n", 1);
	assert_int_equal(take(buf, &len, big, sizeof(big), &s),
			 CONTROL_LINES_OK);
	assert_int_equal(s.n, 1);
	assert_int_equal(len, 0);
}

static void
test_stop(void **state)
{
	(void)state;
	char buf[CONTROL_MAX_LINE + 1];
	size_t len = 0;
	struct seen s = { .stop_after = 1 };

	/* The client went away at the first reply: nothing more runs. */
	assert_int_equal(take(buf, &len, "a\nb\nc", 5, &s),
			 CONTROL_LINES_STOPPED);
	assert_int_equal(s.n, 1);
	assert_int_equal(len, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_nul_refused),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
