/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The ULog reader on arbitrary bytes: every record, channel and type. */
#include "fuzz.h"
#include "log-reader.h"

static void
type_cb(const char *name, uint64_t count, void *ud)
{
	size_t *n = ud;

	*n += (size_t)count + (name[0] != '\0');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_reader r;
	struct log_record rec;
	unsigned max_chan = 0;
	size_t n = 0;

	if (log_reader_open_mem(&r, data, size, "fuzz", "ulog") == 0) {
		while (log_reader_next(&r, &rec) > 0)
			if (rec.channel >= max_chan)
				max_chan = rec.channel + 1u;
		for (unsigned c = 0; c < max_chan; c++)
			if (!log_reader_channel_name(&r, c))
				__builtin_trap();
		log_reader_list_types(&r, type_cb, &n);
	}
	log_reader_close(&r);
	return 0;
}
