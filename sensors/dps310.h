/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Infineon DPS310 / DPS368 and Goertek SPL06-001: the pure part.  The
 * three share registers, chip id 0x10, coefficient packing and scale
 * factors; the DPS310 alone needs its coefficients' temperature sensor
 * selected (COEF_SRCE) and an undocumented fix-up for parts that read
 * about 60 degC.  Compensation is the datasheets' floating-point one, in
 * double.
 */
#ifndef BAROD_SENSORS_DPS310_H
#define BAROD_SENSORS_DPS310_H

#include <stdint.h>

#define DPS310_CHIP_ID 0x10

#define DPS310_REG_PSR 0x00	/* PSR_B2..B0, TMP_B2..B0: 24-bit, MSB first */
#define DPS310_REG_PRS_CFG 0x06
#define DPS310_REG_TMP_CFG 0x07
#define DPS310_REG_MEAS_CFG 0x08
#define DPS310_REG_CFG 0x09
#define DPS310_REG_INT_STS 0x0a
#define DPS310_REG_RESET 0x0c
#define DPS310_REG_ID 0x0d
#define DPS310_REG_COEF 0x10
#define DPS310_COEF_LEN 18
#define DPS310_REG_COEF_SRCE 0x28

#define DPS310_RESET_SOFT 0x09
#define DPS310_TMP_EXT 0x80
#define DPS310_MEAS_COEF_RDY 0x80
#define DPS310_MEAS_SENSOR_RDY 0x40
#define DPS310_MEAS_TMP_RDY 0x20
#define DPS310_MEAS_PRS_RDY 0x10
#define DPS310_MEAS_IDLE 0x00
#define DPS310_MEAS_PRS 0x01		/* one pressure measurement */
#define DPS310_MEAS_TMP 0x02		/* one temperature measurement */
#define DPS310_MEAS_CONT_BOTH 0x07
#define DPS310_CFG_INT_HL 0x80	/* interrupt active high */
#define DPS310_CFG_INT_TMP 0x20	/* interrupt on a temperature result */
#define DPS310_CFG_INT_PRS 0x10	/* interrupt on a pressure result */
#define DPS310_INT_STS_PRS 0x01
#define DPS310_INT_STS_TMP 0x02
#define DPS310_CFG_T_SHIFT 0x08
#define DPS310_CFG_P_SHIFT 0x04

enum dps310_variant {
	DPS310_VARIANT_DPS310,		/* and DPS368 */
	DPS310_VARIANT_SPL06,
};

struct dps310_coef {
	int32_t c0, c1;			/* 12-bit */
	int32_t c00, c10;		/* 20-bit */
	int32_t c01, c11, c20, c21, c30;	/* 16-bit */
};

/* The 18 bytes from 0x10, packed 12/12/20/20/16x5 bits, two's complement. */
void dps310_coef_parse(const uint8_t raw[DPS310_COEF_LEN],
		       struct dps310_coef *c);

/* 24-bit two's complement, MSB first. */
int32_t dps310_raw24(const uint8_t b[3]);

/* The compensation scale factor for an oversampling code 0..7 (x1..x128);
 * larger codes are clamped. */
double dps310_scale(unsigned osr_code);

/* Temperature in degC, and pressure in Pa at the same scaled temperature.
 * Only constant divisors: every input gives a finite number. */
double dps310_compensate_t(const struct dps310_coef *c, int32_t raw_t,
			   unsigned osr_t);
double dps310_compensate_p(const struct dps310_coef *c, int32_t raw_p,
			   unsigned osr_p, int32_t raw_t, unsigned osr_t);

/* Busy time of one measurement at an oversampling code (2 + 1.6 * 2^osr
 * ms, Infineon's formula). */
uint32_t dps310_meas_time_us(unsigned osr_code);

/* The drivers, registered in driver.c (struct baro_driver: driver.h):
 * DPS310/DPS368 by scanning; SPL06-001 only by name (same chip id). */
struct baro_driver;
extern const struct baro_driver baro_driver_dps310;
extern const struct baro_driver baro_driver_spl06;

#endif
