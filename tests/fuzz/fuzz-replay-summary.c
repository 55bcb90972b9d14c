// SPDX-License-Identifier: GPL-3.0-or-later
/* baro-replay merge's reader of a shard's summary.json (replay-merge.c):
 * any bytes parse or are refused, never a crash; what parses writes back
 * as a summary (the text and CSV writers over the read values). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "replay-merge.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_summary s;
	char err[256];

	if (replay_summary_parse((const char *)data, size, &s, err,
				 sizeof(err)) == 0) {
		struct report_filter_tally *t =
			calloc(s.nres ? s.nres : 1, sizeof(*t));
		if (t) {
			size_t nt = report_tally_filters(s.res, s.nres, t, s.nres);
			FILE *f = fopen("/dev/null", "w");
			if (f) {
				report_print_verdicts(f, t, nt);
				fclose(f);
			}
			for (size_t k = 0; k < nt; k++)
				(void)report_filter_verdict(&t[k]);
			free(t);
		}
	}
	replay_summary_free(&s);
	return 0;
}
