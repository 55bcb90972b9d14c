/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Bosch BMP388 and BMP390.
 *
 * The chip id, error and status registers sit right before the data
 * (0x00..0x09), so one 10-byte burst per sample checks the chip's
 * identity and health along with reading it.
 *
 * Data-ready leaves the interrupt unlatched: the pin then pulses (about
 * 2.5 ms) with every result, so no INT_STATUS read is needed per sample
 * and a missed edge cannot leave the line stuck active.
 */
#include "bmp388.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"

#define RESET_WAIT_US 2000u
#define CMD_POLL_US 1000u
#define CMD_POLLS 10
#define ODR_MAX_CODE 17		/* 5 ms * 2^17, about 11 minutes */

/* Bosch's "drone" setting: x8 pressure, x1 temperature (code = log2). */
#define DEFAULT_OSR_P 3
#define DEFAULT_OSR_T 0

void
bmp388_nvm_parse(const uint8_t raw[BMP388_CALIB_LEN], struct bmp388_nvm *nvm)
{
	nvm->t1 = (uint16_t)(raw[0] | raw[1] << 8);
	nvm->t2 = (uint16_t)(raw[2] | raw[3] << 8);
	nvm->t3 = (int8_t)raw[4];
	nvm->p1 = (int16_t)(uint16_t)(raw[5] | raw[6] << 8);
	nvm->p2 = (int16_t)(uint16_t)(raw[7] | raw[8] << 8);
	nvm->p3 = (int8_t)raw[9];
	nvm->p4 = (int8_t)raw[10];
	nvm->p5 = (uint16_t)(raw[11] | raw[12] << 8);
	nvm->p6 = (uint16_t)(raw[13] | raw[14] << 8);
	nvm->p7 = (int8_t)raw[15];
	nvm->p8 = (int8_t)raw[16];
	nvm->p9 = (int16_t)(uint16_t)(raw[17] | raw[18] << 8);
	nvm->p10 = (int8_t)raw[19];
	nvm->p11 = (int8_t)raw[20];
}

void
bmp388_calib_scale(const struct bmp388_nvm *nvm, struct bmp388_calib *cal)
{
	cal->t1 = nvm->t1 * 0x1p8;
	cal->t2 = nvm->t2 * 0x1p-30;
	cal->t3 = nvm->t3 * 0x1p-48;
	cal->p1 = (nvm->p1 - 16384) * 0x1p-20;
	cal->p2 = (nvm->p2 - 16384) * 0x1p-29;
	cal->p3 = nvm->p3 * 0x1p-32;
	cal->p4 = nvm->p4 * 0x1p-37;
	cal->p5 = nvm->p5 * 0x1p3;
	cal->p6 = nvm->p6 * 0x1p-6;
	cal->p7 = nvm->p7 * 0x1p-8;
	cal->p8 = nvm->p8 * 0x1p-15;
	cal->p9 = nvm->p9 * 0x1p-48;
	cal->p10 = nvm->p10 * 0x1p-48;
	cal->p11 = nvm->p11 * 0x1p-65;
}

uint32_t
bmp388_adc24(const uint8_t b[3])
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
}

double
bmp388_compensate_t(const struct bmp388_calib *cal, uint32_t raw_t)
{
	double d = (double)raw_t - cal->t1;

	return d * cal->t2 + d * d * cal->t3;
}

double
bmp388_compensate_p(const struct bmp388_calib *cal, uint32_t raw_p, double t_c)
{
	double t2 = t_c * t_c, t3 = t2 * t_c;
	double up = raw_p, up2 = up * up, up3 = up2 * up;
	double out1 = cal->p5 + cal->p6 * t_c + cal->p7 * t2 + cal->p8 * t3;
	double out2 = up * (cal->p1 + cal->p2 * t_c + cal->p3 * t2 +
			    cal->p4 * t3);
	double out3 = up2 * (cal->p9 + cal->p10 * t_c) + up3 * cal->p11;

	return out1 + out2 + out3;
}

