/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * TE (MEAS) MS5611, MS5607 and MS5637.
 *
 * Command-based: reset, convert D1 (pressure) or D2 (temperature) at an
 * OSR, read the 24-bit ADC, read PROM words.  One conversion runs at a
 * time, so a sample is a pipeline: each read takes the finished
 * conversion and starts the next, pressure every time and temperature
 * every TEMP_EVERY-th time (a temperature slot reads -EAGAIN, and that is
 * also when the PROM's CRC word is re-read: the chip's only identity).
 *
 * MS5611 and MS5607 have the same PROM layout and commands but different
 * coefficients, and nothing on the bus tells them apart.  So they are two
 * drivers: "ms5611" (scanned) and "ms5607" (chosen by name in the
 * configuration); init refuses a chip whose first reading is off the
 * ground by the factor of two a mix-up gives and right with the other
 * coefficients, and read says which driver to use when a reading is
 * implausible but the twin's would not be.
 */
#include "ms5611.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"

#define TEMP_EVERY 8		/* one temperature per this many slots */
/* The shared limits (driver.h) in this driver's integer units. */
#define PLAUSIBLE_PA_MIN ((int32_t)BARO_PLAUSIBLE_PA_MIN)
#define PLAUSIBLE_PA_MAX ((int32_t)BARO_PLAUSIBLE_PA_MAX)
#define PLAUSIBLE_CENTI_MIN ((int32_t)(BARO_PLAUSIBLE_C_MIN * 100))
#define PLAUSIBLE_CENTI_MAX ((int32_t)(BARO_PLAUSIBLE_C_MAX * 100))
#define DEFAULT_OSR_CODE 4	/* OSR 4096, as ArduPilot and PX4 */

/* ------------------------------------------------------------------ */
/* Pure part                                                           */

uint8_t
ms5611_crc4(const uint16_t w[MS5611_PROM_WORDS])
{
	unsigned rem = 0;

	for (unsigned i = 0; i < 2 * MS5611_PROM_WORDS; i++) {
		unsigned byte = i % 2 ? w[i / 2] & 0xffu : w[i / 2] >> 8;

		rem ^= byte;
		for (int bit = 0; bit < 8; bit++)
			rem = (rem & 0x8000u) ? ((rem << 1) ^ 0x3000u) & 0xffffu :
						(rem << 1) & 0xffffu;
	}
	return (uint8_t)((rem >> 12) & 0xf);
}

uint8_t
ms5611_prom_crc_stored(enum ms5611_variant v,
		       const uint16_t prom[MS5611_PROM_WORDS])
{
	if (v == MS5611_VARIANT_MS5637)
		return (uint8_t)(prom[0] >> 12);
	return (uint8_t)(prom[7] & 0xf);
}

uint8_t
ms5611_prom_crc_computed(enum ms5611_variant v,
			 const uint16_t prom[MS5611_PROM_WORDS])
{
	uint16_t w[MS5611_PROM_WORDS];

	for (int i = 0; i < MS5611_PROM_WORDS; i++)
		w[i] = prom[i];
	if (v == MS5611_VARIANT_MS5637) {
		w[0] &= 0x0fff;
		w[7] = 0;
	} else {
		w[7] &= 0xff00;
	}
	return ms5611_crc4(w);
}

int
ms5611_prom_check(enum ms5611_variant v, const uint16_t prom[MS5611_PROM_WORDS])
{
	for (int i = 1; i <= 6; i++)
		if (prom[i] == 0x0000 || prom[i] == 0xffff)
			return -ENODATA;
	if (ms5611_prom_crc_stored(v, prom) != ms5611_prom_crc_computed(v, prom))
		return -EBADMSG;
	return 0;
}

/* x / 2^n rounded toward minus infinity, without shifting a negative
 * number (implementation-defined) or overflowing. */
static int64_t
floor_div2(int64_t x, unsigned n)
{
	int64_t d = (int64_t)1 << n;
	int64_t q = x / d;

	return (x % d != 0 && x < 0) ? q - 1 : q;
}

static int64_t
pressure(uint32_t d1, int64_t sens, int64_t off)
{
	return floor_div2(floor_div2((int64_t)d1 * sens, 21) - off, 15);
}

