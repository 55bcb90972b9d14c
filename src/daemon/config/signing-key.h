/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MAVLink signing key file ([mavlink] signing_key): exactly 32 bytes,
 * readable by its owner only.  A key others can read is no secret, so it
 * is refused, as ssh refuses a private key with loose permissions.
 */
#ifndef BAROD_SIGNING_KEY_H
#define BAROD_SIGNING_KEY_H

#include <stddef.h>
#include <stdint.h>

#define SIGNING_KEY_LEN 32

/* Read path into key.  0; -EACCES (group or others may read or write it:
 * the message says the chmod), -EINVAL (not a regular file of 32 bytes),
 * or the open/read errno; "PATH: reason" in err. */
int signing_key_read(const char *path, uint8_t key[SIGNING_KEY_LEN],
		     char *err, size_t errlen);

#endif
