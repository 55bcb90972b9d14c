// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-contain.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay-run.h"
#include "util-strings.h"

/* The runners' clock, in s, for deadlines. */
static double
mono_s(void)
{
	return replay_now_ns() * 1e-9;
}

void
replay_contain_free(void *area, size_t size)
{
	if (area && area != MAP_FAILED)
		munmap(area, size);
}

/* Wait for the child's end: its pipe's write end closes when it exits
 * (or dies); poll says when, or that the limit passed. */
static bool
wait_end(int fd, double deadline)
{
	for (;;) {
		double left = deadline - mono_s();
		if (left <= 0.0)
			return false;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = replay_contain_poll_ms(left);
		int n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return true;	/* cannot wait: reap it now */
		if (n == 0)
			continue;	/* recheck the deadline */
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return true;
	}
}

int
replay_contain_poll_ms(double left_s)
{
	/* Rounded up, so a wait never ends before its deadline; a day at
	 * most, well inside an int of ms. */
	if (!(left_s > 0.0))
		return 0;
	return left_s > 86400.0 ? 86400000 : (int)(left_s * 1000.0) + 1;
}

/* Registered last in the child, so it runs first: the filter's own
 * output flushed, the status kept, the inherited handlers skipped. */
static void
child_exit(int status, void *arg)
{
	(void)arg;
	fflush(NULL);
	_exit(status);
}

void
replay_contain_child_setup(void)
{
	/* Should it fail, exit() runs the inherited handlers, as before. */
	(void)on_exit(child_exit, NULL);
	static const int crash[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
				     SIGPIPE };
	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], SIG_DFL);
}

int
replay_contain_run(int (*fn)(void *arg, void *area), void *arg, size_t size,
		   double timeout_s, void **area, struct replay_contain *how,
		   char *err, size_t errlen)
{
	*area = NULL;
	memset(how, 0, sizeof(*how));
	if (size < sizeof(struct replay_contain_head) || !(timeout_s > 0.0))
		return str_errorf(err, errlen, -EINVAL,
			       "contained run: bad size or time limit");
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return str_errorf(err, errlen, -ENOMEM,
			       "contained run: %zu bytes: %s", size,
			       strerror(errno));
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		int e = errno;
		munmap(m, size);
		return str_errorf(err, errlen, -e, "contained run: pipe: %s",
			       strerror(e));
	}
	/* What the parent buffered must not be written twice. */
	fflush(NULL);
	const double t0 = mono_s();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		munmap(m, size);
		return str_errorf(err, errlen, -e, "contained run: fork: %s",
			       strerror(e));
	}
	if (pid == 0) {
		close(pfd[0]);
		replay_contain_child_setup();
		struct replay_contain_head *h = m;
		int rc = fn(arg, m);
		h->rc = rc;
		_exit(rc == 0 ? 0 : 1);
	}
	close(pfd[1]);
	bool ended = wait_end(pfd[0], t0 + timeout_s);
	close(pfd[0]);
	if (!ended)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	how->elapsed_s = mono_s() - t0;
	const struct replay_contain_head *h = m;
	how->progress = h->progress;
	if (!ended) {
		how->outcome = REPLAY_CONTAIN_TIMED_OUT;
	} else if (WIFSIGNALED(status)) {
		how->outcome = REPLAY_CONTAIN_CRASHED;
		how->signal = WTERMSIG(status);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		   h->rc == 0) {
		how->outcome = REPLAY_CONTAIN_OK;
	} else {
		how->outcome = REPLAY_CONTAIN_FAILED;
		how->rc = h->rc < 0 ? h->rc : -EIO;
		/* exit() from inside the filter, or an error it returned */
		memcpy(how->msg, (const char *)h->msg, sizeof(how->msg));
		how->msg[sizeof(how->msg) - 1] = '\0';
		if (!how->msg[0] && WIFEXITED(status) && h->rc == 0)
			snprintf(how->msg, sizeof(how->msg),
				 "exited with status %d", WEXITSTATUS(status));
	}
	*area = m;
	return 0;
}

void
replay_contain_describe(const struct replay_contain *how, double timeout_s,
			char *buf, size_t len)
{
	switch (how->outcome) {
	case REPLAY_CONTAIN_OK:
		snprintf(buf, len, "ran");
		return;
	case REPLAY_CONTAIN_FAILED:
		snprintf(buf, len, "failed: %s",
			 how->msg[0] ? how->msg : strerror(-how->rc));
		return;
	case REPLAY_CONTAIN_CRASHED: {
		const char *abbrev = sigabbrev_np(how->signal);
		snprintf(buf, len, "crashed (SIG%s)", abbrev ? abbrev : "?");
		return;
	}
	case REPLAY_CONTAIN_TIMED_OUT:
		snprintf(buf, len, "timed out after %g s", timeout_s);
		return;
	}
	snprintf(buf, len, "?");
}
