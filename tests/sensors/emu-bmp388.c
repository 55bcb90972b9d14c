/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "emu-bmp388.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "bmp388.h"

const uint8_t emu_bmp388_sample_calib[21] = {
	0x23, 0x6b, 0x58, 0x49, 0xf6, 0x5c, 0xff, 0xce, 0xf4, 0x23, 0x00,
	0xea, 0x63, 0x6e, 0x79, 0xf3, 0xf6, 0xaa, 0x43, 0x12, 0xc4,
};

/* The raw value in [0, 2^24) nearest to where f first crosses target: a
 * coarse scan for the crossing (f may fall or rise with the raw value,
 * and the cubic pressure term bends back far outside the chip's range),
 * then bisection keeping the crossing inside [lo, hi]. */
static uint32_t
solve(double (*f)(const struct bmp388_calib *, uint32_t, double),
      const struct bmp388_calib *c, double arg, double target)
{
	const uint32_t step = 1u << 12;
	uint32_t lo = 0, hi = 0;

	for (uint32_t r = step; r <= 0xffffff; r += step) {
		if ((f(c, r - step, arg) < target) != (f(c, r, arg) < target)) {
			lo = r - step;
			hi = r;
			break;
		}
	}
	const bool lo_below = f(c, lo, arg) < target;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((f(c, mid, arg) < target) == lo_below)
			lo = mid;
		else
			hi = mid;
	}
	return fabs(f(c, lo, arg) - target) <= fabs(f(c, hi, arg) - target) ?
		       lo : hi;
}

static double
temp_of(const struct bmp388_calib *c, uint32_t raw, double unused)
{
	(void)unused;
	return bmp388_compensate_t(c, raw);
}

void
emu_bmp388_raw(const uint8_t calib[21], double pressure_pa,
	       double temperature_c, uint32_t *raw_p, uint32_t *raw_t)
{
	struct bmp388_nvm nvm;
	struct bmp388_calib c;

	bmp388_nvm_parse(calib, &nvm);
	bmp388_calib_scale(&nvm, &c);
	*raw_t = solve(temp_of, &c, 0.0, temperature_c);
	*raw_p = solve(bmp388_compensate_p, &c, bmp388_compensate_t(&c, *raw_t),
		       pressure_pa);
}

static void
put24(uint8_t *r, uint32_t v)
{
	r[0] = (uint8_t)v;
	r[1] = (uint8_t)(v >> 8);
	r[2] = (uint8_t)(v >> 16);
}

static void
convert(struct emu_bmp388 *e)
{
	uint8_t *r = e->chip.regs;
	uint8_t pwr = r[BMP388_REG_PWR_CTRL];
	uint32_t raw_p, raw_t;

	emu_bmp388_raw(e->calib, e->pressure_pa, e->temperature_c, &raw_p,
		       &raw_t);
	put24(r + BMP388_REG_DATA,
	      (pwr & BMP388_PWR_PRESS_EN) ? raw_p : BMP388_ADC_SKIPPED);
	put24(r + BMP388_REG_DATA + 3,
	      (pwr & BMP388_PWR_TEMP_EN) ? raw_t : BMP388_ADC_SKIPPED);
	r[BMP388_REG_STATUS] |= BMP388_STATUS_DRDY_PRESS | BMP388_STATUS_DRDY_TEMP;
	e->conversions++;
	e->have_result = true;

	uint8_t ic = r[BMP388_REG_INT_CTRL];
	if (!(ic & BMP388_INT_DRDY_EN))
		return;
	r[BMP388_REG_INT_STATUS] |= BMP388_INT_STATUS_DRDY;
	if (ic & BMP388_INT_LATCH)
		emu_chip_int(&e->chip, true, ic & BMP388_INT_LEVEL_HIGH);
	else
		emu_chip_int_pulse(&e->chip, ic & BMP388_INT_LEVEL_HIGH,
				   EMU_BMP388_PULSE_US);
}

/* One conversion at the OSR register's settings: the larger of the
 * datasheet's (2020 us a step) and the Bosch API's (234 + 392 + 313 us
 * and 2000 us a step) figures as the maximum, the API's as typical. */
static uint32_t
conv_us(const struct emu_bmp388 *e)
{
	uint8_t osr = e->chip.regs[BMP388_REG_OSR];
	uint32_t steps = (1u << (osr & 7)) + (1u << (osr >> 3 & 7));

	return emu_chip_duration(&e->chip, 234 + 392 + 313 + 2020 * steps,
				 234 + 392 + 313 + 2000 * steps);
}

static void
bmp388_time(struct emu_chip *chip)
{
	struct emu_bmp388 *e = (struct emu_bmp388 *)chip;
	uint8_t *r = chip->regs;

	if (!e->converting || chip->now_us < e->done_us)
		return;
	e->converting = false;
	convert(e);
	if ((r[BMP388_REG_PWR_CTRL] & 0x30) != BMP388_MODE_NORMAL)
		r[BMP388_REG_PWR_CTRL] &= 0x03;		/* back to sleep */
}