int
ms5611_compensate(enum ms5611_variant v, const uint16_t prom[MS5611_PROM_WORDS],
		  uint32_t d1, uint32_t d2, struct ms5611_comp *out)
{
	const int64_t c1 = prom[1], c2 = prom[2], c3 = prom[3], c4 = prom[4],
		      c5 = prom[5], c6 = prom[6];

	if (d1 > 0xffffff || d2 > 0xffffff)
		return -EINVAL;
	/* |dt| < 2^24, |temp| < 2^18, |off|, |sens| < 2^35: the products
	 * below stay under 2^62. */
	int64_t dt = (int64_t)d2 - c5 * 256;
	int64_t temp = 2000 + floor_div2(dt * c6, 23);
	int64_t off, sens;

	if (v == MS5611_VARIANT_MS5611) {
		off = c2 * 65536 + floor_div2(c4 * dt, 7);
		sens = c1 * 32768 + floor_div2(c3 * dt, 8);
	} else {
		off = c2 * 131072 + floor_div2(c4 * dt, 6);
		sens = c1 * 65536 + floor_div2(c3 * dt, 7);
	}

	int64_t t2 = 0, off2 = 0, sens2 = 0;
	int64_t cold = (temp - 2000) * (temp - 2000);
	int64_t frost = (temp + 1500) * (temp + 1500);

	if (temp < 2000) {
		switch (v) {
		case MS5611_VARIANT_MS5611:
			t2 = floor_div2(dt * dt, 31);
			off2 = floor_div2(5 * cold, 1);
			sens2 = floor_div2(5 * cold, 2);
			if (temp < -1500) {
				off2 += 7 * frost;
				sens2 += floor_div2(11 * frost, 1);
			}
			break;
		case MS5611_VARIANT_MS5607:
			t2 = floor_div2(dt * dt, 31);
			off2 = floor_div2(61 * cold, 4);
			sens2 = 2 * cold;
			if (temp < -1500) {
				off2 += 15 * frost;
				sens2 += 8 * frost;
			}
			break;
		case MS5611_VARIANT_MS5637:
			t2 = floor_div2(3 * dt * dt, 33);
			off2 = floor_div2(61 * cold, 4);
			sens2 = floor_div2(29 * cold, 4);
			if (temp < -1500) {
				off2 += 17 * frost;
				sens2 += 9 * frost;
			}
			break;
		}
	} else if (v == MS5611_VARIANT_MS5637) {
		t2 = floor_div2(5 * dt * dt, 38);
	}

	*out = (struct ms5611_comp){
		.dt = dt, .temp = temp, .off = off, .sens = sens,
		.t2 = t2, .off2 = off2, .sens2 = sens2,
		.temp_centi = (int32_t)(temp - t2),
		.pressure_pa = (int32_t)pressure(d1, sens - sens2, off - off2),
		.first_order_pa = (int32_t)pressure(d1, sens, off),
	};
	return 0;
}

uint32_t
ms5611_conv_time_us(enum ms5611_variant v, unsigned osr_code)
{
	static const uint32_t ms5611[5] = { 600, 1170, 2280, 4540, 9040 };
	static const uint32_t ms5637[6] = { 500, 1100, 2100, 4100, 8220, 16440 };

	if (v == MS5611_VARIANT_MS5637)
		return ms5637[osr_code > 5 ? 5 : osr_code];
	return ms5611[osr_code > 4 ? 4 : osr_code];
}

/* The MS5611-01BA's typical column (the MS5607 has the same); the
 * MS5637-02BA03 gives none, so nine tenths of its maximum. */
uint32_t
ms5611_conv_typ_us(enum ms5611_variant v, unsigned osr_code)
{
	static const uint32_t ms5611[5] = { 540, 1060, 2080, 4130, 8220 };

	if (v == MS5611_VARIANT_MS5637)
		return ms5611_conv_time_us(v, osr_code) / 10 * 9;
	return ms5611[osr_code > 4 ? 4 : osr_code];
}

uint32_t
ms5611_adc24(const uint8_t b[3])
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

enum ms5611_variant
ms5611_twin(enum ms5611_variant v)
{
	switch (v) {
	case MS5611_VARIANT_MS5611:
		return MS5611_VARIANT_MS5607;
	case MS5611_VARIANT_MS5607:
		return MS5611_VARIANT_MS5611;
	default:
		return v;
	}
}

static bool
on_ground(int32_t pa)
{
	return pa >= MS5611_GROUND_PA_MIN && pa <= MS5611_GROUND_PA_MAX;
}

