/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "emu-lps22.h"

#include <math.h>
#include <string.h>

static bool
active_high(const struct emu_lps22 *e)
{
	const uint8_t *r = e->chip.regs;

	if (e->who_am_i == LPS22HH_WHO_AM_I)
		return !(r[LPS22_REG_CTRL2] & LPS22HH_CTRL2_INT_H_L);
	return !(r[LPS22_REG_CTRL3] & LPS22HB_CTRL3_INT_H_L);
}

/* The pin shows P_DA when enabled. */
static void
update_pin(struct emu_lps22 *e)
{
	const uint8_t *r = e->chip.regs;

	emu_chip_int(&e->chip, (r[LPS22_REG_CTRL3] & LPS22_CTRL3_DRDY) &&
				       (r[LPS22_REG_STATUS] & LPS22_STATUS_P_DA),
		     active_high(e));
}

static void
lps22_after_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_lps22 *e = (struct emu_lps22 *)chip;

	if (emu_read_covers(reg, len, LPS22_REG_PRESS_XL + 2))
		chip->regs[LPS22_REG_STATUS] &= (uint8_t)~LPS22_STATUS_P_DA;
	if (emu_read_covers(reg, len, LPS22_REG_PRESS_XL + 4))
		chip->regs[LPS22_REG_STATUS] &= (uint8_t)~LPS22_STATUS_T_DA;
	update_pin(e);
}

static void
convert(struct emu_lps22 *e)
{
	uint8_t *r = e->chip.regs;
	uint32_t p = (uint32_t)(int32_t)lround(e->pressure_pa / 100.0 * 4096.0);
	uint32_t t = (uint32_t)(int32_t)lround(e->temperature_c * 100.0);

	r[LPS22_REG_PRESS_XL] = (uint8_t)p;
	r[LPS22_REG_PRESS_XL + 1] = (uint8_t)(p >> 8);
	r[LPS22_REG_PRESS_XL + 2] = (uint8_t)(p >> 16);
	r[LPS22_REG_PRESS_XL + 3] = (uint8_t)t;
	r[LPS22_REG_PRESS_XL + 4] = (uint8_t)(t >> 8);
	r[LPS22_REG_STATUS] |= LPS22_STATUS_P_DA | LPS22_STATUS_T_DA;
	e->conversions++;
	e->have_result = true;
	update_pin(e);
}

/* One output period at ODR code (0: one-shot, the fastest's). */
static uint32_t
period_us(const struct emu_lps22 *e, unsigned code)
{
	enum lps22_variant v = e->who_am_i == LPS22HH_WHO_AM_I ?
			       LPS22_VARIANT_HH : LPS22_VARIANT_HB;
	uint32_t max;

	/* One-shot (code 0) takes at most the fastest output period; the
	 * rates are the driver's table (sensors/lps22.c), no typical given. */
	if (code == 0)
		code = lps22_odr_code(v, 0);
	max = 1000000u / lps22_odr_hz(v, code);
	return emu_chip_duration(&e->chip, max, max / 10 * 9);
}

static void
start(struct emu_lps22 *e, unsigned code)
{
	e->converting = true;
	e->done_us = e->chip.now_us + period_us(e, code);
}

static void
lps22_time(struct emu_chip *chip)
{
	struct emu_lps22 *e = (struct emu_lps22 *)chip;

	if (!e->converting || chip->now_us < e->done_us)
		return;
	e->converting = false;
	chip->regs[LPS22_REG_CTRL2] &= (uint8_t)~LPS22_CTRL2_ONE_SHOT;
	convert(e);
}

static void
lps22_on_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_lps22 *e = (struct emu_lps22 *)chip;

	if (emu_read_covers(reg, len, LPS22_REG_PRESS_XL) &&
	    (e->converting || !e->have_result))
		chip->early_reads++;
}

static void
lps22_write(struct emu_chip *chip, uint8_t reg, uint8_t val)
{
	struct emu_lps22 *e = (struct emu_lps22 *)chip;
	uint8_t *r = chip->regs;

	switch (reg) {
	case LPS22_REG_CTRL1:
		r[reg] = val & 0x7f;
		e->converting = false;
		if (val & 0x70) {
			start(e, (val & 0x70) >> 4);
			lps22_time(chip);
		}
		break;
	case LPS22_REG_CTRL2:
		if (val & LPS22_CTRL2_SWRESET) {
			emu_lps22_power_on(e);
			e->resets++;
			break;
		}
		r[reg] = val;
		update_pin(e);
		if ((val & LPS22_CTRL2_ONE_SHOT) && !(r[LPS22_REG_CTRL1] & 0x70)) {
			start(e, 0);
			lps22_time(chip);
		}
		r[reg] &= (uint8_t)(e->converting ? 0xff : ~LPS22_CTRL2_ONE_SHOT);
		break;
	case LPS22_REG_CTRL3:
		r[reg] = val;
		update_pin(e);
		break;
	default:
		break;
	}
}

void
emu_lps22_power_on(struct emu_lps22 *e)
{
	uint8_t *r = e->chip.regs;

	memset(r, 0, sizeof(e->chip.regs));
	r[LPS22_REG_WHO_AM_I] = e->who_am_i;
	r[LPS22_REG_CTRL2] = LPS22_CTRL2_IF_ADD_INC;
	e->converting = false;
	e->have_result = false;
	update_pin(e);
}

void
emu_lps22_init(struct emu_lps22 *e, uint8_t addr, uint8_t who_am_i)
{
	memset(e, 0, sizeof(*e));
	emu_chip_init(&e->chip, addr);
	e->chip.on_write = lps22_write;
	e->chip.after_read = lps22_after_read;
	e->chip.on_read = lps22_on_read;
	e->chip.on_time = lps22_time;
	e->who_am_i = who_am_i;
	e->pressure_pa = 101325.0;
	e->temperature_c = 20.0;
	emu_lps22_power_on(e);
}

void
emu_lps22_set(struct emu_lps22 *e, double pressure_pa, double temperature_c)
{
	e->pressure_pa = pressure_pa;
	e->temperature_c = temperature_c;
	if ((e->chip.regs[LPS22_REG_CTRL1] & 0x70) && !e->converting)
		convert(e);
}
