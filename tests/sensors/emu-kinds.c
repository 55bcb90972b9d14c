/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The emulator of each registered chip (emu-kinds.h). */
#include <stdlib.h>
#include <string.h>

#include "bmp280.h"
#include "bmp388.h"
#include "dps310.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "emu-dps310.h"
#include "emu-kinds.h"
#include "emu-lps22.h"
#include "emu-ms5611.h"
#include "lps22.h"
#include "ms5611.h"

/* Each emulator's struct begins with its struct emu_chip, so the chip's
 * address is the emulator's. */
#define NEW(type) ((struct type *)calloc(1, sizeof(struct type)))

static struct emu_chip *
new_bmp280(uint8_t addr, uint8_t id)
{
	struct emu_bmp280 *e = NEW(emu_bmp280);

	if (e == NULL)
		return NULL;
	emu_bmp280_init(e, addr, id, emu_bmp280_datasheet_calib);
	return &e->chip;
}

static struct emu_chip *
new_bmp280_bmp280(uint8_t addr)
{
	return new_bmp280(addr, BMP280_CHIP_ID);
}

static struct emu_chip *
new_bmp280_bme280(uint8_t addr)
{
	return new_bmp280(addr, BME280_CHIP_ID);
}

static void
set_bmp280(struct emu_chip *chip, double pa, double c)
{
	emu_bmp280_set((struct emu_bmp280 *)chip, pa, c);
}

static struct emu_chip *
new_bmp388(uint8_t addr, uint8_t id)
{
	struct emu_bmp388 *e = NEW(emu_bmp388);

	if (e == NULL)
		return NULL;
	emu_bmp388_init(e, addr, id, emu_bmp388_sample_calib);
	return &e->chip;
}

static struct emu_chip *
new_bmp388_bmp388(uint8_t addr)
{
	return new_bmp388(addr, BMP388_CHIP_ID);
}

static struct emu_chip *
new_bmp388_bmp390(uint8_t addr)
{
	return new_bmp388(addr, BMP390_CHIP_ID);
}

static void
set_bmp388(struct emu_chip *chip, double pa, double c)
{
	emu_bmp388_set((struct emu_bmp388 *)chip, pa, c);
}

static struct emu_chip *
new_ms56(uint8_t addr, enum ms5611_variant v)
{
	struct emu_ms5611 *e = NEW(emu_ms5611);
	uint16_t prom[MS5611_PROM_WORDS];

	if (e == NULL)
		return NULL;
	emu_ms5611_datasheet_prom(v, prom);
	emu_ms5611_init(e, addr, v, prom);
	return &e->chip;
}

static struct emu_chip *
new_ms5611(uint8_t addr)
{
	return new_ms56(addr, MS5611_VARIANT_MS5611);
}

static struct emu_chip *
new_ms5607(uint8_t addr)
{
	return new_ms56(addr, MS5611_VARIANT_MS5607);
}

static struct emu_chip *
new_ms5637(uint8_t addr)
{
	return new_ms56(addr, MS5611_VARIANT_MS5637);
}

static void
set_ms56(struct emu_chip *chip, double pa, double c)
{
	emu_ms5611_set((struct emu_ms5611 *)chip, pa, c);
}

static struct emu_chip *
new_dps(uint8_t addr, enum dps310_variant v)
{
	struct emu_dps310 *e = NEW(emu_dps310);

	if (e == NULL)
		return NULL;
	emu_dps310_init(e, addr, v, emu_dps310_sample_coef);
	return &e->chip;
}

static struct emu_chip *
new_dps310(uint8_t addr)
{
	return new_dps(addr, DPS310_VARIANT_DPS310);
}

static struct emu_chip *
new_spl06(uint8_t addr)
{
	return new_dps(addr, DPS310_VARIANT_SPL06);
}

static void
set_dps(struct emu_chip *chip, double pa, double c)
{
	emu_dps310_set((struct emu_dps310 *)chip, pa, c);
}

static struct emu_chip *
new_lps22(uint8_t addr, uint8_t who)
{
	struct emu_lps22 *e = NEW(emu_lps22);

	if (e == NULL)
		return NULL;
	emu_lps22_init(e, addr, who);
	return &e->chip;
}

static struct emu_chip *
new_lps22hb(uint8_t addr)
{
	return new_lps22(addr, LPS22HB_WHO_AM_I);
}

static struct emu_chip *
new_lps22hh(uint8_t addr)
{
	return new_lps22(addr, LPS22HH_WHO_AM_I);
}

static void
set_lps22(struct emu_chip *chip, double pa, double c)
{
	emu_lps22_set((struct emu_lps22 *)chip, pa, c);
}

const struct emu_kind emu_kinds[] = {
	{ .driver = "bmp280", .chip = "BMP280", .addr = 0x76,
	  .create = new_bmp280_bmp280, .set = set_bmp280,
	  .early_msg = "conversion not finished" },
	{ .driver = "bmp280", .chip = "BME280", .addr = 0x77,
	  .create = new_bmp280_bme280, .set = set_bmp280,
	  .early_msg = "conversion not finished" },
	{ .driver = "bmp388", .chip = "BMP388", .addr = 0x76,
	  .create = new_bmp388_bmp388, .set = set_bmp388,
	  .early_msg = "conversion not finished" },
	{ .driver = "bmp388", .chip = "BMP390", .addr = 0x77,
	  .create = new_bmp388_bmp390, .set = set_bmp388,
	  .early_msg = "conversion not finished" },
	{ .driver = "ms5611", .chip = "MS5611", .addr = 0x77,
	  .create = new_ms5611, .set = set_ms56,
	  .early_msg = "conversion not finished" },
	{ .driver = "ms5611", .chip = "MS5637", .addr = 0x76,
	  .create = new_ms5637, .set = set_ms56,
	  .early_msg = "conversion not finished" },
	{ .driver = "ms5607", .chip = "MS5607", .addr = 0x76,
	  .create = new_ms5607, .set = set_ms56,
	  .early_msg = "conversion not finished" },
	{ .driver = "ms5607", .chip = "MS5637", .addr = 0x76,
	  .create = new_ms5637, .set = set_ms56,
	  .early_msg = "conversion not finished" },
	{ .driver = "dps310", .chip = "DPS310", .addr = 0x77,
	  .create = new_dps310, .set = set_dps,
	  .early_msg = "measurement not finished" },
	{ .driver = "spl06", .chip = "SPL06", .addr = 0x76,
	  .create = new_spl06, .set = set_dps,
	  .early_msg = "measurement not finished" },
	{ .driver = "lps22", .chip = "LPS22HB", .addr = 0x5c,
	  .create = new_lps22hb, .set = set_lps22,
	  .early_msg = "conversion not finished" },
	{ .driver = "lps22", .chip = "LPS22HH", .addr = 0x5d,
	  .create = new_lps22hh, .set = set_lps22,
	  .early_msg = "conversion not finished" },
};

const size_t emu_n_kinds = sizeof(emu_kinds) / sizeof(emu_kinds[0]);

const struct emu_kind *
emu_kind_find(const char *driver, const char *chip)
{
	for (size_t i = 0; i < emu_n_kinds; i++)
		if (strcmp(emu_kinds[i].driver, driver) == 0 &&
		    strcmp(emu_kinds[i].chip, chip) == 0)
			return &emu_kinds[i];
	return NULL;
}
