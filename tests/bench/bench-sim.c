/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Emulator throughput: samples per second and ns per sample, one and three
 * instances, with ArduPilot's default 0.2 m noise on (one random() draw per
 * sample), 1976 and simple atmospheres, with and without wind.  Every call
 * is 10 ms after the last, so every call produces a sample per instance.
 */
#include <stdio.h>
#include <time.h>

#include "baro-sitl.h"
#include "bench-util.h"

static void
bench(const char *label, int instances, enum baro_sitl_atmosphere atmos,
      float wind)
{
	struct sim_params p;
	struct baro_sitl sim;
	struct baro_sample out[BARO_MAX_INSTANCES];
	const uint32_t calls = 2000000;
	unsigned long samples = 0;
	float sink = 0.0f;

	sim_params_defaults(&p);
	p.baro_count = (int8_t)instances;
	for (int i = 0; i < instances; i++)
		p.baro[i].wcf_fwd = 0.2f;
	baro_sitl_init(&sim, &p, atmos, 1);

	struct baro_sitl_truth t = { .alt_amsl_m = 584.0f,
				     .vel_air_bf = { wind, 0, 0 } };
	double t0 = now_s();
	for (uint32_t k = 1; k <= calls; k++) {
		t.alt_amsl_m = 584.0f + (float)(k % 1000) * 0.01f;
		unsigned n = baro_sitl_update(&sim, k * 10u, &t, out);
		samples += n;
		sink += out[0].pressure_pa;
	}
	double dt = now_s() - t0;

	printf("%-34s %12.0f samples/s %8.1f ns/sample  (%lu samples%s)\n",
	       label, (double)samples / dt, dt * 1e9 / (double)samples,
	       samples, sink == 0.0f ? "!" : "");
}

int
main(void)
{
	printf("baro-sitl emulator benchmark (noise on, RND 0.2)\n");
	bench("1 instance, 1976", 1, BARO_SITL_ATMOS_1976, 0.0f);
	bench("3 instances, 1976", 3, BARO_SITL_ATMOS_1976, 0.0f);
	bench("1 instance, simple", 1, BARO_SITL_ATMOS_SIMPLE, 0.0f);
	bench("3 instances, simple", 3, BARO_SITL_ATMOS_SIMPLE, 0.0f);
	bench("3 instances, 1976, wind 15 m/s", 3, BARO_SITL_ATMOS_1976,
	      15.0f);
	return 0;
}
