/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Bosch BMP280 and BME280 (pressure and temperature only).
 *
 * One burst from status (0xf3) to the end of the data (0xfc) per sample:
 * status, ctrl_meas and config come with the data for four bytes more, and
 * a ctrl_meas that no longer holds what init wrote means the chip was
 * reset or replaced.  The chip id, far away at 0xd0, is re-read every
 * ID_CHECK_READS samples and whenever the settings look lost.
 */
#include "bmp280.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"

#define ID_CHECK_READS 32u
/* Datasheet start-up time after a reset, then how often and how long to
 * wait for the NVM copy (im_update) to finish. */
#define RESET_WAIT_US 2000u
#define NVM_POLL_US 1000u
#define NVM_POLLS 10
/* Outside the chip's operating range with margin: a reading here is a
 * fault, not weather. */

/* Defaults: the datasheet's high-resolution setting (x16 pressure, x2
 * temperature); filtering is left to barod's filters. */
#define DEFAULT_OSRS_P 5
#define DEFAULT_OSRS_T 2

static int16_t
le16s(const uint8_t *b)
{
	return (int16_t)(uint16_t)(b[0] | b[1] << 8);
}

static uint16_t
le16u(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

void
bmp280_calib_parse(const uint8_t raw[BMP280_CALIB_LEN],
		   struct bmp280_calib *cal)
{
	cal->t1 = le16u(raw + 0);
	cal->t2 = le16s(raw + 2);
	cal->t3 = le16s(raw + 4);
	cal->p1 = le16u(raw + 6);
	cal->p2 = le16s(raw + 8);
	cal->p3 = le16s(raw + 10);
	cal->p4 = le16s(raw + 12);
	cal->p5 = le16s(raw + 14);
	cal->p6 = le16s(raw + 16);
	cal->p7 = le16s(raw + 18);
	cal->p8 = le16s(raw + 20);
	cal->p9 = le16s(raw + 22);
}

uint32_t
bmp280_adc20(const uint8_t b[3])
{
	return (uint32_t)b[0] << 12 | (uint32_t)b[1] << 4 | (uint32_t)b[2] >> 4;
}

int
bmp280_compensate_t(const struct bmp280_calib *cal, uint32_t adc_t,
		    int32_t *t_fine, int32_t *t_centi)
{
	if (adc_t > 0xfffff)
		return -EINVAL;

	/* The datasheet's int32 formula, evaluated in int64: identical for
	 * real calibration, and garbage cannot overflow (|terms| < 2^35). */
	const int64_t a = (int64_t)adc_t;
	const int64_t t1 = cal->t1;
	int64_t var1 = (((a >> 3) - t1 * 2) * cal->t2) >> 11;
	int64_t d = (a >> 4) - t1;
	int64_t var2 = (((d * d) >> 12) * cal->t3) >> 14;
	int64_t fine = var1 + var2;

	if (fine < INT32_MIN / 5 || fine > INT32_MAX / 5)
		return -ERANGE;
	*t_fine = (int32_t)fine;
	*t_centi = (int32_t)((fine * 5 + 128) >> 8);
	return 0;
}

/* The pressure formula's steps with every product and sum checked: the
 * datasheet's shifts left of possibly negative values become
 * multiplications, which are defined and checkable. */
static bool
mul(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

static bool
add(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

int
bmp280_compensate_p(const struct bmp280_calib *cal, uint32_t adc_p,
		    int32_t t_fine, uint32_t *p_q24_8)
{
	int64_t v1, v2, sq, x, y, p;

	if (adc_p > 0xfffff)
		return -EINVAL;

	v1 = (int64_t)t_fine - 128000;
	/* v2 = v1^2 * P6 + (v1 * P5) << 17 + P4 << 35 */
	if (!mul(v1, v1, &sq) || !mul(sq, cal->p6, &v2) ||
	    !mul(v1, cal->p5, &x) || !mul(x, (int64_t)1 << 17, &x) ||
	    !add(v2, x, &v2) || !mul(cal->p4, (int64_t)1 << 35, &x) ||
	    !add(v2, x, &v2))
		return -ERANGE;
	/* v1 = (v1^2 * P3) >> 8 + (v1 * P2) << 12 */
	if (!mul(sq, cal->p3, &x) || !mul(v1, cal->p2, &y) ||
	    !mul(y, (int64_t)1 << 12, &y) || !add(x >> 8, y, &v1))
		return -ERANGE;
	/* v1 = ((1 << 47) + v1) * P1 >> 33 */
	if (!add((int64_t)1 << 47, v1, &x) || !mul(x, cal->p1, &x))
		return -ERANGE;
	v1 = x >> 33;
	/* The datasheet returns 0 for v1 == 0; a negative divisor is as
	 * meaningless, and excluding it rules out INT64_MIN / -1 too. */
	if (v1 <= 0)
		return -ERANGE;

	p = 1048576 - (int64_t)adc_p;
	/* p = ((p << 31) - v2) * 3125 / v1 */
	if (!mul(p, (int64_t)1 << 31, &x) || !add(x, -v2, &x) ||
	    !mul(x, 3125, &x))
		return -ERANGE;
	p = x / v1;
	/* v1 = (P9 * (p >> 13) * (p >> 13)) >> 25; v2 = (P8 * p) >> 19 */
	if (!mul(cal->p9, p >> 13, &x) || !mul(x, p >> 13, &x))
		return -ERANGE;
	v1 = x >> 25;
	if (!mul(cal->p8, p, &x))
		return -ERANGE;
	v2 = x >> 19;
	/* p = ((p + v1 + v2) >> 8) + (P7 << 4) */
	if (!add(p, v1, &x) || !add(x, v2, &x))
		return -ERANGE;
	p = (x >> 8) + (int64_t)cal->p7 * 16;
	if (p < 0 || p > UINT32_MAX)
		return -ERANGE;
	*p_q24_8 = (uint32_t)p;
	return 0;
}

/* Register code to multiplier: 0 skipped, 1..5 = x1..x16, more is x16. */
static uint32_t
osrs_mult(unsigned code)
{
	if (code == 0)
		return 0;
	return 1u << (code > 5 ? 4 : code - 1);
}

uint32_t
bmp280_meas_time_us(unsigned osrs_t, unsigned osrs_p)
{
	uint32_t t = 1250 + 2300 * osrs_mult(osrs_t);

	if (osrs_p != 0)
		t += 2300 * osrs_mult(osrs_p) + 575;
	return t;
}

uint32_t
bmp280_meas_typ_us(unsigned osrs_t, unsigned osrs_p)
{
	uint32_t t = 1000 + 2000 * osrs_mult(osrs_t);

	if (osrs_p != 0)
		t += 2000 * osrs_mult(osrs_p) + 500;
	return t;
}

uint32_t
bmp280_standby_us(enum bmp280_variant variant, unsigned code)
{
	static const uint32_t bmp280[8] = {
		500, 62500, 125000, 250000, 500000, 1000000, 2000000, 4000000,
	};
	static const uint32_t bme280[8] = {
		500, 62500, 125000, 250000, 500000, 1000000, 10000, 20000,
	};

	code &= 7;
	return variant == BMP280_VARIANT_BME280 ? bme280[code] : bmp280[code];
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

struct bmp280 {
	struct bmp280_calib cal;
	uint8_t chip_id;
	uint8_t ctrl_meas;	/* as written for measuring, mode included */
	uint8_t config;
	uint32_t reads;
};

static const uint8_t bmp280_addrs[] = { 0x76, 0x77 };

static uint8_t
variant_id(int variant)
{
	return variant == BMP280_VARIANT_BME280 ? BME280_CHIP_ID :
						  BMP280_CHIP_ID;
}

static int
bmp280_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	uint8_t id;
	int ret = baro_probe_id(bus, addr, BMP280_REG_ID, &id, err, errlen);

	if (ret < 0)
		return ret;
	return baro_chip_by_id(&baro_driver_bmp280, bus, addr, id, err, errlen);
}

static const struct baro_chip bmp280_chips[] = {
	{ .variant = BMP280_VARIANT_BMP280, .name = "BMP280",
	  .id = BMP280_CHIP_ID },
	{ .variant = BMP280_VARIANT_BME280, .name = "BME280",
	  .id = BME280_CHIP_ID },
};

/* The datasheet's maximum measurement (section 9.1), the same in both
 * modes: init's ready_us is this plus the margin. */
static uint32_t
bmp280_max_conv_us(const struct baro_dev *dev)
{
	return bmp280_meas_time_us(baro_osr_code(dev->config.osr_t, 0, 4) + 1,
				   baro_osr_code(dev->config.osr_p, 0, 4) + 1);
}

/* t_sb code whose standby makes the cycle closest to, not shorter than,
 * the wanted period; the shortest when the conversion alone is longer. */
static unsigned
pick_standby(enum bmp280_variant variant, uint32_t meas_us, uint32_t want_us)
{
	unsigned best = 0;

	for (unsigned code = 0; code < 8; code++) {
		uint32_t c = meas_us + bmp280_standby_us(variant, code);
		uint32_t b = meas_us + bmp280_standby_us(variant, best);

		if (c <= want_us && (b > want_us || c > b))
			best = code;
	}
	return best;
}

static int
bmp280_init(struct baro_dev *dev, const struct baro_sensor_config *cfg,
	    char *err, size_t errlen)
{
	struct baro_bus *bus = dev->bus;
	uint8_t raw[BMP280_CALIB_LEN], id, status = 0, back[2];
	int ret;

	struct bmp280 *chip = calloc(1, sizeof(*chip));
	if (chip == NULL)
		return -ENOMEM;
	dev->priv = chip;
	dev->config = *cfg;
	chip->chip_id = variant_id(dev->variant);

	if ((ret = baro_bus_select(bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_reg(bus, BMP280_REG_ID, &id, err, errlen)) < 0)
		return ret;
	if (id != chip->chip_id) {
		snprintf(err, errlen, "%s 0x%02x: chip id 0x%02x, probed 0x%02x",
			 bus->path, dev->addr, id, chip->chip_id);
		return -ENODEV;
	}
	ret = baro_bus_write_reg(bus, BMP280_REG_RESET, BMP280_RESET_MAGIC, err,
				 errlen);
	if (ret < 0)
		return ret;
	baro_sleep_us(RESET_WAIT_US);
	for (int i = 0; i < NVM_POLLS; i++) {
		ret = baro_bus_read_reg(bus, BMP280_REG_STATUS, &status, err,
					errlen);
		if (ret < 0)
			return ret;
		if (!(status & BMP280_STATUS_IM_UPDATE))
			break;
		baro_sleep_us(NVM_POLL_US);
	}
	if (status & BMP280_STATUS_IM_UPDATE) {
		snprintf(err, errlen, "%s 0x%02x: NVM copy still running after reset",
			 bus->path, dev->addr);
		return -ETIMEDOUT;
	}

	ret = baro_read_calibration(dev, BMP280_REG_CALIB, raw, sizeof(raw),
				    err, errlen);
	if (ret < 0)
		return ret;
	bmp280_calib_parse(raw, &chip->cal);
	/* A part-loaded NVM can leave the scale coefficients at 0. */
	if (chip->cal.p1 == 0 || chip->cal.t1 == 0) {
		snprintf(err, errlen, "%s 0x%02x: calibration data is blank",
			 bus->path, dev->addr);
		return -EIO;
	}

	unsigned osrs_p = baro_osr_code(cfg->osr_p, DEFAULT_OSRS_P - 1, 4) + 1;
	unsigned osrs_t = baro_osr_code(cfg->osr_t, DEFAULT_OSRS_T - 1, 4) + 1;
	unsigned filter = baro_osr_code(cfg->iir, 0, 4);
	uint32_t meas = bmp280_meas_time_us(osrs_t, osrs_p);
	uint32_t want = cfg->rate_hz ? 1000000u / cfg->rate_hz : 0;
	unsigned t_sb = pick_standby(dev->variant, meas, want);
	uint8_t mode = cfg->mode == BARO_MODE_FORCED ? BMP280_MODE_SLEEP :
						       BMP280_MODE_NORMAL;

	chip->config = (uint8_t)(t_sb << 5 | filter << 2);
	chip->ctrl_meas = (uint8_t)(osrs_t << 5 | osrs_p << 2 | mode);
	/* meas is the datasheet's maximum.  Forced: every start is a
	 * command to wait for.  Normal: the first result comes a
	 * measurement after the mode write; later ones every measurement
	 * plus standby, which at the maximum is the period, so reads never
	 * outrun results. */
	dev->ready_us = baro_ready_us(meas);
	if (cfg->mode == BARO_MODE_FORCED)
		dev->period_us = dev->ready_us > want ? dev->ready_us : want;
	else
		dev->period_us = meas + bmp280_standby_us(dev->variant, t_sb);

	/* config first: writes to it are only sure to land in sleep mode,
	 * where the reset left the chip. */
	if ((ret = baro_bus_write_reg(bus, BMP280_REG_CONFIG, chip->config, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, BMP280_REG_CTRL_MEAS, chip->ctrl_meas,
				      err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(bus, BMP280_REG_CTRL_MEAS, back,
				       sizeof(back), err, errlen)) < 0)
		return ret;
	if (back[0] != chip->ctrl_meas || (back[1] & 0xfc) != chip->config) {
		snprintf(err, errlen,
			 "%s 0x%02x: settings did not stick (ctrl_meas 0x%02x "
			 "config 0x%02x, wrote 0x%02x 0x%02x)",
			 bus->path, dev->addr, back[0], back[1],
			 chip->ctrl_meas, chip->config);
		return -EIO;
	}

	dev->started = cfg->mode != BARO_MODE_FORCED;
	dev->config.osr_p = (uint8_t)osrs_mult(osrs_p);
	dev->config.osr_t = (uint8_t)osrs_mult(osrs_t);
	dev->config.iir = filter ? (uint8_t)(1u << filter) : 0;
	dev->config.rate_hz = 1000000u / dev->period_us;
	return 0;
}

static int
bmp280_start(struct baro_dev *dev, char *err, size_t errlen)
{
	struct bmp280 *chip = dev->priv;

	if (dev->config.mode != BARO_MODE_FORCED)
		return 0;
	int ret = baro_bus_select(dev->bus, dev->addr, err, errlen);
	if (ret < 0)
		return ret;
	ret = baro_bus_write_reg(dev->bus, BMP280_REG_CTRL_MEAS,
				 (uint8_t)(chip->ctrl_meas | BMP280_MODE_FORCED),
				 err, errlen);
	dev->started = ret == 0;
	return ret;
}

/* Is the chip at dev still the one init saw? */
static int
check_id(struct baro_dev *dev, struct bmp280 *chip, char *err, size_t errlen)
{
	uint8_t id;
	int ret = baro_bus_read_reg(dev->bus, BMP280_REG_ID, &id, err, errlen);

	if (ret < 0)
		return ret;
	if (id != chip->chip_id) {
		snprintf(err, errlen, "%s 0x%02x: chip id changed 0x%02x -> 0x%02x",
			 dev->bus->path, dev->addr, chip->chip_id, id);
		return -ENODEV;
	}
	return 0;
}

static int
bmp280_read(struct baro_dev *dev, uint64_t now_us, struct baro_sample *out,
	    char *err, size_t errlen)
{
	struct bmp280 *chip = dev->priv;
	const char *path = dev->bus->path;
	uint8_t b[10];	/* status, ctrl_meas, config, reserved 0xf6, data */
	int ret;

	if ((ret = baro_bus_select(dev->bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(dev->bus, BMP280_REG_STATUS, b, sizeof(b),
				       err, errlen)) < 0)
		return ret;
	if (baro_all_bytes(b, sizeof(b), 0xff) || baro_all_bytes(b, sizeof(b), 0x00) ||
	    baro_all_bytes(b + 4, 6, 0xff) || baro_all_bytes(b + 4, 6, 0x00)) {
		snprintf(err, errlen, "%s 0x%02x: read all 0x%02x", path,
			 dev->addr, b[4]);
		return -EIO;
	}
	if ((b[1] & 0xfc) != (chip->ctrl_meas & 0xfc) ||
	    (b[2] & 0xfc) != chip->config) {
		ret = check_id(dev, chip, err, errlen);
		if (ret < 0)
			return ret;
		snprintf(err, errlen,
			 "%s 0x%02x: settings lost (ctrl_meas 0x%02x), chip reset?",
			 path, dev->addr, b[1]);
		return -EIO;
	}
	if (chip->reads++ % ID_CHECK_READS == 0 &&
	    (ret = check_id(dev, chip, err, errlen)) < 0)
		return ret;
	if (dev->config.mode == BARO_MODE_FORCED &&
	    ((b[0] & BMP280_STATUS_MEASURING) || (b[1] & 3) != 0)) {
		snprintf(err, errlen, "%s 0x%02x: conversion not finished", path,
			 dev->addr);
		return -EAGAIN;
	}

	uint32_t adc_p = bmp280_adc20(b + 4);
	uint32_t adc_t = bmp280_adc20(b + 7);
	if (adc_p == BMP280_ADC_SKIPPED || adc_t == BMP280_ADC_SKIPPED) {
		snprintf(err, errlen, "%s 0x%02x: no measurement (raw 0x80000)",
			 path, dev->addr);
		return -EIO;
	}

	int32_t t_fine, t_centi;
	uint32_t p;
	if (bmp280_compensate_t(&chip->cal, adc_t, &t_fine, &t_centi) < 0 ||
	    bmp280_compensate_p(&chip->cal, adc_p, t_fine, &p) < 0) {
		snprintf(err, errlen, "%s 0x%02x: raw T 0x%05x P 0x%05x do not "
			 "compensate", path, dev->addr, adc_t, adc_p);
		return -ERANGE;
	}
	double pa = p / 256.0;
	double c = t_centi / 100.0;
	return baro_dev_sample(dev, now_us, pa, c, out, err, errlen);
}

const struct baro_driver baro_driver_bmp280 = {
	.name = "bmp280",
	.addrs = bmp280_addrs,
	.n_addrs = sizeof(bmp280_addrs),
	.probe = bmp280_probe,
	.chips = bmp280_chips,
	.n_chips = sizeof(bmp280_chips) / sizeof(bmp280_chips[0]),
	.init = bmp280_init,
	.start = bmp280_start,
	.read = bmp280_read,
	.fini = baro_dev_free_priv,
	.max_conv_us = bmp280_max_conv_us,
};
