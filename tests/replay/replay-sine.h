/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The synthetic flight the filter tests judge on: 20 m + 8 m sin(2 pi t /
 * 10 s) above a home at 100 m, 60 s with every sensor, the baros from
 * ArduPilot's default SITL model, the noise seeded.
 */
#ifndef BAROD_REPLAY_SINE_H
#define BAROD_REPLAY_SINE_H

#include "replay-stream.h"
#include "test-util.h"
#include "truth-profile.h"

static inline void
replay_sine_stream(struct replay_stream *st, uint32_t seed)
{
	struct truth_profile prof;
	char err[256];

	assert_int_equal(truth_profile_parse("sine:8:10:20", &prof, err,
					     sizeof(err)), 0);
	assert_int_equal(replay_stream_synthetic(st, &prof, 60.0, 100.0, NULL,
						 BARO_SITL_AP_DEFAULT, seed,
						 err, sizeof(err)), 0);
}

#endif
