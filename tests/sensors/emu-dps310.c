/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "emu-dps310.h"

#include <math.h>
#include <string.h>

const uint8_t emu_dps310_sample_coef[DPS310_COEF_LEN] = {
	0x0c, 0xce, 0xfb, 0x13, 0xa5, 0x5f, 0x2a, 0x0f, 0xf6,
	0x8d, 0x05, 0x51, 0xd6, 0xff, 0x00, 0x7d, 0xfb, 0x68,
};

static const uint8_t fixup[5][2] = {
	{ 0x0e, 0xa5 }, { 0x0f, 0x96 }, { 0x62, 0x02 }, { 0x0e, 0x00 },
	{ 0x0f, 0x00 },
};

static int32_t
clamp24(double v)
{
	if (v < -8388608.0)
		return -8388608;
	if (v > 8388607.0)
		return 8388607;
	return (int32_t)lround(v);
}

void
emu_dps310_raw(const uint8_t coef[DPS310_COEF_LEN], double pressure_pa,
	       double temperature_c, unsigned osr_p, unsigned osr_t,
	       int32_t *raw_p, int32_t *raw_t)
{
	struct dps310_coef c;

	dps310_coef_parse(coef, &c);
	*raw_t = c.c1 != 0 ? clamp24((temperature_c - c.c0 * 0.5) / c.c1 *
				     dps310_scale(osr_t)) : 0;

	/* Pressure: a coarse scan for the crossing (the cubic bends back
	 * far outside the chip's range), then bisection. */
	const int32_t step = 1 << 12;
	int32_t lo = -8388608, hi = -8388608;
#define F(r) (dps310_compensate_p(&c, (r), osr_p, *raw_t, osr_t) - pressure_pa)
	for (int32_t r = -8388608 + step; r <= 8388607; r += step) {
		if ((F(r - step) < 0) != (F(r) < 0)) {
			lo = r - step;
			hi = r;
			break;
		}
	}
	const bool lo_below = F(lo) < 0;
	while (hi - lo > 1) {
		int32_t mid = lo + (hi - lo) / 2;

		if ((F(mid) < 0) == lo_below)
			lo = mid;
		else
			hi = mid;
	}
	*raw_p = fabs(F(lo)) <= fabs(F(hi)) ? lo : hi;
#undef F
}

static void
put24(uint8_t *r, int32_t v)
{
	uint32_t u = (uint32_t)v;

	r[0] = (uint8_t)(u >> 16);
	r[1] = (uint8_t)(u >> 8);
	r[2] = (uint8_t)u;
}

/* One measurement of what MEAS_CTRL asks (bit0 pressure, bit1
 * temperature). */
static void
measure(struct emu_dps310 *e, uint8_t what)
{
	uint8_t *r = e->chip.regs;
	unsigned osr_p = r[DPS310_REG_PRS_CFG] & 0x0f;
	unsigned osr_t = r[DPS310_REG_TMP_CFG] & 0x07;
	double t = e->temperature_c;
	int32_t raw_p, raw_t;

	if (e->variant == DPS310_VARIANT_DPS310) {
		if (e->hot_bug && e->fixup_step < 5)
			t += 35.0;
		if ((r[DPS310_REG_TMP_CFG] & DPS310_TMP_EXT) !=
		    (e->coef_srce & DPS310_TMP_EXT))
			t += 10.0;
	} else if (!(r[DPS310_REG_TMP_CFG] & DPS310_TMP_EXT)) {
		t += 10.0;
	}
	emu_dps310_raw(e->coef, e->pressure_pa, t, osr_p, osr_t, &raw_p, &raw_t);
	if (what & DPS310_MEAS_PRS) {
		put24(r + DPS310_REG_PSR, raw_p);
		r[DPS310_REG_MEAS_CFG] |= DPS310_MEAS_PRS_RDY;
	}
	if (what & DPS310_MEAS_TMP) {
		put24(r + DPS310_REG_PSR + 3, raw_t);
		r[DPS310_REG_MEAS_CFG] |= DPS310_MEAS_TMP_RDY;
	}
	e->conversions++;
	e->have_result = true;

	uint8_t cfg = r[DPS310_REG_CFG];
	if ((what & DPS310_MEAS_PRS) && (cfg & DPS310_CFG_INT_PRS))
		r[DPS310_REG_INT_STS] |= DPS310_INT_STS_PRS;
	if ((what & DPS310_MEAS_TMP) && (cfg & DPS310_CFG_INT_TMP))
		r[DPS310_REG_INT_STS] |= DPS310_INT_STS_TMP;
	if (r[DPS310_REG_INT_STS])
		emu_chip_int(&e->chip, true, cfg & DPS310_CFG_INT_HL);
}

static uint32_t
meas_us(const struct emu_dps310 *e, unsigned osr)
{
	/* Infineon's maximum, as the driver has it; no typical given. */
	uint32_t max = dps310_meas_time_us(osr);

	return emu_chip_duration(&e->chip, max, max / 10 * 9);
}

/* The time what (bit0 pressure, bit1 temperature) takes. */
static uint32_t
what_us(const struct emu_dps310 *e, uint8_t what)
{
	const uint8_t *r = e->chip.regs;

	return ((what & DPS310_MEAS_PRS) ? meas_us(e, r[DPS310_REG_PRS_CFG] & 0x0f)
					 : 0) +
	       ((what & DPS310_MEAS_TMP) ? meas_us(e, r[DPS310_REG_TMP_CFG] & 0x07)
					 : 0);
}

