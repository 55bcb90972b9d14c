/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * baroctl's own argument checks, run as the built binary: usage errors are
 * rc 2 with one line naming what was wrong, and never reach the socket
 * (a listening socket here counts every connection); --help and
 * --version need no daemon.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "px4-failure.h"
#include "test-files.h"
#include "test-util.h"

static char dir[256];
static char sock[300];
static int listen_fd = -1;

static struct program_result
run(const char *const *args)
{
	const char *bin = getenv("BAROCTL");
	const char *argv[16] = { "baroctl" };
	int n = 1;

	assert_non_null(bin);
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	return run_program(bin, argv, NULL);
}

/* Connections baroctl made to the test's socket since the last call. */
static int
connections(void)
{
	int n = 0, fd;

	while ((fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
		close(fd);
		n++;
	}
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	return n;
}

static void
expect_usage(const char *const *args, const char *msg)
{
	struct program_result r = run(args);

	if (r.status != 2 || !strstr(r.err, msg) || count_lines(r.err) != 1 ||
	    r.out[0] != '\0')
		fail_msg("baroctl %s ...: status %d, stdout '%s', stderr '%s', "
			 "expected one line with '%s'",
			 args[0], r.status, r.out, r.err, msg);
	program_result_free(&r);
	assert_int_equal(connections(), 0);
}

static void
test_usage_errors(void **state)
{
	(void)state;
	expect_usage((const char *[]){ "-s", sock, "--frobnicate", NULL },
		     "unknown option '--frobnicate' (see --help)");
	expect_usage((const char *[]){ "-s", sock, "-x", "status", NULL },
		     "unknown option '-x' (see --help)");
	expect_usage((const char *[]){ "-s", NULL }, "option '-s' needs a value");
	expect_usage((const char *[]){ "-s", sock, NULL }, "no command");
	expect_usage((const char *[]){ "-s", sock, "set", "SIM_BARO_GLITCH",
				       NULL },
		     "set: expected 'set NAME VALUE'");
	expect_usage((const char *[]){ "-s", sock, "set", "A", "1", "2", NULL },
		     "set: expected 'set NAME VALUE'");
	expect_usage((const char *[]){ "-s", sock, "status", "now", NULL },
		     "status: expected 'status'");
	expect_usage((const char *[]){ "-s", sock, "get", "A", "B", NULL },
		     "get: expected 'get [NAME]'");
	expect_usage((const char *[]){ "-s", sock, "inject", "stuck", NULL },
		     "inject: expected 'inject TYPE INSTANCE [VALUE]'");
	expect_usage((const char *[]){ "-s", sock, "scenario", NULL },
		     "expected 'scenario load FILE' or 'scenario stop'");
	expect_usage((const char *[]){ "-s", sock, "scenario", "load", NULL },
		     "scenario: expected 'scenario load FILE'");
	expect_usage((const char *[]){ "-s", sock, "scenario", "stop", "x",
				       NULL },
		     "scenario: expected 'scenario stop'");
	expect_usage((const char *[]){ "-s", sock, "stauts", NULL },
		     "unknown command 'stauts' (did you mean status?");
	expect_usage((const char *[]){ "-s", sock, "frobnicate", NULL },
		     "unknown command 'frobnicate' (status, get, set, inject, "
		     "scenario");
}

/* Answer one connection as barod would: "ok " and the line received. */
static pid_t
echo_once(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid > 0)
		return pid;
	struct pollfd p = { listen_fd, POLLIN, 0 };
	if (poll(&p, 1, 10000) != 1)
		_exit(1);
	int fd = accept(listen_fd, NULL, NULL);
	char line[1100] = "ok ";
	size_t n = 3;
	while (fd >= 0 && n < sizeof(line) - 1 && !memchr(line + 3, '\n', n - 3)) {
		ssize_t r = read(fd, line + n, sizeof(line) - 1 - n);
		if (r <= 0)
			_exit(1);
		n += (size_t)r;
	}
	_exit(write(fd, line, n) == (ssize_t)n ? 0 : 1);
}

/* Well-formed commands reach the socket as one line; negative values
 * after the command are arguments, not options. */
static void
test_valid_commands_connect(void **state)
{
	(void)state;
	const char *const cmds[][6] = {
		{ "-s", sock, "status", NULL },
		{ "--socket", sock, "get", NULL },
		{ "-s", sock, "set", "SIM_BARO_GLITCH", "-5", NULL },
		{ "-s", sock, "inject", "wrong", "0", "-5" },
	};
	const char *lines[] = { "status\n", "get\n", "set SIM_BARO_GLITCH -5\n",
				"inject wrong 0 -5\n" };
	for (size_t i = 0; i < 4; i++) {
		const char *args[7] = { 0 };
		int status;
		memcpy(args, cmds[i], sizeof(cmds[i]));
		pid_t server = echo_once();
		struct program_result r = run(args);
		assert_int_equal(waitpid(server, &status, 0), server);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, lines[i]);
		program_result_free(&r);
	}
}

