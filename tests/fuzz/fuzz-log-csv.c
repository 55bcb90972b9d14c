/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CSV reader over any bytes: every record to the end or the error,
 * then the type list and every channel name. */
#include <stdio.h>

#include "fuzz.h"
#include "logs/log-reader.h"

static void
on_type(const char *name, uint64_t count, void *ud)
{
	size_t *n = ud;

	*n += name[0] != '\0' && count > 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_reader r;
	struct log_record rec;
	size_t types = 0;

	if (log_reader_open_mem(&r, data, size, "fuzz", "csv") == 0) {
		while (log_reader_next(&r, &rec) > 0) {
			if (!log_reader_channel_name(&r, rec.channel))
				__builtin_trap();
		}
		log_reader_list_types(&r, on_type, &types);
		if (r.info.bytes_skipped > size)
			__builtin_trap();
	}
	log_reader_close(&r);
	return 0;
}
