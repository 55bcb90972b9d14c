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
#include <stdint.h>

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
/* The chips' clock (emu_chip.now_us): CLOCK_MONOTONIC, or with now_us
 * the test's own time, which it advances between driver calls (the
 * handler thread reads it while the caller waits in ioctl()); NULL goes
 * back to the real clock. */
void i2c_mock_set_clock(struct i2c_mock *mock, const uint64_t *now_us);

/* Puts chip on bus n; the chip stays the caller's. */
void i2c_mock_attach(struct i2c_mock *mock, unsigned n, struct emu_chip *chip);

/* Is libumockdev-preload loaded in this process? */
bool i2c_mock_preloaded(void);

/* For main() when it is not: the one line saying what is missing and how
 * to get it, and 77 (meson's skip) to return. */
int i2c_mock_skip(const char *test);

/*
 * What a bus carried, for benchmarks and tests of bus traffic: each
 * completed transfer as a real adapter (I2C_FUNC_SMBUS_EMUL) puts it on
 * the wire.  starts counts START and repeated-START conditions, each of
 * which sends one address byte; out counts the bytes the master sends
 * after an address byte (register and command bytes included), in the
 * bytes the chip sends back.  A transfer the chip NACKed or refused moved
 * nothing countable and is counted in failed only.
 */
enum i2c_mock_xfer_kind {
	I2C_MOCK_SEND_BYTE,		/* SMBus: command byte alone */
	I2C_MOCK_RECV_BYTE,
	I2C_MOCK_WRITE_BYTE_DATA,
	I2C_MOCK_READ_BYTE_DATA,
	I2C_MOCK_WRITE_WORD_DATA,
	I2C_MOCK_READ_WORD_DATA,
	I2C_MOCK_WRITE_I2C_BLOCK,
	I2C_MOCK_READ_I2C_BLOCK,
	I2C_MOCK_RDWR_WRITE,		/* one I2C_RDWR message each */
	I2C_MOCK_RDWR_READ,
	I2C_MOCK_XFER_KINDS,
};

struct i2c_mock_xfer {
	unsigned long transfers, starts, out, in;
};

struct i2c_mock_counts {
	unsigned long ioctls;	/* every ioctl on the node, I2C_SLAVE too */
	unsigned long failed;
	struct i2c_mock_xfer xfer[I2C_MOCK_XFER_KINDS];
};

/* "i2c-block-read" and so on. */
const char *i2c_mock_xfer_name(enum i2c_mock_xfer_kind kind);
/* Bus n's counts since it was added or last reset (zeros for no such
 * bus).  Read them between driver calls: the handler thread writes them
 * while the caller waits in ioctl(). */
void i2c_mock_counts(const struct i2c_mock *mock, unsigned n,
		     struct i2c_mock_counts *out);
void i2c_mock_counts_reset(struct i2c_mock *mock, unsigned n);
/* Sums over every kind. */
struct i2c_mock_xfer i2c_mock_counts_total(const struct i2c_mock_counts *c);

#endif
