/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod in hardware mode against emulated chips, for the daemon tests
 * that run it so (test-barod-hw.c, test-barod-hwfaults.c).  The test
 * hosts umockdev's testbed (tests/sensors/i2c-mock.c) with its I2C buses
 * and runs barod as a child through the barod harness: the child
 * inherits LD_PRELOAD and UMOCKDEV_DIR, its preload library sends each
 * ioctl on /dev/i2c-N through the testbed's socket, and the handler
 * thread in the test answers from the emulators.  So barod, libi2c and
 * the drivers run unchanged while the test changes the chips.
 */
#ifndef BAROD_HW_TESTBED_H
#define BAROD_HW_TESTBED_H

#include <stdint.h>
#include <sys/types.h>

#include "barod-harness.h"
#include "emu-bmp280.h"
#include "emu-bmp388.h"
#include "i2c-mock.h"

struct hw_testbed {
	struct i2c_mock *mock;	/* NULL: not under umockdev (tests skip) */
	struct harness h;	/* barod's runs, the temporary directory */
	pid_t child;		/* the barod started last; 0: none */
};

/*
 * The testbed with the buses /dev/i2c-1 .. /dev/i2c-NBUS and a fresh
 * temporary directory /tmp/PREFIX-XXXXXX (tb->h.dir).  Without umockdev
 * tb->mock stays NULL and hw_testbed_require() skips.  0, or -1 when
 * the directory or $BAROD is missing (a cmocka setup's return).
 */
int hw_testbed_open(struct hw_testbed *tb, const char *prefix,
		    unsigned nbus);

/* Kill barod if it still runs, stop the testbed, remove the directory
 * (KEEP_TMP=1 keeps barod's logs and files for a look): 0 or -1. */
int hw_testbed_close(struct hw_testbed *tb);

/* Skip the running test when there is no testbed. */
void hw_testbed_require(const struct hw_testbed *tb);

/* A BMP280 (the datasheet's calibration) at 0x76 on bus, reading pa and
 * degc. */
void hw_testbed_bmp280(struct hw_testbed *tb, struct emu_bmp280 *chip,
		       unsigned bus, double pa, double degc);

/* A BMP390 (the sample calibration) at 0x77 on bus, reading pa and
 * degc. */
void hw_testbed_bmp390(struct hw_testbed *tb, struct emu_bmp388 *chip,
		       unsigned bus, double pa, double degc);

/* DIR/name into buf. */
void hw_testbed_path(const struct hw_testbed *tb, char *buf, size_t len,
		     const char *name);

/* barod with args (NULL-terminated, its name excluded), stdout and
 * stderr in DIR/log; returns at once (tb->child). */
pid_t hw_testbed_start(struct hw_testbed *tb, const char *log,
		       const char *const *args);

/* SIGTERM to tb->child, then its exit code (128 + signal when a signal
 * ended it). */
int hw_testbed_stop(struct hw_testbed *tb);

/* CLOCK_MONOTONIC in ms. */
uint64_t hw_now_ms(void);

void hw_sleep_ms(unsigned ms);

#endif
