/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The libFuzzer entry point every fuzz target defines. */
#ifndef BAROD_FUZZ_H
#define BAROD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
