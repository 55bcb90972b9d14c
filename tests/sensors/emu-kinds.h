/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every chip barod's drivers are for, as an emulator: one row per
 * (driver, chip) of sensors/driver.c's registry and the chips tables in
 * the drivers.  The tests that hold every driver to the same rules
 * (test-sensors-umockdev.c: timing margins, early reads, data-ready,
 * probe), bench-drivers and the docs' chip-list test walk the registry and
 * look each chip up here, so a registered chip without a row, or a row
 * naming no registered chip, is a failure that names it.
 */
#ifndef BAROD_TESTS_EMU_KINDS_H
#define BAROD_TESTS_EMU_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "emu.h"

struct emu_kind {
	const char *driver;	/* baro_driver.name */
	const char *chip;	/* baro_chip.name */
	/* Where the emulator sits: an address the chip answers on and the
	 * driver's probe takes (the MS5637 is fixed at 0x76). */
	uint8_t addr;
	/* A new emulator at addr with its datasheet's (or a sample
	 * sensor's) calibration, at the datasheet's maximum timings; the
	 * chip is the first member, so free() frees it. */
	struct emu_chip *(*create)(uint8_t addr);
	/* The truth the next conversion reports. */
	void (*set)(struct emu_chip *chip, double pressure_pa,
		    double temperature_c);
	/* Part of the driver's message for a read before the conversion
	 * could have finished. */
	const char *early_msg;
};

extern const struct emu_kind emu_kinds[];
extern const size_t emu_n_kinds;

/* The row for driver's chip, or NULL. */
const struct emu_kind *emu_kind_find(const char *driver, const char *chip);

#endif
