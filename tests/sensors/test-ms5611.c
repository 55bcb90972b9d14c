/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MS5611 / MS5607 / MS5637 compensation against the datasheets' worked
 * examples (every intermediate), the sensors sheet's cold-branch vector,
 * ArduPilot's SITL MS5611 emulation vectors (TV10), AN520's CRC-4 test
 * pattern, timing, the MS5611/MS5607 mix-up check and garbage PROMs.
 */
#include <errno.h>

#include "emu-ms5611.h"
#include "ms5611.h"
#include "test-util.h"

static void
test_crc4_an520(void **state)
{
	uint16_t w[8] = { 0x3132, 0x3334, 0x3536, 0x3738, 0x3940, 0x4142,
			  0x4344, 0x4500 };

	(void)state;
	assert_int_equal(ms5611_crc4(w), 0xb);
	w[7] = 0x450b;
	assert_int_equal(ms5611_prom_crc_computed(MS5611_VARIANT_MS5611, w), 0xb);
	assert_int_equal(ms5611_prom_crc_stored(MS5611_VARIANT_MS5611, w), 0xb);
	/* C1..C6 are not blank here, so the pattern passes the check. */
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5611, w), 0);
	w[3] ^= 0x0100;
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5611, w), -EBADMSG);
}

static void
test_crc4_blank(void **state)
{
	uint16_t zero[8] = { 0 }, ones[8];

	(void)state;
	memset(ones, 0xff, sizeof(ones));
	/* All-zero PROM: CRC 0 "matches"; still refused. */
	assert_int_equal(ms5611_prom_crc_computed(MS5611_VARIANT_MS5611, zero), 0);
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5611, zero), -ENODATA);
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5637, zero), -ENODATA);
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5611, ones), -ENODATA);
}

static void
test_crc4_ms5637_layout(void **state)
{
	uint16_t p[8];

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5637, p);
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5637, p), 0);
	/* The CRC sits in word 0's top nibble; word 7 does not count. */
	p[7] = 0x1234;
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5637, p), 0);
	p[0] ^= 0x1000;
	assert_int_equal(ms5611_prom_check(MS5611_VARIANT_MS5637, p), -EBADMSG);
}

static void
test_ms5611_datasheet(void **state)
{
	uint16_t p[8];
	struct ms5611_comp c;

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, p);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5611, p, 9085466,
					   8569150, &c), 0);
	assert_int_equal(c.dt, 2366);
	assert_int_equal(c.temp, 2007);
	assert_int_equal(c.off, 2420281617LL);
	assert_int_equal(c.sens, 1315097036LL);
	assert_int_equal(c.t2, 0);
	assert_int_equal(c.temp_centi, 2007);
	assert_int_equal(c.pressure_pa, 100009);
	assert_int_equal(c.first_order_pa, 100009);
}

static void
test_ms5611_cold(void **state)
{
	uint16_t p[8];
	struct ms5611_comp c;

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, p);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5611, p, 9085466,
					   8269150, &c), 0);
	assert_int_equal(c.dt, -297634);
	assert_int_equal(c.temp, 995);
	assert_int_equal(c.t2, 41);
	assert_int_equal(c.off2, 2525062);
	assert_int_equal(c.sens2, 1262531);
	assert_int_equal(c.temp_centi, 954);
	assert_int_equal(c.pressure_pa, 97971);
	assert_int_equal(c.first_order_pa, 98061);
}

static void
test_ms5607_datasheet(void **state)
{
	uint16_t p[8];
	struct ms5611_comp c;

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5607, p);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5607, p, 6465444,
					   8077636, &c), 0);
	assert_int_equal(c.dt, 68);
	assert_int_equal(c.temp, 2000);
	assert_int_equal(c.off, 5764707214LL);
	assert_int_equal(c.sens, 3039050829LL);
	assert_int_equal(c.temp_centi, 2000);
	assert_int_equal(c.pressure_pa, 110002);

	/* The same table in the MS5637 sheet; its hot-branch T2 is 0. */
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5637, p);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5637, p, 6465444,
					   8077636, &c), 0);
	assert_int_equal(c.t2, 0);
	assert_int_equal(c.temp_centi, 2000);
	assert_int_equal(c.pressure_pa, 110002);
}

/* ArduPilot's SITL MS5611 (float maths) turns these truths into D1/D2;
 * our integer compensation gives them back within its 1 Pa / 0.01 degC
 * step (ArduPilot's own self-check allows 0.2 Pa on its float path). */
static void
test_ardupilot_tv10(void **state)
{
	static const struct {
		double pa, degc;
		uint32_t d1, d2;
	} tv[] = {
		{ 101325, 25.0, 9104589, 8714930 },
		{ 95000, 31.25, 8719841, 8900112 },
		{ 95000, 10.0, 8922127, 8281705 },
		{ 50000, -20.0, 6680620, 7529942 },
	};
	uint16_t p[8];

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, p);
	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		struct ms5611_comp c;

		assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5611, p,
						   tv[i].d1, tv[i].d2, &c), 0);
		assert_close_abs(c.pressure_pa, tv[i].pa, 1.0);
		assert_close_abs(c.temp_centi / 100.0, tv[i].degc, 0.011);
	}
}

static void
test_raw_range(void **state)
{
	uint16_t p[8];
	struct ms5611_comp c;

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, p);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5611, p, 0x1000000,
					   1, &c), -EINVAL);
	assert_int_equal(ms5611_compensate(MS5611_VARIANT_MS5611, p, 1,
					   0x1000000, &c), -EINVAL);
	assert_int_equal(ms5611_adc24((const uint8_t[]){ 0x8a, 0xa2, 0x1a }),
			 9085466);
}

