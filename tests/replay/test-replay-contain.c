// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * replay_contain_run(): a child that returns, fails, crashes, aborts,
 * exits from inside, or never ends costs its own run and says which.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-util.h"
#include "replay-contain.h"

struct area {
	struct replay_contain_head head;
	double value[4];
};

enum act { ACT_OK, ACT_FAIL, ACT_SEGV, ACT_ABORT, ACT_EXIT, ACT_LOOP };

static int
work(void *arg, void *mem)
{
	enum act a = *(enum act *)arg;
	struct area *ar = mem;
	for (int i = 0; i < 4; i++) {
		ar->value[i] = 1.5 * i;
		ar->head.progress = (uint64_t)i + 1;
	}
	switch (a) {
	case ACT_OK:
		return 0;
	case ACT_FAIL:
		snprintf(ar->head.msg, sizeof(ar->head.msg), "bad key 'x'");
		return -EINVAL;
	case ACT_SEGV:
		raise(SIGSEGV);
		break;
	case ACT_ABORT:
		abort();
	case ACT_EXIT:
		exit(3);
	case ACT_LOOP:
		for (;;)
			pause();
	}
	return 0;
}

static struct replay_contain
run(enum act a, double timeout, struct area **out)
{
	struct replay_contain how;
	void *mem = NULL;
	char err[256];
	assert_int_equal(replay_contain_run(work, &a, sizeof(struct area),
					    timeout, &mem, &how, err,
					    sizeof(err)),
			 0);
	*out = mem;
	return how;
}

static void
test_outcomes(void **state)
{
	(void)state;
	struct area *ar;
	char buf[300];

	struct replay_contain how = run(ACT_OK, 10.0, &ar);
	assert_int_equal(how.outcome, REPLAY_CONTAIN_OK);
	assert_true(ar->value[3] == 4.5);
	replay_contain_free(ar, sizeof(*ar));

	how = run(ACT_FAIL, 10.0, &ar);
	assert_int_equal(how.outcome, REPLAY_CONTAIN_FAILED);
	assert_int_equal(how.rc, -EINVAL);
	replay_contain_describe(&how, 10.0, buf, sizeof(buf));
	assert_string_equal(buf, "failed: bad key 'x'");
	replay_contain_free(ar, sizeof(*ar));

	how = run(ACT_SEGV, 10.0, &ar);
	/* The child's handlers are the defaults, not the parent's (here
	 * cmocka's, which would carry on testing in the child). */
	assert_int_equal(how.outcome, REPLAY_CONTAIN_CRASHED);
	assert_int_equal(how.progress, 4);
	replay_contain_describe(&how, 10.0, buf, sizeof(buf));
	assert_string_equal(buf, "crashed (SIGSEGV)");
	replay_contain_free(ar, sizeof(*ar));

	how = run(ACT_ABORT, 10.0, &ar);
	assert_int_equal(how.outcome, REPLAY_CONTAIN_CRASHED);
	replay_contain_describe(&how, 10.0, buf, sizeof(buf));
	assert_string_equal(buf, "crashed (SIGABRT)");
	replay_contain_free(ar, sizeof(*ar));

	how = run(ACT_EXIT, 10.0, &ar);
	assert_int_equal(how.outcome, REPLAY_CONTAIN_FAILED);
	replay_contain_describe(&how, 10.0, buf, sizeof(buf));
	assert_string_equal(buf, "failed: exited with status 3");
	replay_contain_free(ar, sizeof(*ar));

	how = run(ACT_LOOP, 0.3, &ar);
	assert_int_equal(how.outcome, REPLAY_CONTAIN_TIMED_OUT);
	assert_true(how.elapsed_s >= 0.3 && how.elapsed_s < 5.0);
	replay_contain_describe(&how, 0.3, buf, sizeof(buf));
	assert_string_equal(buf, "timed out after 0.3 s");
	replay_contain_free(ar, sizeof(*ar));
}

/* The parent's exit handler: where it says it ran (-1: nowhere).  The
 * one file-scope variable, since atexit() passes no argument. */
static int parent_handler_fd = -1;

static void
parent_handler(void)
{
	if (parent_handler_fd >= 0 && write(parent_handler_fd, "x", 1) < 0)
		return;
}

/* exit() inside the child ends the child, not the parent's business:
 * under ASan the inherited leak check aborted such a child at random
 * (CI saw "crashed (SIGABRT)" for a plugin's exit(3)). */
static void
test_exit_skips_parent_handlers(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	parent_handler_fd = p[1];
	assert_int_equal(atexit(parent_handler), 0);
	struct area *ar;
	struct replay_contain how = run(ACT_EXIT, 10.0, &ar);
	char buf[300];
	replay_contain_describe(&how, 10.0, buf, sizeof(buf));
	assert_string_equal(buf, "failed: exited with status 3");
	replay_contain_free(ar, sizeof(*ar));
	char c;
	errno = 0;
	assert_int_equal(read(p[0], &c, 1), -1);
	assert_int_equal(errno, EAGAIN);
	parent_handler_fd = -1;
	close(p[0]);
	close(p[1]);
}

static void
test_bad_arguments(void **state)
{
	(void)state;
	struct replay_contain how;
	void *mem = (void *)1;
	char err[256];
	enum act a = ACT_OK;
	assert_int_equal(replay_contain_run(work, &a, 8, 1.0, &mem, &how, err,
					    sizeof(err)),
			 -EINVAL);
	assert_null(mem);
	assert_int_equal(replay_contain_run(work, &a, sizeof(struct area), 0.0,
					    &mem, &how, err, sizeof(err)),
			 -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_exit_skips_parent_handlers),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