static void
dps310_time(struct emu_chip *chip)
{
	struct emu_dps310 *e = (struct emu_dps310 *)chip;
	uint8_t what = e->measuring;

	if (what == 0 || chip->now_us < e->done_us)
		return;
	e->measuring = 0;
	measure(e, what);
	if ((chip->regs[DPS310_REG_MEAS_CFG] & 0x07) != DPS310_MEAS_CONT_BOTH)
		chip->regs[DPS310_REG_MEAS_CFG] &= 0xf8;	/* back to idle */
}

static void
dps310_on_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_dps310 *e = (struct emu_dps310 *)chip;

	if (emu_read_covers(reg, len, DPS310_REG_PSR) &&
	    (e->measuring || !e->have_result))
		chip->early_reads++;
}

static void
dps310_after_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	uint8_t *r = chip->regs;

	if (emu_read_covers(reg, len, DPS310_REG_PSR))
		r[DPS310_REG_MEAS_CFG] &= (uint8_t)~DPS310_MEAS_PRS_RDY;
	if (emu_read_covers(reg, len, DPS310_REG_PSR + 3))
		r[DPS310_REG_MEAS_CFG] &= (uint8_t)~DPS310_MEAS_TMP_RDY;

	if (!emu_read_covers(reg, len, DPS310_REG_INT_STS))
		return;
	r[DPS310_REG_INT_STS] = 0;
	emu_chip_int(chip, false, r[DPS310_REG_CFG] & DPS310_CFG_INT_HL);
}

static void
dps310_write(struct emu_chip *chip, uint8_t reg, uint8_t val)
{
	struct emu_dps310 *e = (struct emu_dps310 *)chip;
	uint8_t *r = chip->regs;

	if (reg == 0x0e || reg == 0x0f || reg == 0x62) {
		if (e->variant == DPS310_VARIANT_SPL06) {
			e->reserved_writes++;
			return;
		}
		if (e->fixup_step < 5 && fixup[e->fixup_step][0] == reg &&
		    fixup[e->fixup_step][1] == val)
			e->fixup_step++;
		r[reg] = val;
		return;
	}
	switch (reg) {
	case DPS310_REG_RESET:
		if ((val & 0x0f) == DPS310_RESET_SOFT)
			emu_dps310_power_on(e);
		break;
	case DPS310_REG_PRS_CFG:
	case DPS310_REG_TMP_CFG:
		r[reg] = val;
		break;
	case DPS310_REG_CFG:
		/* A new level moves the pin at once. */
		r[reg] = val;
		emu_chip_int(chip, r[DPS310_REG_INT_STS] != 0,
			     val & DPS310_CFG_INT_HL);
		break;
	case DPS310_REG_MEAS_CFG: {
		uint8_t ctrl = val & 0x07;

		r[reg] = (uint8_t)((r[reg] & 0xf0) | ctrl);
		e->measuring = 0;
		if (ctrl == DPS310_MEAS_PRS || ctrl == DPS310_MEAS_TMP)
			e->measuring = ctrl;
		else if (ctrl == DPS310_MEAS_CONT_BOTH)
			e->measuring = DPS310_MEAS_PRS | DPS310_MEAS_TMP;
		e->done_us = chip->now_us + what_us(e, e->measuring);
		dps310_time(chip);
		break;
	}
	default:
		break;
	}
}

void
emu_dps310_power_on(struct emu_dps310 *e)
{
	uint8_t *r = e->chip.regs;

	memset(r, 0, sizeof(e->chip.regs));
	r[DPS310_REG_ID] = DPS310_CHIP_ID;
	r[DPS310_REG_MEAS_CFG] = DPS310_MEAS_COEF_RDY | DPS310_MEAS_SENSOR_RDY;
	memcpy(r + DPS310_REG_COEF, e->coef, sizeof(e->coef));
	r[DPS310_REG_COEF_SRCE] = e->coef_srce;
	e->fixup_step = 0;
	e->measuring = 0;
	e->have_result = false;
	emu_chip_int(&e->chip, false, false);
}

void
emu_dps310_init(struct emu_dps310 *e, uint8_t addr, enum dps310_variant v,
		const uint8_t coef[DPS310_COEF_LEN])
{
	memset(e, 0, sizeof(*e));
	emu_chip_init(&e->chip, addr);
	e->chip.on_write = dps310_write;
	e->chip.after_read = dps310_after_read;
	e->chip.on_read = dps310_on_read;
	e->chip.on_time = dps310_time;
	e->variant = v;
	memcpy(e->coef, coef, sizeof(e->coef));
	/* Coefficients made with the external (MEMS) sensor. */
	e->coef_srce = v == DPS310_VARIANT_DPS310 ? DPS310_TMP_EXT : 0;
	e->hot_bug = v == DPS310_VARIANT_DPS310;
	e->pressure_pa = 101325.0;
	e->temperature_c = 20.0;
	emu_dps310_power_on(e);
}

void
emu_dps310_set(struct emu_dps310 *e, double pressure_pa, double temperature_c)
{
	e->pressure_pa = pressure_pa;
	e->temperature_c = temperature_c;
	if ((e->chip.regs[DPS310_REG_MEAS_CFG] & 0x07) == DPS310_MEAS_CONT_BOTH &&
	    e->measuring == 0)
		measure(e, DPS310_MEAS_PRS | DPS310_MEAS_TMP);
}
