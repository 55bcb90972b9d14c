/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A DPS310 or SPL06-001 at register level: chip id, soft reset,
 * coefficients with COEF_RDY/SENSOR_RDY, COEF_SRCE, PRS_CFG/TMP_CFG/
 * CFG_REG, one-shot and continuous measurements with their ready bits
 * (tests clear them to play "not finished"), and the data registers holding the
 * raw values of a chosen truth.  Two DPS310 habits are modelled: a
 * temperature about 35 degC high until Infineon's fix-up sequence has
 * been written, and a temperature 10 degC off when TMP_EXT does not
 * match COEF_SRCE.  The SPL06 has neither and counts writes to the
 * registers only a DPS310 has.  The interrupt: CFG_REG's INT_HL,
 * INT_PRS and INT_TMP, INT_STS set by the enabled results and cleared
 * by reading it, and the pin (SDO), active while INT_STS is not zero.
 */
#ifndef BAROD_TESTS_EMU_DPS310_H
#define BAROD_TESTS_EMU_DPS310_H

#include <stdbool.h>

#include "dps310.h"
#include "emu.h"

struct emu_dps310 {
	struct emu_chip chip;	/* first: the bus sees only this */
	enum dps310_variant variant;
	uint8_t coef[DPS310_COEF_LEN];
	uint8_t coef_srce;	/* 0x28 */
	double pressure_pa;
	double temperature_c;
	bool hot_bug;		/* DPS310: reads high until the fix-up */
	unsigned fixup_step;	/* fix-up writes seen in order */
	unsigned conversions;
	unsigned reserved_writes;	/* SPL06: writes to 0x0e/0x0f/0x62 */
	/* A measurement takes the datasheet's maximum (chip.timing),
	 * 2 + 1.6 * 2^osr ms each: command mode keeps MEAS_CTRL and the
	 * old data until it ends; background mode gives its first results
	 * after a temperature and a pressure measurement, later ones when
	 * the test sets a new truth.  PRS_RDY and TMP_RDY clear when their
	 * results are read. */
	uint8_t measuring;	/* MEAS_CTRL bits until done_us, 0 = none */
	uint64_t done_us;
	bool have_result;
};

/* The sensors sheet's §8 self-generated coefficient bytes. */
extern const uint8_t emu_dps310_sample_coef[DPS310_COEF_LEN];

void emu_dps310_init(struct emu_dps310 *e, uint8_t addr,
		     enum dps310_variant v, const uint8_t coef[DPS310_COEF_LEN]);
void emu_dps310_set(struct emu_dps310 *e, double pressure_pa,
		    double temperature_c);
void emu_dps310_power_on(struct emu_dps310 *e);

/* Raw values for a truth at oversampling codes osr_p, osr_t. */
void emu_dps310_raw(const uint8_t coef[DPS310_COEF_LEN], double pressure_pa,
		    double temperature_c, unsigned osr_p, unsigned osr_t,
		    int32_t *raw_p, int32_t *raw_t);

#endif
