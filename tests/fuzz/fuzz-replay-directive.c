/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A scenario file's "# replay:" line (profile, duration, logs, baros,
 * reveal): accepted only within its ranges, refused else, never more. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay-cases.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[1024];
	struct replay_directive d;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (replay_directive_parse(text, "fuzz.scn", &d) < 0)
		return 0;
	const unsigned all = REPLAY_IN_BARO | REPLAY_IN_BARO2 |
			     REPLAY_IN_ACCEL | REPLAY_IN_GPS | REPLAY_IN_RANGE;
	if (!(d.duration_s > 0.0 && d.duration_s <= 86400.0) ||
	    d.baros > 3 || (d.reveal & ~all))
		abort();
	return 0;
}
