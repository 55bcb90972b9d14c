// SPDX-License-Identifier: GPL-3.0-or-later
#include "exec-filter.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay-contain.h"
#include "replay-run.h"
#include "util-strings.h"

extern char **environ;

/* Bytes of replies held: a whole 'O' batch, or an 'E' at its longest. */
#define REPLY_CAP                                                            \
	(EXEC_WIRE_HEADER_SIZE + EXEC_WIRE_BATCH_MAX * EXEC_WIRE_OUTPUT_SIZE)
_Static_assert(REPLY_CAP >= EXEC_WIRE_HEADER_SIZE + EXEC_WIRE_ERROR_MAX,
	       "an 'E' fits the reply buffer");
/* A filter that closed its socket has this long to exit before it is
 * killed (its status says more than "killed"). */
#define EXIT_GRACE_S 2.0

struct exec_filter {
	pid_t pid;		/* 0 once reaped */
	int fd;			/* -1 once closed */
	bool dead;		/* stopped after an error */
	bool reset_due;		/* an 'R' goes out before the next batch */
	struct exec_wire_hello hello;
	char who[80];		/* "exec:NAME", or the command before the
				   hello; for messages */
	char *command;
	uint8_t *tx;		/* 'R', 'F' n, frames */
	uint8_t *rx;
	size_t nrx;		/* bytes in rx */
};

/* The runners' clock, in s, for deadlines. */
static double
mono_s(void)
{
	return replay_now_ns() * 1e-9;
}

/* Wait up to grace_s for the child to exit; true with *status when it
 * did (and it is reaped). */
