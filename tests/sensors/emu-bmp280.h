/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A BMP280/BME280 at register level: chip id, soft reset, calibration
 * NVM, ctrl_meas/config, forced and normal mode, and data registers
 * holding the raw values that a chosen pressure and temperature give with
 * this chip's calibration.  A measurement takes the datasheet's maximum
 * time (chip.timing): forced, status.measuring is set and ctrl_meas keeps
 * its mode until it ends; normal, the first result comes one measurement
 * after the mode write and the next every measurement plus standby.
 * Until then the data registers hold what they held.
 */
#ifndef BAROD_TESTS_EMU_BMP280_H
#define BAROD_TESTS_EMU_BMP280_H

#include "emu.h"

struct emu_bmp280 {
	struct emu_chip chip;	/* first: the bus sees only this */
	uint8_t chip_id;
	uint8_t calib[24];
	double pressure_pa;
	double temperature_c;
	unsigned conversions;
	unsigned resets;	/* soft resets written */
	bool measuring;		/* forced: until done_us */
	bool have_result;	/* a measurement ended since power-on */
	uint64_t done_us;	/* forced: the end; normal: the next result */
};

/* The datasheet's worked-example calibration. */
extern const uint8_t emu_bmp280_datasheet_calib[24];

void emu_bmp280_init(struct emu_bmp280 *e, uint8_t addr, uint8_t chip_id,
		     const uint8_t calib[24]);
/* The truth the next conversion (or, in normal mode, the data registers
 * right away) reports. */
void emu_bmp280_set(struct emu_bmp280 *e, double pressure_pa,
		    double temperature_c);
/* Power-on state, as after an unplug and replug. */
void emu_bmp280_power_on(struct emu_bmp280 *e);

/* Raw values for a truth, by searching the datasheet's double-precision
 * compensation (the driver uses the integer one, so this is also a check
 * that the two agree). */
void emu_bmp280_raw(const uint8_t calib[24], double pressure_pa,
		    double temperature_c, uint32_t *adc_p, uint32_t *adc_t);

#endif
