// SPDX-License-Identifier: GPL-3.0-or-later
/* Files written whole or not at all (src/common/util-atomic-file.c). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-util.h"
#include "test-files.h"
#include "util-atomic-file.h"

static void
test_commit_and_abort(void **state)
{
	(void)state;
	char dir[256], path[300], link[300], err[512];
	struct atomic_file af;
	temp_dir_make(dir, sizeof(dir), "atomic");
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	snprintf(link, sizeof(link), "%s/link.txt", dir);

	/* A new file appears only at the commit. */
	FILE *f = atomic_file_open(&af, path, err, sizeof(err));
	assert_non_null(f);
	fputs("one\n", f);
	struct stat st;
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(dir_entries(dir), 1);	/* the temporary file */
	assert_int_equal(atomic_file_commit(&af, err, sizeof(err)), 0);
	char *text = read_file(path);
	assert_string_equal(text, "one\n");
	free(text);
	assert_int_equal(dir_entries(dir), 1);

	/* An abort leaves the old content and nothing else. */
	assert_int_equal(chmod(path, 0604), 0);
	f = atomic_file_open(&af, path, err, sizeof(err));
	assert_non_null(f);
	fputs("half", f);
	atomic_file_abort(&af);
	text = read_file(path);
	assert_string_equal(text, "one\n");
	free(text);
	assert_int_equal(dir_entries(dir), 1);

	/* Through a link: the file it names is replaced, the link stays,
	 * the permissions too. */
	assert_int_equal(symlink("out.txt", link), 0);
	f = atomic_file_open(&af, link, err, sizeof(err));
	assert_non_null(f);
	fputs("two\n", f);
	assert_int_equal(atomic_file_commit(&af, err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0604);
	text = read_file(path);
	assert_string_equal(text, "two\n");
	free(text);
	assert_int_equal(dir_entries(dir), 2);

	/* Not a regular file: written in place, nothing renamed over it. */
	f = atomic_file_open(&af, "/dev/null", err, sizeof(err));
	assert_non_null(f);
	fputs("gone\n", f);
	assert_int_equal(atomic_file_commit(&af, err, sizeof(err)), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* A directory that is not there: an error naming the target. */
	char bad[400];
	snprintf(bad, sizeof(bad), "%s/nodir/x.txt", dir);
	assert_null(atomic_file_open(&af, bad, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "nodir/x.txt: No such file or directory"));
	assert_int_equal(temp_dir_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_and_abort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
