// SPDX-License-Identifier: GPL-3.0-or-later
#include "util-atomic-file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util-strings.h"

static int
fail_errno(char *err, size_t errlen, const char *path)
{
	int e = errno;
	str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	errno = e;
	return -e;
}

FILE *
atomic_file_open(struct atomic_file *af, const char *path, char *err,
		 size_t errlen)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;

	*af = (struct atomic_file){ 0 };
	if (exists && !S_ISREG(st.st_mode)) {
		af->direct = true;
		snprintf(af->path, sizeof(af->path), "%s", path);
		if (!(af->f = fopen(path, "w")))
			fail_errno(err, errlen, path);
		return af->f;
	}
	/* Replace what a link points at, not the link. */
	if (exists && !realpath(path, af->path)) {
		fail_errno(err, errlen, path);
		return NULL;
	}
	if (!exists && (size_t)snprintf(af->path, sizeof(af->path), "%s",
					path) >= sizeof(af->path)) {
		errno = ENAMETOOLONG;
		fail_errno(err, errlen, path);
		return NULL;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", af->path);
	const char *base = strrchr(af->path, '/');
	base = base ? base + 1 : af->path;
	if ((size_t)snprintf(af->tmp, sizeof(af->tmp), "%s/.%s.XXXXXX",
			     dirname(dir), base) >= sizeof(af->tmp)) {
		errno = ENAMETOOLONG;
		fail_errno(err, errlen, path);
		return NULL;
	}
	int fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		/* The directory's problem is the target's problem. */
		fail_errno(err, errlen, path);
		af->tmp[0] = '\0';
		return NULL;
	}
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) < 0 || !(af->f = fdopen(fd, "w"))) {
		fail_errno(err, errlen, path);
		close(fd);
		unlink(af->tmp);
		af->tmp[0] = '\0';
		return NULL;
	}
	return af->f;
}

int
atomic_file_commit(struct atomic_file *af, char *err, size_t errlen)
{
	int rc = 0;
	if (!af->f)
		return str_errorf(err, errlen, -EBADF, "%s: not open", af->path);
	if (fflush(af->f) != 0 || ferror(af->f))
		rc = fail_errno(err, errlen, af->path);
	else if (!af->direct && fsync(fileno(af->f)) < 0)
		rc = fail_errno(err, errlen, af->path);
	if (fclose(af->f) != 0 && rc == 0)
		rc = fail_errno(err, errlen, af->path);
	af->f = NULL;
	if (af->direct)
		return rc;
	if (rc == 0 && rename(af->tmp, af->path) < 0)
		rc = fail_errno(err, errlen, af->path);
	if (rc < 0)
		unlink(af->tmp);
	af->tmp[0] = '\0';
	if (rc == 0) {
		/* The rename itself on disk, as far as the directory allows. */
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", af->path);
		int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
	return rc;
}

void
atomic_file_abort(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	af->f = NULL;
	if (af->tmp[0])
		unlink(af->tmp);
	af->tmp[0] = '\0';
}