static void
test_help_and_version_without_daemon(void **state)
{
	(void)state;
	struct program_result r = run((const char *[]){
		"-s", "/nonexistent/control", "--version", NULL });
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "baroctl " BAROD_VERSION "\n");
	assert_string_equal(r.err, "");
	program_result_free(&r);

	r = run((const char *[]){ "-V", NULL });
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "baroctl " BAROD_VERSION "\n");
	program_result_free(&r);

	r = run((const char *[]){ "--help", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: baroctl"));
	assert_string_equal(r.err, "");
	program_result_free(&r);
	assert_int_equal(connections(), 0);
}

/* --help lists the types inject takes as barod's table has them
 * (px4-failure.h), a line break and its indent standing for a space. */
static void
test_help_lists_px4_types(void **state)
{
	static const char intro[] = "PX4-style fault (";
	char names[128], listed[256];
	size_t n = 0;
	(void)state;

	struct program_result r = run((const char *[]){ "--help", NULL });
	assert_int_equal(r.status, 0);
	const char *from = strstr(r.out, intro);
	assert_non_null(from);
	from += strlen(intro);
	const char *to = strchr(from, ')');
	assert_non_null(to);
	for (const char *c = from; c < to && n + 1 < sizeof(listed); c++) {
		if (*c != '\n') {
			listed[n++] = *c;
			continue;
		}
		listed[n++] = ' ';
		while (c + 1 < to && c[1] == ' ')
			c++;
	}
	listed[n] = '\0';
	px4_failure_names(names, sizeof(names), " ");
	assert_string_equal(listed, names);
	program_result_free(&r);
}

/* keygen writes SHA-256 of the passphrase (what MAVProxy's "signing
 * setup secret" uses; the value below is sha256sum's), owner-only, and
 * never over an existing file or from an empty passphrase. */
static void
test_keygen(void **state)
{
	static const uint8_t want[32] = {
		0x2b, 0xb8, 0x0d, 0x53, 0x7b, 0x1d, 0xa3, 0xe3, 0x8b, 0xd3, 0x03,
		0x61, 0xaa, 0x85, 0x56, 0x86, 0xbd, 0xe0, 0xea, 0xcd, 0x71, 0x62,
		0xfe, 0xf6, 0xa2, 0x5f, 0xe9, 0x7b, 0xf5, 0x27, 0xa2, 0x5b,
	};
	const char *bin = getenv("BAROCTL");
	char key[320];
	struct stat st;
	uint8_t got[64];
	(void)state;

	snprintf(key, sizeof(key), "%s/signing.key", dir);
	struct program_result r = run_program(
		bin, (const char *[]){ "baroctl", "keygen", key, NULL },
		"secret\n");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "signing_key = "));
	program_result_free(&r);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	FILE *fp = fopen(key, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(got, 1, sizeof(got), fp), 32);
	fclose(fp);
	assert_memory_equal(got, want, 32);

	/* Not over a key that exists: it stays as it was. */
	r = run_program(bin, (const char *[]){ "baroctl", "keygen", key, NULL },
			"other\n");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "not overwritten"));
	program_result_free(&r);
	fp = fopen(key, "rb");
	assert_int_equal(fread(got, 1, sizeof(got), fp), 32);
	fclose(fp);
	assert_memory_equal(got, want, 32);
	unlink(key);

	/* No passphrase: nothing written. */
	r = run_program(bin, (const char *[]){ "baroctl", "keygen", key, NULL },
			"");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no passphrase"));
	program_result_free(&r);
	r = run_program(bin, (const char *[]){ "baroctl", "keygen", key, NULL },
			"\n");
	assert_int_equal(r.status, 2);
	program_result_free(&r);
	assert_int_not_equal(access(key, F_OK), 0);
	expect_usage((const char *[]){ "keygen", NULL }, "keygen FILE");
	assert_int_equal(connections(), 0);
}

static int
setup(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	(void)state;

	temp_dir_make(dir, sizeof(dir), "baroctl-cli");
	snprintf(sock, sizeof(sock), "%s/control", dir);
	strcpy(sa.sun_path, sock);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(listen_fd >= 0);
	assert_int_equal(bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)),
			 0);
	assert_int_equal(listen(listen_fd, 16), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	close(listen_fd);
	return temp_dir_remove(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_valid_commands_connect),
		cmocka_unit_test(test_help_and_version_without_daemon),
		cmocka_unit_test(test_help_lists_px4_types),
		cmocka_unit_test(test_keygen),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
