/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An output file that appears whole or not at all: written under a
 * temporary name in the same directory (so the final rename stays on one
 * file system and is atomic), then fsynced and renamed over PATH on
 * commit, or removed on abort.  Until the commit a file already at PATH is
 * untouched.
 */
#ifndef BAROD_UTIL_ATOMIC_FILE_H
#define BAROD_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;	/* write here; NULL once committed or aborted */
	char *path;	/* the final name */
	char *tmp;	/* the temporary name, in path's directory */
};

/*
 * Create the temporary file, mode 0666 less the umask as fopen() would.
 * Returns 0, or a negative errno with "PATH: reason" in err.
 */
int
atomic_file_open(struct atomic_file *af, const char *path, char *err,
		 size_t errlen);

/*
 * Flush, fsync and close the temporary file and rename it to the final
 * name.  On any failure the temporary file is removed and PATH keeps what
 * it had.  Returns 0 or a negative errno with "PATH: reason" in err.
 */
int
atomic_file_commit(struct atomic_file *af, char *err, size_t errlen);

/* Close and remove the temporary file; PATH keeps what it had.  Safe
 * after a commit or abort (does nothing then). */
void
atomic_file_abort(struct atomic_file *af);

#endif
