/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An LPS22HB / LPS22HH at register level: WHO_AM_I, software reset,
 * CTRL_REG1 output rate (continuous when not 0), ONE_SHOT, status bits
 * (tests clear them to play "not finished") and the output registers
 * holding a chosen truth at the chips' fixed scales.  Reading PRESS_OUT_H
 * clears P_DA, TEMP_OUT_H T_DA.  The INT_DRDY pin, enabled in CTRL_REG3,
 * follows P_DA at the level CTRL_REG3 (HB) or CTRL_REG2 (HH) sets.
 */
#ifndef BAROD_TESTS_EMU_LPS22_H
#define BAROD_TESTS_EMU_LPS22_H

#include "emu.h"
#include "lps22.h"

struct emu_lps22 {
	struct emu_chip chip;	/* first: the bus sees only this */
	uint8_t who_am_i;
	double pressure_pa;
	double temperature_c;
	unsigned conversions;
	unsigned resets;
	/* A conversion takes the longest the datasheets allow for
	 * (chip.timing): one-shot, the fastest output period (they give no
	 * one-shot time), with ONE_SHOT set and the old data until it
	 * ends; continuous, the first result one output period after the
	 * rate is set, later ones when the test sets a new truth. */
	bool converting;
	uint64_t done_us;
	bool have_result;
};

void emu_lps22_init(struct emu_lps22 *e, uint8_t addr, uint8_t who_am_i);
void emu_lps22_set(struct emu_lps22 *e, double pressure_pa,
		   double temperature_c);
void emu_lps22_power_on(struct emu_lps22 *e);

#endif
