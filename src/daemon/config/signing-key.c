/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "signing-key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
signing_key_read(const char *path, uint8_t key[SIGNING_KEY_LEN], char *err,
		 size_t errlen)
{
	struct stat st;
	uint8_t buf[SIGNING_KEY_LEN + 1];
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "signing key %s: %s", path,
			 strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "signing key %s: %s", path,
			 strerror(-rc));
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "signing key %s: not a regular file",
			 path);
	} else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		rc = -EACCES;
		snprintf(err, errlen, "signing key %s: mode %04o lets group "
			 "or others at it; 'chmod 600 %s' (and chown it to "
			 "barod's user)", path, (unsigned)(st.st_mode & 07777),
			 path);
	} else {
		/* One byte more than a key, to tell a longer file. */
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "signing key %s: %s", path,
				 strerror(-rc));
		} else if (n != SIGNING_KEY_LEN) {
			rc = -EINVAL;
			snprintf(err, errlen, "signing key %s: %s bytes, a key "
				 "is exactly 32 (baroctl keygen FILE makes "
				 "one)", path, n > SIGNING_KEY_LEN ? "more than 32"
				 : n == 0 ? "0" : "fewer than 32");
		} else {
			memcpy(key, buf, SIGNING_KEY_LEN);
		}
	}
	memset(buf, 0, sizeof(buf));
	close(fd);
	return rc;
}
