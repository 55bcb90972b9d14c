/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The DataFlash reader over arbitrary bytes: read to the end or the
 * first error, naming every channel returned, then count the types. */
#include <stdlib.h>

#include "fuzz.h"
#include "log-reader.h"

static void
type_cb(const char *name, uint64_t count, void *ud)
{
	if (!name)
		abort();
	*(uint64_t *)ud += count;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_reader r;
	struct log_record rec;

	if (log_reader_open_mem(&r, data, size, "fuzz", "dataflash") == 0) {
		while (log_reader_next(&r, &rec) > 0)
			if (!log_reader_channel_name(&r, rec.channel))
				abort();
		uint64_t counted = 0;
		log_reader_list_types(&r, type_cb, &counted);
	}
	log_reader_close(&r);
	return 0;
}
