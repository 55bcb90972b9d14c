/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The exec-filter host's reply parsers (exec-wire.h) on arbitrary bytes:
 * the first byte picks the parser (bit 0: the hello, else an answer to a
 * batch of 1 + (byte >> 1) % 8 frames), the rest is what the filter
 * said.  Beyond not crashing: a parser decides on what is in, so every
 * prefix that gives a complete message or an error gives the same as the
 * whole; a hello's name is [a-z0-9_-]; an error has a message.
 */
#include <stdlib.h>
#include <string.h>

#include "exec-wire.h"
#include "fuzz.h"

/* Prefixes checked per input, spread over its length. */
#define PREFIXES 64

static int
parse(uint8_t sel, const uint8_t *data, size_t len, char *err, size_t errlen)
{
	struct exec_wire_hello h;
	struct baro_filter_output2 out[8];
	int r;

	memset(err, 'x', errlen);
	if (sel & 1) {
		r = exec_wire_parse_hello(data, len, &h, err, errlen);
		if (r > 0) {
			size_t n = strlen(h.name);
			if (n == 0 || n > EXEC_WIRE_NAME_MAX ||
			    strspn(h.name, "abcdefghijklmnopqrstuvwxyz"
					   "0123456789_-") != n)
				abort();
		}
	} else {
		uint32_t n = 1 + (uint32_t)(sel >> 1) % 8;
		r = exec_wire_parse_outputs(data, len, n, out, err, errlen);
		if (r > 0 && (size_t)r != EXEC_WIRE_HEADER_SIZE +
						   n * EXEC_WIRE_OUTPUT_SIZE)
			abort();
	}
	if (r > 0 && (size_t)r > len)
		abort();
	if (r < 0 && (!memchr(err, '\0', errlen) || err[0] == '\0'))
		abort();
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[EXEC_WIRE_ERROR_MAX + 64];

	if (size == 0)
		return 0;
	const uint8_t sel = data[0];
	data++;
	size--;
	const int whole = parse(sel, data, size, err, sizeof(err));
	const size_t step = size / PREFIXES + 1;
	for (size_t k = 0; k < size; k += step) {
		int r = parse(sel, data, k, err, sizeof(err));
		if (r != 0 && r != whole)
			abort();
	}
	return 0;
}
