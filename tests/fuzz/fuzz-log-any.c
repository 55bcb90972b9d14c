/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Format detection, then whichever reader it picks (see fuzz-log.h). */
#include "fuzz-log.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_log(data, size, NULL);
}
