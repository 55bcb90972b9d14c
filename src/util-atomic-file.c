/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util-atomic-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util-strings.h"

static void
release(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	af->f = NULL;
}

int
atomic_file_open(struct atomic_file *af, const char *path, char *err,
		 size_t errlen)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;

	memset(af, 0, sizeof(*af));
	if (*base == '\0')
		return str_errorf(err, errlen, -EISDIR, "%s: not a file name",
				  path);
	/* A dot name, so a listing or a glob over the directory does not
	 * pick up a file still being written. */
	size_t len = dirlen + 1 + strlen(base) + 8;
	af->path = strdup(path);
	af->tmp = malloc(len);
	if (!af->path || !af->tmp) {
		release(af);
		return str_errorf(err, errlen, -ENOMEM, "%s: out of memory",
				  path);
	}
	snprintf(af->tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, path, base);

	int fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		release(af);
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	/* mkostemp makes 0600; the file gets what fopen() would give it. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(af->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(af->tmp);
		release(af);
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	return 0;
}

int
atomic_file_commit(struct atomic_file *af, char *err, size_t errlen)
{
	if (!af->f)
		return str_errorf(err, errlen, -EBADF, "no file to commit");

	int e = 0;
	if (fflush(af->f) != 0 || ferror(af->f))
		e = errno ? errno : EIO;
	/* Data on disk before the name points at it: a crash after the
	 * rename must not leave an empty or partial file under PATH. */
	else if (fsync(fileno(af->f)) < 0)
		e = errno;
	if (fclose(af->f) != 0 && e == 0)
		e = errno ? errno : EIO;
	af->f = NULL;
	if (e == 0 && rename(af->tmp, af->path) < 0)
		e = errno;
	if (e != 0) {
		unlink(af->tmp);
		str_errorf(err, errlen, -e, "%s: %s", af->path, strerror(e));
		release(af);
		return -e;
	}
	release(af);
	return 0;
}

void
atomic_file_abort(struct atomic_file *af)
{
	if (af->f) {
		fclose(af->f);
		unlink(af->tmp);
	}
	release(af);
}
