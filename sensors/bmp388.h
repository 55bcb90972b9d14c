/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * BMP388 / BMP390: the pure part.  Both chips share registers,
 * calibration and compensation; only the chip id differs.  Compensation
 * is the datasheet's floating-point one, in double.
 */
#ifndef BAROD_SENSORS_BMP388_H
#define BAROD_SENSORS_BMP388_H

#include <stdint.h>

#define BMP388_CHIP_ID 0x50
#define BMP390_CHIP_ID 0x60

#define BMP388_REG_ID 0x00
#define BMP388_REG_ERR 0x02
#define BMP388_REG_STATUS 0x03
#define BMP388_REG_DATA 0x04	/* press xlsb, lsb, msb, temp xlsb, lsb, msb */
#define BMP388_REG_INT_STATUS 0x11	/* cleared by reading */
#define BMP388_REG_INT_CTRL 0x19
#define BMP388_REG_PWR_CTRL 0x1b
#define BMP388_REG_OSR 0x1c
#define BMP388_REG_ODR 0x1d
#define BMP388_REG_CONFIG 0x1f
#define BMP388_REG_CALIB 0x31
#define BMP388_CALIB_LEN 21
#define BMP388_REG_CMD 0x7e

#define BMP388_CMD_SOFT_RESET 0xb6
#define BMP388_ERR_FATAL 0x01
#define BMP388_ERR_CMD 0x02
#define BMP388_ERR_CONF 0x04
#define BMP388_STATUS_CMD_RDY 0x10
#define BMP388_STATUS_DRDY_PRESS 0x20
#define BMP388_STATUS_DRDY_TEMP 0x40
#define BMP388_INT_STATUS_DRDY 0x08
#define BMP388_INT_OD 0x01		/* open-drain, else push-pull */
#define BMP388_INT_LEVEL_HIGH 0x02	/* active high (the reset value) */
#define BMP388_INT_LATCH 0x04	/* held until INT_STATUS is read */
#define BMP388_INT_DRDY_EN 0x40
#define BMP388_PWR_PRESS_EN 0x01
#define BMP388_PWR_TEMP_EN 0x02
#define BMP388_MODE_SLEEP 0x00
#define BMP388_MODE_FORCED 0x10
#define BMP388_MODE_NORMAL 0x30
#define BMP388_ADC_SKIPPED 0x800000u

enum bmp388_variant {
	BMP388_VARIANT_BMP388,
	BMP388_VARIANT_BMP390,
};

/* The NVM values as stored. */
struct bmp388_nvm {
	uint16_t t1, t2;
	int8_t t3;
	int16_t p1, p2;
	int8_t p3, p4;
	uint16_t p5, p6;
	int8_t p7, p8;
	int16_t p9;
	int8_t p10, p11;
};

/* Scaled to the compensation's units (the datasheet's PAR_*). */
struct bmp388_calib {
	double t1, t2, t3;
	double p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11;
};

void bmp388_nvm_parse(const uint8_t raw[BMP388_CALIB_LEN],
		      struct bmp388_nvm *nvm);
void bmp388_calib_scale(const struct bmp388_nvm *nvm,
			struct bmp388_calib *cal);

/* 24-bit raw value from xlsb, lsb, msb. */
uint32_t bmp388_adc24(const uint8_t b[3]);

/* Temperature in degC (the datasheet's t_lin). */
double bmp388_compensate_t(const struct bmp388_calib *cal, uint32_t raw_t);
/* Pressure in Pa at temperature t_c from bmp388_compensate_t.  Only
 * constant divisors: any calibration gives a finite number, which the
 * caller checks for plausibility. */
double bmp388_compensate_p(const struct bmp388_calib *cal, uint32_t raw_p,
			   double t_c);

/* Conversion time for OSR codes 0..5 (x1..x32), Bosch API constants. */
uint32_t bmp388_meas_time_us(unsigned osr_t, unsigned osr_p);

/* The driver, registered in driver.c (struct baro_driver: driver.h). */
struct baro_driver;
extern const struct baro_driver baro_driver_bmp388;

#endif