static void
test_conv_time(void **state)
{
	(void)state;
	assert_int_equal(ms5611_conv_time_us(MS5611_VARIANT_MS5611, 0), 600);
	assert_int_equal(ms5611_conv_time_us(MS5611_VARIANT_MS5607, 4), 9040);
	assert_int_equal(ms5611_conv_time_us(MS5611_VARIANT_MS5611, 9), 9040);
	assert_int_equal(ms5611_conv_time_us(MS5611_VARIANT_MS5637, 5), 16440);
	assert_int_equal(ms5611_conv_time_us(MS5611_VARIANT_MS5637, 2), 2100);
}

/* An MS5607 computed as an MS5611 reads half the pressure, an MS5611
 * computed as an MS5607 twice; on the ground the check names the twin. */
static void
test_twin_check(void **state)
{
	uint16_t p11[8], p07[8];
	int32_t twin;
	struct ms5611_comp c;

	(void)state;
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5611, p11);
	emu_ms5611_datasheet_prom(MS5611_VARIANT_MS5607, p07);
	assert_int_equal(ms5611_twin(MS5611_VARIANT_MS5611), MS5611_VARIANT_MS5607);
	assert_int_equal(ms5611_twin(MS5611_VARIANT_MS5637), MS5611_VARIANT_MS5637);

	ms5611_compensate(MS5611_VARIANT_MS5611, p07, 6465444, 8077636, &c);
	assert_close_abs(c.pressure_pa, 110002 / 2.0, 2.0);
	/* 55 kPa could be a real MS5611 at 5 km: not flagged ... */
	assert_false(ms5611_likely_twin(MS5611_VARIANT_MS5611, p07, 6465444,
					8077636, &twin));
	/* ... but an MS5607 at sea level reads 50.7 kPa as an MS5611. */
	uint32_t d1, d2;
	emu_ms5611_raw(MS5611_VARIANT_MS5607, p07, 101325.0, 20.0, &d1, &d2);
	assert_true(ms5611_likely_twin(MS5611_VARIANT_MS5611, p07, d1, d2, &twin));
	assert_close_abs(twin, 101325.0, 1.0);

	ms5611_compensate(MS5611_VARIANT_MS5607, p11, 9085466, 8569150, &c);
	assert_close_abs(c.pressure_pa, 2 * 100009.0, 4.0);
	assert_true(ms5611_likely_twin(MS5611_VARIANT_MS5607, p11, 9085466,
				       8569150, &twin));
	assert_int_equal(twin, 100009);

	/* Right variant: no flag. */
	assert_false(ms5611_likely_twin(MS5611_VARIANT_MS5611, p11, 9085466,
					8569150, &twin));
	assert_false(ms5611_likely_twin(MS5611_VARIANT_MS5637, p07, 6465444,
					8077636, &twin));
}

static void
test_inversion_roundtrip(void **state)
{
	static const enum ms5611_variant vs[] = {
		MS5611_VARIANT_MS5611, MS5611_VARIANT_MS5607, MS5611_VARIANT_MS5637,
	};

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		uint16_t p[8];

		emu_ms5611_datasheet_prom(vs[i], p);
		for (double pa = 30000.0; pa <= 110000.0; pa += 4321.0) {
			for (double degc = -40.0; degc <= 85.0; degc += 12.5) {
				uint32_t d1, d2;
				struct ms5611_comp c;

				emu_ms5611_raw(vs[i], p, pa, degc, &d1, &d2);
				ms5611_compensate(vs[i], p, d1, d2, &c);
				assert_close_abs(c.temp_centi / 100.0, degc, 0.011);
				assert_close_abs(c.pressure_pa, pa, 1.0);
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

/* Any PROM and any 24-bit D1/D2: no overflow, no undefined behaviour
 * (UBSan watches), results within what int64 maths can give. */
static void
test_garbage_calibration(void **state)
{
	uint32_t seed = 0x2545f491;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint16_t p[8];
		struct ms5611_comp c;

		for (int k = 0; k < 8; k++)
			p[k] = (uint16_t)next(&seed);
		if (i % 5 == 0)
			memset(p, i % 2 ? 0xff : 0x00, sizeof(p));
		uint32_t d1 = i % 3 ? next(&seed) & 0xffffff : 0xffffff;
		uint32_t d2 = i % 7 ? next(&seed) & 0xffffff : (i % 2 ? 0 : 0xffffff);
		enum ms5611_variant v = (enum ms5611_variant)(i % 3);
		int32_t twin;

		assert_int_equal(ms5611_compensate(v, p, d1, d2, &c), 0);
		assert_true(c.temp_centi > -300000 && c.temp_centi < 300000);
		(void)ms5611_likely_twin(v, p, d1, d2, &twin);
		(void)ms5611_prom_check(v, p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc4_an520),
		cmocka_unit_test(test_crc4_blank),
		cmocka_unit_test(test_crc4_ms5637_layout),
		cmocka_unit_test(test_ms5611_datasheet),
		cmocka_unit_test(test_ms5611_cold),
		cmocka_unit_test(test_ms5607_datasheet),
		cmocka_unit_test(test_ardupilot_tv10),
		cmocka_unit_test(test_raw_range),
		cmocka_unit_test(test_conv_time),
		cmocka_unit_test(test_twin_check),
		cmocka_unit_test(test_inversion_roundtrip),
		cmocka_unit_test(test_garbage_calibration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
