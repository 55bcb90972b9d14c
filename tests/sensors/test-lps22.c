/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * LPS22HB/HH output scaling (the sensors sheet's §8 example: 0x3e8000 is
 * 1000.00 hPa, 0x09c4 is 25.00 degC), signs, and output rate choice.
 */
#include <errno.h>

#include "lps22.h"
#include "test-util.h"

static void
test_sheet_example(void **state)
{
	(void)state;
	assert_true(lps22_pressure_pa((const uint8_t[]){ 0x00, 0x80, 0x3e }) ==
		    100000.0);
	assert_true(lps22_temperature_c((const uint8_t[]){ 0xc4, 0x09 }) == 25.0);
}

static void
test_signs_and_extremes(void **state)
{
	(void)state;
	/* One LSB: 100/4096 Pa. */
	assert_true(lps22_pressure_pa((const uint8_t[]){ 0x01, 0x00, 0x00 }) ==
		    100.0 / 4096.0);
	assert_true(lps22_pressure_pa((const uint8_t[]){ 0xff, 0xff, 0xff }) ==
		    -100.0 / 4096.0);
	assert_true(lps22_pressure_pa((const uint8_t[]){ 0x00, 0x00, 0x80 }) ==
		    -8388608 * (100.0 / 4096.0));
	assert_true(lps22_temperature_c((const uint8_t[]){ 0x18, 0xfc }) == -10.0);
	assert_true(lps22_temperature_c((const uint8_t[]){ 0x00, 0x80 }) ==
		    -327.68);
	assert_true(lps22_temperature_c((const uint8_t[]){ 0xff, 0x7f }) ==
		    327.67);
}

static void
test_odr(void **state)
{
	(void)state;
	/* 0: the fastest. */
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HB, 0), 5);
	assert_int_equal(lps22_odr_hz(LPS22_VARIANT_HB, 5), 75);
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HH, 0), 7);
	assert_int_equal(lps22_odr_hz(LPS22_VARIANT_HH, 7), 200);
	/* The slowest rate no slower than asked. */
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HB, 20), 3);
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HB, 1), 1);
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HH, 80), 6);
	/* Faster than the chip: its fastest. */
	assert_int_equal(lps22_odr_code(LPS22_VARIANT_HB, 150), 5);
	assert_int_equal(lps22_odr_hz(LPS22_VARIANT_HB, 0), 0);
	assert_int_equal(lps22_odr_hz(LPS22_VARIANT_HB, 9), 75);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sheet_example),
		cmocka_unit_test(test_signs_and_extremes),
		cmocka_unit_test(test_odr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