bool
ms5611_likely_twin(enum ms5611_variant v, const uint16_t prom[MS5611_PROM_WORDS],
		   uint32_t d1, uint32_t d2, int32_t *twin_pa)
{
	struct ms5611_comp mine, twin;
	enum ms5611_variant t = ms5611_twin(v);

	*twin_pa = 0;
	if (t == v || ms5611_compensate(v, prom, d1, d2, &mine) < 0 ||
	    ms5611_compensate(t, prom, d1, d2, &twin) < 0)
		return false;
	*twin_pa = twin.pressure_pa;
	return !on_ground(mine.pressure_pa) && on_ground(twin.pressure_pa);
}

/* ------------------------------------------------------------------ */
/* The driver                                                          */

enum slot { SLOT_NONE, SLOT_PRESSURE, SLOT_TEMPERATURE };

struct ms5611 {
	uint16_t prom[MS5611_PROM_WORDS];
	uint8_t cmd_d1, cmd_d2;
	enum slot pending;
	bool have_d2;
	uint32_t d2;
	unsigned since_t;
};

static const uint8_t ms5611_addrs[] = { 0x76, 0x77 };

/* No id register: the PROM's layout and CRC tell the variants apart. */
static const struct baro_chip ms5611_chips[] = {
	{ .variant = MS5611_VARIANT_MS5611, .name = "MS5611" },
	{ .variant = MS5611_VARIANT_MS5637, .name = "MS5637" },
};

/* The ms5607 driver's probe finds an MS5637 at 0x76 as the ms5611's
 * does, so that is one of its chips too. */
static const struct baro_chip ms5607_chips[] = {
	{ .variant = MS5611_VARIANT_MS5607, .name = "MS5607",
	  .scan_finds = "MS5611" },
	{ .variant = MS5611_VARIANT_MS5637, .name = "MS5637" },
};

static const char *
variant_name(int variant)
{
	return baro_variant_name(variant == MS5611_VARIANT_MS5607 ?
				 &baro_driver_ms5607 : &baro_driver_ms5611,
				 variant);
}

/* The datasheets' maximum per conversion; a read waits for the longer
 * of the pressure and temperature slots, whichever comes next. */
static uint32_t
ms5611_max_conv_us(const struct baro_dev *dev)
{
	enum ms5611_variant v = (enum ms5611_variant)dev->variant;
	unsigned max = v == MS5611_VARIANT_MS5637 ? MS5637_OSR_MAX_CODE :
						    MS5611_OSR_MAX_CODE;
	uint32_t p = ms5611_conv_time_us(v, baro_osr_code(dev->config.osr_p,
							  0, max));
	uint32_t t = ms5611_conv_time_us(v, baro_osr_code(dev->config.osr_t,
							  0, max));

	return p > t ? p : t;
}

static const char *
driver_for(enum ms5611_variant v)
{
	return v == MS5611_VARIANT_MS5607 ? "ms5607" : "ms5611";
}

static int
read_prom_word(struct baro_bus *bus, unsigned i, uint16_t *w, char *err,
	       size_t errlen)
{
	uint8_t b[2];
	int ret = baro_bus_read_block(bus, (uint8_t)(MS5611_CMD_PROM_READ + 2 * i),
				      b, sizeof(b), err, errlen);

	if (ret < 0)
		return ret;
	*w = (uint16_t)(b[0] << 8 | b[1]);
	return 0;
}

/* Which layout the PROM at addr has, for a driver whose 8-word variant
 * is eight: the 8-word CRC first (the MS5637 is fixed at 0x76, so at 0x77
 * only that one), then the MS5637's 7 words. */
static int
probe_as(struct baro_bus *bus, uint8_t addr, enum ms5611_variant eight,
	 uint16_t prom[MS5611_PROM_WORDS], char *err, size_t errlen)
{
	int ret = baro_bus_select(bus, addr, err, errlen);

	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < MS5637_PROM_WORDS; i++) {
		ret = read_prom_word(bus, i, &prom[i], err, errlen);
		if (ret == -EREMOTEIO || ret == -ENXIO || ret == -EIO)
			return -ENODEV;
		if (ret < 0)
			return ret;
	}
	/* The MS5637 has no word 7: whatever it answers (nothing, 0x0000,
	 * 0xffff) is no MS5611 serial number.  Each layout's CRC matches
	 * the other's PROM once in 16, so a valid MS5637 layout wins at
	 * 0x76 only with such a word 7. */
	bool no_word7 = read_prom_word(bus, 7, &prom[7], err, errlen) < 0;
	if (no_word7)
		prom[7] = 0;
	no_word7 = no_word7 || prom[7] == 0x0000 || prom[7] == 0xffff;
	bool is_5637 = addr == 0x76 &&
		       ms5611_prom_check(MS5611_VARIANT_MS5637, prom) == 0;
	if (is_5637 && no_word7)
		return MS5611_VARIANT_MS5637;
	if (!no_word7 && ms5611_prom_check(eight, prom) == 0)
		return eight;
	if (is_5637)
		return MS5611_VARIANT_MS5637;
	snprintf(err, errlen, "%s 0x%02x: no MS56xx PROM (CRC 0x%x, computed "
		 "0x%x)", bus->path, addr, ms5611_prom_crc_stored(eight, prom),
		 ms5611_prom_crc_computed(eight, prom));
	return -ENODEV;
}

