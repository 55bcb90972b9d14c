/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running untrusted code (a user's filter) so that a crash or an endless
 * loop costs one case, not the run: the work is done in a child process
 * (fork, no exec: it has the parent's memory, the rows, the loaded
 * filter) that writes its results into a shared anonymous mapping, and
 * the parent waits at most a time limit for it.
 *
 * The child ends with _exit(): nothing of the parent's (stdio buffers,
 * atexit handlers, the report's temporary files) runs twice.
 */
#ifndef BAROD_REPLAY_CONTAIN_H
#define BAROD_REPLAY_CONTAIN_H

#include <stddef.h>
#include <stdint.h>

enum replay_contain_outcome {
	REPLAY_CONTAIN_OK,		/* fn returned 0 */
	REPLAY_CONTAIN_FAILED,		/* fn returned an error */
	REPLAY_CONTAIN_CRASHED,		/* killed by a signal */
	REPLAY_CONTAIN_TIMED_OUT,	/* past the limit: killed */
};

/* The start of every shared area: what the child says as it goes. */
struct replay_contain_head {
	/* Set by the child as it works (e.g. the row reached), read by
	 * the parent after a crash to say where. */
	volatile uint64_t progress;
	volatile int32_t rc;		/* fn's return */
	char msg[244];			/* fn's message on an error */
};

struct replay_contain {
	enum replay_contain_outcome outcome;
	int signal;		/* CRASHED: the signal */
	int rc;			/* FAILED: fn's negative errno */
	double elapsed_s;
	uint64_t progress;	/* the child's last progress */
	char msg[244];		/* FAILED: fn's message */
};

/*
 * fn(arg, area) runs in a child; area is `size` zeroed shared bytes
 * (size >= sizeof(struct replay_contain_head); the head first, the rest
 * fn's), and fn returns 0 or a negative errno with a message in the
 * head.  The child has timeout_s seconds (> 0).  On return *area is the
 * mapping (the caller reads its results, then replay_contain_free()),
 * and *how says how it ended.  0, or a negative errno when the child
 * could not be started (-ENOMEM, -EAGAIN) with a message in err.
 */
int
replay_contain_run(int (*fn)(void *arg, void *area), void *arg, size_t size,
		   double timeout_s, void **area, struct replay_contain *how,
		   char *err, size_t errlen);

void
replay_contain_free(void *area, size_t size);

/* poll()'s timeout (ms) for left_s seconds to a deadline: rounded up,
 * 0 when it has passed, at most a day (the caller polls again). */
int
replay_contain_poll_ms(double left_s);

/* First thing in a child:
 * - the crash signals' default actions, so a crash ends it as the signal
 *   it is; a handler inherited from the parent (a test framework's, a
 *   sanitizer's) would carry on in it;
 * - exit() from inside a filter ends it with that status and nothing
 *   else: the exit handlers it inherited are the parent's (a sanitizer's
 *   leak check of the parent's heap, which aborted it at random under
 *   ASan, a temporary directory's removal), not the child's to run. */
void
replay_contain_child_setup(void);

/* "crashed (SIGSEGV)", "timed out after 10 s", "failed: MSG", "ran". */
void
replay_contain_describe(const struct replay_contain *how, double timeout_s,
			char *buf, size_t len);

#endif
