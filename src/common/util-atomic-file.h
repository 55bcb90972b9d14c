/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Write a file so that it is either complete or not there: a temporary
 * file in the same directory, renamed over the target only once it is
 * complete and on disk.  A failed or aborted write leaves the target as
 * it was and nothing else behind.
 *
 *   struct atomic_file af;
 *   FILE *f = atomic_file_open(&af, "out.csv", err, sizeof(err));
 *   ... fprintf(f, ...) ...
 *   rc = ok ? atomic_file_commit(&af, err, sizeof(err))
 *           : (atomic_file_abort(&af), rc);
 *
 * A target that exists and is not a regular file (a FIFO, /dev/null, a
 * terminal) is written directly: there is nothing to replace and no
 * rename possible.  A symbolic link is followed, so the file it points
 * at is replaced and the link stays.
 */
#ifndef BAROD_UTIL_ATOMIC_FILE_H
#define BAROD_UTIL_ATOMIC_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;
	bool direct;		/* not a regular file: written in place */
	char path[PATH_MAX];	/* the target (links resolved) */
	char tmp[PATH_MAX];	/* the temporary file, "" when direct */
};

/*
 * Open a temporary file next to path for writing.  Returns its stream,
 * or NULL with "PATH: reason" in err (errno set).  The file gets the
 * target's permissions if it exists, else 0666 less the umask.
 */
FILE *
atomic_file_open(struct atomic_file *af, const char *path, char *err,
		 size_t errlen);

/*
 * Flush, fsync and close the stream, then rename the temporary file over
 * the target.  Returns 0, or a negative errno with a message (the
 * temporary file is removed and the target left as it was).
 */
int
atomic_file_commit(struct atomic_file *af, char *err, size_t errlen);

/* Close and remove the temporary file; the target stays as it was. */
void
atomic_file_abort(struct atomic_file *af);

#endif
