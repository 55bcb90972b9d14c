/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MSP output cost: what barod pays per published sample on an MSP output
 * (sample -> checked message -> framed MSP2_SENSOR_BAROMETER with its
 * CRC-8), and the test decoder's throughput for comparison.
 */
#include <stdio.h>
#include <string.h>

#include "msp.h"
#include "bench-util.h"

static void
report(const char *label, unsigned long n, double dt, unsigned sink)
{
	printf("%-36s %12.0f /s %8.1f ns each  (%lu%s)\n", label,
	       (double)n / dt, dt * 1e9 / (double)n, n, sink == 0 ? "!" : "");
}

static void
bench_encode(void)
{
	const unsigned long n = 5000000;
	uint8_t f[MSP_BARO_FRAME_LEN];
	struct baro_sample s = {
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.temperature_c = 25.0f,
	};
	struct msp_baro b;
	unsigned sink = 0;

	double t0 = now_s();
	for (unsigned long k = 0; k < n; k++) {
		s.time_us = (uint64_t)k * 10000u;
		s.instance = (uint8_t)(k % 3);
		s.pressure_pa = 101325.0f - (float)(k % 1000) * 0.5f;
		if (msp_baro_from_sample(&s, s.instance, 15.0f, &b) == 0 &&
		    msp_baro_frame(&b, f) == MSP_BARO_FRAME_LEN)
			sink += f[MSP_BARO_FRAME_LEN - 1] + 1u;
	}
	report("encode MSP2_SENSOR_BAROMETER/sample", n, now_s() - t0, sink);
}

static void
count(const struct msp_frame *f, void *user)
{
	*(unsigned *)user += f->len;
}

static void
bench_decode(void)
{
	enum { FRAMES = 3000, ROUNDS = 300 };
	static uint8_t buf[FRAMES * MSP_BARO_FRAME_LEN];
	unsigned sink = 0;

	for (unsigned k = 0; k < FRAMES; k++) {
		struct msp_baro b = { (uint8_t)(k % 3), k * 10u,
				      101325.0f - (float)k, 2500 };
		msp_baro_frame(&b, buf + k * MSP_BARO_FRAME_LEN);
	}
	struct msp_parser p;
	msp_parser_init(&p);
	double t0 = now_s();
	for (int r = 0; r < ROUNDS; r++)
		msp_parser_feed(&p, buf, sizeof(buf), count, &sink);
	report("decode (test side)", (unsigned long)FRAMES * ROUNDS,
	       now_s() - t0, sink);
}

int
main(void)
{
	printf("MSP codec benchmark\n");
	bench_encode();
	bench_decode();
	return 0;
}