static int
ms5611_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	uint16_t prom[MS5611_PROM_WORDS];

	return probe_as(bus, addr, MS5611_VARIANT_MS5611, prom, err, errlen);
}

static int
ms5607_probe(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	uint16_t prom[MS5611_PROM_WORDS];

	return probe_as(bus, addr, MS5611_VARIANT_MS5607, prom, err, errlen);
}

/* One conversion, waited for, at the lowest OSR: for init's check. */
static int
quick_convert(struct baro_dev *dev, uint8_t cmd, uint32_t *raw, char *err,
	      size_t errlen)
{
	uint8_t b[3];
	int ret = baro_bus_command(dev->bus, cmd, err, errlen);

	if (ret < 0)
		return ret;
	baro_sleep_us(baro_ready_us(ms5611_conv_time_us(
		(enum ms5611_variant)dev->variant, 0)));
	ret = baro_bus_read_block(dev->bus, MS5611_CMD_ADC_READ, b, sizeof(b),
				  err, errlen);
	if (ret < 0)
		return ret;
	*raw = ms5611_adc24(b);
	return 0;
}

/* Starts the conversion for slot. */
static int
issue(struct baro_dev *dev, enum slot slot, char *err, size_t errlen)
{
	struct ms5611 *chip = dev->priv;
	int ret = baro_bus_command(dev->bus, slot == SLOT_TEMPERATURE ?
				   chip->cmd_d2 : chip->cmd_d1, err, errlen);

	chip->pending = ret < 0 ? SLOT_NONE : slot;
	dev->started = ret == 0;
	return ret;
}

/* Starts the next slot: temperature first and every TEMP_EVERY-th. */
static int
start_slot(struct baro_dev *dev, char *err, size_t errlen)
{
	struct ms5611 *chip = dev->priv;
	bool temp = !chip->have_d2 || chip->since_t + 1 >= TEMP_EVERY;

	chip->since_t = temp ? 0 : chip->since_t + 1;
	return issue(dev, temp ? SLOT_TEMPERATURE : SLOT_PRESSURE, err, errlen);
}

