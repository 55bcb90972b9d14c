/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * i2c-dev through libi2c's SMBus helpers.  libi2c returns -errno on
 * failure (its documentation still says -1, the code does not), but errno
 * is set as well, so both are accepted here.
 */
#include "bus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <i2c/smbus.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>

/* What every driver here needs from the adapter. */
#define BUS_NEEDED_FUNCS \
	(I2C_FUNC_SMBUS_READ_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_BYTE_DATA | \
	 I2C_FUNC_SMBUS_READ_I2C_BLOCK)

static void
bus_msg(const struct baro_bus *bus, char *err, size_t errlen, int errnum,
	const char *fmt, ...)
{
	char what[96];
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (bus->addr != 0)
		snprintf(err, errlen, "%s 0x%02x: %s: %s", bus->path,
			 bus->addr, what, strerror(errnum));
	else
		snprintf(err, errlen, "%s: %s: %s", bus->path, what,
			 strerror(errnum));
}

/* libi2c's result to a negative errno (never 0 for a failure). */
static int
bus_errno(int ret)
{
	if (ret < -1)
		return ret;
	return errno > 0 ? -errno : -EIO;
}

void
baro_bus_path(unsigned n, char *path, size_t len)
{
	snprintf(path, len, "/dev/i2c-%u", n);
}

int
baro_bus_open(struct baro_bus *bus, const char *path, char *err,
	      size_t errlen)
{
	unsigned long funcs = 0;

	bus->fd = -1;
	bus->addr = 0;
	if (strlen(path) >= sizeof(bus->path)) {
		snprintf(err, errlen, "%.100s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(bus->path, path);

	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		bus_msg(bus, err, errlen, e, "open");
		return -e;
	}
	/* A node that is not i2c-dev (or an adapter without SMBus byte and
	 * block transfers) is refused here rather than at the first read. */
	if (ioctl(fd, I2C_FUNCS, &funcs) < 0) {
		int e = errno;
		bus_msg(bus, err, errlen, e, "I2C_FUNCS");
		close(fd);
		return -e;
	}
	if ((funcs & BUS_NEEDED_FUNCS) != BUS_NEEDED_FUNCS) {
		bus_msg(bus, err, errlen, EOPNOTSUPP,
			"adapter lacks SMBus byte/block transfers (funcs 0x%lx)",
			funcs);
		close(fd);
		return -EOPNOTSUPP;
	}
	bus->fd = fd;
	return 0;
}

void
baro_bus_close(struct baro_bus *bus)
{
	if (bus->fd >= 0)
		close(bus->fd);
	bus->fd = -1;
	bus->addr = 0;
}

int
baro_bus_select(struct baro_bus *bus, uint8_t addr, char *err, size_t errlen)
{
	if (addr < 0x03 || addr > 0x77) {
		snprintf(err, errlen, "%s: 0x%02x is not a 7-bit device address",
			 bus->path, addr);
		return -EINVAL;
	}
	if (bus->addr == addr)
		return 0;
	if (ioctl(bus->fd, I2C_SLAVE, (unsigned long)addr) < 0) {
		int e = errno;

		bus->addr = addr;
		if (e == EBUSY)
			snprintf(err, errlen,
				 "%s 0x%02x: a kernel driver owns this address "
				 "(i2cdetect shows UU); read its IIO device "
				 "(/sys/bus/iio/devices/iio:deviceN) instead, or "
				 "remove the dtoverlay that binds it",
				 bus->path, addr);
		else
			bus_msg(bus, err, errlen, e, "I2C_SLAVE");
		bus->addr = 0;
		return -e;
	}
	bus->addr = addr;
	return 0;
}

int
baro_bus_read_reg(struct baro_bus *bus, uint8_t reg, uint8_t *val, char *err,
		  size_t errlen)
{
	errno = 0;
	int ret = i2c_smbus_read_byte_data(bus->fd, reg);
	if (ret < 0) {
		ret = bus_errno(ret);
		bus_msg(bus, err, errlen, -ret, "read 0x%02x", reg);
		return ret;
	}
	*val = (uint8_t)ret;
	return 0;
}

int
baro_bus_write_reg(struct baro_bus *bus, uint8_t reg, uint8_t val, char *err,
		   size_t errlen)
{
	errno = 0;
	int ret = i2c_smbus_write_byte_data(bus->fd, reg, val);
	if (ret < 0) {
		ret = bus_errno(ret);
		bus_msg(bus, err, errlen, -ret, "write 0x%02x <- 0x%02x", reg,
			val);
		return ret;
	}
	return 0;
}

int
baro_bus_command(struct baro_bus *bus, uint8_t cmd, char *err, size_t errlen)
{
	errno = 0;
	int ret = i2c_smbus_write_byte(bus->fd, cmd);
	if (ret < 0) {
		ret = bus_errno(ret);
		bus_msg(bus, err, errlen, -ret, "command 0x%02x", cmd);
		return ret;
	}
	return 0;
}

int
baro_bus_read_block(struct baro_bus *bus, uint8_t reg, uint8_t *buf,
		    size_t len, char *err, size_t errlen)
{
	size_t done = 0;

	if (len > 256 - (size_t)reg) {
		snprintf(err, errlen, "%s 0x%02x: block 0x%02x+%zu runs past 0xff",
			 bus->path, bus->addr, reg, len);
		return -EINVAL;
	}
	while (done < len) {
		size_t n = len - done;
		if (n > I2C_SMBUS_BLOCK_MAX)
			n = I2C_SMBUS_BLOCK_MAX;
		errno = 0;
		int ret = i2c_smbus_read_i2c_block_data(bus->fd,
			(uint8_t)(reg + done), (uint8_t)n, buf + done);
		if (ret < 0) {
			ret = bus_errno(ret);
			bus_msg(bus, err, errlen, -ret, "read 0x%02x+%zu",
				(unsigned)(reg + done), n);
			return ret;
		}
		if ((size_t)ret != n) {
			bus_msg(bus, err, errlen, EIO,
				"short read 0x%02x: %d of %zu bytes",
				(unsigned)(reg + done), ret, n);
			return -EIO;
		}
		done += n;
	}
	return 0;
}
