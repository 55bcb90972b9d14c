/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The compensation here is the datasheet's double-precision variant,
 * written independently of sensors/bmp280.c on purpose: the driver's
 * integer result must land on the truth this computes.
 */
#include "emu-bmp280.h"

#include <math.h>
#include <string.h>

#include "bmp280.h"

const uint8_t emu_bmp280_datasheet_calib[24] = {
	0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b,
	0x27, 0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17,
};

struct dcal {
	double t[4], p[10];	/* 1-based like the datasheet */
};

static void
dcal_parse(const uint8_t b[24], struct dcal *c)
{
	for (int i = 0; i < 12; i++) {
		unsigned u = (unsigned)(b[2 * i] | b[2 * i + 1] << 8);
		/* T1 and P1 are unsigned, the rest signed. */
		double v = (i == 0 || i == 3 || u < 0x8000) ? (double)u :
							      (double)u - 65536.0;

		if (i < 3)
			c->t[i + 1] = v;
		else
			c->p[i - 2] = v;
	}
}

static double
temp_c(const struct dcal *c, double adc_t, double *t_fine)
{
	double v1 = (adc_t / 16384.0 - c->t[1] / 1024.0) * c->t[2];
	double d = adc_t / 131072.0 - c->t[1] / 8192.0;
	double v2 = d * d * c->t[3];

	*t_fine = trunc(v1 + v2);
	return (v1 + v2) / 5120.0;
}

static double
press_pa(const struct dcal *c, double adc_p, double t_fine)
{
	double v1 = t_fine / 2.0 - 64000.0;
	double v2 = v1 * v1 * c->p[6] / 32768.0 + v1 * c->p[5] * 2.0;

	v2 = v2 / 4.0 + c->p[4] * 65536.0;
	v1 = (c->p[3] * v1 * v1 / 524288.0 + c->p[2] * v1) / 524288.0;
	v1 = (1.0 + v1 / 32768.0) * c->p[1];
	if (v1 == 0.0)
		return 0.0;
	double p = 1048576.0 - adc_p;
	p = (p - v2 / 4096.0) * 6250.0 / v1;
	v1 = c->p[9] * p * p / 2147483648.0;
	v2 = p * c->p[8] / 32768.0;
	return p + (v1 + v2 + c->p[7]) / 16.0;
}

void
emu_bmp280_raw(const uint8_t calib[24], double pressure_pa,
	       double temperature_c, uint32_t *adc_p, uint32_t *adc_t)
{
	struct dcal c;
	double fine;
	uint32_t lo = 0, hi = 0xfffff;

	dcal_parse(calib, &c);
	/* Temperature rises with adc_T, pressure falls with adc_P (for any
	 * real calibration): bisect each, then take the nearer neighbour. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (temp_c(&c, mid, &fine) < temperature_c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fabs(temp_c(&c, lo - 1, &fine) - temperature_c) <
			      fabs(temp_c(&c, lo, &fine) - temperature_c))
		lo--;
	*adc_t = lo;
	temp_c(&c, lo, &fine);

	lo = 0;
	hi = 0xfffff;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (press_pa(&c, mid, fine) > pressure_pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fabs(press_pa(&c, lo - 1, fine) - pressure_pa) <
			      fabs(press_pa(&c, lo, fine) - pressure_pa))
		lo--;
	*adc_p = lo;
}

static void
put20(uint8_t *r, uint32_t v)
{
	r[0] = (uint8_t)(v >> 12);
	r[1] = (uint8_t)(v >> 4);
	r[2] = (uint8_t)(v << 4);
}

static void
convert(struct emu_bmp280 *e)
{
	uint8_t *r = e->chip.regs;
	uint8_t ctrl = r[BMP280_REG_CTRL_MEAS];
	uint32_t adc_p, adc_t;

	emu_bmp280_raw(e->calib, e->pressure_pa, e->temperature_c, &adc_p,
		       &adc_t);
	/* An oversampling code of 0 skips that measurement. */
	put20(r + BMP280_REG_DATA, (ctrl >> 2 & 7) ? adc_p : BMP280_ADC_SKIPPED);
	put20(r + BMP280_REG_DATA + 3,
	      (ctrl >> 5 & 7) ? adc_t : BMP280_ADC_SKIPPED);
	e->conversions++;
	e->have_result = true;
}

/* Register code to multiplier: 0 skipped, 1..5 = x1..x16. */
/* One measurement at the ctrl_meas settings: the datasheet's maximum
 * or typical, as sensors/bmp280.c writes them once for the driver and
 * its emulator. */
static uint32_t
meas_us(const struct emu_bmp280 *e)
{
	uint8_t ctrl = e->chip.regs[BMP280_REG_CTRL_MEAS];
	unsigned t = ctrl >> 5 & 7, p = ctrl >> 2 & 7;

	return emu_chip_duration(&e->chip, bmp280_meas_time_us(t, p),
				 bmp280_meas_typ_us(t, p));
}

