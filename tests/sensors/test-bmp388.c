/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * BMP388/BMP390 compensation against the sensors sheet's §8 vector (a
 * real sensor's NVM and reading from a third-party test suite; Bosch's
 * datasheet has no worked example), timing, and garbage calibration.
 */
#include <errno.h>

#include "bmp388.h"
#include "emu-bmp388.h"
#include "test-util.h"

static struct bmp388_calib
sample_calib(void)
{
	struct bmp388_nvm nvm;
	struct bmp388_calib c;

	bmp388_nvm_parse(emu_bmp388_sample_calib, &nvm);
	bmp388_calib_scale(&nvm, &c);
	return c;
}

static void
test_nvm_parse(void **state)
{
	struct bmp388_nvm n;

	(void)state;
	bmp388_nvm_parse(emu_bmp388_sample_calib, &n);
	assert_int_equal(n.t1, 27427);
	assert_int_equal(n.t2, 18776);
	assert_int_equal(n.t3, -10);
	assert_int_equal(n.p1, -164);
	assert_int_equal(n.p2, -2866);
	assert_int_equal(n.p3, 35);
	assert_int_equal(n.p4, 0);
	assert_int_equal(n.p5, 25578);
	assert_int_equal(n.p6, 31086);
	assert_int_equal(n.p7, -13);
	assert_int_equal(n.p8, -10);
	assert_int_equal(n.p9, 17322);
	assert_int_equal(n.p10, 18);
	assert_int_equal(n.p11, -60);
}

static void
test_sample_vector(void **state)
{
	struct bmp388_calib c = sample_calib();
	const uint8_t data[6] = { 0x97, 0x9f, 0x6d, 0x73, 0xd8, 0x85 };

	(void)state;
	uint32_t raw_p = bmp388_adc24(data), raw_t = bmp388_adc24(data + 3);
	assert_int_equal(raw_p, 7184279);
	assert_int_equal(raw_t, 8771699);
	double t = bmp388_compensate_t(&c, raw_t);
	assert_close_abs(t, 30.49931, 0.000005);
	assert_close_abs(bmp388_compensate_p(&c, raw_p, t), 100876.00635, 0.00001);
}

static void
test_meas_time(void **state)
{
	(void)state;
	/* x8/x1: 234 + 392 + 16000 + 313 + 2000 us, under the 50 Hz ODR. */
	assert_int_equal(bmp388_meas_time_us(0, 3), 18939);
	assert_int_equal(bmp388_meas_time_us(5, 5), 234 + 392 + 64000 + 313 + 64000);
}

static void
test_inversion_roundtrip(void **state)
{
	struct bmp388_calib c = sample_calib();

	(void)state;
	for (double pa = 30000.0; pa <= 110000.0; pa += 1234.5) {
		for (double degc = -40.0; degc <= 85.0; degc += 12.5) {
			uint32_t raw_p, raw_t;

			emu_bmp388_raw(emu_bmp388_sample_calib, pa, degc, &raw_p,
				       &raw_t);
			double t = bmp388_compensate_t(&c, raw_t);
			assert_close_abs(t, degc, 0.001);
			assert_close_abs(bmp388_compensate_p(&c, raw_p, t), pa, 0.05);
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

/* Only constant divisors, so any NVM gives a finite number (which the
 * driver then judges); UBSan checks the integer unpacking. */
static void
test_garbage_calibration(void **state)
{
	uint32_t seed = 0x9e3779b9;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint8_t raw[BMP388_CALIB_LEN];
		struct bmp388_nvm nvm;
		struct bmp388_calib c;

		for (size_t k = 0; k < sizeof(raw); k++)
			raw[k] = (uint8_t)next(&seed);
		if (i % 3 == 0)
			memset(raw, i % 2 ? 0xff : 0x00, sizeof(raw));
		bmp388_nvm_parse(raw, &nvm);
		bmp388_calib_scale(&nvm, &c);
		uint32_t raw_t = i % 5 ? next(&seed) & 0xffffff : 0xffffff;
		uint32_t raw_p = i % 7 ? next(&seed) & 0xffffff : 0;
		double t = bmp388_compensate_t(&c, raw_t);
		double p = bmp388_compensate_p(&c, raw_p, t);

		assert_true(isfinite(t));
		assert_true(isfinite(p));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvm_parse),
		cmocka_unit_test(test_sample_vector),
		cmocka_unit_test(test_meas_time),
		cmocka_unit_test(test_inversion_roundtrip),
		cmocka_unit_test(test_garbage_calibration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
