/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "control.h"

#include "util-strings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The fallback when neither systemd nor a login session gives barod a
 * runtime directory and /run/barod cannot be made: a directory of this
 * user's that nobody else can enter (as tmux does), so that no other user
 * can put a socket of theirs in barod's place or connect to it. */
static int
private_dir(const char *dir, bool create, char *err, size_t errlen)
{
	struct stat st;

	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return str_errorf(err, errlen, -errno, "%s: %s", dir,
				  strerror(errno));
	if (lstat(dir, &st) < 0)
		return str_errorf(err, errlen, -errno, "%s: %s", dir,
				  strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		return str_errorf(err, errlen, -EPERM,
				  "%s: not a directory of uid %u with mode "
				  "0700; not putting the socket there",
				  dir, (unsigned)getuid());
	return 0;
}

static bool
is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

int
control_default_path(char *buf, size_t len, bool create, char *err,
		     size_t errlen)
{
	const char *rt = getenv("RUNTIME_DIRECTORY");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	const char *tmp = getenv("TMPDIR");
	char dir[108];

	if (!tmp || !*tmp)
		tmp = "/tmp";
	int n;

	if (rt && *rt)
		n = snprintf(buf, len, "%s/control", rt);
	else if (xdg && *xdg)
		n = snprintf(buf, len, "%s/barod.control", xdg);
	else
		n = -1;
	if (n >= 0)
		return (size_t)n < len ? 0
				       : str_errorf(err, errlen, -ENAMETOOLONG,
						    "%s: path too long", buf);

	n = snprintf(dir, sizeof(dir), "%s/barod-%u", tmp, (unsigned)getuid());
	bool have_tmp = n >= 0 && (size_t)n + sizeof("/control") <= sizeof(dir);
	snprintf(buf, len, "%s/control", CONTROL_RUN_DIR);
	if (!create) {
		char alt[sizeof(dir) + sizeof("/control")];
		snprintf(alt, sizeof(alt), "%s/control", dir);
		if (!is_socket(buf) && have_tmp && is_socket(alt))
			snprintf(buf, len, "%s", alt);
		return 0;
	}

	/* A development barod run as root: the service's directory, made
	 * as systemd's RuntimeDirectory= would. */
	if ((mkdir(CONTROL_RUN_DIR, 0755) == 0 || errno == EEXIST) &&
	    access(CONTROL_RUN_DIR, W_OK | X_OK) == 0)
		return 0;
	if (!have_tmp)
		return str_errorf(err, errlen, -ENAMETOOLONG,
				  "%s/barod-%u: path too long",
				  tmp, (unsigned)getuid());
	int rc = private_dir(dir, true, err, errlen);
	if (rc < 0)
		return rc;
	snprintf(buf, len, "%s/control", dir);
	return 0;
}

int
control_in_use(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	close(fd);
	if (rc == 0)
		return 1;
	/* Nobody listens on a socket a dead process left: refused.  A full
	 * backlog (EAGAIN) means someone does. */
	if (e == ECONNREFUSED)
		return 0;
	return e == EAGAIN ? 1 : -e;
}

static void
client_close(struct control_client *c)
{
	if (c->src.fd < 0)
		return;
	event_loop_remove(c->ctl->loop, &c->src);
	close(c->src.fd);
	c->src.fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	c->in_len = 0;
}

static void
client_flush(struct control_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->src.fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out_len) {
		free(c->out);
		c->out = NULL;
		c->out_len = c->out_off = 0;
		c->last_us = event_now_us();
	}
	(void)event_loop_modify(c->ctl->loop, &c->src,
				EPOLLIN | (c->out ? EPOLLOUT : 0u));
}

/* Queue reply bytes.  A client that does not read its replies is cut off
 * rather than letting its backlog grow without bound. */
static void
append_reply(struct control_client *c, const char *buf, size_t len)
{
	if (c->out_len - c->out_off + len > CONTROL_MAX_REPLY) {
		client_close(c);
		return;
	}
	char *grown = realloc(c->out, c->out_len + len);
	if (!grown) {
		client_close(c);
		return;
	}
	memcpy(grown + c->out_len, buf, len);
	c->out = grown;
	c->out_len += len;
	client_flush(c);
}

static void
run_line(struct control_client *c, const char *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out) {
		client_close(c);
		return;
	}
	c->ctl->command(c->ctl->user, line, out);
	fclose(out);
	append_reply(c, buf, len);
	free(buf);
}

static bool
client_line(void *user, const char *text)
{
	struct control_client *c = user;

	run_line(c, text);
	return c->src.fd >= 0;
}

static bool
client_refuse(void *user, const char *text, size_t len)
{
	struct control_client *c = user;

	append_reply(c, text, len);
	return c->src.fd >= 0;
}

static const struct control_line_ops client_lines = {
	.line = client_line,
	.refuse = client_refuse,
};