uint32_t
bmp388_meas_time_us(unsigned osr_t, unsigned osr_p)
{
	return 234 + 392 + (2000u << (osr_p > 5 ? 5 : osr_p)) + 313 +
	       (2000u << (osr_t > 5 ? 5 : osr_t));
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

struct bmp388 {
	struct bmp388_calib cal;
	uint8_t chip_id;
	uint8_t pwr_ctrl;	/* as written for measuring */
};

static const uint8_t bmp388_addrs[] = { 0x76, 0x77 };

static int
bmp388_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	uint8_t id;
	int ret = baro_probe_id(bus, addr, BMP388_REG_ID, &id, err, errlen);

	if (ret < 0)
		return ret;
	return baro_chip_by_id(&baro_driver_bmp388, bus, addr, id, err, errlen);
}

static const struct baro_chip bmp388_chips[] = {
	{ .variant = BMP388_VARIANT_BMP388, .name = "BMP388",
	  .id = BMP388_CHIP_ID },
	{ .variant = BMP388_VARIANT_BMP390, .name = "BMP390",
	  .id = BMP390_CHIP_ID },
};

/* The Bosch BMP3 API's measurement time, the same in both modes. */
static uint32_t
bmp388_max_conv_us(const struct baro_dev *dev)
{
	return bmp388_meas_time_us(baro_osr_code(dev->config.osr_t, 0, 5),
				   baro_osr_code(dev->config.osr_p, 0, 5));
}

