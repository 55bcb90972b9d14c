/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole-or-nothing output files: the old file survives until commit, an
 * abort or a failed open leaves nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "test-files.h"
#include "test-util.h"
#include "util-atomic-file.h"

static char dir[256];

static int
entries(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		n += e->d_name[0] != '.' || (e->d_name[1] != '\0' &&
					      strcmp(e->d_name, "..") != 0);
	closedir(dp);
	return n;
}

static void
test_commit_replaces(void **state)
{
	char path[512], err[256];
	struct atomic_file af;
	struct stat st;
	(void)state;

	snprintf(path, sizeof(path), "%s/out.csv", dir);
	write_file(path, "old\n");
	assert_int_equal(atomic_file_open(&af, path, err, sizeof(err)), 0);
	fputs("new\n", af.f);
	char *t = read_file(path);
	assert_string_equal(t, "old\n");
	free(t);
	assert_int_equal(entries(), 2);
	assert_int_equal(atomic_file_commit(&af, err, sizeof(err)), 0);
	t = read_file(path);
	assert_string_equal(t, "new\n");
	free(t);
	assert_int_equal(entries(), 1);
	/* The mode fopen() would have given, not mkstemp's 0600. */
	mode_t mask = umask(0);
	umask(mask);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
	unlink(path);
}

static void
test_abort_leaves_nothing(void **state)
{
	char path[512], err[256];
	struct atomic_file af;
	(void)state;

	snprintf(path, sizeof(path), "%s/keep.csv", dir);
	write_file(path, "keep\n");
	assert_int_equal(atomic_file_open(&af, path, err, sizeof(err)), 0);
	fputs("half", af.f);
	atomic_file_abort(&af);
	atomic_file_abort(&af);
	char *t = read_file(path);
	assert_string_equal(t, "keep\n");
	free(t);
	assert_int_equal(entries(), 1);
	unlink(path);

	/* Aborted before any file existed: still none. */
	assert_int_equal(atomic_file_open(&af, path, err, sizeof(err)), 0);
	atomic_file_abort(&af);
	assert_int_equal(entries(), 0);
}

static void
test_open_errors(void **state)
{
	char path[512], err[256];
	struct atomic_file af;
	(void)state;

	snprintf(path, sizeof(path), "%s/no/such/dir.csv", dir);
	assert_int_equal(atomic_file_open(&af, path, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no/such/dir.csv: No such file"));
	assert_int_equal(atomic_file_open(&af, "/tmp/", err, sizeof(err)),
			 -EISDIR);
	assert_non_null(strstr(err, "not a file name"));
	assert_int_equal(atomic_file_commit(&af, err, sizeof(err)), -EBADF);
	assert_int_equal(entries(), 0);
}

/* A rename that fails (the name is a directory) removes the temporary
 * file and keeps what was there. */
static void
test_commit_failure(void **state)
{
	char path[512], inner[600], err[256];
	struct atomic_file af;
	(void)state;

	snprintf(path, sizeof(path), "%s/taken", dir);
	snprintf(inner, sizeof(inner), "%s/x", path);
	assert_int_equal(mkdir(path, 0700), 0);
	write_file(inner, "x");
	assert_int_equal(atomic_file_open(&af, path, err, sizeof(err)), 0);
	fputs("data\n", af.f);
	assert_true(atomic_file_commit(&af, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "taken: "));
	assert_int_equal(entries(), 1);
	unlink(inner);
	rmdir(path);
}

static int
setup(void **state)
{
	(void)state;
	temp_dir_make(dir, sizeof(dir), "atomic-file");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return temp_dir_remove(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_replaces),
		cmocka_unit_test(test_abort_leaves_nothing),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_commit_failure),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
