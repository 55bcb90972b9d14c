/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An MS5611 / MS5607 / MS5637 at command level: reset, PROM reads
 * (0xa0 + 2i, big-endian), conversions D1/D2 at every OSR the variant
 * has, and the ADC read, which returns the last conversion once and 0
 * after that (or before any), as the chip does.  A conversion takes the
 * datasheet's maximum time (chip.timing: typical, or none); an ADC read
 * before it ended returns 0 and the conversion is lost, which the
 * datasheet allows and the chip does.  The result is the truth at the
 * ADC read.  Raw values are the ones the chosen truth gives through the
 * datasheet compensation.
 */
#ifndef BAROD_TESTS_EMU_MS5611_H
#define BAROD_TESTS_EMU_MS5611_H

#include "emu.h"
#include "ms5611.h"

struct emu_ms5611 {
	struct emu_chip chip;	/* first: the bus sees only this */
	enum ms5611_variant variant;	/* the silicon: its coefficients */
	uint16_t prom[MS5611_PROM_WORDS];
	double pressure_pa;
	double temperature_c;
	bool pending;		/* a conversion waits for the ADC read, which
				 * samples the truth of that moment */
	uint8_t last_convert;	/* last conversion command */
	uint64_t ready_at_us;	/* the pending conversion's end */
	/* Over every ADC read of a pending conversion: the least time from
	 * its command to the read beyond the conversion time (negative:
	 * too early). */
	int64_t min_slack_us;
	unsigned adc_reads;
	unsigned conversions;
	unsigned resets;
	unsigned bad_commands;
};

/* The datasheets' worked-example coefficients (C1..C6) in a PROM with a
 * valid CRC in the variant's place. */
void emu_ms5611_datasheet_prom(enum ms5611_variant v,
			       uint16_t prom[MS5611_PROM_WORDS]);
/* Puts the right CRC into prom for the variant's layout. */
void emu_ms5611_fix_crc(enum ms5611_variant v,
			uint16_t prom[MS5611_PROM_WORDS]);

void emu_ms5611_init(struct emu_ms5611 *e, uint8_t addr,
		     enum ms5611_variant v,
		     const uint16_t prom[MS5611_PROM_WORDS]);
void emu_ms5611_set(struct emu_ms5611 *e, double pressure_pa,
		    double temperature_c);
/* Power-on: no conversion pending; the PROM as given to init. */
void emu_ms5611_power_on(struct emu_ms5611 *e);

/* D1, D2 for a truth with variant v's compensation (bisection: the
 * compensation rises with both raw values for any real chip). */
void emu_ms5611_raw(enum ms5611_variant v,
		    const uint16_t prom[MS5611_PROM_WORDS], double pressure_pa,
		    double temperature_c, uint32_t *d1, uint32_t *d2);

#endif