static int
ms5611_init(struct baro_dev *dev, const struct baro_sensor_config *cfg,
	    char *err, size_t errlen)
{
	struct baro_bus *bus = dev->bus;
	enum ms5611_variant v = (enum ms5611_variant)dev->variant;
	unsigned words = v == MS5611_VARIANT_MS5637 ? MS5637_PROM_WORDS :
						      MS5611_PROM_WORDS;
	int ret;

	struct ms5611 *chip = calloc(1, sizeof(*chip));
	if (chip == NULL)
		return -ENOMEM;
	dev->priv = chip;
	dev->config = *cfg;

	if ((ret = baro_bus_select(bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_command(bus, MS5611_CMD_RESET, err, errlen)) < 0)
		return ret;
	baro_sleep_us(MS5611_RESET_US);
	for (unsigned i = 0; i < words; i++)
		if ((ret = read_prom_word(bus, i, &chip->prom[i], err, errlen)) < 0)
			return ret;
	ret = ms5611_prom_check(v, chip->prom);
	if (ret == -ENODATA) {
		snprintf(err, errlen, "%s 0x%02x: PROM calibration is blank",
			 bus->path, dev->addr);
		return -EIO;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s 0x%02x: PROM CRC 0x%x, computed 0x%x",
			 bus->path, dev->addr, ms5611_prom_crc_stored(v, chip->prom),
			 ms5611_prom_crc_computed(v, chip->prom));
		return -EIO;
	}

	/* The mix-up check, on one quick pair of conversions. */
	if (v != MS5611_VARIANT_MS5637) {
		uint32_t d1, d2;
		int32_t twin_pa;
		struct ms5611_comp c;

		if ((ret = quick_convert(dev, MS5611_CMD_CONVERT_D2, &d2, err,
					 errlen)) < 0 ||
		    (ret = quick_convert(dev, MS5611_CMD_CONVERT_D1, &d1, err,
					 errlen)) < 0)
			return ret;
		if (ms5611_likely_twin(v, chip->prom, d1, d2, &twin_pa) &&
		    ms5611_compensate(v, chip->prom, d1, d2, &c) == 0) {
			enum ms5611_variant t = ms5611_twin(v);

			snprintf(err, errlen, "%s 0x%02x: reads %d Pa as an %s but "
				 "%d Pa as an %s: likely an %s, configure driver %s",
				 bus->path, dev->addr, c.pressure_pa,
				 variant_name(v), twin_pa, variant_name(t),
				 variant_name(t), driver_for(t));
			return -ERANGE;
		}
	}

	unsigned max = v == MS5611_VARIANT_MS5637 ? MS5637_OSR_MAX_CODE :
						    MS5611_OSR_MAX_CODE;
	/* Oversampling in units of 256: 1 = OSR 256 ... 16 = OSR 4096. */
	unsigned osr_p = baro_osr_code(cfg->osr_p, DEFAULT_OSR_CODE, max);
	unsigned osr_t = baro_osr_code(cfg->osr_t, DEFAULT_OSR_CODE, max);
	uint32_t conv_p = ms5611_conv_time_us(v, osr_p);
	uint32_t conv_t = ms5611_conv_time_us(v, osr_t);
	uint32_t need = conv_p > conv_t ? conv_p : conv_t;
	uint32_t want = cfg->rate_hz ? 1000000u / cfg->rate_hz : 0;

	chip->cmd_d1 = (uint8_t)(MS5611_CMD_CONVERT_D1 + 2 * osr_p);
	chip->cmd_d2 = (uint8_t)(MS5611_CMD_CONVERT_D2 + 2 * osr_t);
	/* Each read starts the next conversion, so every slot is a
	 * command-to-read wait: the period is at least ready_us (9.944 ms
	 * at OSR 4096, where ArduPilot and PX4 take 10 ms). */
	dev->ready_us = baro_ready_us(need);
	dev->period_us = want > dev->ready_us ? want : dev->ready_us;
	dev->config.osr_p = (uint8_t)(1u << osr_p);
	dev->config.osr_t = (uint8_t)(1u << osr_t);
	dev->config.iir = 0;
	dev->config.rate_hz = 1000000u / dev->period_us;
	if (cfg->mode == BARO_MODE_FORCED)
		return 0;
	return start_slot(dev, err, errlen);
}

static int
ms5611_start(struct baro_dev *dev, char *err, size_t errlen)
{
	if (dev->config.mode != BARO_MODE_FORCED)
		return 0;
	int ret = baro_bus_select(dev->bus, dev->addr, err, errlen);
	if (ret < 0)
		return ret;
	return start_slot(dev, err, errlen);
}

