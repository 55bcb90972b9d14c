/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The MSP v2 codec: frames byte for byte (expected bytes computed apart
 * from this code, with Python's struct and a bitwise CRC), the CRC's
 * published check value, what a sample becomes, and the decoder on
 * split, corrupted, oversize and foreign input.
 */
#include <errno.h>
#include <math.h>

#include "msp.h"
#include "test-util.h"

static void
test_crc_check_value(void **state)
{
	(void)state;
	/* CRC-8/DVB-S2's catalogue check value. */
	assert_int_equal(msp_crc8_dvb_s2(0, (const uint8_t *)"123456789", 9),
			 0xBC);
	assert_int_equal(msp_crc8_dvb_s2(0, NULL, 0), 0);
	/* Continuation: in two parts as in one. */
	uint8_t a = msp_crc8_dvb_s2(0, (const uint8_t *)"1234", 4);
	assert_int_equal(msp_crc8_dvb_s2(a, (const uint8_t *)"56789", 5), 0xBC);
}

static const struct {
	struct msp_baro b;
	uint8_t frame[MSP_BARO_FRAME_LEN];
} baro_vectors[] = {
	{ { 0, 123456, 101325.0f, 2534 },
	  { 0x24, 0x58, 0x3c, 0x01, 0x05, 0x1f, 0x0b, 0x00, 0x00, 0x40,
	    0xe2, 0x01, 0x00, 0x80, 0xe6, 0xc5, 0x47, 0xe6, 0x09, 0xeb } },
	{ { 2, 0xFFFFFFFFu, 95000.5f, -1234 },
	  { 0x24, 0x58, 0x3c, 0x01, 0x05, 0x1f, 0x0b, 0x00, 0x02, 0xff,
	    0xff, 0xff, 0xff, 0x40, 0x8c, 0xb9, 0x47, 0x2e, 0xfb, 0x88 } },
	{ { 7, 0, 1.0f, INT16_MIN },
	  { 0x24, 0x58, 0x3c, 0x01, 0x05, 0x1f, 0x0b, 0x00, 0x07, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x80, 0xfa } },
};

static void
test_baro_frames(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(baro_vectors) / sizeof(baro_vectors[0]);
	     k++) {
		uint8_t out[MSP_BARO_FRAME_LEN];
		assert_int_equal(msp_baro_frame(&baro_vectors[k].b, out),
				 MSP_BARO_FRAME_LEN);
		assert_memory_equal(out, baro_vectors[k].frame, sizeof(out));

		struct msp_baro back;
		assert_int_equal(msp_baro_unpack(out + MSP_V2_HEADER_LEN,
						 MSP_BARO_PAYLOAD_LEN, &back),
				 0);
		assert_int_equal(back.instance, baro_vectors[k].b.instance);
		assert_int_equal(back.time_ms, baro_vectors[k].b.time_ms);
		assert_float_exact(back.pressure_pa,
				   baro_vectors[k].b.pressure_pa);
		assert_int_equal(back.temp_cdeg, baro_vectors[k].b.temp_cdeg);
	}
	/* AP_Baro::handle_msp ignores instances above 7: never sent. */
	struct msp_baro b = { 8, 0, 101325.0f, 0 };
	uint8_t out[MSP_BARO_FRAME_LEN];
	assert_int_equal(msp_baro_frame(&b, out), -EINVAL);
	assert_int_equal(msp_baro_unpack(out, 10, &b), -EBADMSG);
	assert_int_equal(msp_baro_unpack(out, 12, &b), -EBADMSG);
}

