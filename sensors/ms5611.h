/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * MS5611 / MS5607 / MS5637 (TE, formerly MEAS): the pure part.  The chips
 * have no registers and no chip id: commands (reset, convert, read ADC,
 * read PROM) and a PROM whose CRC-4 is the only identity check.
 * Compensation is the datasheets' integer one (first and second order),
 * in int64 with floor division for every /2^n, which is what the
 * datasheets' own numbers use.
 *
 * In struct baro_sensor_config the oversampling of these chips counts in
 * units of 256 (it does not fit a uint8_t otherwise): 1 = OSR 256, 2 =
 * 512, ... 16 = OSR 4096 (the default), 32 = OSR 8192 (MS5637 only).
 */
#ifndef BAROD_SENSORS_MS5611_H
#define BAROD_SENSORS_MS5611_H

#include <stdbool.h>
#include <stdint.h>

#define MS5611_CMD_RESET 0x1e
#define MS5611_CMD_CONVERT_D1 0x40	/* + 2 * OSR code: pressure */
#define MS5611_CMD_CONVERT_D2 0x50	/* + 2 * OSR code: temperature */
#define MS5611_CMD_ADC_READ 0x00	/* 3 bytes, big-endian */
#define MS5611_CMD_PROM_READ 0xa0	/* + 2 * word, 2 bytes big-endian */
#define MS5611_PROM_WORDS 8
#define MS5637_PROM_WORDS 7
/* OSR codes: 0..4 = OSR 256..4096; the MS5637 adds 5 = OSR 8192. */
#define MS5611_OSR_MAX_CODE 4
#define MS5637_OSR_MAX_CODE 5

/* Worst-case reset time (datasheet 2.8 ms, rounded up). */
#define MS5611_RESET_US 3000u

enum ms5611_variant {
	MS5611_VARIANT_MS5611,
	MS5611_VARIANT_MS5607,
	MS5611_VARIANT_MS5637,
};

/* Every step of the datasheet's computation, for tests and messages. */
struct ms5611_comp {
	int64_t dt, temp, off, sens;	/* first order */
	int64_t t2, off2, sens2;	/* second-order corrections */
	int32_t temp_centi;		/* final, 0.01 degC */
	int32_t pressure_pa;		/* final, Pa (= 0.01 mbar) */
	int32_t first_order_pa;		/* P without second order */
};

/* AN520's CRC-4 over the 16 bytes of w[0..7] as given (high byte first);
 * the caller zeroes the CRC field. */
uint8_t ms5611_crc4(const uint16_t w[MS5611_PROM_WORDS]);

/* The CRC stored in the PROM and the one computed over it, in the
 * variant's layout (MS5611/MS5607: word 7 bits 3..0; MS5637: word 0 bits
 * 15..12, 7 words). */
uint8_t ms5611_prom_crc_stored(enum ms5611_variant v,
			       const uint16_t prom[MS5611_PROM_WORDS]);
uint8_t ms5611_prom_crc_computed(enum ms5611_variant v,
				 const uint16_t prom[MS5611_PROM_WORDS]);

/* 0 when the PROM's CRC matches and C1..C6 are not blank (0x0000 or
 * 0xffff, which a stuck bus reads and which CRC-check as valid);
 * -EBADMSG for a CRC mismatch, -ENODATA for a blank PROM. */
int ms5611_prom_check(enum ms5611_variant v,
		      const uint16_t prom[MS5611_PROM_WORDS]);

/* Compensation of D1 (pressure) and D2 (temperature), 24-bit ADC values,
 * with C1..C6 = prom[1..6].  -EINVAL for a raw value over 24 bits.  Every
 * intermediate fits int64 for any 16-bit calibration and 24-bit input,
 * and every divisor is a constant, so no input is undefined behaviour. */
int ms5611_compensate(enum ms5611_variant v,
		      const uint16_t prom[MS5611_PROM_WORDS], uint32_t d1,
		      uint32_t d2, struct ms5611_comp *out);

/* Maximum conversion time for an OSR code. */
uint32_t ms5611_conv_time_us(enum ms5611_variant v, unsigned osr_code);
/* Typical conversion time for an OSR code, for the chip emulator's
 * "typical" timing. */
uint32_t ms5611_conv_typ_us(enum ms5611_variant v, unsigned osr_code);

/* 24-bit ADC value from the 3 bytes the ADC read returns. */
uint32_t ms5611_adc24(const uint8_t b[3]);

/* The variant whose coefficients a mix-up would be with: MS5611 <->
 * MS5607 (an MS5607 computed as an MS5611 reads half the pressure, an
 * MS5611 computed as an MS5607 twice); MS5637 has no twin. */
enum ms5611_variant ms5611_twin(enum ms5611_variant v);

/* A start-up plausibility check for the MS5611/MS5607 mix-up: true when
 * pressure from the configured variant lies outside the ground band
 * (MS5611_GROUND_PA_MIN..MAX) but its twin's lies inside, i.e. the chip
 * is likely the other one.  *twin_pa gets the twin's pressure. */
#define MS5611_GROUND_PA_MIN 53000
#define MS5611_GROUND_PA_MAX 115000
bool ms5611_likely_twin(enum ms5611_variant v,
			const uint16_t prom[MS5611_PROM_WORDS], uint32_t d1,
			uint32_t d2, int32_t *twin_pa);

/* The drivers, registered in driver.c (struct baro_driver: driver.h):
 * MS5611 and MS5637 by scanning; MS5607 only by name (same PROM layout
 * and commands as the MS5611, other coefficients). */
struct baro_driver;
extern const struct baro_driver baro_driver_ms5611;
extern const struct baro_driver baro_driver_ms5607;

#endif
