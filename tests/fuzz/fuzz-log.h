/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The body of every log reader's fuzz target: read any bytes to the end
 * or the first error, name every channel a record came from, list the
 * types, and check the damage counters stay within the input.
 */
#ifndef BAROD_FUZZ_LOG_H
#define BAROD_FUZZ_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "log-reader.h"
#include "log-segments.h"

static void
fuzz_log_on_type(const char *name, uint64_t count, void *ud)
{
	if (!name)
		__builtin_trap();
	*(uint64_t *)ud += count;
}

/* format: a reader's name, or NULL to choose by content. */
static inline int
fuzz_log(const uint8_t *data, size_t size, const char *format)
{
	struct log_reader r;
	struct log_record rec;
	uint64_t types = 0;

	if (log_reader_open_mem(&r, data, size, "fuzz", format) == 0) {
		/* Segments as list, export and run find them. */
		struct log_segmenter seg;
		log_segmenter_init(&seg);
		int rc;
		while ((rc = log_reader_next(&r, &rec)) > 0) {
			if (!log_reader_channel_name(&r, rec.channel))
				__builtin_trap();
			if (rec.kind == LOG_REC_EVENT &&
			    rec.event.kind == LOG_EVENT_REBOOT)
				log_segmenter_reboot(&seg);
			if (rec.kind == LOG_REC_BARO)
				log_segmenter_push(&seg, rec.baro.time_us, NULL);
		}
		log_reader_list_types(&r, fuzz_log_on_type, &types);
		/* Skipped bytes are counted in what was read: the input,
		 * or what it inflated to when gzip'd. */
		if (!r.in.gz && r.info.bytes_skipped > size)
			__builtin_trap();
		char buf[LOG_ERR_LEN + 96], like[160];
		log_reader_damage(&r, rc, buf, sizeof(buf));
		log_reader_baro_like(&r, like, sizeof(like));
	}
	log_reader_close(&r);
	return 0;
}

#endif