static int
ms5611_read(struct baro_dev *dev, uint64_t now_us, struct baro_sample *out,
	    char *err, size_t errlen)
{
	struct ms5611 *chip = dev->priv;
	enum ms5611_variant v = (enum ms5611_variant)dev->variant;
	const char *path = dev->bus->path;
	bool normal = dev->config.mode != BARO_MODE_FORCED;
	enum slot slot = chip->pending;
	uint8_t b[3];
	int ret;

	if (slot == SLOT_NONE) {
		snprintf(err, errlen, "%s 0x%02x: no conversion started", path,
			 dev->addr);
		return -EAGAIN;
	}
	if ((ret = baro_bus_select(dev->bus, dev->addr, err, errlen)) < 0 ||
	    (ret = baro_bus_read_block(dev->bus, MS5611_CMD_ADC_READ, b,
				       sizeof(b), err, errlen)) < 0)
		return ret;
	uint32_t raw = ms5611_adc24(b);
	if (raw == 0xffffff) {
		snprintf(err, errlen, "%s 0x%02x: read all 0xff", path, dev->addr);
		return -EIO;
	}
	if (raw == 0) {
		/* Read too early (or after a power cycle lost the
		 * conversion): the chip answers 0.  Start it again. */
		snprintf(err, errlen, "%s 0x%02x: ADC read 0, conversion not "
			 "finished", path, dev->addr);
		chip->pending = SLOT_NONE;
		/* In both modes: the daemon starts a forced conversion only
		 * after a sample, so a lost one must be restarted here. */
		if ((ret = issue(dev, slot, err, errlen)) < 0)
			return ret;
		return -EAGAIN;
	}
	chip->pending = SLOT_NONE;

	if (slot == SLOT_TEMPERATURE) {
		unsigned crc_word = v == MS5611_VARIANT_MS5637 ? 0 : 7;
		uint16_t w;

		chip->d2 = raw;
		chip->have_d2 = true;
		if ((ret = read_prom_word(dev->bus, crc_word, &w, err, errlen)) < 0)
			return ret;
		if (w != chip->prom[crc_word]) {
			snprintf(err, errlen, "%s 0x%02x: PROM changed (word %u "
				 "0x%04x -> 0x%04x)", path, dev->addr, crc_word,
				 chip->prom[crc_word], w);
			return -ENODEV;
		}
		/* Forced mode too: the temperature only prepares the
		 * sample the caller asked for, and the caller starts the
		 * next conversion only after a sample. */
		ret = normal ? start_slot(dev, err, errlen)
			     : issue(dev, SLOT_PRESSURE, err, errlen);
		if (ret < 0)
			return ret;
		snprintf(err, errlen, "%s 0x%02x: temperature conversion, "
			 "pressure next", path, dev->addr);
		return -EAGAIN;
	}

	if (normal && (ret = start_slot(dev, err, errlen)) < 0)
		return ret;
	struct ms5611_comp c;
	if (ms5611_compensate(v, chip->prom, raw, chip->d2, &c) < 0)
		return -EIO;
	if (c.pressure_pa < PLAUSIBLE_PA_MIN || c.pressure_pa > PLAUSIBLE_PA_MAX ||
	    c.temp_centi < PLAUSIBLE_CENTI_MIN ||
	    c.temp_centi > PLAUSIBLE_CENTI_MAX) {
		enum ms5611_variant t = ms5611_twin(v);
		struct ms5611_comp tc;
		int n = snprintf(err, errlen, "%s 0x%02x: implausible %d Pa "
				 "%.2f degC", path, dev->addr, c.pressure_pa,
				 c.temp_centi / 100.0);

		if (t != v && ms5611_compensate(t, chip->prom, raw, chip->d2,
						&tc) == 0 &&
		    tc.pressure_pa >= PLAUSIBLE_PA_MIN &&
		    tc.pressure_pa <= PLAUSIBLE_PA_MAX && n >= 0 &&
		    (size_t)n < errlen)
			snprintf(err + n, errlen - (size_t)n, " (%d Pa as an %s: "
				 "configure driver %s?)", tc.pressure_pa,
				 variant_name(t), driver_for(t));
		return -ERANGE;
	}

	*out = (struct baro_sample){
		.time_us = now_us,
		.instance = dev->instance,
		.flags = BARO_SAMPLE_HEALTHY | BARO_SAMPLE_HAS_TEMPERATURE,
		.pressure_pa = (float)c.pressure_pa,
		.temperature_c = (float)(c.temp_centi / 100.0),
	};
	return 0;
}

const struct baro_driver baro_driver_ms5611 = {
	.name = "ms5611",
	.addrs = ms5611_addrs,
	.n_addrs = sizeof(ms5611_addrs),
	.probe = ms5611_probe,
	.chips = ms5611_chips,
	.n_chips = sizeof(ms5611_chips) / sizeof(ms5611_chips[0]),
	.init = ms5611_init,
	.start = ms5611_start,
	.read = ms5611_read,
	.fini = baro_dev_free_priv,
	.max_conv_us = ms5611_max_conv_us,
};

/* Same chip to the bus; chosen by name, never by a scan (which would find
 * every MS5611 twice). */
const struct baro_driver baro_driver_ms5607 = {
	.name = "ms5607",
	.addrs = ms5611_addrs,
	.n_addrs = 0,
	.probe = ms5607_probe,
	.chips = ms5607_chips,
	.n_chips = sizeof(ms5607_chips) / sizeof(ms5607_chips[0]),
	.init = ms5611_init,
	.start = ms5611_start,
	.read = ms5611_read,
	.fini = baro_dev_free_priv,
	.max_conv_us = ms5611_max_conv_us,
};
