/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "emu-ms5611.h"

#include <math.h>
#include <string.h>

void
emu_ms5611_fix_crc(enum ms5611_variant v, uint16_t prom[MS5611_PROM_WORDS])
{
	uint8_t crc = ms5611_prom_crc_computed(v, prom);

	if (v == MS5611_VARIANT_MS5637)
		prom[0] = (uint16_t)((prom[0] & 0x0fff) | crc << 12);
	else
		prom[7] = (uint16_t)((prom[7] & 0xfff0) | crc);
}

void
emu_ms5611_datasheet_prom(enum ms5611_variant v,
			  uint16_t prom[MS5611_PROM_WORDS])
{
	static const uint16_t ms5611[6] = { 40127, 36924, 23317, 23282, 33464,
					    28312 };
	static const uint16_t ms5607[6] = { 46372, 43981, 29059, 27842, 31553,
					    28165 };
	const uint16_t *c = v == MS5611_VARIANT_MS5611 ? ms5611 : ms5607;

	prom[0] = v == MS5611_VARIANT_MS5637 ? 0x0a5c : 0x0000;
	for (int i = 0; i < 6; i++)
		prom[i + 1] = c[i];
	prom[7] = v == MS5611_VARIANT_MS5637 ? 0 : 0x5a30;	/* serial */
	emu_ms5611_fix_crc(v, prom);
}

/* The smallest raw value in [0, 2^24) whose result reaches target, or
 * the one below it when that is nearer. */
static uint32_t
solve(int32_t (*f)(enum ms5611_variant, const uint16_t *, uint32_t, uint32_t),
      enum ms5611_variant v, const uint16_t *prom, uint32_t other,
      double target)
{
	uint32_t lo = 0, hi = 0xffffff;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f(v, prom, mid, other) < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fabs(f(v, prom, lo - 1, other) - target) <
			      fabs(f(v, prom, lo, other) - target))
		lo--;
	return lo;
}

static int32_t
temp_of(enum ms5611_variant v, const uint16_t *prom, uint32_t d2, uint32_t d1)
{
	struct ms5611_comp c;

	ms5611_compensate(v, prom, d1, d2, &c);
	return c.temp_centi;
}

static int32_t
pressure_of(enum ms5611_variant v, const uint16_t *prom, uint32_t d1,
	    uint32_t d2)
{
	struct ms5611_comp c;

	ms5611_compensate(v, prom, d1, d2, &c);
	return c.pressure_pa;
}

void
emu_ms5611_raw(enum ms5611_variant v, const uint16_t prom[MS5611_PROM_WORDS],
	       double pressure_pa, double temperature_c, uint32_t *d1,
	       uint32_t *d2)
{
	*d2 = solve(temp_of, v, prom, 0, temperature_c * 100.0);
	*d1 = solve(pressure_of, v, prom, *d2, pressure_pa);
}

/* Conversion times by OSR code (256 ... 4096, 8192): the datasheets'
 * maximum and typical, as sensors/ms5611.c writes them once for the
 * driver and its emulator. */
static uint32_t
conv_us(const struct emu_ms5611 *e, unsigned code)
{
	return emu_chip_duration(&e->chip, ms5611_conv_time_us(e->variant, code),
				 ms5611_conv_typ_us(e->variant, code));
}

static void
ms5611_command(struct emu_chip *chip, uint8_t cmd)
{
	struct emu_ms5611 *e = (struct emu_ms5611 *)chip;
	unsigned max = e->variant == MS5611_VARIANT_MS5637 ? MS5637_OSR_MAX_CODE :
							     MS5611_OSR_MAX_CODE;
	if (cmd == MS5611_CMD_RESET) {
		emu_ms5611_power_on(e);
		e->resets++;
		return;
	}
	if ((cmd & 0xe1) == 0x40 && (unsigned)((cmd & 0x0e) >> 1) <= max) {
		e->pending = true;
		e->last_convert = cmd;
		e->ready_at_us = chip->now_us + conv_us(e, (cmd & 0x0e) >> 1);
		e->conversions++;
		return;
	}
	/* ADC and PROM reads arrive as a command plus a read. */
	if (cmd != MS5611_CMD_ADC_READ && (cmd & 0xf1) != MS5611_CMD_PROM_READ)
		e->bad_commands++;
}

static void
ms5611_on_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_ms5611 *e = (struct emu_ms5611 *)chip;

	uint32_t d1, d2, adc = 0;

	(void)len;
	if (reg != MS5611_CMD_ADC_READ)
		return;
	if (e->pending) {
		int64_t slack = (int64_t)(chip->now_us - e->ready_at_us);

		if (e->adc_reads++ == 0 || slack < e->min_slack_us)
			e->min_slack_us = slack;
	}
	if (e->pending && chip->now_us < e->ready_at_us) {
		/* Too early: 0, and the conversion is abandoned. */
		chip->early_reads++;
	} else if (e->pending) {
		emu_ms5611_raw(e->variant, e->prom, e->pressure_pa,
			       e->temperature_c, &d1, &d2);
		adc = (e->last_convert & 0x10) ? d2 : d1;
	}
	chip->regs[0] = (uint8_t)(adc >> 16);
	chip->regs[1] = (uint8_t)(adc >> 8);
	chip->regs[2] = (uint8_t)adc;
	e->pending = false;
}

void
emu_ms5611_power_on(struct emu_ms5611 *e)
{
	unsigned words = e->variant == MS5611_VARIANT_MS5637 ? MS5637_PROM_WORDS :
							       MS5611_PROM_WORDS;

	memset(e->chip.regs, 0, sizeof(e->chip.regs));
	for (unsigned i = 0; i < words; i++) {
		e->chip.regs[MS5611_CMD_PROM_READ + 2 * i] = (uint8_t)(e->prom[i] >> 8);
		e->chip.regs[MS5611_CMD_PROM_READ + 2 * i + 1] = (uint8_t)e->prom[i];
	}
	e->pending = false;
}

void
emu_ms5611_init(struct emu_ms5611 *e, uint8_t addr, enum ms5611_variant v,
		const uint16_t prom[MS5611_PROM_WORDS])
{
	memset(e, 0, sizeof(*e));
	emu_chip_init(&e->chip, addr);
	e->chip.on_command = ms5611_command;
	e->chip.on_read = ms5611_on_read;
	e->variant = v;
	memcpy(e->prom, prom, sizeof(e->prom));
	e->pressure_pa = 101325.0;
	e->temperature_c = 20.0;
	emu_ms5611_power_on(e);
}

void
emu_ms5611_set(struct emu_ms5611 *e, double pressure_pa, double temperature_c)
{
	e->pressure_pa = pressure_pa;
	e->temperature_c = temperature_c;
}
