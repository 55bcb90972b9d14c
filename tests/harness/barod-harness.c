/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "barod-harness.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 5u

static void
fail_exit(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	exit(EXIT_FAILURE);
}

/* Format, hand to the fail hook; does not return. */
__attribute__((format(printf, 2, 3), noreturn)) static void
fail(const struct harness *h, const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(h && h->fail ? h->fail : fail_exit)(msg);
	/* A hook that returns breaks the contract: do not carry on. */
	abort();
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int
harness_init(struct harness *h, const char *prefix, const char *barod,
	     void (*fail_hook)(const char *msg))
{
	const char *t = getenv("BAROD_READY_TIMEOUT_MS");

	memset(h, 0, sizeof(*h));
	h->fail = fail_hook;
	h->barod = barod ? barod : getenv("BAROD");
	h->ready_ms = t && atoi(t) > 0 ? (unsigned)atoi(t) : 20000u;
	if (!h->barod) {
		fprintf(stderr, "harness: BAROD (barod's path) is not set\n");
		return -1;
	}
	int n = snprintf(h->dir, sizeof(h->dir), "/tmp/%s-XXXXXX", prefix);
	if (n <= 0 || (size_t)n >= sizeof(h->dir) || !mkdtemp(h->dir)) {
		fprintf(stderr, "harness: temporary directory for %s: %s\n",
			prefix, strerror(errno));
		h->dir[0] = '\0';
		return -1;
	}
	return 0;
}

/* Everything below dir, then dir itself. */
static int
remove_tree(const char *dir)
{
	char cmd[512];
	int n = snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

	if (n <= 0 || (size_t)n >= sizeof(cmd) || strchr(dir, '\''))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

int
harness_fini(struct harness *h)
{
	harness_kill_all(h);
	if (!h->dir[0])
		return 0;
	int rc = remove_tree(h->dir);
	h->dir[0] = '\0';
	return rc;
}

static struct harness_child *
child_of(struct harness *h, pid_t pid)
{
	for (size_t i = 0; i < HARNESS_MAX_CHILDREN; i++) {
		if (h->children[i].pid == pid && pid > 0)
			return &h->children[i];
	}
	fail(h, "harness: pid %d is not a barod it started", (int)pid);
}

static int
exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

void
harness_kill_all(struct harness *h)
{
	for (size_t i = 0; i < HARNESS_MAX_CHILDREN; i++) {
		struct harness_child *c = &h->children[i];
		if (c->pid > 0 && !c->exited && !c->waited) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
		}
		c->pid = 0;
	}
}

void
harness_path(const struct harness *h, char *buf, size_t len,
	     const char *name)
{
	int n = snprintf(buf, len, "%s/%s", h->dir, name);

	if (n <= 0 || (size_t)n >= len)
		fail(h, "harness: path %s/%s too long", h->dir, name);
}

void
harness_write(struct harness *h, char *path, size_t len, const char *name,
	      const char *fmt, ...)
{
	va_list ap;

	harness_path(h, path, len, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fail(h, "harness: %s: %s", path, strerror(errno));
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) != 0 || n < 0)
		fail(h, "harness: writing %s failed", path);
}

