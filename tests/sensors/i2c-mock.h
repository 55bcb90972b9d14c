/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Emulated chips on /dev/i2c-N through umockdev: the test binary runs
 * with libumockdev-preload (umockdev-wrapper), the preload library sends
 * every ioctl on the node to a handler here, and the handler answers
 * I2C_SLAVE, I2C_FUNCS, I2C_SMBUS and I2C_RDWR from the emu_chip register
 * files.  The code under test (bus.c, libi2c, the drivers) runs unchanged.
 *
 * Handlers run on umockdev's own thread while the caller blocks in
 * ioctl(), so tests may change chips freely between driver calls.
 */
#ifndef BAROD_TESTS_I2C_MOCK_H
#define BAROD_TESTS_I2C_MOCK_H

#include <stdbool.h>

#include "emu.h"

struct i2c_mock;

/* NULL when not running under umockdev's preload library. */
struct i2c_mock *i2c_mock_new(void);
void i2c_mock_free(struct i2c_mock *mock);

/* Creates /dev/i2c-N (0 or -errno). */
int i2c_mock_add_bus(struct i2c_mock *mock, unsigned n);
/* Creates /dev/gpiochipN, for code that finds GPIO chips by listing
 * /dev (the lines themselves are fake-gpio.h's). */
int i2c_mock_add_gpiochip(struct i2c_mock *mock, unsigned n);
/* Puts chip on bus n; the chip stays the caller's. */
void i2c_mock_attach(struct i2c_mock *mock, unsigned n, struct emu_chip *chip);

/* Is libumockdev-preload loaded in this process? */
bool i2c_mock_preloaded(void);

#endif