static void
on_client(struct event_source *src, uint32_t events, void *user)
{
	struct control_client *c = user;

	(void)src;
	if (events & EPOLLOUT)
		client_flush(c);
	if (c->src.fd < 0 || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;

	ssize_t n = recv(c->src.fd, c->in + c->in_len,
			 CONTROL_MAX_LINE - c->in_len, MSG_DONTWAIT);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		client_close(c);
		return;
	}
	c->in_len += (size_t)n;
	c->last_us = event_now_us();
	if (control_lines_take(c->in, &c->in_len, &client_lines, c) ==
	    CONTROL_LINES_TOO_LONG) {
		static const char msg[] = CONTROL_LINES_TOO_LONG_MSG;
		(void)send(c->src.fd, msg, sizeof(msg) - 1,
			   MSG_DONTWAIT | MSG_NOSIGNAL);
		client_close(c);
	}
}

static void
on_listen(struct event_source *src, uint32_t events, void *user)
{
	struct control *ctl = user;

	(void)events;
	int fd = accept4(src->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	const uint64_t now = event_now_us();
	struct control_client *c = NULL, *quiet = NULL;
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS && !c; i++) {
		struct control_client *k = &ctl->clients[i];
		if (k->src.fd < 0)
			c = k;
		else if (!k->out && now - k->last_us >= CONTROL_IDLE_US &&
			 (!quiet || k->last_us < quiet->last_us))
			quiet = k;
	}
	if (!c && quiet) {
		/* Clients that connect and never ask would otherwise lock
		 * baroctl out for good. */
		static const char bye[] =
			"error closed: quiet while another client waited\n";
		(void)send(quiet->src.fd, bye, sizeof(bye) - 1,
			   MSG_DONTWAIT | MSG_NOSIGNAL);
		client_close(quiet);
		c = quiet;
	}
	if (!c) {
		static const char msg[] = "error too many control clients\n";
		(void)send(fd, msg, sizeof(msg) - 1,
			   MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	c->src = (struct event_source){ .fd = fd, .cb = on_client, .user = c };
	c->ctl = ctl;
	c->last_us = now;
	if (event_loop_add(ctl->loop, &c->src, EPOLLIN) < 0) {
		close(fd);
		c->src.fd = -1;
	}
}

/* An exclusive flock on path's directory (no extra file to leave
 * behind), or -1 when it cannot be had. */
static int
lock_dir(const char *path)
{
	char dir[108];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Another barod holds it for a few syscalls; whoever else might
	 * lock the directory must not hang barod's start: give up after
	 * about a second. */
	for (int i = 0; i < 100; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK)
			break;
		nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
	}
	close(fd);
	return -1;
}

static void
unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* and with it the lock */
}

int
control_open(struct control *ctl, const char *path, unsigned mode,
	     struct event_loop *loop, control_command_cb command, void *user,
	     char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(ctl, 0, sizeof(*ctl));
	ctl->listen.fd = -1;
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
		ctl->clients[i].src.fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%.100s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	strcpy(ctl->path, path);
	ctl->loop = loop;
	ctl->command = command;
	ctl->user = user;

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "socket: %s", strerror(e));
		return -e;
	}
	/* Check, remove and bind under a lock on the directory, so two
	 * barods starting together cannot both find the socket stale and
	 * the second unlink the first's.  Best effort: a directory we
	 * cannot open goes unlocked. */
	int dir = lock_dir(path);
	/* A socket left by a crashed barod would block the bind, so it is
	 * removed; one a live process answers on is not (taking it over
	 * would cut that barod off from baroctl), nor any other kind of
	 * file. */
	int use = control_in_use(path);
	if (use == 1) {
		close(fd);
		unlock_dir(dir);
		snprintf(err, errlen, "%s: another barod is answering on this "
			 "control socket", path);
		return -EBUSY;
	}
	if (use == 0)
		unlink(path);
	/* The permissions apply from the moment the socket exists. */
	mode_t old = umask((mode_t)(0777 & ~mode));
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	umask(old);
	if (rc < 0 || listen(fd, 4) < 0) {
		e = rc < 0 ? e : errno;
		unlock_dir(dir);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	unlock_dir(dir);
	(void)chmod(path, (mode_t)mode);
	ctl->listen = (struct event_source){ .fd = fd, .cb = on_listen,
					     .user = ctl };
	return event_loop_add(loop, &ctl->listen, EPOLLIN);
}

void
control_close(struct control *ctl)
{
	for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		if (ctl->clients[i].src.fd >= 0)
			client_close(&ctl->clients[i]);
	}
	if (ctl->listen.fd >= 0) {
		event_loop_remove(ctl->loop, &ctl->listen);
		close(ctl->listen.fd);
		ctl->listen.fd = -1;
		unlink(ctl->path);
	}
}
