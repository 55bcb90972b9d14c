/* SPDX-License-Identifier: GPL-3.0-or-later */
/* File helpers for the tests that run programs: feed them input from a
 * file, read back what they wrote. */
#ifndef BAROD_TEST_FILES_H
#define BAROD_TEST_FILES_H

#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-util.h"

/* Everything in fd from its start, NUL-terminated; closes fd. */
static inline char *
slurp_fd(int fd)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	lseek(fd, 0, SEEK_SET);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		assert_true(r >= 0);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* An unlinked temporary file holding content (may be NULL), at offset 0. */
static inline int
temp_fd(const char *content)
{
	char path[] = "/tmp/barod-test-file-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	if (content) {
		size_t len = strlen(content);
		assert_int_equal(write(fd, content, len), (ssize_t)len);
		lseek(fd, 0, SEEK_SET);
	}
	return fd;
}

static inline void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static inline char *
read_file(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	return slurp_fd(fd);
}

/* dir/leaf whole, NUL-terminated, or NULL when it is not there. */
static inline char *
read_in(const char *dir, const char *leaf)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	int fd = open(path, O_RDONLY);
	return fd < 0 ? NULL : slurp_fd(fd);
}

/* A failure naming each process whose command line holds marker (a
 * run's own directory: a machine may run a test twice at once, in two
 * roots that share /proc) and one of names (NULL-terminated), and not
 * except (may be NULL). */
static inline void
assert_none_running(const char *marker, const char *const *names,
		    const char *except)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], cmd[4096];
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
		for (size_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = '\0';
		bool named = false;
		for (size_t i = 0; names[i] && !named; i++)
			named = strstr(cmd, names[i]) != NULL;
		if (named && strstr(cmd, marker) &&
		    !(except && strstr(cmd, except)))
			fail_msg("left running: pid %s: %s", e->d_name, cmd);
	}
	closedir(d);
}

/* A UDP socket on 127.0.0.1 with an ephemeral port (type may add
 * SOCK_NONBLOCK). */
static inline int
udp_loopback(unsigned *port, int type)
{
	int fd = socket(AF_INET, SOCK_DGRAM | type, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A non-blocking TCP listener on 127.0.0.1:*port (0: an ephemeral
 * port), the port it got back in *port; rcvbuf > 0 sets its receive
 * buffer (small, to make a stalled reader fill up fast). */
/* This process, and what it starts from now on, in a network namespace
 * of its own with its loopback up, where it may make one: a fixed port
 * such as MAVLink's 14550 is then this test's alone, whatever else runs
 * on the machine (CI runs two clean roots at once, each with barods
 * sending there).  False, and nothing changed, without the privilege. */
static inline bool
own_loopback(void)
{
	struct ifreq ifr;

	if (unshare(CLONE_NEWNET) != 0)
		return false;
	/* A namespace whose loopback stays down would fail every test
	 * after this one in a way that names nothing: fail here. */
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	assert_int_equal(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
	return true;
}

static inline int
tcp_loopback(unsigned *port, int rcvbuf)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)*port) };
	socklen_t len = sizeof(sa);
	int one = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A socket standing in for systemd's at path (len bytes, made here from
 * the pid): NOTIFY_SOCKET names it for this process and the programs it
 * starts.  Close the fd and unlink path when done. */
static inline int
notify_socket_open(char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(path, len, "/tmp/barod-notify-%d", (int)getpid());
	assert_true(fd >= 0 && strlen(path) < sizeof(sa.sun_path));
	unlink(path);
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	return fd;
}

/* The first datagram on a notify socket holding want, read within
 * timeout_ms (others before it are skipped); NULL if none came. */
static inline const char *
notify_socket_wait(int fd, const char *want, char *buf, size_t len,
		   int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, timeout_ms) == 1) {
		ssize_t r = recv(fd, buf, len - 1, MSG_DONTWAIT);
		if (r < 0)
			continue;
		buf[r] = '\0';
		if (strstr(buf, want))
			return buf;
	}
	return NULL;
}

/* A fresh directory /tmp/PREFIX-XXXXXX in dir (len bytes). */
static inline void
temp_dir_make(char *dir, size_t len, const char *prefix)
{
	int n = snprintf(dir, len, "/tmp/%s-XXXXXX", prefix);

	assert_true(n > 0 && (size_t)n < len);
	assert_non_null(mkdtemp(dir));
}

/* Remove it and everything in it; 0 or -1, as a cmocka teardown wants. */
static inline int
temp_dir_remove(const char *dir)
{
	char cmd[512];
	int n = snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);

	if (n <= 0 || (size_t)n >= sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

/* How many entries dir holds besides . and ..: what a command left. */
static inline int
dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static inline int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct program_result {
	int status;	/* exit status; -1 when it died of a signal, 127 when
			 * it could not be run */
	char *out;
	char *err;
};

/*
 * Run path (looked up in PATH when it has no '/') with argv (argv[0]
 * included, NULL-terminated) and input on stdin (NULL: empty); collect
 * its exit status, stdout and stderr.
 */
static inline struct program_result
run_program(const char *path, const char *const *argv, const char *input)
{
	struct program_result r;
	int in = temp_fd(input ? input : "");
	int out = temp_fd(NULL), err = temp_fd(NULL);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execvp(path, (char *const *)argv);
		_exit(127);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(in);
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r.out = slurp_fd(out);
	r.err = slurp_fd(err);
	return r;
}

static inline void
program_result_free(struct program_result *r)
{
	free(r->out);
	free(r->err);
}

/* cmdline run by the shell (its words split there), stdout into out
 * (len bytes, NUL-terminated, the rest dropped): its exit status, -1
 * when a signal ended it.  Add 2>&1 to the line for stderr too. */
static inline int
run_shell(const char *cmdline, char *out, size_t len)
{
	FILE *p = popen(cmdline, "r");

	assert_non_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	/* The rest, so the command never blocks on a full pipe. */
	for (char sink[512]; fread(sink, 1, sizeof(sink), p) > 0;)
		;
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
