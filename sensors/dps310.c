/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Infineon DPS310 / DPS368 and Goertek SPL06-001.
 *
 * The data, configuration, status and id registers are 0x00..0x0d, so one
 * 14-byte burst per sample reads both results and re-checks the chip's
 * identity and settings.  Background (normal) mode measures pressure and
 * temperature continuously at one rate; forced mode runs one measurement
 * per start, pressure each time and temperature every TEMP_EVERY-th
 * (a temperature slot reads -EAGAIN and starts the pressure itself).
 *
 * DPS310 and SPL06-001 answer the same chip id at the same addresses, and
 * nothing documented tells them apart, so they are two drivers: "dps310"
 * (scanned) and "spl06" (chosen by name).  They differ in init only: the
 * DPS310 takes its temperature sensor from COEF_SRCE and gets Infineon's
 * fix-up for parts that read about 60 degC; the SPL06 always uses the
 * external sensor (as ArduPilot does) and gets no writes to registers its
 * datasheet does not have.
 */
#include "dps310.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"

#define TEMP_EVERY 8
#define RESET_WAIT_US 5000u
#define READY_POLL_US 5000u
#define READY_POLLS 10		/* coefficients: about 40 ms */
#define DEFAULT_OSR_P 4		/* x16: Infineon's "high precision" */
#define DEFAULT_OSR_T 0
#define BURST_LEN 14		/* 0x00 .. 0x0d */

/* ------------------------------------------------------------------ */
/* Pure part                                                           */

/* The low `bits` bits of v as a two's complement number. */
static int32_t
sign_extend(uint32_t v, unsigned bits)
{
	uint32_t m = 1u << (bits - 1);

	v &= (1u << bits) - 1;
	return (int32_t)(v ^ m) - (int32_t)m;
}

void
dps310_coef_parse(const uint8_t b[DPS310_COEF_LEN], struct dps310_coef *c)
{
	c->c0 = sign_extend((uint32_t)b[0] << 4 | b[1] >> 4, 12);
	c->c1 = sign_extend((uint32_t)(b[1] & 0x0f) << 8 | b[2], 12);
	c->c00 = sign_extend((uint32_t)b[3] << 12 | (uint32_t)b[4] << 4 | b[5] >> 4,
			     20);
	c->c10 = sign_extend((uint32_t)(b[5] & 0x0f) << 16 | (uint32_t)b[6] << 8 |
			     b[7], 20);
	c->c01 = sign_extend((uint32_t)b[8] << 8 | b[9], 16);
	c->c11 = sign_extend((uint32_t)b[10] << 8 | b[11], 16);
	c->c20 = sign_extend((uint32_t)b[12] << 8 | b[13], 16);
	c->c21 = sign_extend((uint32_t)b[14] << 8 | b[15], 16);
	c->c30 = sign_extend((uint32_t)b[16] << 8 | b[17], 16);
}

int32_t
dps310_raw24(const uint8_t b[3])
{
	return sign_extend((uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2], 24);
}

double
dps310_scale(unsigned osr_code)
{
	static const double k[8] = { 524288, 1572864, 3670016, 7864320,
				     253952, 516096, 1040384, 2088960 };

	return k[osr_code > 7 ? 7 : osr_code];
}

double
dps310_compensate_t(const struct dps310_coef *c, int32_t raw_t, unsigned osr_t)
{
	return c->c0 * 0.5 + c->c1 * (raw_t / dps310_scale(osr_t));
}

double
dps310_compensate_p(const struct dps310_coef *c, int32_t raw_p, unsigned osr_p,
		    int32_t raw_t, unsigned osr_t)
{
	double p = raw_p / dps310_scale(osr_p);
	double t = raw_t / dps310_scale(osr_t);

	return c->c00 + p * (c->c10 + p * (c->c20 + p * c->c30)) + t * c->c01 +
	       t * p * (c->c11 + p * c->c21);
}

