/* SPDX-License-Identifier: GPL-3.0-or-later */
/* File helpers for the tests that run programs: feed them input from a
 * file, read back what they wrote. */
#ifndef BAROD_TEST_FILES_H
#define BAROD_TEST_FILES_H

#include <stdlib.h>
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

static inline int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
