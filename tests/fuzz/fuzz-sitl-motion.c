/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod's built-in SITL vehicle over any truth: the first byte picks a
 * profile spec or a CSV truth trace (the rest of the input) and how time
 * runs (the peer's steady frames, or steps taken from the input: zero,
 * tiny, huge, backwards), the next two the frame rate.  Every frame must
 * give ArduPilot a reply within the vehicle's limits, with nothing
 * non-finite, consistent with the frame before (tests/sitl-motion-
 * check.h), and a baro altitude ArduPilot's SITL can derive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../vehicles/sitl-motion-check.h"
#include "fuzz.h"
#include "truth-profile.h"
#include "truth-trace.h"

/* Frames per input: the input's rate byte stretches them over as much
 * time as it likes, so more frames buy little coverage for their cost
 * (400 gave the same cov after equal time at a third of the execs). */
#define FRAMES 128

/* The JSON parsed each frame is the vehicle's own (sitl-motion-check.h),
 * not the input: ASan's strstr checks on it were a fifth of the time.
 * fuzz-sitl-json keeps them on the parser's real input. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "intercept_strstr=0";
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct truth_profile p;
	struct truth_trace tr = { 0 };
	char err[256], spec[512];

	if (size < 3)
		return 0;
	const uint8_t mode = data[0];
	const unsigned rate = ((unsigned)data[1] << 8 | data[2]) + 1u;
	const uint8_t *text = data + 3;
	const size_t tlen = size - 3;

	if (mode & 1) {
		FILE *f = fmemopen((void *)text, tlen, "r");
		if (!f)
			return 0;
		int rc = truth_trace_load(&tr, f, "fuzz", err, sizeof(err));
		fclose(f);
		if (rc < 0)
			return 0;
	} else {
		if (tlen >= sizeof(spec))
			return 0;
		memcpy(spec, text, tlen);
		spec[tlen] = '\0';
		if (truth_profile_parse(spec, &p, err, sizeof(err)) < 0)
			return 0;
	}

	struct sitl_motion m, prev;
	struct sitl_vehicle v;
	struct sitl_fdm fdm;
	struct sitl_truth truth = { 0 };
	double t = 0.0;
	float alt;

	sitl_motion_reset(&m);
	for (unsigned k = 0; k < FRAMES; k++) {
		if (mode & 2) {
			/* Steps from the input: 0 (time stands still) up to
			 * 255 frames; with bit 2 every 7th one backwards. */
			double step = (double)text[k % (tlen ? tlen : 1)] *
				      (tlen ? 1.0 : 0.0) / rate;
			t += (mode & 4) && k % 7 == 6 ? -step : step;
		} else {
			t = (double)(k + 1) / rate;
		}
		const double h = tr.n ? truth_trace_height(&tr, t)
				      : truth_profile_height(&p, t);
		prev = m;
		sitl_motion_step(&m, t, h, &v, &fdm);
		if (motion_check(&prev, &m, &v, err, sizeof(err))) {
			fprintf(stderr, "frame %u t %.17g h %.17g: %s\n", k, t,
				h, err);
			abort();
		}
		if (sitl_truth_update(&truth, &fdm, 584.0, &alt) < 0)
			abort();
	}
	truth_trace_free(&tr);
	return 0;
}
