/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * DPS310 / SPL06 coefficient unpacking and compensation against the
 * sensors sheet's §8 vector (self-generated, not from Infineon: it checks
 * the unpacking and the formula, not the silicon), scale factors, timing,
 * the emulator's inversion, and garbage coefficients.
 */
#include <errno.h>

#include "dps310.h"
#include "emu-dps310.h"
#include "test-util.h"

static void
test_coef_parse(void **state)
{
	struct dps310_coef c;

	(void)state;
	dps310_coef_parse(emu_dps310_sample_coef, &c);
	assert_int_equal(c.c0, 204);
	assert_int_equal(c.c1, -261);
	assert_int_equal(c.c00, 80469);
	assert_int_equal(c.c10, -54769);
	assert_int_equal(c.c01, -2419);
	assert_int_equal(c.c11, 1361);
	assert_int_equal(c.c20, -10497);
	assert_int_equal(c.c21, 125);
	assert_int_equal(c.c30, -1176);
}

/* Extremes of each packed field: sign bits in the right place. */
static void
test_coef_parse_extremes(void **state)
{
	uint8_t b[DPS310_COEF_LEN];
	struct dps310_coef c;

	(void)state;
	memset(b, 0xff, sizeof(b));
	dps310_coef_parse(b, &c);
	assert_int_equal(c.c0, -1);
	assert_int_equal(c.c1, -1);
	assert_int_equal(c.c00, -1);
	assert_int_equal(c.c10, -1);
	assert_int_equal(c.c30, -1);
	/* c0 = 0x800 (most negative), c1 = 0x7ff, c00 = 0x7ffff,
	 * c10 = 0x80000, c01 = 0x8000. */
	memset(b, 0, sizeof(b));
	b[0] = 0x80;
	b[1] = 0x07;
	b[2] = 0xff;
	b[3] = 0x7f;
	b[4] = 0xff;
	b[5] = 0xf8;
	b[8] = 0x80;
	dps310_coef_parse(b, &c);
	assert_int_equal(c.c0, -2048);
	assert_int_equal(c.c1, 2047);
	assert_int_equal(c.c00, 524287);
	assert_int_equal(c.c10, -524288);
	assert_int_equal(c.c01, -32768);
}

static void
test_sample_vector(void **state)
{
	struct dps310_coef c;
	const uint8_t tmp[3] = { 0x02, 0x5c, 0x4c }, psr[3] = { 0xfe, 0x9e, 0x42 };

	(void)state;
	dps310_coef_parse(emu_dps310_sample_coef, &c);
	int32_t raw_t = dps310_raw24(tmp), raw_p = dps310_raw24(psr);
	assert_int_equal(raw_t, 154700);
	assert_int_equal(raw_p, -90558);
	/* Temperature x1 (kT 524288), pressure x16 (kP 253952). */
	assert_close_abs(dps310_compensate_t(&c, raw_t, 0), 24.98756, 0.000005);
	assert_close_abs(dps310_compensate_p(&c, raw_p, 4, raw_t, 0), 97865.5957,
			 0.0001);
}

static void
test_scale_and_time(void **state)
{
	static const double k[8] = { 524288, 1572864, 3670016, 7864320,
				     253952, 516096, 1040384, 2088960 };
	static const uint32_t t[8] = { 3600, 5200, 8400, 14800, 27600, 53200,
				       104400, 206800 };

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		assert_true(dps310_scale(i) == k[i]);
		assert_int_equal(dps310_meas_time_us(i), t[i]);
	}
	assert_true(dps310_scale(12) == k[7]);
	assert_int_equal(dps310_meas_time_us(12), t[7]);
	assert_int_equal(dps310_raw24((const uint8_t[]){ 0x80, 0, 0 }), -8388608);
	assert_int_equal(dps310_raw24((const uint8_t[]){ 0x7f, 0xff, 0xff }),
			 8388607);
}

static void
test_inversion_roundtrip(void **state)
{
	struct dps310_coef c;

	(void)state;
	dps310_coef_parse(emu_dps310_sample_coef, &c);
	for (unsigned osr = 0; osr < 8; osr += 3) {
		for (double pa = 30000.0; pa <= 110000.0; pa += 4321.0) {
			for (double degc = -40.0; degc <= 85.0; degc += 12.5) {
				int32_t rp, rt;

				emu_dps310_raw(emu_dps310_sample_coef, pa, degc, osr,
					       0, &rp, &rt);
				assert_close_abs(dps310_compensate_t(&c, rt, 0), degc,
						 0.001);
				assert_close_abs(dps310_compensate_p(&c, rp, osr, rt, 0),
						 pa, 0.5);
			}
		}
	}
}

static uint32_t
next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Only constant divisors: any coefficients and raw values give finite
 * numbers; UBSan checks the sign extension and unpacking. */
static void
test_garbage_calibration(void **state)
{
	uint32_t seed = 0x7f4a7c15;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint8_t raw[DPS310_COEF_LEN], d[6];
		struct dps310_coef c;

		for (size_t k = 0; k < sizeof(raw); k++)
			raw[k] = (uint8_t)next(&seed);
		for (size_t k = 0; k < sizeof(d); k++)
			d[k] = (uint8_t)next(&seed);
		if (i % 3 == 0) {
			memset(raw, i % 2 ? 0xff : 0x00, sizeof(raw));
			memset(d, i % 2 ? 0x80 : 0xff, sizeof(d));
		}
		dps310_coef_parse(raw, &c);
		unsigned op = next(&seed) % 16, ot = next(&seed) % 16;
		double t = dps310_compensate_t(&c, dps310_raw24(d + 3), ot);
		double p = dps310_compensate_p(&c, dps310_raw24(d), op,
					       dps310_raw24(d + 3), ot);

		assert_true(isfinite(t));
		assert_true(isfinite(p));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coef_parse),
		cmocka_unit_test(test_coef_parse_extremes),
		cmocka_unit_test(test_sample_vector),
		cmocka_unit_test(test_scale_and_time),
		cmocka_unit_test(test_inversion_roundtrip),
		cmocka_unit_test(test_garbage_calibration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
