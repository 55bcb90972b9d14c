/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The libFuzzer entry point every fuzz target defines. */
#ifndef BAROD_FUZZ_H
#define BAROD_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: abort, which the fuzzer and the corpus run both
 * report as a crash with the input that caused it. */
static inline void
fuzz_check(bool ok)
{
	if (!ok)
		abort();
}

/* A stream parser fed the input in pieces the input itself sizes (1 to
 * 64 bytes), so the fuzzer steers where frames are split: the length of
 * the piece at offset i, never past size. */
static inline size_t
fuzz_chunk(const uint8_t *data, size_t size, size_t i)
{
	size_t k = 1 + (size_t)(data[(i * 7) % size] % 64);

	return k < size - i ? k : size - i;
}

/* FNV-1a over len bytes, from h: a running hash of what a parser
 * delivered, to compare the ways it was fed. */
static inline uint32_t
fuzz_fnv(uint32_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#endif