pid_t
harness_spawn(struct harness *h, const char *log_name,
	      const char *const *args)
{
	const char *argv[64] = { "barod" };
	struct harness_child *c = NULL;
	size_t n = 1;

	for (; args[n - 1]; n++) {
		if (n + 1 >= sizeof(argv) / sizeof(argv[0]))
			fail(h, "harness: too many arguments for barod");
		argv[n] = args[n - 1];
	}
	argv[n] = NULL;
	/* Slots of children already waited for are reused (their logs
	 * stay readable until then). */
	for (size_t i = 0; i < HARNESS_MAX_CHILDREN && !c; i++) {
		if (h->children[i].pid == 0)
			c = &h->children[i];
	}
	for (size_t i = 0; i < HARNESS_MAX_CHILDREN && !c; i++) {
		if (h->children[i].waited)
			c = &h->children[i];
	}
	if (!c)
		fail(h, "harness: more than %d barods at once",
		     HARNESS_MAX_CHILDREN);
	memset(c, 0, sizeof(*c));
	harness_path(h, c->log, sizeof(c->log), log_name);

	/* Opened here so a bad path fails the test, not the child. */
	int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		fail(h, "harness: %s: %s", c->log, strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		fail(h, "harness: fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execv(h->barod, (char *const *)argv);
		dprintf(fd, "harness: exec %s: %s\n", h->barod,
			strerror(errno));
		_exit(127);
	}
	close(fd);
	/* A pid the system reused names this child from now on. */
	for (size_t i = 0; i < HARNESS_MAX_CHILDREN; i++) {
		if (h->children[i].pid == pid)
			h->children[i].pid = 0;
	}
	c->pid = pid;
	return pid;
}

static char *
slurp(const struct harness *h, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	if (fd < 0 || !buf)
		fail(h, "harness: %s: %s", path, strerror(errno));
	for (;;) {
		if (n + 1 >= cap) {
			char *bigger = realloc(buf, cap *= 2);
			if (!bigger)
				fail(h, "harness: %s: out of memory", path);
			buf = bigger;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return buf;
}

char *
harness_log(struct harness *h, pid_t pid)
{
	return slurp(h, child_of(h, pid)->log);
}

static int
count_text(const char *s, const char *text)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, text)); p += strlen(text))
		n++;
	return n;
}

/* Fail with what barod said: the end of its log. */
__attribute__((noreturn)) static void
fail_with_log(struct harness *h, struct harness_child *c, const char *what)
{
	char *log = slurp(h, c->log);
	size_t len = strlen(log);
	const char *tail = len > 4000 ? log + len - 4000 : log;
	char msg[4400];

	snprintf(msg, sizeof(msg), "%s; %s:\n%s", what, c->log, tail);
	free(log);
	fail(h, "%s", msg);
}

bool
harness_exited(struct harness *h, pid_t pid, int *code)
{
	struct harness_child *c = child_of(h, pid);
	int status;

	if (!c->exited) {
		pid_t r = wait4(pid, &status, WNOHANG, &c->ru);
		if (r < 0)
			fail(h, "harness: waitpid %d: %s", (int)pid,
			     strerror(errno));
		if (r == 0)
			return false;
		c->exited = true;
		c->status = exit_code(status);
	}
	if (code)
		*code = c->status;
	return true;
}

void
harness_wait_log(struct harness *h, pid_t pid, const char *text, int n)
{
	struct harness_child *c = child_of(h, pid);
	const uint64_t end = now_ms() + h->ready_ms;
	char what[512];
	int code;

	for (;;) {
		/* Checked before the log: what it wrote before it exited
		 * counts. */
		bool gone = harness_exited(h, pid, &code);
		char *log = slurp(h, c->log);
		int found = count_text(log, text);
		free(log);
		if (found >= n)
			return;
		if (gone) {
			snprintf(what, sizeof(what),
				 "barod exited (status %d) before it logged "
				 "'%s' %d time(s)", code, text, n);
			fail_with_log(h, c, what);
		}
		if (now_ms() >= end) {
			snprintf(what, sizeof(what),
				 "barod did not log '%s' %d time(s) within "
				 "%u ms", text, n, h->ready_ms);
			fail_with_log(h, c, what);
		}
		sleep_ms(POLL_MS);
	}
}

void
harness_wait_ready(struct harness *h, pid_t pid)
{
	harness_wait_log(h, pid, HARNESS_READY_TEXT, 1);
}

pid_t
harness_start(struct harness *h, const char *log_name,
	      const char *const *args)
{
	for (size_t i = 0; args[i]; i++) {
		/* -q hides the NOTICE line start-up is judged by. */
		if (!strcmp(args[i], "-q") || !strcmp(args[i], "--quiet"))
			fail(h, "harness: barod -q never says it is ready; "
				"start it without -q");
	}
	pid_t pid = harness_spawn(h, log_name, args);
	harness_wait_ready(h, pid);
	return pid;
}

