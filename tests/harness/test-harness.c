/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The harness itself, with sh scripts standing in for barod: ready when
 * the "running: " line comes, a clear failure naming the log when the
 * program exits first or never says it, exit codes and signals, the
 * first of two to exit, free ports, and the directory removed at the end.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness-cmocka.h"

static struct harness harness;

/* A failure the harness reports: kept, and back to the test. */
static char failure[8192];
static jmp_buf failed;

static void
catch_failure(const char *msg)
{
	snprintf(failure, sizeof(failure), "%s", msg);
	longjmp(failed, 1);
}

/* harness_start(args), which must fail: what it said ("" if it did
 * not fail). */
static const char *
start_fails(const char *const *args)
{
	harness.fail = catch_failure;
	failure[0] = '\0';
	if (!setjmp(failed))
		harness_start(&harness, "sh.log", args);
	harness.fail = test_fail;
	return failure;
}

static pid_t
start_sh(const char *script, bool wait_ready)
{
	const char *args[] = { "-c", script, NULL };

	return wait_ready ? harness_start(&harness, "sh.log", args)
			  : harness_spawn(&harness, "sh.log", args);
}

static void
test_ready_then_stop(void **state)
{
	(void)state;
	pid_t pid = start_sh("echo 'barod: starting'; sleep 0.2; "
			     "echo 'barod: running: 1 simulated baro(s)'; "
			     "exec sleep 30", true);
	char *log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "running: 1 simulated"));
	free(log);
	assert_false(harness_exited(&harness, pid, NULL));
	/* sleep ends on SIGTERM: 128 + 15. */
	assert_int_equal(harness_stop(&harness, pid, NULL), 128 + SIGTERM);
	/* Its log stays readable after it is waited for. */
	log = harness_log(&harness, pid);
	assert_non_null(strstr(log, "barod: starting"));
	free(log);
}

static void
test_exit_before_ready_fails(void **state)
{
	(void)state;
	start_fails((const char *[]){
		"-c", "echo 'barod: bad.conf:3: syntax error' >&2; exit 2",
		NULL });
	assert_non_null(strstr(failure, "exited (status 2) before it logged "
					"'running: '"));
	/* What it said, so the test's failure explains itself. */
	assert_non_null(strstr(failure, "bad.conf:3: syntax error"));
	assert_non_null(strstr(failure, "/sh.log"));
}

static void
test_never_ready_times_out(void **state)
{
	(void)state;
	const unsigned saved = harness.ready_ms;
	harness.ready_ms = 300;
	start_fails((const char *[]){
		"-c", "echo 'barod: waiting'; exec sleep 30", NULL });
	harness.ready_ms = saved;
	assert_non_null(strstr(failure, "did not log 'running: ' 1 time(s) "
					"within 300 ms"));
	assert_non_null(strstr(failure, "barod: waiting"));
	/* The teardown kills what is left. */
}

static void
test_quiet_refused(void **state)
{
	(void)state;
	assert_non_null(strstr(start_fails((const char *[]){ "--sim", "-q",
							     NULL }),
			       "-q never says it is ready"));
}

static void
test_exit_codes(void **state)
{
	(void)state;
	pid_t p[2];
	int code = -1;

	p[0] = start_sh("exec sleep 30", false);
	p[1] = start_sh("sleep 0.1; exit 3", false);
	assert_int_equal(harness_wait_first_exit(&harness, p, 2, 10000, &code),
			 1);
	assert_int_equal(code, 3);
	assert_int_equal(harness_kill(&harness, p[0]), 128 + SIGKILL);
	/* Nothing ends within 100 ms: -1. */
	p[0] = start_sh("exec sleep 30", false);
	assert_int_equal(harness_wait_first_exit(&harness, p, 1, 100, &code),
			 -1);
	assert_int_equal(harness_kill(&harness, p[0]), 128 + SIGKILL);
}

static void
test_wait_log_counts(void **state)
{
	(void)state;
	pid_t pid = start_sh("for i in 1 2 3; do echo tick; sleep 0.05; done;"
			     " exec sleep 30", false);
	harness_wait_log(&harness, pid, "tick", 3);
	assert_int_equal(harness_kill(&harness, pid), 128 + SIGKILL);
}

/* Free means bindable: barod would bind it next. */
static void
test_free_ports(void **state)
{
	(void)state;
	const int types[] = { SOCK_DGRAM, SOCK_STREAM };

	for (int t = 0; t < 2; t++) {
		for (int pair = 0; pair < 2; pair++) {
			unsigned port = harness_free_port(&harness, types[t],
							  pair);
			for (int k = 0; k <= pair; k++) {
				int fd = socket(AF_INET, types[t], 0);
				struct sockaddr_in sa = {
					.sin_family = AF_INET,
					.sin_port = htons((uint16_t)(port + k)),
					.sin_addr.s_addr =
						htonl(INADDR_LOOPBACK) };
				assert_true(port > 0);
				assert_int_equal(bind(fd, (struct sockaddr *)&sa,
						      sizeof(sa)), 0);
				close(fd);
			}
		}
	}
}

static void
test_fini_removes_dir(void **state)
{
	struct harness h;
	char path[512], dir[256];
	struct stat st;

	(void)state;
	assert_int_equal(harness_init(&h, "harness-fini", "/bin/sh",
				      test_fail), 0);
	snprintf(dir, sizeof(dir), "%s", h.dir);
	harness_write(&h, path, sizeof(path), "barod.conf", "[barod]\n%s\n",
		      "source = sim");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(harness_fini(&h), 0);
	assert_int_equal(stat(dir, &st), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		harness_unit_test(test_ready_then_stop, &harness),
		harness_unit_test(test_exit_before_ready_fails, &harness),
		harness_unit_test(test_never_ready_times_out, &harness),
		harness_unit_test(test_quiet_refused, &harness),
		harness_unit_test(test_exit_codes, &harness),
		harness_unit_test(test_wait_log_counts, &harness),
		harness_unit_test(test_free_ports, &harness),
		harness_unit_test(test_fini_removes_dir, &harness),
	};

	/* sh stands in for barod. */
	setenv("BAROD", "/bin/sh", 1);
	return harness_run_tests(&harness, "harness-test", tests);
}
