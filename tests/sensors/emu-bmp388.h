/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A BMP388/BMP390 at register level: chip id, error and status
 * registers, soft reset, calibration NVM, OSR/ODR/filter, forced and
 * normal mode (normal refused with conf_err when the ODR is shorter than
 * the conversion, as the chip does), data registers holding the raw
 * values of a chosen pressure and temperature.  The interrupt: INT_CTRL
 * (level, open-drain, latch, drdy_en), INT_STATUS.drdy set by each
 * result and cleared by reading it, and the INT pin, which pulses for
 * EMU_BMP388_PULSE_US per result unlatched, or stays active until
 * INT_STATUS is read latched.  A conversion takes the datasheet's
 * maximum (chip.timing): forced, the mode stays forced and the data
 * registers old until it ends; normal, the first result comes one
 * conversion after the mode write, later ones when the test sets a new
 * truth.  STATUS drdy_press/drdy_temp clear when their data are read.
 */
#ifndef BAROD_TESTS_EMU_BMP388_H
#define BAROD_TESTS_EMU_BMP388_H

#include "emu.h"

#define EMU_BMP388_PULSE_US 2500u

struct emu_bmp388 {
	struct emu_chip chip;	/* first: the bus sees only this */
	uint8_t chip_id;
	uint8_t calib[21];
	double pressure_pa;
	double temperature_c;
	unsigned conversions;
	bool converting;	/* until done_us: forced, or normal's first */
	uint64_t done_us;
	bool have_result;	/* a conversion ended since power-on */
};

/* A real sensor's NVM (sensors sheet §8, third-party vector). */
extern const uint8_t emu_bmp388_sample_calib[21];

void emu_bmp388_init(struct emu_bmp388 *e, uint8_t addr, uint8_t chip_id,
		     const uint8_t calib[21]);
void emu_bmp388_set(struct emu_bmp388 *e, double pressure_pa,
		    double temperature_c);
void emu_bmp388_power_on(struct emu_bmp388 *e);

/* Raw values for a truth, by bisecting the compensation (sensors/bmp388.c's
 * pure functions: the datasheet gives only this one variant). */
void emu_bmp388_raw(const uint8_t calib[21], double pressure_pa,
		    double temperature_c, uint32_t *raw_p, uint32_t *raw_t);

#endif
