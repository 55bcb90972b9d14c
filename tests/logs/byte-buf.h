/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Growing byte buffers for the tests that build log files in memory. */
#ifndef BAROD_TEST_BYTE_BUF_H
#define BAROD_TEST_BYTE_BUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Append n bytes at p to *buf (holding *len of *cap bytes); the tests'
 * builders wrap this around their own structs. */
static inline void
byte_buf_append(uint8_t **buf, size_t *len, size_t *cap, const void *p,
		size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2 + 256;
		*buf = realloc(*buf, *cap);
		assert_non_null(*buf);
	}
	if (n)
		memcpy(*buf + *len, p, n);
	*len += n;
}

#endif
