/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ST LPS22HB and LPS22HH.
 *
 * Continuous mode runs at one of the chip's output rates with block data
 * update set, so a read never mixes two conversions; one-shot (forced)
 * mode sets ONE_SHOT per start.  Each sample is one 6-byte burst, status
 * and data; the id and the control registers are re-read every
 * CHECK_EVERY samples, which is how an unplug and replug (settings back
 * to power-down) or another chip is noticed.
 *
 * Data-ready: the INT_DRDY pin follows P_DA, so reading the data (which
 * every sample does) ends it.
 */
#include "lps22.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"

#define CHECK_EVERY 32
#define RESET_WAIT_US 1000u
#define RESET_POLLS 10

/* ------------------------------------------------------------------ */
/* Pure part                                                           */

double
lps22_pressure_pa(const uint8_t b[3])
{
	uint32_t u = (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	int32_t raw = (int32_t)(u ^ 0x800000u) - 0x800000;

	/* 4096 LSB per hPa, 100 Pa per hPa. */
	return raw * (100.0 / 4096.0);
}

double
lps22_temperature_c(const uint8_t b[2])
{
	int32_t raw = (int32_t)((uint32_t)b[1] << 8 | b[0]);

	raw = (raw ^ 0x8000) - 0x8000;
	return raw / 100.0;
}

static const uint32_t hb_rates[] = { 1, 10, 25, 50, 75 };
static const uint32_t hh_rates[] = { 1, 10, 25, 50, 75, 100, 200 };

uint32_t
lps22_odr_hz(enum lps22_variant v, unsigned code)
{
	const uint32_t *r = v == LPS22_VARIANT_HH ? hh_rates : hb_rates;
	unsigned n = v == LPS22_VARIANT_HH ? 7 : 5;

	if (code == 0)
		return 0;
	return r[(code > n ? n : code) - 1];
}

unsigned
lps22_odr_code(enum lps22_variant v, uint32_t rate_hz)
{
	unsigned n = v == LPS22_VARIANT_HH ? 7 : 5;

	if (rate_hz == 0)
		return n;
	for (unsigned code = 1; code <= n; code++)
		if (lps22_odr_hz(v, code) >= rate_hz)
			return code;
	return n;
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

struct lps22 {
	uint8_t who;
	uint8_t ctrl1;		/* as written */
	uint8_t ctrl2, ctrl3;	/* as written, ONE_SHOT aside */
	unsigned reads;
	bool started;		/* one-shot: a conversion was asked for */
};

static const uint8_t lps22_addrs[] = { 0x5c, 0x5d };

static int
lps22_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	uint8_t id;
	int ret = baro_probe_id(bus, addr, LPS22_REG_WHO_AM_I, &id, err, errlen);

	if (ret < 0)
		return ret;
	return baro_chip_by_id(&baro_driver_lps22, bus, addr, id, err, errlen);
}

static const struct baro_chip lps22_chips[] = {
	{ .variant = LPS22_VARIANT_HB, .name = "LPS22HB",
	  .id = LPS22HB_WHO_AM_I },
	{ .variant = LPS22_VARIANT_HH, .name = "LPS22HH",
	  .id = LPS22HH_WHO_AM_I },
};

/* The datasheets give no one-shot time, so the fastest output period
 * bounds it; continuous, the first result comes one output period (the
 * rate init chose) after the rate is set. */
static uint32_t
lps22_max_conv_us(const struct baro_dev *dev)
{
	enum lps22_variant v = (enum lps22_variant)dev->variant;

	if (dev->config.mode == BARO_MODE_FORCED)
		return 1000000u / lps22_odr_hz(v, lps22_odr_code(v, 0));
	return 1000000u / dev->config.rate_hz;
}

static int
lps22_init(struct baro_dev *dev, const struct baro_sensor_config *cfg,
	   char *err, size_t errlen)
{
	struct baro_bus *bus = dev->bus;
	enum lps22_variant v = (enum lps22_variant)dev->variant;
	uint8_t id, ctrl2 = LPS22_CTRL2_SWRESET, back[3];
	int ret;

	struct lps22 *chip = calloc(1, sizeof(*chip));
	if (chip == NULL)
		return -ENOMEM;
	dev->priv = chip;
	dev->config = *cfg;
	chip->who = v == LPS22_VARIANT_HH ? LPS22HH_WHO_AM_I : LPS22HB_WHO_AM_I;

	if ((ret = baro_bus_select(bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_reg(bus, LPS22_REG_WHO_AM_I, &id, err,
				     errlen)) < 0)
		return ret;
	if (id != chip->who) {
		snprintf(err, errlen, "%s 0x%02x: WHO_AM_I 0x%02x, probed 0x%02x",
			 bus->path, dev->addr, id, chip->who);
		return -ENODEV;
	}
	ret = baro_bus_write_reg(bus, LPS22_REG_CTRL2,
				 LPS22_CTRL2_SWRESET | LPS22_CTRL2_IF_ADD_INC,
				 err, errlen);
	if (ret < 0)
		return ret;
	for (int i = 0; i < RESET_POLLS && (ctrl2 & LPS22_CTRL2_SWRESET); i++) {
		baro_sleep_us(RESET_WAIT_US);
		ret = baro_bus_read_reg(bus, LPS22_REG_CTRL2, &ctrl2, err, errlen);
		if (ret < 0)
			return ret;
	}
	if (ctrl2 & LPS22_CTRL2_SWRESET) {
		snprintf(err, errlen, "%s 0x%02x: software reset did not finish",
			 bus->path, dev->addr);
		return -ETIMEDOUT;
	}

	bool forced = cfg->mode == BARO_MODE_FORCED;
	unsigned code = lps22_odr_code(v, cfg->rate_hz);
	uint32_t hz = lps22_odr_hz(v, code);
	/* The chip's own low-pass filter stands in for the IIR setting:
	 * ODR/9 for coefficients up to 9, ODR/20 above. */
	uint8_t lpf = cfg->iir == 0 ? 0 :
		      cfg->iir < 10 ? LPS22_CTRL1_EN_LPFP :
				      LPS22_CTRL1_EN_LPFP | LPS22_CTRL1_LPFP_CFG;

	chip->ctrl1 = (uint8_t)((forced ? 0 : code << LPS22_CTRL1_ODR_SHIFT) |
				lpf | LPS22_CTRL1_BDU);
	/* One-shot: the datasheets give no conversion time here; the
	 * fastest output period is an upper bound.  Continuous: the first
	 * result comes one output period after the rate is set. */
	uint32_t need = 1000000u / lps22_odr_hz(v, lps22_odr_code(v, 0));
	uint32_t want = cfg->rate_hz ? 1000000u / cfg->rate_hz : 0;
	dev->ready_us = baro_ready_us(forced ? need : 1000000u / hz);
	dev->period_us = forced ? (want > dev->ready_us ? want : dev->ready_us)
				: 1000000u / hz;

	bool hh = v == LPS22_VARIANT_HH, low = cfg->drdy == BARO_DRDY_ACTIVE_LOW;
	chip->ctrl2 = LPS22_CTRL2_IF_ADD_INC;
	chip->ctrl3 = 0;
	if (cfg->drdy != BARO_DRDY_OFF) {
		chip->ctrl3 = LPS22_CTRL3_DRDY;
		if (hh)
			chip->ctrl2 |= (uint8_t)((low ? LPS22HH_CTRL2_INT_H_L : 0) |
						 (cfg->drdy_open_drain ?
							  LPS22HH_CTRL2_PP_OD : 0));
		else
			chip->ctrl3 |= (uint8_t)((low ? LPS22HB_CTRL3_INT_H_L : 0) |
						 (cfg->drdy_open_drain ?
							  LPS22HB_CTRL3_PP_OD : 0));
	}

	/* The pin before the output rate, which starts conversions. */
	if ((cfg->drdy != BARO_DRDY_OFF &&
	     ((ret = baro_bus_write_reg(bus, LPS22_REG_CTRL2, chip->ctrl2, err,
					errlen)) < 0 ||
	      (ret = baro_bus_write_reg(bus, LPS22_REG_CTRL3, chip->ctrl3, err,
					errlen)) < 0)) ||
	    (ret = baro_bus_write_reg(bus, LPS22_REG_CTRL1, chip->ctrl1, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_read_block(bus, LPS22_REG_CTRL1, back, sizeof(back),
				       err, errlen)) < 0)
		return ret;
	if (back[0] != chip->ctrl1 || !(back[1] & LPS22_CTRL2_IF_ADD_INC) ||
	    (cfg->drdy != BARO_DRDY_OFF &&
	     (back[1] != chip->ctrl2 || back[2] != chip->ctrl3))) {
		snprintf(err, errlen, "%s 0x%02x: settings did not stick "
			 "(ctrl1 0x%02x ctrl2 0x%02x ctrl3 0x%02x)", bus->path,
			 dev->addr, back[0], back[1], back[2]);
		return -EIO;
	}
	dev->started = !forced;
	dev->config.osr_p = 1;
	dev->config.osr_t = 1;
	dev->config.iir = cfg->iir == 0 ? 0 : cfg->iir < 10 ? 9 : 20;
	dev->config.rate_hz = 1000000u / dev->period_us;
	return 0;
}

static int
lps22_start(struct baro_dev *dev, char *err, size_t errlen)
{
	struct lps22 *chip = dev->priv;

	if (dev->config.mode != BARO_MODE_FORCED)
		return 0;
	int ret = baro_bus_select(dev->bus, dev->addr, err, errlen);
	if (ret < 0 ||
	    (ret = baro_bus_write_reg(dev->bus, LPS22_REG_CTRL2,
				      chip->ctrl2 | LPS22_CTRL2_ONE_SHOT, err,
				      errlen)) < 0)
		return ret;
	chip->started = true;
	dev->started = true;
	return 0;
}

/* WHO_AM_I and the control registers still as init left them. */
static int
check_chip(struct baro_dev *dev, struct lps22 *chip, char *err, size_t errlen)
{
	uint8_t b[4];	/* WHO_AM_I, CTRL_REG1..3 */
	int ret = baro_bus_read_block(dev->bus, LPS22_REG_WHO_AM_I, b, sizeof(b),
				      err, errlen);

	if (ret < 0)
		return ret;
	if (b[0] != chip->who) {
		snprintf(err, errlen, "%s 0x%02x: chip id changed 0x%02x -> 0x%02x",
			 dev->bus->path, dev->addr, chip->who, b[0]);
		return -ENODEV;
	}
	/* CTRL_REG2's self-clearing bits aside; the pin's registers only
	 * when barod set them (left alone, they are the reset's). */
	const uint8_t self_clearing = LPS22_CTRL2_BOOT | LPS22_CTRL2_SWRESET |
				      LPS22_CTRL2_ONE_SHOT;
	if (b[1] != chip->ctrl1 ||
	    (dev->config.drdy != BARO_DRDY_OFF &&
	     ((b[2] & ~self_clearing) != chip->ctrl2 || b[3] != chip->ctrl3))) {
		snprintf(err, errlen, "%s 0x%02x: settings lost (ctrl1 0x%02x "
			 "ctrl2 0x%02x ctrl3 0x%02x), chip reset?",
			 dev->bus->path, dev->addr, b[1], b[2], b[3]);
		return -EIO;
	}
	return 0;
}

static int
lps22_read(struct baro_dev *dev, uint64_t now_us, struct baro_sample *out,
	   char *err, size_t errlen)
{
	struct lps22 *chip = dev->priv;
	const char *path = dev->bus->path;
	bool forced = dev->config.mode == BARO_MODE_FORCED;
	uint8_t b[6];	/* status, press XL, L, H, temp L, H */
	int ret;

	if ((ret = baro_bus_select(dev->bus, dev->addr, err, errlen)) < 0)
		return ret;
	if (chip->reads++ % CHECK_EVERY == 0 &&
	    (ret = check_chip(dev, chip, err, errlen)) < 0)
		return ret;
	if ((ret = baro_bus_read_block(dev->bus, LPS22_REG_STATUS, b, sizeof(b),
				       err, errlen)) < 0)
		return ret;
	if (baro_all_bytes(b, sizeof(b), 0xff)) {
		snprintf(err, errlen, "%s 0x%02x: read all 0xff", path, dev->addr);
		return -EIO;
	}
	const uint8_t both = LPS22_STATUS_P_DA | LPS22_STATUS_T_DA;
	if (forced && (!chip->started || (b[0] & both) != both)) {
		snprintf(err, errlen, "%s 0x%02x: %s", path, dev->addr,
			 chip->started ? "conversion not finished" :
					 "no conversion started");
		return -EAGAIN;
	}
	if (baro_all_bytes(b + 1, 5, 0x00)) {
		snprintf(err, errlen, "%s 0x%02x: read all 0x00", path, dev->addr);
		return -EIO;
	}
	chip->started = false;

	double pa = lps22_pressure_pa(b + 1);
	double c = lps22_temperature_c(b + 4);
	return baro_dev_sample(dev, now_us, pa, c, out, err, errlen);
}

const struct baro_driver baro_driver_lps22 = {
	.name = "lps22",
	.addrs = lps22_addrs,
	.n_addrs = sizeof(lps22_addrs),
	.probe = lps22_probe,
	.chips = lps22_chips,
	.n_chips = sizeof(lps22_chips) / sizeof(lps22_chips[0]),
	.init = lps22_init,
	.start = lps22_start,
	.read = lps22_read,
	.fini = baro_dev_free_priv,
	.drdy_caps = BARO_DRDY_CAP_PIN | BARO_DRDY_CAP_OPEN_DRAIN,
	.max_conv_us = lps22_max_conv_us,
};
