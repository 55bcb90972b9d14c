/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A barometer the kernel already drives (Raspberry Pi OS
 * dtoverlay=i2c-sensor,bmp280 and the like), read through its IIO sysfs
 * directory: in_pressure_input in kPa (or in_pressure_raw times
 * in_pressure_scale, as ST's LPS22 driver offers) and in_temp_input in
 * milli-degrees Celsius.  Samples are the same as a driver's.
 *
 * The directory is any path, so tests build a tree in a temporary
 * directory.  Files stay open and are re-read from offset 0, which is how
 * sysfs attributes refresh.
 */
#ifndef BAROD_SENSORS_IIO_H
#define BAROD_SENSORS_IIO_H

#include <stddef.h>
#include <stdint.h>

#include "baro-sample.h"

struct baro_iio {
	int pressure_fd;	/* -1 when closed */
	int temp_fd;		/* -1: the device has no processed temperature */
	double pressure_scale;	/* kPa per file unit: 1, or the raw scale */
	uint8_t instance;
	uint32_t period_us;
	char name[32];		/* the device's name attribute, for logs */
	char dir[256];
};

/* Opens dir's attributes; rate_hz 0 polls at 50 Hz (the kernel drivers
 * convert on each read, and most take 5-40 ms). */
int baro_iio_open(struct baro_iio *io, const char *dir, uint8_t instance,
		  uint32_t rate_hz, char *err, size_t errlen);

/* One reading stamped now_us; -EIO, -ERANGE (implausible) and others on
 * failure, with dir in the message. */
int baro_iio_read(struct baro_iio *io, uint64_t now_us,
		  struct baro_sample *out, char *err, size_t errlen);

void baro_iio_close(struct baro_iio *io);

#endif
