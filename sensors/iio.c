/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "iio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

#define DEFAULT_RATE_HZ 50u

/* The drivers' plausibility window: a reading outside it is a fault, not
 * weather (300 hPa is about 9 km up). */

static int
open_attr(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The attribute's text as a number; the kernel writes one line. */
static int
read_number(int fd, double *out)
{
	char buf[64], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -EIO;
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end == buf || errno != 0 || (*end != '\n' && *end != '\0'))
		return -EIO;
	return 0;
}

/* A one-off attribute (name, scale) as a number or text. */
static int
read_once(const char *dir, const char *name, double *num, char *text,
	  size_t len)
{
	int fd = open_attr(dir, name);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (num != NULL) {
		ret = read_number(fd, num);
	} else {
		ssize_t n = read(fd, text, len - 1);
		ret = n < 0 ? -errno : 0;
		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
	}
	close(fd);
	return ret;
}

int
baro_iio_open(struct baro_iio *io, const char *dir, uint8_t instance,
	      uint32_t rate_hz, char *err, size_t errlen)
{
	io->pressure_fd = io->temp_fd = -1;
	io->pressure_scale = 1.0;
	io->instance = instance;
	io->period_us = 1000000u / (rate_hz ? rate_hz : DEFAULT_RATE_HZ);
	if (strlen(dir) >= sizeof(io->dir)) {
		snprintf(err, errlen, "%.100s: path too long", dir);
		return -ENAMETOOLONG;
	}
	strcpy(io->dir, dir);
	if (read_once(dir, "name", NULL, io->name, sizeof(io->name)) < 0)
		strcpy(io->name, "?");

	io->pressure_fd = open_attr(dir, "in_pressure_input");
	if (io->pressure_fd < 0 && errno == ENOENT) {
		int ret = read_once(dir, "in_pressure_scale", &io->pressure_scale,
				    NULL, 0);
		if (ret < 0 || !(io->pressure_scale > 0.0)) {
			snprintf(err, errlen, "%s: no in_pressure_input, and no "
				 "usable in_pressure_scale: not a pressure "
				 "sensor?", dir);
			return -ENODEV;
		}
		io->pressure_fd = open_attr(dir, "in_pressure_raw");
	}
	if (io->pressure_fd < 0) {
		int ret = -errno;
		snprintf(err, errlen, "%s: pressure: %s", dir, strerror(-ret));
		return ret;
	}
	/* Temperature is optional: published as 0 and flagged missing. */
	io->temp_fd = open_attr(dir, "in_temp_input");

	/* One reading now, so a wrong directory fails at start-up. */
	struct baro_sample s;
	int ret = baro_iio_read(io, 0, &s, err, errlen);
	if (ret < 0) {
		baro_iio_close(io);
		return ret;
	}
	return 0;
}

int
baro_iio_read(struct baro_iio *io, uint64_t now_us, struct baro_sample *out,
	      char *err, size_t errlen)
{
	double kpa, mdeg = 0.0;
	int ret = read_number(io->pressure_fd, &kpa);

	if (ret < 0) {
		snprintf(err, errlen, "%s: pressure: %s", io->dir,
			 strerror(-ret));
		return ret;
	}
	if (io->temp_fd >= 0 && (ret = read_number(io->temp_fd, &mdeg)) < 0) {
		snprintf(err, errlen, "%s: temperature: %s", io->dir,
			 strerror(-ret));
		return ret;
	}
	double pa = kpa * io->pressure_scale * 1000.0;
	double c = mdeg / 1000.0;
	if (!(pa >= BARO_PLAUSIBLE_PA_MIN && pa <= BARO_PLAUSIBLE_PA_MAX) ||
	    !(c >= BARO_PLAUSIBLE_C_MIN && c <= BARO_PLAUSIBLE_C_MAX)) {
		snprintf(err, errlen, "%s: implausible %.2f Pa %.2f degC",
			 io->dir, pa, c);
		return -ERANGE;
	}
	*out = (struct baro_sample){
		.time_us = now_us,
		.instance = io->instance,
		.flags = BARO_SAMPLE_HEALTHY |
			 (io->temp_fd >= 0 ? BARO_SAMPLE_HAS_TEMPERATURE : 0u),
		.pressure_pa = (float)pa,
		.temperature_c = (float)c,
	};
	return 0;
}

void
baro_iio_close(struct baro_iio *io)
{
	if (io->pressure_fd >= 0)
		close(io->pressure_fd);
	if (io->temp_fd >= 0)
		close(io->temp_fd);
	io->pressure_fd = io->temp_fd = -1;
}