static void
bmp388_on_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_bmp388 *e = (struct emu_bmp388 *)chip;

	if (emu_read_covers(reg, len, BMP388_REG_DATA) &&
	    (e->converting || !e->have_result))
		chip->early_reads++;
}

static void
bmp388_after_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	uint8_t *r = chip->regs;

	if (emu_read_covers(reg, len, BMP388_REG_DATA + 2))
		r[BMP388_REG_STATUS] &= (uint8_t)~BMP388_STATUS_DRDY_PRESS;
	if (emu_read_covers(reg, len, BMP388_REG_DATA + 5))
		r[BMP388_REG_STATUS] &= (uint8_t)~BMP388_STATUS_DRDY_TEMP;

	if (!emu_read_covers(reg, len, BMP388_REG_INT_STATUS))
		return;
	r[BMP388_REG_INT_STATUS] = 0;
	emu_chip_int(chip, false, r[BMP388_REG_INT_CTRL] & BMP388_INT_LEVEL_HIGH);
}

static void
bmp388_write(struct emu_chip *chip, uint8_t reg, uint8_t val)
{
	struct emu_bmp388 *e = (struct emu_bmp388 *)chip;
	uint8_t *r = chip->regs;

	switch (reg) {
	case BMP388_REG_CMD:
		if (val == BMP388_CMD_SOFT_RESET)
			emu_bmp388_power_on(e);
		else
			r[BMP388_REG_ERR] |= BMP388_ERR_CMD;
		break;
	case BMP388_REG_OSR:
		r[reg] = val & 0x3f;
		break;
	case BMP388_REG_ODR:
		r[reg] = val & 0x1f;
		break;
	case BMP388_REG_CONFIG:
		r[reg] = val & 0x0e;
		break;
	case BMP388_REG_INT_CTRL:
		/* A new level moves the idle pin at once. */
		r[reg] = val & 0x7f;
		emu_chip_int(chip, (r[BMP388_REG_INT_STATUS] &
				    BMP388_INT_STATUS_DRDY) &&
				   (val & BMP388_INT_LATCH),
			     val & BMP388_INT_LEVEL_HIGH);
		break;
	case BMP388_REG_PWR_CTRL: {
		uint8_t mode = val & 0x30;

		r[reg] = val & 0x33;
		e->converting = false;
		if (mode == BMP388_MODE_SLEEP)
			break;
		if (mode == BMP388_MODE_NORMAL) {
			uint32_t meas = bmp388_meas_time_us(r[BMP388_REG_OSR] >> 3 & 7,
							    r[BMP388_REG_OSR] & 7);
			if (meas > (5000u << r[BMP388_REG_ODR])) {
				r[BMP388_REG_ERR] |= BMP388_ERR_CONF;
				r[reg] &= 0x03;
				break;
			}
		}
		/* Forced (either code): one conversion, then back to
		 * sleep; normal: the first. */
		e->converting = true;
		e->done_us = chip->now_us + conv_us(e);
		bmp388_time(chip);
		break;
	}
	default:
		break;
	}
}

void
emu_bmp388_power_on(struct emu_bmp388 *e)
{
	uint8_t *r = e->chip.regs;

	memset(r, 0, sizeof(e->chip.regs));
	r[BMP388_REG_ID] = e->chip_id;
	r[0x01] = 0x01;		/* rev id */
	r[BMP388_REG_STATUS] = BMP388_STATUS_CMD_RDY;
	r[BMP388_REG_INT_CTRL] = BMP388_INT_LEVEL_HIGH;
	emu_chip_int(&e->chip, false, true);
	memcpy(r + BMP388_REG_CALIB, e->calib, sizeof(e->calib));
	put24(r + BMP388_REG_DATA, BMP388_ADC_SKIPPED);
	put24(r + BMP388_REG_DATA + 3, BMP388_ADC_SKIPPED);
	e->converting = false;
	e->have_result = false;
}

void
emu_bmp388_init(struct emu_bmp388 *e, uint8_t addr, uint8_t chip_id,
		const uint8_t calib[21])
{
	memset(e, 0, sizeof(*e));
	emu_chip_init(&e->chip, addr);
	e->chip.on_write = bmp388_write;
	e->chip.after_read = bmp388_after_read;
	e->chip.on_read = bmp388_on_read;
	e->chip.on_time = bmp388_time;
	e->chip_id = chip_id;
	memcpy(e->calib, calib, sizeof(e->calib));
	e->pressure_pa = 101325.0;
	e->temperature_c = 20.0;
	emu_bmp388_power_on(e);
}

void
emu_bmp388_set(struct emu_bmp388 *e, double pressure_pa, double temperature_c)
{
	e->pressure_pa = pressure_pa;
	e->temperature_c = temperature_c;
	if ((e->chip.regs[BMP388_REG_PWR_CTRL] & 0x30) == BMP388_MODE_NORMAL &&
	    e->have_result)
		convert(e);
}
