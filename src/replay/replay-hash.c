// SPDX-License-Identifier: GPL-3.0-or-later
#include "replay-hash.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

#include "util-strings.h"

/* sodium_init() once per caller is cheap and makes the hash safe to use
 * before anything else in the process touched libsodium. */
static int
ready(char *err, size_t errlen)
{
	if (sodium_init() < 0)
		return str_errorf(err, errlen, -ENOMEM, "libsodium could not "
				  "start");
	return 0;
}

static void
to_hex(const unsigned char *d, char hex[REPLAY_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < crypto_hash_sha256_BYTES; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * crypto_hash_sha256_BYTES] = '\0';
}

int
replay_sha256_file(const char *path, uint64_t *size,
		   char hex[REPLAY_SHA256_HEX], char *err, size_t errlen)
{
	unsigned char buf[65536], d[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_state st;
	int rc = ready(err, errlen);
	if (rc < 0)
		return rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return str_errorf(err, errlen, -errno, "%s: %s", path,
				  strerror(errno));
	crypto_hash_sha256_init(&st);
	uint64_t total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return str_errorf(err, errlen, -e, "%s: %s", path,
					  strerror(e));
		}
		crypto_hash_sha256_update(&st, buf, (unsigned long long)n);
		total += (uint64_t)n;
	}
	close(fd);
	crypto_hash_sha256_final(&st, d);
	to_hex(d, hex);
	if (size)
		*size = total;
	return 0;
}

int
replay_sha256_text(const void *data, size_t len,
		   char hex[REPLAY_SHA256_HEX], char *err, size_t errlen)
{
	unsigned char d[crypto_hash_sha256_BYTES];
	int rc = ready(err, errlen);
	if (rc < 0)
		return rc;
	crypto_hash_sha256(d, data, (unsigned long long)len);
	to_hex(d, hex);
	return 0;
}