int
harness_wait_exit(struct harness *h, pid_t pid, struct rusage *ru)
{
	struct harness_child *c = child_of(h, pid);
	int status;

	if (!c->exited) {
		pid_t r;
		while ((r = wait4(pid, &status, 0, &c->ru)) < 0 &&
		       errno == EINTR)
			;
		if (r != pid)
			fail(h, "harness: waitpid %d: %s", (int)pid,
			     strerror(errno));
		c->status = exit_code(status);
	}
	if (ru)
		*ru = c->ru;
	c->exited = c->waited = true;
	return c->status;
}

int
harness_wait_first_exit(struct harness *h, const pid_t *pids, int n,
			unsigned ms, int *code)
{
	const uint64_t end = now_ms() + ms;

	for (;;) {
		for (int k = 0; k < n; k++) {
			if (harness_exited(h, pids[k], code)) {
				harness_wait_exit(h, pids[k], NULL);
				return k;
			}
		}
		if (now_ms() >= end)
			return -1;
		sleep_ms(POLL_MS);
	}
}

int
harness_stop(struct harness *h, pid_t pid, struct rusage *ru)
{
	if (!child_of(h, pid)->exited)
		kill(pid, SIGTERM);
	return harness_wait_exit(h, pid, ru);
}

int
harness_kill(struct harness *h, pid_t pid)
{
	if (!child_of(h, pid)->exited)
		kill(pid, SIGKILL);
	return harness_wait_exit(h, pid, NULL);
}

/* Bound to 127.0.0.1:port (0: any), or -1. */
static int
bound_socket(int type, unsigned port, unsigned *got)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		close(fd);
		return -1;
	}
	*got = ntohs(sa.sin_port);
	return fd;
}

unsigned
harness_free_port(struct harness *h, int type, bool pair)
{
	for (int tries = 0; tries < 50; tries++) {
		unsigned port, next;
		int fd = bound_socket(type, 0, &port);
		if (fd < 0)
			fail(h, "harness: bind to a free port: %s",
			     strerror(errno));
		if (!pair) {
			close(fd);
			return port;
		}
		/* Both held at once, so the second is not the first. */
		int fd2 = port < 65535 ? bound_socket(type, port + 1, &next)
				       : -1;
		close(fd);
		if (fd2 >= 0) {
			close(fd2);
			return port;
		}
	}
	fail(h, "harness: no two free consecutive %s ports",
	     type == SOCK_STREAM ? "TCP" : "UDP");
}

const char *
harness_node_peer_missing(char *why, size_t len)
{
	const char *modules = getenv("MAVLINK_PEER_MODULES");
	const char *script = getenv("MAVLINK_PEER");
	char path[1024];
	struct stat st;

	if (!script || !*script || !modules || !*modules) {
		snprintf(why, len, "MAVLINK_PEER and MAVLINK_PEER_MODULES "
			 "are not set (meson test sets them)");
		return why;
	}
	snprintf(path, sizeof(path), "%s/node-mavlink/package.json", modules);
	if (stat(path, &st) < 0) {
		snprintf(why, len, "node-mavlink is not installed (%s: %s); "
			 "'npm ci --prefix tests/harness/node-mavlink' or './dev deps' "
			 "installs it", path, strerror(errno));
		return why;
	}
	/* node itself, as the tests run it: through PATH. */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execlp("node", "node", "--version", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, len, "'node --version' does not run (status %d):"
			 " install nodejs (./dev deps does)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return why;
	}
	return NULL;
}

bool
harness_node_peer_skip(struct harness *h)
{
	const char *required = getenv("MAVLINK_PEER_REQUIRED");
	char why[1200];

	if (!harness_node_peer_missing(why, sizeof(why)))
		return false;
	if (required && !strcmp(required, "1"))
		fail(h, "node-mavlink is required (-Dnode_peer=enabled): %s",
		     why);
	fprintf(stderr, "skipped, needs node-mavlink: %s\n", why);
	return true;
}

int
harness_dial_tcp(unsigned port, int tries)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const int one = 1;

	for (int k = 0; k < tries; k++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			return fd;
		}
		close(fd);
		usleep(10000);
	}
	return -1;
}
