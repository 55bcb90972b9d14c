/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * BMP280 / BME280 pressure and temperature: the pure part (calibration
 * layout, compensation, timing), so tests and emulators use it without a
 * bus.  Compensation is the datasheet's integer variant: int32 temperature
 * (t_fine) and int64 pressure in Q24.8 Pa.
 */
#ifndef BAROD_SENSORS_BMP280_H
#define BAROD_SENSORS_BMP280_H

#include <stdint.h>

#define BMP280_CHIP_ID 0x58
#define BME280_CHIP_ID 0x60

#define BMP280_REG_CALIB 0x88
#define BMP280_CALIB_LEN 24
#define BMP280_REG_ID 0xd0
#define BMP280_REG_RESET 0xe0
#define BMP280_REG_STATUS 0xf3
#define BMP280_REG_CTRL_MEAS 0xf4
#define BMP280_REG_CONFIG 0xf5
#define BMP280_REG_DATA 0xf7	/* press msb, lsb, xlsb, temp msb, lsb, xlsb */

#define BMP280_RESET_MAGIC 0xb6
#define BMP280_STATUS_MEASURING 0x08
#define BMP280_STATUS_IM_UPDATE 0x01
#define BMP280_MODE_SLEEP 0x00
#define BMP280_MODE_FORCED 0x01
#define BMP280_MODE_NORMAL 0x03
/* What a skipped (or never made) measurement reads as. */
#define BMP280_ADC_SKIPPED 0x80000u

enum bmp280_variant {
	BMP280_VARIANT_BMP280,
	BMP280_VARIANT_BME280,
};

struct bmp280_calib {
	uint16_t t1;
	int16_t t2, t3;
	uint16_t p1;
	int16_t p2, p3, p4, p5, p6, p7, p8, p9;
};

/* 0x88..0x9f, little-endian pairs. */
void bmp280_calib_parse(const uint8_t raw[BMP280_CALIB_LEN],
			struct bmp280_calib *cal);

/* 20-bit raw value from a msb, lsb, xlsb triple. */
uint32_t bmp280_adc20(const uint8_t b[3]);

/* t_fine and the temperature in 0.01 degC.  -EINVAL for a raw value
 * wider than 20 bits, -ERANGE when t_fine leaves int32 (only garbage
 * calibration does that). */
int bmp280_compensate_t(const struct bmp280_calib *cal, uint32_t adc_t,
			int32_t *t_fine, int32_t *t_centi);

/* Pressure in Pa * 256.  -ERANGE where the datasheet's int64 arithmetic
 * would overflow or divide by zero, i.e. for calibration no real chip
 * carries; no input can cause undefined behaviour. */
int bmp280_compensate_p(const struct bmp280_calib *cal, uint32_t adc_p,
			int32_t t_fine, uint32_t *p_q24_8);

/* Worst-case conversion time for oversampling codes as written to
 * ctrl_meas (0 = skipped, 1 = x1 ... 5 = x16), Bosch's constants. */
uint32_t bmp280_meas_time_us(unsigned osrs_t, unsigned osrs_p);
/* The same measurement's typical time (datasheet section 9.1), for the
 * chip emulator's "typical" timing. */
uint32_t bmp280_meas_typ_us(unsigned osrs_t, unsigned osrs_p);

/* Normal-mode standby for t_sb code 0..7; BME280 differs at 6 and 7. */
uint32_t bmp280_standby_us(enum bmp280_variant variant, unsigned code);

/* The driver, registered in driver.c (struct baro_driver: driver.h). */
struct baro_driver;
extern const struct baro_driver baro_driver_bmp280;

#endif
