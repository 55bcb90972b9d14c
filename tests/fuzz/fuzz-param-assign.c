/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * NAME=VALUE lines (the -p option, later the config file and baroctl)
 * applied to the parameter table, then the emulator run with whatever
 * values got through, under one of the three atmosphere models (picked
 * by the input's length, which also seeds the noise: all three ran for
 * every input before, three times the cost for the same paths).
 */
#include <string.h>

#include "baro-sitl.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_params params;
	char line[512];
	char err[256];
	size_t start = 0;

	sim_params_defaults(&params);
	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\n')
			continue;
		size_t n = i - start;
		if (n < sizeof(line)) {
			memcpy(line, data + start, n);
			line[n] = '\0';
			(void)sim_param_assign(&params, line, err, sizeof(err));
		}
		start = i + 1;
	}

	{
		const int atmos = (int)(size % 3);
		struct baro_sitl sim;
		baro_sitl_init(&sim, &params, (enum baro_sitl_atmosphere)atmos,
			       (uint32_t)size);
		struct baro_sitl_truth t = { .alt_amsl_m = 584.0f,
					     .vel_air_bf = { 12, -4, 1 } };
		/* Two seconds in 50 ms steps: every sample path runs (the
		 * 10 ms sampling, delays, drift), 40 calls rather than the
		 * 286 of 7 ms steps that made this target the slowest. */
		for (uint32_t now = 0; now < 2000; now += 50) {
			struct baro_sample out[BARO_MAX_INSTANCES];
			t.alt_amsl_m += 1.75f;
			(void)baro_sitl_update(&sim, now, &t, out);
		}
	}
	return 0;
}