static void
test_encode_generic(void **state)
{
	static const uint8_t empty_reply[] = { 0x24, 0x58, 0x3e, 0x00, 0x64,
					       0x00, 0x00, 0x00, 0x8f };
	static const uint8_t five[] = { 0x24, 0x58, 0x3c, 0x00, 0x34,
					0x12, 0x05, 0x00, 0x00, 0x01,
					0x02, 0x03, 0x04, 0xe1 };
	static const uint8_t pl[] = { 0, 1, 2, 3, 4 };
	uint8_t out[MSP_FRAME_MAX + 1], big[MSP_PAYLOAD_MAX + 1] = { 0 };
	(void)state;

	assert_int_equal(msp_v2_encode(out, sizeof(out), '>', 0, 100, NULL, 0),
			 sizeof(empty_reply));
	assert_memory_equal(out, empty_reply, sizeof(empty_reply));
	assert_int_equal(msp_v2_encode(out, sizeof(out), '<', 0, 0x1234, pl,
				       sizeof(pl)),
			 sizeof(five));
	assert_memory_equal(out, five, sizeof(five));

	assert_int_equal(msp_v2_encode(out, sizeof(out), 'x', 0, 1, NULL, 0),
			 -EINVAL);
	assert_int_equal(msp_v2_encode(out, sizeof(out), '<', 0, 1, big,
				       MSP_PAYLOAD_MAX + 1),
			 -EMSGSIZE);
	assert_int_equal(msp_v2_encode(out, sizeof(out), '<', 0, 1, big,
				       MSP_PAYLOAD_MAX),
			 MSP_FRAME_MAX);
	assert_int_equal(msp_v2_encode(out, 13, '<', 0, 1, pl, sizeof(pl)),
			 -ENOBUFS);
}

static void
test_from_sample(void **state)
{
	struct baro_sample s = {
		.time_us = 4294967296123ull,	/* past the u32 ms wrap */
		.instance = 1,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.pressure_pa = 101325.0f,
		.temperature_c = 25.349f,
	};
	struct msp_baro b;
	(void)state;

	assert_int_equal(msp_baro_from_sample(&s, 3, 15.0f, &b), 0);
	assert_int_equal(b.instance, 3);
	assert_int_equal(b.time_ms, (uint32_t)(4294967296123ull / 1000u));
	assert_float_exact(b.pressure_pa, 101325.0f);
	assert_int_equal(b.temp_cdeg, 2534);	/* truncated, as ArduPilot */

	s.temperature_c = -10.5f;
	assert_int_equal(msp_baro_from_sample(&s, 0, 15.0f, &b), 0);
	assert_int_equal(b.temp_cdeg, -1050);

	/* No measured temperature: the caller's stand-in. */
	s.flags = BARO_SAMPLE_HEALTHY;
	s.temperature_c = NAN;
	assert_int_equal(msp_baro_from_sample(&s, 0, 11.25f, &b), 0);
	assert_int_equal(b.temp_cdeg, 1125);

	/* ArduPilot's own plausibility bounds, +-200 C, included. */
	s.flags |= BARO_SAMPLE_HAS_TEMPERATURE;
	s.temperature_c = 200.0f;
	assert_int_equal(msp_baro_from_sample(&s, 0, 0.0f, &b), 0);
	assert_int_equal(b.temp_cdeg, 20000);
	s.temperature_c = -200.0f;
	assert_int_equal(msp_baro_from_sample(&s, 0, 0.0f, &b), 0);
	assert_int_equal(b.temp_cdeg, -20000);

	/* Not physically possible: refused. */
	static const float bad_p[] = { NAN, INFINITY, -INFINITY, 0.0f,
				       -1.0f, 2.1e6f };
	s.temperature_c = 20.0f;
	for (size_t k = 0; k < sizeof(bad_p) / sizeof(bad_p[0]); k++) {
		s.pressure_pa = bad_p[k];
		assert_int_equal(msp_baro_from_sample(&s, 0, 15.0f, &b), -EDOM);
	}
	s.pressure_pa = 2.0e6f;
	assert_int_equal(msp_baro_from_sample(&s, 0, 15.0f, &b), 0);
	static const float bad_t[] = { NAN, INFINITY, -INFINITY, -273.15f,
				       -200.01f, 200.01f, 400.0f };
	s.pressure_pa = 101325.0f;
	for (size_t k = 0; k < sizeof(bad_t) / sizeof(bad_t[0]); k++) {
		s.temperature_c = bad_t[k];
		assert_int_equal(msp_baro_from_sample(&s, 0, 15.0f, &b), -EDOM);
	}
	s.flags = BARO_SAMPLE_HEALTHY;
	assert_int_equal(msp_baro_from_sample(&s, 0, NAN, &b), -EDOM);
	s.temperature_c = 20.0f;
	s.flags |= BARO_SAMPLE_HAS_TEMPERATURE;
	assert_int_equal(msp_baro_from_sample(&s, 8, 15.0f, &b), -EINVAL);
}

struct got {
	unsigned n;
	struct msp_baro b[16];
	char dir[16];
	uint8_t flags[16];
	uint16_t fn[16];
	uint16_t len[16];
};

