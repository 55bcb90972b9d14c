/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cost per sample of each built-in filter: N synthetic 100 Hz samples
 * (a slow climb and descent, noise, a spike every 1000 samples, a
 * frozen stretch) through baro_filter_instance_step, as baro-replay
 * calls it.  raw's figure is mostly this loop's own cost.
 *
 *   bench-filters [N]      default 10,000,000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-util.h"
#include "filter-registry.h"

#define BLOCK 4096u

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000ul;
	static struct baro_filter_input block[BLOCK];
	uint32_t rng = 12345;

	for (unsigned k = 0; k < BLOCK; k++) {
		rng = rng * 1664525u + 1013904223u;
		double noise = ((double)(rng >> 8) / 16777216.0 - 0.5) * 0.4;
		/* One period per block, so cycling it has no jumps. */
		unsigned kk = k >= 3000 && k < 3300 ? 3000 : k;
		double alt = 50.0 * sin(2.0 * M_PI * kk / BLOCK) +
			     (kk == k ? noise : 0.0) +
			     (k % 1000 == 500 ? 25.0 : 0.0);
		block[k] = (struct baro_filter_input){
			.pressure_pa = 101325.0 - 12.0 * alt,
			.temperature_c = 25.0,
			.alt_m = alt,
			.flags = BARO_FILTER_IN_HAS_TEMPERATURE,
		};
	}

	size_t count;
	const struct baro_filter *const *all = baro_filter_builtins(&count);
	printf("filter    ns/sample  state bytes  (%lu samples)\n", n);
	for (size_t i = 0; i < count; i++) {
		struct baro_filter_instance fi;
		char err[256];
		if (baro_filter_instance_create(&fi, all[i]->name, 0, err,
						sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		double sum = 0.0;
		double t0 = now_s();
		for (unsigned long k = 0; k < n; k++) {
			struct baro_filter_input in = block[k % BLOCK];
			struct baro_filter_output out;
			in.time_us = 10000u * (uint64_t)k;
			baro_filter_instance_step(&fi, in.time_us, &in, &out);
			sum += out.alt_m;
		}
		double dt = now_s() - t0;
		printf("%-8s  %9.1f  %11zu  (checksum %.6g)\n", all[i]->name,
		       dt * 1e9 / (double)(n ? n : 1),
		       baro_filter_instance_state_size(&fi), sum);
		baro_filter_instance_destroy(&fi);
	}
	return 0;
}