static uint32_t
standby_us(const struct emu_bmp280 *e)
{
	unsigned code = e->chip.regs[BMP280_REG_CONFIG] >> 5;

	return bmp280_standby_us(e->chip_id == BME280_CHIP_ID ?
				 BMP280_VARIANT_BME280 : BMP280_VARIANT_BMP280,
				 code);
}

/* What finished by now. */
static void
bmp280_time(struct emu_chip *chip)
{
	struct emu_bmp280 *e = (struct emu_bmp280 *)chip;
	uint8_t *r = chip->regs;

	if (e->measuring && chip->now_us >= e->done_us) {
		convert(e);
		e->measuring = false;
		r[BMP280_REG_STATUS] &= (uint8_t)~BMP280_STATUS_MEASURING;
		r[BMP280_REG_CTRL_MEAS] &= 0xfc;
	} else if ((r[BMP280_REG_CTRL_MEAS] & 3) == BMP280_MODE_NORMAL &&
		   chip->now_us >= e->done_us &&
		   /* Instant: results when the test sets a truth. */
		   (chip->timing != EMU_TIMING_INSTANT || !e->have_result)) {
		uint64_t cycle = meas_us(e) + standby_us(e);

		convert(e);
		e->done_us += ((chip->now_us - e->done_us) / cycle + 1) * cycle;
	}
}

static void
bmp280_on_read(struct emu_chip *chip, uint8_t reg, size_t len)
{
	struct emu_bmp280 *e = (struct emu_bmp280 *)chip;
	bool data = emu_read_covers(reg, len, BMP280_REG_DATA);

	if (data && (e->measuring ||
		     ((chip->regs[BMP280_REG_CTRL_MEAS] & 3) == BMP280_MODE_NORMAL &&
		      !e->have_result)))
		chip->early_reads++;
}

static void
bmp280_write(struct emu_chip *chip, uint8_t reg, uint8_t val)
{
	struct emu_bmp280 *e = (struct emu_bmp280 *)chip;

	switch (reg) {
	case BMP280_REG_RESET:
		if (val == BMP280_RESET_MAGIC) {
			emu_bmp280_power_on(e);
			e->resets++;
		}
		break;
	case BMP280_REG_CTRL_MEAS:
		chip->regs[reg] = val;
		e->measuring = false;
		chip->regs[BMP280_REG_STATUS] &= (uint8_t)~BMP280_STATUS_MEASURING;
		if ((val & 3) == BMP280_MODE_SLEEP)
			break;
		e->done_us = chip->now_us + meas_us(e);
		if ((val & 3) == BMP280_MODE_NORMAL) {
			bmp280_time(chip);
			break;
		}
		/* Forced: back to sleep when done, as the chip does. */
		e->measuring = true;
		chip->regs[BMP280_REG_STATUS] |= BMP280_STATUS_MEASURING;
		bmp280_time(chip);
		break;
	case BMP280_REG_CONFIG:
		chip->regs[reg] = val & 0xfd;
		break;
	default:
		/* Everything else a driver might write is read-only. */
		break;
	}
}

void
emu_bmp280_power_on(struct emu_bmp280 *e)
{
	uint8_t *r = e->chip.regs;

	memset(r, 0, sizeof(e->chip.regs));
	r[BMP280_REG_ID] = e->chip_id;
	memcpy(r + BMP280_REG_CALIB, e->calib, sizeof(e->calib));
	put20(r + BMP280_REG_DATA, BMP280_ADC_SKIPPED);
	put20(r + BMP280_REG_DATA + 3, BMP280_ADC_SKIPPED);
	e->measuring = false;
	e->have_result = false;
}

void
emu_bmp280_init(struct emu_bmp280 *e, uint8_t addr, uint8_t chip_id,
		const uint8_t calib[24])
{
	memset(e, 0, sizeof(*e));
	emu_chip_init(&e->chip, addr);
	e->chip.on_write = bmp280_write;
	e->chip.on_read = bmp280_on_read;
	e->chip.on_time = bmp280_time;
	e->chip_id = chip_id;
	memcpy(e->calib, calib, sizeof(e->calib));
	e->pressure_pa = 101325.0;
	e->temperature_c = 20.0;
	emu_bmp280_power_on(e);
}

void
emu_bmp280_set(struct emu_bmp280 *e, double pressure_pa, double temperature_c)
{
	e->pressure_pa = pressure_pa;
	e->temperature_c = temperature_c;
	/* Normal mode at once, as a result right now would, once the
	 * first measurement is out. */
	if ((e->chip.regs[BMP280_REG_CTRL_MEAS] & 3) == BMP280_MODE_NORMAL &&
	    e->have_result)
		convert(e);
}