static void
on_frame(const struct msp_frame *f, void *user)
{
	struct got *g = user;

	assert_true(g->n < 16);
	g->dir[g->n] = f->direction;
	g->flags[g->n] = f->flags;
	g->fn[g->n] = f->function;
	g->len[g->n] = f->len;
	if (f->function == MSP2_SENSOR_BAROMETER)
		assert_int_equal(msp_baro_unpack(f->payload, f->len,
						 &g->b[g->n]), 0);
	g->n++;
}

static void
accounted(const struct msp_parser *p, const struct got *g, size_t fed,
	  size_t frame_bytes)
{
	assert_int_equal(p->stats.frames, g->n);
	assert_int_equal(frame_bytes + p->stats.garbage_bytes + p->have, fed);
}

static void
test_parser(void **state)
{
	uint8_t stream[512];
	size_t n = 0;
	(void)state;

	/* junk, frame 0, "$M<" (MSP v1: not ours), frame 1 with a flipped
	 * CRC, "$X" then frame 2 (a false start right before it), an
	 * oversize header, frame 1 again intact. */
	memcpy(stream + n, "hello$", 6);
	n += 6;
	memcpy(stream + n, baro_vectors[0].frame, MSP_BARO_FRAME_LEN);
	n += MSP_BARO_FRAME_LEN;
	memcpy(stream + n, "$M<\x00\x64\x64", 6);
	n += 6;
	memcpy(stream + n, baro_vectors[1].frame, MSP_BARO_FRAME_LEN);
	stream[n + MSP_BARO_FRAME_LEN - 1] ^= 0x40;
	n += MSP_BARO_FRAME_LEN;
	memcpy(stream + n, "$X", 2);
	n += 2;
	memcpy(stream + n, baro_vectors[2].frame, MSP_BARO_FRAME_LEN);
	n += MSP_BARO_FRAME_LEN;
	memcpy(stream + n, "$X<\x00\x05\x1f\xc1\x00", 8);	/* 193 bytes */
	n += 8;
	memcpy(stream + n, baro_vectors[1].frame, MSP_BARO_FRAME_LEN);
	n += MSP_BARO_FRAME_LEN;

	/* Whole, then a byte at a time: the same frames and counts. */
	for (int way = 0; way < 2; way++) {
		struct msp_parser p;
		struct got g = { 0 };
		msp_parser_init(&p);
		if (way == 0) {
			assert_int_equal(msp_parser_feed(&p, stream, n,
							 on_frame, &g),
					 3);
		} else {
			for (size_t i = 0; i < n; i++)
				msp_parser_feed(&p, stream + i, 1, on_frame,
						&g);
		}
		assert_int_equal(g.n, 3);
		assert_int_equal(g.b[0].instance, 0);
		assert_int_equal(g.b[1].instance, 7);
		assert_int_equal(g.b[2].instance, 2);
		assert_int_equal(g.b[2].temp_cdeg, -1234);
		for (unsigned k = 0; k < 3; k++) {
			assert_int_equal(g.dir[k], '<');
			assert_int_equal(g.flags[k], MSP_FLAG_DONT_REPLY);
			assert_int_equal(g.fn[k], MSP2_SENSOR_BAROMETER);
		}
		assert_int_equal(p.stats.bad_crc, 1);
		assert_int_equal(p.stats.oversize, 1);
		accounted(&p, &g, n, 3 * MSP_BARO_FRAME_LEN);
		assert_int_equal(p.have, 0);
	}

	/* A frame cut short: pending, then discarded by flush. */
	struct msp_parser p;
	struct got g = { 0 };
	msp_parser_init(&p);
	assert_int_equal(msp_parser_feed(&p, baro_vectors[0].frame, 12,
					 on_frame, &g),
			 0);
	assert_int_equal(p.have, 12);
	msp_parser_flush(&p);
	assert_int_equal(p.stats.truncated, 1);
	accounted(&p, &g, 12, 0);
	/* ... and the parser starts clean after it. */
	assert_int_equal(msp_parser_feed(&p, baro_vectors[0].frame,
					 MSP_BARO_FRAME_LEN, NULL, NULL),
			 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_baro_frames),
		cmocka_unit_test(test_encode_generic),
		cmocka_unit_test(test_from_sample),
		cmocka_unit_test(test_parser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