static bool
reap(struct exec_filter *ef, double grace_s, int *status)
{
	const double end = mono_s() + grace_s;
	for (;;) {
		pid_t r = waitpid(ef->pid, status, WNOHANG);
		if (r == ef->pid) {
			ef->pid = 0;
			return true;
		}
		if (r < 0 && errno != EINTR) {
			ef->pid = 0;	/* not ours any more */
			*status = 0;
			return true;
		}
		if (mono_s() >= end)
			return false;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* Kill the child's whole group (the shell and what it started) and
 * reap it. */
static void
kill_child(struct exec_filter *ef)
{
	if (ef->pid <= 0)
		return;
	kill(-ef->pid, SIGKILL);
	int status;
	while (waitpid(ef->pid, &status, 0) < 0 && errno == EINTR)
		;
	ef->pid = 0;
}

static void
close_fd(struct exec_filter *ef)
{
	if (ef->fd >= 0)
		close(ef->fd);
	ef->fd = -1;
}

/* How the child ended, as words: "exited with status 3". */
static void
describe_status(char *s, size_t len, int status)
{
	if (WIFSIGNALED(status))
		snprintf(s, len, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(s, len, "did not start (the shell's status 127: "
				 "command not found)");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
		snprintf(s, len, "did not start (the shell's status 126: "
				 "not executable)");
	else if (WIFEXITED(status) && WEXITSTATUS(status) > 128 &&
		 WEXITSTATUS(status) < 128 + 65)
		/* A shell (sh -c, a wrapper script) saying that what it
		 * ran was killed. */
		snprintf(s, len, "exited with status %d (128 + signal %d, %s)",
			 WEXITSTATUS(status), WEXITSTATUS(status) - 128,
			 strsignal(WEXITSTATUS(status) - 128));
	else if (WIFEXITED(status))
		snprintf(s, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(s, len, "ended (wait status 0x%x)", (unsigned)status);
}

/*
 * The filter closed its end, went away or said 'E' (said: its message)
 * (phase says when: "before its hello", "in a batch of 12 frames"): stop
 * it and say how it ended.  -ENOENT when the shell could not find the
 * command, else -ECANCELED after an 'E', else -EPIPE.
 */
static int
fail_gone(struct exec_filter *ef, const char *phase, const char *said,
	  char *err, size_t errlen)
{
	close_fd(ef);
	int status = 0;
	char how[128];
	if (ef->pid > 0 && !reap(ef, EXIT_GRACE_S, &status)) {
		kill_child(ef);
		snprintf(how, sizeof(how), "closed its output and did not "
					   "exit (killed)");
	} else {
		describe_status(how, sizeof(how), status);
	}
	ef->dead = true;
	int rc = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT
		 : said && said[0]				      ? -ECANCELED
								      : -EPIPE;
	if (said && said[0])
		return str_errorf(err, errlen, rc, "%s: said 'E': %s; %s %s",
			       ef->who, said, how, phase);
	return str_errorf(err, errlen, rc, "%s: %s %s", ef->who, how, phase);
}

/* Any other error: the filter is killed, the message is kept. */
static int
fail_kill(struct exec_filter *ef, int rc, char *err, size_t errlen,
	  const char *what, const char *phase)
{
	close_fd(ef);
	kill_child(ef);
	ef->dead = true;
	return str_errorf(err, errlen, rc, "%s: %s %s", ef->who, what, phase);
}

/*
 * Send tx[0..ntx) while reading replies into rx, until parse() says a
 * whole message is in (its length is returned) or an error.  parse is
 * exec_wire_parse_hello (n == 0) or _outputs.  Both directions at once:
 * a filter may answer while the batch is still going out, and the
 * socket's buffers are smaller than a batch.
 */
static int
exchange(struct exec_filter *ef, size_t ntx, uint32_t n, void *parsed,
	 double timeout_s, const char *phase, char *err, size_t errlen)
{
	const double end = mono_s() + timeout_s;
	size_t sent = 0;
	char perr[EXEC_WIRE_ERROR_MAX + 64];

	/* A filter speaks only when asked: bytes before a batch are an
	 * answer given twice, or to nothing (an 'E' is read below).  Its
	 * hello it may say before it reads the host's. */
	uint8_t c;
	if (n > 0 && (ef->nrx > 0 ||
		      (recv(ef->fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) == 1 &&
		       c != 'E')))
		return fail_kill(ef, -EPROTO, err, errlen,
				 "said more than was due before", phase);

	for (;;) {
		/* What is in may already be a whole answer. */
		int r = n == 0 ? exec_wire_parse_hello(ef->rx, ef->nrx, parsed,
						       perr, sizeof(perr))
			       : exec_wire_parse_outputs(ef->rx, ef->nrx, n,
							 parsed, perr,
							 sizeof(perr));
		if (r == -ECANCELED)
			return fail_gone(ef, phase, perr, err, errlen);
		if (r < 0)
			return fail_kill(ef, r, err, errlen, perr, phase);
		if (r > 0 && sent == ntx) {
			if (ef->nrx > (size_t)r)
				return fail_kill(ef, -EPROTO, err, errlen,
						 "said more than its answer",
						 phase);
			ef->nrx = 0;
			return r;
		}
		double left = end - mono_s();
		if (left <= 0.0) {
			char what[96];
			snprintf(what, sizeof(what),
				 "gave no answer within %g s (killed)",
				 timeout_s);
			return fail_kill(ef, -ETIMEDOUT, err, errlen,
					 what, phase);
		}
		struct pollfd pfd = {
			.fd = ef->fd,
			.events = (short)((r == 0 && ef->nrx < REPLY_CAP
						   ? POLLIN
						   : 0) |
					  (sent < ntx ? POLLOUT : 0)),
		};
		if (pfd.events == 0) {
			/* More than any answer holds. */
			return fail_kill(ef, -EPROTO, err, errlen,
					 "said more than an answer holds",
					 phase);
		}
		int ms = replay_contain_poll_ms(left);
		int pr = poll(&pfd, 1, ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return fail_kill(ef, -errno, err, errlen,
					 "poll failed", phase);
		if (pr == 0)
			continue;
		if (pfd.revents & POLLIN) {
			ssize_t got = recv(ef->fd, ef->rx + ef->nrx,
					   REPLY_CAP - ef->nrx, MSG_DONTWAIT);
			if (got > 0) {
				ef->nrx += (size_t)got;
				continue;
			}
			if (got == 0)
				return fail_gone(ef, phase, NULL, err, errlen);
			if (errno != EAGAIN && errno != EINTR)
				return fail_gone(ef, phase, NULL, err, errlen);
		}
		if (sent < ntx && (pfd.revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = send(ef->fd, ef->tx + sent, ntx - sent,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0) {
				sent += (size_t)w;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				/* It has gone; an 'E' it left may still be
				 * waiting to be read. */
				ssize_t got;
				while (ef->nrx < REPLY_CAP &&
				       (got = recv(ef->fd, ef->rx + ef->nrx,
						   REPLY_CAP - ef->nrx,
						   MSG_DONTWAIT)) > 0)
					ef->nrx += (size_t)got;
				if (ef->nrx && ef->rx[0] == 'E' &&
				    exec_wire_parse_outputs(ef->rx, ef->nrx, 1,
							    parsed, perr,
							    sizeof(perr)) ==
					    -ECANCELED)
					return fail_gone(ef, phase, perr, err,
							 errlen);
				return fail_gone(ef, phase, NULL, err, errlen);
			}
		} else if ((pfd.revents & (POLLHUP | POLLERR)) &&
			   !(pfd.revents & POLLIN)) {
			return fail_gone(ef, phase, NULL, err, errlen);
		}
	}
}

int
exec_filter_start(struct exec_filter **out, const char *command,
		  double timeout_s, char *err, size_t errlen)
{
	*out = NULL;
	struct exec_filter *ef = calloc(1, sizeof(*ef));
	if (ef) {
		ef->fd = -1;
		ef->command = strdup(command);
		ef->tx = malloc(1 + EXEC_WIRE_HEADER_SIZE +
				(size_t)EXEC_WIRE_BATCH_MAX *
					EXEC_WIRE_FRAME_SIZE);
		ef->rx = malloc(REPLY_CAP);
	}
	if (!ef || !ef->command || !ef->tx || !ef->rx) {
		exec_filter_stop(ef);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	snprintf(ef->who, sizeof(ef->who), "exec:%s", command);
	if (strlen(command) >= sizeof(ef->who) - 5)
		memcpy(ef->who + sizeof(ef->who) - 4, "...", 4);

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		int e = errno;
		exec_filter_stop(ef);
		return str_errorf(err, errlen, -e, "exec:%s: socketpair: %s",
			       command, strerror(e));
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	/* dup2 clears close-on-exec on 0 and 1; sv[1] itself closes. */
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	/* Its own group, for the kill; default SIGPIPE handling, whatever
	 * baro-replay's is. */
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
					      POSIX_SPAWN_SETSIGDEF);
	char *argv[] = { "sh", "-c", ef->command, NULL };
	int e = posix_spawn(&ef->pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	ef->fd = sv[0];
	if (e != 0) {
		ef->pid = 0;
		exec_filter_stop(ef);
		return str_errorf(err, errlen, -e, "exec:%s: /bin/sh: %s",
			       command, strerror(e));
	}
	exec_wire_put_host_hello(ef->tx);
	int rc = exchange(ef, EXEC_WIRE_HOST_HELLO_SIZE, 0, &ef->hello,
			  timeout_s, "before its hello", err, errlen);
	if (rc < 0) {
		exec_filter_stop(ef);
		return rc;
	}
	snprintf(ef->who, sizeof(ef->who), "exec:%s", ef->hello.name);
	*out = ef;
	return 0;
}

const char *
exec_filter_name(const struct exec_filter *ef)
{
	return ef->hello.name;
}

uint32_t
exec_filter_reads(const struct exec_filter *ef)
{
	return ef->hello.reads;
}

const char *
exec_filter_command(const struct exec_filter *ef)
{
	return ef->command;
}

int
exec_filter_run(struct exec_filter *ef, const struct baro_filter_frame *in,
		size_t n, int reset, struct baro_filter_output2 *out,
		double timeout_s, char *err, size_t errlen)
{
	if (ef->dead)
		return str_errorf(err, errlen, -EPIPE,
			       "%s: stopped after an earlier error", ef->who);
	if (n > EXEC_WIRE_BATCH_MAX)
		return str_errorf(err, errlen, -EINVAL,
			       "%s: a batch of %zu frames (at most %u)",
			       ef->who, n, EXEC_WIRE_BATCH_MAX);
	/* A reset needs no answer: it goes out with the next batch, so a
	 * filter that stopped reading cannot block it. */
	if (reset)
		ef->reset_due = true;
	if (n == 0)
		return 0;
	size_t ntx = 0;
	if (ef->reset_due)
		ef->tx[ntx++] = 'R';
	exec_wire_put_batch_header(ef->tx + ntx, (uint32_t)n);
	ntx += EXEC_WIRE_HEADER_SIZE;
	for (size_t k = 0; k < n; k++, ntx += EXEC_WIRE_FRAME_SIZE)
		exec_wire_put_frame(ef->tx + ntx, &in[k]);
	char phase[64];
	snprintf(phase, sizeof(phase), "in a batch of %zu frames", n);
	int rc = exchange(ef, ntx, (uint32_t)n, out, timeout_s, phase, err,
			  errlen);
	if (rc < 0)
		return rc;
	ef->reset_due = false;
	return 0;
}

void
exec_filter_stop(struct exec_filter *ef)
{
	if (!ef)
		return;
	/* EOF tells it to exit; it has a moment to, then it is killed. */
	close_fd(ef);
	int status;
	if (ef->pid > 0 && !reap(ef, 1.0, &status))
		kill_child(ef);
	free(ef->command);
	free(ef->tx);
	free(ef->rx);
	free(ef);
}