uint32_t
dps310_meas_time_us(unsigned osr_code)
{
	return 2000u + (1600u << (osr_code > 7 ? 7 : osr_code));
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

struct dps310 {
	struct dps310_coef coef;
	uint8_t prs_cfg, tmp_cfg, cfg_reg, meas_ctrl;	/* as written */
	unsigned osr_p, osr_t;	/* codes */
	bool have_t;		/* forced: a temperature is held */
	bool seen_ready;	/* normal: both results were ready once */
	int32_t raw_t;
	unsigned since_t;
	uint8_t pending;	/* forced: MEAS_CTRL started, 0 = none */
};

static const uint8_t dps310_addrs[] = { 0x77, 0x76 };

/* The DPS310 and SPL06 share the id: each driver's table gives its own
 * chip for it, so which one is the name the configuration gave. */
static int
probe_id(const struct baro_driver *drv, struct baro_bus *bus, uint8_t addr,
	 char *err, size_t errlen)
{
	uint8_t id;
	int ret = baro_probe_id(bus, addr, DPS310_REG_ID, &id, err, errlen);

	if (ret < 0)
		return ret;
	return baro_chip_by_id(drv, bus, addr, id, err, errlen);
}

static int
dps310_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	return probe_id(&baro_driver_dps310, bus, addr, err, errlen);
}

static int
spl06_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	return probe_id(&baro_driver_spl06, bus, addr, err, errlen);
}

static const struct baro_chip dps310_chips[] = {
	{ .variant = DPS310_VARIANT_DPS310, .name = "DPS310", .also = "DPS368",
	  .id = DPS310_CHIP_ID },
};

static const struct baro_chip spl06_chips[] = {
	{ .variant = DPS310_VARIANT_SPL06, .name = "SPL06",
	  .id = DPS310_CHIP_ID, .scan_finds = "DPS310" },
};

/* Infineon's 2 + 1.6 * 2^osr ms per measurement: forced, one start is a
 * pressure or a temperature; background, the first pressure comes after
 * a temperature and a pressure. */
static uint32_t
dps310_max_conv_us(const struct baro_dev *dev)
{
	uint32_t p = dps310_meas_time_us(baro_osr_code(dev->config.osr_p, 0, 7));
	uint32_t t = dps310_meas_time_us(baro_osr_code(dev->config.osr_t, 0, 7));

	if (dev->config.mode == BARO_MODE_FORCED)
		return p > t ? p : t;
	return p + t;
}

/* Infineon's undocumented sequence for DPS310s whose temperature reads
 * about 60 degC (applied always, as Infineon's library does). */
