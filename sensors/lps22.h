/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ST LPS22HB / LPS22HH: the pure part.  The chips output compensated
 * values, so there is no calibration: pressure is signed 24-bit at 4096
 * LSB/hPa, temperature signed 16-bit at 100 LSB/degC.
 */
#ifndef BAROD_SENSORS_LPS22_H
#define BAROD_SENSORS_LPS22_H

#include <stdint.h>

#define LPS22HB_WHO_AM_I 0xb1
#define LPS22HH_WHO_AM_I 0xb3

#define LPS22_REG_WHO_AM_I 0x0f
#define LPS22_REG_CTRL1 0x10
#define LPS22_REG_CTRL2 0x11
#define LPS22_REG_CTRL3 0x12
#define LPS22_REG_STATUS 0x27
#define LPS22_REG_PRESS_XL 0x28	/* XL, L, H, then TEMP L, H */

#define LPS22_CTRL1_ODR_SHIFT 4
#define LPS22_CTRL1_EN_LPFP 0x08
#define LPS22_CTRL1_LPFP_CFG 0x04
#define LPS22_CTRL1_BDU 0x02
#define LPS22_CTRL2_BOOT 0x80
#define LPS22_CTRL2_IF_ADD_INC 0x10
#define LPS22_CTRL2_SWRESET 0x04
#define LPS22_CTRL2_ONE_SHOT 0x01
/* The INT_DRDY pin: enabled in CTRL_REG3 on both chips; its level and
 * drive sit in CTRL_REG3 on the HB, in CTRL_REG2 on the HH.  Reset:
 * push-pull, active high. */
#define LPS22_CTRL3_DRDY 0x04
#define LPS22HB_CTRL3_INT_H_L 0x80	/* active low */
#define LPS22HB_CTRL3_PP_OD 0x40	/* open-drain */
#define LPS22HH_CTRL2_INT_H_L 0x40
#define LPS22HH_CTRL2_PP_OD 0x20
#define LPS22_STATUS_P_DA 0x01
#define LPS22_STATUS_T_DA 0x02

enum lps22_variant {
	LPS22_VARIANT_HB,
	LPS22_VARIANT_HH,
};

/* Pa from the three pressure bytes XL, L, H. */
double lps22_pressure_pa(const uint8_t b[3]);
/* degC from the two temperature bytes L, H. */
double lps22_temperature_c(const uint8_t b[2]);

/* The ODR code (1..) of the slowest output rate no slower than rate_hz
 * (0: the fastest), and that rate in Hz. */
unsigned lps22_odr_code(enum lps22_variant v, uint32_t rate_hz);
uint32_t lps22_odr_hz(enum lps22_variant v, unsigned code);

/* The driver, registered in driver.c (struct baro_driver: driver.h). */
struct baro_driver;
extern const struct baro_driver baro_driver_lps22;

#endif