static int
bmp388_init(struct baro_dev *dev, const struct baro_sensor_config *cfg,
	    char *err, size_t errlen)
{
	struct baro_bus *bus = dev->bus;
	uint8_t raw[BMP388_CALIB_LEN], id, status = 0, e, back[5];
	struct bmp388_nvm nvm;
	int ret;

	struct bmp388 *chip = calloc(1, sizeof(*chip));
	if (chip == NULL)
		return -ENOMEM;
	dev->priv = chip;
	dev->config = *cfg;
	chip->chip_id = dev->variant == BMP388_VARIANT_BMP390 ? BMP390_CHIP_ID :
								BMP388_CHIP_ID;

	if ((ret = baro_bus_select(bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_reg(bus, BMP388_REG_ID, &id, err, errlen)) < 0)
		return ret;
	if (id != chip->chip_id) {
		snprintf(err, errlen, "%s 0x%02x: chip id 0x%02x, probed 0x%02x",
			 bus->path, dev->addr, id, chip->chip_id);
		return -ENODEV;
	}
	ret = baro_bus_write_reg(bus, BMP388_REG_CMD, BMP388_CMD_SOFT_RESET, err,
				 errlen);
	if (ret < 0)
		return ret;
	baro_sleep_us(RESET_WAIT_US);
	for (int i = 0; i < CMD_POLLS; i++) {
		ret = baro_bus_read_reg(bus, BMP388_REG_STATUS, &status, err,
					errlen);
		if (ret < 0)
			return ret;
		if (status & BMP388_STATUS_CMD_RDY)
			break;
		baro_sleep_us(CMD_POLL_US);
	}
	if (!(status & BMP388_STATUS_CMD_RDY)) {
		snprintf(err, errlen, "%s 0x%02x: not ready after reset",
			 bus->path, dev->addr);
		return -ETIMEDOUT;
	}

	ret = baro_read_calibration(dev, BMP388_REG_CALIB, raw, sizeof(raw), err,
				    errlen);
	if (ret < 0)
		return ret;
	bmp388_nvm_parse(raw, &nvm);
	bmp388_calib_scale(&nvm, &chip->cal);

	unsigned osr_p = baro_osr_code(cfg->osr_p, DEFAULT_OSR_P, 5);
	unsigned osr_t = baro_osr_code(cfg->osr_t, DEFAULT_OSR_T, 5);
	/* The BMP3 coefficient c filters like BMP280 coefficient c + 1. */
	unsigned iir = baro_osr_code(cfg->iir, 0, 7);
	uint32_t meas = bmp388_meas_time_us(osr_t, osr_p);
	uint32_t want = cfg->rate_hz ? 1000000u / cfg->rate_hz : 0;
	uint32_t need = meas > want ? meas : want;
	unsigned odr = 0;

	/* The slowest ODR no longer than wanted, never shorter than the
	 * conversion: the chip refuses normal mode otherwise (conf_err). */
	while (odr < ODR_MAX_CODE && (5000u << odr) < need)
		odr++;
	bool forced = cfg->mode == BARO_MODE_FORCED;
	chip->pwr_ctrl = BMP388_PWR_PRESS_EN | BMP388_PWR_TEMP_EN |
			 (forced ? BMP388_MODE_SLEEP : BMP388_MODE_NORMAL);
	/* meas is the Bosch BMP3 API's figure, the datasheet's maximum
	 * (BMP388 datasheet, "measurement time"); the margin covers the
	 * datasheet's slightly larger per-step constants too.  Normal mode: the chip itself refuses an
	 * ODR shorter than its conversion. */
	dev->ready_us = baro_ready_us(meas);
	if (forced)
		dev->period_us = dev->ready_us > want ? dev->ready_us : want;
	else
		dev->period_us = 5000u << odr;
	uint8_t int_ctrl = (uint8_t)(BMP388_INT_DRDY_EN |
				     (cfg->drdy == BARO_DRDY_ACTIVE_HIGH ?
					      BMP388_INT_LEVEL_HIGH : 0) |
				     (cfg->drdy_open_drain ? BMP388_INT_OD : 0));

	/* The pin is set up before measuring starts, so the first result
	 * already signals. */
	if ((cfg->drdy != BARO_DRDY_OFF &&
	     (ret = baro_bus_write_reg(bus, BMP388_REG_INT_CTRL, int_ctrl, err,
				       errlen)) < 0) ||
	    (ret = baro_bus_write_reg(bus, BMP388_REG_OSR,
				      (uint8_t)(osr_t << 3 | osr_p), err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, BMP388_REG_ODR, (uint8_t)odr, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, BMP388_REG_CONFIG,
				      (uint8_t)(iir << 1), err, errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, BMP388_REG_PWR_CTRL, chip->pwr_ctrl,
				      err, errlen)) < 0 ||
	    (ret = baro_bus_read_reg(bus, BMP388_REG_ERR, &e, err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(bus, BMP388_REG_INT_CTRL, back,
				       sizeof(back), err, errlen)) < 0)
		return ret;
	if (e & BMP388_ERR_CONF) {
		snprintf(err, errlen, "%s 0x%02x: chip refused OSR x%u/x%u at "
			 "ODR code %u", bus->path, dev->addr, 1u << osr_p,
			 1u << osr_t, odr);
		return -EINVAL;
	}
	/* back: INT_CTRL (left as the reset set it without data-ready),
	 * IF_CONF, PWR_CTRL, OSR, ODR. */
	if ((cfg->drdy != BARO_DRDY_OFF && back[0] != int_ctrl) ||
	    back[2] != chip->pwr_ctrl ||
	    back[3] != (osr_t << 3 | osr_p) || back[4] != odr) {
		snprintf(err, errlen, "%s 0x%02x: settings did not stick "
			 "(int_ctrl 0x%02x pwr_ctrl 0x%02x osr 0x%02x odr "
			 "0x%02x)", bus->path, dev->addr, back[0], back[2],
			 back[3], back[4]);
		return -EIO;
	}

	dev->started = !forced;
	dev->config.osr_p = (uint8_t)(1u << osr_p);
	dev->config.osr_t = (uint8_t)(1u << osr_t);
	dev->config.iir = iir ? (uint8_t)(1u << iir) : 0;
	dev->config.rate_hz = 1000000u / dev->period_us;
	return 0;
}

static int
bmp388_start(struct baro_dev *dev, char *err, size_t errlen)
{
	struct bmp388 *chip = dev->priv;

	if (dev->config.mode != BARO_MODE_FORCED)
		return 0;
	int ret = baro_bus_select(dev->bus, dev->addr, err, errlen);
	if (ret < 0)
		return ret;
	ret = baro_bus_write_reg(dev->bus, BMP388_REG_PWR_CTRL,
				 (uint8_t)(chip->pwr_ctrl | BMP388_MODE_FORCED),
				 err, errlen);
	dev->started = ret == 0;
	return ret;
}

static int
bmp388_read(struct baro_dev *dev, uint64_t now_us, struct baro_sample *out,
	    char *err, size_t errlen)
{
	struct bmp388 *chip = dev->priv;
	const char *path = dev->bus->path;
	uint8_t b[10];	/* id, rev, err, status, 6 data bytes */
	int ret;

	if ((ret = baro_bus_select(dev->bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(dev->bus, BMP388_REG_ID, b, sizeof(b),
				       err, errlen)) < 0)
		return ret;
	if (baro_all_bytes(b, sizeof(b), 0xff) || baro_all_bytes(b, sizeof(b), 0x00) ||
	    baro_all_bytes(b + 4, 6, 0xff) || baro_all_bytes(b + 4, 6, 0x00)) {
		snprintf(err, errlen, "%s 0x%02x: read all 0x%02x", path,
			 dev->addr, b[4]);
		return -EIO;
	}
	if (b[0] != chip->chip_id) {
		snprintf(err, errlen, "%s 0x%02x: chip id changed 0x%02x -> 0x%02x",
			 path, dev->addr, chip->chip_id, b[0]);
		return -ENODEV;
	}
	if (b[2] & (BMP388_ERR_FATAL | BMP388_ERR_CONF)) {
		snprintf(err, errlen, "%s 0x%02x: chip reports error 0x%02x", path,
			 dev->addr, b[2]);
		return -EIO;
	}
	const uint8_t drdy = BMP388_STATUS_DRDY_PRESS | BMP388_STATUS_DRDY_TEMP;
	if (dev->config.mode == BARO_MODE_FORCED && (b[3] & drdy) != drdy) {
		snprintf(err, errlen, "%s 0x%02x: conversion not finished", path,
			 dev->addr);
		return -EAGAIN;
	}

	uint32_t raw_p = bmp388_adc24(b + 4);
	uint32_t raw_t = bmp388_adc24(b + 7);
	if (raw_p == BMP388_ADC_SKIPPED || raw_t == BMP388_ADC_SKIPPED) {
		snprintf(err, errlen, "%s 0x%02x: no measurement (raw 0x800000), "
			 "chip reset?", path, dev->addr);
		return -EIO;
	}
	double c = bmp388_compensate_t(&chip->cal, raw_t);
	double pa = bmp388_compensate_p(&chip->cal, raw_p, c);
	return baro_dev_sample(dev, now_us, pa, c, out, err, errlen);
}

const struct baro_driver baro_driver_bmp388 = {
	.name = "bmp388",
	.addrs = bmp388_addrs,
	.n_addrs = sizeof(bmp388_addrs),
	.probe = bmp388_probe,
	.chips = bmp388_chips,
	.n_chips = sizeof(bmp388_chips) / sizeof(bmp388_chips[0]),
	.init = bmp388_init,
	.start = bmp388_start,
	.read = bmp388_read,
	.fini = baro_dev_free_priv,
	.drdy_caps = BARO_DRDY_CAP_PIN | BARO_DRDY_CAP_OPEN_DRAIN,
	.max_conv_us = bmp388_max_conv_us,
};
