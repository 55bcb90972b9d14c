/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SHA-256 of what a report's results depend on (run.json's provenance):
 * a file read in fixed blocks, so a 100 MB log costs 64 KiB of memory,
 * or a text in memory.  Lowercase hex, as sha256sum prints it.
 */
#ifndef BAROD_REPLAY_HASH_H
#define BAROD_REPLAY_HASH_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_SHA256_HEX 65	/* 64 digits and the NUL */

/* The file at path: its size and digest.  0, or a negative errno with
 * "PATH: reason" in err. */
int
replay_sha256_file(const char *path, uint64_t *size,
		   char hex[REPLAY_SHA256_HEX], char *err, size_t errlen);

/* len bytes at data (0 or -ENOMEM, said in err). */
int
replay_sha256_text(const void *data, size_t len,
		   char hex[REPLAY_SHA256_HEX], char *err, size_t errlen);

#endif
