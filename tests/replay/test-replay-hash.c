// SPDX-License-Identifier: GPL-3.0-or-later
/* run.json's hashes: SHA-256 as sha256sum prints it, of a text and of a
 * file read in blocks, a 100 MB log costing no more memory than a small
 * one. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "replay-hash.h"
#include "test-files.h"

/* FIPS 180-2's examples. */
static const char abc_hex[] =
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char empty_hex[] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void
test_text(void **state)
{
	char hex[REPLAY_SHA256_HEX], err[128];

	(void)state;
	assert_int_equal(replay_sha256_text("abc", 3, hex, err, sizeof(err)), 0);
	assert_string_equal(hex, abc_hex);
	assert_int_equal(replay_sha256_text("", 0, hex, err, sizeof(err)), 0);
	assert_string_equal(hex, empty_hex);
}

static void
test_file(void **state)
{
	char dir[256], path[320], hex[REPLAY_SHA256_HEX], err[512];
	uint64_t size = 1;

	(void)state;
	temp_dir_make(dir, sizeof(dir), "replay-hash");
	snprintf(path, sizeof(path), "%s/abc", dir);
	write_file(path, "abc");
	assert_int_equal(replay_sha256_file(path, &size, hex, err,
					    sizeof(err)), 0);
	assert_string_equal(hex, abc_hex);
	assert_int_equal(size, 3);
	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "");
	assert_int_equal(replay_sha256_file(path, &size, hex, err,
					    sizeof(err)), 0);
	assert_string_equal(hex, empty_hex);
	assert_int_equal(size, 0);

	/* Missing: the path and the reason, one line. */
	snprintf(path, sizeof(path), "%s/nothing", dir);
	assert_int_equal(replay_sha256_file(path, &size, hex, err,
					    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(temp_dir_remove(dir), 0);
}

/* 100 MB of zeros (a sparse file): the hash sha256sum gives, and the
 * process's peak memory grows by far less than the file. */
static void
test_large_file_streams(void **state)
{
	char dir[256], path[320], hex[REPLAY_SHA256_HEX], err[512], cmd[400];
	char want[128] = "";
	uint64_t size = 0;
	const off_t len = 100 * 1000 * 1000;
	struct rusage before, after;

	(void)state;
	temp_dir_make(dir, sizeof(dir), "replay-hash-big");
	snprintf(path, sizeof(path), "%s/big.bin", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, len), 0);
	assert_int_equal(close(fd), 0);
	getrusage(RUSAGE_SELF, &before);
	assert_int_equal(replay_sha256_file(path, &size, hex, err,
					    sizeof(err)), 0);
	getrusage(RUSAGE_SELF, &after);
	assert_int_equal(size, (uint64_t)len);
	/* ru_maxrss is in KiB: a few MB of slack for the allocator. */
	assert_true(after.ru_maxrss - before.ru_maxrss < 8 * 1024);
	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	assert_int_equal(run_shell(cmd, want, sizeof(want)), 0);
	want[64] = '\0';
	assert_string_equal(hex, want);
	assert_int_equal(temp_dir_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_large_file_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