static int
temperature_fixup(struct baro_bus *bus, char *err, size_t errlen)
{
	static const uint8_t seq[5][2] = {
		{ 0x0e, 0xa5 }, { 0x0f, 0x96 }, { 0x62, 0x02 }, { 0x0e, 0x00 },
		{ 0x0f, 0x00 },
	};

	for (size_t i = 0; i < 5; i++) {
		int ret = baro_bus_write_reg(bus, seq[i][0], seq[i][1], err, errlen);

		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
dps310_init(struct baro_dev *dev, const struct baro_sensor_config *cfg,
	    char *err, size_t errlen)
{
	struct baro_bus *bus = dev->bus;
	uint8_t raw[DPS310_COEF_LEN], id, meas = 0, srce = 0, back[4];
	bool spl06 = dev->variant == DPS310_VARIANT_SPL06;
	int ret;

	struct dps310 *chip = calloc(1, sizeof(*chip));
	if (chip == NULL)
		return -ENOMEM;
	dev->priv = chip;
	dev->config = *cfg;

	if ((ret = baro_bus_select(bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_reg(bus, DPS310_REG_ID, &id, err, errlen)) < 0)
		return ret;
	if (id != DPS310_CHIP_ID) {
		snprintf(err, errlen, "%s 0x%02x: chip id 0x%02x, probed 0x%02x",
			 bus->path, dev->addr, id, DPS310_CHIP_ID);
		return -ENODEV;
	}
	ret = baro_bus_write_reg(bus, DPS310_REG_RESET, DPS310_RESET_SOFT, err,
				 errlen);
	if (ret < 0)
		return ret;
	baro_sleep_us(RESET_WAIT_US);
	const uint8_t rdy = DPS310_MEAS_COEF_RDY | DPS310_MEAS_SENSOR_RDY;
	for (int i = 0; i < READY_POLLS; i++) {
		ret = baro_bus_read_reg(bus, DPS310_REG_MEAS_CFG, &meas, err, errlen);
		if (ret < 0)
			return ret;
		if ((meas & rdy) == rdy)
			break;
		baro_sleep_us(READY_POLL_US);
	}
	if ((meas & rdy) != rdy) {
		snprintf(err, errlen, "%s 0x%02x: coefficients not ready after "
			 "reset (MEAS_CFG 0x%02x)", bus->path, dev->addr, meas);
		return -ETIMEDOUT;
	}
	ret = baro_read_calibration(dev, DPS310_REG_COEF, raw, sizeof(raw), err,
				    errlen);
	if (ret < 0)
		return ret;
	dps310_coef_parse(raw, &chip->coef);
	if (!spl06) {
		if ((ret = baro_bus_read_reg(bus, DPS310_REG_COEF_SRCE, &srce, err,
					     errlen)) < 0 ||
		    (ret = temperature_fixup(bus, err, errlen)) < 0)
			return ret;
	}
	uint8_t ext = spl06 ? DPS310_TMP_EXT : (srce & DPS310_TMP_EXT);

	unsigned osr_p = baro_osr_code(cfg->osr_p, DEFAULT_OSR_P, 7);
	unsigned osr_t = baro_osr_code(cfg->osr_t, DEFAULT_OSR_T, 7);
	uint32_t tp = dps310_meas_time_us(osr_p), tt = dps310_meas_time_us(osr_t);
	bool forced = cfg->mode == BARO_MODE_FORCED;
	unsigned rate = 0;

	chip->osr_p = osr_p;
	chip->osr_t = osr_t;
	if (forced) {
		uint32_t want = cfg->rate_hz ? 1000000u / cfg->rate_hz : 0;

		/* One measurement, pressure or temperature, per start. */
		dev->ready_us = baro_ready_us(tp > tt ? tp : tt);
		dev->period_us = want > dev->ready_us ? want : dev->ready_us;
		chip->meas_ctrl = DPS310_MEAS_IDLE;
	} else {
		/* The first pressure comes after a temperature and a
		 * pressure measurement. */
		dev->ready_us = baro_ready_us(tp + tt);
		/* Background mode: rate * (P + T time) must stay under 1 s;
		 * the fastest such rate no faster than asked. */
		while (rate < 7 && (2u << rate) * (tp + tt) < 1000000u &&
		       (cfg->rate_hz == 0 || (2u << rate) <= cfg->rate_hz))
			rate++;
		dev->period_us = 1000000u >> rate;
		chip->meas_ctrl = DPS310_MEAS_CONT_BOTH;
	}
	chip->prs_cfg = (uint8_t)(rate << 4 | osr_p);
	chip->tmp_cfg = (uint8_t)(ext | rate << 4 | osr_t);
	/* Results wider than 24 bits above x8 need the shift. */
	chip->cfg_reg = (uint8_t)((osr_p > 3 ? DPS310_CFG_P_SHIFT : 0) |
				  (osr_t > 3 ? DPS310_CFG_T_SHIFT : 0));
	/* Data-ready comes out on SDO (I2C only), push-pull, held until
	 * INT_STS is read, which every sample's burst does.  In background
	 * mode a pressure result is what makes a new sample; one-shot
	 * conversions alternate, so both kinds signal there. */
	if (cfg->drdy != BARO_DRDY_OFF)
		chip->cfg_reg |= (uint8_t)(DPS310_CFG_INT_PRS |
					   (forced ? DPS310_CFG_INT_TMP : 0) |
					   (cfg->drdy == BARO_DRDY_ACTIVE_HIGH ?
						    DPS310_CFG_INT_HL : 0));

	if ((ret = baro_bus_write_reg(bus, DPS310_REG_PRS_CFG, chip->prs_cfg, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, DPS310_REG_TMP_CFG, chip->tmp_cfg, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, DPS310_REG_CFG, chip->cfg_reg, err,
				      errlen)) < 0 ||
	    (ret = baro_bus_write_reg(bus, DPS310_REG_MEAS_CFG, chip->meas_ctrl,
				      err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(bus, DPS310_REG_PRS_CFG, back,
				       sizeof(back), err, errlen)) < 0)
		return ret;
	if (back[0] != chip->prs_cfg || back[1] != chip->tmp_cfg ||
	    (back[2] & 0x07) != chip->meas_ctrl || back[3] != chip->cfg_reg) {
		snprintf(err, errlen, "%s 0x%02x: settings did not stick "
			 "(prs 0x%02x tmp 0x%02x meas 0x%02x cfg 0x%02x)",
			 bus->path, dev->addr, back[0], back[1], back[2], back[3]);
		return -EIO;
	}

	dev->started = !forced;
	dev->config.osr_p = (uint8_t)(1u << osr_p);
	dev->config.osr_t = (uint8_t)(1u << osr_t);
	dev->config.iir = 0;
	dev->config.rate_hz = 1000000u / dev->period_us;
	return 0;
}

static int
dps310_start(struct baro_dev *dev, char *err, size_t errlen)
{
	struct dps310 *chip = dev->priv;

	if (dev->config.mode != BARO_MODE_FORCED)
		return 0;
	bool temp = !chip->have_t || chip->since_t + 1 >= TEMP_EVERY;
	uint8_t ctrl = temp ? DPS310_MEAS_TMP : DPS310_MEAS_PRS;
	int ret = baro_bus_select(dev->bus, dev->addr, err, errlen);

	if (ret < 0 ||
	    (ret = baro_bus_write_reg(dev->bus, DPS310_REG_MEAS_CFG, ctrl, err,
				      errlen)) < 0) {
		chip->pending = 0;
		return ret;
	}
	chip->since_t = temp ? 0 : chip->since_t + 1;
	chip->pending = ctrl;
	dev->started = true;
	return 0;
}

static int
dps310_read(struct baro_dev *dev, uint64_t now_us, struct baro_sample *out,
	    char *err, size_t errlen)
{
	struct dps310 *chip = dev->priv;
	const char *path = dev->bus->path;
	bool forced = dev->config.mode == BARO_MODE_FORCED;
	uint8_t b[BURST_LEN];
	int ret;

	if ((ret = baro_bus_select(dev->bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(dev->bus, DPS310_REG_PSR, b, sizeof(b),
				       err, errlen)) < 0)
		return ret;
	if (baro_all_bytes(b, sizeof(b), 0xff) || baro_all_bytes(b, sizeof(b), 0x00)) {
		snprintf(err, errlen, "%s 0x%02x: read all 0x%02x", path,
			 dev->addr, b[0]);
		return -EIO;
	}
	if (b[DPS310_REG_ID] != DPS310_CHIP_ID) {
		snprintf(err, errlen, "%s 0x%02x: chip id changed 0x%02x -> 0x%02x",
			 path, dev->addr, DPS310_CHIP_ID, b[DPS310_REG_ID]);
		return -ENODEV;
	}
	uint8_t meas = b[DPS310_REG_MEAS_CFG];
	if (b[DPS310_REG_PRS_CFG] != chip->prs_cfg ||
	    b[DPS310_REG_TMP_CFG] != chip->tmp_cfg ||
	    b[DPS310_REG_CFG] != chip->cfg_reg ||
	    (!forced && (meas & 0x07) != chip->meas_ctrl)) {
		snprintf(err, errlen, "%s 0x%02x: settings lost (prs 0x%02x "
			 "tmp 0x%02x meas 0x%02x cfg 0x%02x), chip reset?", path,
			 dev->addr, b[DPS310_REG_PRS_CFG], b[DPS310_REG_TMP_CFG],
			 meas, b[DPS310_REG_CFG]);
		return -EIO;
	}

	int32_t raw_p = dps310_raw24(b + DPS310_REG_PSR);
	int32_t raw_t = dps310_raw24(b + DPS310_REG_PSR + 3);
	if (forced) {
		uint8_t want = chip->pending == DPS310_MEAS_TMP ?
				       DPS310_MEAS_TMP_RDY : DPS310_MEAS_PRS_RDY;

		if (chip->pending == 0 || !(meas & want)) {
			snprintf(err, errlen, "%s 0x%02x: %s", path, dev->addr,
				 chip->pending ? "measurement not finished" :
						 "no measurement started");
			return -EAGAIN;
		}
		if (chip->pending == DPS310_MEAS_TMP) {
			chip->raw_t = raw_t;
			chip->have_t = true;
			/* The pressure this temperature is for starts here:
			 * callers start conversions after samples only, and
			 * this read gave none. */
			ret = baro_bus_write_reg(dev->bus, DPS310_REG_MEAS_CFG,
						 DPS310_MEAS_PRS, err, errlen);
			chip->pending = ret < 0 ? 0 : DPS310_MEAS_PRS;
			if (ret < 0)
				return ret;
			dev->started = true;
			snprintf(err, errlen, "%s 0x%02x: temperature measurement, "
				 "pressure started", path, dev->addr);
			return -EAGAIN;
		}
		chip->pending = 0;
		raw_t = chip->raw_t;
	} else if (!chip->seen_ready) {
		const uint8_t both = DPS310_MEAS_PRS_RDY | DPS310_MEAS_TMP_RDY;

		if ((meas & both) != both) {
			snprintf(err, errlen, "%s 0x%02x: first measurement not "
				 "finished", path, dev->addr);
			return -EAGAIN;
		}
		chip->seen_ready = true;
	}

	double c = dps310_compensate_t(&chip->coef, raw_t, chip->osr_t);
	double pa = dps310_compensate_p(&chip->coef, raw_p, chip->osr_p, raw_t,
					chip->osr_t);
	return baro_dev_sample(dev, now_us, pa, c, out, err, errlen);
}

const struct baro_driver baro_driver_dps310 = {
	.name = "dps310",
	.addrs = dps310_addrs,
	.n_addrs = sizeof(dps310_addrs),
	.probe = dps310_probe,
	.chips = dps310_chips,
	.n_chips = sizeof(dps310_chips) / sizeof(dps310_chips[0]),
	.init = dps310_init,
	.start = dps310_start,
	.read = dps310_read,
	.fini = baro_dev_free_priv,
	.drdy_caps = BARO_DRDY_CAP_PIN,
	.max_conv_us = dps310_max_conv_us,
};

/* Same id, same addresses: chosen by name, never by a scan. */
const struct baro_driver baro_driver_spl06 = {
	.name = "spl06",
	.addrs = dps310_addrs,
	.n_addrs = 0,
	.probe = spl06_probe,
	.chips = spl06_chips,
	.n_chips = sizeof(spl06_chips) / sizeof(spl06_chips[0]),
	.init = dps310_init,
	.start = dps310_start,
	.read = dps310_read,
	.fini = baro_dev_free_priv,
	.drdy_caps = BARO_DRDY_CAP_PIN,
	.max_conv_us = dps310_max_conv_us,
};
